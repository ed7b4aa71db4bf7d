"""Decide whether one entry activates this turn, and say why (LORE-3, LORE-4, LORE-10, LORE-12, LORE-14).

Order of checks for an entry:

1. Trigger: an active ``sticky`` effect (LORE-14, unless ``delay`` still holds); ``constant``
   (or ``@@activate``); else a primary key hit — the first primary key, in the entry's order,
   that occurs in the entry's scan depth or in recursed lore content; else an ``@@keep`` mark
   from an earlier turn.
   No trigger → not considered, not logged.
2. Timed effects (LORE-14): ``delay`` (the chat has fewer messages than it) and a running
   ``cooldown`` reject the entry unless it is sticky.
3. ``@@exclude_keys`` (LORE-19): one of them occurs where the primary keys are searched; and
   ``@@additional_keys``: none of them occurs (a later recursion pass may bring one).
4. Secondary keys (only when ``selective`` and at least one non-blank secondary key exists;
   otherwise the primary hit alone activates, as in SillyTavern): AND_ANY = some secondary key
   occurs, AND_ALL = all occur, NOT_ANY = none occurs, NOT_ALL = at least one is missing.
   Constant, sticky and kept entries skip this check.
5. Empty content (nothing to send) → rejected.
6. Gates: ``@@dont_activate``, ``@@is_greeting``, ``@@activate_only_after``,
   ``@@activate_only_every``, ``@@dont_activate_after_match``.

Inclusion groups (LORE-15) and the probability roll come after, in :mod:`engine.lorebook.scan`:
``@@probability``/``probability`` is a roll 1..100 derived from blake2b of
``"{turn_id}:{book}:{entry}"``; the entry passes when ``roll <= probability``. The roll is a
pure function of the turn, so recursion passes and re-renders of a turn agree. Sticky entries
never re-roll (SillyTavern).
"""

from __future__ import annotations

from hashlib import blake2b

import msgspec

from engine.lorebook.compiled import CompiledEntry
from engine.lorebook.match import Hits, chat_hit
from engine.lorebook.model import LoreDecision, LoreTimed

__all__ = ["Activation", "ScanContext", "Verdict", "evaluate_entry", "key_score", "probability_roll", "roll"]


class ScanContext(msgspec.Struct, frozen=True, kw_only=True):
    """Per-turn facts the gates need.

    Attributes:
        turn_id: Current turn id (seeds probability rolls and group rolls).
        message_count: Messages in the chat so far, including the current one.
        at_greeting: Whether the chat is still at the greeting message.
        marks: ``(book, entry) -> turn_id`` of first inclusion, from ``LoreState``.
        sticky: Running sticky effects by ``(book, entry)`` (LORE-14).
        cooldown: Running cooldown effects by ``(book, entry)`` (LORE-14).
    """

    turn_id: str
    message_count: int
    at_greeting: bool
    marks: dict[tuple[str, str], str]
    sticky: dict[tuple[str, str], LoreTimed] = {}
    cooldown: dict[tuple[str, str], LoreTimed] = {}

    def is_sticky(self, entry: CompiledEntry) -> bool:
        """Whether a sticky effect of ``entry`` is running."""
        return (entry.book, entry.id) in self.sticky


class Activation(msgspec.Struct, frozen=True, kw_only=True):
    """An entry that activated; groups, the roll and the budget decide next.

    Attributes:
        entry: The entry.
        reason: Why it activated.
        text: Its content with macros expanded (what recursion scans and the prompt shows).
        sticky: Activated by a running sticky effect (no re-roll, wins its group).
    """

    entry: CompiledEntry
    reason: str
    text: str = ""
    sticky: bool = False


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
    return roll(f"{turn_id}:{book}:{entry}") % 100 + 1


def roll(seed: str) -> int:
    """A 64-bit number derived from ``seed`` (blake2b): the engine's only source of chance."""
    return int.from_bytes(blake2b(seed.encode(), digest_size=8).digest(), "big")


