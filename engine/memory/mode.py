"""Whether a chat has memory, and whether the deep memory pass applies to it (MEM-8, DEEP-3, DEEP-4).

A chat is in memory-off mode when its own setting says ``off`` (``ChatSettings.memory``; a chat
may be switched before its first message, so a challenge chat starts that way). The deep pass
applies to a chat when its platform is one the pass runs on (web by default; never Telegram
unless configured), the persona learns from chat and has the pass on, the chat is not in
memory-off mode and an LLM is there to read. The memory panel's "Deep memory: Active" badge is
shown exactly when ``deep_skip_reason`` has nothing to say before it sees a chunk.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from engine.memory.deep import DeepPolicy
from engine.model import ChatSettings, MemoryMode, Persona, StoredMessage

__all__ = [
    "DEEP_ACTIVE_NOTE",
    "MEMORY_OFF_NOTE",
    "chat_memory_off",
    "chat_platform",
    "deep_skip_reason",
    "memory_off_at",
    "switch_memory",
    "written_with_memory",
]

MAX_OFF_SPANS = 50
"""Memory-off stretches a chat keeps; older ones are forgotten (their messages are long summarized)."""

MEMORY_OFF_NOTE = (
    "Memory is off for this chat: you have no saved memories here, and nothing said in this chat "
    "will be remembered. If you are asked to remember something, say that memory is off in this chat."
)
"""What a memory-off turn's prompt tells the model, in place of the pinned memories (MEM-8)."""

DEEP_ACTIVE_NOTE = (
    "After older messages of this chat are summarized, the persona re-reads them in the background "
    "and saves up to {edits} lasting details (names, dates, promises) as unpinned memories; it never "
    "changes pinned ones and no reply waits for it."
)
"""The one line the memory panel shows under "Deep memory: Active" (DEEP-1..3)."""


def chat_memory_off(settings: ChatSettings | None) -> bool:
    """Whether the chat is in memory-off mode (MEM-8); the persona's "learn from chat" switch is
    apart from it (``memory_enabled`` weighs both)."""
    return settings is not None and settings.memory == "off"


def chat_platform(chat: str) -> str:
    """The platform a chat id belongs to: ``telegram`` for ``tg:…``, else ``web``."""
    return "telegram" if chat.startswith("tg:") else "web"


def deep_skip_reason(
    chat: str,
    persona: Persona,
    policy: DeepPolicy,
    *,
    memory_off: bool,
    offline: bool,
) -> str:
    """Why the deep pass does not apply to ``chat`` (DEEP-3, DEEP-4), or ``""`` when it does.

    Args:
        chat: the chat id (its platform decides with ``policy.platforms``).
        persona: the chat's persona (``learn_from_chat`` and ``deep_memory``).
        policy: the pass's switches.
        memory_off: the chat is in memory-off mode (``chat_memory_off``).
        offline: no LLM answers (the labelled offline model).
    """
    platform = chat_platform(chat)
    if platform not in policy.platforms:
        return f"deep memory is off on {platform}"
    if not persona.learn_from_chat or not persona.deep_memory:
        return "the persona does not learn from chat (MEM-8)"
    if memory_off:
        return "memory is off in this chat (MEM-8, DEEP-4)"
    if offline:
        return "no LLM: the deep memory pass needs one"
    return ""


def switch_memory(settings: ChatSettings, memory: MemoryMode, last_position: float) -> ChatSettings:
    """The chat's settings after switching its memory to ``memory`` (MEM-8).

    Args:
        settings: the settings now.
        memory: the mode wanted.
        last_position: the position of the chat's newest message (0 for a chat not started).

    Returns:
        The new settings: switching off marks where the memory-off messages start (after the
        newest message, whose reply, if it comes now, is written with memory off too);
        switching on keeps that stretch in ``off_spans``. The same mode changes nothing.
    """
    newest = float(int(last_position))  # a reply sits at its message's position + 0.5
    if memory == settings.memory:
        return settings
    if memory == "off":
        return msgspec.structs.replace(settings, memory="off", off_since=newest + 0.25)
    since = settings.off_since if settings.off_since is not None else newest + 0.25
    spans = (*settings.off_spans, (since, newest + 0.25))[-MAX_OFF_SPANS:]
    return msgspec.structs.replace(settings, memory="on", off_since=None, off_spans=spans)


def memory_off_at(settings: ChatSettings, position: float) -> bool:
    """Whether the chat's message at ``position`` was written while its memory was off."""
    if settings.memory == "off" and settings.off_since is not None and position >= settings.off_since:
        return True
    return any(first <= position <= last for first, last in settings.off_spans)


def written_with_memory(
    settings: ChatSettings, messages: Sequence[StoredMessage]
) -> tuple[StoredMessage, ...]:
    """The messages written while the chat's memory was on: what the deep pass may read (DEEP-4)."""
    return tuple(m for m in messages if not memory_off_at(settings, m.position))
