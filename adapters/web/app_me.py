"""The signed-in person's own persona (SillyTavern's "user persona"): ``/app/me/persona``.

``GET`` shows it (or the display name in use when none is set), ``PUT`` stores a name and a
description (422 ``user_name_empty``, ``user_name_too_long``, ``user_name_invalid``,
``user_description_too_long``, ``user_description_invalid``; nothing stored then), ``DELETE``
removes it. Guests get 403 ``sign_in_required``. The next message is signed with the name,
``{{user}}`` says it, and the description goes into the prompt's ``user_persona`` slot.
"""

from __future__ import annotations

from litestar import delete, get, put
from litestar.params import JSONBody

from adapters.web.actions.me import forget_user_persona, put_user_persona, user_persona_view
from adapters.web.params import Visitor, Web
from adapters.web.schemas.me import UserPersonaBody, UserPersonaView
from adapters.web.session import require_user

__all__ = ["ME_ROUTES"]


@get("/me/persona")
async def get_me(web: Web, visitor: Visitor) -> UserPersonaView:
    """Your own persona: the name ``{{user}}`` says and your description."""
    require_user(visitor)
    return await user_persona_view(web, visitor.user, visitor.slug)


@put("/me/persona")
async def put_me(web: Web, visitor: Visitor, data: JSONBody[UserPersonaBody]) -> UserPersonaView:
    """Set your name and description; your next message uses them."""
    require_user(visitor)
    return await put_user_persona(web, visitor.user, data)


@delete("/me/persona", status_code=200)
async def delete_me(web: Web, visitor: Visitor) -> UserPersonaView:
    """Remove your persona: your username is ``{{user}}`` again."""
    require_user(visitor)
    return await forget_user_persona(web, visitor.user, visitor.slug)


ME_ROUTES = [get_me, put_me, delete_me]