def evaluate_entry(
    entry: CompiledEntry, hits: Hits, ctx: ScanContext, *, pass_no: int, text: str
) -> Verdict | None:
    """Decide one entry for one pass (before inclusion groups and the probability roll).

    Args:
        entry: The entry.
        hits: Key hits of the entry's book so far.
        ctx: Turn facts.
        pass_no: 1 for the chat scan, 2.. for recursion passes.
        text: The entry's content with macros expanded.

    Returns:
        ``None`` when nothing triggers the entry, else a :class:`Verdict`.
    """
    sticky = ctx.sticky.get((entry.book, entry.id))
    if sticky is not None and entry.delay and ctx.message_count < entry.delay:
        sticky = None  # SillyTavern checks the delay before anything else, sticky included
    if sticky is not None:
        reason = f"sticky: active since message {sticky.start}, until message {sticky.end}"
        return Verdict(activation=Activation(entry=entry, reason=reason, text=text, sticky=True))
    found = _trigger(entry, hits, ctx)
    if found is None:
        return None
    trigger, by_key = found
    if pass_no > 1:
        trigger = f"recursion pass {pass_no}: {trigger}"
    timed = _timed(entry, ctx)
    if timed:
        return Verdict(decision=_reject(entry, f"{trigger}; {timed}"))
    excluded = _excluded(entry, hits)
    if excluded:
        return Verdict(decision=_reject(entry, f"{trigger}; {excluded}"))
    if entry.required:
        pairs = zip(entry.required, entry.required_keys, strict=True)
        required = next((key for mid, key in pairs if _found(hits, mid, entry.scan_depth)), None)
        if required is None:
            missing = _reject(entry, f"{trigger}; @@additional_keys: none matched")
            return Verdict(decision=missing, final=False)
        trigger = f"{trigger}; @@additional_keys {required!r}"
    if by_key:
        ok, detail = _secondary(entry, hits)
        if not ok:
            return Verdict(decision=_reject(entry, f"{trigger}; {detail}"), final=False)
        trigger = f"{trigger}; {detail}" if detail else trigger
    reason = _gate(entry, ctx) or ("" if text else "empty content")
    if reason:
        return Verdict(decision=_reject(entry, reason))
    return Verdict(activation=Activation(entry=entry, reason=trigger, text=text))


def _found(hits: Hits, mid: int, depth: int) -> str | None:
    where = chat_hit(hits, mid, depth)
    if where is not None:
        return f"in {where}"
    source = hits.lore.get(mid)
    return None if source is None else f"in {source}"


def _trigger(entry: CompiledEntry, hits: Hits, ctx: ScanContext) -> tuple[str, bool] | None:
    """Return ``(reason, by_key)``; ``by_key`` means secondary keys still apply."""
    if entry.constant:
        return ("@@activate" if entry.options.always else "constant"), False
    chat, regex, depth = hits.chat, hits.regex.get(entry.scan_depth, ()), entry.scan_depth
    for mid, key in zip(entry.primary, entry.primary_keys, strict=True):
        index = chat.get(mid)
        if (index is not None and index < depth) or mid in regex:
            return f"key {key!r} matched in {chat_hit(hits, mid, depth)}", True
    lore = hits.lore
    for mid, key in zip(entry.primary, entry.primary_keys, strict=True):
        source = lore.get(mid)
        if source is not None:
            return f"key {key!r} matched in {source}", True
    kept = ctx.marks.get((entry.book, entry.id))
    if entry.options.keep and kept is not None:
        return f"@@keep: active since turn {kept}", False
    return None


def _timed(entry: CompiledEntry, ctx: ScanContext) -> str | None:
    count = ctx.message_count
    if entry.delay and count < entry.delay:
        return f"delay: the chat has {count} messages, the entry waits for {entry.delay}"
    cooldown = ctx.cooldown.get((entry.book, entry.id))
    if cooldown is not None:
        return f"cooldown: since message {cooldown.start}, until message {cooldown.end}"
    return None


def _excluded(entry: CompiledEntry, hits: Hits) -> str | None:
    for mid, key in zip(entry.exclude, entry.exclude_keys, strict=True):
        where = _found(hits, mid, entry.scan_depth)
        if where is not None:
            return f"@@exclude_keys: {key!r} matched {where}"
    return None


def _secondary_found(entry: CompiledEntry, hits: Hits) -> list[str]:
    return [
        key
        for mid, key in zip(entry.secondary, entry.secondary_keys, strict=True)
        if chat_hit(hits, mid, entry.scan_depth) is not None or mid in hits.lore
    ]


def _secondary(entry: CompiledEntry, hits: Hits) -> tuple[bool, str]:
    if not entry.selective:
        return True, ""
    found = _secondary_found(entry, hits)
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


def key_score(entry: CompiledEntry, hits: Hits) -> int:
    """SillyTavern's group score (LORE-15): primary keys found, plus secondary ones for AND logic.

    Args:
        entry: The entry.
        hits: Its book's hits.

    Returns:
        The score (0 for an entry without primary keys).
    """
    if not entry.primary:
        return 0
    primary = sum(
        1 for mid in entry.primary if chat_hit(hits, mid, entry.scan_depth) is not None or mid in hits.lore
    )
    if not entry.secondary:
        return primary
    secondary = len(_secondary_found(entry, hits))
    if entry.logic == "AND_ANY" or (entry.logic == "AND_ALL" and secondary == len(entry.secondary)):
        return primary + secondary
    return primary


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


def _reject(entry: CompiledEntry, reason: str) -> LoreDecision:
    return LoreDecision(book=entry.book, entry=entry.id, name=entry.name, included=False, reason=reason)
