"""Request and response types of a person's own persona (``/app/me/persona``,
``/api/users/{user}/persona``)."""

from __future__ import annotations

import msgspec

__all__ = ["UserPersonaBody", "UserPersonaView"]


class UserPersonaBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT``: the name ``{{user}}`` says (1-64 characters) and a description of
    yourself (at most 4,000 characters) that goes into the prompt."""

    name: str
    description: str = ""


class UserPersonaView(msgspec.Struct, frozen=True, kw_only=True):
    """A person's own persona; ``set`` false: none stored, ``name`` is the display name in use."""

    user: str
    name: str
    description: str
    set: bool
