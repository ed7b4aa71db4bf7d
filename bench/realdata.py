"""Real multi-session conversations for recall (issue 28): REALTALK converted to memories,
questions and negatives.

Usage (repository root)::

    .venv/bin/python bench/realdata.py              # raw files -> bench/data/realtalk/*.jsonl

Source: REALTALK (Lee et al. 2025, arXiv 2502.13270), 10 chats of 21 days between real people
on a messaging app, with memory-probing questions whose evidence turns are annotated
(``data/Chat_*.json`` of github.com/danny911kr/REALTALK at ``COMMIT``; the ``data/locomo``
files of that repository are LoCoMo and are never read). The raw files are looked for in
``bench/.cache/realtalk/`` (ignored by git); missing ones are read from a git copy of the
repository (``--git-dir``, default the mirror path of the development machine) or downloaded
from ``RAW_URL``; failing all three, the script says where to put them. The repository states no
licence, so the converted files are not committed: ``bench/data/MANIFEST.toml`` records the
digests of the raw and converted files and the split, and this script rebuilds the rest.

Names: the data files name a speaker by a participant label; where the speaker introduces
themselves by another name ("I'm Kate", "My name is Liza"), ``bench/data/realdata_names.toml``
gives that name with the self-introduction's turn. Memories, questions (a question naming the
label is asked with the name, as a user of the chat would ask it), near questions and small talk
use the name; the split and the wrong-conversation partner follow the labels (``participants``),
so one participant stays on one side. ``names`` checks the table against the chats: each entry's
turn is the speaker's introduction of that name, and every introduction ``INTRODUCTION`` finds
is listed (or gives the label itself).

Per conversation (``convert``, deterministic, seed ``SEED``):

* **memories**, one per evidence turn of any question, in two variants: ``saved`` — the turn
  as a model would save it, in the third person with the speaker's name: the turn text
  prefixed with the speaker's name ("Vanessa: I study law here in Orlando ..."; whole turn, no
  rewriting, so nothing depends on a model) — and ``raw``, the turn text alone; ``created``:
  the turn's time (ISO 8601, UTC), when its memory was saved;
* **recall** messages: the dataset's questions, each with the ids of its right memories (its
  evidence turns) and ``IN_PLAY`` memories in play: the right ones plus others of the same
  conversation (seeded sample of the other evidence turns, then of its other turns);
* **small** talk naming the chat's people (``SMALL_PER_CONVERSATION`` messages from the
  templates of ``bench/data/realdata_smalltalk.toml``) against the conversation's general
  list (a seeded sample of ``IN_PLAY`` of its memories);
* **wrong**-conversation questions: every question of the *partner* conversation (the next
  one, in id order, that shares no person with it: dev never borrows a held-out question)
  against the general list;
* **near** (same topic, other person): a question naming exactly one of the two people, all
  of whose evidence turns are that person's, asked about the other person instead ("What
  sports does Vanessa watch?" -> "What sports does Kevin watch?"), against the question's own
  list; ``avoid`` holds the memories it imitates (using one is a miss).

Every message has ``at``, the time it is asked: its conversation's last turn (ISO 8601).

Split: conversations that share a person are kept together (connected groups by people); a
seeded shuffle of the groups gives the held-out split the first groups until it holds at
least ``HELDOUT_SHARE`` of the conversations; the rest is dev.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import random
import re
import subprocess
import sys
import tomllib
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / ".cache" / "realtalk"
OUT = ROOT / "bench" / "data" / "realtalk"
MANIFEST = ROOT / "bench" / "data" / "MANIFEST.toml"
SMALL_TALK = ROOT / "bench" / "data" / "realdata_smalltalk.toml"
NAMES = ROOT / "bench" / "data" / "realdata_names.toml"
REPOSITORY = "https://github.com/danny911kr/REALTALK"
COMMIT = "b903e06a9770bf4e5fe9018c3e132889666d3b4a"
RAW_URL = f"https://raw.githubusercontent.com/danny911kr/REALTALK/{COMMIT}/data/{{name}}"
GIT_DIR = Path("/work/.mirror/danny911kr+REALTALK/repo")
FILES = (
    "Chat_1_Emi_Elise.json",
    "Chat_2_Kevin_Elise.json",
    "Chat_3_Kevin_Paola.json",
    "Chat_4_Emi_Paola.json",
    "Chat_5_Nicolas_Nebraas.json",
    "Chat_6_Vanessa_Nicolas.json",
    "Chat_7_Nebraas_Vanessa.json",
    "Chat_8_Akib_Muhhamed.json",
    "Chat_9_Fahim_Akib.json",
    "Chat_10_Fahim_Muhhamed.json",
)
SEED = 28
IN_PLAY = 100
SMALL_PER_CONVERSATION = 20
HELDOUT_SHARE = 0.3
_SESSION = re.compile(r"session_(\d+)")
INTRODUCTION = re.compile(r"\b(?:[Mm]y name is|[Mm]y name['’]s|I['’]m|I am|[Cc]all me)\s+([A-Z][a-z]+)\b")
"""A self-introduction ("I'm Kate", "My name is Liza"); group 1 is the name."""


def fetch(cache: Path = CACHE, git_dir: Path | None = GIT_DIR) -> dict[str, bytes]:
    """The raw files by name: from ``cache``, else a git copy, else ``RAW_URL`` (kept in ``cache``)."""
    cache.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in FILES:
        path = cache / name
        if not path.exists():
            path.write_bytes(_from_git(name, git_dir) or _download(name) or _missing(name, cache))
        out[name] = path.read_bytes()
    return out


def _from_git(name: str, git_dir: Path | None) -> bytes | None:
    if git_dir is None or not git_dir.exists():
        return None
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{COMMIT}:data/{name}"], capture_output=True, check=False
    )
    return done.stdout if done.returncode == 0 else None


def _download(name: str) -> bytes | None:
    try:
        with urllib.request.urlopen(RAW_URL.format(name=name), timeout=30) as response:
            return bytes(response.read())
    except OSError:
        return None


def _missing(name: str, cache: Path) -> bytes:
    sys.exit(
        f"{name}: not in {cache}, no git copy and no download. Put the REALTALK data files there:\n"
        f"  git clone {REPOSITORY} && git -C REALTALK checkout {COMMIT}\n"
        f"  cp REALTALK/data/Chat_*.json {cache}/"
    )


def person(name: str) -> str:
    """A speaker's display name: as written, the first letter in upper case ("elise" -> "Elise")."""
    name = " ".join(name.split())
    return name[:1].upper() + name[1:]


