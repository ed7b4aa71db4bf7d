"""The person's own persona (SillyTavern's "user persona"): a name and a description.

One per person (platform id, ``web:dave``). The name is what ``{{user}}`` says in cards,
lorebooks and prompts; the description goes into the prompt's ``user_persona`` slot (right
after the character's card in the default order), at most ``USER_DESCRIPTION_MAX_TOKENS`` of
it. A person without one is called by their display name and has no description.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import msgspec

from engine.errors import InvalidInput
from engine.validate import has_control_chars

__all__ = [
    "USER_DESCRIPTION_MAX_CHARS",
    "USER_DESCRIPTION_MAX_TOKENS",
    "USER_NAME_MAX_CHARS",
    "UserPersona",
    "budgeted_description",
    "check_user_description",
    "check_user_persona",
]

USER_NAME_MAX_CHARS = 64
USER_DESCRIPTION_MAX_CHARS = 4_000
USER_DESCRIPTION_MAX_TOKENS = 800
"""The most of a description one prompt carries; a longer one is cut at a word."""


class UserPersona(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A person's name for ``{{user}}`` and their description of themselves; an empty ``name``
    (Telegram's ``/about``) leaves ``{{user}}`` their display name."""

    name: str
    description: str = ""


def _bad_chars(text: str) -> bool:
    return has_control_chars(text) or any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def check_user_persona(persona: UserPersona) -> UserPersona:
    """The persona with its name's spaces collapsed and both texts NFC, or ``InvalidInput``.

    Raises:
        InvalidInput: ``user_name_empty``, ``user_name_too_long`` (over ``USER_NAME_MAX_CHARS``),
            ``user_name_invalid`` (a control character or a line break), ``user_description_too_long``
            (over ``USER_DESCRIPTION_MAX_CHARS``), ``user_description_invalid`` (a control
            character other than tab and line breaks).
    """
    raw = persona.name
    if any(c in raw for c in "\r\n\t") or _bad_chars(raw):
        raise InvalidInput("The name holds control characters or line breaks.", code="user_name_invalid")
    name = unicodedata.normalize("NFC", " ".join(raw.split()))
    if not name:
        raise InvalidInput("Give yourself a name (1 to 64 characters).", code="user_name_empty")
    if len(name) > USER_NAME_MAX_CHARS:
        raise InvalidInput(
            f"The name is {len(name)} characters long; the limit is {USER_NAME_MAX_CHARS}.",
            code="user_name_too_long",
        )
    return UserPersona(name=name, description=check_user_description(persona.description))


def check_user_description(text: str) -> str:
    """The description stripped and NFC, or ``InvalidInput``.

    Raises:
        InvalidInput: ``user_description_too_long`` (over ``USER_DESCRIPTION_MAX_CHARS``),
            ``user_description_invalid`` (a control character other than tab and line breaks).
    """
    description = text.strip()
    if len(description) > USER_DESCRIPTION_MAX_CHARS:
        raise InvalidInput(
            f"The description is {len(description):,} characters long; "
            f"the limit is {USER_DESCRIPTION_MAX_CHARS:,}.",
            code="user_description_too_long",
        )
    if _bad_chars(description):
        raise InvalidInput(
            "The description holds control characters (such as NUL).", code="user_description_invalid"
        )
    return unicodedata.normalize("NFC", description)


def budgeted_description(
    text: str, estimate: Callable[[str], int], budget: int = USER_DESCRIPTION_MAX_TOKENS
) -> str:
    """``text`` if its tokens fit ``budget``, else its longest start that fits, cut at a word."""
    text = text.strip()
    if not text or estimate(text) <= budget:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest prefix within the budget
        middle = (low + high + 1) // 2
        if estimate(text[:middle]) <= budget:
            low = middle
        else:
            high = middle - 1
    cut = text[:low]
    space = cut.rfind(" ")
    return (cut[:space] if space > low // 2 else cut).rstrip() + " …"
