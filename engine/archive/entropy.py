"""The entropy filter: near-empty or highly repetitive pages stay out of LLM passes (EPI-7).

A page is *low entropy* when any of these holds:

- it has fewer than ``min_chars`` non-space characters (near-empty);
- its character entropy is under ``min_char_bits`` bits per character ("aaaa", "hahaha");
- it has at least ``min_words_for_ratio`` words and fewer than ``min_distinct_ratio`` of them are
  distinct, or the word entropy is under ``min_word_bits`` ("ok ok ok", one sentence pasted 30
  times);
- a single line makes up more than ``max_line_share`` of its non-empty lines (with at least
  ``min_lines_for_share`` lines).

The thresholds sit well below ordinary prose in any script (English, Vietnamese and CJK text run
at 4 or more bits per character), so the filter only catches pages with nothing to say.
"""

from __future__ import annotations

import math
from collections import Counter

import msgspec

__all__ = ["DEFAULT_ENTROPY", "EntropyPolicy", "TextStats", "low_entropy", "text_stats"]


class EntropyPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Thresholds of the entropy filter (see the module docstring)."""

    min_chars: int = 24
    min_char_bits: float = 2.5
    min_words_for_ratio: int = 12
    min_distinct_ratio: float = 0.25
    min_word_bits: float = 2.0
    min_lines_for_share: int = 4
    max_line_share: float = 0.6


DEFAULT_ENTROPY = EntropyPolicy()


class TextStats(msgspec.Struct, frozen=True, kw_only=True):
    """What the filter measured (useful in reports)."""

    chars: int
    char_bits: float
    words: int
    distinct_ratio: float
    word_bits: float
    lines: int
    top_line_share: float


def _entropy(counts: Counter[str]) -> float:
    total = sum(counts.values())
    if total == 0:
        return 0.0
    return -sum(n / total * math.log2(n / total) for n in counts.values())


def text_stats(text: str) -> TextStats:
    """Measure ``text``: non-space characters, entropies, distinct-word ratio, top line share."""
    chars = Counter(ch for ch in text if not ch.isspace())
    words = Counter(word.casefold() for word in text.split())
    lines = Counter(line.strip().casefold() for line in text.splitlines() if line.strip())
    n_words = sum(words.values())
    n_lines = sum(lines.values())
    return TextStats(
        chars=sum(chars.values()),
        char_bits=_entropy(chars),
        words=n_words,
        distinct_ratio=len(words) / n_words if n_words else 0.0,
        word_bits=_entropy(words),
        lines=n_lines,
        top_line_share=max(lines.values()) / n_lines if n_lines else 0.0,
    )


def low_entropy(text: str, policy: EntropyPolicy = DEFAULT_ENTROPY) -> bool:
    """Whether ``text`` is near-empty or highly repetitive (keep it out of LLM prompts, EPI-7).

    Args:
        text: the page text (typically abstract, summary and body joined).
        policy: thresholds; the defaults suit ordinary chat pages.

    Returns:
        ``True`` when the page has nothing worth sending to a model.
    """
    stats = text_stats(text)
    if stats.chars < policy.min_chars or stats.char_bits < policy.min_char_bits:
        return True
    if stats.words >= policy.min_words_for_ratio and (
        stats.distinct_ratio < policy.min_distinct_ratio or stats.word_bits < policy.min_word_bits
    ):
        return True
    return stats.lines >= policy.min_lines_for_share and stats.top_line_share > policy.max_line_share
