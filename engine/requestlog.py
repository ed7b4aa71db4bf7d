"""The request log (PRM-3, LORE-12) and the ``Context`` summary that API replies carry.

A request log says what went into one LLM request and why: the slots in order with token
counts, the window, the lore entries that entered or were dropped (with the reason), the
memories (pinned / active / recalled with similarity), summaries and documents used, the
provider's usage (including prompt-cache tokens), how many attempts it took and any error.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from datetime import datetime
from typing import Literal

import msgspec

from engine.memory.decay import RecallReason
from engine.prompt import STABLE_SLOTS, Prompt, PromptMessage
from engine.window import Window

__all__ = [
    "Context",
    "LoreLog",
    "MemoryLog",
    "MemoryNote",
    "RefusedWrite",
    "RequestLog",
    "SettingsLog",
    "SlotLog",
    "Usage",
    "WindowLog",
    "build_request_log",
    "summarize_context",
]


class SettingsLog(msgspec.Struct, frozen=True, kw_only=True):
    """The persona's settings a request was made with (``engine.persona_settings``); the prompt
    order is the log's ``slots``. ``None`` sampling: the provider's default; ``sampling_sent``
    False: the provider refuses sampling parameters (Anthropic), so they were not sent."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int = 0
    context_window: int = 0
    window_tokens: int = 0
    summaries: bool = True
    learn_from_chat: bool = True
    sampling_sent: bool = True


class SlotLog(msgspec.Struct, frozen=True, kw_only=True):
    """One slot of the template as it was rendered."""

    name: str
    messages: int
    tokens: int
    stable: bool


class LoreLog(msgspec.Struct, frozen=True, kw_only=True):
    """A lorebook entry that activated, and whether it entered the request (LORE-12)."""

    book: str
    entry: str
    name: str
    included: bool
    reason: str


class MemoryLog(msgspec.Struct, frozen=True, kw_only=True):
    """A memory that entered the request: ``similarity`` the score the turn's search gave it
    (None: not searched), ``matched`` whether the search used it (DEC-4)."""

    id: str
    scope: Literal["space", "personal", "global"]
    state: Literal["pinned", "active", "recalled"]
    similarity: float | None = None
    matched: bool = False


class MemoryNote(msgspec.Struct, frozen=True, kw_only=True):
    """A memory the turn saved, updated, deleted or forgot to make room (DEC-11 notices)."""

    kind: Literal["saved", "updated", "deleted", "forgotten"]
    id: str
    scope: Literal["space", "personal", "global"]
    text: str


class RefusedWrite(msgspec.Struct, frozen=True, kw_only=True):
    """A memory tool call of the turn that changed nothing, and why (MEM-4, MEM-6a).

    ``kind`` is ``refused`` when the privacy rules refused it (an owner who is not a
    participant, a guest's or an opted-out person's list, memory off), else ``not_done`` (a full
    list, a pinned entry, input that does not fit). ``scope``/``about``/``memory``/``text`` are
    what the call asked, as far as it could be read.
    """

    kind: Literal["refused", "not_done"]
    tool: str
    code: str
    reason: str
    scope: str | None = None
    about: str | None = None
    memory: str | None = None
    text: str | None = None


class WindowLog(msgspec.Struct, frozen=True, kw_only=True):
    """Size of the live window (WIN-1)."""

    messages: int
    tokens: int
    budget: int
    dropped: int


