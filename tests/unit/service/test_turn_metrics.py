"""The chat service tells its observer about each turn; ``adapters.metrics.Metrics`` counts it
(issue 32: turn time, time to first token, provider errors, tokens, memory decisions, lore scans)."""

from __future__ import annotations

import msgspec
from prometheus_client import generate_latest

from adapters.metrics import Metrics
from engine.errors import LLMUnavailable
from engine.lorebook import LoreBook, LoreEntry
from engine.service import ReplyDone, ReplyFailed
from tests.fakes.ports import ScriptedChatModel
from tests.unit.service.world import PERSONA, World


def sample(metrics: Metrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


async def test_answered_turns_are_timed_and_their_tokens_counted() -> None:
    """Issue 32: two answered turns give the turn histogram count 2 for the provider, two first
    tokens, the provider's input and output tokens and one memory decision per turn."""
    metrics = Metrics()
    world = await World(observer=metrics).start()
    for text in ("Hello!", "How are you?"):
        assert isinstance((await world.say(text))[-1], ReplyDone)
    assert sample(metrics, "hearth_turn_seconds_count", provider="scripted", outcome="ok") == 2
    assert sample(metrics, "hearth_first_token_seconds_count", provider="scripted") == 2
    assert sample(metrics, "hearth_tokens_total", provider="scripted", kind="input") > 0
    assert sample(metrics, "hearth_tokens_total", provider="scripted", kind="output") > 0
    decisions = [
        sample(metrics, "hearth_memory_decisions_total", decision=d) for d in ("used", "recalled", "nothing")
    ]
    assert sum(decisions) == 2
    assert sample(metrics, "hearth_provider_errors_total", provider="scripted", kind="llm_unavailable") == 0


async def test_a_provider_failure_is_counted_by_its_code() -> None:
    """Issue 32: a turn the provider could not answer counts a provider error of its kind and a
    failed turn, no tokens and no first token."""
    metrics = Metrics()
    model = ScriptedChatModel(LLMUnavailable("The model is down.", code="llm_unavailable"))
    world = await World(model, observer=metrics).start()
    assert isinstance((await world.say("Anyone there?"))[-1], ReplyFailed)
    assert sample(metrics, "hearth_provider_errors_total", provider="scripted", kind="llm_unavailable") == 1
    assert sample(metrics, "hearth_turn_seconds_count", provider="scripted", outcome="error") == 1
    assert sample(metrics, "hearth_first_token_seconds_count", provider="scripted") == 0


async def test_a_lorebook_scan_is_timed() -> None:
    """Issue 32: a turn whose persona has a lorebook observes one lore scan; without books none."""
    metrics = Metrics()
    world = World(observer=metrics)
    book = await world.lore.put(
        LoreBook(name="Valley", entries=(LoreEntry(id="1", keys=("dragon",), content="Dragons sleep."),))
    )
    await world.start(msgspec.structs.replace(PERSONA, lorebooks=(book.id,)))
    await world.say("A dragon!")
    assert sample(metrics, "hearth_lore_scan_seconds_count") == 1
    bare = Metrics()
    await (await World(observer=bare).start()).say("A dragon!")
    assert bare.registry.get_sample_value("hearth_lore_scan_seconds_count") == 0


async def test_the_registry_renders_every_metric_name() -> None:
    """Issue 32: the text format names every metric README lists, before any turn."""
    text = generate_latest(Metrics().registry).decode()
    for name in (
        "hearth_turn_seconds",
        "hearth_first_token_seconds",
        "hearth_provider_errors_total",
        "hearth_tokens_total",
        "hearth_redis_errors_total",
        "hearth_job_queue_depth",
        "hearth_job_oldest_age_seconds",
        "hearth_memory_decisions_total",
        "hearth_lore_scan_seconds",
    ):
        assert f"# TYPE {name.removesuffix('_total')}" in text, name