def _text(turn: Mapping[str, Any]) -> str:
    return " ".join(str(turn.get("clean_text") or turn.get("text") or "").split())


def names(
    chats: Mapping[str, Mapping[str, Any]], table: Sequence[Mapping[str, str]]
) -> dict[str, dict[str, str]]:
    """``{file: {label: name}}`` from the rows of ``realdata_names.toml``, checked against the
    chats; raises ``ValueError`` naming the row or turn that disagrees."""
    out: dict[str, dict[str, str]] = {}
    for row in table:
        by_turn = {t["dia_id"]: t for t in turns(chats[row["file"]])} if row["file"] in chats else {}
        turn = by_turn.get(row["evidence"])
        said = [] if turn is None else [m.group(1) for m in INTRODUCTION.finditer(_text(turn))]
        if turn is None or person(turn["speaker"]) != person(row["speaker"]) or row["name"] not in said:
            raise ValueError(f"{row}: {row['evidence']} is not {row['speaker']} introducing {row['name']}")
        out.setdefault(row["file"], {})[person(row["speaker"])] = row["name"]
    for file, chat in chats.items():
        for turn in turns(chat):
            label = person(turn["speaker"])
            for match in INTRODUCTION.finditer(_text(turn)):
                if match.group(1) not in (label.split()[0], out.get(file, {}).get(label)):
                    raise ValueError(f"{file} {turn['dia_id']}: {label} says {match.group(0)!r}, not listed")
    return out


def conversation_id(file: str) -> str:
    """``Chat_3_Kevin_Paola.json`` -> ``chat03``."""
    return f"chat{int(file.split('_')[1]):02d}"


