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
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from pathlib import Path

__all__ = ["SHORT_FORM", "SKELETON_MIN", "same_person"]

SHORT_FORM = 3
SKELETON_MIN = 4
_TABLE = Path(__file__).with_name("nicknames.toml")
_LATIN = re.compile(r"[a-z]+")
_VOWELS = str.maketrans("eiouy", "aaaaa")


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
