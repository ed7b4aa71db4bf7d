"""The composition root (STYLE P6): Settings → adapters → ``ChatService``, once per process.

``build`` makes every store, desk and client of a process on one Redis client and returns them
as a ``Hearth``; the web app (``create_web_app``), the worker, Telegram and the CLI take their
parts from it. Nothing here runs at import time; the ``__main__`` modules load the settings
from ``os.environ`` and call these functions.
"""

from __future__ import annotations

import logging
import secrets
from pathlib import Path

import msgspec
import redis.asyncio as aioredis
from argon2 import PasswordHasher
from litestar import Litestar

from adapters.cards import decode_card
from adapters.cards.persona import persona_from_card, slug
from adapters.clock import SystemClock
from adapters.embedding import Embedder, make_embedder
from adapters.hearth import Hearth
from adapters.llm.offline import OfflineChatModel
from adapters.llm.router import ProviderRouter
from adapters.llm.stopping import StoppableModel
from adapters.llm.tokens import OfflineTokenCounter, warm_tokenizer
from adapters.metrics import Metrics
from adapters.recall.archive import PageRecall
from adapters.recall.search import EmbeddingRecall, NoRecall
from adapters.telegram.store import TelegramStore
from adapters.vector import FaissVectorIndex
from adapters.web.accounts import AccountPolicy, Accounts
from adapters.web.app import create_app
from adapters.web.ops_api import OPS_ROUTES, Readiness
from adapters.web.session import SessionSigner
from adapters.web.state import WebState
from config.load import load_personas
from config.settings import LlmSettings, MemorySettings, RedisSettings, Settings
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
from engine.validate import TextLimits, check_model_choice
from engine.window import WindowPolicy
from storage.client import connect, why_unreachable
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

__all__ = [
    "Hearth",
    "build",
    "create_web_app",
    "install_personas",
    "redis_client",
    "session_secret",
]

log = logging.getLogger("hearth")


def _model(settings: LlmSettings) -> tuple[ChatModel, TokenCounter]:
    """The deployment's provider, and every other provider whose credentials are set, behind
    one router (a persona may name its own, LLM-1)."""
    models = {name: _provider(name, settings) for name in settings.providers}
    model = ProviderRouter(models.pop(settings.provider), models)
    if settings.provider == "offline":
        return model, OfflineTokenCounter()
    from adapters.llm.tokens import LearnedTokenCounter

    # no count_tokens request on a turn's path: the estimate learns its ratio from usage (issue 12)
    return model, LearnedTokenCounter(settings.model)


def _provider(name: str, settings: LlmSettings) -> ChatModel:
    if name == "anthropic":
        # Imported only when a key is set: the SDKs are slow to import and offline runs never need them.
        from adapters.llm.anthropic import AnthropicChatModel

        return AnthropicChatModel.from_settings(settings)
    if name == "openai":
        from adapters.llm.openai import OpenAIChatModel

        return OpenAIChatModel.from_settings(settings)
    return OfflineChatModel(delay_ms=settings.offline_delay_ms)


def _memory(settings: MemorySettings, stores: _Stores, embedder: Embedder | None) -> MemoryDesk:
    """The memory desk with the configured embedder (loaded once; ``none`` = no search, DEC-1)."""
    recall = (
        NoRecall(stores.memories)
        if embedder is None
        else EmbeddingRecall(stores.memories, embedder, FaissVectorIndex(), stores.documents)
    )
    return MemoryDesk(
        store=stores.memories,
        recall=recall,
        directory=stores.directory,
        policy=MemoryPolicy(decay_enabled=settings.decay_enabled),
        documents=stores.documents,
    )


