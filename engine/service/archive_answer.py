"""Writes the short cited answer of an archive search with the LLM port (EPI-13 ``answer``).

Without an LLM (the offline model) or when the provider fails, there is no answer and the
reason says so honestly; the search results are returned either way by the caller.
"""

from __future__ import annotations

import msgspec

from engine.archive.answer import Answer, AnswerSource, answer_prompt, parse_answer, reasoning_budget
from engine.errors import LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ChatModel, TextDelta
from engine.service.archive import SearchResults

__all__ = ["AnswerOutcome", "ArchiveAnswerer", "answer_sources"]


class AnswerOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """The answer, or why there is none (``unavailable``)."""

    answer: Answer | None = None
    unavailable: str | None = None


def answer_sources(found: SearchResults) -> tuple[AnswerSource, ...]:
    """The returned pages the answer may cite (superseded versions excluded), in result order."""
    sources: list[AnswerSource] = []
    for item in found.items:
        page = item.page
        if page is None or item.item.superseded:
            continue
        sources.append(AnswerSource(id=page.id, text=page.summary or page.abstract or page.body))
    return tuple(sources)


class ArchiveAnswerer:
    """Asks the model for a short answer citing the pages a search returned."""

    def __init__(self, *, model: ChatModel, default_model: str) -> None:
        self.model = model
        self._default_model = default_model

    async def answer(self, query: str, found: SearchResults, reasoning: str = "medium") -> AnswerOutcome:
        """A short answer to ``query`` citing only pages in ``found``.

        Args:
            query: the search query.
            found: what the search returned.
            reasoning: the reasoning level (its token budget bounds the answer).

        Returns:
            The validated answer, or the reason there is none.

        Raises:
            InvalidInput: ``invalid_reasoning`` for an unknown level.
        """
        budget = reasoning_budget(reasoning)
        if self.model.provider == "offline":
            return AnswerOutcome(unavailable="no LLM: answers need a language model (ANTHROPIC_API_KEY)")
        sources = answer_sources(found)
        if not sources:
            return AnswerOutcome(unavailable="no pages matched, so there is nothing to answer from")
        settings = ModelSettings(name=self._default_model, max_tokens=budget.max_tokens)
        try:
            text = "".join(
                [
                    e.text
                    async for e in self.model.stream(answer_prompt(query, sources), settings, "archive")
                    if isinstance(e, TextDelta)
                ]
            )
        except LLMUnavailable as exc:
            return AnswerOutcome(unavailable=f"the LLM failed: {exc.code}")
        return AnswerOutcome(answer=parse_answer(text, [s.id for s in sources]))
