"""What the web handlers share, kept on ``app.state.web``."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.connection import ASGIConnection

from adapters.web.accounts import Accounts
from adapters.web.limits import ChatLimiter, ChatLimits
from adapters.web.proxies import TrustedProxies
from adapters.web.session import SessionSigner
from adapters.web.sockets import OpenSockets, SignOutFeed
from config.settings import Settings
from engine.ports import ChatControlStore, Clock, MemoryDirectory, PersonaExtras
from engine.service import ChatService
from engine.service.controls import MessageControls
from engine.service.documents import DocumentIngest
from engine.service.lore import LoreDesk

__all__ = ["WebState"]


class WebState:
    """The service and the web-only helpers, built by ``adapters.bootstrap``.

    ``chat_limits`` counts the replies of each browser session and user (``adapters.web.limits``);
    ``sockets`` are the open signed-in chat sockets and ``sign_outs`` the feed that closes them
    when their session is signed out on any web process (``adapters.web.sockets``).
    """

    def __init__(
        self,
        *,
        settings: Settings,
        service: ChatService,
        signer: SessionSigner,
        clock: Clock,
        ping: Callable[[], Awaitable[bool]],
        lore: LoreDesk,
        directory: MemoryDirectory,
        accounts: Accounts | None = None,
        controls: MessageControls | None = None,
        chat_controls: ChatControlStore | None = None,
        personas: PersonaExtras | None = None,
    ) -> None:
        self.settings = settings
        self.service = service
        self.signer = signer
        self.clock = clock
        self.ping = ping
        self.lore = lore
        self.directory = directory
        self.accounts = accounts
        self.controls = controls
        self.chat_controls = chat_controls
        self.persona_extras = personas
        self.proxies = TrustedProxies(settings.trusted_proxies)
        limits = ChatLimits(concurrent=settings.web.chat_concurrent, per_minute=settings.web.chat_per_minute)
        shared = accounts.store.take if accounts is not None else None
        self.chat_limits = ChatLimiter(limits, shared=shared)
        api = ChatLimits(concurrent=settings.web.api_concurrent, per_minute=settings.web.api_per_minute)
        self.api_limits = ChatLimiter(api, shared=shared)  # the operator's REST chat
        self.sockets = OpenSockets()
        self.sign_outs = SignOutFeed(accounts.store, self.sockets) if accounts is not None else None
        documents = service.memory.documents if service.memory is not None else None
        jobs = getattr(documents, "store", None)  # a RedisDocumentStore keeps the jobs too
        self.ingest = (
            DocumentIngest(documents, jobs, clock) if documents is not None and jobs is not None else None
        )

    def client_ip(self, connection: ASGIConnection[Any, Any, Any, Any]) -> str:
        """The client's address, through trusted proxies (``HEARTH_TRUSTED_PROXIES``)."""
        peer = connection.client.host if connection.client else ""
        return self.proxies.client(peer, connection.headers) or "unknown"

    def is_https(self, connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
        """Whether the client used HTTPS (``X-Forwarded-Proto`` from a trusted proxy counts)."""
        peer = connection.client.host if connection.client else ""
        return self.proxies.scheme(peer, connection.headers, connection.url.scheme) in ("https", "wss")

    def is_local(self, connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
        """Whether the request comes from this host itself and not through a proxy (admin rule)."""
        peer = connection.client.host if connection.client else ""
        return self.proxies.is_local(peer, connection.headers)

    def check_admin(self, token: str) -> bool:
        """Constant-time comparison with ``HEARTH_ADMIN_TOKEN``."""
        expected = self.settings.admin_token
        return expected is not None and hmac.compare_digest(token.encode(), str(expected).encode())
