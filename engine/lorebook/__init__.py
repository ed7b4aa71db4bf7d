"""Lorebooks (LORE): the data model, compilation, matching and the per-turn scan.

Typical use (the service): ``compiled = compile_book(book)`` once per book version (cache it;
``validate_book`` raises the same errors at import), then every turn::

    result = scan_lore(compiled_books, recent_messages, state, turn_id=..., message_count=...,
                       at_greeting=..., count_tokens=..., macros=MacroContext(...))

and store ``result.state`` with the turn; ``result.messages`` fill the lorebook slot,
``result.decisions`` go to the request log. Matching rules are documented in
:mod:`engine.lorebook.text`, :mod:`engine.lorebook.match` and :mod:`engine.lorebook.regex_keys`,
decorators in :mod:`engine.lorebook.decorators`, timed effects, inclusion groups and recursion
in :mod:`engine.lorebook.scan`, macros in :mod:`engine.macros`; the rules LORE-14..22 are in
docs/LOREBOOKS.md. ``compile_book`` leaves out what it cannot apply and lists it in
``CompiledBook.issues`` (the import report); ``validate_book`` refuses it instead.
"""

from __future__ import annotations

from engine.lorebook.activation import probability_roll
from engine.lorebook.compile import book_issues, compile_book, validate_book
from engine.lorebook.compiled import CompiledBook
from engine.lorebook.model import (
    DEFAULT_SCAN_DEPTH,
    DEFAULT_TOKEN_BUDGET,
    Decorator,
    JsonPairs,
    LoreBook,
    LoreDecision,
    LoreEntry,
    LoreIssue,
    LoreMark,
    LoreMessage,
    LoreResult,
    LoreState,
    LoreTimed,
    Matching,
    Role,
    SelectiveLogic,
    join_decorators,
    json_pairs,
    pairs_to_dict,
    split_decorators,
)
from engine.lorebook.scan import MAX_RECURSION_PASSES, scan_lore

__all__ = [
    "DEFAULT_SCAN_DEPTH",
    "DEFAULT_TOKEN_BUDGET",
    "MAX_RECURSION_PASSES",
    "CompiledBook",
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
    "book_issues",
    "compile_book",
    "join_decorators",
    "json_pairs",
    "pairs_to_dict",
    "probability_roll",
    "scan_lore",
    "split_decorators",
    "validate_book",
]