class _Stores:
    """Every Redis store of the process, on one client and one key builder."""

    def __init__(self, redis: aioredis.Redis, keys: KeyBuilder, *, image_ttl_days: int = 30) -> None:
        self.chats = RedisChatStore(redis, keys, image_ttl=image_ttl_days * 86_400)
        self.lock = RedisChatLock(redis, keys)
        self.personas = RedisPersonaStore(redis, keys)
        self.lore = RedisLoreStore(redis, keys)
        self.memories = RedisMemoryStore(redis, keys)
        self.documents = RedisDocumentStore(redis, keys)
        self.directory = RedisMemoryDirectory(redis, keys)
        self.summaries = RedisSummaryStore(redis, keys)
        self.archive = RedisArchiveStore(redis, keys)
        self.chat_controls = RedisChatControls(redis, keys)
        self.accounts = RedisAccountStore(redis, keys)
        self.persona_extras = RedisPersonaExtras(redis, keys)
        self.telegram = TelegramStore(redis, keys)


def redis_client(settings: RedisSettings) -> aioredis.Redis:
    """The process's Redis client: single or Cluster, TLS verified unless turned off."""
    return connect(settings.url, cluster=settings.cluster, tls_verify=settings.tls_verify)


def build(settings: Settings) -> Hearth:
    """Build every part of a process once (no IO happens yet; the embedder model loads).

    The web, worker and CLI processes call this once at start and take their parts from the
    result; it logs one line, so an operator can count the builds in a process's log.
    """
    redis = redis_client(settings.redis)
    keys = KeyBuilder(prefix=settings.redis.namespace)
    clock = SystemClock()
    stores = _Stores(redis, keys, image_ttl_days=settings.redis.image_ttl_days)
    model, counter = _model(settings.llm)
    embedder = make_embedder(settings.memory.embedder)
    memory = _memory(settings.memory, stores, embedder)
    summaries = _summaries(settings, stores, model, memory, clock)
    archive = _archive(settings.archive, stores, embedder, clock)
    metrics = Metrics(backlog=stores.summaries.backlog)  # the process's registry (adapters.metrics)
    metrics.watch_redis()
    service = ChatService(
        chats=stores.chats,
        lock=stores.lock,
        personas=stores.personas,
        lore=stores.lore,
        memory=memory,
        summaries=summaries,
        archive=archive,
        on_activity=stores.archive.touch_activity,
        model=StoppableModel(model),  # the web's "stop generating" (issue 16)
        counter=counter,
        clock=clock,
        policy=ServicePolicy(
            text=TextLimits(max_chars=settings.max_message_chars), default_model=settings.llm.model
        ),
        observer=metrics,
    )
    log.info("built the Hearth graph: one Redis client for namespace %r", settings.redis.namespace)
    return Hearth(
        settings=settings,
        redis=redis,
        keys=keys,
        clock=clock,
        embedder=embedder,
        service=service,
        lore=stores.lore,
        memories=stores.memories,
        documents=stores.documents,
        directory=stores.directory,
        summaries=stores.summaries,
        summary_desk=summaries,
        archive=archive,
        controls=MessageControls(service, stores.chat_controls, stores.lock),
        chat_controls=stores.chat_controls,
        accounts=stores.accounts,
        persona_extras=stores.persona_extras,
        telegram=stores.telegram,
        metrics=metrics,
    )


def _summaries(
    settings: Settings, stores: _Stores, model: ChatModel, memory: MemoryDesk, clock: SystemClock
) -> SummaryDesk:
    """The summary desk with its deep memory pass (SUM-1, DEEP-1)."""
    deep = DeepPass(
        model=model,
        memory=memory,
        reports=stores.summaries,
        clock=clock,
        policy=DeepPolicy(platforms=settings.memory.deep_platforms),
        default_model=settings.llm.model,
        chats=stores.chats,
    )
    return SummaryDesk(
        store=stores.summaries,
        model=model,
        personas=stores.personas,
        clock=clock,
        policy=SummaryPolicy(),
        window=WindowPolicy(),
        default_model=settings.llm.model,
        deep=deep,
    )


def _archive(
    settings: ArchiveSettings, stores: _Stores, embedder: Embedder | None, clock: SystemClock
) -> ArchiveDesk:
    """The archive desk with the ``HEARTH_ARCHIVE_*`` settings, the same in every process."""
    recall = None if embedder is None else PageRecall(stores.archive, embedder, FaissVectorIndex())
    return ArchiveDesk(store=stores.archive, clock=clock, settings=settings, recall=recall)


