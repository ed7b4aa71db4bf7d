"""``SummaryDesk`` on the in-memory fakes (SUM-1..5): what a job writes, what people change, and
that a job racing another change writes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec
import pytest

from engine.errors import NotFound, StorageUnavailable
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.service import ReplyDone
from engine.summary import SummaryState
from engine.tools import ToolSpec
from tests.unit.service.world import PERSONA, ROOM, World

QUIET = msgspec.structs.replace(PERSONA, greeting="")  # positions 1, 2, ... as in a greeting-less chat


class Recapper:
    """Summarizes by naming the first line; may let "someone else" change the tiers meanwhile."""

    provider = "scripted"

    def __init__(self, world: World | None = None) -> None:
        self.world = world

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        text = prompt.messages[-1].text
        if self.world is not None and "Chapter" in text:  # another worker commits first
            state = await self.world.summary_store.state(ROOM)
            await self.world.summary_store.commit(ROOM, state.version, SummaryState(upto=-1.0))
            self.world = None
        yield TextDelta(text=f"recap of «{text.splitlines()[0][:20]}»")
        yield ModelDone(usage=Usage())


async def chatter(world: World, n: int) -> None:
    for i in range(n):
        await world.say(f"Chapter {i}: the party walks on.", reply=False)
    await world.say("Where are we?")


async def test_sum_1_messages_that_left_the_window_become_tiers_and_leave_the_prompt() -> None:
    world = World()
    world.summaries.model = Recapper()
    await world.start(QUIET)
    await chatter(world, 69)
    assert [chat for _, chat in world.data.jobs] == [ROOM]  # the turn queued a job
    assert await world.run_jobs() == 2
    state, waiting = await world.summaries.view(ROOM)
    assert [(t.first, t.last, t.messages) for t in state.tiers] == [(1.0, 10.0, 10), (11.0, 20.0, 10)]
    assert state.tiers[0].text == "recap of «Alice: Chapter 0: th»" and not state.tiers[0].offline
    assert waiting < 10
    await world.say("And now?")
    prompt = world.model.prompts[-1]  # type: ignore[attr-defined]
    assert [m.text.count("recap of") for m in prompt.messages if m.slot == "summaries"] == [2]
    assert all("Chapter 3:" not in m.text for m in prompt.messages if m.slot == "window")
    assert await world.summaries.summarize(ROOM) == 0  # nothing more to do


async def test_sum_5_without_an_llm_tiers_are_extractive_and_say_so() -> None:
    world = World()
    world.summaries.model = type("Offline", (), {"provider": "offline"})()
    await world.start(QUIET)
    await chatter(world, 59)
    assert await world.run_jobs() == 1
    (tier,) = (await world.summaries.view(ROOM))[0].tiers
    assert tier.offline and tier.text.startswith("[extractive summary, no LLM] ")
    assert "Chapter 0: the party walks on." in tier.text


async def test_sum_5_a_job_whose_tiers_changed_meanwhile_writes_nothing() -> None:
    world = World()
    world.summaries.model = Recapper(world)
    await world.start(QUIET)
    await chatter(world, 59)
    assert await world.summaries.summarize(ROOM) == 0
    assert (await world.summaries.view(ROOM))[0].tiers == ()
    assert await world.summaries.summarize(ROOM) == 1  # the job retried starts over


async def test_sum_4_people_edit_and_rebuild_tiers() -> None:
    world = World()
    world.summaries.model = Recapper()
    await world.start(QUIET)
    await chatter(world, 59)
    await world.run_jobs()
    (tier,) = (await world.summaries.view(ROOM))[0].tiers
    edited = await world.summaries.edit(ROOM, tier.id, "They crossed the river.")
    assert (edited.text, edited.edited) == ("They crossed the river.", True)
    assert (await world.summaries.view(ROOM))[0].tiers == (edited,)
    with pytest.raises(NotFound) as missing:
        await world.summaries.edit(ROOM, "sum-none", "x")
    assert missing.value.code == "summary_not_found"
    await world.summary_store.dequeued(ROOM)
    await world.summaries.rebuild(ROOM)
    assert (await world.summaries.view(ROOM))[0].tiers == ()
    assert [chat for _, chat in world.data.jobs] == [ROOM]  # queued again
    assert await world.run_jobs() == 1


async def test_an_unreachable_job_queue_never_fails_the_turn_and_the_next_turn_queues_the_job() -> None:
    """Issue 29 (SUM-1): the queue lives on another Cluster node than the chat; while it fails
    over, the reply is still given (it is stored already) and the job is queued by the next
    turn that spills, so the summary runs all the same."""
    world = World()
    world.summaries.model = Recapper()
    await world.start(QUIET)
    queue = world.summary_store
    enqueue = queue.enqueue

    async def unreachable(chat: str) -> bool:
        raise StorageUnavailable("Redis is unreachable: ConnectionError")

    queue.enqueue = unreachable  # type: ignore[method-assign]
    for i in range(69):
        await world.say(f"Chapter {i}: the party walks on.", reply=False)
    events = await world.say("Where are we?")
    assert isinstance(events[-1], ReplyDone) and not world.data.jobs
    queue.enqueue = enqueue  # type: ignore[method-assign]
    events = await world.say("And now?")
    assert isinstance(events[-1], ReplyDone)
    assert [chat for _, chat in world.data.jobs] == [ROOM]
    assert await world.run_jobs() == 2


async def test_issue_31_the_summary_worker_uses_the_personas_smaller_window_cap() -> None:
    """Issue 31, WIN-1, SUM-1: messages that left a persona's smaller live window (its
    ``window_tokens``) are summarized, not left between its cap and the deployment's."""
    world = World()
    world.summaries.model = Recapper()
    await world.start(msgspec.structs.replace(QUIET, window_tokens=500))
    walk = " ".join(["the party walks on through the long green valley"] * 6)
    for i in range(24):
        await world.say(f"Chapter {i}: {walk}", reply=False)
    (*_, done) = await world.say("Where are we?")
    assert isinstance(done, ReplyDone)
    _, log = await world.service.turn(ROOM, done.turn)
    assert log.window.dropped >= 10 and log.window.budget == 500  # the persona's cap
    _, waiting = await world.summaries.view(ROOM)
    assert waiting >= 10  # the worker sees the same window as the turn
    assert await world.run_jobs() >= 1
    state, _ = await world.summaries.view(ROOM)
    assert state.tiers and state.tiers[0].first == 1.0
