"""The archive desk: session pages, reads, feedback, restore and the sweep (EPI-1..7, 11..13).

Theory of operation. The worker calls :meth:`ArchiveDesk.archive_sessions` after a chat's
summary job and on every periodic tick: the messages after the chat's archiving cursor are cut
into sessions at idle gaps; every *closed* session (its last message ``session_gap_secs`` or more
before now) becomes one episodic page whose body is its transcript, whose summary and abstract
are extractive (no LLM on the default path) and whose keep-worthy tokens the engine finds. Pages
the entropy filter flags are only marked (kept out of LLM passes, EPI-7). The pages, their
vectors and the new cursor are stored in one compare-and-set, so no session is archived twice;
then the new pages' chunks are embedded for the search (:meth:`ArchiveDesk.embed_pages`). A
search only embeds its query: a page without chunk vectors is read lexically and its chat
queued; the worker embeds the queued chats every minute (:meth:`embed_queued`) and every
chat's missing ones on each archive pass, so a worker stopped half-way loses nothing.

:meth:`sweep` plans every chat's sweep with the pure planner and stores it atomically; reads
(search results, opening a page, explore) raise scores; the score never changes search ranking
(EPI-3). People pin pages (:meth:`pin`: never swept, first with ``pin_first``) and add working
notes (:meth:`add_note`); every turn's prompt carries the chat's pinned pages and the running
session's notes (:meth:`briefing`), and the archive pass ends the notes of archived sessions
into their pages' history (:meth:`end_notes`). The decisions are ``engine.archive.working`` and
``engine.archive.explore``.
The settings (policy overrides from ``HEARTH_ARCHIVE_*``) are read by ``config.archive`` in
every process and passed in by the composition root.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Literal

import msgspec

from engine.archive import (
    Briefing,
    Feedback,
    FeedbackKind,
    Page,
    QueryItem,
    QueryOptions,
    Session,
    add_feedback,
    apply_query_options,
    briefing,
    current_notes,
    end_notes,
    is_closed,
    is_note,
    low_entropy,
    note_page,
    notes_since,
    page_text,
    pin_page,
    plan_sweep,
    record_reads,
    restore_page,
    retention_score,
    session_gap,
    session_page,
    split_sessions,
    sweepable,
)
from engine.archive.answer import reasoning_budget
from engine.archive.explore import Exploration, explore, explore_text
from engine.errors import NotFound
from engine.model import StoredMessage
from engine.ports import ArchiveStore, Clock, PageRecall
from engine.service.archive_settings import ArchiveSettings
from engine.summary import extractive_summary
from engine.turn import memory_space

__all__ = [
    "ArchiveDesk",
    "ArchiveSettings",
    "ArchiveStatus",
    "ArchiveStore",
    "Explored",
    "FoundPage",
    "PageRecall",
    "SearchResults",
    "page_id_for",
]

BATCH = 2_000
SEARCHED = ("active", "cold")
"""The page statuses a search reads (and whose chunk vectors the background keeps)."""
SUMMARY_CHARS = 600
ABSTRACT_CHARS = 160
_WORD = re.compile(r"\w+")
_SENTENCE = re.compile(r"(?<=[.!?…])\s+")


class FoundPage(msgspec.Struct, frozen=True, kw_only=True):
    """One search item: the page (after its read), why it is there and its relevance."""

    item: QueryItem
    page: Page | None
    relevance: float | None = None


class ArchiveStatus(msgspec.Struct, frozen=True, kw_only=True):
    """Which persona and space a query on a chat resolves to, and how (EPI-13 ``status``)."""

    chat: str
    space: str
    persona: str
    how: str
    search: Literal["embedding", "lexical"]
    embedder: str | None
    pages: dict[str, int]


class SearchResults(msgspec.Struct, frozen=True, kw_only=True):
    """What a search returned, in order, and the status it ran under."""

    status: ArchiveStatus
    items: tuple[FoundPage, ...]


class Explored(msgspec.Struct, frozen=True, kw_only=True):
    """What an exploration read (each page after its read) and how it went (EPI-2, EPI-13)."""

    status: ArchiveStatus
    exploration: Exploration
    pages: dict[str, Page]


def page_id_for(chat: str, session: Session) -> str:
    """A stable page id per chat and session start, so retried archiving writes the same page."""
    digest = hashlib.sha1(f"{chat}\0{session.first_position!r}".encode(), usedforsecurity=False)
    return f"pg-{digest.hexdigest()[:16]}"


def _first_sentence(text: str, limit: int) -> str:
    sentence = _SENTENCE.split(text.strip(), maxsplit=1)[0].strip()
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def _session_texts(messages: Sequence[StoredMessage]) -> tuple[str, str, str]:
    lines = [f"{m.name}: {m.text}" for m in messages]
    summary = extractive_summary(lines, max_chars=SUMMARY_CHARS)
    return _first_sentence(summary, ABSTRACT_CHARS), summary, "\n".join(lines)


def _lexical(query: str, pages: Sequence[Page], limit: int) -> list[tuple[str, float]]:
    wanted = {w.casefold() for w in _WORD.findall(query)}
    scored = []
    for page in pages:
        words = {w.casefold() for w in _WORD.findall(page_text(page))}
        overlap = len(wanted & words) / len(wanted) if wanted else 0.0
        if overlap > 0:
            scored.append((page.id, round(overlap, 3)))
    return sorted(scored, key=lambda hit: -hit[1])[:limit]


class ArchiveDesk:
    """The episodic archive for workers and people."""

    def __init__(
        self,
        *,
        store: ArchiveStore,
        clock: Clock,
        settings: ArchiveSettings,
        recall: PageRecall | None = None,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        self.store = store
        self.recall = recall
        self.settings = settings
        self.policy = settings.policy
        self._clock = clock
        self._new_id = new_id or (lambda: secrets.token_hex(6))

    def now(self) -> datetime:
        """The desk's clock (scores shown to people are computed at this time)."""
        return self._clock.now()

    def reconfigured(self, settings: ArchiveSettings) -> ArchiveDesk:
        """The same desk with other settings (one store tried under several policies)."""
        return ArchiveDesk(
            store=self.store, clock=self._clock, settings=settings, recall=self.recall, new_id=self._new_id
        )

    # --- archiving sessions -----------------------------------------------------------------

    async def warm(self) -> None:
        """Prepare the page search (process start), so the first search embeds only its query."""
        if self.recall is not None:
            await self.recall.warm()

    async def embed_pages(self, chat: str) -> int:
        """Store the chunk vectors of the chat's searchable pages that have none (background
        work: searches never embed pages); returns how many pages were embedded."""
        if self.recall is None:
            return 0
        pages = await self.store.pages(chat)
        return await self.recall.index(chat, [p.id for p in pages if p.status in SEARCHED])

    async def embed_queued(self) -> int:
        """Embed the pages of the chats searches queued (``embed_pages``); a chat whose
        embedding fails goes back on the queue with the ones not reached."""
        queued = await self.store.take_embedding_queue()
        done = 0
        for n, chat in enumerate(queued):
            try:
                done += await self.embed_pages(chat)
            except BaseException:
                for rest in queued[n:]:
                    await self.store.queue_embedding(rest)
                raise
        return done

    async def archive_sessions(self, chat: str) -> tuple[Page, ...]:
        """Turn the chat's closed sessions not archived yet into episodic pages (EPI-1), and
        embed their chunks for the search (``embed_pages``).

        Returns:
            The pages written (empty when nothing closed, or another worker wrote them first).
        """
        written = await self._archive_sessions(chat)
        if written:
            await self.embed_pages(chat)
        await self.end_notes(chat)
        return written

    async def _archive_sessions(self, chat: str) -> tuple[Page, ...]:
        written: list[Page] = []
        while True:
            cursor = await self.store.cursor(chat)
            messages = await self.store.messages_after(chat, cursor, BATCH)
            closed = self._closed_sessions(messages, full=len(messages) >= BATCH)
            if not closed:
                return tuple(written)
            saved = await self.store.saved_memories(chat, [m.turn for m in messages if m.turn])
            pages = [self._linked(self._page(chat, s, messages), s, messages, saved) for s in closed]
            low = [p.id for p in pages if low_entropy(p.body)]
            vectors = await self.recall.embed([page_text(p) for p in pages]) if self.recall else None
            stored = await self.store.add_session_pages(
                chat,
                expected=cursor,
                upto=closed[-1].last_position,
                pages=pages,
                low_entropy=low,
                model=self.recall.model if self.recall else None,
                vectors=dict(zip((p.id for p in pages), vectors, strict=True)) if vectors else None,
            )
            if not stored:
                return tuple(written)
            written.extend(pages)

    async def end_notes(self, chat: str) -> int:
        """EPI-1: the working notes of archived sessions end: each moves into its session page's
        history (``engine.archive.working.end_notes``). Returns how many ended."""
        if not any(is_note(p) for p in await self.store.briefing_pages(chat)):
            return 0  # the usual case, read from the small briefing set only
        gap = session_gap(self.policy)

        def decide(current: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], int]:
            updates, gone = end_notes(current, gap)
            return updates, gone, len(gone)

        return await self.store.change(chat, decide)

    def _closed_sessions(self, messages: Sequence[StoredMessage], *, full: bool) -> list[Session]:
        if not messages:
            return []
        gap = session_gap(self.policy)
        sessions = list(split_sessions(((m.position, m.sent_at) for m in messages), gap))
        if full:  # the last session may go on past this batch (a lone one is cut at BATCH)
            return sessions[:-1] or sessions
        last = sessions[-1]
        return sessions if is_closed(last, self._clock.now(), gap) else sessions[:-1]

    @staticmethod
    def _linked(
        page: Page, session: Session, messages: Sequence[StoredMessage], saved: Mapping[str, tuple[str, ...]]
    ) -> Page:
        """Link a session page to the memories its turns saved (EPI-13 ``include_related``)."""
        inside = (m for m in messages if session.first_position <= m.position <= session.last_position)
        links = tuple(dict.fromkeys(i for m in inside if m.turn for i in saved.get(m.turn, ())))
        return msgspec.structs.replace(page, links=(*page.links, *links)) if links else page

    def _page(self, chat: str, session: Session, messages: Sequence[StoredMessage]) -> Page:
        inside = [m for m in messages if session.first_position <= m.position <= session.last_position]
        abstract, summary, body = _session_texts(inside)
        return session_page(
            id=page_id_for(chat, session),
            chat=chat,
            session=session,
            policy=self.policy,
            abstract=abstract,
            summary=summary,
            body=body,
        )

    # --- the sweep ----------------------------------------------------------------------------

    async def sweep(self, now: datetime | None = None) -> dict[str, int]:
        """Sweep every chat's pages (EPI-2, 5, 6): evict or compact cold pages, dedup, purge.

        Returns:
            How many actions of each kind were stored (``evicted``, ``compacted``, ...).
        """
        at = now or self._clock.now()
        counts: dict[str, int] = {}
        for chat in await self.store.chats():
            for kind, n in (await self.sweep_chat(chat, at)).items():
                counts[kind] = counts.get(kind, 0) + n
        return counts

    async def sweep_chat(self, chat: str, now: datetime) -> dict[str, int]:
        """Sweep one chat's pages at ``now``; returns the count of each action stored."""
        clusters: tuple[tuple[str, ...], ...] = ()
        if self.policy.dedup_cold_clusters and self.recall is not None:
            pages = await self.store.pages(chat)
            cold = [
                p.id
                for p in pages
                if sweepable(p) and retention_score(p, now, self.policy) < self.policy.cold_below
            ]
            if len(cold) > 1:
                clusters = await self.recall.clusters(chat, cold, self.settings.dedup_similarity)

        def decide(pages: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], dict[str, int]]:
            plan = plan_sweep(pages, now, self.policy, clusters)
            counts: dict[str, int] = {}
            for action in plan.actions:
                kind = type(action).__name__.lower()
                counts[kind] = counts.get(kind, 0) + 1
            return plan.updates, plan.purge, counts

        return await self.store.change(chat, decide)

    # --- people and search --------------------------------------------------------------------

    async def pages(self, chat: str) -> list[tuple[Page, float, bool]]:
        """The chat's pages (oldest first) with their score now and the entropy mark."""
        now = self._clock.now()
        low = await self.store.low_entropy(chat)
        return [(p, retention_score(p, now, self.policy), p.id in low) for p in await self.store.pages(chat)]

    async def _chat_of(self, page_id: str) -> str:
        chat = await self.store.chat_of(page_id)
        if chat is None:
            raise NotFound(f"There is no archive page {page_id!r}.", code="page_not_found")
        return chat

    async def _update(self, page_id: str, change: Callable[[Page], Page]) -> Page:
        chat = await self._chat_of(page_id)

        def decide(pages: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], Page]:
            found = next((p for p in pages if p.id == page_id), None)
            if found is None:
                raise NotFound(f"There is no archive page {page_id!r}.", code="page_not_found")
            new = change(found)
            return ((new,) if new != found else ()), (), new

        return await self.store.change(chat, decide)

    async def pin(self, chat: str, page_id: str, pinned: bool) -> Page:
        """Pin a page of ``chat`` (exempt from every sweep, first with ``pin_first`` and in every
        turn's briefing) or unpin it (EPI-1, EPI-13).

        Raises:
            NotFound: ``page_not_found`` when ``chat`` has no such page.
            Conflict: ``page_not_pinnable`` for an evicted, superseded or deleted page.
        """
        if await self.store.chat_of(page_id) != chat:
            raise NotFound(f"The chat {chat} has no archive page {page_id!r}.", code="page_not_found")
        return await self._update(page_id, lambda p: pin_page(p, pinned))

    async def _notes_since(self, chat: str, at: datetime) -> datetime | None:
        cursor = await self.store.cursor(chat)
        messages = await self.store.messages_after(chat, cursor, BATCH)
        return notes_since((m.sent_at for m in messages), at, session_gap(self.policy))

    async def notes(self, chat: str) -> tuple[Page, ...]:
        """The working notes of the chat's session running now, oldest first (EPI-1)."""
        now = self._clock.now()
        since = await self._notes_since(chat, now)
        return current_notes(await self.store.briefing_pages(chat), since)

    async def add_note(
        self,
        chat: str,
        text: str,
        *,
        author: str | None,
        at: datetime | None = None,
        times: Iterable[datetime] | None = None,
    ) -> Page:
        """Add a working note to the chat's running session (EPI-1): in every turn's prompt
        while the session lasts, moved into the session page's history when it ends.

        Args:
            chat: the chat.
            text: the note.
            author: ``persona:<id>`` (the persona's tool) or the person's id.
            at: when it is written (default now; the persona's tool passes its message's time).
            times: the send times of the chat's recent messages, when the caller read them.

        Raises:
            InvalidInput: ``empty_note``, ``note_too_long``.
            Conflict: ``too_many_notes`` (``MAX_SESSION_NOTES`` per session).
        """
        when = at or self._clock.now()
        gap = session_gap(self.policy)
        since = notes_since(times, when, gap) if times is not None else await self._notes_since(chat, when)
        new_id = f"wn-{self._new_id()}"

        def decide(current: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], Page]:
            note = note_page(
                id=new_id,
                chat=chat,
                text=text,
                at=when,
                author=author,
                policy=self.policy,
                current=current_notes(current, since),
            )
            return (note,), (), note

        return await self.store.change(chat, decide)

    async def briefing(self, chat: str, times: Iterable[datetime], at: datetime) -> Briefing:
        """A turn's briefing: the chat's pinned pages and the running session's working notes,
        within their token budgets (``engine.archive.working``). ``times``: the send times of
        the messages the turn read; ``at``: the answered message's time."""
        pages = await self.store.briefing_pages(chat)
        if not pages:
            return Briefing()
        return briefing(pages, notes_since(times, at, session_gap(self.policy)))

    async def explore(self, chat: str, query: str, reasoning: str = "medium") -> Explored:
        """Read outward from ``query`` through links and related pages within the ``reasoning``
        budget; every page read gets one read (EPI-2, EPI-13).

        Raises:
            InvalidInput: ``invalid_reasoning`` for an unknown level.
        """
        budget = reasoning_budget(reasoning)
        pages = await self.store.pages(chat)
        hits = await self._hits(chat, query, pages, budget.results)
        plan = explore([i for i, _ in hits], pages, budget)
        after = await self._record_reads(chat, plan.reads, pages)
        return Explored(
            status=await self.status(chat),
            exploration=plan,
            pages={i: after[i] for i in plan.reads if i in after},
        )

    async def tool_explore(self, chat: str, query: str, reasoning: str = "medium") -> str:
        """The ``explore_archive`` model tool: the pages read, as short cited lines (reads count)."""
        found = await self.explore(chat, query, reasoning)
        lines = []
        for step in found.exploration.steps:
            how = f" (linked from {step.via})" if step.via else ""
            text = explore_text(found.pages[step.id]).replace("\n", " — ")
            lines.append(f"[{step.id}]{how} {text}")
        return "\n".join(lines) if lines else "Nothing in the archive of earlier sessions matches that."

    async def read(self, page_id: str) -> Page:
        """Open a page: one read is recorded (it raises the page's score, EPI-2)."""
        now = self._clock.now()
        return await self._update(page_id, lambda p: record_reads([p], [p.id], now, self.policy)[0])

    async def feedback(self, page_id: str, kind: FeedbackKind, by: str | None = None) -> Page:
        """Record ``stale``/``wrong`` feedback: the page drops to the lowest salience (EPI-3)."""
        verdict = Feedback(kind=kind, at=self._clock.now(), by=by)
        return await self._update(page_id, lambda p: add_feedback(p, verdict, self.policy))

    async def restore(self, page_id: str, version: int) -> Page:
        """Bring back an earlier version's exact content as a new version (EPI-11).

        Raises:
            NotFound: ``page_not_found``; ``no_such_version``.
        """
        now = self._clock.now()
        return await self._update(page_id, lambda p: restore_page(p, version, now))

    async def tool_search(self, chat: str, query: str) -> str:
        """The ``search_archive`` model tool (EPI-13): the best pages as short cited lines (reads count)."""
        found = await self.search(chat, query, QueryOptions(), limit=5)
        lines = [
            f"[{f.page.id}] {f.page.abstract} — {f.page.summary}".strip(" —")
            for f in found.items
            if f.page is not None
        ]
        return "\n".join(lines) if lines else "Nothing in the archive of earlier sessions matches that."

    async def status(self, chat: str) -> ArchiveStatus:
        """Which persona and space a query on ``chat`` resolves to, and how (EPI-13)."""
        newest = await self.store.newest_message(chat)
        pages = await self.store.pages(chat)
        counts: dict[str, int] = {}
        for page in pages:
            counts[page.status] = counts.get(page.status, 0) + 1
        space = memory_space(chat)
        return ArchiveStatus(
            chat=chat,
            space=space,
            persona=newest.persona if newest else "default",
            how=(
                f"pages of chat {chat} (space {space}); persona of the chat's newest message"
                if newest
                else f"pages of chat {chat} (space {space}); no messages, so the default persona"
            ),
            search="embedding" if self.recall else "lexical",
            embedder=self.recall.model if self.recall else None,
            pages=counts,
        )

    async def search(
        self, chat: str, query: str, options: QueryOptions, limit: int | None = None
    ) -> SearchResults:
        """Search the chat's pages; every page returned gets one read (EPI-2, EPI-13).

        Ranking is by relevance alone; retention scores never reorder results (EPI-3).
        """
        size = limit or self.settings.search_limit
        pages = await self.store.pages(chat)
        hits = await self._hits(chat, query, pages, size)
        relevance = dict(hits)
        result = apply_query_options([i for i, _ in hits], pages, options)
        after = await self._record_reads(chat, result.reads, pages)
        items = tuple(
            FoundPage(item=item, page=after.get(item.id), relevance=relevance.get(item.id))
            for item in result.items
        )
        return SearchResults(status=await self.status(chat), items=items)

    async def _hits(self, chat: str, query: str, pages: Sequence[Page], size: int) -> list[tuple[str, float]]:
        """The searchable pages matching ``query``, best first (working notes are not searched:
        they are in the prompt while their session lasts, and never recalled after, EPI-1)."""
        visible = [p for p in pages if p.status in SEARCHED and p.layer != "working"]
        if self.recall is not None:
            return await self.recall.search(chat, query, [p.id for p in visible], size, now=self._clock.now())
        return _lexical(query, visible, size)

    async def _record_reads(self, chat: str, reads: Sequence[str], pages: Sequence[Page]) -> dict[str, Page]:
        """One read on each page named in ``reads`` (EPI-2); returns every page after it."""
        if not reads:
            return {p.id: p for p in pages}
        now = self._clock.now()

        def decide(current: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], dict[str, Page]]:
            read = record_reads(current, reads, now, self.policy)
            changed = tuple(p for p, old in zip(read, current, strict=True) if p is not old)
            return changed, (), {p.id: p for p in read}

        return await self.store.change(chat, decide)
