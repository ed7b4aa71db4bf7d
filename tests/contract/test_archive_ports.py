"""Contract: the archive ports behave alike on the fake and on Redis: the cursor's
compare-and-set, page changes and purges, vectors per embedder, the sweep lease, client activity
and dream reports."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import msgspec
import pytest

from engine.archive import Page
from engine.archive.dream import DreamReport
from engine.errors import NotFound
from engine.memory.journal import Saved
from tests.contract.builders import T0, new_message, request_log, turn_of
from tests.contract.stores import Stores
from tests.contract.test_memory_ports import mem

pytestmark = pytest.mark.contract

CHAT = "web:archive"


def page(name: str, minutes: int = 0, **fields: object) -> Page:
    created = T0 + timedelta(minutes=minutes)
    return msgspec.structs.replace(Page(id=f"pg-{name}", chat=CHAT, created_at=created, body=name), **fields)


async def test_session_pages_move_the_cursor_with_compare_and_set(stores: Stores) -> None:
    archive = stores.archive()
    assert await archive.cursor(CHAT) is None
    ok = await archive.add_session_pages(CHAT, expected=None, upto=4.0, pages=[page("b", 5), page("a", 1)])
    late = await archive.add_session_pages(CHAT, expected=None, upto=4.0, pages=[page("c")])
    assert (ok, late, await archive.cursor(CHAT)) == (True, False, 4.0)
    assert [p.id for p in await archive.pages(CHAT)] == ["pg-a", "pg-b"]
    assert await archive.chat_of("pg-a") == CHAT
    assert await archive.chat_of("pg-c") is None  # named, but never stored
    assert await archive.chats() == [CHAT]
    assert await archive.add_session_pages(
        CHAT,
        expected=4.0,
        upto=9.0,
        pages=[page("d", 9)],
        low_entropy=["pg-d"],
        model="m",
        vectors={"pg-d": b"\0" * 8},
    )
    assert await archive.low_entropy(CHAT) == {"pg-d"}
    stored = await stores.page_vectors().vectors(CHAT)
    assert (stored.model, stored.vectors) == ("m", {"pg-d": b"\0" * 8})


async def test_a_change_stores_updates_and_purges_for_good(stores: Stores) -> None:
    archive, vectors = stores.archive(), stores.page_vectors()
    await archive.add_session_pages(
        CHAT, expected=None, upto=2.0, pages=[page("a"), page("b", 1)], low_entropy=["pg-b"]
    )
    await vectors.put_vectors(CHAT, "m", {"pg-a": b"a" * 4, "pg-b": b"b" * 4})

    def decide(pages: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], int]:
        return (msgspec.structs.replace(pages[0], read_count=3),), ("pg-b",), len(pages)

    assert await archive.change(CHAT, decide) == 2
    (left,) = await archive.pages(CHAT)
    assert (left.id, left.read_count) == ("pg-a", 3)
    assert (await archive.chat_of("pg-b"), await archive.low_entropy(CHAT)) == (None, set())
    assert (await vectors.vectors(CHAT)).vectors == {"pg-a": b"a" * 4}

    def refuse(pages: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], None]:
        raise NotFound("no such page", code="page_not_found")

    with pytest.raises(NotFound):
        await archive.change(CHAT, refuse)
    assert await archive.change(CHAT, lambda pages: ((), (), "nothing")) == "nothing"
    assert [p.read_count for p in await archive.pages(CHAT)] == [3]


async def test_the_briefing_pages_follow_pins_notes_and_purges(stores: Stores) -> None:
    """Issue 34 (EPI-1, EPI-13): ``briefing_pages`` lists exactly the pinned visible pages and
    open working notes, whatever change made them so."""
    archive = stores.archive()
    await archive.add_session_pages(CHAT, expected=None, upto=2.0, pages=[page("a"), page("b", 1)])
    note = page("n", 2, layer="working")
    pinned = msgspec.structs.replace((await archive.pages(CHAT))[0], pinned=True)
    await archive.change(CHAT, lambda _: ((pinned, note), (), None))
    assert [p.id for p in await archive.briefing_pages(CHAT)] == ["pg-a", "pg-n"]
    evicted = msgspec.structs.replace(pinned, status="evicted")
    await archive.change(CHAT, lambda _: ((evicted,), ("pg-n",), None))
    assert await archive.briefing_pages(CHAT) == []
    await archive.change(CHAT, lambda _: ((msgspec.structs.replace(evicted, status="active"),), (), None))
    assert [p.id for p in await archive.briefing_pages(CHAT)] == ["pg-a"]


async def test_vectors_of_another_embedder_are_dropped(stores: Stores) -> None:
    vectors = stores.page_vectors()
    empty = await vectors.vectors(CHAT)
    assert (empty.model, empty.vectors) == (None, {})
    await vectors.put_vectors(CHAT, "old", {"pg-a": b"1111"})
    await vectors.put_vectors(CHAT, "old", {"pg-b": b"2222"})
    assert (await vectors.vectors(CHAT)).vectors == {"pg-a": b"1111", "pg-b": b"2222"}
    await vectors.put_vectors(CHAT, "new", {"pg-b": b"3333"})
    stored = await vectors.vectors(CHAT)
    assert (stored.model, stored.vectors) == ("new", {"pg-b": b"3333"})


async def test_the_archive_reads_the_chat_log(stores: Stores) -> None:
    chats, archive = stores.chats(), stores.archive()
    assert (await archive.newest_message(CHAT), await archive.messages_after(CHAT, None, 10)) == (None, [])
    for i in range(3):
        await chats.store_message(CHAT, new_message(f"n{i}", minute=i), pending=True, greeting=None)
    saved = turn_of(CHAT, "t1", ("m1",), 1.0, reply_message="r-t1", journal=(Saved(after=mem("x1")),))
    await chats.finish(saved, request_log(CHAT, "t1"), new_message("noted", role="assistant"), None)
    assert [m.text for m in await archive.messages_after(CHAT, None, 10)] == ["n0", "noted", "n1", "n2"]
    assert [m.text for m in await archive.messages_after(CHAT, 1.5, 1)] == ["n1"]
    newest = await archive.newest_message(CHAT)
    assert newest is not None and newest.text == "n2"
    assert await archive.saved_memories(CHAT, ["t1", "t9"]) == {"t1": ("x1",)}
    assert await archive.saved_memories(CHAT, []) == {}
    assert await archive.chats() == [CHAT]


async def test_the_sweep_lease_runs_one_pass_per_interval(stores: Stores) -> None:
    one, two = stores.archive(), stores.archive()
    assert await one.sweep_lease(60) is True
    assert await two.sweep_lease(60) is False
    await asyncio.sleep(0.02)
    assert await two.sweep_lease(0.01) is True


async def test_activity_keeps_the_latest_time(stores: Stores) -> None:
    web, worker = stores.activity(), stores.activity()
    assert await worker.last_activity() is None
    await web.touch_activity(T0 + timedelta(minutes=5))
    await web.touch_activity(T0 + timedelta(minutes=5, milliseconds=500))  # within a second: skipped
    assert await worker.last_activity() == T0 + timedelta(minutes=5)
    await web.touch_activity(T0 + timedelta(minutes=1))  # an older mark never wins
    assert await worker.last_activity() == T0 + timedelta(minutes=5)
    await web.touch_activity(T0 + timedelta(minutes=6))
    assert await worker.last_activity() == T0 + timedelta(minutes=6)


async def test_dream_reports_newest_first(stores: Stores) -> None:
    reports = stores.dream_reports()
    for i in range(52):
        await reports.add_dream_report(DreamReport(started_at=T0 + timedelta(minutes=i), status="done"))
    kept = await reports.dream_reports()
    assert (len(kept), kept[0].started_at, kept[-1].started_at) == (
        50,
        T0 + timedelta(minutes=51),
        T0 + timedelta(minutes=2),
    )
    assert len(await reports.dream_reports(3)) == 3


async def test_rejected_dream_clusters_are_remembered(stores: Stores) -> None:
    """The dream pass skips a cluster it rejected before, in any worker (issue 29)."""
    rejections = stores.dream()
    assert await rejections.rejected_clusters() == set()
    await rejections.reject_cluster("a" * 32, T0)
    await rejections.reject_cluster("b" * 32, T0 + timedelta(minutes=1))
    await rejections.reject_cluster("a" * 32, T0 + timedelta(minutes=2))  # again: still one entry
    assert await rejections.rejected_clusters() == {"a" * 32, "b" * 32}
