"""LORE-11 without count_tokens (issue 12): the offline estimate corrected by reported usage."""

from __future__ import annotations

from adapters.llm.anthropic_format import estimate_request, to_messages_request
from adapters.llm.tokens import SAFETY, LearnedTokenCounter, offline_count
from engine.model import ModelSettings, Persona
from engine.prompt import PromptParts, assemble_prompt
from engine.window import Window
from tests.unit.engine.test_prompt import msg

TEXT = "Mara keeps the lighthouse; the harbor freezes every January and the boats stay in."


def test_issue_12_before_any_usage_the_plain_estimate_is_used() -> None:
    counter = LearnedTokenCounter("claude-x")
    assert counter.estimate(TEXT) == offline_count(TEXT)


def test_issue_12_the_ratio_follows_reported_usage_with_a_safety_margin() -> None:
    counter = LearnedTokenCounter("claude-x")
    assert counter.learn(1_000, 700) == 0.7  # the first report is stored at once
    for _ in range(30):
        counter.learn(1_000, 800)
    assert counter.ratio is not None and abs(counter.ratio - 0.8) < 0.01
    assert counter.estimate(TEXT) == -(-offline_count(TEXT) * counter.ratio * SAFETY // 1)
    assert counter.estimate(TEXT) < offline_count(TEXT)  # a real saving, not a no-op


def test_issue_12_a_small_move_is_not_stored_again_a_big_one_is() -> None:
    counter = LearnedTokenCounter("claude-x")
    counter.use_ratio(0.8)  # as read from Redis
    assert counter.learn(1_000, 810) is None  # moved ~0.4%: no write
    moved = counter.learn(1_000, 1_200)
    assert moved is not None and moved > 0.84


def test_issue_12_misreports_and_out_of_bounds_ratios_are_ignored() -> None:
    counter = LearnedTokenCounter("claude-x")
    assert counter.learn(0, 500) is None and counter.learn(1_000, 0) is None
    assert counter.learn(1_000, 50_000) is None and counter.ratio is None
    counter.use_ratio(99.0)
    assert counter.ratio is None


def test_issue_12_the_request_estimate_covers_every_block_and_the_tools() -> None:
    persona = Persona(id="p", name="Ember", system_prompt="You are Ember.")
    window = Window(messages=(msg(1, "user", TEXT),), tokens=5, budget=10_000, dropped=0)
    request = to_messages_request(
        assemble_prompt(PromptParts(persona=persona, window=window)), ModelSettings(name="m", max_tokens=9)
    )
    assert estimate_request(request) == offline_count("You are Ember.") + offline_count(TEXT)
    with_tools = {**request, "tools": [{"name": "save_memory", "description": "Save a fact."}]}
    assert estimate_request(with_tools) > estimate_request(request)
