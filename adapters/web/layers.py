"""The layer settings every typed route of this adapter shares (dependencies, body decoding).

- :func:`web_dependency`: ``web`` (the whole ``WebState``) and the narrow ``lore`` (the lore desk)
  as dependencies.
- :data:`BODY_DTO`: ``data`` bodies decoded strictly into their Struct (``adapters.web.body``).
- :func:`operator_guards`: the admin token, then the empty-body check.
- :func:`operator_route`: a standalone ``/api`` route with all of the above.
"""

from __future__ import annotations

from litestar import delete, get, patch, post, put
from litestar.di import Provide
from litestar.handlers import HTTPRouteHandler
from litestar.types import Guard

from adapters.web.api import admin_guard
from adapters.web.body import StrictJSON, body_required
from adapters.web.deps import provide_lore, provide_web

__all__ = ["BODY_DTO", "browser_guards", "operator_guards", "operator_route", "web_dependency"]

BODY_DTO = StrictJSON
"""``dto=`` of every route that takes a JSON body (``return_dto=None``: answers are Structs)."""


def web_dependency() -> dict[str, Provide]:
    """A fresh ``dependencies`` mapping with ``web`` and ``lore`` (Litestar keeps one per layer)."""
    return {
        "web": Provide(provide_web, sync_to_thread=False),
        "lore": Provide(provide_lore, sync_to_thread=False),
    }


def operator_guards() -> list[Guard]:
    """``/api`` routes: the admin token (401 first), then a JSON body where one is expected."""
    return [admin_guard, body_required]


def browser_guards() -> list[Guard]:
    """``/app`` routes (the router's CSRF guard runs before): a JSON body where one is expected."""
    return [body_required]


def operator_route(
    kind: type[get | post | put | patch | delete],
    path: str,
    *,
    tags: list[str],
    status_code: int | None = None,
) -> HTTPRouteHandler:
    """A standalone ``/api`` route with the operator layer: ``web``, strict bodies, admin guard.

    ``@operator_route(put, "/api/...", tags=[...])`` stands for the decorator with those settings
    (routes ``create_app`` registers one by one; grouped routes take them from their Router).
    """
    return kind(
        path,
        guards=operator_guards(),
        dependencies=web_dependency(),
        dto=BODY_DTO,
        return_dto=None,
        tags=tags,
        status_code=status_code,
    )
