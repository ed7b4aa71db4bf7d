"""Decide whether one entry activates this turn, and say why (LORE-3, LORE-4, LORE-10, LORE-12).

Order of checks for an entry:

1. Trigger: ``constant`` (or ``@@activate``); else a primary key hit — the first primary key,
   in the entry's order, that occurs in the entry's scan depth or in recursed lore content;
   else an ``@@keep`` mark from an earlier turn. No trigger → not considered, not logged.
2. Secondary keys (only when ``selective`` and at least one non-blank secondary key exists;
   otherwise the primary hit alone activates, as in SillyTavern): AND_ANY = some secondary key
   occurs, AND_ALL = all occur, NOT_ANY = none occurs, NOT_ALL = at least one is missing.
   Constant and kept entries skip this check.
3. Empty content (nothing to send) → rejected.
4. Gates: ``@@dont_activate``, ``@@is_greeting``, ``@@activate_only_after``,
   ``@@activate_only_every``, ``@@dont_activate_after_match``.
5. ``@@probability``/``probability``: a roll 1..100 derived from blake2b of
   ``"{turn_id}:{book}:{entry}"``; the entry passes when ``roll <= probability``. The roll is a
   pure function of the turn, so recursion passes and re-renders of a turn agree.
"""

from __future__ import annotations

from hashlib import blake2b
from typing import Final

import msgspec

from engine.lorebook.compile import CompiledEntry
from engine.lorebook.model import LoreDecision

__all__ = ["Activation", "Hits", "ScanContext", "Verdict", "evaluate_entry", "probability_roll"]

_FAR: Final = 1 << 30


class ScanContext(msgspec.Struct, frozen=True, kw_only=True):
    """Per-turn facts the gates need.

    Attributes:
        turn_id: Current turn id (seeds probability rolls).
        message_count: Messages in the chat so far, including the current one.
        at_greeting: Whether the chat is still at the greeting message.
        marks: ``(book, entry) -> turn_id`` of first inclusion, from ``LoreState``.
    """

    turn_id: str
    message_count: int
    at_greeting: bool
    marks: dict[tuple[str, str], str]


class Hits(msgspec.Struct, frozen=True, kw_only=True):
    """Key hits of one book: chat ``{mid: newest message index}``, lore ``{mid: source label}``."""

    chat: dict[int, int]
    lore: dict[int, str]


class Activation(msgspec.Struct, frozen=True, kw_only=True):
    """An entry that activated and passed its roll; the budget decides next."""

    entry: CompiledEntry
    reason: str


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    """Outcome for a considered entry: ``activation`` or a rejection ``decision``.

    ``final`` is False for secondary-key failures, which a later recursion pass may revisit.
    """

    activation: Activation | None = None
    decision: LoreDecision | None = None
    final: bool = True


def probability_roll(turn_id: str, book: str, entry: str) -> int:
    """Deterministic roll in 1..100 for an entry in a turn.

    Args:
        turn_id: The turn id.
        book: Book id.
        entry: Entry id.

    Returns:
        The roll; stable for the same arguments.
    """
    digest = blake2b(f"{turn_id}:{book}:{entry}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % 100 + 1


def evaluate_entry(entry: CompiledEntry, hits: Hits, ctx: ScanContext, *, pass_no: int) -> Verdict | None:
    """Decide one entry for one pass.

    Args:
        entry: The entry.
        hits: Key hits of the entry's book so far.
        ctx: Turn facts.
        pass_no: 1 for the chat scan, 2.. for recursion passes.

    Returns:
        ``None`` when nothing triggers the entry, else a :class:`Verdict`.
    """
    found = _trigger(entry, hits, ctx)
    if found is None:
        return None
    trigger, by_key = found
    if pass_no > 1:
        trigger = f"recursion pass {pass_no}: {trigger}"
    if by_key:
        ok, detail = _secondary(entry, hits)
        if not ok:
            return Verdict(decision=_reject(entry, f"{trigger}; {detail}"), final=False)
        trigger = f"{trigger}; {detail}" if detail else trigger
    reason = _gate(entry, ctx) or _empty(entry) or _roll(entry, ctx)
    if reason:
        return Verdict(decision=_reject(entry, reason))
    return Verdict(activation=Activation(entry=entry, reason=trigger))


def _trigger(entry: CompiledEntry, hits: Hits, ctx: ScanContext) -> tuple[str, bool] | None:
    """Return ``(reason, by_key)``; ``by_key`` means secondary keys still apply."""
    if entry.constant:
        return ("@@activate" if entry.options.always else "constant"), False
    for mid, key in zip(entry.primary, entry.primary_keys, strict=True):
        depth = hits.chat.get(mid, _FAR)
        if depth < entry.scan_depth:
            where = "the newest message" if depth == 0 else f"message {depth + 1} from the end"
            return f"key {key!r} matched in {where}", True
    for mid, key in zip(entry.primary, entry.primary_keys, strict=True):
        source = hits.lore.get(mid)
        if source is not None:
            return f"key {key!r} matched in {source}", True
    kept = ctx.marks.get((entry.book, entry.id))
    if entry.options.keep and kept is not None:
        return f"@@keep: active since turn {kept}", False
    return None


def _secondary(entry: CompiledEntry, hits: Hits) -> tuple[bool, str]:
    if not entry.selective:
        return True, ""
    found = [
        key
        for mid, key in zip(entry.secondary, entry.secondary_keys, strict=True)
        if hits.chat.get(mid, _FAR) < entry.scan_depth or mid in hits.lore
    ]
    any_found, all_found = bool(found), len(found) == len(entry.secondary)
    ok = {
        "AND_ANY": any_found,
        "AND_ALL": all_found,
        "NOT_ANY": not any_found,
        "NOT_ALL": not all_found,
    }[entry.logic]
    label = entry.logic.replace("_", " ")
    if not ok:
        return False, f"secondary: {label} failed"
    shown = ", ".join(repr(key) for key in found)
    return True, f"secondary {label}" + (f" ({shown})" if entry.logic.startswith("AND") else "")


def _gate(entry: CompiledEntry, ctx: ScanContext) -> str | None:
    options, count = entry.options, ctx.message_count
    if options.never:
        return "@@dont_activate"
    if options.greeting_only and not ctx.at_greeting:
        return "@@is_greeting: chat past greeting"
    if count < options.activate_only_after:
        return f"@@activate_only_after {options.activate_only_after}: only {count} messages"
    every = options.activate_only_every
    if every > 1 and count % every:
        return f"@@activate_only_every {every}: message {count}"
    first = ctx.marks.get((entry.book, entry.id))
    if options.once and first is not None and first != ctx.turn_id:
        return f"@@dont_activate_after_match: already matched in turn {first}"
    return None


def _empty(entry: CompiledEntry) -> str | None:
    return None if entry.text else "empty content"


def _roll(entry: CompiledEntry, ctx: ScanContext) -> str | None:
    chance = entry.options.probability
    if chance is None or chance >= 100:
        return None
    roll = probability_roll(ctx.turn_id, entry.book, entry.id)
    return None if roll <= chance else f"dropped: probability roll {roll} > {chance}"


def _reject(entry: CompiledEntry, reason: str) -> LoreDecision:
    return LoreDecision(book=entry.book, entry=entry.id, name=entry.name, included=False, reason=reason)
