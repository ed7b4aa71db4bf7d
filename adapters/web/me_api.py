"""The operator's view of a person's own persona: ``/api/users/{user}/persona`` (GET, PUT,
DELETE), the same checks and errors as the browser's ``/app/me/persona``."""

from __future__ import annotations

from litestar import delete, get, put
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from adapters.web.actions.me import forget_user_persona, put_user_persona, user_persona_view
from adapters.web.layers import operator_route
from adapters.web.schemas.me import UserPersonaBody, UserPersonaView
from adapters.web.state import WebState
from engine.validate import qualify_id

__all__ = ["USER_PERSONA_ROUTES"]


def _user(raw: str) -> tuple[str, str]:
    user = qualify_id(raw, what="user")
    return user, user.split(":", 1)[1]


@operator_route(get, "/api/users/{user:str}/persona", tags=["users"])
async def get_user_persona(web: NamedDependency[WebState], user: FromPath[str]) -> UserPersonaView:
    """A person's own persona (``set`` false: none, ``name`` is their id's name part)."""
    return await user_persona_view(web, *_user(user))


@operator_route(put, "/api/users/{user:str}/persona", tags=["users"])
async def put_user_persona_route(
    web: NamedDependency[WebState], user: FromPath[str], data: JSONBody[UserPersonaBody]
) -> UserPersonaView:
    """Set a person's name for ``{{user}}`` and their description (422 on bad input)."""
    return await put_user_persona(web, _user(user)[0], data)


@operator_route(delete, "/api/users/{user:str}/persona", tags=["users"], status_code=200)
async def delete_user_persona(web: NamedDependency[WebState], user: FromPath[str]) -> UserPersonaView:
    """Remove a person's own persona."""
    return await forget_user_persona(web, *_user(user))


USER_PERSONA_ROUTES = [get_user_persona, put_user_persona_route, delete_user_persona]
