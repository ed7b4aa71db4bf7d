"""Runs the deep memory pass after each summarized chunk (DEEP-1..4), in the worker.

Replies never wait for it (it runs in the summary job). It skips, and says why in its report,
when the platform is switched off, the persona does not learn from chat (MEM-8), the chat is in
memory-off mode (DEEP-4), there is no LLM (``engine.memory.mode.deep_skip_reason`` decides), or
the chunk is too short. Messages written while the chat's memory was off are never read, even
once it is back on (``written_with_memory``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from engine.errors import Conflict, InvalidInput, LLMUnavailable
from engine.memory import ScopeList, personal_list, space_list
from engine.memory.deep import DeepPolicy, DeepReport, deep_excerpt, deep_prompt, parse_deep, plan_deep
from engine.memory.mode import chat_memory_off, deep_skip_reason, written_with_memory
from engine.model import ChatSettings, Persona, StoredMessage
from engine.ports import ChatModel, ChatSettingsStore, Clock, ReportStore, TextDelta
from engine.service.memory import MemoryDesk

__all__ = ["DeepPass"]


class DeepPass:
    """The deep memory pass."""

    def __init__(
        self,
        *,
        model: ChatModel,
        memory: MemoryDesk,
        reports: ReportStore,
        clock: Clock,
        policy: DeepPolicy,
        default_model: str,
        chats: ChatSettingsStore,
    ) -> None:
        self.model = model
        self.chats = chats  # the chats' memory mode (DEEP-4)
        self.memory = memory
        self.reports = reports
        self.policy = policy
        self._clock = clock
        self._default_model = default_model

    def skip_reason(self, chat: str, persona: Persona, settings: ChatSettings) -> str:
        """Why the pass does not apply to ``chat`` whatever its chunk (DEEP-3, DEEP-4), or ``""``."""
        return deep_skip_reason(
            chat,
            persona,
            self.policy,
            memory_off=chat_memory_off(settings),
            offline=self.model.provider == "offline",
        )

    async def run(self, chat: str, chunk: Sequence[StoredMessage], persona: Persona) -> DeepReport:
        """Read one chunk for durable details and save them as unpinned memories."""
        report = await self._run(chat, chunk, persona)
        await self.reports.add_report(chat, report)
        return report

    async def _run(self, chat: str, chunk: Sequence[StoredMessage], persona: Persona) -> DeepReport:
        base = DeepReport(chat=chat, first=chunk[0].position, last=chunk[-1].position, status="skipped")
        chat_settings = await self.chats.chat_settings(chat)
        read = written_with_memory(chat_settings, chunk)  # DEEP-4: never what was said memory-off
        people = [m for m in read if m.role == "user" and not m.guest]
        reason = self.skip_reason(chat, persona, chat_settings) or (
            "too few messages by signed-in people" if len(people) < self.policy.min_messages else ""
        )
        if reason:
            return msgspec.structs.replace(base, reason=reason)
        limit = self.policy.max_edits
        excerpt = deep_excerpt(read)
        prompt = deep_prompt(persona, excerpt.lines, limit=limit)
        settings = msgspec.structs.replace(persona.model, name=persona.model.name or self._default_model)
        try:
            text = "".join(
                [
                    e.text
                    async for e in self.model.stream(prompt, settings, persona.name)
                    if isinstance(e, TextDelta)
                ]
            )
        except LLMUnavailable as exc:
            return msgspec.structs.replace(base, reason=f"the LLM failed: {exc.code}")
        output = parse_deep(text)
        if isinstance(output, str):
            return msgspec.structs.replace(base, status="rejected", reason=output)
        space = chat.split("/topic/")[0]
        speakers = excerpt.speakers
        existing = [r.text for r in await self.memory.list(_lists(persona.id, space, speakers.values()))]
        planned = plan_deep(
            output,
            persona=persona.id,
            space=space,
            speakers=speakers,
            existing=existing,
            policy=self.policy,
            max_chars=self.memory.policy.max_chars,
        )
        saved: list[str] = []
        for target, fact in planned:
            try:
                await self.memory.add(
                    persona=persona.id,
                    target=target,
                    text=fact,
                    pinned=False,
                    source="deep",
                    now=self._clock.now(),
                    limits=persona.memory,
                )
            except (Conflict, InvalidInput):
                continue  # a full list or a bad fact: the pass stays bounded and moves on
            saved.append(fact)
        status = "saved" if saved else "nothing"
        return msgspec.structs.replace(base, status=status, saved=tuple(saved))


def _lists(persona: str, space: str, owners: Iterable[str]) -> list[ScopeList]:
    return [space_list(persona, space), *(personal_list(persona, o, space) for o in dict.fromkeys(owners))]
