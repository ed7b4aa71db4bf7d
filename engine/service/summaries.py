"""The summary desk: folds what leaves the live window into tiers, in the background (SUM-1..5).

Turns only read the state (``for_turn``) and queue a job when messages fell out of the window;
the ``worker`` process runs ``summarize`` under a per-chat lock, a few chunks at a time, and
commits with compare-and-set, so a crashed job retried later, or two workers, never duplicate a
tier. Without an LLM (or when it fails) summaries are extractive and say so (SUM-5).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence

import msgspec

from engine.errors import LLMUnavailable, NotFound
from engine.model import Persona, StoredMessage
from engine.persona_settings import window_policy
from engine.ports import ChatModel, Clock, PersonaStore, SummaryStore, TextDelta
from engine.service.deep import DeepPass
from engine.summary import (
    SummaryPolicy,
    SummaryState,
    Tier,
    add_tier,
    apply_fold,
    backlog,
    extractive_summary,
    merged_tier,
    plan_fold,
    plan_summary,
    summary_prompt,
)
from engine.window import WindowPolicy, live_window

__all__ = ["SummaryDesk", "SummaryStore"]

OFFLINE_MARK = "[extractive summary, no LLM] "


class SummaryDesk:
    """Summary tiers for turns, workers and people."""

    def __init__(
        self,
        *,
        store: SummaryStore,
        model: ChatModel,
        personas: PersonaStore,
        clock: Clock,
        policy: SummaryPolicy,
        window: WindowPolicy,
        default_model: str,
        deep: DeepPass | None = None,
        new_id: Callable[[], str] | None = None,
    ) -> None:
        self.deep = deep
        self.store = store
        self.model = model
        self.personas = personas
        self.policy = policy
        self.window = window
        self._clock = clock
        self._default_model = default_model
        self._new_id = new_id or (lambda: f"sum-{secrets.token_hex(5)}")

    async def for_turn(self, chat: str) -> SummaryState:
        """The state a turn's prompt is built from."""
        return await self.store.state(chat)

    async def _pending(self, chat: str, state: SummaryState) -> tuple[tuple[StoredMessage, ...], int]:
        """The next backlog to summarize (at most one job's worth) and the whole backlog's size."""
        newest = await self.store.newest(chat, self.window.max_messages)
        if not newest:
            return (), 0
        # the window the chat's turns use: its persona's caps (WIN-1), so nothing falls between
        persona = await self.personas.get(newest[-1].persona)
        policy = window_policy(persona, self.window) if persona is not None else self.window
        context = persona.model.context_window if persona is not None else 200_000
        window = live_window([m for m in newest if m.position > state.upto], policy, context)
        if not window.messages:
            return (), 0
        start = window.messages[0].position
        messages = await self.store.after(
            chat, state.upto, self.policy.chunk_messages * self.policy.chunks_per_job
        )
        waiting = await self.store.count_between(chat, state.upto, start)
        return backlog(messages, start, state), waiting

    async def view(self, chat: str) -> tuple[SummaryState, int]:
        """The tiers and how many messages left the window without being summarized (SUM-4)."""
        state = await self.store.state(chat)
        _, waiting = await self._pending(chat, state)
        return state, waiting

    async def summarize(self, chat: str) -> int:
        """Summarize the chat's backlog (the caller holds the chat's summary lock).

        Returns:
            How many tiers were written; re-queues the chat when backlog remains.
        """
        state = await self.store.state(chat)
        pending, waiting = await self._pending(chat, state)
        plan = plan_summary(pending, self.policy)
        if plan is None:
            return 0
        persona = await self._persona(plan.chunks[0][-1].persona)
        new, written = state, 0
        for chunk in plan.chunks:
            lines = [f"{m.name}: {m.text}" for m in chunk]
            text, offline = await self._summarize(persona, lines, merging=False)
            tier = Tier(
                id=self._new_id(),
                level="recent",
                text=text,
                first=chunk[0].position,
                last=chunk[-1].position,
                messages=len(chunk),
                created_at=self._clock.now(),
                offline=offline,
            )
            new, written = add_tier(new, tier), written + 1
            while (fold := plan_fold(new, self.policy)) is not None:
                text, offline = await self._summarize(persona, [t.text for t in fold.tiers], merging=True)
                merged = merged_tier(
                    fold, id=self._new_id(), text=text, now=self._clock.now(), offline=offline
                )
                new, written = apply_fold(new, fold, merged), written + 1
        if not await self.store.commit(chat, state.version, new):
            return 0  # someone changed the tiers meanwhile; the re-queued job starts over
        if self.deep is not None:  # DEEP-2: right after the compaction that triggered it
            for chunk in plan.chunks:
                await self.deep.run(chat, chunk, persona)
        if waiting - sum(len(c) for c in plan.chunks) >= self.policy.chunk_messages:
            await self.store.dequeued(chat)
            await self.store.enqueue(chat)  # more backlog: another job continues
        return written

    async def _persona(self, persona_id: str) -> Persona:
        persona = await self.personas.get(persona_id) or await self.personas.get("default")
        if persona is None:
            raise NotFound(f"There is no persona {persona_id!r}.", code="persona_not_found")
        return persona

    async def _summarize(self, persona: Persona, lines: Sequence[str], *, merging: bool) -> tuple[str, bool]:
        limit = self.policy.max_chars
        if self.model.provider != "offline":
            prompt = summary_prompt(persona, lines, merging=merging, max_chars=limit)
            settings = msgspec.structs.replace(persona.model, name=persona.model.name or self._default_model)
            try:
                parts = [
                    e.text
                    async for e in self.model.stream(prompt, settings, persona.name)
                    if isinstance(e, TextDelta)
                ]
            except LLMUnavailable:
                parts = []
            text = "".join(parts).strip()
            if text:
                return text[:limit], False
        body = extractive_summary(
            [line.removeprefix(OFFLINE_MARK) for line in lines], max_chars=limit - len(OFFLINE_MARK)
        )
        return OFFLINE_MARK + body, True

    async def edit(self, chat: str, tier_id: str, text: str) -> Tier:
        """A person rewrites a tier (SUM-4)."""
        for _ in range(3):
            state = await self.store.state(chat)
            found = next((t for t in state.tiers if t.id == tier_id), None)
            if found is None:
                raise NotFound(f"There is no summary {tier_id!r} in this chat.", code="summary_not_found")
            edited = msgspec.structs.replace(found, text=text, edited=True, offline=False)
            tiers = tuple(edited if t.id == tier_id else t for t in state.tiers)
            if await self.store.commit(chat, state.version, msgspec.structs.replace(state, tiers=tiers)):
                return edited
        raise NotFound("The summaries kept changing; try again.", code="summary_busy")

    async def rebuild(self, chat: str) -> None:
        """Drop every tier and summarize the chat again from the start (SUM-4)."""
        state = await self.store.state(chat)
        await self.store.commit(chat, state.version, SummaryState())
        await self.store.enqueue(chat)
