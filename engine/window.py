"""The live window (WIN-1..3).

Theory of operation: the window is the newest *suffix* of a chat's log (user and persona
messages alike, WIN-3). It grows backwards from the newest message while two caps hold: at most
``max_messages`` messages and at most ``budget`` tokens, where the budget is
``min(max_tokens, max_share × context_window)`` (WIN-1). The budget deliberately does not grow
with big-context models (WIN-2): only what else fits around the window changes.

Invariants:
- the newest message is always in the window, even when it alone exceeds the budget;
- apart from that single case the window's tokens never exceed the budget;
- the window is contiguous: a message that does not fit stops the walk (no skipping back to
  smaller, older ones, which would tear the conversation).

``live_window`` is what turns send: the same window with its start rounded *up* to
a message whose position is a multiple of ``ALIGN``, so the window only grows between two such
steps, and the prompt's window part stays byte-identical from one turn to the next (the
provider's prompt cache keeps reading it). The summarizer cuts at the same start, so a message
that left the window is always summarized (SUM-1). The caps hold as for ``select_window``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from engine.model import StoredMessage

__all__ = ["ALIGN", "Window", "WindowPolicy", "live_window", "select_window", "window_budget"]

ALIGN = 10  # user messages (about 20 log messages) between two steps of the live window


class WindowPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Caps of the live window (WIN-1)."""

    max_tokens: int = 10_000
    max_share: float = 0.25
    max_messages: int = 50


class Window(msgspec.Struct, frozen=True, kw_only=True):
    """The messages a turn sends raw, oldest first, and what was left out."""

    messages: tuple[StoredMessage, ...]
    tokens: int
    budget: int
    dropped: int


def window_budget(policy: WindowPolicy, context_window: int) -> int:
    """Token budget of the live window for a model with ``context_window`` tokens (WIN-1, WIN-2).

    Args:
        policy: the window caps.
        context_window: the model's context window in tokens.

    Returns:
        ``min(policy.max_tokens, floor(policy.max_share * context_window))``.
    """
    return min(policy.max_tokens, int(policy.max_share * context_window))


def select_window(messages: Sequence[StoredMessage], policy: WindowPolicy, context_window: int) -> Window:
    """Choose the live window from a chat's newest messages.

    Args:
        messages: candidate messages, oldest first (usually the last ``max_messages``).
        policy: the window caps.
        context_window: the model's context window in tokens.

    Returns:
        The newest contiguous run that fits both caps; the newest message always included.
    """
    budget = window_budget(policy, context_window)
    kept: list[StoredMessage] = []
    used = 0
    for message in reversed(messages):
        if len(kept) >= policy.max_messages:
            break
        if kept and used + message.tokens > budget:
            break
        kept.append(message)
        used += message.tokens
    kept.reverse()
    return Window(messages=tuple(kept), tokens=used, budget=budget, dropped=len(messages) - len(kept))


def live_window(
    messages: Sequence[StoredMessage], policy: WindowPolicy, context_window: int, *, align: int = ALIGN
) -> Window:
    """``select_window``, its start moved forward to the next position that is a multiple of ``align``.

    Args:
        messages: candidate messages, oldest first.
        policy: the window caps.
        context_window: the model's context window in tokens.
        align: positions between two steps (1 = no rounding: ``select_window`` itself).

    Returns:
        A suffix of ``select_window``'s window, never without the newest message; append-only
        while new messages arrive until the natural start passes the next multiple of ``align``.
    """
    window = select_window(messages, policy, context_window)
    capped = window.dropped > 0 or len(window.messages) >= policy.max_messages  # older ones may exist
    if align <= 1 or not capped or not window.messages:
        return window
    start = window.messages[0].position
    aligned = math.ceil(start / align) * align  # the first multiple of align at or after the start
    kept = tuple(m for m in window.messages if m.position >= aligned) or window.messages[-1:]
    if len(kept) == len(window.messages):
        return window
    tokens = sum(m.tokens for m in kept)
    return Window(messages=kept, tokens=tokens, budget=window.budget, dropped=len(messages) - len(kept))
