"""The lore desk (LORE-1, LORE-6, issue 32): edits are validated before anything is stored,
attaching an unknown book is refused, and Telegram's one-book attach/detach keeps the rest."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput, NotFound
from engine.lorebook import LoreBook, LoreEntry
from engine.lorebook.editing import BookEdit, EntryEdit
from engine.service.lore import LoreDesk
from tests.fakes.stores import InMemoryData, InMemoryLoreStore

BOOK = LoreBook(
    id="lb-1", name="Eldoria", entries=(LoreEntry(id="0", keys=("wood",), content="The forest."),)
)


async def desk_with_book() -> LoreDesk:
    desk = LoreDesk(InMemoryLoreStore(InMemoryData()))
    await desk.save(BOOK, "fallback")
    return desk


async def test_lore_6_a_saved_entry_is_stored_and_a_bad_one_leaves_the_book_as_it_was() -> None:
    desk = await desk_with_book()
    stored, saved = await desk.save_entry(
        await desk.find("lb-1"), None, EntryEdit(keys="river", content="Water.")
    )
    assert saved.id == "1" and (await desk.find("lb-1")).entries == stored.entries
    with pytest.raises(InvalidInput):
        await desk.save_entry(stored, "0", EntryEdit(keys="fog", decorators="probability 50"))
    assert (await desk.find("lb-1")).entries == stored.entries
    changed = await desk.change_settings(stored, BookEdit(case_sensitive=True))
    assert (await desk.find("lb-1")).case_sensitive and changed.case_sensitive
    assert [e.id for e in (await desk.delete_entry(changed, "0")).entries] == ["1"]


async def test_lore_1_attaching_an_unknown_book_is_refused_and_nothing_changes() -> None:
    desk = await desk_with_book()
    assert await desk.attach("web:room", ["lb-1", "lb-1"]) == ["lb-1"]
    with pytest.raises(NotFound):
        await desk.attach("web:room", ["lb-1", "nope"])
    assert await desk.attached("web:room") == ["lb-1"]
    with pytest.raises(NotFound):
        await desk.find("nope")


async def test_lore_1_one_book_is_added_or_removed_and_the_others_stay() -> None:
    desk = await desk_with_book()
    other = await desk.save(LoreBook(name="", entries=()), "Second book")
    assert other.name == "Second book"
    assert await desk.add("tg:1", "lb-1") and await desk.add("tg:1", other.id)
    assert not await desk.add("tg:1", "nope")
    assert await desk.remove("tg:1", "lb-1") and not await desk.remove("tg:1", "lb-1")
    assert await desk.attached("tg:1") == [other.id]
