"""The per-turn lorebook scan: ``scan_lore`` (LORE-1..12, LORE-14..17).

Theory of operation. All attached books form one pool (LORE-1). One scan:

1. Timed effects (LORE-14): the chat's running ``sticky``/``cooldown`` effects are brought to
   this message count as SillyTavern does (an effect ends when the count reaches its ``end``; a
   sticky effect that ends starts the entry's cooldown). A regenerate of the turn that wrote the
   state starts from the effects as they were *before* that turn, so it undoes them.
2. Builds the scan buffer once: the newest ``max(scan depth)`` messages, newest first,
   normalized (see :mod:`engine.lorebook.match`), and finds every book's key hits in one
   automaton pass per book (macro keys expanded first, LORE-17).
3. Pass 1 considers sticky, constant, ``@@keep`` entries and entries with a primary key hit,
   except entries delayed until recursion (LORE-16); each is decided by
   :func:`engine.lorebook.activation.evaluate_entry`; then the pass's activations go through
   inclusion groups (LORE-15) and the probability roll.
4. Recursion (LORE-2, LORE-16): the content of entries activated in the previous pass (unless
   they ``prevent_recursion``) is matched against the keys of every book whose
   ``recursive_scanning`` is on; entries of those books that gain a key hit are decided in the
   next pass, except ``exclude_recursion`` entries. At most ``MAX_RECURSION_PASSES`` such passes
   per delay level. Entries with ``delay_until_recursion`` level L join the recursion passes
   once the current level reaches L: the first level is current from the start, and when the
   recursion stops and higher levels remain, the next level becomes current and one more pass
   runs (SillyTavern's rule). Each pass only looks at what the previous pass added, so the work
   is linear in the activations. An activated entry stays activated; a secondary-key rejection
   can be revisited when recursion brings new secondary hits; other rejections are final.
5. The token budget is the highest budget of the pooled books; :mod:`engine.lorebook.inject`
   drops lowest-priority entries first, orders survivors (higher order first) and renders one
   ``LoreMessage`` per entry.
6. ``LoreState`` gains a mark for each included ``@@keep`` / ``@@dont_activate_after_match``
   entry not marked yet, and a sticky/cooldown effect for each included entry that has one and
   none running; the caller stores the returned state with the turn.

Budget. A caller may pass ``out_of_time``: it is asked every ``CHECK_EVERY`` units of work (an
entry evaluated, a lore text matched against a book) and once per pass; when it answers True the
scan stops where it is and renders what was activated so far, with ``LoreResult.cut_short`` set.
The work of one scan is linear in the entries it considers and the texts it matches, whatever the
number of delay levels, but a pool of many large books can still take seconds: the budget bounds
that.

Invariants: the result depends only on the arguments (no clock, no randomness: rolls hash the
turn id; a scan ``out_of_time`` never stops is the same whatever it reads); included tokens never
exceed the budget; output order is a total order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, Literal

from engine.errors import InvalidInput
from engine.lorebook.activation import (
    Activation,
    ScanContext,
    evaluate_entry,
    key_score,
    probability_roll,
    roll,
)
from engine.lorebook.compile import id_sort_key
from engine.lorebook.compiled import CompiledBook, CompiledEntry
from engine.lorebook.inject import apply_budget, rank_key, render
from engine.lorebook.match import Hits, ResolvedKey, build_buffer, match_buffer, match_text, resolve_dynamic
from engine.lorebook.model import LoreDecision, LoreMark, LoreResult, LoreState, LoreTimed
from engine.macros import MacroContext, expand

__all__ = ["CHECK_EVERY", "MAX_RECURSION_PASSES", "scan_lore"]

MAX_RECURSION_PASSES: Final = 3
CHECK_EVERY: Final = 64
"""Units of work (entries evaluated, lore texts matched) between two calls of ``out_of_time``."""

_Ref = tuple[int, int]  # (book position in the pool, entry position in the book)
_Key = tuple[str, str]  # (book id, entry id)


def scan_lore(
    books: Sequence[CompiledBook],
    messages: Sequence[str],
    state: LoreState,
    *,
    turn_id: str,
    message_count: int,
    at_greeting: bool,
    count_tokens: Callable[[str], int],
    macros: MacroContext | None = None,
    out_of_time: Callable[[], bool] | None = None,
) -> LoreResult:
    """Scan the chat against the attached books and render the lorebook slot.

    Args:
        books: Compiled books attached to the chat/persona (see ``compile_book``).
        messages: Recent chat messages (user's and persona's), oldest first, newest last;
            passing more than the largest scan depth is fine.
        state: The chat's lore state from the previous turn (``LoreState()`` for a new chat).
        turn_id: Id of the turn being built; seeds rolls, ``@@keep`` marks and timed effects.
        message_count: Messages in the chat so far, including the current one.
        at_greeting: Whether the chat is still at the greeting message (``@@is_greeting``).
        count_tokens: Token counter of the active model (LORE-11).
        macros: Names, message time and seeds for macros in keys and content (LORE-17);
            ``None`` leaves macros as written.
        out_of_time: Asked between units of work; True stops the scan with what it activated
            so far (``cut_short``). ``None``: no budget.

    Returns:
        Rendered messages, the decision log, the updated state and the token total.

    Raises:
        InvalidInput: ``duplicate_book`` when two books in the pool share an id.
    """
    _check_pool(books)
    if not books:
        return LoreResult(state=state)
    base = state.before if state.turn == turn_id else state.timed
    sticky, cooldown = _running(books, base, message_count)
    ctx = ScanContext(
        turn_id=turn_id,
        message_count=message_count,
        at_greeting=at_greeting,
        marks={(mark.book, mark.entry): mark.turn_id for mark in state.marks},
        sticky=sticky,
        cooldown=cooldown,
    )
    activations, rejections, cut_short = _activate(books, messages, ctx, macros, out_of_time)
    budget = max(book.token_budget for book in books)
    kept, dropped = apply_budget(activations, budget, count_tokens)
    lore, included, tokens = render(kept)
    rejected = sorted([*rejections, *dropped], key=lambda d: (d.book, id_sort_key(d.entry)))
    entries = [c.activation.entry for c in kept]
    return LoreResult(
        messages=lore,
        decisions=included + tuple(rejected),
        state=_next_state(state, entries, turn_id, base, ctx),
        tokens=tokens,
        cut_short=cut_short,
    )


def _check_pool(books: Sequence[CompiledBook]) -> None:
    ids = [book.id for book in books]
    for book_id in ids:
        if ids.count(book_id) > 1:
            raise InvalidInput(f"book {book_id!r} is attached twice to one scan", code="duplicate_book")


def _running(
    books: Sequence[CompiledBook], base: tuple[LoreTimed, ...], count: int
) -> tuple[dict[_Key, LoreTimed], dict[_Key, LoreTimed]]:
    """Timed effects still running at ``count`` (SillyTavern's ``checkTimedEffects``)."""
    lookup = {(book.id, book.entries[i].id): book.entries[i] for book in books for i in book.timed}
    running: dict[str, dict[_Key, LoreTimed]] = {"sticky": {}, "cooldown": {}}
    ordered = [t for t in base if t.kind == "sticky"] + [t for t in base if t.kind == "cooldown"]
    for effect in ordered:
        key = (effect.book, effect.entry)
        entry = lookup.get(key)
        if count <= effect.start and not effect.protected:
            continue  # the chat did not advance past the effect's start (messages were removed)
        if entry is None:
            if count < effect.end and not any(book.id == effect.book for book in books):
                running[effect.kind][key] = effect  # its book is not in this pool: keep it
            continue
        if not getattr(entry, effect.kind):
            continue
        if count >= effect.end:
            if effect.kind == "sticky" and entry.cooldown:
                running["cooldown"][key] = LoreTimed(
                    book=effect.book,
                    entry=effect.entry,
                    kind="cooldown",
                    start=count,
                    end=count + entry.cooldown,
                    protected=True,
                )
            continue
        running[effect.kind].setdefault(key, effect)
    return running["sticky"], running["cooldown"]


def _activate(
    books: Sequence[CompiledBook],
    messages: Sequence[str],
    ctx: ScanContext,
    macros: MacroContext | None,
    out_of_time: Callable[[], bool] | None,
) -> tuple[list[Activation], list[LoreDecision], bool]:
    resolved = [resolve_dynamic(book, macros) for book in books]
    buffer = build_buffer(
        messages,
        max(book.depth for book in books),
        need_exact=any(
            book.exact is not None or any(not k.fold and k.pattern is None for k in keys)
            for book, keys in zip(books, resolved, strict=True)
        ),
    )
    hits = [match_buffer(book, buffer, keys) for book, keys in zip(books, resolved, strict=True)]
    pool = _Pool(books, hits, resolved, ctx, macros, out_of_time)
    pool.run()
    return (*pool.outcome(), pool.stopped)


class _Pool:
    """Bookkeeping of one scan; local to ``scan_lore`` and never shared, so the scan stays pure."""

    def __init__(
        self,
        books: Sequence[CompiledBook],
        hits: list[Hits],
        resolved: list[tuple[ResolvedKey, ...]],
        ctx: ScanContext,
        macros: MacroContext | None,
        out_of_time: Callable[[], bool] | None = None,
    ) -> None:
        self.books = books
        self.hits = hits
        self.resolved = resolved
        self.ctx = ctx
        self.macros = macros
        self.activated: dict[_Ref, Activation] = {}
        self.rejected: dict[_Ref, LoreDecision] = {}
        self.final: set[_Ref] = set()
        self.levels = sorted({level for book in books for level in book.delay_levels})
        self.level = self.levels[0] if self.levels else 0
        # Delayed entries of the pool by level; ``unlocked`` hands out each one once (LORE-16).
        self.waiting = sorted(
            ((book.entries[e].delay_level, b, e) for b, book in enumerate(books) for e in book.delayed),
            reverse=True,
        )
        self.groups_done: dict[str, _Ref] = {}
        self.out_of_time = out_of_time
        self.work = 0
        self.stopped = False

    def spent(self, units: int = 1) -> bool:
        """Count work; ask ``out_of_time`` every ``CHECK_EVERY`` units. True once the budget is spent."""
        if self.out_of_time is None:
            return False
        if not self.stopped:
            self.work += units
            if self.work >= CHECK_EVERY:
                self.work = 0
                self.stopped = self.out_of_time()
        return self.stopped

    def run(self) -> None:
        """Pass 1, then recursion passes and delay levels (LORE-2, LORE-16)."""
        fresh = self.decide(self.first_candidates(), pass_no=1)
        pass_no, passes, unlocked, level_at = 2, 0, False, 0
        while not self.spent(CHECK_EVERY):
            candidates: set[_Ref] = set()
            if passes < MAX_RECURSION_PASSES:  # content after the last allowed pass is not scanned
                natural = any(b.recursive for b in self.books) and any(
                    not self.activated[ref].entry.prevent_recursion for ref in fresh
                )
                candidates.update(self.recursion_candidates(self.recurse(fresh)))
                if natural and not unlocked:
                    candidates.update(self.unlocked())
                    unlocked = True
            if not candidates:
                if level_at + 1 >= len(self.levels):
                    return
                level_at += 1
                self.level, passes, unlocked = self.levels[level_at], 0, True
                candidates = set(self.unlocked())
            fresh = self.decide(sorted(candidates), pass_no=pass_no)
            pass_no += 1
            passes += 1

    def first_candidates(self) -> list[_Ref]:
        """Sticky and constant entries, entries with a primary hit in the chat, ``@@keep`` entries."""
        refs: set[_Ref] = set()
        sticky = self.ctx.sticky
        for b, book in enumerate(self.books):
            refs.update((b, e) for e in book.always)
            for mid in self.hits[b].chat:
                refs.update((b, e) for e in book.by_primary.get(mid, ()))
            for found in self.hits[b].regex.values():
                for mid in found:
                    refs.update((b, e) for e in book.by_primary.get(mid, ()))
            for book_id, entry_id in (*self.ctx.marks, *sticky):
                position = book.index_of.get(entry_id) if book_id == book.id else None
                if position is not None:
                    refs.add((b, position))
        return sorted(
            ref for ref in refs if not self._entry(ref).delay_level or self.ctx.is_sticky(self._entry(ref))
        )

    def unlocked(self) -> list[_Ref]:
        """Entries delayed until recursion whose level was reached since the last call and that
        are still open.

        An entry unlocked earlier and not activated is not handed out again: its verdict can only
        change with new key hits, and those bring it back through :meth:`recursion_candidates`.
        So a scan over many levels costs what their entries cost, not levels × entries.
        """
        refs: list[_Ref] = []
        waiting = self.waiting
        while waiting and waiting[-1][0] <= self.level:
            _, b, e = waiting.pop()
            book = self.books[b]
            if (b, e) in self.activated or (b, e) in self.final:
                continue
            if not (book.recursive and book.entries[e].exclude_recursion):
                refs.append((b, e))
        return sorted(refs)

    def _entry(self, ref: _Ref) -> CompiledEntry:
        return self.books[ref[0]].entries[ref[1]]

    def decide(self, candidates: Iterable[_Ref], *, pass_no: int) -> list[_Ref]:
        """Evaluate candidates, then groups and rolls; return the refs that activated in this pass."""
        pending: dict[_Ref, Activation] = {}
        for ref in candidates:
            if self.spent():
                break
            entry = self._entry(ref)
            text = expand(entry.text, self.macros) if self.macros is not None else entry.text
            verdict = evaluate_entry(entry, self.hits[ref[0]], self.ctx, pass_no=pass_no, text=text)
            if verdict is None:
                continue
            if verdict.activation is not None:
                pending[ref] = verdict.activation
            elif verdict.decision is not None:
                self.rejected[ref] = verdict.decision
                if verdict.final:
                    self.final.add(ref)
        self._groups(pending)
        fresh: list[_Ref] = []
        for ref, activation in pending.items():
            reason = None if activation.sticky else _roll(activation.entry, self.ctx)
            if reason:
                self._reject(ref, reason)
                continue
            self.activated[ref] = activation
            self.rejected.pop(ref, None)
            fresh.append(ref)
        return fresh

    def _reject(self, ref: _Ref, reason: str) -> None:
        entry = self._entry(ref)
        self.rejected[ref] = LoreDecision(
            book=entry.book, entry=entry.id, name=entry.name, included=False, reason=reason
        )
        self.final.add(ref)

    def _groups(self, pending: dict[_Ref, Activation]) -> None:
        """SillyTavern's inclusion groups over one pass's activations (LORE-15)."""
        grouped: dict[str, list[_Ref]] = {}
        order = sorted(pending, key=lambda r: (not pending[r].sticky, rank_key(pending[r].entry)))
        for ref in order:
            for name in pending[ref].entry.groups:
                grouped.setdefault(name, []).append(ref)
        for name in sorted(grouped):
            members = [ref for ref in grouped[name] if ref in pending]
            if not members:
                continue
            winner, lost, won = self._group_winner(name, members, pending)
            for ref in members:
                if ref != winner:
                    pending.pop(ref)
                    self._reject(ref, lost)
            if winner is not None:  # the group's last winner: one that lost elsewhere frees it again
                self.groups_done[name] = winner
                if won:
                    old = pending[winner]
                    pending[winner] = Activation(
                        entry=old.entry, reason=f"{old.reason}; {won}", text=old.text, sticky=old.sticky
                    )

    def _group_winner(
        self, name: str, members: list[_Ref], pending: dict[_Ref, Activation]
    ) -> tuple[_Ref | None, str, str]:
        """``(winner, reason for the losers, reason added to the winner)`` of one group."""
        label = f"inclusion group {name!r}"
        earlier = self.groups_done.get(name)
        if earlier is not None and earlier in self.activated:
            return None, f"{label}: entry {self._entry(earlier).id} won it in an earlier pass", ""
        sticky = [ref for ref in members if pending[ref].sticky]
        if sticky:
            sticky_id = self._entry(sticky[0]).id
            return sticky[0], f"{label}: lost to sticky entry {sticky_id}", f"won {label} (sticky)"
        alone = len(members) == 1
        if not alone and any(self._entry(ref).scored for ref in members):
            scores = {ref: key_score(self._entry(ref), self.hits[ref[0]]) for ref in members}
            best = max(scores.values())
            for ref in [r for r in members if self._entry(r).scored and scores[r] < best]:
                members.remove(ref)
                pending.pop(ref)
                self._reject(ref, f"{label}: lost by group scoring ({scores[ref]} keys matched, best {best})")
        if len(members) == 1:
            return members[0], "", "" if alone else f"won {label} (group scoring)"
        override = [ref for ref in members if self._entry(ref).group_override]
        if override:
            top = self._entry(override[0])
            why = f"group override, priority {top.options.priority}"
            return override[0], f"{label}: lost to entry {top.id} ({why})", f"won {label} ({why})"
        weights = [max(self._entry(ref).group_weight, 0) for ref in members]
        total = sum(weights)
        point = roll(f"{self.ctx.turn_id}:group:{name}") / 2**64 * total
        running = 0
        chosen = members[-1]
        for ref, weight in zip(members, weights, strict=True):
            running += weight
            if point <= running and weight > 0:
                chosen = ref
                break
        shown = ", ".join(f"{self._entry(r).id}:{w}" for r, w in zip(members, weights, strict=True))
        why = f"weighted roll {point:.0f} of {total}; weights {shown}"
        return chosen, f"{label}: lost to entry {self._entry(chosen).id} ({why})", f"won {label} ({why})"

    def recurse(self, fresh: Sequence[_Ref]) -> list[list[int]]:
        """Match the content of fresh activations against recursive books; return new mids.

        Only the fresh sources are matched, and each mid is checked against the hits so far
        by lookup, so a scan does work linear in its activations (LORE-16).
        """
        # Sorted by (book, id) so the "matched in entry X" label ignores the pool's order.
        sources = sorted(
            (ref for ref in fresh if not self.activated[ref].entry.prevent_recursion),
            key=lambda r: (self._entry(r).book, self._entry(r).id_key),
        )
        new_mids: list[list[int]] = [[] for _ in self.books]
        for b, book in enumerate(self.books):
            if not book.recursive:
                continue
            lore, resolved, found = self.hits[b].lore, self.resolved[b], new_mids[b]
            for ref in sources:
                if self.spent():
                    return new_mids
                source = self.activated[ref]
                label = f"entry {source.entry.id}"
                label += "" if source.entry.book == book.id else f" of {source.entry.book}"
                known = book.content[ref[1]] if ref[0] == b and book.content else None
                if known is None:
                    mids = match_text(book, source.text, resolved, lore)
                else:  # precomputed at compile time; only macro keys are matched now
                    mids = [m for m in known if m not in lore]
                    if resolved:
                        mids += match_text(book, source.text, resolved, lore, dynamic_only=True)
                for mid in mids:
                    if mid not in lore:
                        lore[mid] = label
                        found.append(mid)
        return new_mids

    def recursion_candidates(self, new_mids: Sequence[list[int]]) -> list[_Ref]:
        """Entries using a newly hit key that may still activate by recursion."""
        refs: set[_Ref] = set()
        for b, book in enumerate(self.books):
            for index in (book.by_primary, book.by_secondary):
                if index:
                    for mid in new_mids[b]:
                        for e in index.get(mid, ()):
                            refs.add((b, e))
        return sorted(ref for ref in refs if self._open(ref))

    def _open(self, ref: _Ref) -> bool:
        entry = self._entry(ref)
        if ref in self.activated or ref in self.final:
            return False
        if self.ctx.is_sticky(entry):
            return True
        return not entry.exclude_recursion and entry.delay_level <= self.level

    def outcome(self) -> tuple[list[Activation], list[LoreDecision]]:
        """Activated entries and rejection decisions, in pool order."""
        return (
            [self.activated[ref] for ref in sorted(self.activated)],
            [self.rejected[ref] for ref in sorted(self.rejected)],
        )


def _roll(entry: CompiledEntry, ctx: ScanContext) -> str | None:
    chance = entry.options.probability
    if chance is None or chance >= 100:
        return None
    value = probability_roll(ctx.turn_id, entry.book, entry.id)
    return None if value <= chance else f"dropped: probability roll {value} > {chance}"


def _next_state(
    state: LoreState,
    included: Sequence[CompiledEntry],
    turn_id: str,
    base: tuple[LoreTimed, ...],
    ctx: ScanContext,
) -> LoreState:
    marks = {(mark.book, mark.entry): mark for mark in state.marks}
    for entry in included:
        if (entry.options.keep or entry.options.once) and (entry.book, entry.id) not in marks:
            marks[(entry.book, entry.id)] = LoreMark(book=entry.book, entry=entry.id, turn_id=turn_id)
    running = {("sticky", *key): t for key, t in ctx.sticky.items()}
    running.update({("cooldown", *key): t for key, t in ctx.cooldown.items()})
    count = ctx.message_count
    for entry in included:
        timers: tuple[tuple[Literal["sticky", "cooldown"], int], ...] = (
            ("sticky", entry.sticky),
            ("cooldown", entry.cooldown),
        )
        for kind, length in timers:
            if length and (kind, entry.book, entry.id) not in running:
                running[(kind, entry.book, entry.id)] = LoreTimed(
                    book=entry.book, entry=entry.id, kind=kind, start=count, end=count + length
                )
    timed = tuple(running[key] for key in sorted(running))
    if not timed and not base and not state.timed and len(marks) == len(state.marks):
        return state
    if not timed and not base:
        return LoreState(marks=tuple(marks[key] for key in sorted(marks)))
    return LoreState(marks=tuple(marks[key] for key in sorted(marks)), timed=timed, turn=turn_id, before=base)
