"""Answers with cited pages and reasoning levels on archive search (EPI-13).

``reasoning`` bounds the work of one search: the answer's token budget, how many results are
searched and, with ``include_related``, how many hops are followed:

==========  ==========  =======  ====
level       max_tokens  results  hops
==========  ==========  =======  ====
minimal     256         3        1
low         512         5        1
medium      1024        8        2
high        2048        12       3
max         4096        20       3
==========  ==========  =======  ====

The answer prompt lists the returned pages as ``[page-id] text`` and asks for a short answer
citing them with ``[page-id]`` markers. :func:`parse_answer` keeps only citations of pages that
were returned; any other marker is stripped from the text and reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

import msgspec

from engine.errors import InvalidInput
from engine.prompt import Prompt, PromptMessage

__all__ = [
    "REASONING_LEVELS",
    "Answer",
    "AnswerSource",
    "Reasoning",
    "ReasoningBudget",
    "answer_prompt",
    "parse_answer",
    "reasoning_budget",
]

Reasoning = Literal["minimal", "low", "medium", "high", "max"]
SOURCE_CHARS = 1_200
_MARKER = re.compile(r"\[([A-Za-z0-9][\w:.\-]*)\]")


class ReasoningBudget(msgspec.Struct, frozen=True, kw_only=True):
    """What one reasoning level allows (table in the module docstring)."""

    max_tokens: int
    results: int
    hops: int


REASONING_LEVELS: dict[str, ReasoningBudget] = {
    "minimal": ReasoningBudget(max_tokens=256, results=3, hops=1),
    "low": ReasoningBudget(max_tokens=512, results=5, hops=1),
    "medium": ReasoningBudget(max_tokens=1024, results=8, hops=2),
    "high": ReasoningBudget(max_tokens=2048, results=12, hops=3),
    "max": ReasoningBudget(max_tokens=4096, results=20, hops=3),
}


def reasoning_budget(level: str) -> ReasoningBudget:
    """The budget of a reasoning level.

    Raises:
        InvalidInput: ``invalid_reasoning`` for an unknown level.
    """
    budget = REASONING_LEVELS.get(level)
    if budget is None:
        raise InvalidInput(
            f"reasoning must be one of {', '.join(REASONING_LEVELS)}, not {level!r}.",
            code="invalid_reasoning",
        )
    return budget


class AnswerSource(msgspec.Struct, frozen=True, kw_only=True):
    """One returned page the answer may cite."""

    id: str
    text: str


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    """A validated answer: its text, the pages it cites (in order) and the markers stripped."""

    text: str
    citations: tuple[str, ...]
    stripped: tuple[str, ...] = ()


def answer_prompt(query: str, sources: Sequence[AnswerSource]) -> Prompt:
    """The prompt asking for a short answer to ``query`` from ``sources`` with ``[page-id]`` citations."""
    system = (
        "You answer questions from a chat archive. Use only the pages below. Answer in a few "
        "sentences and cite every page you use with its id in square brackets, like [pg-123]. "
        "If the pages do not answer the question, say so."
    )
    pages = "\n\n".join(f"[{s.id}] {s.text[:SOURCE_CHARS]}" for s in sources) or "(no pages)"
    return Prompt(
        messages=(
            PromptMessage(role="system", text=system, slot="persona"),
            PromptMessage(role="user", text=f"Pages:\n{pages}\n\nQuestion: {query}", slot="window"),
        ),
        stable_count=1,
    )


def parse_answer(text: str, allowed: Sequence[str]) -> Answer:
    """Keep citations of ``allowed`` pages; strip any other ``[id]`` marker from the text.

    Args:
        text: the model's answer.
        allowed: the ids of the pages the search returned.

    Returns:
        The cleaned answer, the cited ids (first mention order, no repeats) and the stripped ids.
    """
    valid = set(allowed)
    cited: list[str] = []
    stripped: list[str] = []

    def keep(match: re.Match[str]) -> str:
        ref = match.group(1)
        if ref in valid:
            cited.append(ref)
            return match.group(0)
        stripped.append(ref)
        return ""

    cleaned = _MARKER.sub(keep, text)
    cleaned = re.sub(r"[ \t]+([.,;:!?])", r"\1", re.sub(r"[ \t]{2,}", " ", cleaned)).strip()
    return Answer(
        text=cleaned, citations=tuple(dict.fromkeys(cited)), stripped=tuple(dict.fromkeys(stripped))
    )
