"""Contract: ``LoreSource`` behaves alike on the fake and on Redis."""

from __future__ import annotations

import msgspec
import pytest

from engine.lorebook import LoreBook, LoreEntry, LoreState
from tests.contract.stores import Stores

pytestmark = pytest.mark.contract

CHAT = "web:lore"


def book(name: str, *contents: str) -> LoreBook:
    entries = tuple(LoreEntry(id=f"e{i}", keys=("dragon",), content=c) for i, c in enumerate(contents))
    return LoreBook(id=f"lb-{name}", name=name, entries=entries)


async def test_attached_books_compile_per_version(stores: Stores) -> None:
    books = stores.books()
    lore = stores.lore()
    assert (await lore.attached(CHAT), await lore.state(CHAT)) == ([], LoreState())
    await books.put(book("north", "Dragons sleep in the north."))
    await books.put(book("south", "Dragons fly south."))
    await books.attach(CHAT, ["lb-south", "lb-north", "lb-gone"])
    assert await lore.attached(CHAT) == ["lb-south", "lb-north", "lb-gone"]
    compiled = await lore.compiled(await lore.attached(CHAT))
    assert [c.id for c in compiled] == ["lb-south", "lb-north"]
    await books.put(msgspec.structs.replace(book("north", "Dragons left."), id="lb-north"))
    again = await lore.compiled(["lb-north"])
    assert [e.text for e in again[0].entries] == ["Dragons left."]
    assert await lore.compiled([]) == []


async def test_a_stored_book_past_a_later_limit_is_left_out_until_edited(
    stores: Stores, caplog: pytest.LogCaptureFixture
) -> None:
    """A book stored before the key-length limit (issue 29) does not fail the chats it is
    attached to: their scans leave it out, a warning names it, and editing it brings it back."""
    books, lore = stores.books(), stores.lore()
    await books.put(book("north", "Dragons sleep in the north."))
    long_key = LoreEntry(id="e9", keys=("x" * 2_000,), content="Never read.")
    past = msgspec.structs.replace(book("old", "Old lore."), entries=(long_key,))
    await books.put(past)
    with caplog.at_level("WARNING", logger="hearth.lore"):
        compiled = await lore.compiled(["lb-old", "lb-north"])
    assert [c.id for c in compiled] == ["lb-north"]
    assert "lb-old" in caplog.text
    await books.put(book("old", "Old lore, within limits."))
    assert [c.id for c in await lore.compiled(["lb-old", "lb-north"])] == ["lb-old", "lb-north"]


async def test_a_new_book_gets_an_id(stores: Stores) -> None:
    books = stores.books()
    stored = await books.put(LoreBook(id="", name="Fresh"))
    assert stored.id.startswith("lb-")
    assert await books.get(stored.id) == stored
