"""The browser's cast endpoints (CAST-1): who shares one of the visitor's chats.

``GET|PUT|DELETE /app/chats/{chat}/personas`` as the operator's ``/api/chats/{chat}/personas``,
for the visitor's own chats, with only personas the visitor may talk to (another account's
private persona is ``422 unknown_persona``, as one that does not exist).
"""

from __future__ import annotations

from litestar import Router, delete, get, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from adapters.web.actions.chat import cast_view, put_cast
from adapters.web.actions.personas import visible_persona
from adapters.web.app_auth import owned_chat
from adapters.web.layers import BODY_DTO, browser_guards, web_dependency
from adapters.web.schemas.chat import CastBody, CastView
from adapters.web.session import BrowserSession
from adapters.web.state import WebState
from engine.errors import InvalidInput, NotFound

__all__ = ["CAST_ROUTES"]


@get("/chats/{chat:str}/personas")
async def get_cast(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> CastView:
    """One of the visitor's chats' cast; ``personas`` empty: no cast."""
    return await cast_view(web, owned_chat(visitor, chat))


@put("/chats/{chat:str}/personas")
async def set_cast(
    web: NamedDependency[WebState],
    visitor: NamedDependency[BrowserSession],
    chat: FromPath[str],
    data: JSONBody[CastBody],
) -> CastView:
    """Set the cast of one of the visitor's chats (the picker: add, remove, reorder, mute)."""
    chat_id = owned_chat(visitor, chat)
    for persona in dict.fromkeys(data.personas):
        try:
            await visible_persona(web, visitor, persona)
        except NotFound:
            raise InvalidInput(f"There is no persona {persona!r}.", code="unknown_persona") from None
    return await put_cast(web, chat_id, data)


@delete("/chats/{chat:str}/personas", status_code=200)
async def drop_cast(
    web: NamedDependency[WebState], visitor: NamedDependency[BrowserSession], chat: FromPath[str]
) -> CastView:
    """Remove the chat's cast: one persona again."""
    chat_id = owned_chat(visitor, chat)
    await web.service.set_cast(chat_id, None)
    return await cast_view(web, chat_id)


CAST_ROUTES = [
    Router(
        path="/",
        route_handlers=[get_cast, set_cast, drop_cast],
        guards=browser_guards(),
        dependencies=web_dependency(),
        dto=BODY_DTO,
        return_dto=None,
        tags=["cast"],
    )
]
"""The cast routes, for the ``/app`` router."""
