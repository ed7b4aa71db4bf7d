"""What the web handlers share, kept on ``app.state.web``."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from adapters.web.accounts import Accounts
from adapters.web.session import SessionSigner
from config.settings import Settings
from engine.ports import Clock
from engine.service import ChatService
from storage.redis_lore import RedisLoreStore
from storage.redis_memory_directory import RedisMemoryDirectory

__all__ = ["WebState"]


class WebState:
    """The service and the web-only helpers, built by ``adapters.bootstrap``."""

    def __init__(
        self,
        *,
        settings: Settings,
        service: ChatService,
        signer: SessionSigner,
        clock: Clock,
        ping: Callable[[], Awaitable[bool]],
        lore: RedisLoreStore,
        directory: RedisMemoryDirectory,
        accounts: Accounts | None = None,
    ) -> None:
        self.settings = settings
        self.service = service
        self.signer = signer
        self.clock = clock
        self.ping = ping
        self.lore = lore
        self.directory = directory
        self.accounts = accounts

    def check_admin(self, token: str) -> bool:
        """Constant-time comparison with ``HEARTH_ADMIN_TOKEN``."""
        expected = self.settings.admin_token
        return expected is not None and hmac.compare_digest(token.encode(), str(expected).encode())
