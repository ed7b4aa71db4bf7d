"""The persona's archive tools in a turn (EPI-1, EPI-2, EPI-13; issue 34): explore reads count,
a note joins the session's briefing, and a bad call is an error result, not a failed turn."""

from __future__ import annotations

from datetime import timedelta

from engine.archive import ArchivePolicy, new_page
from engine.tools import ToolCall
from tests.fakes.ports import ScriptedChatModel

from .world import ROOM, World


async def test_epi_2_the_explore_tool_reads_the_found_page_and_its_link_and_both_reads_count() -> None:
    """Issue 34: ``explore_archive`` mid-reply: the found page and the page it links to each get
    one read; the model is told both, with the link it followed."""
    model = ScriptedChatModel(
        ToolCall(
            id="t1", name="explore_archive", arguments='{"query": "lighthouse trip", "reasoning": "low"}'
        ),
        "Found it.",
    )
    world = await World(model).start()
    at = world.clock.now() - timedelta(days=30)
    linked = new_page(id="pg-b", chat=ROOM, created_at=at, policy=ArchivePolicy(), abstract="The storm after")
    seed = new_page(
        id="pg-a",
        chat=ROOM,
        created_at=at,
        policy=ArchivePolicy(),
        abstract="The lighthouse trip",
        body="We sailed to the lighthouse.",
        links=("pg-b",),
    )
    await world.archive_store.change(ROOM, lambda _: ((seed, linked), (), None))

    await world.say("Remember the lighthouse?")

    result = model.prompts[-1].exchanges[-1].results[0]
    assert "[pg-a] The lighthouse trip" in result.content and "[pg-b] (linked from pg-a)" in result.content
    assert {p.id: p.read_count for p in await world.archive_store.pages(ROOM)} == {"pg-a": 1, "pg-b": 1}


async def test_epi_1_the_note_tool_adds_to_the_next_prompt_and_refuses_an_empty_note() -> None:
    """Issue 34: ``add_working_note`` stores a note the next turn's briefing shows; an empty one
    is an error result the model reads, and the reply still comes."""
    model = ScriptedChatModel(
        ToolCall(id="t1", name="add_working_note", arguments='{"text": "Ana is packing for the cape."}'),
        "Noted.",
        ToolCall(id="t2", name="add_working_note", arguments='{"text": "  "}'),
        "Hm.",
        "Have fun packing!",
    )
    world = await World(model).start()
    await world.say("I'm packing for the cape trip.")
    await world.say("Still packing.")
    refused = model.prompts[-1].exchanges[-1].results[0]
    assert refused.is_error and "needs some text" in refused.content
    await world.say("Almost done!")
    notes = [m.text for m in model.prompts[-1].messages if m.source == "archive:notes"]
    assert notes == ["Working notes for this session (they end with it):\n- Ana is packing for the cape."]


async def test_mem_8_a_memory_off_chat_gets_no_briefing_and_its_archive_tools_are_refused() -> None:
    """MEM-8 (issue 34): in a memory-off chat the working notes written before stay out of the
    prompt and a note or explore call mid-reply is refused; switched back on, the note returns."""
    model = ScriptedChatModel(
        ToolCall(id="t1", name="add_working_note", arguments='{"text": "Ana is packing for the cape."}'),
        "Noted.",
        ToolCall(id="t2", name="add_working_note", arguments='{"text": "Ana fears the ferry."}'),
        "Hm.",
        "Off we go.",
    )
    world = await World(model).start()
    await world.say("I'm packing for the cape trip.")
    await world.service.set_memory(ROOM, "off")
    await world.say("Still packing.")
    refused = model.prompts[-1].exchanges[-1].results[0]
    assert refused.is_error and "memory is off" in refused.content
    assert not [m for m in model.prompts[-1].messages if (m.source or "").startswith("archive:")]
    await world.service.set_memory(ROOM, "on")
    await world.say("Almost done!")
    notes = [m.text for m in model.prompts[-1].messages if m.source == "archive:notes"]
    assert notes == ["Working notes for this session (they end with it):\n- Ana is packing for the cape."]
