"""The memory desk: reads, searches, ages and writes saved memories for the chat service.

Per turn (DEC-3, DEC-15): load the scopes in play with their vectors (one round trip), run the
one search of the newest message, plan the counters with the pure ``plan_decay``, choose what
the reply carries with ``memories_for_reply`` (the stable part from the states *before* the
search, dormant matches recalled into the tail), then apply the counters atomically. Writes
(model tools, people) are planned by the pure ``plan_*`` functions and applied per list with
optimistic concurrency: a list that changed meanwhile is re-read and the write re-planned.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

import msgspec

from engine.errors import Conflict, Forbidden, InvalidInput, NotFound, StorageUnavailable
from engine.memory import (
    SEARCH_FAILED,
    ClearPlan,
    MemoryPolicy,
    MemoryRecord,
    MemoryTurn,
    MemoryWrite,
    NewMemory,
    SavePlan,
    ScopeList,
    SearchResult,
    Source,
    WritePlan,
    memories_for_reply,
    memory_enabled,
    plan_clear_all,
    plan_decay,
    plan_delete,
    plan_persona_deletion,
    plan_rollback,
    plan_save,
    plan_space_deletion,
    plan_update,
    scope_list_of,
    scopes_in_play,
    written_id,
)
from engine.memory.journal import Deleted, Forgotten, Saved, Updated
from engine.memory.model import Buried, MemoryUse
from engine.memory.tools import (
    MEMORY_OFF,
    MemoryContext,
    MemoryStep,
    SaveStep,
    UpdateStep,
    plan_memory_tool,
    refused_write,
    save_reply,
    tool_result,
)
from engine.model import MemoryLimits
from engine.notices import notice_level, render_notices
from engine.ports import Directory, DocumentStore, DocumentVersion, MemoryRecall, MemoryStore, Query
from engine.requestlog import MemoryNote, RefusedWrite
from engine.service.documents import DocumentDesk
from engine.tools import ToolCall, ToolResult

__all__ = ["MEMORY_OFF", "UNDO_SECONDS", "MemoryContext", "MemoryDesk"]

_RETRIES = 3
UNDO_SECONDS = 30
"""A forgotten memory can be restored this long (the panel offers Undo for 10 s of it)."""
_UNRECORDED_KEPT = 10_000  # directory notes waiting for an unreachable directory, at most
log = logging.getLogger("hearth.memory")


class MemoryDesk:
    """Memory operations for turns and for people."""

    def __init__(
        self,
        *,
        store: MemoryStore,
        recall: MemoryRecall,
        directory: Directory,
        policy: MemoryPolicy,
        documents: DocumentStore | None = None,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        self.store = store
        # the persona documents' own desk (DOC-1); the web layer reaches it through here
        self.documents = DocumentDesk(store=documents, recall=recall) if documents is not None else None
        self.recall = recall
        self.directory = directory
        self.policy = policy if recall.available else msgspec.structs.replace(policy, decay_enabled=False)
        self._new_id = new_id or (lambda: f"mem-{secrets.token_hex(5)}")
        self._searched: dict[tuple[str, str], bool] = {}  # (persona, space) → last turn searched
        self._dirty: set[ScopeList] = set()  # lists written outside a turn, to embed
        self._unrecorded: list[tuple[list[tuple[str, ScopeList]], list[str]]] = []  # see _record
        self._embedding: dict[ScopeList, asyncio.Future[None]] = {}
        self._embedder: asyncio.Task[None] | None = None

    def policy_for(self, limits: MemoryLimits | None) -> MemoryPolicy:
        """The deployment's policy with a persona's own limits applied (MEM-2)."""
        if limits is None:
            return self.policy
        changes = {k: v for k, v in msgspec.structs.asdict(limits).items() if v is not None}
        return msgspec.structs.replace(self.policy, **changes)

    async def for_turn(
        self,
        *,
        persona: str,
        limits: MemoryLimits | None = None,
        learn_from_chat: bool,
        chat_memory_off: bool = False,
        space: str,
        participants: tuple[str, ...],
        guests: tuple[str, ...],
        text: str,
        message_at: datetime,
        documents_seen: DocumentVersion | None = None,
    ) -> MemoryContext:
        """Load, search and plan the memories of one turn (nothing is written yet).

        ``documents_seen``: the persona's document version as the turn read it (no IO for it then).
        ``chat_memory_off``: the chat is in memory-off mode (MEM-8): no list is read or searched.

        The message is embedded only when the turn has something to search (memories in play or
        documents, DEC-15); when the chat's last turn had, the embedding starts at once and runs
        while Redis is read. Lists written since are first embedded by the background embedder.
        """
        hint = (persona, space)
        early = self.recall.available and self._searched.get(hint, False)
        # the query, then the document search, go on while Redis is read
        query_task = asyncio.ensure_future(self.recall.embed(text)) if early else None
        docs_task = (
            asyncio.ensure_future(self._documents(query_task, persona, documents_seen))
            if query_task
            else None
        )
        for task in (query_task, docs_task):  # a failure of a task nobody awaits is not an error
            if task is not None:
                task.add_done_callback(lambda t: t.cancelled() or t.exception())
        try:
            hoped = MemoryTurn(
                persona=persona,
                space=space,
                participants=participants,
                guests=guests,
                learn_from_chat=learn_from_chat,
                chat_memory_off=chat_memory_off,
            )
            # the lists are read beside the filters, as if nobody had opted out
            # (the usual case); an opted-out person's lists are then left out, unread by anyone
            wide = scopes_in_play(hoped)
            await self._embedded(wide)
            (opted_out, blocked), loaded = await asyncio.gather(
                self.directory.filters(participants, space), self._load(wide)
            )
            turn = msgspec.structs.replace(hoped, opted_out=opted_out)
            enabled = memory_enabled(turn)
            scopes = scopes_in_play(turn) if enabled else ()
            kept = frozenset(scopes)
            records = tuple(
                msgspec.structs.replace(r, hidden=True) if r.id in blocked else r
                for r in loaded
                if scope_list_of(r) in kept
            )
            has_documents = self.recall.available and await self.recall.has_documents(persona, documents_seen)
            searching = self.recall.available and (has_documents or any(not r.hidden for r in records))
            if len(self._searched) >= 10_000 and hint not in self._searched:
                self._searched.clear()  # a hint, not state: bounded by forgetting all at once
            self._searched[hint] = searching
            query: Query | None = None
            documents: tuple[str, ...] = ()
            search = SearchResult(ok=True)
            if searching:
                try:  # one embedding per turn, shared by memories and documents (DEC-15, DOC-1)
                    query = await (query_task or self.recall.embed(text))
                except Exception:
                    query = None
                if docs_task is None and query is not None:
                    docs_task = asyncio.ensure_future(self._documents(query, persona, documents_seen))
                if enabled:  # the memories are searched while the documents are
                    search = SEARCH_FAILED if query is None else await self._search(query, records, scopes)
                if docs_task is not None and query is not None:
                    try:
                        documents = await docs_task
                    except Exception:
                        log.exception("the document search of %s failed", persona)
                    docs_task = None
        finally:
            for task in (query_task, docs_task):
                if task is not None and not task.done():
                    task.cancel()
        if not enabled:
            return MemoryContext(enabled=False, documents=documents)
        policy = self.policy_for(limits)
        plan = plan_decay(records, scopes, search, message_at, policy)
        reply = memories_for_reply(records, scopes, plan, message_at, policy)
        return MemoryContext(
            enabled=True,
            turn=turn,
            scopes=scopes,
            records=records,
            plan=plan,
            reply=reply,
            search_ok=search.ok,
            scores=search.scores,
            reasons=search.reasons,
            can_write=bool(set(participants) - set(guests)),
            documents=documents,
            policy=policy,
        )

    async def _documents(
        self, query: Query | asyncio.Future[Query], persona: str, seen: DocumentVersion | None
    ) -> tuple[str, ...]:
        """The persona's document chunks the turn's query matches (DOC-1); ``query`` may still
        be on its way (a task)."""
        if isinstance(query, asyncio.Future):
            query = await query
        if not await self.recall.has_documents(persona, seen):
            return ()
        found: tuple[str, ...] = await self.recall.documents(query, persona, seen)
        return found

    async def _load(self, scopes: Sequence[ScopeList]) -> Sequence[MemoryRecord]:
        return await self.recall.load(scopes) if scopes else ()

    async def _search(
        self, query: Query, records: Sequence[MemoryRecord], scopes: Sequence[ScopeList]
    ) -> SearchResult:
        try:
            found: SearchResult = await self.recall.search(query, records, scopes)
            return found
        except Exception:
            return SEARCH_FAILED

    async def commit(self, ctx: MemoryContext) -> None:
        """Apply the turn's counter changes (at most once per UTC day per memory, DEC-5)."""
        if ctx.plan is not None and ctx.plan.changes:
            await self.store.apply_decay(ctx.plan, ctx.records)

    # --- writes -------------------------------------------------------------------------

    async def _save(self, new: NewMemory, now: datetime, policy: MemoryPolicy | None = None) -> SavePlan:
        for _ in range(_RETRIES):
            snap = await self.store.snapshot([new.target])
            plan = plan_save(
                snap.records,
                new,
                now=now,
                policy=policy or self.policy,
                search_available=self.recall.available,
            )
            result = await self.store.apply_save(plan, expected=snap.versions)
            if result.ok:
                await self._note(plan.writes)
                return plan
        raise Conflict("The memory list kept changing; try again.", code="memory_changed")

    async def _write(
        self, target: ScopeList, make: Callable[[Sequence[MemoryRecord]], WritePlan]
    ) -> WritePlan:
        for _ in range(_RETRIES):
            snap = await self.store.snapshot([target])
            plan = make(snap.records)
            result = await self.store.apply_writes(plan, expected=snap.versions)
            if result.ok:
                await self._note(plan.writes)
                return plan
        raise Conflict("The memory list kept changing; try again.", code="memory_changed")

    async def _note(self, writes: Sequence[MemoryWrite]) -> None:
        placed = [(w.after.id, _scope_of(w.after)) for w in writes if isinstance(w, Saved | Updated)]
        removed = [written_id(w) for w in writes if isinstance(w, Deleted | Forgotten)]
        await self._record(placed, removed)
        self.embed_later({scope for _, scope in placed})

    async def _record(self, placed: list[tuple[str, ScopeList]], removed: list[str]) -> None:
        """Note the writes in the deployment-wide directory, after those not noted yet, in order.

        The write itself is done: while the directory is unreachable (its Redis Cluster node
        fails over) the notes wait in this process and the next write records them first.
        """
        self._unrecorded.append((placed, removed))
        del self._unrecorded[:-_UNRECORDED_KEPT]
        try:
            while self._unrecorded:
                await self.directory.record(*self._unrecorded[0])
                self._unrecorded.pop(0)
        except StorageUnavailable as exc:
            log.warning("%d memory write(s) not in the directory yet: %s", len(self._unrecorded), exc.message)

    # --- background embedding ----------------------------------------------------------

    def embed_later(self, scopes: Iterable[ScopeList]) -> None:
        """Embed the new texts of ``scopes`` in the background, now: a write returns at once and
        no later turn embeds them (it waits for this instead, if it is still running)."""
        fresh = set(scopes) - self._dirty
        if not self.recall.available or not fresh:
            return
        loop = asyncio.get_running_loop()
        for scope in fresh:
            self._embedding.setdefault(scope, loop.create_future())
        self._dirty |= fresh
        if self._embedder is None or self._embedder.done():
            self._embedder = asyncio.ensure_future(self._embed_dirty())

    async def _embed_dirty(self) -> None:
        while self._dirty:
            batch = sorted(self._dirty, key=repr)
            self._dirty.clear()
            try:
                await self.recall.load(batch)  # embeds and stores what has no vector yet
            except Exception:
                log.exception("background embedding of %d memory lists failed", len(batch))
            for scope in batch:
                if scope not in self._dirty and (done := self._embedding.pop(scope, None)) is not None:
                    done.set_result(None)

    async def _embedded(self, scopes: Sequence[ScopeList]) -> None:
        """Wait for the background embedding of any of ``scopes`` still running."""
        waiting = [self._embedding[s] for s in scopes if s in self._embedding]
        if waiting:
            await asyncio.gather(*(asyncio.shield(w) for w in waiting))

    async def embedded(self) -> None:
        """Wait until the background embedder is idle (tests, benchmarks, shutdown)."""
        while self._embedder is not None and not self._embedder.done():
            await asyncio.shield(self._embedder)

    async def close(self, grace: float = 5.0) -> None:
        """Shut down: let the background embedder finish for up to ``grace`` seconds, then stop it.

        Run before the Redis client closes, so no embedding writes on a closed client. A list
        whose vectors were not stored is embedded again when a turn next loads it.
        """
        try:
            await asyncio.wait_for(self.embedded(), grace)  # at once when idle
        except TimeoutError:
            assert self._embedder is not None
            log.warning("background embedding still running after %.1f s at shutdown; stopped", grace)
            self._embedder.cancel()
            await asyncio.gather(self._embedder, return_exceptions=True)
            for waiting in self._embedding.values():
                waiting.cancel()
            self._embedding.clear()
            self._dirty.clear()

    async def locate(self, memory: str) -> tuple[ScopeList, MemoryRecord]:
        """A memory and its list, or ``NotFound(memory_not_found)``."""
        scope = await self.directory.locate(memory)
        if scope is not None:
            snap = await self.store.snapshot([scope])
            for record in snap.records:
                if record.id == memory:
                    return scope, record
        raise NotFound(f"There is no memory {memory!r}.", code="memory_not_found")

    async def add(
        self,
        *,
        persona: str,
        target: ScopeList,
        text: str,
        pinned: bool,
        source: Source,
        now: datetime,
        limits: MemoryLimits | None = None,
        author: str | None = None,
    ) -> SavePlan:
        """A person (or an import) saves a memory (MEM-6b); protected unless imported (DEC-12).

        ``author``: the display name the text's "I" refers to; a personal memory that starts in
        the first person is stored in the third person with it.
        """
        new = NewMemory(
            id=self._new_id(),
            persona=persona,
            target=target,
            text=text,
            source=source,
            pinned=pinned,
            author=author,
        )
        return await self._save(new, now, self.policy_for(limits))

    async def edit(
        self, memory: str, *, text: str | None, pinned: bool | None, now: datetime
    ) -> MemoryRecord:
        """A person edits or pins/unpins a memory; an edit protects it (DEC-12)."""
        scope, record = await self.locate(memory)
        plan = await self._write(
            scope,
            lambda records: plan_update(
                records, memory, writer="person", now=now, policy=self.policy, text=text, pinned=pinned
            ),
        )
        # nothing changed (the same text, the same pin): the memory as it is
        return next((w.after for w in plan.writes if isinstance(w, Updated)), record)

    async def delete(self, memory: str) -> MemoryRecord:
        """A person forgets one memory (pinned ones too: people may)."""
        scope, record = await self.locate(memory)
        use = (await self.directory.uses([memory])).get(memory)
        await self._write(scope, lambda records: plan_delete(records, memory, writer="person"))
        try:
            await self.directory.bury(Buried(record=record, use=use), UNDO_SECONDS)
        except StorageUnavailable as exc:  # forgotten all the same; only Undo is lost
            log.warning("memory %s forgotten without undo: %s", memory, exc.message)
        return record

    async def restore(self, memory: str, allowed: Callable[[ScopeList], bool]) -> MemoryRecord:
        """Undo a person's Forget within ``UNDO_SECONDS``: the memory comes back as it was (id,
        text, pin, list, counters, last use). ``allowed``: whether the asker may touch the memory's list.

        Raises:
            NotFound: ``memory_not_restorable`` when the time is over or it was restored already.
            Forbidden: ``not_your_memory`` when ``allowed`` says no (the memory stays restorable).
        """
        buried = await self.directory.unbury(memory)
        if buried is None:
            raise NotFound(
                f"Memory {memory!r} can no longer be restored (Undo lasts {UNDO_SECONDS} seconds).",
                code="memory_not_restorable",
            )
        record, scope = buried.record, scope_list_of(buried.record)
        if not allowed(scope):
            await self.directory.bury(buried, UNDO_SECONDS)
            raise Forbidden("This memory is not yours.", code="not_your_memory")

        def make(records: Sequence[MemoryRecord]) -> WritePlan:
            present = any(r.id == memory for r in records)
            return WritePlan(writes=() if present else (Saved(after=record),))

        await self._write(scope, make)
        if buried.use is not None:
            await self.note_use([memory], buried.use)
        return record

    async def clear(self, target: ScopeList, *, pinned_confirmed: bool) -> ClearPlan:
        """Clear all memories of one list; pinned survive unless confirmed separately (MEM-9)."""
        cleared: list[ClearPlan] = []

        def make(records: Sequence[MemoryRecord]) -> WritePlan:
            plan = plan_clear_all(records, target, pinned_confirmed=pinned_confirmed)
            cleared.append(plan)
            return WritePlan(writes=plan.writes)

        await self._write(target, make)
        return cleared[-1]

    async def note_use(self, memories: Sequence[str], use: MemoryUse) -> None:
        """Note the turn that sent ``memories`` to the model (the panel's "why"); the reply is
        stored already, so a directory that cannot be reached only loses this note."""
        if not memories:
            return
        try:
            await self.directory.note_use(memories, use)
        except StorageUnavailable as exc:
            log.warning("the use of %d memories by %s not noted: %s", len(memories), use.turn, exc.message)

    async def uses(self, records: Sequence[MemoryRecord]) -> dict[str, MemoryUse]:
        """The last use of each of ``records`` that a turn has used."""
        return await self.directory.uses([r.id for r in records])

    async def list(self, targets: Sequence[ScopeList]) -> list[MemoryRecord]:
        """The memories of some lists."""
        snap = await self.store.snapshot(targets)
        return list(snap.records)

    async def notices(self, space: str, notes: tuple[MemoryNote, ...]) -> tuple[str, ...]:
        """The DEC-11 notices of a turn's writes, as visible as the space wants them."""
        if not notes:
            return ()
        level = await self.directory.notice_level(space)
        return render_notices(notes, notice_level(level))

    async def delete_persona(self, persona: str) -> int:
        """MEM-10: the persona's personal memories become ``global`` ones; returns how many moved."""
        scopes = await self.directory.lists_of(persona)
        if not scopes:
            return 0
        snap = await self.store.snapshot(scopes)
        plan = plan_persona_deletion(snap.records, persona)
        if plan.writes:
            await self.store.apply_writes(plan)
            await self._note(plan.writes)
        return sum(1 for w in plan.writes if isinstance(w, Updated) and w.after.scope == "global")

    async def delete_spaces(self, personas: Sequence[str], spaces: frozenset[str]) -> tuple[int, int]:
        """The memories of deleted spaces (``plan_space_deletion``): those about a person move to
        their Global personal list, the spaces' own lists are deleted.

        Returns:
            How many moved (kept) and how many were deleted.
        """
        scopes = [s for p in personas for s in await self.directory.lists_of(p) if s.space in spaces]
        if not scopes:
            return 0, 0
        snap = await self.store.snapshot(list(dict.fromkeys(scopes)))
        plan = plan_space_deletion(snap.records, spaces)
        if plan.writes:
            await self.store.apply_writes(plan)
            await self._note(plan.writes)
        moved = sum(1 for w in plan.writes if isinstance(w, Updated))
        return moved, len(plan.writes) - moved

    async def rollback(self, journal: Sequence[MemoryWrite]) -> None:
        """Undo a turn's memory writes (MEM-7); pinned entries are never touched."""
        if not journal:
            return
        scopes = list(dict.fromkeys(_scope_of(_record_of(w)) for w in journal))
        snap = await self.store.snapshot(scopes)
        plan = plan_rollback(journal, snap.records)
        if plan.writes:
            await self.store.apply_writes(plan)
            await self._note(plan.writes)

    # --- model tools (MEM-6a) -------------------------------------------------------------

    async def run_tool(
        self,
        ctx: MemoryContext,
        call: ToolCall,
        *,
        speaker: str,
        turn: str,
        now: datetime,
        people: Mapping[str, str] | None = None,
    ) -> tuple[ToolResult, tuple[MemoryWrite, ...], tuple[RefusedWrite, ...]]:
        """Run one memory tool call, planned by ``plan_memory_tool``.

        ``people`` (user id → display name) names owners, for third-person saves.

        Returns:
            What the model reads, the writes made, and the call as the request log keeps it
            when it changed nothing: a write the rules refuse (MEM-4) is logged and reported
            there, and the model reads that it was refused.
        """
        try:
            step = plan_memory_tool(ctx, call, speaker=speaker, turn=turn, people=people)
            writes, said = await self._perform(ctx, step, now)
        except (InvalidInput, NotFound, Conflict) as exc:
            refused = refused_write(call, exc.code, exc.message)
            level = logging.WARNING if refused.kind == "refused" else logging.INFO
            said = refused.kind.replace("_", " ")  # the memory's text stays out of the log
            log.log(level, "memory write %s by turn %s: %s (%s)", said, turn, call.name, exc.code)
            return tool_result(call, exc.code, exc.message), (), (refused,)
        return ToolResult(call_id=call.id, content=said), writes, ()

    async def _perform(
        self, ctx: MemoryContext, step: MemoryStep, now: datetime
    ) -> tuple[tuple[MemoryWrite, ...], str]:
        policy = ctx.policy or self.policy
        if isinstance(step, SaveStep):
            saved = await self._save(step.memory(self._new_id()), now, policy)
            return saved.writes, save_reply(saved)
        scope, _ = await self.locate(step.id)
        if isinstance(step, UpdateStep):
            plan = await self._write(
                scope,
                lambda rs: plan_update(
                    rs, step.id, writer="model", now=now, policy=policy, text=step.text, author=step.author
                ),
            )
            stored = next((w.after.text for w in plan.writes if isinstance(w, Updated)), step.text)
            return plan.writes, f"Updated memory {step.id}: “{stored}”."
        plan = await self._write(scope, lambda rs: plan_delete(rs, step.id, writer="model"))
        return plan.writes, f"Deleted memory {step.id}."


def _record_of(write: MemoryWrite) -> MemoryRecord:
    return write.after if isinstance(write, Saved | Updated) else write.before


def _scope_of(record: MemoryRecord) -> ScopeList:
    return scope_list_of(record)
