"""Request and response types of browser sign-up, sign-in, sign-out and ``/link`` codes."""

from __future__ import annotations

import msgspec

__all__ = ["Credentials", "LinkCode", "SignOut", "SignedIn", "SignedOut"]


class Credentials(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/signup`` and ``POST /app/signin``."""

    username: str
    password: str


class SignOut(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/signout`` (optional); ``everywhere`` ends every session of the account."""

    everywhere: bool = False


class SignedIn(msgspec.Struct, frozen=True, kw_only=True):
    """The signed-in user (the session cookie is set with it)."""

    user: str
    username: str
    guest: bool = False


class SignedOut(msgspec.Struct, frozen=True, kw_only=True):
    """The fresh guest the browser became."""

    user: str
    guest: bool = True


class LinkCode(msgspec.Struct, frozen=True, kw_only=True):
    """A single-use code to type as ``/link <code>`` in Telegram."""

    code: str
    command: str
    expires_in: int
