"""A person's own persona (``engine.user_persona``) for the browser, the operator and the chat
socket: read, store, reset, and the name a new message is signed with."""

from __future__ import annotations

from adapters.web.schemas.me import UserPersonaBody, UserPersonaView
from adapters.web.state import WebState
from engine.errors import ConfigError
from engine.ports import UserPersonaStore
from engine.user_persona import UserPersona, check_user_persona

__all__ = ["forget_user_persona", "put_user_persona", "speaker_name", "user_persona_view"]


def _store(web: WebState) -> UserPersonaStore:
    if web.user_personas is None:
        raise ConfigError("User personas are not configured here.", code="user_personas_unavailable")
    return web.user_personas


async def speaker_name(web: WebState, user: str, fallback: str) -> str:
    """The name a message of ``user`` is signed with: their persona's, else ``fallback``."""
    if web.user_personas is None:
        return fallback
    found = await web.user_personas.get(user)
    return found.name if found is not None and found.name else fallback


async def user_persona_view(web: WebState, user: str, fallback: str) -> UserPersonaView:
    """``user``'s persona, or (none set) ``fallback`` as the name and no description."""
    found = await _store(web).get(user)
    if found is None:
        return UserPersonaView(user=user, name=fallback, description="", set=False)
    name = found.name or fallback
    return UserPersonaView(user=user, name=name, description=found.description, set=True)


async def put_user_persona(web: WebState, user: str, body: UserPersonaBody) -> UserPersonaView:
    """Check and store ``user``'s persona (422 naming what is wrong; nothing stored then)."""
    checked = check_user_persona(UserPersona(name=body.name, description=body.description))
    await _store(web).put(user, checked)
    return UserPersonaView(user=user, name=checked.name, description=checked.description, set=True)


async def forget_user_persona(web: WebState, user: str, fallback: str) -> UserPersonaView:
    """Remove ``user``'s persona: ``{{user}}`` is their display name again."""
    await _store(web).delete(user)
    return UserPersonaView(user=user, name=fallback, description="", set=False)
