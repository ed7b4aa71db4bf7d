"""Browser sessions: an HMAC-signed cookie that names the browser's user.

A new browser gets a guest id (``web:guest-<hex>``); nothing is remembered for guests once
memory lands (MEM-8). The cookie is ``<slug>.<signature>``; a cookie whose signature does not
verify is ignored (a forged cookie never names someone else). The secret comes from
``HEARTH_SESSION_SECRET`` or, when unset, is generated once and kept in Redis so that every
web process signs alike.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

import msgspec

__all__ = ["COOKIE", "BrowserSession", "SessionSigner", "chat_for"]

COOKIE = "hearth_session"
_SLUG = re.compile(r"guest-[0-9a-f]{16}")


class BrowserSession(msgspec.Struct, frozen=True, kw_only=True):
    """Who a browser is."""

    slug: str
    guest: bool = True

    @property
    def user(self) -> str:
        """The platform-qualified user id."""
        return f"web:{self.slug}"

    @property
    def key(self) -> str:
        """The part of the slug that names this browser's rooms."""
        return self.slug.removeprefix("guest-")


def chat_for(session: BrowserSession, persona: str) -> str:
    """The browser's own chat with a persona: ``web:g-<key>`` (+ ``.<persona>`` if not default)."""
    base = f"web:g-{session.key}"
    return base if persona == "default" else f"{base}.{persona}"


class SessionSigner:
    """Signs and verifies session cookies."""

    def __init__(self, secret: str) -> None:
        self._secret = secret.encode()

    def _sign(self, slug: str) -> str:
        return hmac.new(self._secret, slug.encode(), hashlib.sha256).hexdigest()[:32]

    def new(self) -> BrowserSession:
        """A fresh guest session."""
        return BrowserSession(slug=f"guest-{secrets.token_hex(8)}")

    def dump(self, session: BrowserSession) -> str:
        """The cookie value of a session."""
        return f"{session.slug}.{self._sign(session.slug)}"

    def load(self, cookie: str | None) -> BrowserSession | None:
        """The session a cookie names, or None when it is missing, malformed or forged."""
        if not cookie:
            return None
        slug, _, signature = cookie.rpartition(".")
        if not _SLUG.fullmatch(slug) or not hmac.compare_digest(signature, self._sign(slug)):
            return None
        return BrowserSession(slug=slug)