def turns(chat: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every turn of a chat in session order, each with its session number."""
    sessions = sorted((int(m.group(1)), k) for k in chat if (m := _SESSION.fullmatch(k)))
    return [dict(t, session=n) for n, key in sessions for t in chat[key]]


def split_of(people: Mapping[str, Sequence[str]], seed: int = SEED) -> dict[str, str]:
    """``dev`` or ``heldout`` per conversation: groups sharing a person stay together."""
    groups: list[set[str]] = []
    for conv in sorted(people):
        joined = {conv} | {c for g in groups if any(set(people[c]) & set(people[conv]) for c in g) for c in g}
        groups = [g for g in groups if not g & joined] + [joined]
    order = sorted((sorted(g) for g in groups), key=lambda g: g[0])
    random.Random(seed).shuffle(order)
    split, held = {}, 0
    for group in order:
        side = "heldout" if held < HELDOUT_SHARE * len(people) else "dev"
        held += len(group) if side == "heldout" else 0
        split.update(dict.fromkeys(group, side))
    return split


def _partner(conv: str, people: Mapping[str, Sequence[str]], split: Mapping[str, str]) -> str | None:
    """The next conversation (id order, cyclic) sharing no person: of the same split, else of dev."""
    ids = sorted(people)
    ring = ids[ids.index(conv) + 1 :] + ids[: ids.index(conv)]
    strangers = [c for c in ring if not set(people[c]) & set(people[conv])]
    for side in (split[conv], "dev"):
        if found := [c for c in strangers if split[c] == side]:
            return found[0]
    return None


def _renamed(text: str, name: str, first: str, to: str) -> str:
    """``text`` with ``name`` (or its first word ``first``) replaced by ``to``."""
    for old in dict.fromkeys((name, first)):
        text = re.sub(rf"\b{re.escape(old)}\b", to, text, flags=re.IGNORECASE)
    return text


def _called(text: str, renames: Mapping[str, str]) -> str:
    """``text`` with each participant label of ``renames`` replaced by its name, all at once."""
    if not renames:
        return text
    words = sorted(renames, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.IGNORECASE)
    folded = {w.casefold(): renames[w] for w in words}
    return pattern.sub(lambda m: folded[m.group(1).casefold()], text)


def _in_play(
    rng: random.Random, right: Sequence[str], pool: Sequence[str], filler: Sequence[str]
) -> list[str]:
    """``right`` plus others: a sample of ``pool``, then of ``filler``, ``IN_PLAY`` in all."""
    others = [m for m in pool if m not in right]
    chosen = rng.sample(others, min(len(others), IN_PLAY - len(right)))
    spare = [m for m in filler if m not in right and m not in chosen]
    chosen += rng.sample(spare, min(len(spare), IN_PLAY - len(right) - len(chosen)))
    return sorted([*right, *chosen])


def convert(
    chats: Mapping[str, Mapping[str, Any]],
    templates: Sequence[str],
    seed: int = SEED,
    called: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """``{"conversations", "memories", "messages"}`` rows from the raw chats by file name;
    ``called``: ``{file: {label: name}}``, the names speakers go by (``names``)."""
    ids = {conversation_id(f): f for f in chats}
    renames = {c: dict((called or {}).get(f, {})) for c, f in ids.items()}
    labels = {c: [person(n) for n in chats[f]["name"].values()] for c, f in ids.items()}
    people = {c: [renames[c].get(p, p) for p in labels[c]] for c in ids}
    split = split_of(labels, seed)
    memories: dict[str, dict[str, Any]] = {}
    questions: dict[str, list[dict[str, Any]]] = {}
    convs = []
    for conv in sorted(ids):
        by_turn = {t["dia_id"]: t for t in turns(chats[ids[conv]])}
        for turn_id, turn in by_turn.items():
            memories[f"{conv}:{turn_id}"] = _memory(conv, turn_id, turn, renames[conv])
        questions[conv] = _questions(conv, chats[ids[conv]]["qa"], by_turn, renames[conv])
        pool = sorted({m for q in questions[conv] for m in q["right"]})
        filler = sorted(m for m in memories if m.startswith(f"{conv}:") and len(memories[m]["raw"]) >= 20)
        for ask in questions[conv]:
            ask["in_play"] = _in_play(random.Random(f"{seed}:{ask['id']}"), ask["right"], pool, filler)
        convs.append(
            {
                "id": conv,
                "file": ids[conv],
                "people": people[conv],
                "participants": labels[conv],
                "split": split[conv],
                "sessions": len({t["session"] for t in by_turn.values()}),
                "turns": len(by_turn),
                "questions": len(questions[conv]),
                "dropped_questions": len(chats[ids[conv]]["qa"]) - len(questions[conv]),
                "general": _in_play(random.Random(f"{seed}:{conv}"), [], pool, filler),
                "partner": _partner(conv, labels, split),
            }
        )
    messages = []
    for row in convs:
        conv, general = row["id"], row["general"]
        clock = max(m["created"] for m in memories.values() if m["conversation"] == conv)
        new = partial(_message, {"conversation": conv, "split": row["split"], "at": clock})
        for ask in questions[conv]:
            messages.append(new("recall", ask["id"], ask["text"], ask["in_play"], ask, right=ask["right"]))
            near = _near(ask, people[conv], memories)
            if near is not None:
                messages.append(
                    new("near", f"{ask['id']}:near", near, ask["in_play"], ask, avoid=ask["right"])
                )
        for n, text in enumerate(_small_talk(random.Random(f"{seed}:{conv}:small"), templates, people[conv])):
            messages.append(new("small", f"{conv}:small{n}", text, general))
        for ask in questions.get(row["partner"] or "", []):
            messages.append(new("wrong", f"{conv}:wrong:{ask['id']}", ask["text"], general, ask))
    in_play = {m for row in messages for m in row["in_play"]}
    return {"conversations": convs, "memories": [memories[m] for m in sorted(in_play)], "messages": messages}


def created(turn: Mapping[str, Any]) -> str:
    """A turn's time (REALTALK's ``date_time``, read as UTC) in ISO 8601: its memory's creation."""
    when = dt.datetime.strptime(turn["date_time"], "%d.%m.%Y, %H:%M:%S").replace(tzinfo=dt.UTC)
    return when.isoformat()


