"""Text normalization and word boundaries for lorebook matching (LORE-5).

Rules, applied identically to the scanned text and to plain (non-regex) keys:

* Runs of whitespace collapse to one space, so a multi-word key such as ``"dark  magic"``
  matches ``"dark\\nmagic"``. Keys never match across two messages: messages are joined with a
  newline only after each was collapsed, and keys contain no newline.
* Text is Unicode NFC-normalized; unless the entry is case-sensitive it is also case-folded
  (``str.casefold``, then NFC again), so ``"Straße"`` matches ``"STRASSE"``.
* Whole-word matching (one of the three modes of LORE-18, see :mod:`engine.lorebook.match`;
  the others are substring and whole words with short inflections) means the match is neither
  preceded nor followed by a *word character*:
  a letter, number or combining mark of any script (Unicode categories L*, N*, M*). So the key
  ``'lửa'`` does not match inside ``'lửng'``, ``'кот'`` not inside ``'скотина'``, ``'שלום'`` not
  inside ``'השלומים'``.
* Scripts written without spaces between words — Han (Chinese/Japanese kanji), Hiragana,
  Katakana, Bopomofo, Hangul (Korean attaches particles to nouns, e.g. ``드래곤이``), Thai, Lao,
  Khmer and Myanmar — fall back to substring matching: a key edge that is such a character needs
  no boundary on that side, and such characters count as boundaries for neighbouring words in
  other scripts (``"dragon"`` matches in ``"私はdragonが好き"``).
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from functools import lru_cache

__all__ = [
    "is_no_space_char",
    "is_word_char",
    "normalize_key",
    "normalize_text",
]

# Inclusive code point ranges of scripts written without spaces between words, sorted.
_NO_SPACE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3005, 0x3007),  # ideographic iteration/closing marks, zero
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3031, 0x3035),  # kana repeat marks
    (0x3038, 0x303C),
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x3130, 0x318F),  # Hangul compatibility Jamo
    (0x31A0, 0x31BF),  # Bopomofo extended
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xA9E0, 0xA9FF),  # Myanmar extended B
    (0xAA60, 0xAA7F),  # Myanmar extended A
    (0xAC00, 0xD7FF),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFFDC),  # halfwidth Katakana and Hangul
    (0x1B000, 0x1B16F),  # Kana supplement / extended
    (0x20000, 0x3134F),  # CJK extensions B-G
)
_RANGE_STARTS = tuple(start for start, _ in _NO_SPACE_RANGES)


@lru_cache(maxsize=4096)
def is_no_space_char(char: str) -> bool:
    """Whether ``char`` belongs to a script written without spaces (substring fallback).

    Args:
        char: One character.

    Returns:
        True for Han, kana, Bopomofo, Hangul, Thai, Lao, Khmer and Myanmar characters.
    """
    code = ord(char)
    index = bisect_right(_RANGE_STARTS, code) - 1
    return index >= 0 and code <= _NO_SPACE_RANGES[index][1]


@lru_cache(maxsize=4096)
def is_word_char(char: str) -> bool:
    """Whether ``char`` joins a word, so a whole-word match cannot touch it.

    Args:
        char: One character.

    Returns:
        True for letters, numbers and marks of spaced scripts.
    """
    return unicodedata.category(char)[0] in "LNM" and not is_no_space_char(char)


def normalize_text(text: str, *, fold: bool) -> str:
    """Normalize scanned text: collapse whitespace (and trim), NFC, case-fold when ``fold``.

    A chat message is scanned on every turn while it stays within the scan depth, so texts of
    a message's size are normalized once and remembered (a pure function: the same result).

    Args:
        text: Raw text (a message or an entry's content).
        fold: Case-fold (entries that are not case-sensitive).

    Returns:
        The normalized text.
    """
    if len(text) <= _MEMO_CHARS:
        return _normalized(text, fold)
    return _normalize(text, fold)


_MEMO_CHARS = 4096


@lru_cache(maxsize=4096)
def _normalized(text: str, fold: bool) -> str:
    return _normalize(text, fold)


def _normalize(text: str, fold: bool) -> str:
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    if fold:
        text = unicodedata.normalize("NFC", text.casefold())
    return text


def normalize_key(key: str, *, fold: bool) -> str:
    """Normalize a plain key like the text it is matched against, trimmed.

    Args:
        key: The key as written in the entry.
        fold: Case-fold (entries that are not case-sensitive).

    Returns:
        The normalized key (``""`` for a blank key, which never matches).
    """
    return normalize_text(key.strip(), fold=fold).strip()
