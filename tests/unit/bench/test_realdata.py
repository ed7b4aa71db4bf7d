"""The real-conversation converter (issue 28, bench/realdata.py) on a two-chat fixture.

RECALL-1 measurement: every recall question keeps the ids of its right memories, and the
negatives (small talk naming the people, another conversation's questions, the same question
about the other person) are derived as documented, the same way on every run.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from bench.realdata import IN_PLAY, convert, names, split_of, write

TEMPLATES = ["hey {name}!", "thanks {name}", "good night {name}", "say hi to {other}, {name}"]


def _chat(a: str, b: str, facts: list[tuple[str, str]], qa: list[dict[str, Any]]) -> dict[str, Any]:
    session_1 = [{"speaker": a, "clean_text": "hi!", "dia_id": "D1:1"}]
    session_1 += [
        {"speaker": who, "clean_text": text, "dia_id": f"D1:{n}"}
        for n, (who, text) in enumerate(facts, start=2)
    ]
    return {
        "name": {"speaker_1": a, "speaker_2": b},
        "session_1": session_1,
        "session_2": [{"speaker": b, "clean_text": "I adopted a   cat named Miso", "dia_id": "D2:1"}],
        "qa": qa,
    }


CHATS = {
    "Chat_1_Ann_bob.json": _chat(
        "Ann",
        "bob",
        [("Ann", "I ran a charity race"), ("bob", "I work as a nurse")],
        [
            {"question": "What race did Ann run?", "evidence": ["D1:2"], "category": 1},
            {
                "question": "What are Ann's and Bob's jobs and pets?",
                "evidence": ["D1:3; D2:1"],
                "category": 1,
            },
            {"question": "What did Ann send in a photo?", "evidence": ["D9:9"], "category": 2},
        ],
    ),
    "Chat_2_Cid_Dee.json": _chat(
        "Cid",
        "Dee",
        [("Dee", "I play the cello"), ("Cid", "I moved to Porto")],
        [{"question": "Where did Cid move?", "evidence": ["D1:3"], "category": 1}],
    ),
}


def _rows() -> dict[str, list[dict[str, Any]]]:
    return convert(CHATS, TEMPLATES, seed=5)


def test_questions_keep_their_right_memories_and_memories_name_the_speaker() -> None:
    """A question's right memories are its evidence turns ("D1:3; D2:1" read as two); a question
    whose evidence is not a text turn is dropped; memories exist as saved and raw."""
    rows = _rows()
    recall = {m["id"]: m for m in rows["messages"] if m["kind"] == "recall"}
    assert recall["chat01:q0"]["text"] == "What race did Ann run?"
    assert recall["chat01:q0"]["right"] == ["chat01:D1:2"]
    assert recall["chat01:q1"]["right"] == ["chat01:D1:3", "chat01:D2:1"]
    assert "chat01:q2" not in recall
    for message in recall.values():
        assert set(message["right"]) <= set(message["in_play"])
        assert len(message["in_play"]) <= IN_PLAY
        assert all(m.startswith(message["conversation"] + ":") for m in message["in_play"])
    memories = {m["id"]: m for m in rows["memories"]}
    assert memories["chat01:D2:1"]["saved"] == "Bob: I adopted a cat named Miso"
    assert memories["chat01:D2:1"]["raw"] == "I adopted a cat named Miso"
    conv = {c["id"]: c for c in rows["conversations"]}["chat01"]
    assert conv["people"] == ["Ann", "Bob"] and conv["dropped_questions"] == 1


def test_negatives() -> None:
    """Near: the question about the other person avoids the imitated memory (only for a question
    naming one person whose evidence is all theirs); small talk names the chat's people; the
    held-out chat borrows the dev chat's questions as wrong-conversation questions, never the
    other way round."""
    rows = _rows()
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for message in rows["messages"]:
        by_kind.setdefault(message["kind"], []).append(message)
    near = {m["source"]: m for m in by_kind["near"]}
    assert near["chat01:q0"]["text"] == "What race did Bob run?"
    assert near["chat01:q0"]["avoid"] == ["chat01:D1:2"] and near["chat01:q0"]["right"] == []
    assert near["chat02:q0"]["text"] == "Where did Dee move?"
    assert "chat01:q1" not in near  # names both people
    small = by_kind["small"]
    assert {m["conversation"] for m in small} == {"chat01", "chat02"}
    for message in small:
        people = {"chat01": ("Ann", "Bob"), "chat02": ("Cid", "Dee")}[message["conversation"]]
        assert any(p in message["text"] for p in people) and message["right"] == []
    split = {c["id"]: c["split"] for c in rows["conversations"]}
    assert sorted(split.values()) == ["dev", "heldout"]
    held = next(c for c, s in split.items() if s == "heldout")
    dev = next(c for c, s in split.items() if s == "dev")
    wrong = by_kind["wrong"]
    assert {m["conversation"] for m in wrong} == {held}
    dev_questions = {
        m["text"] for m in rows["messages"] if m["kind"] == "recall" and m["conversation"] == dev
    }
    assert {m["text"] for m in wrong} == dev_questions


def test_conversion_is_deterministic_and_split_keeps_people_together() -> None:
    """The same rows on every run; conversations sharing a person are in one split."""
    assert _rows() == _rows()
    people = {"a": ["Ann", "Bob"], "b": ["Bob", "Cid"], "c": ["Dee", "Eve"], "d": ["Fay", "Gus"]}
    for seed in range(6):
        split = split_of(people, seed)
        assert split["a"] == split["b"]
        assert set(split.values()) == {"dev", "heldout"}


def test_writing_keeps_the_manifests_other_data_sets(tmp_path: Path) -> None:
    """The converter rewrites its own sections of bench/data/MANIFEST.toml and keeps the other
    data sets' entries (bench/datasets.py) and the held-out look count as they were."""
    manifest = tmp_path / "MANIFEST.toml"
    others = '# Data sets read through bench/datasets.py\n[datasets."x"]\nfile = "x.jsonl"\n'
    manifest.write_text("[split]\nheldout_looks = 2\n\n" + others)
    raw = {name: json.dumps(chat).encode() for name, chat in CHATS.items()}
    table = tmp_path / "names.toml"
    table.write_text("names = []\n")
    write(raw, out=tmp_path / "realtalk", manifest=manifest, table=table)
    text = manifest.read_text()
    assert text.endswith(others) and "heldout_looks = 2" in text
    assert tomllib.loads(text)["datasets"]["x"]["file"] == "x.jsonl"
    assert (tmp_path / "realtalk" / "memories.jsonl").exists()


