"""``DeepPass`` on the in-memory fakes (DEEP-1..4): facts of a summarized chunk become memories,
and the pass says why when it does not run."""

from __future__ import annotations

from collections.abc import AsyncIterator

import msgspec

from engine.memory import personal_list, space_list
from engine.memory.deep import DeepPolicy
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.summary import SummaryPolicy
from engine.tools import ToolSpec
from tests.unit.service.world import PERSONA, World

CAMP = "web:camp"
FACTS = (  # juno speaks first (P1), then bo (P2); a fact "about" a name is not saved
    '{"facts": [{"text": "Juno\'s sister Ana lives in Porto", "about": "P1"},'
    ' {"text": "Bo is allergic to peanuts", "about": "P2"}, {"text": "It rained", "about": "Nobody"}]}'
)


class Campfire:
    """Summaries in prose; the deep pass's JSON question gets ``deep``."""

    def __init__(self, deep: str, provider: str = "scripted") -> None:
        self.deep, self.provider, self.asked, self.excerpt = deep, provider, 0, ""

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        if "Answer only JSON" in prompt.messages[0].text:
            self.asked += 1
            self.excerpt = prompt.messages[1].text
            yield TextDelta(text=self.deep)
        else:
            yield TextDelta(text="They talked by the campfire.")
        yield ModelDone(usage=Usage())


async def camp(model: Campfire, chat: str = CAMP, **persona: object) -> World:
    world = World(model, deep=DeepPolicy(), summary=SummaryPolicy(chunk_messages=20, chunks_per_job=1))
    await world.start(msgspec.structs.replace(PERSONA, greeting="", **persona))
    lines = ["My sister Ana lives in Porto.", "I'm allergic to peanuts.", "Nice weather."]
    for i in range(69):
        await world.say(lines[i % 3], chat=chat, user="web:juno" if i % 2 == 0 else "web:bo", reply=False)
    await world.say("Good night", chat=chat, user="web:juno")
    await world.run_jobs()
    return world


async def test_deep_1_facts_about_speakers_become_their_unpinned_memories() -> None:
    world = await camp(Campfire(FACTS))
    juno = await world.memory.list([personal_list("default", "web:juno", CAMP)])
    bo = await world.memory.list([personal_list("default", "web:bo", CAMP)])
    assert [(r.text, r.source, r.pinned) for r in juno] == [
        ("Juno's sister Ana lives in Porto", "deep", False)
    ]
    assert [r.text for r in bo] == ["Bo is allergic to peanuts"]
    reports = await world.summary_store.reports(CAMP)
    assert [(r.status, len(r.saved)) for r in reports] == [("saved", 2)]  # "about Nobody" is dropped


async def test_deep_invalid_output_is_rejected_and_saves_nothing() -> None:
    world = await camp(Campfire('{"facts": [{"txt": "wrong field"}]}'))
    assert await world.memory.list([space_list("default", CAMP)]) == []
    (report,) = await world.summary_store.reports(CAMP)
    assert report.status == "rejected" and "invalid JSON output" in report.reason


async def test_deep_4_the_pass_skips_and_says_why() -> None:
    cases = [
        (Campfire(FACTS), CAMP, {"learn_from_chat": False}, "does not learn"),
        (Campfire(FACTS, provider="offline"), CAMP, {}, "no LLM"),
        (Campfire(FACTS), "tg:-100777", {}, "off on telegram"),
    ]
    for model, chat, persona, reason in cases:
        world = await camp(model, chat, **persona)
        (report,) = await world.summary_store.reports(chat)
        assert (model.asked, report.status) == (0, "skipped") and reason in report.reason


async def test_deep_4_a_memory_off_chat_gets_no_pass_and_its_stretch_is_never_read() -> None:
    """DEEP-4, MEM-8 (issue 34): a chat switched to memory off before it started gets no deep
    pass; switched back on, the messages written while it was off are never read by a later
    pass, while the same chat with memory on throughout gets its pass."""
    off = Campfire(FACTS)
    world = World(off, deep=DeepPolicy(), summary=SummaryPolicy(chunk_messages=20, chunks_per_job=1))
    await world.start(msgspec.structs.replace(PERSONA, greeting=""))
    await world.service.set_memory(CAMP, "off")
    for _ in range(69):
        await world.say("My sister Ana lives in Porto.", chat=CAMP, user="web:juno", reply=False)
    await world.say("Good night", chat=CAMP, user="web:juno")
    await world.run_jobs()
    (report,) = await world.summary_store.reports(CAMP)
    assert (off.asked, report.status) == (0, "skipped") and "memory is off" in report.reason

    await world.service.set_memory(CAMP, "on")
    for _ in range(30):
        await world.say("Nice weather.", chat=CAMP, user="web:juno", reply=False)
    await world.say("Good morning", chat=CAMP, user="web:juno")
    await world.run_jobs()
    later = (await world.summary_store.reports(CAMP))[0]
    assert later.first < 71 and later.status == "skipped"  # a chunk written memory-off: unread
    assert off.asked == 0 and "too few messages" in later.reason
    assert await world.memory.list([personal_list("default", "web:juno", CAMP)]) == []

    on = Campfire(FACTS)
    await camp(on)
    assert on.asked == 1  # the same long chat with memory on
