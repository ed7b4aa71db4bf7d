"""Find which keys of a compiled book occur in the scan buffer or in lore content (LORE-3, LORE-5, LORE-18).

The scan buffer holds the last messages *newest first*, each normalized once per scan
(see :mod:`engine.lorebook.text`) and joined with newlines, so the messages an entry may see
(its scan depth ``d``) are a prefix of the buffer and one automaton pass serves every depth:
for each matcher id we record the index of the newest message it occurs in, and an entry with
depth ``d`` counts a hit only when that index is below ``d``.

Regex keys see SillyTavern's layout (LORE-18): for each scan depth ``d`` that entries with
regex keys use, one RE2 set pass over ``"\\x01" + "\\n\\x01".join(newest d messages)``, so a
pattern anchored on the ``\\x01`` separator or spanning two messages matches as it does there.

Keys with macros (LORE-17) are expanded per scan with the turn's :class:`MacroContext` and
matched the same way (plain ones by search with the same edge rules, regex ones by RE2).
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import ahocorasick
import msgspec

from engine.lorebook.compiled import EDGE_FREE, EDGE_WORD, CompiledBook, LiteralHit
from engine.lorebook.regex_keys import compiled_pattern, parse_regex_key, to_re2
from engine.lorebook.text import is_no_space_char, is_word_char, normalize_key, normalize_text
from engine.macros import MacroContext, expand, has_macros

__all__ = [
    "MATCHER",
    "Hits",
    "ResolvedKey",
    "ScanBuffer",
    "build_buffer",
    "chat_hit",
    "content_hits",
    "match_buffer",
    "match_text",
    "resolve_dynamic",
]

MATCHER: Final = "\x01"
"""SillyTavern's message separator in the regex scan buffer."""
_PROCLITICS: Final = frozenset("בהוכלמש" + "وفبكلس")
_MAX_PREFIX: Final = 3
_MAX_SUFFIX: Final = 4
_NOTHING: Final[Mapping[int, object]] = {}


class ScanBuffer(msgspec.Struct, frozen=True, kw_only=True):
    """The newest ``depth`` messages, newest first, normalized three ways.

    Attributes:
        folded: Case-folded messages joined by ``\\n``.
        exact: NFC-only messages joined by ``\\n`` (``""`` when no book needs it).
        folded_starts: Offset of each message in ``folded``.
        exact_starts: Offset of each message in ``exact``.
        raw: NFC messages, trimmed (whitespace inside untouched), for regex keys.
    """

    folded: str
    exact: str
    folded_starts: tuple[int, ...]
    exact_starts: tuple[int, ...]
    raw: tuple[str, ...]

    def st_text(self, depth: int) -> str:
        """SillyTavern's regex buffer of the newest ``depth`` messages (``""`` for depth 0)."""
        if depth <= 0:
            return ""
        return MATCHER + ("\n" + MATCHER).join(self.raw[:depth])


class Hits(msgspec.Struct, frozen=True, kw_only=True):
    """Key hits of one book.

    Attributes:
        chat: ``{mid: newest message index}`` of plain keys in the chat.
        regex: ``{scan depth: mids}`` of regex keys matching the ST buffer of that depth.
        lore: ``{mid: source label}`` of keys found in recursed lore content.
    """

    chat: dict[int, int]
    regex: dict[int, set[int]]
    lore: dict[int, str]


class ResolvedKey(msgspec.Struct, frozen=True, kw_only=True):
    """A macro key after expansion for this scan: a plain ``text`` or a compiled ``pattern``."""

    mid: int
    text: str
    fold: bool
    left: int
    right: int
    pattern: Any = None


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
        raw=tuple(unicodedata.normalize("NFC", m.strip()) for m in newest),
    )


