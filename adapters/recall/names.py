"""Whether two written names may be the same person (person evidence, RECALL-2).

``same_person(a, b)`` compares two case-folded words of Latin script (accents are dropped):

* **nicknames** — both belong to one full name of ``nicknames.toml`` (a small table of common
  English given names: "Mel"/"Melanie", "Gina"/"Georgina", "Bill"/"William");
* **short forms** — the shorter has at least ``SHORT_FORM`` letters and starts the longer
  ("Jon"/"Jonathan", "Nebra"/"Nebraas");
* **spellings** — words of at least ``SKELETON_MIN`` letters with the same first letter whose
  *skeletons* are equal: doubled letters collapsed, then every vowel (and y) read as one vowel
  ("Muhhamed"/"Muhammad"/"Mohammed").

Other scripts compare equal only when identical. The table is data, read once.

``names_someone(text, names)`` says whether a message names one of ``names`` (a person's display
name and its parts) with a capitalized word that ``same_person`` joins to it: the recall's speaker
evidence ("Mel" names Melanie's memory), measured by ``bench/rank_signals.py``.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from collections.abc import Iterable
from pathlib import Path

__all__ = ["SHORT_FORM", "SKELETON_MIN", "names_someone", "same_person"]

SHORT_FORM = 3
SKELETON_MIN = 4
_TABLE = Path(__file__).with_name("nicknames.toml")
_LATIN = re.compile(r"[a-z]+")
_VOWELS = str.maketrans("eiouy", "aaaaa")
_CAPITALIZED = re.compile(r"(?<!\w)([^\W\d_][\w'’-]*)")
_POSSESSIVE = re.compile(r"[\'’]s?$")


@functools.cache
def _groups() -> dict[str, frozenset[str]]:
    """Word -> the full names it may stand for (a full name stands for itself)."""
    table = tomllib.loads(_TABLE.read_text(encoding="utf-8"))["names"]
    out: dict[str, set[str]] = {}
    for full, nicknames in table.items():
        for word in (full, *nicknames):
            out.setdefault(word, set()).add(full)
    return {word: frozenset(names) for word, names in out.items()}


def _plain(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word.casefold()) if not unicodedata.combining(c))


def _skeleton(word: str) -> str:
    collapsed = re.sub(r"(.)\1+", r"\1", word)  # doubled letters first: Eloise is not Elise
    return word[0] + collapsed[1:].translate(_VOWELS)


@functools.lru_cache(maxsize=65536)
def same_person(a: str, b: str) -> bool:
    """Whether the words ``a`` and ``b`` may name the same person (see the module docstring)."""
    a, b = _plain(a), _plain(b)
    if a == b:
        return True
    if not (_LATIN.fullmatch(a) and _LATIN.fullmatch(b)):
        return False
    groups = _groups()
    if groups.get(a, frozenset()) & groups.get(b, frozenset()):
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= SHORT_FORM and long.startswith(short):
        return True
    return min(len(a), len(b)) >= SKELETON_MIN and a[0] == b[0] and _skeleton(a) == _skeleton(b)


def _parts(names: Iterable[str]) -> set[str]:
    """The words of the display names (a name of several words: each one), case-folded."""
    return {w.casefold() for name in names for w in re.findall(r"[^\W\d_]+", name)}


def _capitalized(text: str) -> list[re.Match[str]]:
    return [m for m in _CAPITALIZED.finditer(text) if m.group(1)[0].isupper()]


def _is_name(word: str, parts: set[str]) -> bool:
    bare = _POSSESSIVE.sub("", word)
    return bool(bare) and any(same_person(bare, part) for part in parts)


def names_someone(text: str, names: Iterable[str]) -> bool:
    """Whether ``text`` names one of ``names`` with a word written with a capital (the name, a
    word of it, or an alias ``same_person`` joins to one: "Mel" for "Melanie")."""
    parts = _parts(names)
    return bool(parts) and any(_is_name(m.group(1), parts) for m in _capitalized(text))