async def install_personas(hearth: Hearth) -> None:
    """Check Redis and put the persona files and cards into it (files win over stored copies).

    ``HEARTH_PERSONAS`` may hold TOML persona files and character cards (``.png``, ``.charx``,
    card ``.json``); a card's embedded lorebook is stored and attached to its persona.
    """
    if not await hearth.ping():
        reason = await why_unreachable(hearth.redis)
        where = _redacted(hearth.settings.redis.url)
        raise StorageUnavailable(f"Redis at {where} does not answer{f': {reason}' if reason else ''}.")
    backup = await migrate(hearth.redis, hearth.keys, Path(hearth.settings.backup_dir), hearth.clock.now())
    if backup is not None:
        log.info("data migrated; the backup taken first is %s", backup)
    root = Path(hearth.settings.personas_path)
    cards = sorted(p for p in root.glob("*") if p.suffix.lower() in _CARD_SUFFIXES) if root.is_dir() else []
    personas = load_personas(root) if (not cards or any(root.glob("*.toml"))) else []
    for card_file in cards:
        personas.append(await _install_card(hearth, card_file))
    llm = hearth.settings.llm
    for persona in personas:
        try:
            check_model_choice(persona.model, deployment=llm.provider, available=llm.providers)
        except InvalidInput as exc:
            raise ConfigError(f"Persona {persona.id!r}: {exc.message}", code=exc.code) from exc
    for persona in personas:
        await hearth.service.personas.put(persona)
        log.info("persona %r (%s) loaded", persona.id, persona.name)
    warm_tokenizer()  # cl100k loads now, not inside the first turn that counts (issue 12)
    if hearth.service.memory is not None:  # the scorer's background vectors, before the first reply
        await hearth.service.memory.recall.warm()
    await hearth.archive.warm()  # the same for the archive search


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
    if hearth.settings.web.session_secret is not None:
        return str(hearth.settings.web.session_secret)
    key = hearth.keys.setting("session_secret")
    with map_redis_errors():
        await hearth.redis.set(key, secrets.token_hex(32), nx=True)
        value = await hearth.redis.get(key)
    if not isinstance(value, bytes):  # SET NX then GET: only a Redis that lost it answers nothing
        raise StorageUnavailable("Redis did not keep the session secret; is it out of memory?")
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
        clock=hearth.clock,
        ping=hearth.ping,
        lore=hearth.lore,
        directory=hearth.directory,
        accounts=Accounts(hearth.accounts, hasher=PasswordHasher(), policy=AccountPolicy()),
        controls=hearth.controls,
        chat_controls=hearth.chat_controls,
        personas=hearth.persona_extras,
    )
    readiness = Readiness()

    async def startup() -> None:
        await install_personas(hearth)  # the recall and archive vectors and the tokenizer load here
        state.signer = SessionSigner(await session_secret(hearth))
        readiness.mark_ready()  # /readyz: the embedder loaded in build, the indexes just now
        log.info("Hearth web ready on port %d (%s)", settings.web.port, settings.llm.label)

    if not settings.telegram.webhook_url:
        app = create_app(state, on_startup=[startup], on_shutdown=[hearth.close], extra_routes=OPS_ROUTES)
        return _with_ops(app, hearth, readiness)
    # Imported only in webhook mode: aiogram takes seconds to import.
    from adapters.telegram.webhook import TelegramWebhook

    hook = TelegramWebhook.from_hearth(hearth)
    app = create_app(
        state,
        on_startup=[startup, hook.startup],
        on_shutdown=[hook.shutdown, hearth.close],
        extra_routes=[hook.route, *OPS_ROUTES],
    )
    return _with_ops(app, hearth, readiness)


def _with_ops(app: Litestar, hearth: Hearth, readiness: Readiness) -> Litestar:
    """What ``/readyz``, ``/metrics`` and the archive routes read from ``app.state``."""
    app.state.archive = hearth.archive
    app.state.readiness = readiness
    app.state.metrics = hearth.metrics
    return app
