"""Pinned pages, working notes and explore on a real Redis, single and Cluster (EPI-1, EPI-2,
EPI-13; issue 34)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine.archive import ArchivePolicy, Page, QueryOptions, new_page, retention_score
from engine.errors import Conflict, InvalidInput, NotFound
from tests.fakes.ports import ScriptedChatModel
from tests.integration.test_archive import CHAT, PERSONA, T0, World, redis, world  # noqa: F401

pytestmark = pytest.mark.integration

OLD = T0 - timedelta(days=200)  # far past cold: e^(-0.02 * 200) ~ 0.02


def cold_page(page_id: str, abstract: str, body: str, links: tuple[str, ...] = ()) -> Page:
    return new_page(
        id=page_id,
        chat=CHAT,
        created_at=OLD,
        policy=ArchivePolicy(),
        abstract=abstract,
        body=body,
        links=links,
    )


async def test_epi_1_a_pinned_page_survives_the_sweep_that_evicts_an_equally_cold_one_and_comes_first(
    world: World,  # noqa: F811
) -> None:
    """Issue 34, EPI-1 and EPI-13 ``pin_first``: two pages of the same age and reads; the pinned
    one stays active through the sweep, the other is evicted; a search with ``pin_first`` lists
    the pinned page before the results, and the turn's briefing shows it."""
    kept = cold_page("pg-kept", "The lighthouse key", "Mara keeps the lighthouse key under the blue stone.")
    lost = cold_page("pg-lost", "The harbour map", "Tomas drew the harbour map on the back of a menu.")
    fresh = new_page(
        id="pg-fresh",
        chat=CHAT,
        created_at=T0,
        policy=ArchivePolicy(),
        abstract="Garden",
        body="Tomatoes need sun.",
    )
    for page in (kept, lost, fresh):
        await world.put(page)
    pinned = await world.desk.pin(CHAT, "pg-kept", True)
    assert pinned.pinned
    assert retention_score(await world.page("pg-kept"), T0, world.desk.policy) == pytest.approx(
        retention_score(await world.page("pg-lost"), T0, world.desk.policy)
    )

    counts = await world.desk.sweep(T0)

    assert counts == {"evicted": 1}
    assert (await world.page("pg-kept")).status == "active"
    assert (await world.page("pg-lost")).status == "evicted"
    found = await world.desk.search(CHAT, "tomatoes sun", QueryOptions(pin_first=True))
    assert [(f.item.id, f.item.source) for f in found.items] == [
        ("pg-kept", "pinned"),
        ("pg-fresh", "result"),
    ]
    plain = await world.desk.search(CHAT, "tomatoes sun", QueryOptions())
    assert [f.item.id for f in plain.items] == ["pg-fresh"]
    brief = await world.desk.briefing(CHAT, [], T0)
    assert brief.pinned_ids == ("pg-kept",) and "lighthouse key" in brief.pinned[0]

    await world.desk.pin(CHAT, "pg-kept", False)
    assert (await world.desk.briefing(CHAT, [], T0)).empty
    # unpinned, it is scored again: once its search read has faded it goes like any other
    assert (await world.desk.sweep(T0 + timedelta(days=60))) == {"evicted": 1}
    assert (await world.page("pg-kept")).status == "evicted"


async def test_epi_1_pinning_refuses_evicted_pages_and_pages_of_other_chats(world: World) -> None:  # noqa: F811
    """Issue 34: only a chat's own active or cold pages can be pinned; unknown pages are 404."""
    await world.put(cold_page("pg-lost", "Map", "The harbour map."))
    await world.desk.sweep(T0)
    with pytest.raises(Conflict) as refused:
        await world.desk.pin(CHAT, "pg-lost", True)
    assert refused.value.code == "page_not_pinnable"
    with pytest.raises(NotFound):
        await world.desk.pin("web:elsewhere", "pg-lost", True)
    with pytest.raises(NotFound):
        await world.desk.pin(CHAT, "pg-none", True)


