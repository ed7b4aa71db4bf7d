"""Browser sessions: an HMAC-signed cookie that names the browser's user.

A new browser gets a guest id (``web:guest-<hex>``); nothing is remembered for guests (MEM-8).
Signing in gives a user session (``web:<username>``, not a guest) that expires and carries the
account's session generation, so "sign out everywhere" invalidates old cookies.

Cookie values: ``guest-<hex>.<sig>`` and ``u~<username>~<expires>~<generation>~<sid>.<sig>``,
where ``<sig>`` is an HMAC-SHA256 of everything before the last dot and ``<sid>`` a random id of
this one sign-in, so that signing out revokes exactly this cookie on the server (cookies issued
before the sid existed, with four parts, are still read; their sid is derived from the signature).
A cookie whose signature does not verify, that does not parse, or that has expired is ignored:
a forged cookie never names someone else. The secret comes from ``HEARTH_SESSION_SECRET`` or,
when unset, is generated once and kept in Redis so that every web process signs alike.

Chats: a guest talks in ``web:g-<hex>`` (``.<persona>`` appended when not the default persona);
a user in ``web:u-<username>``, in rooms ``web:u-<username>+<room>`` (persona appended the same
way); a branch appends ``=b-<hex>``. Usernames cannot contain ``.``, ``+`` or ``=``, so a chat id
tells its owner exactly.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time

import msgspec

from engine.errors import Forbidden
from engine.validate import qualify_id

__all__ = [
    "COOKIE",
    "MAIN_ROOM",
    "USERNAME",
    "BrowserSession",
    "SessionSigner",
    "chat_for",
    "owned_chat",
    "require_user",
]

COOKIE = "hearth_session"
MAIN_ROOM = "main"
USERNAME = re.compile(r"[a-z][a-z0-9_-]{2,31}")
_GUEST = re.compile(r"guest-[0-9a-f]{16}")
_ROOM = re.compile(r"[a-z0-9][a-z0-9-]{0,23}")
_SID = re.compile(r"[0-9a-f]{16}|legacy-[0-9a-f]{16}")


class BrowserSession(msgspec.Struct, frozen=True, kw_only=True):
    """Who a browser is: a guest, or a signed-in user (``guest`` False)."""

    slug: str
    guest: bool = True
    expires: int = 0
    generation: int = 0
    sid: str = ""

    @property
    def user(self) -> str:
        """The platform-qualified user id."""
        return f"web:{self.slug}"

    @property
    def key(self) -> str:
        """The part of the slug that names this browser's chats."""
        return self.slug.removeprefix("guest-")

    @property
    def base_chat(self) -> str:
        """The chat of the main room with the default persona."""
        return f"web:g-{self.key}" if self.guest else f"web:u-{self.slug}"

    def owns(self, chat: str) -> bool:
        """Whether ``chat`` is one of this browser's chats (any room, any persona)."""
        base = self.base_chat
        if chat == base or chat.startswith((base + ".", base + "=b-")):  # persona variants, branches
            return True
        return not self.guest and chat.startswith(base + "+")


def chat_for(session: BrowserSession, persona: str, room: str = MAIN_ROOM) -> str:
    """The browser's chat with a persona in one of its rooms (guests only have the main room)."""
    base = session.base_chat
    if room != MAIN_ROOM and not session.guest:
        if not _ROOM.fullmatch(room):
            raise ValueError(f"bad room slug {room!r}")
        base = f"{base}+{room}"
    return base if persona == "default" else f"{base}.{persona}"


def require_user(visitor: BrowserSession) -> None:
    """403 ``sign_in_required`` for guests (nothing is remembered for them, MEM-8)."""
    if visitor.guest:
        raise Forbidden("Sign in to keep memories and lorebooks.", code="sign_in_required")


def owned_chat(visitor: BrowserSession, chat: str) -> str:
    """The qualified chat id if it is one of the visitor's chats, else 403 ``not_your_chat``."""
    chat_id = qualify_id(chat, what="chat")
    if not visitor.owns(chat_id):
        raise Forbidden("This is not your chat.", code="not_your_chat")
    return chat_id


class SessionSigner:
    """Signs and verifies session cookies, and derives each session's CSRF token."""

    def __init__(self, secret: str) -> None:
        self._secret = secret.encode()

    def _mac(self, purpose: str, payload: str) -> str:
        message = f"{purpose}\x00{payload}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:32]

    def _sign(self, slug: str) -> str:
        # guest cookies keep the signature of the first release so existing browsers stay valid
        return hmac.new(self._secret, slug.encode(), hashlib.sha256).hexdigest()[:32]

    def new(self) -> BrowserSession:
        """A fresh guest session."""
        return BrowserSession(slug=f"guest-{secrets.token_hex(8)}")

    def user(self, username: str, *, generation: int, expires: int) -> BrowserSession:
        """A signed-in session for ``web:<username>`` valid until ``expires`` (Unix seconds)."""
        if not USERNAME.fullmatch(username) or username.startswith("guest"):
            raise ValueError(f"bad username {username!r}")
        return BrowserSession(
            slug=username, guest=False, expires=expires, generation=generation, sid=secrets.token_hex(8)
        )

    def dump(self, session: BrowserSession) -> str:
        """The cookie value of a session."""
        if session.guest:
            return f"{session.slug}.{self._sign(session.slug)}"
        payload = f"u~{session.slug}~{session.expires}~{session.generation}"
        if session.sid and not session.sid.startswith("legacy-"):
            payload += f"~{session.sid}"
        return f"{payload}.{self._mac('session', payload)}"

    def load(self, cookie: str | None, *, now: float | None = None) -> BrowserSession | None:
        """The session a cookie names, or None when it is missing, malformed, forged or expired."""
        if not cookie or len(cookie) > 200:
            return None
        payload, _, signature = cookie.rpartition(".")
        if _GUEST.fullmatch(payload):
            return (
                BrowserSession(slug=payload) if hmac.compare_digest(signature, self._sign(payload)) else None
            )
        if not hmac.compare_digest(signature, self._mac("session", payload)):
            return None
        return _parse_user(payload, signature, time.time() if now is None else now)

    def csrf(self, cookie: str) -> str:
        """The CSRF token bound to one session cookie (sent back in ``X-CSRF-Token``)."""
        return self._mac("csrf", cookie)

    def check_csrf(self, cookie: str | None, token: str | None) -> bool:
        """Whether ``token`` is the CSRF token of ``cookie`` (constant time)."""
        if not cookie or not token:
            return False
        return hmac.compare_digest(token.encode(), self.csrf(cookie).encode())


def _parse_user(payload: str, signature: str, now: float) -> BrowserSession | None:
    parts = payload.split("~")
    if len(parts) not in (4, 5) or parts[0] != "u":
        return None
    if not USERNAME.fullmatch(parts[1]) or parts[1].startswith("guest"):
        return None
    if not (parts[2].isdigit() and parts[3].isdigit()):
        return None
    sid = parts[4] if len(parts) == 5 else f"legacy-{signature[:16]}"
    if not _SID.fullmatch(sid):
        return None
    expires, generation = int(parts[2]), int(parts[3])
    if expires <= now:
        return None
    return BrowserSession(slug=parts[1], guest=False, expires=expires, generation=generation, sid=sid)
