"""The per-turn lorebook scan: ``scan_lore`` (LORE-1..12).

Theory of operation. All attached books form one pool (LORE-1). One scan:

1. Builds the scan buffer once: the newest ``max(scan depth)`` messages, newest first,
   normalized (see :mod:`engine.lorebook.match`), and finds every book's key hits in one
   automaton pass per book.
2. Pass 1 considers constant entries, entries kept by ``@@keep`` marks, and entries with a
   primary key hit; each is decided by :func:`engine.lorebook.activation.evaluate_entry`.
3. Recursion (LORE-2): the content of entries activated in the previous pass (unless they
   ``prevent_recursion``) is matched against the keys of every book whose
   ``recursive_scanning`` is on; entries of those books (unless ``exclude_recursion``) that gain
   a key hit are decided in the next pass. At most ``MAX_RECURSION_PASSES`` such passes
   (passes 2..4). An activated entry stays activated; a secondary-key rejection can be
   revisited when recursion brings new secondary hits; gate, probability and empty-content
   rejections are final for the turn.
4. The token budget is the highest budget of the pooled books; :mod:`engine.lorebook.inject`
   drops lowest-priority entries first, orders survivors (higher order first) and renders one
   ``LoreMessage`` per entry. Recursion runs before the budget, so an entry activated by the
   content of an entry that the budget later drops stays eligible on its own merits.
5. ``LoreState`` gains a mark for each included ``@@keep`` / ``@@dont_activate_after_match``
   entry not marked yet; the caller stores the returned state.

Invariants: the result depends only on the arguments (no clock, no randomness: probability
rolls hash the turn id); included tokens never exceed the budget; output order is a total order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

from engine.errors import InvalidInput
from engine.lorebook.activation import Activation, Hits, ScanContext, evaluate_entry
from engine.lorebook.compile import CompiledBook, CompiledEntry, id_sort_key
from engine.lorebook.inject import apply_budget, render
from engine.lorebook.match import build_buffer, match_buffer, match_text
from engine.lorebook.model import LoreDecision, LoreMark, LoreResult, LoreState

__all__ = ["MAX_RECURSION_PASSES", "scan_lore"]

MAX_RECURSION_PASSES: Final = 3

_Ref = tuple[int, int]  # (book position in the pool, entry position in the book)


def scan_lore(
    books: Sequence[CompiledBook],
    messages: Sequence[str],
    state: LoreState,
    *,
    turn_id: str,
    message_count: int,
    at_greeting: bool,
    count_tokens: Callable[[str], int],
) -> LoreResult:
    """Scan the chat against the attached books and render the lorebook slot.

    Args:
        books: Compiled books attached to the chat/persona (see ``compile_book``).
        messages: Recent chat messages (user's and persona's), oldest first, newest last;
            passing more than the largest scan depth is fine.
        state: The chat's lore state from the previous turn (``LoreState()`` for a new chat).
        turn_id: Id of the turn being built; seeds probability rolls and ``@@keep`` marks.
        message_count: Messages in the chat so far, including the current one.
        at_greeting: Whether the chat is still at the greeting message (``@@is_greeting``).
        count_tokens: Token counter of the active model (LORE-11).

    Returns:
        Rendered messages, the decision log, the updated state and the token total.

    Raises:
        InvalidInput: ``duplicate_book`` when two books in the pool share an id.
    """
    _check_pool(books)
    if not books:
        return LoreResult(state=state)
    ctx = ScanContext(
        turn_id=turn_id,
        message_count=message_count,
        at_greeting=at_greeting,
        marks={(mark.book, mark.entry): mark.turn_id for mark in state.marks},
    )
    activations, rejections = _activate(books, messages, ctx)
    budget = max(book.token_budget for book in books)
    kept, dropped = apply_budget(activations, budget, count_tokens)
    lore, included, tokens = render(kept)
    rejected = sorted([*rejections, *dropped], key=lambda d: (d.book, id_sort_key(d.entry)))
    return LoreResult(
        messages=lore,
        decisions=included + tuple(rejected),
        state=_marked(state, (c.activation.entry for c in kept), turn_id),
        tokens=tokens,
    )


def _check_pool(books: Sequence[CompiledBook]) -> None:
    ids = [book.id for book in books]
    for book_id in ids:
        if ids.count(book_id) > 1:
            raise InvalidInput(f"book {book_id!r} is attached twice to one scan", code="duplicate_book")


def _activate(
    books: Sequence[CompiledBook], messages: Sequence[str], ctx: ScanContext
) -> tuple[list[Activation], list[LoreDecision]]:
    buffer = build_buffer(
        messages,
        max(book.depth for book in books),
        need_exact=any(book.exact is not None for book in books),
    )
    pool = _Pool(books, [Hits(chat=match_buffer(book, buffer), lore={}) for book in books], ctx)
    fresh = pool.decide(pool.first_candidates(), pass_no=1)
    for pass_no in range(2, 2 + MAX_RECURSION_PASSES):
        candidates = pool.recursion_candidates(pool.recurse(fresh))
        if not candidates:
            break
        fresh = pool.decide(candidates, pass_no=pass_no)
    return pool.outcome()


class _Pool:
    """Bookkeeping of one scan; local to ``scan_lore`` and never shared, so the scan stays pure."""

    def __init__(self, books: Sequence[CompiledBook], hits: list[Hits], ctx: ScanContext) -> None:
        self.books = books
        self.hits = hits
        self.ctx = ctx
        self.activated: dict[_Ref, Activation] = {}
        self.rejected: dict[_Ref, LoreDecision] = {}
        self.final: set[_Ref] = set()

    def first_candidates(self) -> list[_Ref]:
        """Constant entries, entries with a primary hit in the chat, and ``@@keep`` entries."""
        refs: set[_Ref] = set()
        for b, book in enumerate(self.books):
            refs.update((b, e) for e in book.always)
            for mid in self.hits[b].chat:
                refs.update((b, e) for e in book.by_primary.get(mid, ()))
            for book_id, entry_id in self.ctx.marks:
                position = book.index_of.get(entry_id) if book_id == book.id else None
                if position is not None and book.entries[position].options.keep:
                    refs.add((b, position))
        return sorted(refs)

    def decide(self, candidates: Iterable[_Ref], *, pass_no: int) -> list[_Ref]:
        """Evaluate candidates; return the ones that activated in this pass."""
        fresh: list[_Ref] = []
        for ref in candidates:
            b, e = ref
            verdict = evaluate_entry(self.books[b].entries[e], self.hits[b], self.ctx, pass_no=pass_no)
            if verdict is None:
                continue
            if verdict.activation is not None:
                self.activated[ref] = verdict.activation
                self.rejected.pop(ref, None)
                fresh.append(ref)
            elif verdict.decision is not None:
                self.rejected[ref] = verdict.decision
                if verdict.final:
                    self.final.add(ref)
        return fresh

    def recurse(self, fresh: Sequence[_Ref]) -> list[set[int]]:
        """Match the content of fresh activations against recursive books; return new mids."""
        # Sorted by (book, id) so the "matched in entry X" label ignores the pool's order.
        sources = sorted((self.activated[ref].entry for ref in fresh), key=lambda e: (e.book, e.id_key))
        new_mids: list[set[int]] = [set() for _ in self.books]
        for b, book in enumerate(self.books):
            if not book.recursive:
                continue
            lore = self.hits[b].lore
            for source in sources:
                if source.prevent_recursion:
                    continue
                label = f"entry {source.id}"
                label += "" if source.book == book.id else f" of {source.book}"
                for mid in match_text(book, source.text) - lore.keys():
                    lore[mid] = label
                    new_mids[b].add(mid)
        return new_mids

    def recursion_candidates(self, new_mids: Sequence[set[int]]) -> list[_Ref]:
        """Entries using a newly hit key that may still activate by recursion."""
        refs: set[_Ref] = set()
        for b, book in enumerate(self.books):
            for mid in new_mids[b]:
                refs.update((b, e) for e in book.by_primary.get(mid, ()))
                refs.update((b, e) for e in book.by_secondary.get(mid, ()))
        return sorted(
            ref
            for ref in refs
            if ref not in self.activated
            and ref not in self.final
            and not self.books[ref[0]].entries[ref[1]].exclude_recursion
        )

    def outcome(self) -> tuple[list[Activation], list[LoreDecision]]:
        """Activated entries and rejection decisions, in pool order."""
        return (
            [self.activated[ref] for ref in sorted(self.activated)],
            [self.rejected[ref] for ref in sorted(self.rejected)],
        )


def _marked(state: LoreState, included: Iterable[CompiledEntry], turn_id: str) -> LoreState:
    marks = {(mark.book, mark.entry): mark for mark in state.marks}
    for entry in included:
        if (entry.options.keep or entry.options.once) and (entry.book, entry.id) not in marks:
            marks[(entry.book, entry.id)] = LoreMark(book=entry.book, entry=entry.id, turn_id=turn_id)
    if len(marks) == len(state.marks):
        return state
    return LoreState(marks=tuple(marks[key] for key in sorted(marks)))
