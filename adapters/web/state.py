"""What the web handlers share, kept on ``app.state.web``."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from adapters.web.accounts import Accounts
from adapters.web.session import SessionSigner
from config.settings import Settings
from engine.ports import Clock
from engine.service import ChatService
from engine.service.controls import MessageControls
from storage.redis_chat_controls import RedisChatControls
from storage.redis_lore import RedisLoreStore
from storage.redis_memory_directory import RedisMemoryDirectory
from storage.redis_persona_extras import RedisPersonaExtras

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
        controls: MessageControls | None = None,
        chat_controls: RedisChatControls | None = None,
        personas: RedisPersonaExtras | None = None,
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

    def check_admin(self, token: str) -> bool:
        """Constant-time comparison with ``HEARTH_ADMIN_TOKEN``."""
        expected = self.settings.admin_token
        return expected is not None and hmac.compare_digest(token.encode(), str(expected).encode())
