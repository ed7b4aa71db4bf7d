"""Lorebook data model (LORE-1..4, LORE-6, LORE-10, LORE-13).

These frozen Structs are what import/export codecs (SillyTavern World Info, Character Card
V2/V3 ``character_book``) map onto, what the store persists, and what
:func:`engine.lorebook.compile.compile_book` turns into a scan-ready ``CompiledBook``.

Conventions the codecs rely on:

* Entry ids are strings (``"0"``, ``"12"``, ``"a1b2"``); a numeric uid becomes ``str(uid)``.
* ``order``: a *higher* order goes earlier in the prompt (LORE-8). Card/ST
  ``insertion_order``/``order`` is "lower goes earlier", so codecs convert it (LORE-13).
* ``content`` is the entry body *without* decorator lines; leading ``@@`` lines live, parsed and
  in order, in ``decorators``. :func:`split_decorators` / :func:`join_decorators` convert between
  the card's raw content and this pair, losslessly for well-formed decorator lines.
* ``case_sensitive`` / ``match_whole_words`` ``None`` means "use the book's setting".
* Book ``scan_depth`` / ``token_budget`` / ``recursive_scanning`` ``None`` means "absent in the
  file"; the engine then uses ``DEFAULT_SCAN_DEPTH`` / ``DEFAULT_TOKEN_BUDGET`` / off.
* Every field the engine does not use survives in ``extensions`` (the format's own
  ``extensions`` object) and ``extra`` (unknown top-level fields). Both are tuples of
  ``(key, json_text)`` pairs so they round-trip arbitrary JSON through any encoder (JSON or
  msgpack) and stay hashable; build them with :func:`json_pairs` and read them with
  :func:`pairs_to_dict`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

import msgspec

__all__ = [
    "DEFAULT_SCAN_DEPTH",
    "DEFAULT_TOKEN_BUDGET",
    "MAX_SCAN_DEPTH",
    "MAX_TOKEN_BUDGET",
    "MIN_TOKEN_BUDGET",
    "Decorator",
    "JsonPairs",
    "LoreBook",
    "LoreDecision",
    "LoreEntry",
    "LoreIssue",
    "LoreMark",
    "LoreMessage",
    "LoreResult",
    "LoreState",
    "LoreTimed",
    "Matching",
    "Role",
    "SelectiveLogic",
    "join_decorators",
    "json_pairs",
    "pairs_to_dict",
    "split_decorators",
]

DEFAULT_SCAN_DEPTH = 2
DEFAULT_TOKEN_BUDGET = 2048
MAX_SCAN_DEPTH = 100
MIN_TOKEN_BUDGET = 100
MAX_TOKEN_BUDGET = 32000

Role: TypeAlias = Literal["system", "user", "assistant"]
"""Insertion role of an entry's message (ST ``role`` 0/1/2 = system/user/assistant)."""

SelectiveLogic: TypeAlias = Literal["AND_ANY", "AND_ALL", "NOT_ANY", "NOT_ALL"]
"""Secondary-key logic (ST ``selectiveLogic``: 0=AND_ANY, 1=NOT_ALL, 2=NOT_ANY, 3=AND_ALL)."""

Matching: TypeAlias = Literal["whole_words", "substring", "inflections"]
"""How a plain key must sit in the text (LORE-18)."""

JsonPairs: TypeAlias = tuple[tuple[str, str], ...]
"""Arbitrary JSON object as ``((key, json_text), ...)``, in the original key order."""


class Decorator(msgspec.Struct, frozen=True, kw_only=True):
    """One ``@@name value`` line from the top of an entry's content (LORE-10).

    Attributes:
        name: Decorator name without the ``@@`` (e.g. ``"probability"``), as written.
        value: The rest of the line after the name, stripped (``""`` when absent).
        fallback: True for a CCv3 fallback line written ``@@@name``.
    """

    name: str
    value: str = ""
    fallback: bool = False


class LoreEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One lorebook entry (LORE-3, LORE-4, LORE-6..10).

    Attributes:
        id: Entry id, unique within its book.
        keys: Primary keys; ``/pattern/flags`` keys are regular expressions (LORE-5).
        secondary_keys: Secondary keys, used when ``selective`` is on and they are non-empty.
        content: Body sent to the model (decorator lines removed, see ``decorators``).
        comment: Display name for the editor; never sent to the model (LORE-6).
        constant: Always inserted, no matching needed.
        enabled: False = disabled: kept in the book, never activates.
        selective: Secondary keys take part (with ``selective_logic``).
        selective_logic: How secondary keys combine with a primary match.
        case_sensitive: Per-entry override; ``None`` = book default.
        match_whole_words: Per-entry override; ``None`` = book default.
        use_regex: CCv3 ``use_regex``: every key is a regex (``/p/f`` or a bare pattern).
        priority: Budget priority; higher survives the token budget first (LORE-7).
        order: Insertion order; higher appears earlier (LORE-8).
        role: Role of the rendered message (LORE-9).
        probability: Percent chance to be inserted when activated (0-100).
        use_probability: Whether ``probability`` applies at all.
        scan_depth: Per-entry scan depth override; ``None`` = book default.
        exclude_recursion: Cannot be activated in a recursion pass (ST field, LORE-16).
        prevent_recursion: Its content does not trigger other entries (ST field, LORE-16).
        delay_until_recursion: Activates only in recursion passes: ``False``/``0`` off, ``True``
            = level 1, ``N`` = level N (ST field, LORE-16).
        sticky: Stays active for N messages after it activated (LORE-14).
        cooldown: Cannot activate for N messages after it activated (LORE-14).
        delay: Cannot activate until the chat has N messages (LORE-14).
        group: Inclusion groups, comma-separated (LORE-15); ``""`` = none.
        group_override: Wins its group by priority instead of by weight (LORE-15).
        group_weight: Weight in the group's roll (LORE-15).
        use_group_scoring: Group scoring for this entry; ``None`` = the book's setting.
        decorators: Parsed ``@@`` lines, in order, unknown ones included.
        extensions: The format's own ``extensions`` object, verbatim.
        extra: Unknown top-level fields of the entry, verbatim.
    """

    id: str
    keys: tuple[str, ...] = ()
    secondary_keys: tuple[str, ...] = ()
    content: str = ""
    comment: str = ""
    constant: bool = False
    enabled: bool = True
    selective: bool = False
    selective_logic: SelectiveLogic = "AND_ANY"
    case_sensitive: bool | None = None
    match_whole_words: bool | None = None
    use_regex: bool = False
    priority: int = 0
    order: int = 0
    role: Role = "system"
    probability: int = 100
    use_probability: bool = True
    scan_depth: int | None = None
    exclude_recursion: bool = False
    prevent_recursion: bool = False
    delay_until_recursion: bool | int = False
    sticky: int = 0
    cooldown: int = 0
    delay: int = 0
    group: str = ""
    group_override: bool = False
    group_weight: int = 100
    use_group_scoring: bool | None = None
    decorators: tuple[Decorator, ...] = ()
    extensions: JsonPairs = ()
    extra: JsonPairs = ()


class LoreBook(msgspec.Struct, frozen=True, kw_only=True):
    """A lorebook: entries sharing scan settings (LORE-1, LORE-2).

    Attributes:
        id: Store id of the book (set by the service; used in decisions and rolls).
        name: Book name.
        description: Free text description.
        scan_depth: Messages scanned (0-100); ``None`` = ``DEFAULT_SCAN_DEPTH``.
        token_budget: Token cap (100-32000); ``None`` = ``DEFAULT_TOKEN_BUDGET``.
        recursive_scanning: Activated content is scanned again; ``None`` = off.
        case_sensitive: Default for entries whose ``case_sensitive`` is ``None``.
        match_whole_words: Legacy default for entries whose ``match_whole_words`` is ``None``,
            used only when ``matching`` is ``None`` (books stored before LORE-18).
        matching: Default for entries whose ``match_whole_words`` is ``None`` (LORE-18):
            ``"whole_words"``, ``"inflections"`` (whole words that may take short
            suffixes/prefixes; imported books carry it unless the file asks otherwise) or
            ``"substring"`` (SillyTavern's global default, only when a file asks for it).
        use_group_scoring: Default for entries whose ``use_group_scoring`` is ``None`` (LORE-15).
        entries: The entries, in file order.
        extensions: The format's own ``extensions`` object, verbatim.
        extra: Unknown top-level fields of the book, verbatim.
    """

    id: str = ""
    name: str = ""
    description: str = ""
    scan_depth: int | None = None
    token_budget: int | None = None
    recursive_scanning: bool | None = None
    case_sensitive: bool = False
    match_whole_words: bool = True
    matching: Matching | None = None
    use_group_scoring: bool = False
    entries: tuple[LoreEntry, ...] = ()
    extensions: JsonPairs = ()
    extra: JsonPairs = ()


class LoreMark(msgspec.Struct, frozen=True, kw_only=True):
    """First activation of an entry that ``@@keep``/``@@dont_activate_after_match`` tracks.

    Attributes:
        book: Book id.
        entry: Entry id.
        turn_id: Turn of the first activation (a re-render of that turn is not "after").
    """

    book: str
    entry: str
    turn_id: str


class LoreTimed(msgspec.Struct, frozen=True, kw_only=True):
    """A running timed effect of an entry in a chat (LORE-14), as SillyTavern keeps it.

    Attributes:
        book: Book id.
        entry: Entry id.
        kind: ``"sticky"`` or ``"cooldown"``.
        start: Message count when it started.
        end: Message count when it ends (it applies while the count is below ``end``).
        protected: Started by a sticky effect ending (survives a scan at ``start``).
    """

    book: str
    entry: str
    kind: Literal["sticky", "cooldown"]
    start: int
    end: int
    protected: bool = False


class LoreState(msgspec.Struct, frozen=True, kw_only=True):
    """Per-chat lorebook state that timed decorators and effects need; the service persists it.

    Attributes:
        marks: First-activation marks, sorted by (book, entry).
        timed: Timed effects after the turn ``turn`` (LORE-14), sorted.
        turn: Id of the turn that wrote this state.
        before: Timed effects as they were before ``turn``: a regenerate of that turn starts
            from them, so it undoes what the replaced reply started.
    """

    marks: tuple[LoreMark, ...] = ()
    timed: tuple[LoreTimed, ...] = ()
    turn: str = ""
    before: tuple[LoreTimed, ...] = ()


class LoreIssue(msgspec.Struct, frozen=True, kw_only=True):
    """Something of an entry that is ignored or not supported, with the reason (LORE-21).

    Attributes:
        entry: Entry id (``""`` for the book itself).
        name: The entry's comment.
        field: What is concerned, e.g. ``"key '/(?<=a)b/'"`` or ``"@@probability abc"``.
        reason: Why it is ignored.
        code: ``invalid_regex_key``, ``invalid_decorator`` (invalid: ignored) or
            ``unsupported`` (valid but not applied by Hearth).
    """

    entry: str
    name: str
    field: str
    reason: str
    code: str = "unsupported"


class LoreMessage(msgspec.Struct, frozen=True, kw_only=True):
    """One rendered entry for the prompt's lorebook slot (LORE-9).

    Attributes:
        role: Message role.
        text: Entry body, decorators stripped; the comment is never included (LORE-6).
        book: Book id.
        entry: Entry id.
    """

    role: Role
    text: str
    book: str
    entry: str


class LoreDecision(msgspec.Struct, frozen=True, kw_only=True):
    """Why an entry entered the request or was left out (LORE-12, PRM-3).

    Attributes:
        book: Book id.
        entry: Entry id.
        name: The entry's comment (display name).
        included: Whether the entry is in the request.
        reason: Human-readable reason, e.g. ``"key 'dragon' matched"``.
        tokens: Token count of the entry's text when it was counted, else 0.
    """

    book: str
    entry: str
    name: str
    included: bool
    reason: str
    tokens: int = 0


class LoreResult(msgspec.Struct, frozen=True, kw_only=True):
    """Outcome of one lorebook scan.

    Attributes:
        messages: Rendered entries in prompt order (higher order first, LORE-8).
        decisions: Included entries in prompt order, then rejected ones by (book, entry).
        state: The chat's lore state after this turn (store it).
        tokens: Total tokens of ``messages``.
        cut_short: The scan ran out of its time budget and kept what it had activated by then.
    """

    messages: tuple[LoreMessage, ...] = ()
    decisions: tuple[LoreDecision, ...] = ()
    state: LoreState = LoreState()
    tokens: int = 0
    cut_short: bool = False


def json_pairs(obj: Mapping[str, Any]) -> JsonPairs:
    """Encode a JSON object into ``(key, json_text)`` pairs, keeping key order.

    Args:
        obj: A mapping of JSON-serializable values.

    Returns:
        The pairs, suitable for ``extensions`` / ``extra``.
    """
    return tuple((str(k), msgspec.json.encode(v).decode()) for k, v in obj.items())


def pairs_to_dict(pairs: JsonPairs) -> dict[str, Any]:
    """Decode ``(key, json_text)`` pairs back into a JSON object (for codecs at the edge).

    Args:
        pairs: Pairs built by :func:`json_pairs`.

    Returns:
        A new dict with the decoded values, in the original order.
    """
    return {k: msgspec.json.decode(v) for k, v in pairs}


def split_decorators(raw: str) -> tuple[tuple[Decorator, ...], str]:
    """Split raw card content into its leading ``@@`` decorator lines and the body.

    Decorators are the lines at the very top of the content that start with ``@@``
    (``@@@`` marks a CCv3 fallback). The first line that is not a decorator starts the body.

    Args:
        raw: Content as stored in a card / World Info file.

    Returns:
        ``(decorators, body)``; ``join_decorators(*split_decorators(raw)) == raw`` for content
        whose decorator lines are written ``@@name value``.
    """
    lines = raw.split("\n")
    decorators: list[Decorator] = []
    index = 0
    while index < len(lines) and lines[index].startswith("@@"):
        decorators.append(_parse_decorator(lines[index]))
        index += 1
    return tuple(decorators), "\n".join(lines[index:])


def join_decorators(decorators: tuple[Decorator, ...], body: str) -> str:
    """Render decorators back on top of the body (the inverse of :func:`split_decorators`).

    Args:
        decorators: Parsed decorators, in order.
        body: Entry body.

    Returns:
        Raw content for export.
    """
    lines = [_render_decorator(d) for d in decorators]
    return "\n".join([*lines, body]) if lines else body


def _parse_decorator(line: str) -> Decorator:
    fallback = line.startswith("@@@")
    text = line[3:] if fallback else line[2:]
    name, *rest = text.strip().split(maxsplit=1) or [""]
    return Decorator(name=name, value=rest[0].strip() if rest else "", fallback=fallback)


def _render_decorator(decorator: Decorator) -> str:
    prefix = "@@@" if decorator.fallback else "@@"
    tail = f" {decorator.value}" if decorator.value else ""
    return f"{prefix}{decorator.name}{tail}"