def resolve_dynamic(book: CompiledBook, macros: MacroContext | None) -> tuple[ResolvedKey, ...]:
    """Expand the book's macro keys for one scan (LORE-17); keys that stay empty are left out.

    Args:
        book: The compiled book.
        macros: Names, time and seeds of the turn; ``None`` leaves macros as written.

    Returns:
        The resolved keys.
    """
    resolved: list[ResolvedKey] = []
    for key in book.dynamic:
        text = expand(key.raw, macros) if macros is not None else key.raw
        text = text.strip()
        regex = parse_regex_key(text)
        if regex is None and key.use_regex and text:
            regex = (text, "" if key.case_sensitive else "i")
        if regex is not None:
            pattern = compiled_pattern(to_re2(*regex))
            if pattern is not None:
                found = ResolvedKey(mid=key.mid, text="", fold=False, left=0, right=0, pattern=pattern)
                resolved.append(found)
            continue
        fold = not key.case_sensitive
        norm = normalize_key(text, fold=fold)
        if norm:
            left = EDGE_FREE if is_no_space_char(norm[0]) else key.left
            right = EDGE_FREE if is_no_space_char(norm[-1]) else key.right
            resolved.append(ResolvedKey(mid=key.mid, text=norm, fold=fold, left=left, right=right))
    return tuple(resolved)


def match_buffer(book: CompiledBook, buffer: ScanBuffer, resolved: Sequence[ResolvedKey]) -> Hits:
    """Matcher ids of ``book`` found in the buffer.

    Args:
        book: The compiled book.
        buffer: The scan buffer.
        resolved: The book's macro keys for this scan (:func:`resolve_dynamic`).

    Returns:
        The hits (``lore`` empty).
    """
    chat: dict[int, int] = {}
    _literal_hits(book.folded, buffer.folded, buffer.folded_starts, book.depth, chat)
    _literal_hits(book.exact, buffer.exact, buffer.exact_starts, book.depth, chat)
    regex: dict[int, set[int]] = {}
    patterns = [key for key in resolved if key.pattern is not None]
    for depth in book.regex_depths:
        text = buffer.st_text(depth)
        found = regex[depth] = set()
        if book.regexes is not None:
            found.update(book.regex_mids[i] for i in book.regexes.Match(text) or ())
        found.update(key.mid for key in patterns if key.pattern.search(text) is not None)
    for key in resolved:
        if key.pattern is None:
            text, starts = buffer.folded, buffer.folded_starts
            if not key.fold:
                text, starts = buffer.exact, buffer.exact_starts
            index = _search(text, starts, key, book.depth)
            if index is not None:
                chat[key.mid] = index
    return Hits(chat=chat, regex=regex, lore={})


def chat_hit(hits: Hits, mid: int, depth: int) -> str | None:
    """Where key ``mid`` occurs within the newest ``depth`` messages, or ``None``.

    Args:
        hits: The book's hits.
        mid: A matcher id.
        depth: The entry's scan depth.

    Returns:
        ``"the newest message"``, ``"message N from the end"`` or ``"the last N messages"`` (a
        regex key, matched over the buffer).
    """
    index = hits.chat.get(mid)
    if index is not None and index < depth:
        return "the newest message" if index == 0 else f"message {index + 1} from the end"
    if mid in hits.regex.get(depth, ()):
        return f"the last {depth} messages"
    return None


def match_text(
    book: CompiledBook,
    text: str,
    resolved: Sequence[ResolvedKey] = (),
    known: Mapping[int, object] = _NOTHING,
    *,
    dynamic_only: bool = False,
) -> list[int]:
    """Matcher ids of ``book`` found anywhere in ``text`` (recursion over lore content).

    Args:
        book: The compiled book.
        text: Raw text (an activated entry's content).
        resolved: The book's macro keys for this scan.
        known: Ids found already; they are skipped before any check, so a recursion pass
            costs what its new text holds, not what all passes found (LORE-16).
        dynamic_only: Match only the macro keys (the static ones were found at compile time).

    Returns:
        The matched ids that are not in ``known``, each once.
    """
    hits: dict[int, int] = {}
    folded = exact = None
    automata = (None, None) if dynamic_only else (book.folded, book.exact)
    if automata[0] is not None or any(k.fold for k in resolved):
        folded = normalize_text(text, fold=True)
        _literal_hits(automata[0], folded, (0,), 1, hits, known)
    if automata[1] is not None or any(not k.fold and k.pattern is None for k in resolved):
        exact = normalize_text(text, fold=False)
        _literal_hits(automata[1], exact, (0,), 1, hits, known)
    nfc = MATCHER + unicodedata.normalize("NFC", text.strip())
    if book.regexes is not None and not dynamic_only:
        for i in book.regexes.Match(nfc) or ():
            if book.regex_mids[i] not in known:
                hits[book.regex_mids[i]] = 0
    for key in resolved:
        if key.mid in hits or key.mid in known:
            continue
        if key.pattern is not None:
            if key.pattern.search(nfc) is not None:
                hits[key.mid] = 0
        elif _search((folded if key.fold else exact) or "", (0,), key, 1) is not None:
            hits[key.mid] = 0
    return list(hits)


