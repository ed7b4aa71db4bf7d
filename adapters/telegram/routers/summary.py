"""``/summary``: read this chat's summary tiers and what waits to be summarized (SUM-4).

Shows the long-term, merged and recent summaries (oldest first, as the prompt carries them)
and how many messages have left the live window without being summarized yet. A forum topic
is its own chat, so it has its own summaries. Editing and rebuilding tiers is done in the web
app or the REST API.
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.types import Message

from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import DeliveryPolicy, ReplyStream, send_text
from adapters.telegram.memory_views import plural
from adapters.telegram.normalize import chat_of
from adapters.telegram.render import MAX_MESSAGE_CHARS, Chunk, Styled, split
from engine.service import ChatService
from engine.summary import Level, SummaryState

__all__ = ["create_router", "on_summary", "summary_chunks"]

LEVELS: tuple[tuple[Level, str], ...] = (
    ("long_term", "Long-term memory"),
    ("merged", "Merged summaries"),
    ("recent", "Recent summaries"),
)


def _waiting(count: int) -> str:
    if not count:
        return "Every message that left my live window is summarized."
    verb = "is" if count == 1 else "are"
    return f"{plural(count, 'message')} left my live window and {verb} waiting to be summarized."


def summary_chunks(state: SummaryState, waiting: int, limit: int = MAX_MESSAGE_CHARS) -> tuple[Chunk, ...]:
    """The ``/summary`` text, split into messages."""
    text = Styled().add("Summaries of this conversation", "bold")
    shown = False
    for level, label in LEVELS:
        tiers = state.level(level)
        if tiers:
            shown = True
            text.add("\n\n").add(f"{label} ({len(tiers)})", "bold")
            for tier in tiers:
                text.add(f"\n• {tier.text.strip()}")
    if not shown:
        text.add("\n\nNone yet: everything we said still fits in my live window, or waits its turn.")
    chunk = text.add(f"\n\n{_waiting(waiting)}").chunk()
    return split(chunk.text, chunk.entities, limit)


async def on_summary(message: Message, bot: Bot, service: ChatService) -> None:
    """Show the chat's summary tiers and the unsummarized count."""
    if service.summaries is None:
        await send_text(bot, target_of(message), "Summaries are not available here.", markdown=False)
        return
    state, waiting = await service.summaries.view(chat_of(message))
    await ReplyStream(bot, target_of(message), DeliveryPolicy()).show_chunks(summary_chunks(state, waiting))


def create_router() -> Router:
    """The summary router."""
    router = Router(name="summary")
    router.message.register(on_summary, Command("summary"))
    return router