def _memory(conv: str, turn_id: str, turn: Mapping[str, Any], renames: Mapping[str, str]) -> dict[str, Any]:
    """One turn as a memory: ``saved`` (the name the speaker goes by first) and ``raw``."""
    name = renames.get(person(turn["speaker"]), person(turn["speaker"]))
    text = _text(turn)
    return {
        "id": f"{conv}:{turn_id}",
        "conversation": conv,
        "speaker": name,
        "session": turn["session"],
        "created": created(turn),
        "saved": f"{name}: {text}",
        "raw": text,
    }


def _questions(
    conv: str, qa: Sequence[Mapping[str, Any]], by_turn: Mapping[str, Any], renames: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The questions whose evidence holds a text turn (a photo's turn is not one), fewer than
    ``IN_PLAY`` of them, each label in their text replaced by the name (``renames``)."""
    out = []
    for n, item in enumerate(qa):
        cited = re.findall(r"D\d+:\d+", " ".join(item.get("evidence", [])))  # some read "D1:11; D3:18"
        right = sorted(f"{conv}:{e}" for e in dict.fromkeys(cited) if e in by_turn)
        if right and len(right) < IN_PLAY:
            text = _called(" ".join(item["question"].split()), renames)
            out.append({"id": f"{conv}:q{n}", "text": text, "right": right, "category": item.get("category")})
    return out


def _message(
    base: Mapping[str, str],
    kind: str,
    message_id: str,
    text: str,
    in_play: Sequence[str],
    source: Mapping[str, Any] | None = None,
    *,
    right: Sequence[str] = (),
    avoid: Sequence[str] = (),
) -> dict[str, Any]:
    """One message row; ``source``: the question it comes from (its id and category)."""
    return {
        **base,
        "kind": kind,
        "id": message_id,
        "text": text,
        "right": list(right),
        "avoid": list(avoid),
        "in_play": list(in_play),
        "category": None if source is None else source["category"],
        "source": None if source is None else source["id"],
    }


def _small_talk(rng: random.Random, templates: Sequence[str], people: Sequence[str]) -> list[str]:
    """``SMALL_PER_CONVERSATION`` distinct messages from ``templates`` naming the people."""
    first = [p.split()[0] for p in people]
    texts: list[str] = []
    while len(texts) < min(SMALL_PER_CONVERSATION, len(templates) * len(first)):
        name, other = rng.sample(first, 2) if len(first) > 1 else (first[0], first[0])
        text = rng.choice(templates).format(name=name, other=other)
        if text not in texts:
            texts.append(text)
    return texts


def _near(
    ask: Mapping[str, Any], people: Sequence[str], memories: Mapping[str, Mapping[str, Any]]
) -> str | None:
    """The question about the other person, when it names exactly one person and all its
    evidence is that person's; else None."""
    named = [p for p in people if re.search(rf"\b{re.escape(p.split()[0])}\b", ask["text"], re.IGNORECASE)]
    if len(people) != 2 or len(named) != 1:
        return None
    if any(memories[m]["speaker"] != named[0] for m in ask["right"]):
        return None
    other = next(p for p in people if p != named[0])
    return _renamed(ask["text"], named[0], named[0].split()[0], other.split()[0])


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _jsonl(rows: Iterable[Mapping[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows).encode()


def heldout_looks(manifest: Path = MANIFEST) -> int:
    """How many times the held-out split has been looked at (kept across conversions)."""
    if not manifest.exists():
        return 0
    return int(tomllib.loads(manifest.read_text()).get("split", {}).get("heldout_looks", 0))


def write(
    raw: Mapping[str, bytes], out: Path = OUT, manifest: Path = MANIFEST, table: Path = NAMES
) -> dict[str, list[dict[str, Any]]]:
    """Convert ``raw`` with the names ``table``, write the JSONL files into ``out`` and the
    manifest; the rows."""
    templates = tomllib.loads(SMALL_TALK.read_text())["templates"]
    chats = {name: json.loads(data) for name, data in raw.items()}
    rows = convert(chats, templates, called=names(chats, tomllib.loads(table.read_text())["names"]))
    out.mkdir(parents=True, exist_ok=True)
    files = {f"{kind}.jsonl": _jsonl(items) for kind, items in rows.items()}
    for name, data in files.items():
        (out / name).write_bytes(data)
    convs = rows["conversations"]
    kinds = [m["kind"] for m in rows["messages"] if m["split"] == "dev"]
    count = {k: kinds.count(k) for k in ("recall", "small", "wrong", "near")}
    lines = [
        "# Real-conversation recall data (issue 28), written by bench/realdata.py. By hand: nothing;",
        "# bench/recall_real.py --split heldout --heldout-look counts split.heldout_looks.",
        "",
        "[source]",
        'dataset = "REALTALK (Lee et al. 2025, arXiv 2502.13270): 10 chats of 21 days between real people"',
        f'repository = "{REPOSITORY}"',
        f'commit = "{COMMIT}"',
        'licence = "none stated in the repository: evaluation only, converted files not committed"',
        'excluded = "data/locomo/ of the same repository (LoCoMo, kept for independent checks)"',
        "",
        "[source.files]",
        *(f'"{name}" = "{_digest(data)}"' for name, data in sorted(raw.items())),
        "",
        "[convert]",
        f"seed = {SEED}",
        f"in_play = {IN_PLAY}",
        f"small_per_conversation = {SMALL_PER_CONVERSATION}",
        f'small_talk_templates = "{_digest(SMALL_TALK.read_bytes())}"',
        f'names = "{_digest(table.read_bytes())}"',
        f"dev_messages = {json.dumps(count)}".replace(":", " =").replace('"', ""),
        "",
        "[split]",
        f"dev = {json.dumps([c['id'] for c in convs if c['split'] == 'dev'])}",
        f"heldout = {json.dumps([c['id'] for c in convs if c['split'] == 'heldout'])}",
        f"heldout_looks = {heldout_looks(manifest)}",
        "",
        "[outputs]",
        *(f'"realtalk/{name}" = "{_digest(data)}"' for name, data in sorted(files.items())),
        "",
    ]
    manifest.write_text("\n".join(lines) + _others(manifest))
    return rows


OTHERS = "# Data sets read through bench/datasets.py"
"""Where the manifest's part that this script does not write begins (kept as it is)."""


def _others(manifest: Path) -> str:
    """The manifest's other data sets' part (``bench/datasets.py``), unchanged; ``""`` if none."""
    if not manifest.exists():
        return ""
    text = manifest.read_text()
    start = text.find(OTHERS)
    return "\n" + text[start:] if start >= 0 else ""


def main() -> None:
    """Fetch, convert, write, and print a summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", default=str(GIT_DIR), help="a git copy of the REALTALK repository")
    args = parser.parse_args()
    rows = write(fetch(CACHE, Path(args.git_dir)))
    for conv in rows["conversations"]:
        kinds = [m["kind"] for m in rows["messages"] if m["conversation"] == conv["id"]]
        tally = ", ".join(f"{k} {kinds.count(k)}" for k in ("recall", "near", "small", "wrong"))
        who = "/".join(conv["people"])
        print(f"{conv['id']} {conv['split']:<7} {who:<22} partner {conv['partner']}: {tally}")
    print(f"{len(rows['memories'])} memories, {len(rows['messages'])} messages -> {OUT}; manifest {MANIFEST}")


if __name__ == "__main__":
    main()
