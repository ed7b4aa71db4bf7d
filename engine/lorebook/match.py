"""Find which keys of a compiled book occur in the scan buffer or in lore content (LORE-3, LORE-5).

The scan buffer holds the last messages *newest first*, each normalized once per scan
(see :mod:`engine.lorebook.text`) and joined with newlines, so the messages an entry may see
(its scan depth ``d``) are a prefix of the buffer and one automaton pass serves every depth:
for each matcher id we record the index of the newest message it occurs in, and an entry with
depth ``d`` counts a hit only when that index is below ``d``. Regex keys run per message (RE2
set, one pass for all patterns) on the NFC text.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence

import ahocorasick
import msgspec

from engine.lorebook.compile import CompiledBook, LiteralHit
from engine.lorebook.text import is_word_char, normalize_text

__all__ = ["ScanBuffer", "build_buffer", "match_buffer", "match_text"]


class ScanBuffer(msgspec.Struct, frozen=True, kw_only=True):
    """The newest ``depth`` messages, newest first, normalized three ways.

    Attributes:
        folded: Case-folded messages joined by ``\\n``.
        exact: NFC-only messages joined by ``\\n`` (``""`` when no book needs it).
        folded_starts: Offset of each message in ``folded``.
        exact_starts: Offset of each message in ``exact``.
        raw: NFC messages (whitespace untouched) for regex keys.
    """

    folded: str
    exact: str
    folded_starts: tuple[int, ...]
    exact_starts: tuple[int, ...]
    raw: tuple[str, ...]


def build_buffer(messages: Sequence[str], depth: int, *, need_exact: bool) -> ScanBuffer:
    """Normalize the newest ``depth`` messages once for all books.

    Args:
        messages: Chat messages, newest last.
        depth: How many of the newest messages any entry may scan.
        need_exact: Whether some book has case-sensitive keys.

    Returns:
        The buffer.
    """
    newest = list(reversed(messages[-depth:])) if depth > 0 else []
    folded, folded_starts = _join(normalize_text(m, fold=True) for m in newest)
    exact, exact_starts = _join(normalize_text(m, fold=False) for m in newest) if need_exact else ("", ())
    return ScanBuffer(
        folded=folded,
        exact=exact,
        folded_starts=folded_starts,
        exact_starts=exact_starts,
        raw=tuple(unicodedata.normalize("NFC", m) for m in newest),
    )


def match_buffer(book: CompiledBook, buffer: ScanBuffer) -> dict[int, int]:
    """Matcher ids of ``book`` found in the buffer, with the newest message index of each.

    Args:
        book: The compiled book.
        buffer: The scan buffer.

    Returns:
        ``{mid: message_index}``; index 0 is the newest message.
    """
    hits: dict[int, int] = {}
    _literal_hits(book.folded, buffer.folded, buffer.folded_starts, book.depth, hits)
    _literal_hits(book.exact, buffer.exact, buffer.exact_starts, book.depth, hits)
    if book.regexes is not None:
        for index, message in enumerate(buffer.raw[: book.depth]):
            for found in book.regexes.Match(message) or ():
                hits.setdefault(book.regex_mids[found], index)
    return hits


def match_text(book: CompiledBook, text: str) -> set[int]:
    """Matcher ids of ``book`` found anywhere in ``text`` (recursion over lore content).

    Args:
        book: The compiled book.
        text: Raw text (an activated entry's content).

    Returns:
        The set of matched ids.
    """
    hits: dict[int, int] = {}
    if book.folded is not None:
        folded = normalize_text(text, fold=True)
        _literal_hits(book.folded, folded, (0,), 1, hits)
    if book.exact is not None:
        exact = normalize_text(text, fold=False)
        _literal_hits(book.exact, exact, (0,), 1, hits)
    if book.regexes is not None:
        nfc = unicodedata.normalize("NFC", text)
        hits.update((book.regex_mids[i], 0) for i in book.regexes.Match(nfc) or ())
    return set(hits)


def _join(parts: Iterable[str]) -> tuple[str, tuple[int, ...]]:
    starts: list[int] = []
    offset = 0
    pieces: list[str] = []
    for part in parts:
        starts.append(offset)
        pieces.append(part)
        offset += len(part) + 1
    return "\n".join(pieces), tuple(starts)


def _literal_hits(
    automaton: ahocorasick.Automaton | None,
    text: str,
    starts: tuple[int, ...],
    depth: int,
    hits: dict[int, int],
) -> None:
    if automaton is None or not starts or depth <= 0:
        return
    end = starts[depth] - 1 if depth < len(starts) else len(text)
    payload: tuple[LiteralHit, ...]
    for last, payload in automaton.iter(text, 0, end):
        for mid, left, right, length in payload:
            if mid in hits:
                continue
            first = last - length + 1
            if left and first > 0 and is_word_char(text[first - 1]):
                continue
            if right and last + 1 < end and is_word_char(text[last + 1]):
                continue
            hits[mid] = bisect_right(starts, first) - 1
