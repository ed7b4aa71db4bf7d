"""The composition root (STYLE P6): Settings → adapters → ``ChatService``.

Nothing here runs at import time; the ``__main__`` modules call these functions with
``os.environ``.
"""

from __future__ import annotations

import logging
import secrets
from pathlib import Path
from typing import Any

import msgspec
import redis.asyncio as aioredis
from litestar import Litestar

from adapters.cards import decode_card
from adapters.cards.persona import persona_from_card, slug
from adapters.clock import SystemClock
from adapters.llm.offline import OfflineChatModel
from adapters.llm.stopping import StoppableModel
from adapters.llm.tokens import OfflineTokenCounter, warm_tokenizer
from adapters.web.accounts import Accounts
from adapters.web.app import create_app
from adapters.web.session import SessionSigner
from adapters.web.state import WebState
from config.load import load_personas
from config.settings import Settings
from engine.errors import ConfigError, InvalidInput, StorageUnavailable
from engine.lorebook import compile_book
from engine.memory import MemoryPolicy
from engine.memory.deep import DeepPolicy
from engine.model import Persona
from engine.ports import ChatModel, TokenCounter
from engine.service import ChatService, ServicePolicy
from engine.service.archive import ArchiveDesk, ArchiveSettings
from engine.service.controls import MessageControls
from engine.service.deep import DeepPass
from engine.service.memory import MemoryDesk
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy
from engine.validate import TextLimits
from engine.window import WindowPolicy
from storage.client import connect
from storage.errors import map_redis_errors
from storage.keys import KeyBuilder
from storage.migrations import migrate
from storage.redis_accounts import RedisAccountStore
from storage.redis_archive import RedisArchiveStore
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_chat_controls import RedisChatControls
from storage.redis_documents import RedisDocumentStore
from storage.redis_lore import RedisLoreStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from storage.redis_persona_extras import RedisPersonaExtras
from storage.redis_summary import RedisSummaryStore

__all__ = ["Hearth", "build", "create_web_app", "install_personas", "session_secret"]

log = logging.getLogger("hearth")


class Hearth:
    """The built object graph of one process."""

    def __init__(
        self,
        settings: Settings,
        redis: aioredis.Redis,
        service: ChatService,
        lore: RedisLoreStore,
        summaries: RedisSummaryStore | None = None,
        archive: ArchiveDesk | None = None,
        controls: MessageControls | None = None,
    ) -> None:
        self.summaries = summaries
        self.controls = controls
        self.archive = archive
        self.settings = settings
        self.redis = redis
        self.service = service
        self.lore = lore
        self.keys = KeyBuilder(prefix=settings.namespace)

    async def ping(self) -> bool:
        """Whether Redis answers."""
        try:
            return bool(await self.redis.ping())
        except Exception:
            return False

    async def close(self) -> None:
        """Close the Redis connections."""
        await self.redis.aclose()


def _model(settings: Settings, redis: aioredis.Redis, keys: KeyBuilder) -> tuple[ChatModel, TokenCounter]:
    if settings.offline:
        return OfflineChatModel(delay_ms=settings.offline_delay_ms), OfflineTokenCounter()
    # Imported only when a key is set: the SDK is slow to import and offline runs never need it.
    from adapters.llm.anthropic import AnthropicChatModel
    from adapters.llm.tokens import LearnedTokenCounter

    # no count_tokens request on a turn's path: the estimate learns its ratio from usage (issue 12)
    return AnthropicChatModel.from_settings(settings), LearnedTokenCounter(settings.model)


def _memory(settings: Settings, redis: aioredis.Redis, keys: KeyBuilder, embedder: Any) -> MemoryDesk:
    """The memory desk with the configured embedder (loaded once; ``none`` = no search, DEC-1)."""
    from adapters.recall import EmbeddingRecall, NoRecall
    from adapters.vector import FaissVectorIndex

    store = RedisMemoryStore(redis, keys)
    documents = RedisDocumentStore(redis, keys)
    recall = (
        NoRecall(store)
        if embedder is None
        else EmbeddingRecall(store, embedder, FaissVectorIndex(), documents)
    )
    policy = MemoryPolicy(decay_enabled=settings.memory_decay_enabled)
    return MemoryDesk(
        store=store,
        recall=recall,
        directory=RedisMemoryDirectory(redis, keys),
        policy=policy,
        documents=documents,
    )


def build(settings: Settings) -> Hearth:
    """Build every adapter and the service (no IO happens yet; the embedder model loads)."""
    redis = connect(settings.redis_url, cluster=settings.redis_cluster)
    keys = KeyBuilder(prefix=settings.namespace)
    model, counter = _model(settings, redis, keys)
    lore = RedisLoreStore(redis, keys)
    from adapters.embedding import make_embedder

    embedder = make_embedder(settings.embedder)
    memory = _memory(settings, redis, keys, embedder)
    personas = RedisPersonaStore(redis, keys)
    summary_store = RedisSummaryStore(redis, keys)
    deep = DeepPass(
        model=model,
        memory=memory,
        reports=summary_store,
        clock=SystemClock(),
        policy=DeepPolicy(platforms=settings.deep_memory_platforms),
        default_model=settings.model,
    )
    summaries = SummaryDesk(
        store=summary_store,
        model=model,
        personas=personas,
        clock=SystemClock(),
        policy=SummaryPolicy(),
        window=WindowPolicy(),
        default_model=settings.model,
        deep=deep,
    )
    archive = _archive(redis, keys, embedder)
    lock = RedisChatLock(redis, keys)
    service = ChatService(
        chats=RedisChatStore(redis, keys),
        lock=lock,
        personas=personas,
        lore=lore,
        memory=memory,
        summaries=summaries,
        archive_search=archive.tool_search,
        on_activity=archive.store.touch_activity,
        model=StoppableModel(model),  # the web's "stop generating" (issue 16)
        counter=counter,
        clock=SystemClock(),
        policy=ServicePolicy(
            text=TextLimits(max_chars=settings.max_message_chars), default_model=settings.model
        ),
    )
    controls = MessageControls(service, RedisChatControls(redis, keys), lock)
    return Hearth(settings, redis, service, lore, summary_store, archive, controls)


