"""``Hearth``: the object graph of one process, as ``adapters.bootstrap.build`` made it (STYLE P6).

The web app, the worker, Telegram (polling or webhook) and the CLI take their parts from here
and construct no store, client or desk of their own. This module imports no adapter that
imports ``bootstrap``, so both can depend on it without an import circle.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis

from adapters.embedding.base import Embedder
from adapters.metrics import Metrics
from config.settings import Settings
from engine.ports import Clock
from engine.service import ChatService
from engine.service.archive import ArchiveDesk
from engine.service.controls import MessageControls
from engine.service.lore import LoreDesk
from engine.service.summaries import SummaryDesk
from storage.keys import KeyBuilder
from storage.redis_accounts import RedisAccountStore
from storage.redis_chat_controls import RedisChatControls
from storage.redis_documents import RedisDocumentStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from storage.redis_persona_extras import RedisPersonaExtras
from storage.redis_summary import RedisSummaryStore
from storage.redis_telegram import TelegramStore
from storage.redis_user_personas import RedisUserPersonas

__all__ = ["Hearth"]


@dataclass(frozen=True, kw_only=True, eq=False)
class Hearth:
    """Every built part of one process, on one Redis client."""

    settings: Settings
    redis: aioredis.Redis
    keys: KeyBuilder
    clock: Clock
    embedder: Embedder | None
    service: ChatService
    lore: LoreDesk
    memories: RedisMemoryStore
    documents: RedisDocumentStore
    directory: RedisMemoryDirectory
    summaries: RedisSummaryStore
    summary_desk: SummaryDesk
    archive: ArchiveDesk
    controls: MessageControls
    chat_controls: RedisChatControls
    accounts: RedisAccountStore
    persona_extras: RedisPersonaExtras
    telegram: TelegramStore
    metrics: Metrics | None = None
    user_personas: RedisUserPersonas | None = None

    async def ping(self) -> bool:
        """Whether Redis answers."""
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False

    async def close(self) -> None:
        """Finish the background work that writes to Redis, then close the Redis connections."""
        if self.service.memory is not None:
            await self.service.memory.close()
        close_model = getattr(self.service.model, "aclose", None)  # the provider's pooled connections
        if close_model is not None:
            await close_model()
        await self.redis.aclose()
