"""The Litestar application: chat page, WebSocket, REST API, OpenAPI, health (PLT-4, API.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Litestar, Response, get
from litestar.exceptions import HTTPException
from litestar.openapi import OpenAPIConfig, ResponseSpec
from litestar.static_files import create_static_files_router

from adapters.web.api import ChatController
from adapters.web.archive_api import ARCHIVE_ROUTES
from adapters.web.body import StrictJSON
from adapters.web.browser_api import browser_router
from adapters.web.chat_ws import chat_socket
from adapters.web.errors import (
    Refused,
    handle_domain_error,
    handle_http_error,
    handle_refused,
    handle_unexpected_error,
)
from adapters.web.layers import web_dependency
from adapters.web.lint_api import LINT_ROUTES
from adapters.web.lore_api import (
    LorebookController,
    PersonaController,
    attach_lorebooks,
    attach_persona_lorebooks,
    delete_persona,
)
from adapters.web.memory_api import (
    MemoryController,
    add_document,
    compose_memories,
    document_status,
    list_documents,
    memories_from_dialogue,
    set_privacy,
    space_blocklist,
    space_settings,
)
from adapters.web.params import Web
from adapters.web.schemas.chat import ErrorDetail, Health
from adapters.web.state import WebState
from adapters.web.summary_api import deep_reports, edit_summary, read_summary, rebuild_summary
from engine.errors import HearthError

__all__ = ["STATIC", "create_app"]

STATIC = Path(__file__).parent / "static"
_INDEX = STATIC / "index.html"


@get("/", include_in_schema=False, media_type="text/html")
async def index() -> Response[bytes]:
    """The chat page."""
    return Response(_INDEX.read_bytes(), media_type="text/html; charset=utf-8")


@get(
    "/healthz",
    dependencies=web_dependency(),
    tags=["ops"],
    responses={503: ResponseSpec(data_container=Health, description="Redis is down")},
)
async def healthz(web: Web) -> Response[Health]:
    """Liveness and Redis reachability."""
    model = "offline" if web.settings.offline else web.settings.model
    if await web.ping():
        return Response(Health(status="ok", redis="ok", model=model))
    down = ErrorDetail(code="storage_unavailable", message="Redis is unreachable.")
    return Response(Health(status="unavailable", redis="down", model=model, error=down), status_code=503)


def create_app(
    state: WebState,
    *,
    on_startup: list[Any] | None = None,
    on_shutdown: list[Any] | None = None,
    extra_routes: list[Any] | None = None,
) -> Litestar:
    """Build the web app around an already built service (STYLE P8).

    Args:
        state: the service and web helpers.
        on_startup: callables run before the first request (loading personas...).
        on_shutdown: callables run when the app stops (closing Redis, clients).
        extra_routes: more route handlers (the Telegram webhook when it is configured).

    Returns:
        The Litestar app. Handlers take the state as the ``web`` dependency (given by each
        group of routes, ``adapters.web.layers.web_dependency``: Litestar refuses one provider
        on two layers of a route) and their JSON bodies as ``data`` Structs, decoded by
        ``adapters.web.body.StrictJSON`` app-wide; ``/schema`` documents both.
    """
    app = Litestar(
        route_handlers=[
            index,
            healthz,
            browser_router(),
            chat_socket,
            ChatController,
            PersonaController,
            LorebookController,
            *LINT_ROUTES,
            MemoryController,
            set_privacy,
            add_document,
            list_documents,
            document_status,
            compose_memories,
            memories_from_dialogue,
            space_settings,
            space_blocklist,
            read_summary,
            edit_summary,
            rebuild_summary,
            deep_reports,
            *ARCHIVE_ROUTES,
            attach_lorebooks,
            attach_persona_lorebooks,
            delete_persona,
            create_static_files_router(path="/static", directories=[STATIC]),
            *(extra_routes or []),
        ],
        dto=StrictJSON,  # every ``data`` body is decoded strictly, with the API's errors
        exception_handlers={
            Refused: handle_refused,
            HearthError: handle_domain_error,
            HTTPException: handle_http_error,
            Exception: handle_unexpected_error,
        },
        openapi_config=OpenAPIConfig(title="Hearth", version="0.1.0", path="/schema"),
        on_startup=[*(on_startup or []), *([state.sign_outs.start] if state.sign_outs else [])],
        on_shutdown=[
            *([state.sign_outs.stop] if state.sign_outs else []),
            *([state.ingest.close] if state.ingest else []),
            *(on_shutdown or []),
        ],
        request_max_body_size=30_000_000,  # a message with four 5 MB pictures in base64 (~28 MB)
        debug=False,
    )
    app.state.web = state
    return app
