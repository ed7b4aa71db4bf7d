"""Runs the deep memory pass after each summarized chunk (DEEP-1..4), in the worker.

Replies never wait for it (it runs in the summary job). It skips, and says why in its report,
when the platform is switched off, the persona does not learn from chat (MEM-8), the chunk is
too short, or there is no LLM.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from engine.errors import Conflict, InvalidInput, LLMUnavailable
from engine.memory import ScopeList, personal_list, space_list
from engine.memory.deep import DeepPolicy, DeepReport, deep_excerpt, deep_prompt, parse_deep, plan_deep
from engine.model import Persona, StoredMessage
from engine.ports import ChatModel, Clock, ReportStore, TextDelta
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
    ) -> None:
        self.model = model
        self.memory = memory
        self.reports = reports
        self.policy = policy
        self._clock = clock
        self._default_model = default_model

    async def run(self, chat: str, chunk: Sequence[StoredMessage], persona: Persona) -> DeepReport:
        """Read one chunk for durable details and save them as unpinned memories."""
        report = await self._run(chat, chunk, persona)
        await self.reports.add_report(chat, report)
        return report

    async def _run(self, chat: str, chunk: Sequence[StoredMessage], persona: Persona) -> DeepReport:
        base = DeepReport(chat=chat, first=chunk[0].position, last=chunk[-1].position, status="skipped")
        platform = "telegram" if chat.startswith("tg:") else "web"
        people = [m for m in chunk if m.role == "user" and not m.guest]
        reason = (
            f"deep memory is off on {platform}"
            if platform not in self.policy.platforms
            else "the persona does not learn from chat (MEM-8)"
            if not persona.learn_from_chat or not persona.deep_memory
            else "no LLM: the deep memory pass needs one"
            if self.model.provider == "offline"
            else "too few messages by signed-in people"
            if len(people) < self.policy.min_messages
            else ""
        )
        if reason:
            return msgspec.structs.replace(base, reason=reason)
        limit = self.policy.max_edits
        excerpt = deep_excerpt(chunk)
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