def content_hits(book: CompiledBook) -> tuple[tuple[int, ...] | None, ...]:
    """For each entry, the ids of the book's static keys found in its own content (LORE-16).

    Computed once per compiled book, so a recursion pass over the book's own entries is a
    dictionary lookup per key hit instead of a text scan. Content with macros is expanded per
    turn, so it gets ``None`` and is matched at scan time.

    Args:
        book: The compiled book (without ``content`` yet).

    Returns:
        One tuple of ids (or ``None``) per entry, in entry order.
    """
    static = msgspec.structs.replace(book, dynamic=())
    return tuple(None if has_macros(e.text) else tuple(match_text(static, e.text)) for e in book.entries)


def _join(parts: Iterable[str]) -> tuple[str, tuple[int, ...]]:
    starts: list[int] = []
    offset = 0
    pieces: list[str] = []
    for part in parts:
        starts.append(offset)
        pieces.append(part)
        offset += len(part) + 1
    return "\n".join(pieces), tuple(starts)


def _end_of(starts: tuple[int, ...], depth: int, text: str) -> int:
    return starts[depth] - 1 if depth < len(starts) else len(text)


def _search(text: str, starts: tuple[int, ...], key: ResolvedKey, depth: int) -> int | None:
    if not starts or depth <= 0:
        return None
    end = _end_of(starts, depth, text)
    position = text.find(key.text, 0, end)
    while position >= 0:
        last = position + len(key.text) - 1
        if _edges_ok(text, position, last, end, key.left, key.right):
            return bisect_right(starts, position) - 1
        position = text.find(key.text, position + 1, end)
    return None


def _literal_hits(
    automaton: ahocorasick.Automaton | None,
    text: str,
    starts: tuple[int, ...],
    depth: int,
    hits: dict[int, int],
    known: Mapping[int, object] = _NOTHING,
) -> None:
    if automaton is None or not starts or depth <= 0:
        return
    end = _end_of(starts, depth, text)
    single = len(starts) == 1
    payload: tuple[LiteralHit, ...]
    for last, payload in automaton.iter(text, 0, end):
        for mid, left, right, length in payload:
            if mid in hits or mid in known:
                continue
            first = last - length + 1
            # Inlined EDGE_WORD checks: this loop is the scan's hot path (LORE-16 benchmark).
            if left == EDGE_WORD:
                if first > 0 and is_word_char(text[first - 1]):
                    continue
            elif left and not _left_ok(text, first, left):
                continue
            if right == EDGE_WORD:
                if last + 1 < end and is_word_char(text[last + 1]):
                    continue
            elif right and not _right_ok(text, last, end, right):
                continue
            hits[mid] = 0 if single else bisect_right(starts, first) - 1


def _edges_ok(text: str, first: int, last: int, end: int, left: int, right: int) -> bool:
    return _left_ok(text, first, left) and _right_ok(text, last, end, right)


def _left_ok(text: str, first: int, edge: int) -> bool:
    if edge == EDGE_FREE or first == 0 or not is_word_char(text[first - 1]):
        return True
    if edge == EDGE_WORD:
        return False
    # Inflected: 1-3 proclitic letters (Hebrew ב/ה/ו/כ/ל/מ/ש, Arabic و/ف/ب/ك/ل/س) start the word.
    start = first
    while start > 0 and first - start < _MAX_PREFIX and text[start - 1] in _PROCLITICS:
        start -= 1
    return start < first and (start == 0 or not is_word_char(text[start - 1]))


def _right_ok(text: str, last: int, end: int, edge: int) -> bool:
    after = last + 1
    if edge == EDGE_FREE or after >= end or not is_word_char(text[after]):
        return True
    if edge == EDGE_WORD:
        return False
    # Inflected: up to 4 more word characters end the word (дракон → дракона, wood → woods).
    stop = after
    while stop < end and stop - after <= _MAX_SUFFIX and is_word_char(text[stop]):
        stop += 1
    return stop - after <= _MAX_SUFFIX