async def test_epi_2_explore_reads_raise_the_scores_of_the_pages_it_read(world: World) -> None:  # noqa: F811
    """Issue 34, EPI-2 and EPI-13 ``reasoning``: explore reads the page the query finds and the
    page linked from it; each gets one read and a higher score; a page it did not reach keeps
    its score."""
    seed = cold_page(
        "pg-seed", "The lighthouse trip", "We sailed to the old lighthouse on the cape.", links=("pg-linked",)
    )
    linked = cold_page("pg-linked", "The storm after", "A storm kept us on the island for two days.")
    other = cold_page("pg-other", "Bread recipes", "Sourdough needs a warm kitchen.")
    for page in (seed, linked, other):
        await world.put(page)
    before = {p.id: retention_score(p, T0, world.desk.policy) for p in await world.store.pages(CHAT)}

    found = await world.desk.explore(CHAT, "lighthouse trip", "low")

    steps = [(s.id, s.hops, s.via) for s in found.exploration.steps]
    assert steps == [("pg-seed", 0, None), ("pg-linked", 1, "pg-seed")]
    after = {p.id: p for p in await world.store.pages(CHAT)}
    for page_id in ("pg-seed", "pg-linked"):
        assert after[page_id].read_count == 1
        assert retention_score(after[page_id], T0, world.desk.policy) > before[page_id]
    assert after["pg-other"].read_count == 0
    assert retention_score(after["pg-other"], T0, world.desk.policy) == before["pg-other"]
    with pytest.raises(InvalidInput):
        await world.desk.explore(CHAT, "lighthouse", "enormous")


async def test_epi_1_working_notes_are_in_the_prompt_during_their_session_and_end_with_it(
    world: World,  # noqa: F811
) -> None:
    """Issue 34, EPI-1: a person's working note is in every turn's prompt while the session
    runs; after the idle gap the next turn's prompt has no note, and the archive pass moves the
    note into its session page's history, where search never finds it."""
    model = ScriptedChatModel("Sounds good.", "Take the early one.", "Morning!")
    world.service.model = model
    world.service.archive = world.desk

    async def say(text: str) -> None:
        await world.say([text], world.clock.now(), reply=True)
        world.clock.advance(minutes=1)

    await say("We are planning the lighthouse trip.")
    note = await world.desk.add_note(CHAT, "Ana still has to pick the ferry time.", author="web:ana")
    assert [n.id for n in await world.desk.notes(CHAT)] == [note.id]
    await say("Which ferry should I take?")
    briefing = [m.text for m in model.prompts[-1].messages if m.source == "archive:notes"]
    assert briefing == [
        "Working notes for this session (they end with it):\n- Ana still has to pick the ferry time."
    ]

    world.clock.advance(hours=7)  # the idle gap (6 h) ends the session
    await say("Good morning!")
    assert not any(m.source == "archive:notes" for m in model.prompts[-1].messages)
    assert await world.desk.notes(CHAT) == ()

    world.clock.advance(hours=7)
    await world.desk.archive_sessions(CHAT)
    pages = await world.store.pages(CHAT)
    assert all(p.layer != "working" for p in pages)
    (first, *_) = pages
    assert [n.text for n in first.notes] == ["Ana still has to pick the ferry time."]
    assert first.notes[0].author == "web:ana"
    assert "pick the ferry time" not in await world.desk.tool_search(CHAT, "ferry time")  # not recalled
    assert (await world.desk.briefing(CHAT, [], world.clock.now())).empty


async def test_epi_1_a_session_holds_a_bounded_number_of_notes(world: World) -> None:  # noqa: F811
    """Issue 34: empty, too long and too many notes are refused; nothing is stored for them."""
    with pytest.raises(InvalidInput) as empty:
        await world.desk.add_note(CHAT, "   ", author="web:ana")
    assert empty.value.code == "empty_note"
    with pytest.raises(InvalidInput) as long:
        await world.desk.add_note(CHAT, "x" * 501, author="web:ana")
    assert long.value.code == "note_too_long"
    for i in range(20):
        await world.desk.add_note(CHAT, f"note {i}", author="web:ana")
    with pytest.raises(Conflict) as many:
        await world.desk.add_note(CHAT, "one more", author="web:ana")
    assert many.value.code == "too_many_notes"
    assert len(await world.desk.notes(CHAT)) == 20