class Usage(msgspec.Struct, frozen=True, kw_only=True):
    """Token usage reported by the provider (zeros for the offline model)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


class RequestLog(msgspec.Struct, frozen=True, kw_only=True):
    """Everything about one LLM request (PRM-3)."""

    turn: str
    chat: str
    persona: str
    provider: str
    model: str
    created_at: datetime
    slots: tuple[SlotLog, ...]
    window: WindowLog
    prompt: tuple[PromptMessage, ...]
    stable_count: int
    lore: tuple[LoreLog, ...] = ()
    memories: tuple[MemoryLog, ...] = ()
    recall: tuple[RecallReason, ...] = ()
    """Why the memory search used a memory or not: the used and near-miss memories with their
    probability and two strongest signals (``engine.memory.decision``)."""
    memory_writes: tuple[MemoryNote, ...] = ()
    refused_writes: tuple[RefusedWrite, ...] = ()
    summaries: int = 0
    documents: int = 0
    usage: Usage | None = None
    attempts: int = 0
    error: str | None = None
    duration_ms: int | None = None
    memory: Literal["on", "off"] = "on"  # "off": the chat is in memory-off mode (MEM-8)
    settings: SettingsLog | None = None


class Context(msgspec.Struct, frozen=True, kw_only=True):
    """The summary of a request log that chat replies carry (API.md ``Context``)."""

    lore: tuple[LoreLog, ...]
    memories: tuple[MemoryLog, ...]
    window: WindowLog
    tokens: dict[str, int]
    usage: Usage | None = None
    memory_writes: tuple[MemoryNote, ...] = ()


def build_request_log(
    *,
    turn: str,
    chat: str,
    persona: str,
    provider: str,
    model: str,
    created_at: datetime,
    prompt: Prompt,
    window: Window,
    template: tuple[str, ...],
    message_tokens: Mapping[int, int],
    lore: tuple[LoreLog, ...] = (),
    memories: tuple[MemoryLog, ...] = (),
    recall: tuple[RecallReason, ...] = (),
    summaries: int = 0,
    documents: int = 0,
    memory: Literal["on", "off"] = "on",
    settings: SettingsLog | None = None,
) -> RequestLog:
    """Build the log of a request before it is sent.

    Args:
        turn: the turn id.
        chat: the chat id.
        persona: the persona id.
        provider: ``anthropic`` or ``offline``.
        model: the model id.
        created_at: when the turn started.
        prompt: the assembled prompt.
        window: the live window it was built from.
        template: the slot order used.
        message_tokens: token count of each prompt message, by index into ``prompt.messages``.
        lore: lore decisions.
        memories: memories that entered.
        recall: the memory search's reasons (used and near-miss memories).
        summaries: number of summary tiers used.
        documents: number of document chunks used.
        memory: ``off`` when the chat is in memory-off mode (MEM-8).
        settings: the persona's settings in effect.

    Returns:
        The request log, without usage, attempts or error (the service adds them after the call).
    """
    per_slot: dict[str, list[int]] = {slot: [] for slot in template}
    for index, message in enumerate(prompt.messages):
        per_slot.setdefault(message.slot, []).append(message_tokens.get(index, 0))
    # the template's leading run of rarely-changing slots, whether or not they rendered anything
    stable_slots = set(itertools.takewhile(STABLE_SLOTS.__contains__, template))
    slots = tuple(
        SlotLog(name=name, messages=len(counts), tokens=sum(counts), stable=name in stable_slots)
        for name, counts in per_slot.items()
    )
    return RequestLog(
        turn=turn,
        chat=chat,
        persona=persona,
        provider=provider,
        model=model,
        created_at=created_at,
        slots=slots,
        window=WindowLog(
            messages=len(window.messages),
            tokens=window.tokens,
            budget=window.budget,
            dropped=window.dropped,
        ),
        prompt=prompt.messages,
        stable_count=prompt.stable_count,
        lore=lore,
        memories=memories,
        recall=recall,
        summaries=summaries,
        documents=documents,
        memory=memory,
        settings=settings,
    )


def summarize_context(log: RequestLog) -> Context:
    """The API's ``Context`` for a request log.

    Args:
        log: a request log.

    Returns:
        Lore decisions, memories, window size and tokens per slot.
    """
    return Context(
        lore=log.lore,
        memories=log.memories,
        window=log.window,
        tokens={slot.name: slot.tokens for slot in log.slots},
        usage=log.usage,
        memory_writes=log.memory_writes,
    )
