"""Every key family one multi-key operation touches lives in one Redis Cluster hash slot.

A MULTI, a Lua script or a WATCH on a cluster must keep all its keys in one slot. These are
the families the stores touch together (``storage/*``); the integration suite runs the real
operations on a 3-master cluster as well (``tests/integration/conftest.py``).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.crc import key_slot

from engine.errors import StorageUnavailable
from engine.memory.model import global_list, personal_list, space_list
from storage.keys import KeyBuilder
from storage.redis_memory import _PARTS, MemoryKeys
from storage.redis_summary import JOB_SHARDS, shard_tags
from storage.shared import LastKnown

# ids as the validators let them through: no braces (engine.validate.qualify_id)
ids = st.text(st.characters(blacklist_characters="{}", blacklist_categories=("Cs",)), min_size=1, max_size=30)
prefixes = st.sampled_from(["hearth", "hearth1", "team-a"])

# every part of a chat that a turn, a summary job or the archive writes together
CHAT_PARTS = (
    "seq", "log", "msgs", "pending", "turns", "answers", "latest", "lore_state", "lorebooks",
    "summary", "summary_v", "summary_lock", "summary_queued", "deep_reports", "tg_ids", "tg_parts",
    "archive:meta", "archive:pages", "archive:low", "archive:vecs", "images", "img:i0a1b2c3d4e5f",
    "notice:no_vision",
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


def test_the_job_queue_shards_spread_over_the_masters_of_a_cluster() -> None:
    """Issue 29: a master that fails over takes at most its share of the job queue's shards with
    it. ``redis-cli --cluster create`` gives 2, 3 or 6 masters equal slot ranges; each master of
    those layouts holds the same number of shards, so the others always hold some."""
    tags = shard_tags(JOB_SHARDS)
    assert len(set(tags)) == JOB_SHARDS
    for masters in (2, 3, 6):
        owners = [key_slot(t.encode()) * masters // 16384 for t in tags]
        assert sorted(owners) == sorted(list(range(masters)) * (JOB_SHARDS // masters)), (masters, owners)


def test_the_last_value_read_stands_in_while_its_key_is_unreachable() -> None:
    """Issue 29: a deployment-wide value read before is used while its node is unreachable; one
    never read makes the turn fail with ``storage_unavailable``; another error stays an error."""
    versions: LastKnown[str, int | None] = LastKnown("the persona's version", limit=2)
    down = StorageUnavailable("Redis is unreachable: ConnectionError")
    assert versions.result("ember", 3) == 3
    assert versions.result("ember", down) == 3
    assert versions.result("gone", None) is None
    assert versions.result("gone", down) is None  # deleted, as last read
    with pytest.raises(StorageUnavailable):
        versions.result("never", down)
    with pytest.raises(ValueError, match="bug"):
        versions.result("ember", ValueError("bug"))
    versions.keep("third", 1)  # past the limit the least recently read is forgotten
    with pytest.raises(StorageUnavailable):
        versions.result("ember", down)
