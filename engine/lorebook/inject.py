"""Token budget, ordering and rendering of activated entries (LORE-7, LORE-8, LORE-9, LORE-11).

Budget (LORE-7): activated entries are ranked by priority (highest first; ties: higher order,
then entry id, then book id) and kept as the longest prefix of that ranking whose token total
fits the budget. Equivalently, while the total is over budget the lowest-ranked entry is
dropped, so an entry is never dropped while a lower-priority one stays. Token counts come from
the ``count_tokens`` function the caller passes (the active model's tokenizer, LORE-11).

Order (LORE-8): survivors are sorted by order (highest first), then priority (highest first),
then entry id (numeric ids numerically), then book id — a total order, so the output does not
depend on the order in which books or entries were given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from engine.lorebook.activation import Activation
from engine.lorebook.compiled import CompiledEntry
from engine.lorebook.model import LoreDecision, LoreMessage

__all__ = ["Counted", "apply_budget", "order_key", "rank_key", "render"]


class Counted(msgspec.Struct, frozen=True, kw_only=True):
    """An activation with its token count."""

    activation: Activation
    tokens: int


def rank_key(entry: CompiledEntry) -> tuple[int, int, tuple[int, int, str], str]:
    """Budget ranking key: smaller sorts first and survives first."""
    return (-entry.options.priority, -entry.options.order, entry.id_key, entry.book)


def order_key(entry: CompiledEntry) -> tuple[int, int, tuple[int, int, str], str]:
    """Prompt order key: smaller sorts earlier in the lorebook slot."""
    return (-entry.options.order, -entry.options.priority, entry.id_key, entry.book)


def apply_budget(
    activations: Sequence[Activation], budget: int, count_tokens: Callable[[str], int]
) -> tuple[tuple[Counted, ...], tuple[LoreDecision, ...]]:
    """Keep the highest-priority prefix of the activations that fits the budget.

    Args:
        activations: Activated entries (any order).
        budget: Token budget.
        count_tokens: Token counter for an entry's text.

    Returns:
        ``(kept, dropped)``: kept entries with token counts, in rank order, and a decision for
        every dropped entry.
    """
    ranked = sorted(activations, key=lambda a: rank_key(a.entry))
    kept: list[Counted] = []
    dropped: list[LoreDecision] = []
    used = 0
    blocker: CompiledEntry | None = None
    for activation in ranked:
        tokens = count_tokens(activation.text)
        if blocker is None and used + tokens <= budget:
            kept.append(Counted(activation=activation, tokens=tokens))
            used += tokens
            continue
        reason = _drop_reason(activation.entry, tokens, budget - used, blocker)
        dropped.append(_decision(activation.entry, reason, tokens, included=False))
        blocker = blocker or activation.entry
    return tuple(kept), tuple(dropped)


def render(
    kept: Sequence[Counted],
) -> tuple[tuple[LoreMessage, ...], tuple[LoreDecision, ...], int]:
    """Order survivors and render one message per entry with its role (LORE-9).

    Args:
        kept: Entries that fit the budget.

    Returns:
        ``(messages, decisions, tokens)`` in prompt order.
    """
    ordered = sorted(kept, key=lambda c: order_key(c.activation.entry))
    messages = tuple(
        LoreMessage(
            role=c.activation.entry.options.role,
            text=c.activation.text,
            book=c.activation.entry.book,
            entry=c.activation.entry.id,
        )
        for c in ordered
    )
    decisions = tuple(
        _decision(c.activation.entry, c.activation.reason, c.tokens, included=True) for c in ordered
    )
    return messages, decisions, sum(c.tokens for c in ordered)


def _drop_reason(entry: CompiledEntry, tokens: int, left: int, blocker: CompiledEntry | None) -> str:
    priority = entry.options.priority
    if blocker is None:
        return f"dropped: token budget (priority {priority}, {tokens} tokens, {left} left)"
    return (
        f"dropped: token budget (priority {priority}, {tokens} tokens; ranks below "
        f"entry {blocker.id} of book {blocker.book}, which did not fit)"
    )


def _decision(entry: CompiledEntry, reason: str, tokens: int, *, included: bool) -> LoreDecision:
    return LoreDecision(
        book=entry.book,
        entry=entry.id,
        name=entry.name,
        included=included,
        reason=reason,
        tokens=tokens,
    )
