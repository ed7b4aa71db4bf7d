"""The import report (LORE-21): per entry, what a book uses that Hearth ignores, and why.

Two sources: :func:`engine.lorebook.book_issues` (regex keys RE2 cannot run, invalid or unknown
decorators: the entry imports, that part is left out) and the SillyTavern fields Hearth has no
equivalent for, read from the entry's unknown fields (World Info names) and its ``extensions``
(card names). Fields whose value is the default are not reported.
"""

from __future__ import annotations

from typing import Any

import msgspec

from adapters.cards.mapping import ST_TO_CARD_EXT
from engine.lorebook import LoreBook, LoreEntry, LoreIssue, book_issues, pairs_to_dict

__all__ = ["import_report", "report_view"]

_SLOT = "not applied: Hearth renders lore into one slot; move the slot in the prompt template (LORE-9)"
_ONLY_CHAT = "not applied: Hearth scans only chat messages (and recursed lore)"
_REASONS: dict[str, str] = {
    "characterFilter": "not applied: attach the book to the chats or personas it is for (LORE-1)",
    "triggers": "not applied: Hearth has one kind of generation",
    "ignoreBudget": "not applied: every entry counts against the token budget (LORE-7)",
    "vectorized": "not applied: vector matching of entries",
    "automationId": "not applied: automations",
    "matchPersonaDescription": _ONLY_CHAT,
    "matchCharacterDescription": _ONLY_CHAT,
    "matchCharacterPersonality": _ONLY_CHAT,
    "matchCharacterDepthPrompt": _ONLY_CHAT,
    "matchScenario": _ONLY_CHAT,
    "matchCreatorNotes": _ONLY_CHAT,
}
_ST_POSITIONS = {
    2: "author's note top",
    3: "author's note bottom",
    4: "at depth",
    5: "example top",
    6: "example bottom",
    7: "outlet",
}


def import_report(book: LoreBook) -> tuple[LoreIssue, ...]:
    """Everything of ``book`` that is ignored or not applied, in entry order.

    Args:
        book: An imported book.

    Returns:
        The issues (empty when the book imports entirely).
    """
    engine: dict[str, dict[str, LoreIssue]] = {}
    for issue in book_issues(book):
        engine.setdefault(issue.entry, {})[issue.field] = issue
    issues: list[LoreIssue] = []
    for entry in book.entries:
        issues.extend(engine.get(entry.id, {}).values())
        issues.extend(_field_issues(entry))
    return tuple(issues)


def report_view(issues: tuple[LoreIssue, ...]) -> list[dict[str, str]]:
    """The report as the API answers it: ``[{"entry", "name", "field", "reason", "code"}]``."""
    return [msgspec.to_builtins(issue) for issue in issues]


def _field_issues(entry: LoreEntry) -> list[LoreIssue]:
    fields = _st_fields(entry)
    found: list[LoreIssue] = []

    def add(field: str, reason: str) -> None:
        found.append(LoreIssue(entry=entry.id, name=entry.comment, field=field, reason=reason))

    position = fields.get("position")
    if isinstance(position, int) and not isinstance(position, bool) and position in _ST_POSITIONS:
        add(f"position {position} ({_ST_POSITIONS[position]})", _SLOT)
    elif isinstance(position, str) and position not in ("before_char", "after_char"):
        add(f"position {position!r}", _SLOT)
    for name, reason in _REASONS.items():
        if _is_set(fields.get(name)):
            add(name, reason)
    return found


def _st_fields(entry: LoreEntry) -> dict[str, Any]:
    """The entry's SillyTavern fields by their World Info names, from ``extra`` then ``extensions``."""
    extra, ext = pairs_to_dict(entry.extra), pairs_to_dict(entry.extensions)
    fields = {name: ext[card] for name, card in ST_TO_CARD_EXT.items() if card in ext}
    fields.update({k: v for k, v in ext.items() if k in _REASONS})
    card_position = extra.pop("position", None)
    fields.update(extra)
    if card_position not in (None, "before_char", "after_char") or "position" not in fields:
        fields["position"] = card_position  # a card's own position string, or World Info's number
    return fields


def _is_set(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_is_set(v) for k, v in value.items() if k != "isExclude")
    return bool(value)