def _introduced() -> dict[str, dict[str, Any]]:
    """The fixture with chat01's "Ann" introducing herself as Kate and a question naming her
    by the label."""
    chats = json.loads(json.dumps(CHATS))
    chats["Chat_1_Ann_bob.json"]["session_1"][0]["clean_text"] = "hi! I'm Kate, by the way"
    return chats


def test_speakers_go_by_the_name_they_introduce() -> None:
    """A speaker who introduces herself as Kate is Kate in her saved memories, in the questions
    (asked by the label "Ann" in the data), the near questions and the small talk; the split and
    the wrong-conversation partner still follow the participant labels."""
    chats = _introduced()
    table = [{"file": "Chat_1_Ann_bob.json", "speaker": "Ann", "name": "Kate", "evidence": "D1:1"}]
    called = names(chats, table)
    assert called == {"Chat_1_Ann_bob.json": {"Ann": "Kate"}}
    rows = convert(chats, TEMPLATES, seed=5, called=called)
    plain = convert(chats, TEMPLATES, seed=5)
    memories = {m["id"]: m for m in rows["memories"]}
    assert memories["chat01:D1:2"]["saved"] == "Kate: I ran a charity race"
    assert memories["chat01:D1:2"]["speaker"] == "Kate"
    messages = {m["id"]: m for m in rows["messages"]}
    assert messages["chat01:q0"]["text"] == "What race did Kate run?"
    assert messages["chat01:q1"]["text"] == "What are Kate's and Bob's jobs and pets?"
    assert messages["chat01:q0:near"]["text"] == "What race did Bob run?"
    assert messages["chat01:q0:near"]["avoid"] == ["chat01:D1:2"]
    small = [m["text"] for m in rows["messages"] if m["kind"] == "small" and m["conversation"] == "chat01"]
    assert all("Ann" not in t for t in small) and any("Kate" in t for t in small)
    conv = {c["id"]: c for c in rows["conversations"]}["chat01"]
    assert conv["people"] == ["Kate", "Bob"] and conv["participants"] == ["Ann", "Bob"]
    keep = ("id", "split", "partner", "general")
    assert [{k: c[k] for k in keep} for c in rows["conversations"]] == [
        {k: c[k] for k in keep} for c in plain["conversations"]
    ]


def test_names_table_is_checked_against_the_chats() -> None:
    """The names table must point at the speaker's own self-introduction, and a
    self-introduction the table does not list stops the conversion."""
    chats = _introduced()
    with pytest.raises(ValueError, match="not listed"):
        names(chats, [])
    for wrong in ({"evidence": "D1:2"}, {"speaker": "bob"}, {"name": "Kim"}):
        row = {"file": "Chat_1_Ann_bob.json", "speaker": "Ann", "name": "Kate", "evidence": "D1:1"} | wrong
        with pytest.raises(ValueError, match="introducing"):
            names(chats, [row])
    assert names(CHATS, []) == {}
