"""Conversation summary tiers (SUM-1..5).

Theory of operation. A chat's messages are, oldest to newest: messages already folded into
summaries (everything at or before ``SummaryState.upto``), messages that left the live window
but wait to be summarized (the *backlog*), and the live window. A background job summarizes the
backlog a few chunks at a time, oldest first, into **recent** summaries; four recent summaries
fold into one **merged** summary, four merged into one **long-term** summary (SUM-2). Every
turn's prompt carries long-term, merged and recent summaries, oldest first, before the window
(SUM-3); the window only takes messages after ``upto``, so no message is ever both summarized and
sent raw.

Invariants:
- ``upto`` only moves forward, and only together with the tier that covers the messages;
- tiers never overlap: a tier covers ``[first, last]`` positions and tiers are ordered;
- applying the same plan twice is refused by the store (the state version changed), so a job
  retried after a crash never duplicates a tier.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

import msgspec

from engine.model import Persona, StoredMessage
from engine.prompt import Prompt, PromptMessage

__all__ = [
    "LEVELS",
    "Fold",
    "SummaryPlan",
    "SummaryPolicy",
    "SummaryState",
    "Tier",
    "add_tier",
    "apply_fold",
    "backlog",
    "extractive_summary",
    "merged_tier",
    "plan_fold",
    "plan_summary",
    "prompt_summaries",
    "summary_prompt",
]

Level = Literal["recent", "merged", "long_term"]
LEVELS: tuple[Level, ...] = ("recent", "merged", "long_term")
_NEXT: dict[str, Level] = {"recent": "merged", "merged": "long_term"}


class SummaryPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How the backlog is cut and folded."""

    chunk_messages: int = 20
    chunks_per_job: int = 3
    fold: int = 4
    max_chars: int = 1_500


class Tier(msgspec.Struct, frozen=True, kw_only=True):
    """One summary: its level, text and the message positions it covers."""

    id: str
    level: Level
    text: str
    first: float
    last: float
    messages: int
    created_at: datetime
    edited: bool = False
    offline: bool = False


class SummaryState(msgspec.Struct, frozen=True, kw_only=True):
    """A chat's tiers (oldest first within each level) and the last summarized position."""

    upto: float = -1.0
    version: int = 0
    tiers: tuple[Tier, ...] = ()

    def level(self, level: Level) -> tuple[Tier, ...]:
        """The tiers of one level, oldest first."""
        return tuple(t for t in self.tiers if t.level == level)


class SummaryPlan(msgspec.Struct, frozen=True, kw_only=True):
    """The next chunks of the backlog to summarize (oldest first)."""

    chunks: tuple[tuple[StoredMessage, ...], ...]


class Fold(msgspec.Struct, frozen=True, kw_only=True):
    """``fold`` tiers of one level to merge into one tier of the next level."""

    level: Level
    tiers: tuple[Tier, ...]


def backlog(
    messages: Sequence[StoredMessage], window_start: float, state: SummaryState
) -> tuple[StoredMessage, ...]:
    """Messages that left the window and are not summarized yet (SUM-4 counts them)."""
    return tuple(m for m in messages if state.upto < m.position < window_start)


def plan_summary(pending: Sequence[StoredMessage], policy: SummaryPolicy) -> SummaryPlan | None:
    """Whole chunks of the backlog, at most ``chunks_per_job``; None when less than one chunk waits."""
    size = policy.chunk_messages
    count = min(len(pending) // size, policy.chunks_per_job)
    if count == 0:
        return None
    return SummaryPlan(chunks=tuple(tuple(pending[i * size : (i + 1) * size]) for i in range(count)))


def add_tier(state: SummaryState, tier: Tier) -> SummaryState:
    """The state with a new recent tier covering messages up to ``tier.last``."""
    return msgspec.structs.replace(state, upto=max(state.upto, tier.last), tiers=(*state.tiers, tier))


def plan_fold(state: SummaryState, policy: SummaryPolicy) -> Fold | None:
    """The oldest ``fold`` tiers of a level that has that many, lowest level first (SUM-2)."""
    for level in ("recent", "merged"):
        tiers = state.level(level)
        if len(tiers) >= policy.fold:
            return Fold(level=level, tiers=tiers[: policy.fold])
    return None


def apply_fold(state: SummaryState, fold: Fold, tier: Tier) -> SummaryState:
    """Replace the folded tiers by their merged tier."""
    gone = {t.id for t in fold.tiers}
    return msgspec.structs.replace(state, tiers=(*(t for t in state.tiers if t.id not in gone), tier))


def merged_tier(fold: Fold, *, id: str, text: str, now: datetime, offline: bool) -> Tier:
    """The tier a fold produces."""
    return Tier(
        id=id,
        level=_NEXT[fold.level],
        text=text,
        first=fold.tiers[0].first,
        last=fold.tiers[-1].last,
        messages=sum(t.messages for t in fold.tiers),
        created_at=now,
        offline=offline,
    )


def prompt_summaries(state: SummaryState) -> tuple[str, ...]:
    """Texts for the prompt: long-term, then merged, then recent, each oldest first (SUM-3)."""
    ordered = [*state.level("long_term"), *state.level("merged"), *state.level("recent")]
    return tuple(t.text for t in ordered)


_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")


def extractive_summary(lines: Sequence[str], *, max_chars: int) -> str:
    """A summary without an LLM (SUM-5): the first sentence of each line, in order, within ``max_chars``."""
    picked: list[str] = []
    used = 0
    for line in lines:
        first = _SENTENCE.split(line.strip(), maxsplit=1)[0].strip()
        if not first:
            continue
        if used + len(first) + 1 > max_chars:
            break
        picked.append(first)
        used += len(first) + 1
    return " ".join(picked) or (lines[0][:max_chars] if lines else "")


def summary_prompt(persona: Persona, lines: Sequence[str], *, merging: bool, max_chars: int) -> Prompt:
    """The summarization prompt: a chunk of the conversation, or summaries to merge."""
    what = "these consecutive summaries into one" if merging else "this part of the conversation"
    system = (
        f"You keep the running memory of a chat with {persona.name}. Summarize {what} in at most "
        f"{max_chars} characters, in the conversation's language: who said or did what, decisions, "
        "plans, open questions, plot and mood. Plain prose, past tense, no preamble."
    )
    return Prompt(
        messages=(
            PromptMessage(role="system", text=system, slot="persona"),
            PromptMessage(role="user", text="\n".join(lines), slot="window"),
        ),
        stable_count=1,
    )