def _archive(redis: aioredis.Redis, keys: KeyBuilder, embedder: Any) -> ArchiveDesk:
    """The archive desk with default settings (the worker applies its env overrides)."""
    from adapters.archive_recall import PageRecall
    from adapters.vector import FaissVectorIndex

    store = RedisArchiveStore(redis, keys)
    recall = None if embedder is None else PageRecall(store, embedder, FaissVectorIndex())
    return ArchiveDesk(store=store, clock=SystemClock(), settings=ArchiveSettings(), recall=recall)


async def install_personas(hearth: Hearth) -> None:
    """Check Redis and put the persona files and cards into it (files win over stored copies).

    ``HEARTH_PERSONAS`` may hold TOML persona files and character cards (``.png``, ``.charx``,
    card ``.json``); a card's embedded lorebook is stored and attached to its persona.
    """
    if not await hearth.ping():
        raise StorageUnavailable(f"Redis at {_redacted(hearth.settings.redis_url)} does not answer.")
    backup = await migrate(hearth.redis, hearth.keys, Path(hearth.settings.backup_dir), SystemClock().now())
    if backup is not None:
        log.info("data migrated; the backup taken first is %s", backup)
    root = Path(hearth.settings.personas_path)
    cards = sorted(p for p in root.glob("*") if p.suffix.lower() in _CARD_SUFFIXES) if root.is_dir() else []
    personas = load_personas(root) if (not cards or any(root.glob("*.toml"))) else []
    for card_file in cards:
        personas.append(await _install_card(hearth, card_file))
    for persona in personas:
        await hearth.service.personas.put(persona)
        log.info("persona %r (%s) loaded", persona.id, persona.name)
    warm_tokenizer()  # cl100k loads now, not inside the first turn that counts (issue 12)
    if hearth.service.memory is not None:  # the scorer's background vectors, before the first reply
        await hearth.service.memory.recall.warm()


_CARD_SUFFIXES = {".png", ".charx", ".json"}


async def _install_card(hearth: Hearth, path: Path) -> Persona:
    try:
        card = decode_card(path.read_bytes(), None)
    except InvalidInput as exc:
        raise ConfigError(f"Character card {path}: {exc.message}") from exc
    book = None
    if card.book is not None:
        # a stable id per file, so restarts update the same book instead of adding copies
        named = msgspec.structs.replace(
            card.book, id=f"card-{slug(path.stem)}", name=card.book.name or card.name
        )
        compile_book(named)  # ignored regex keys/decorators are left out, as on import (LORE-21)
        book = await hearth.lore.put(named)
    return persona_from_card(card, persona_id=slug(path.stem), book_id=book.id if book else None)


async def session_secret(hearth: Hearth) -> str:
    """``HEARTH_SESSION_SECRET``, or one generated once and shared through Redis."""
    if hearth.settings.session_secret is not None:
        return str(hearth.settings.session_secret)
    key = hearth.keys.setting("session_secret")
    with map_redis_errors():
        await hearth.redis.set(key, secrets.token_hex(32), nx=True)
        value = await hearth.redis.get(key)
    return value.decode()


def _redacted(url: str) -> str:
    """A Redis URL without its password, for logs."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        rest = "***@" + rest.split("@", 1)[1]
    return f"{scheme}{sep}{rest}"


def create_web_app(settings: Settings) -> Litestar:
    """The ``web`` process's app."""
    hearth = build(settings)
    state = WebState(
        settings=settings,
        service=hearth.service,
        signer=SessionSigner("unset"),
        clock=SystemClock(),
        ping=hearth.ping,
        lore=hearth.lore,
        directory=RedisMemoryDirectory(hearth.redis, hearth.keys),
        accounts=Accounts(RedisAccountStore(hearth.redis, hearth.keys)),
        controls=hearth.controls,
        chat_controls=RedisChatControls(hearth.redis, hearth.keys),
        personas=RedisPersonaExtras(hearth.redis, hearth.keys),
    )

    async def startup() -> None:
        await install_personas(hearth)
        state.signer = SessionSigner(await session_secret(hearth))
        mode = "offline model" if settings.offline else f"Claude {settings.model}"
        log.info("Hearth web ready on port %d (%s)", settings.port, mode)

    if not settings.telegram_webhook_url:
        app = create_app(state, on_startup=[startup], on_shutdown=[hearth.close])
        app.state.archive = hearth.archive
        return app
    # Imported only in webhook mode: aiogram takes seconds to import.
    from adapters.telegram.webhook import TelegramWebhook

    hook = TelegramWebhook.from_hearth(hearth)
    app = create_app(
        state,
        on_startup=[startup, hook.startup],
        on_shutdown=[hook.shutdown, hearth.close],
        extra_routes=[hook.route],
    )
    app.state.archive = hearth.archive
    return app
