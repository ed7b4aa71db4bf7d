"""DEC-16: the Mochi example, end to end over the pure functions."""

from __future__ import annotations

from datetime import datetime

from engine.memory import (
    MemoryRecord,
    ReplyMemories,
    SearchResult,
    apply_decay,
    apply_writes,
    memories_for_reply,
    memory_state,
    plan_decay,
    scopes_in_play,
)

from .helpers import POLICY, SPACE, at, by_id, hits, mem, save, turn

JUNO = "web:juno"
SCOPES = scopes_in_play(turn(JUNO))
ABOUT_GAMES = hits(("games", 0.81))


def _chat(
    records: tuple[MemoryRecord, ...], when: datetime, search: SearchResult
) -> tuple[tuple[MemoryRecord, ...], ReplyMemories]:
    """One reply in Juno's space: search, build its memories, store the counters."""
    plan = plan_decay(records, SCOPES, search, when, POLICY)
    memories = memories_for_reply(records, SCOPES, plan, when, POLICY)
    return apply_decay(records, plan), memories


def _mochi(records: tuple[MemoryRecord, ...]) -> tuple[int, str]:
    record = by_id(records, "mochi")
    return record.unused_days, memory_state(record, POLICY)


def test_dec_16_mochi() -> None:
    records: tuple[MemoryRecord, ...] = (mem("games", SPACE, text="Juno loves strategy games"),)
    records, _ = _chat(records, at(0, 9), ABOUT_GAMES)
    saved = save(records, "mochi", SPACE, text="Juno's cat is named Mochi", when=at(0, 10))
    records = apply_writes(records, saved.writes)
    records, _ = _chat(records, at(0, 11), ABOUT_GAMES)
    assert _mochi(records) == (0, "active")  # the day it is saved

    for day in range(1, 7):  # six chat days of talk about games
        for hour in (9, 14, 21):
            records, _ = _chat(records, at(day, hour), ABOUT_GAMES)
    assert _mochi(records) == (6, "active")

    # A quiet week: nobody chats, so nothing is called and nothing changes.
    assert _mochi(records) == (6, "active")

    records, memories = _chat(records, at(14, 10), ABOUT_GAMES)  # next chat day, no Mochi
    assert _mochi(records) == (7, "dormant")
    assert "mochi" in memories.stable.ids  # DEC-15: this reply was built before the switch
    records, memories = _chat(records, at(14, 11), ABOUT_GAMES)
    assert "mochi" not in memories.stable.ids

    records, memories = _chat(records, at(20, 18), hits(("mochi", 0.83)))  # "how is Mochi?"
    assert [m.record.id for m in memories.recalled] == ["mochi"]
    assert "mochi" not in memories.stable.ids
    assert _mochi(records) == (0, "active")
    assert by_id(records, "mochi").last_matched_at == at(20, 18)
    _, memories = _chat(records, at(20, 19), ABOUT_GAMES)
    assert "mochi" in memories.stable.ids
