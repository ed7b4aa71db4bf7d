"""The recall development set: multi-day chats between named people, five languages (RECALL-1).

Generated with fixed seeds, on the fly (nothing to keep in sync): ``build()`` returns the same
conversations on every run and every machine. Four parts per language, each of 2 pairs of
conversations (``PAIRS``) — five since round 8:

* ``dev`` and ``heldout1`` from the data sets ``recall/templates_<lang>``: development wording,
  and the wording that was the held-out split in rounds 1-6 (generated exactly as then);
* ``fresh1`` to ``fresh5`` from ``recall/fresh<n>_<lang>``: sets of templates written blind,
  with other fact kinds, by authors who saw none of the rest. ``fresh1`` to ``fresh4`` were
  each the held-out split for one look (rounds 7-10).

``fresh5`` is the ``heldout`` split, the other six the ``dev`` split (the one tuning looks at).
Templates and seeds come from ``bench/data/`` through ``bench/datasets.py`` (the seeds are the
manifest's ``seed`` of each set).

Each conversation is between 4 named people with 12 memories (3 per person, one of each fact
kind of its table), as a model saves them ("Juno's cat is called Mochi"). Conversations come
in pairs with disjoint people and values; the partner's questions are the *wrong-conversation*
negatives. A conversation runs over days:

* days 1-4: chat in which the facts come up (3 a day) among small talk — the archive pages;
* days 5-11: small talk only, naming the same people (every memory goes dormant, DEC-5/6);
* day 12 on: ``recall`` messages (per memory: 2 in ``dev``/``heldout1``, 4 in the fresh
  parts), each meant to bring back one memory, and ``near_miss`` messages (1, or 2 in the
  fresh parts: the same question about another person of the chat, who has no such memory),
  mixed with small talk.

``dev`` conversations also get the ``recall/dev_only_<lang>`` messages (round 4: 4 more recall messages
and 1 more near-miss per memory, more small talk), after all the rest and from a random
generator of their own.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from typing import Any, Literal

import msgspec

from bench import datasets

__all__ = [
    "FRESH_SEEDS",
    "SEED",
    "Conversation",
    "Memory",
    "Message",
    "build",
    "conversations",
    "heldout_digest",
]

LANGUAGES = ("en", "ru", "pt", "vi", "he")
SEED = datasets.seed("recall/templates_en")
PAIRS = 2  # conversation pairs per language and part
FRESH_SEEDS = {
    part: datasets.seed(f"recall/{part}_en") for part in ("fresh1", "fresh2", "fresh3", "fresh4", "fresh5")
}
"""The parts written blind, by name, and the seed each is generated with."""
HELDOUT = "fresh5"
"""The part that is the ``heldout`` split (``fresh4`` in round 10, ``fresh3`` in round 9, ``fresh2``
in round 8, ``fresh1`` in round 7)."""
PEOPLE = 4
STATEMENT_DAYS = 4
QUIET_DAYS = 7
SMALL_PER_DAY = 6

Kind = Literal["statement", "small", "recall", "near_miss"]
Split = Literal["dev", "heldout"]


class Memory(msgspec.Struct, frozen=True, kw_only=True):
    """One saved memory of a conversation."""

    id: str
    fact: str
    person: str
    value: str
    text: str


class Message(msgspec.Struct, frozen=True, kw_only=True):
    """One chat message; ``target`` is the memory a recall/statement is about, or the
    same-topic memory of *another* person a near-miss must not bring back."""

    day: int
    speaker: str
    text: str
    kind: Kind
    target: str | None = None


class Conversation(msgspec.Struct, frozen=True, kw_only=True):
    """A multi-day chat, its memories, and the conversation its negatives come from."""

    id: str
    lang: str
    split: Split
    part: str
    partner: str
    people: tuple[str, ...]
    memories: tuple[Memory, ...]
    messages: tuple[Message, ...]

    def of_kind(self, kind: Kind) -> Iterator[Message]:
        """The messages of one kind, in order."""
        return (m for m in self.messages if m.kind == kind)


def _table(kind: str, lang: str) -> dict[str, Any]:
    """The templates of one part (``templates``, ``dev_only``, ``fresh<n>``) and language."""
    table: dict[str, Any] = datasets.load(f"recall/{kind}_{lang}")
    return table


def _russian_cases(name: str) -> dict[str, str]:
    """Genitive, dative and accusative of a Russian first-declension name (Оля → Оли, Оле, Олю)."""
    stem, end = name[:-1], name[-1]
    soft = end == "я" or stem[-1] in "гкхжчшщ"
    acc = stem + ("ю" if end == "я" else "у")
    return {"gen": stem + ("и" if soft else "ы"), "dat": stem + "е", "acc": acc}


def _slots(lang: str, role: str, name: str) -> dict[str, str]:
    slots = {role: name}
    if lang == "ru":
        cases = _russian_cases(name)
        slots |= {f"{role}_{case}": form for case, form in cases.items()}
    return slots


def _fill(template: str, lang: str, person: str, value: str = "", other: str = "") -> str:
    slots = {"v": value, **_slots(lang, "p", person), **_slots(lang, "o", other or person)}
    text = template.format(**slots)
    return text[0].upper() + text[1:] if template.startswith("{") and lang != "he" else text


class _Wording(msgspec.Struct, frozen=True, kw_only=True):
    """Which templates of a table a conversation uses: recall questions and near-misses by
    index, its small talk, and whether the ``dev_only`` messages follow."""

    table: dict[str, Any]
    questions: tuple[int, ...]
    nears: tuple[int, ...]
    small: list[str]
    dev_only: bool = False


def _wording(lang: str, part: str) -> _Wording:
    """The wording of one part of the set: ``dev`` and ``heldout1`` (the held-out split of
    rounds 1-6, folded into development in round 7) from ``recall/templates_<lang>``; the fresh
    parts from ``recall/fresh<n>_<lang>``."""
    if part in FRESH_SEEDS:
        table = _table(part, lang)
        return _Wording(table=table, questions=(0, 1, 2, 3), nears=(0, 1), small=table["small"])
    table = _table("templates", lang)
    half = len(table["small"]) // 2
    if part == "dev":
        return _Wording(table=table, questions=(0, 1), nears=(0,), small=table["small"][:half], dev_only=True)
    return _Wording(table=table, questions=(2, 3), nears=(1,), small=table["small"][half:])


def _conversation(
    rng: random.Random,
    cid: str,
    lang: str,
    split: Split,
    part: str,
    partner: str,
    people: list[str],
    values: dict[str, str],
) -> Conversation:
    wording = _wording(lang, part)
    table = wording.table
    facts = list(table["facts"])
    rng.shuffle(facts)
    owners = {fact: people[i % PEOPLE] for i, fact in enumerate(facts)}
    memories = tuple(
        Memory(
            id=f"{cid}-m{i:02d}",
            fact=fact,
            person=owners[fact],
            value=values[fact],
            text=_fill(table["facts"][fact]["memory"], lang, owners[fact], values[fact]),
        )
        for i, fact in enumerate(facts)
    )
    small = wording.small

    def chatter(day: int, n: int) -> list[Message]:
        out = []
        for _ in range(n):
            speaker, named = rng.sample(people, 2)
            out.append(
                Message(day=day, speaker=speaker, text=_fill(rng.choice(small), lang, named), kind="small")
            )
        return out

    messages: list[Message] = []
    for day in range(1, STATEMENT_DAYS + 1):
        todays = memories[(day - 1) * 3 : day * 3]
        lines = chatter(day, SMALL_PER_DAY)
        for memory in todays:
            speaker = rng.choice([p for p in people if p != memory.person])
            lines.insert(
                rng.randrange(len(lines) + 1),
                Message(day=day, speaker=speaker, text=memory.text, kind="statement", target=memory.id),
            )
        messages.extend(lines)
    for day in range(STATEMENT_DAYS + 1, STATEMENT_DAYS + QUIET_DAYS + 1):
        messages.extend(chatter(day, SMALL_PER_DAY))
    asks: list[Message] = []
    first = STATEMENT_DAYS + QUIET_DAYS + 1
    for memory in memories:
        questions = table["facts"][memory.fact]["recall"]
        for q in wording.questions:
            text = _fill(questions[q], lang, memory.person, memory.value)
            asks.append(Message(day=first, speaker="?", text=text, kind="recall", target=memory.id))
        for near in wording.nears:
            other = rng.choice([p for p in people if p != memory.person])
            text = _fill(table["facts"][memory.fact]["near"][near], lang, memory.person, other=other)
            asks.append(Message(day=first, speaker="?", text=text, kind="near_miss", target=memory.id))
    rng.shuffle(asks)
    for i, ask in enumerate(asks):
        day = first + i // 12
        speaker = rng.choice(people)
        messages.append(msgspec.structs.replace(ask, day=day, speaker=speaker))
        if i % 4 == 3:
            messages.extend(chatter(day, 1))
    if wording.dev_only:  # after everything above, from a generator of its own: the rest stays as it was
        messages.extend(_dev_only(random.Random(f"dev-only:{cid}"), lang, people, memories, day + 1))
    return Conversation(
        id=cid,
        lang=lang,
        split=split,
        part=part,
        partner=partner,
        people=tuple(people),
        memories=memories,
        messages=tuple(messages),
    )


def _dev_only(
    rng: random.Random, lang: str, people: list[str], memories: Sequence[Memory], first: int
) -> list[Message]:
    """The development-only messages (``recall/dev_only_<lang>``, round 4): every extra recall
    message and near-miss of each memory, shuffled, one extra small-talk line after every second."""
    table = _table("dev_only", lang)
    asks: list[Message] = []
    for memory in memories:
        questions, nears = table["facts"][memory.fact]["recall"], table["facts"][memory.fact]["near"]
        for question in questions:
            text = _fill(question, lang, memory.person, memory.value)
            asks.append(Message(day=first, speaker="?", text=text, kind="recall", target=memory.id))
        for near in nears:
            other = rng.choice([p for p in people if p != memory.person])
            text = _fill(near, lang, memory.person, other=other)
            asks.append(Message(day=first, speaker="?", text=text, kind="near_miss", target=memory.id))
    rng.shuffle(asks)
    out: list[Message] = []
    for i, ask in enumerate(asks):
        day = first + i // 12
        out.append(msgspec.structs.replace(ask, day=day, speaker=rng.choice(people)))
        if i % 2 == 1:
            speaker, named = rng.sample(people, 2)
            text = _fill(rng.choice(table["small"]), lang, named)
            out.append(Message(day=day, speaker=speaker, text=text, kind="small"))
    return out


def build(seed: int = SEED) -> tuple[Conversation, ...]:
    """Every conversation of the set, in a fixed order (language, part, pair, member): the
    parts ``dev`` and ``heldout1`` from ``seed`` (generated exactly as in rounds 4-6), then
    the fresh parts from their own seeds (``FRESH_SEEDS``). ``HELDOUT`` is the ``heldout``
    split, the rest ``dev``."""
    rng = random.Random(seed)
    out: list[Conversation] = []
    for lang in LANGUAGES:
        for part in ("dev", "heldout1"):
            out += _pairs(rng, lang, _table("templates", lang), part, "dev")
    for part, part_seed in FRESH_SEEDS.items():
        fresh = random.Random(part_seed)
        for lang in LANGUAGES:
            out += _pairs(fresh, lang, _table(part, lang), part, "heldout" if part == HELDOUT else "dev")
    return tuple(out)


def _pairs(
    rng: random.Random, lang: str, table: dict[str, Any], part: str, split: Split
) -> list[Conversation]:
    """``PAIRS`` pairs of conversations of one part with disjoint people and values."""
    out = []
    for pair in range(PAIRS):
        names = rng.sample(table["names"], 2 * PEOPLE)
        picked = {f: rng.sample(spec["values"], 2) for f, spec in table["facts"].items()}
        ids = [f"{lang}-{part}-{pair}{side}" for side in "ab"]
        for side in range(2):
            out.append(
                _conversation(
                    rng,
                    ids[side],
                    lang,
                    split,
                    part,
                    ids[1 - side],
                    names[side * PEOPLE : (side + 1) * PEOPLE],
                    {f: v[side] for f, v in picked.items()},
                )
            )
    return out


def conversations(split: Split | None = None, lang: str | None = None) -> list[Conversation]:
    """The conversations of one split and/or language."""
    return [c for c in build() if (split is None or c.split == split) and (lang is None or c.lang == lang)]


def heldout_digest() -> str:
    """sha256 of every held-out conversation (memories and messages) as JSON lines: the same
    digest means the held-out split is generated exactly as recorded in docs/RECALL.md (round 8)."""
    lines = [msgspec.json.encode(c).decode() for c in build() if c.split == "heldout"]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


if __name__ == "__main__":
    print("held-out digest", heldout_digest())
    for conv in build():
        kinds = {k: sum(1 for _ in conv.of_kind(k)) for k in ("statement", "small", "recall", "near_miss")}
        print(conv.id, conv.people, kinds)
    sample = build()[0]
    for m in sample.memories[:3]:
        print(" ", m.text)
    for msg in sample.messages[-8:]:
        print(" ", msg.day, msg.kind, msg.speaker, "|", msg.text)
