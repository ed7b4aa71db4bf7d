"""Every key family one multi-key operation touches lives in one Redis Cluster hash slot.

A MULTI, a Lua script or a WATCH on a cluster must keep all its keys in one slot. These are
the families the stores touch together (``storage/*``); the integration suite runs the real
operations on a 3-master cluster as well (``tests/integration/conftest.py``).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from redis.crc import key_slot

from engine.memory.model import global_list, personal_list, space_list
from storage.keys import KeyBuilder
from storage.redis_memory import _PARTS, MemoryKeys

# ids as the validators let them through: no braces (engine.validate.qualify_id)
ids = st.text(st.characters(blacklist_characters="{}", blacklist_categories=("Cs",)), min_size=1, max_size=30)
prefixes = st.sampled_from(["hearth", "hearth1", "team-a"])

# every part of a chat that a turn, a summary job or the archive writes together
CHAT_PARTS = (
    "seq", "log", "msgs", "pending", "turns", "answers", "latest", "lore_state", "lorebooks",
    "summary", "summary_v", "summary_lock", "summary_queued", "deep_reports", "tg_ids", "tg_parts",
    "archive:meta", "archive:pages", "archive:low", "archive:vecs",
)  # fmt: skip


def slots(*keys: str) -> set[int]:
    return {key_slot(k.encode()) for k in keys}


@given(prefixes, ids)
def test_a_chats_keys_its_lock_and_request_logs_share_one_slot(prefix: str, chat: str) -> None:
    k = KeyBuilder(prefix=prefix)
    together = [k.chat(chat, p) for p in CHAT_PARTS]
    together += [k.lock(chat), k.request_log(chat, "t1"), k.room_owner(chat)]
    assert len(slots(*together)) == 1


@given(prefixes, ids, ids)
def test_lorebooks_and_their_index_share_one_slot(prefix: str, book: str, other: str) -> None:
    """A save writes a book and the index in one MULTI; a turn MGETs several books' versions."""
    k = KeyBuilder(prefix=prefix)
    together = [k.lorebook(b, p) for b in (book, other) for p in ("data", "version")] + [k.lorebooks()]
    assert len(slots(*together)) == 1


@given(prefixes, ids, ids, ids)
def test_each_memory_list_keeps_its_parts_in_one_slot(
    prefix: str, persona: str, owner: str, space: str
) -> None:
    keys = MemoryKeys(keys=KeyBuilder(prefix=prefix))
    for scope in (space_list(persona, space), personal_list(persona, owner, space), global_list(owner)):
        assert len(slots(*keys.parts(scope, *_PARTS))) == 1


def test_different_chats_spread_over_the_cluster() -> None:
    """Control: the tag is the chat, not a constant, so chats do not pile onto one node."""
    k = KeyBuilder()
    assert len(slots(*(k.chat(f"web:room{i}", "log") for i in range(50)))) > 40
