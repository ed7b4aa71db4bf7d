"""Operations endpoints beside ``/healthz`` (API.md Operations): ``/readyz`` and ``/metrics``.

- ``GET /readyz``: 200 once the process has loaded its models and indexes (the embedder, the
  recall scorer's vectors, the tokenizer: the end of the app's startup), 503 before.
- ``GET /metrics``: the process's Prometheus registry (``adapters.metrics``) in the text format,
  behind the operator API's guard (``HEARTH_ADMIN_TOKEN`` as a bearer token; with no token set,
  loopback clients only, and a forwarded request only when a trusted proxy says the client was
  loopback).

The composition root puts a :class:`Readiness` on ``app.state.readiness`` and the ``Metrics`` on
``app.state.metrics``; an app built without them is never ready and has no metrics (404).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from litestar import Request, Response, get
from litestar.exceptions import NotFoundException
from litestar.openapi import ResponseSpec

from adapters.metrics import CONTENT_TYPE, Metrics
from adapters.web.api import admin_guard
from adapters.web.schemas.chat import ErrorDetail

__all__ = ["OPS_ROUTES", "Readiness", "Ready"]


class Readiness:
    """Whether the process can answer with memory on; set once its startup has loaded everything."""

    def __init__(self) -> None:
        self.ready = False

    def mark_ready(self) -> None:
        self.ready = True


class Ready(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /readyz``; before the models are loaded also the error (503)."""

    status: Literal["ready", "starting"]
    error: ErrorDetail | msgspec.UnsetType = msgspec.UNSET


@get(
    "/readyz",
    tags=["ops"],
    responses={503: ResponseSpec(data_container=Ready, description="Models and indexes are loading")},
)
async def readyz(request: Request[Any, Any, Any]) -> Response[Ready]:
    """Readiness: 200 once models and indexes are loaded (memory recall available), 503 before."""
    readiness: Readiness | None = getattr(request.app.state, "readiness", None)
    if readiness is not None and readiness.ready:
        return Response(Ready(status="ready"))
    loading = ErrorDetail(code="not_ready", message="Models and indexes are still loading.")
    return Response(Ready(status="starting", error=loading), status_code=503)


@get("/metrics", guards=[admin_guard], tags=["ops"], media_type=CONTENT_TYPE)
async def metrics(request: Request[Any, Any, Any]) -> Response[bytes]:
    """The process's metrics in the Prometheus text format (operator guard)."""
    registry: Metrics | None = getattr(request.app.state, "metrics", None)
    if registry is None:
        raise NotFoundException("This process keeps no metrics.")
    return Response(await registry.render(), media_type=CONTENT_TYPE)


OPS_ROUTES = [readyz, metrics]
"""The routes ``create_app`` registers beside ``/healthz``."""
