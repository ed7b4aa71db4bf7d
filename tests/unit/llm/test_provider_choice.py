"""Which provider answers (LLM-1, RUN-2, issue 30): ``HEARTH_LLM`` and its defaults, what
``make run`` says, a persona's own provider and model, and the router that honours it."""

from __future__ import annotations

import pytest

from adapters.bootstrap import _model
from adapters.devrun import model_line
from adapters.llm.openai import NO_KEY, OpenAIChatModel
from adapters.llm.router import ProviderRouter
from config.load import parse_persona_toml
from config.settings import DEFAULT_MODEL, LlmSettings, Secret, load_settings
from engine.errors import ConfigError, InvalidInput, LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, TextDelta
from engine.prompt import Prompt, PromptMessage
from engine.requestlog import Usage
from engine.validate import check_model_choice

REDIS = {"REDIS_URL": "redis://x:6379/0"}


def llm(**env: str) -> LlmSettings:
    return load_settings({**REDIS, **env}).llm


@pytest.mark.parametrize(
    ("env", "provider", "model"),
    [
        ({}, "offline", DEFAULT_MODEL),
        ({"ANTHROPIC_API_KEY": "sk-ant"}, "anthropic", DEFAULT_MODEL),
        ({"OPENAI_API_KEY": "sk-oai"}, "openai", "gpt-4o-mini"),
        ({"OPENAI_BASE_URL": "http://localhost:11434/v1"}, "openai", "gpt-4o-mini"),
        ({"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oai"}, "anthropic", DEFAULT_MODEL),
        (
            {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "k", "HEARTH_LLM": "openai"},
            "openai",
            "gpt-4o-mini",
        ),
        ({"ANTHROPIC_API_KEY": "sk-ant", "HEARTH_LLM": "offline"}, "offline", DEFAULT_MODEL),
        ({"OPENAI_BASE_URL": "http://l/v1", "HEARTH_MODEL": "llama3.2"}, "openai", "llama3.2"),
    ],
)
def test_hearth_llm_and_its_default(env: dict[str, str], provider: str, model: str) -> None:
    """Anthropic when its key is set, else OpenAI-compatible when a key or base URL is, else offline."""
    found = llm(**env)
    assert (found.provider, found.model) == (provider, model)
    assert load_settings({**REDIS, **env}).offline is (provider == "offline")


def test_openai_settings_are_read_and_the_key_never_prints() -> None:
    found = llm(OPENAI_API_KEY="sk-secret-oai", OPENAI_BASE_URL="https://openrouter.ai/api/v1")
    assert str(found.openai_api_key) == "sk-secret-oai" and "sk-secret-oai" not in repr(found)
    assert found.openai_base_url == "https://openrouter.ai/api/v1"
    assert found.providers == ("openai", "offline")


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"HEARTH_LLM": "openai"}, "OPENAI_API_KEY or OPENAI_BASE_URL"),
        ({"HEARTH_LLM": "anthropic", "OPENAI_API_KEY": "k"}, "ANTHROPIC_API_KEY"),
        ({"HEARTH_LLM": "gemini"}, "anthropic, openai, offline"),
    ],
)
def test_a_provider_without_its_credentials_stops_the_start(env: dict[str, str], needle: str) -> None:
    with pytest.raises(ConfigError) as caught:
        llm(**env)
    assert needle in caught.value.message and "HEARTH_LLM" in caught.value.message


def test_make_run_says_which_model_answers() -> None:
    """``make run`` with only OPENAI_BASE_URL set picks the OpenAI-compatible server."""
    local = model_line({**REDIS, "OPENAI_BASE_URL": "http://localhost:11434/v1", "HEARTH_MODEL": "llama3.2"})
    assert local == "the model: OpenAI-compatible llama3.2 at http://localhost:11434/v1"
    assert model_line({**REDIS, "ANTHROPIC_API_KEY": "k"}) == f"the model: Claude {DEFAULT_MODEL}"
    assert "offline model answers" in model_line(REDIS)
    assert "OPENAI_API_KEY" in model_line({**REDIS, "HEARTH_LLM": "openai"})


def test_the_deployment_builds_every_configured_provider_behind_a_router() -> None:
    settings = llm(OPENAI_BASE_URL="http://127.0.0.1:9/v1", ANTHROPIC_API_KEY="sk-ant", HEARTH_LLM="openai")
    model, counter = _model(settings)
    assert isinstance(model, ProviderRouter) and model.provider == "openai"
    assert set(model.providers) == {"openai", "anthropic", "offline"}
    assert isinstance(model.inner, OpenAIChatModel) and model.inner.client.api_key == NO_KEY  # a local server
    assert counter.name.endswith("learned:gpt-4o-mini")


def test_a_persona_file_may_name_its_provider() -> None:
    toml = b'name = "Ada"\nsystem_prompt = "You are Ada."\n[model]\nprovider = "openai"\nname = "llama3.2"\n'
    persona = parse_persona_toml(toml, default_id="ada", source="ada.toml")
    assert (persona.model.provider, persona.model.name) == ("openai", "llama3.2")


@pytest.mark.parametrize(
    ("model", "code"),
    [
        (ModelSettings(), None),
        (ModelSettings(provider="openai"), None),  # the deployment's: HEARTH_MODEL applies
        (ModelSettings(provider="anthropic", name="claude-x"), None),
        (ModelSettings(provider="offline"), None),
        (ModelSettings(provider="anthropic"), "model_name_required"),
        (ModelSettings(provider="gemini", name="g"), "invalid_provider"),
    ],
)
def test_a_personas_choice_is_checked_against_the_deployment(model: ModelSettings, code: str | None) -> None:
    check = lambda: check_model_choice(  # noqa: E731
        model, deployment="openai", available=("anthropic", "openai", "offline")
    )
    if code is None:
        check()
        return
    with pytest.raises(InvalidInput) as caught:
        check()
    assert caught.value.code == code and caught.value.message


def test_a_provider_whose_credentials_are_missing_is_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        check_model_choice(
            ModelSettings(provider="anthropic", name="c"),
            deployment="openai",
            available=("openai", "offline"),
        )
    assert caught.value.code == "provider_unavailable" and "ANTHROPIC_API_KEY" in caught.value.message


class _Named:
    """A model that says which provider and model it is."""

    def __init__(self, provider: str) -> None:
        self.provider = provider

    async def stream(self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple = ()):  # type: ignore[no-untyped-def, type-arg]
        yield TextDelta(text=f"{self.provider}:{settings.name}")
        yield ModelDone(usage=Usage())


PROMPT = Prompt(messages=(PromptMessage(role="user", text="hi", slot="window"),), stable_count=0)


async def test_the_router_streams_from_the_provider_the_settings_name() -> None:
    router = ProviderRouter(_Named("openai"), {"anthropic": _Named("anthropic")})  # type: ignore[arg-type]

    async def said(settings: ModelSettings) -> str:
        return "".join(
            [e.text async for e in router.stream(PROMPT, settings, "Ada") if isinstance(e, TextDelta)]
        )

    assert await said(ModelSettings(name="m")) == "openai:m"  # empty: the deployment's
    assert await said(ModelSettings(name="c", provider="anthropic")) == "anthropic:c"
    with pytest.raises(LLMUnavailable) as caught:
        await said(ModelSettings(name="x", provider="offline"))
    assert caught.value.code == "llm_provider_missing"


def test_secret_keys_stay_out_of_settings_repr() -> None:
    assert "sk" not in repr(LlmSettings(openai_api_key=Secret("sk-1")))
