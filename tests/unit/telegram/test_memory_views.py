"""How memory commands look in Telegram (MEM-1, MEM-5, MEM-9, DEC-10, DEC-11, SUM-4): pure parts."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from aiogram.types import InlineKeyboardMarkup
from hypothesis import given
from hypothesis import strategies as st

from adapters.telegram.delivery import notice_footer
from adapters.telegram.memory_views import (
    PER_PAGE,
    Listing,
    MemoryButton,
    forgot_text,
    listing_chunk,
    listing_keyboard,
    ordered,
    plural,
    saved_text,
)
from adapters.telegram.render import MAX_MESSAGE_CHARS, Chunk, Entity, utf16_len, with_footer
from adapters.telegram.routers.clear import ClearButton, first_question
from adapters.telegram.routers.notices import NoticeButton, showing
from adapters.telegram.routers.privacy import PrivacyButton, status
from adapters.telegram.routers.remember import ForgetChoice
from adapters.telegram.routers.summary import summary_chunks
from adapters.telegram.texts import COMMANDS, LANGUAGES, help_text, menu
from engine.memory import MemoryPolicy, MemoryRecord, SavePlan
from engine.summary import SummaryState, Tier

NOW = datetime(2027, 3, 1, 12, tzinfo=UTC)
POLICY = MemoryPolicy()
GROUP = -1001234567890123  # longer than any real chat id
WORST_ID = "mem-0123456789"


def mem(n: int, text: str = "", **fields: Any) -> MemoryRecord:
    at = NOW - timedelta(hours=n)
    record = MemoryRecord(
        id=f"mem-{n:010d}",
        persona="default",
        scope="space",
        space=f"tg:{GROUP}",
        text=text or f"fact {n}",
        created_at=at,
        updated_at=at,
    )
    return msgspec.structs.replace(record, **fields)


def extract(chunk: Chunk, entity: Entity) -> str:
    raw = chunk.text.encode("utf-16-le")[entity.offset * 2 : (entity.offset + entity.length) * 2]
    return raw.decode("utf-16-le")


def datas(markup: InlineKeyboardMarkup | None) -> list[str]:
    assert markup is not None
    return [b.callback_data or "" for row in markup.inline_keyboard for b in row]


def test_plt_3_every_callback_data_fits_64_bytes_in_the_worst_case() -> None:
    packed = [
        MemoryButton(action="unpin", view="p", space=GROUP, page=999, memory=WORST_ID).pack(),
        ClearButton(step="pinned", view="p", space=GROUP, owner=9_999_999_999).pack(),
        ForgetChoice(memory=WORST_ID).pack(),
        PrivacyButton(on=False, owner=9_999_999_999).pack(),
        NoticeButton(level="brief").pack(),
    ]
    assert max(len(p.encode()) for p in packed) <= 64


def test_mem_5_pinned_first_then_most_recently_updated() -> None:
    records = [mem(3), mem(1), mem(2, pinned=True), mem(0)]
    assert [r.id for r in ordered(records)] == [mem(2).id, mem(0).id, mem(1).id, mem(3).id]


def test_mem_1_a_page_shows_eight_entries_with_ids_in_code_and_marks() -> None:
    records = ordered([mem(0, pinned=True), mem(1, unused_days=7), *(mem(n) for n in range(2, 12))])
    listing = Listing(view="s", space=GROUP, title="Memories of this group", records=records)
    chunk = listing_chunk(listing, POLICY)
    assert chunk.text.startswith(
        "Memories of this group\n12 memories · 1 pinned · page 1 of 2\n\n1. 📌 fact 0 "
    )
    assert "2. 💤 fact 1 " in chunk.text and "8. fact 7" in chunk.text and "fact 8" not in chunk.text
    codes = [extract(chunk, e) for e in chunk.entities if e.type == "code"]
    assert codes == [r.id for r in records[:PER_PAGE]]
    assert chunk.text.endswith("💤 dormant: comes back when mentioned")
    keyboard = listing_keyboard(listing)
    assert keyboard is not None
    labels = [[b.text for b in row] for row in keyboard.inline_keyboard]
    assert labels[0] == ["Unpin 1", "🗑 Forget 1"] and labels[1] == ["📌 Pin 2", "🗑 Forget 2"]
    assert labels[-1] == ["2 ▶"] and len(labels) == PER_PAGE + 1


def test_mem_1_the_last_page_turns_back_and_an_empty_list_has_no_buttons() -> None:
    records = ordered([mem(n) for n in range(9)])
    listing = Listing(view="p", space=42, title="Yours", records=records, page=1)
    chunk = listing_chunk(listing, POLICY)
    assert "9. fact 8 (here) mem-0000000008" in chunk.text
    assert [MemoryButton.unpack(d).action for d in datas(listing_keyboard(listing))] == [
        "pin",
        "forget",
        "page",
    ]
    empty = Listing(view="s", space=42, title="Memories of this chat", records=(), empty="Nothing.")
    assert listing_chunk(empty, POLICY).text == "Memories of this chat\n\nNothing."
    assert listing_keyboard(empty) is None


@given(texts=st.lists(st.text(min_size=1, max_size=500).filter(str.strip), min_size=1, max_size=20))
def test_plt_3_any_page_fits_one_message_and_its_entities_stay_in_range(texts: list[str]) -> None:
    records = ordered([mem(n, text=t, pinned=n % 3 == 0) for n, t in enumerate(texts)])
    chunk = listing_chunk(
        Listing(view="p", space=GROUP, title="What I remember about you", records=records), POLICY
    )
    size = utf16_len(chunk.text)
    assert size <= MAX_MESSAGE_CHARS and chunk.text == chunk.text.strip()
    assert all(e.length > 0 and e.offset + e.length <= size for e in chunk.entities)
    assert [extract(chunk, e) for e in chunk.entities if e.type == "code"] == [
        r.id for r in records[:PER_PAGE]
    ]


def test_dec_11_remember_confirmations_follow_the_notice_level() -> None:
    plan = SavePlan(record=mem(0, text="Juno's cat is Mochi"), forgotten=mem(1, text="The old well"))
    assert saved_text(plan, "full", "for this chat") == (
        "🧠 Saved (for this chat): “Juno's cat is Mochi”\nForgot to make room: “The old well”"
    )
    assert saved_text(plan, "brief", "for this chat") == (
        "🧠 Saved (for this chat). To make room I forgot 1 older memory that had gone dormant."
    )
    assert saved_text(plan, "off", "for this chat") == "🧠 Saved (for this chat)."
    assert forgot_text([mem(0, text="Pip")], "full") == "🧠 Forgot: “Pip”"
    assert forgot_text([mem(0, text="Pip")], "brief") == forgot_text([mem(0)], "off") == "🧠 Forgot 1 memory."
    assert (plural(1), plural(2), plural(3, "message")) == ("1 memory", "2 memories", "3 messages")


def test_dec_11_notices_become_an_italic_footer_joined_or_on_their_own() -> None:
    footer = notice_footer(("Saved 1 memory.",))
    assert footer == "🧠 Saved 1 memory." and notice_footer(()) is None
    (joined,) = with_footer((Chunk(text="Hi 👋"),), footer)
    assert joined.text == "Hi 👋\n\n🧠 Saved 1 memory." and extract(joined, joined.entities[0]) == footer
    full = Chunk(text="x" * (MAX_MESSAGE_CHARS - 5))
    assert with_footer((full,), footer) == (
        full,
        Chunk(text=footer, entities=(Entity(type="italic", offset=0, length=18),)),
    )


def test_mem_9_clear_asks_first_about_unpinned_then_separately_about_pinned() -> None:
    text, markup = first_question("s", GROUP, 0, [mem(0), mem(1), mem(2, pinned=True)])
    assert text == (
        "Forget 2 unpinned memories of this group? This cannot be undone. "
        "The 1 pinned stay unless you confirm that separately."
    )
    assert [ClearButton.unpack(d).step for d in datas(markup)] == ["all", "keep"]
    text, markup = first_question("p", 42, 42, [mem(0, pinned=True)])
    assert (
        text
        == "1 pinned memory about you (this chat's and Global) is left. Delete it too? This cannot be undone."
    )
    assert [ClearButton.unpack(d).step for d in datas(markup)] == ["pinned", "keep"]
    assert first_question("s", GROUP, 0, []) == ("There are no memories here to clear.", None)


def test_dec_10_privacy_and_notice_levels_show_their_buttons() -> None:
    text, markup = status("Alice", 42, opted_out=False)
    assert text.startswith("🔓 Personal memory is on for Alice")
    assert PrivacyButton.unpack(datas(markup)[0]) == PrivacyButton(on=False, owner=42)
    text, markup = status("Alice", 42, opted_out=True)
    assert text.startswith("🔒") and PrivacyButton.unpack(datas(markup)[0]).on is True
    text, markup = showing("brief")
    assert text.splitlines()[0] == "Memory notices here: brief." and "✓ brief — " in text
    assert [NoticeButton.unpack(d).level for d in datas(markup)] == ["off", "brief", "full"]


def test_sum_4_summary_lists_tiers_oldest_level_first_and_the_waiting_count() -> None:
    def tier(level: str, text: str) -> Tier:
        return Tier(id=text, level=level, text=text, first=0, last=1, messages=4, created_at=NOW)  # type: ignore[arg-type]

    state = SummaryState(tiers=(tier("recent", "R1"), tier("long_term", "L1"), tier("merged", "M1")))
    (chunk,) = summary_chunks(state, 1)
    assert chunk.text == (
        "Summaries of this conversation\n\nLong-term memory (1)\n• L1\n\nMerged summaries (1)\n• M1"
        "\n\nRecent summaries (1)\n• R1\n\n1 message left my live window and is waiting to be summarized."
    )
    assert [extract(chunk, e) for e in chunk.entities] == [
        "Summaries of this conversation",
        "Long-term memory (1)",
        "Merged summaries (1)",
        "Recent summaries (1)",
    ]
    long = SummaryState(tiers=tuple(tier("long_term", "y" * 2000) for _ in range(4)))
    assert len(summary_chunks(long, 0)) >= 2


def test_plt_3_the_menu_is_valid_in_every_language_and_help_fits() -> None:
    for language in ("", *LANGUAGES):
        entries = menu(language)
        assert [c for c, _ in entries] == list(COMMANDS)
        assert all(re.fullmatch(r"[a-z0-9_]{1,32}", c) and 1 <= len(d) <= 256 for c, d in entries)
    assert utf16_len(help_text("Ember", "hearth_bot")) < MAX_MESSAGE_CHARS
