"""A persona's settings page (issue 31): validation naming the field and range, deployment
defaults, the prompt order moving slots, sampling in both providers' requests, the TOML fields."""

from __future__ import annotations

import pytest

from adapters.llm.anthropic_format import to_messages_request
from adapters.llm.openai_format import to_chat_request
from config.load import parse_persona_toml
from engine.errors import ConfigError
from engine.model import ModelSettings, Persona
from engine.persona_settings import GenerationSettings, apply, check, defaults, of, window_policy
from engine.prompt import DEFAULT_TEMPLATE, assemble_prompt, resolve_template
from engine.window import WindowPolicy
from tests.unit.engine.test_prompt import full_parts

PERSONA = Persona(id="p", name="Ember", system_prompt="You are Ember.")
WINDOW = WindowPolicy(max_tokens=8_000)


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("temperature", 2.5, "between 0.0 and 2.0"),
        ("temperature", -0.1, "between 0.0 and 2.0"),
        ("top_p", 1.5, "between 0.0 and 1.0"),
        ("max_tokens", 8, "between 16 and 64,000"),
        ("context_window", 10, "between 1,000 and 2,000,000"),
        ("window_tokens", 100, "between 500 and 1,000,000"),
    ],
)
def test_out_of_range_is_refused_naming_field_and_range(field: str, value: float, shown: str) -> None:
    with pytest.raises(ConfigError) as caught:
        check(GenerationSettings(**{field: value}))  # type: ignore[arg-type]
    assert caught.value.code == f"invalid_{field}"
    assert field in caught.value.message and shown in caught.value.message


@pytest.mark.parametrize("order", [(), ("persona", "lore"), ("window", "window"), ("window", "nope")])
def test_a_bad_prompt_order_is_refused(order: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as caught:
        check(GenerationSettings(prompt_order=order))
    assert caught.value.code == "invalid_template"


def test_a_persona_without_settings_shows_the_deployment_defaults() -> None:
    shown = of(PERSONA, WINDOW)
    assert shown == defaults(WINDOW)
    assert shown.temperature is None and shown.top_p is None
    assert shown.window_tokens == 8_000 and shown.prompt_order == DEFAULT_TEMPLATE
    assert window_policy(PERSONA, WINDOW) == WINDOW


def test_applied_settings_are_what_the_persona_shows_and_uses() -> None:
    order = ("lore", *(s for s in DEFAULT_TEMPLATE if s != "lore"))
    chosen = GenerationSettings(
        temperature=0.3, top_p=0.9, max_tokens=500, window_tokens=2_000, summaries=False, prompt_order=order
    )
    persona = apply(PERSONA, chosen)
    assert of(persona, WINDOW) == chosen
    assert window_policy(persona, WINDOW).max_tokens == 2_000
    assert persona.model.temperature == 0.3 and not persona.summaries
    assert apply(persona, GenerationSettings()).template == ()  # the default order is stored as none


def test_slot_order_changes_the_assembled_prompt() -> None:
    default = [m.slot for m in assemble_prompt(full_parts()).messages]
    order = ("lore", *(s for s in DEFAULT_TEMPLATE if s != "lore"))
    moved = [m.slot for m in assemble_prompt(full_parts(), resolve_template(order)).messages]
    assert default.index("lore") > default.index("window")
    assert moved[0] == "lore" and moved.index("lore") < moved.index("persona")


def test_openai_requests_carry_the_sampling_only_when_set() -> None:
    prompt = assemble_prompt(full_parts())
    plain = to_chat_request(prompt, ModelSettings(name="m", max_tokens=100))
    assert "temperature" not in plain and "top_p" not in plain
    tuned = to_chat_request(prompt, ModelSettings(name="m", max_tokens=200, temperature=0.25, top_p=0.5))
    assert (tuned["temperature"], tuned["top_p"], tuned["max_tokens"]) == (0.25, 0.5, 200)


def test_anthropic_requests_carry_the_reply_length_but_never_sampling() -> None:
    """The Messages API refuses temperature and top_p (a 400 at any value)."""
    prompt = assemble_prompt(full_parts())
    tuned = to_messages_request(prompt, ModelSettings(name="m", max_tokens=200, temperature=0.25, top_p=0.5))
    assert tuned["max_tokens"] == 200 and "temperature" not in tuned and "top_p" not in tuned


def test_persona_toml_carries_the_settings_and_refuses_out_of_range_ones() -> None:
    text = b"""name = "E"\nsystem_prompt = "x"\nsummaries = false\nwindow_tokens = 3000
template = ["persona", "lore", "window"]\n[model]\ntemperature = 0.7\ntop_p = 0.95\n"""
    persona = parse_persona_toml(text, default_id="e", source="e.toml")
    assert (persona.model.temperature, persona.model.top_p) == (0.7, 0.95)
    assert persona.window_tokens == 3000 and not persona.summaries
    with pytest.raises(ConfigError, match=r"e.toml: temperature must be between 0.0 and 2.0"):
        parse_persona_toml(text.replace(b"0.7", b"7.0"), default_id="e", source="e.toml")
