"""The composition root (STYLE P6): Settings → adapters → ``ChatService``, once per process.

``build`` makes every store, desk and client of a process on one Redis client and returns them
as a ``Hearth``; the web app (``create_web_app``), the worker, Telegram and the CLI take their
parts from it. Nothing here runs at import time; the ``__main__`` modules load the settings
from ``os.environ`` and call these functions.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import redis.asyncio as aioredis

from adapters.clock import SystemClock
from adapters.embedding import Embedder, make_embedder
from adapters.hearth import Hearth
from adapters.install import install_personas, session_secret
from adapters.llm.offline import OfflineChatModel
from adapters.llm.router import ProviderRouter
from adapters.llm.stopping import StoppableModel
from adapters.llm.tokens import OfflineTokenCounter
from adapters.metrics import Metrics
from adapters.recall.archive import PageRecall
from adapters.recall.search import EmbeddingRecall, NoRecall
from adapters.vector import FaissVectorIndex
from config.settings import LlmSettings, RedisSettings, Settings
from engine.memory import MemoryPolicy
from engine.memory.deep import DeepPolicy
from engine.ports import ChatModel, MemoryRecall, TokenCounter
from engine.service import ServicePolicy
from engine.service.wiring import Policies, Stores, wire_services
from engine.validate import TextLimits
from storage.client import connect
from storage.keys import KeyBuilder
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
from storage.redis_telegram import TelegramStore
from storage.redis_user_personas import RedisUserPersonas

if TYPE_CHECKING:
    from litestar import Litestar

    from adapters.web.ops_api import Readiness

__all__ = [
    "Hearth",
    "build",
    "create_web_app",
    "redis_client",
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

    # no count_tokens request on a turn's path: the estimate learns its ratio from usage
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


def _recall(stores: _Stores, embedder: Embedder | None) -> MemoryRecall:
    """The memory and document search with the configured embedder (``none``: no search, DEC-1)."""
    if embedder is None:
        return NoRecall(stores.memories)
    return EmbeddingRecall(stores.memories, embedder, FaissVectorIndex(), stores.documents)


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
        self.user_personas = RedisUserPersonas(redis, keys)
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
    metrics = Metrics(backlog=stores.summaries.backlog)  # the process's registry (adapters.metrics)
    metrics.watch_redis()
    page_recall = None if embedder is None else PageRecall(stores.archive, embedder, FaissVectorIndex())
    services = wire_services(
        Stores(
            chats=stores.chats,
            lock=stores.lock,
            personas=stores.personas,
            lore=stores.lore,
            memories=stores.memories,
            directory=stores.directory,
            summaries=stores.summaries,
            archive=stores.archive,
            controls=stores.chat_controls,
            documents=stores.documents,
        ),
        model=model,
        turn_model=StoppableModel(model),  # the web's "stop generating"
        counter=counter,
        clock=clock,
        recall=_recall(stores, embedder),
        page_recall=page_recall,
        policies=Policies(
            default_model=settings.llm.model,
            service=ServicePolicy(
                text=TextLimits(max_chars=settings.max_message_chars), default_model=settings.llm.model
            ),
            memory=MemoryPolicy(decay_enabled=settings.memory.decay_enabled),
            deep=DeepPolicy(platforms=settings.memory.deep_platforms),
            archive=settings.archive,
        ),
        observer=metrics,
        on_activity=stores.archive.touch_activity,
    )
    log.info("built the Hearth graph: one Redis client for namespace %r", settings.redis.namespace)
    return Hearth(
        settings=settings,
        redis=redis,
        keys=keys,
        clock=clock,
        embedder=embedder,
        service=services.chat,
        lore=services.lore,
        memories=stores.memories,
        documents=stores.documents,
        directory=stores.directory,
        summaries=stores.summaries,
        summary_desk=services.summaries,
        archive=services.archive,
        controls=services.controls,
        chat_controls=stores.chat_controls,
        accounts=stores.accounts,
        persona_extras=stores.persona_extras,
        telegram=stores.telegram,
        metrics=metrics,
        user_personas=stores.user_personas,
    )


def create_web_app(settings: Settings) -> Litestar:
    """The ``web`` process's app."""
    # The web layer is imported here: the worker and the CLI build a Hearth without it.
    from argon2 import PasswordHasher

    from adapters.web.accounts import AccountPolicy, Accounts
    from adapters.web.app import create_app
    from adapters.web.ops_api import OPS_ROUTES, Readiness
    from adapters.web.session import SessionSigner
    from adapters.web.state import WebState

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
        user_personas=hearth.user_personas,
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
