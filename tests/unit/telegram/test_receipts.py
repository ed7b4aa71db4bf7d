"""Memory receipts under Telegram replies (Issue 31, DEC-11): which saves get one and what it says."""

from __future__ import annotations

from adapters.telegram.receipts import (
    MAX_RECEIPTS,
    ReceiptButton,
    receipt_after,
    receipt_chunk,
    receipt_keyboard,
    receipt_notes,
    shows_texts,
)
from engine.notices import NoticeLevel, render_notices
from engine.requestlog import Context, MemoryNote, WindowLog
from engine.service import ReplyDone


def done(*notes: MemoryNote, level: NoticeLevel = "brief") -> ReplyDone:
    window = WindowLog(messages=0, tokens=0, budget=0, dropped=0)
    context = Context(lore=(), memories=(), window=window, tokens={}, memory_writes=notes)
    return ReplyDone(turn="t", reply="ok", context=context, notices=render_notices(notes, level))


SAVED = MemoryNote(kind="saved", id="mem-0123456789", scope="personal", text="Alice  plays\nthe oud")
FORGOT = MemoryNote(kind="forgotten", id="mem-9876543210", scope="space", text="old")


def test_only_saves_get_receipts_and_none_when_notices_are_off() -> None:
    assert receipt_notes(done(SAVED, FORGOT)) == (SAVED,)
    assert receipt_notes(done(SAVED, level="off")) == ()
    many = [MemoryNote(kind="saved", id=f"mem-{i:010d}", scope="space", text=str(i)) for i in range(5)]
    assert len(receipt_notes(done(*many))) == MAX_RECEIPTS


def test_a_receipt_quotes_the_memory_only_where_the_space_allows_it() -> None:
    assert shows_texts(done(SAVED), private=True) and shows_texts(done(SAVED, level="full"), private=False)
    assert not shows_texts(done(SAVED), private=False)
    assert receipt_chunk(SAVED, texts=True).text == "🧠 saved: “Alice plays the oud”"
    assert receipt_chunk(SAVED, texts=False).text == "🧠 saved: a personal memory"
    assert receipt_chunk(FORGOT, texts=False, group=True).text == "🧠 saved: a memory for this group"


def test_buttons_fit_telegram_and_the_receipt_says_what_they_did() -> None:
    markup = receipt_keyboard(SAVED, -1001234567890123)
    (row,) = markup.inline_keyboard
    assert [b.text for b in row] == ["Undo", "Pin"]
    assert all(len((b.callback_data or "").encode()) <= 64 for b in row)
    assert ReceiptButton.unpack(row[1].callback_data or "") == ReceiptButton(
        action="pin", memory=SAVED.id, space=-1001234567890123
    )
    assert [b.text for b in receipt_keyboard(SAVED, 5, pinned=True).inline_keyboard[0]] == ["Undo"]
    assert receipt_after("🧠 saved: “x”", "pin").text == "📌 pinned: “x”"
    assert receipt_after("📌 pinned: “x”", "undo").text == "↩️ undone: “x”"
