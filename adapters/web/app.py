"""The Litestar application: chat page, WebSocket, REST API, OpenAPI, health (PLT-4, API.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Litestar, Request, Response, get
from litestar.exceptions import HTTPException
from litestar.openapi import OpenAPIConfig
from litestar.static_files import create_static_files_router

from adapters.web.api import ChatController
from adapters.web.archive_api import ARCHIVE_ROUTES
from adapters.web.browser_api import browser_router
from adapters.web.chat_ws import chat_socket
from adapters.web.errors import error_body, handle_domain_error, handle_http_error, handle_unexpected_error
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
from adapters.web.state import WebState
from adapters.web.summary_api import deep_reports, edit_summary, read_summary, rebuild_summary
from engine.errors import PersonaBotError

__all__ = ["STATIC", "create_app"]

STATIC = Path(__file__).parent / "static"
_INDEX = STATIC / "index.html"


@get("/", include_in_schema=False, media_type="text/html")
async def index() -> Response[bytes]:
    """The chat page."""
    return Response(_INDEX.read_bytes(), media_type="text/html; charset=utf-8")


@get("/healthz", tags=["ops"])
async def healthz(request: Request[Any, Any, Any]) -> Response[dict[str, Any]]:
    """Liveness and Redis reachability."""
    state: WebState = request.app.state.web
    redis_ok = await state.ping()
    body = {
        "status": "ok" if redis_ok else "unavailable",
        "redis": "ok" if redis_ok else "down",
        "model": "offline" if state.settings.offline else state.settings.model,
    }
    if not redis_ok:
        return Response(
            {**body, **error_body("storage_unavailable", "Redis is unreachable.")}, status_code=503
        )
    return Response(body)


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
        The Litestar app.
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
        exception_handlers={
            PersonaBotError: handle_domain_error,
            HTTPException: handle_http_error,
            Exception: handle_unexpected_error,
        },
        openapi_config=OpenAPIConfig(title="Hearth", version="0.1.0", path="/schema"),
        on_startup=on_startup or [],
        on_shutdown=[*([state.ingest.close] if state.ingest else []), *(on_shutdown or [])],
        request_max_body_size=25_000_000,
        debug=False,
    )
    app.state.web = state
    return app
