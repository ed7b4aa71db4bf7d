"""Delivering replies to Telegram (PLT-3): typing, streaming, splitting, notices, receipts.

In a private chat a new reply streams as a draft (Bot API 9 ``sendMessageDraft``: the text so
far, animated in place, under one draft id per reply) and is then sent as a message; past 4096
UTF-16 units the full messages are sent as they fill and the draft shows the rest. In groups,
for a reply rewritten in place (regenerate), and for a bot whose server answered that the method
is unknown (remembered per bot for the life of the process), the reply streams into one message
that is edited as text arrives instead. Either way the text is shown at most once per
``private_interval`` seconds in a private chat and ``group_interval`` in groups (Telegram allows
about one message a second per chat and twenty a minute per group; edits count). The finished
reply is rendered from Markdown (``render``) and the last message gets the ↻ button; the turn's
memory notices (DEC-11, already as visible as the space wants them) sit under it as an italic
footer, so regenerating the reply replaces them too. A memory the reply saved gets a receipt
message under it with Undo and Pin (``receipts``), which then stands in for the footer. A failed
turn turns the streamed messages into a short notice; the person's message stays stored by the
service either way.

Flood control (429) is waited out by the session middleware (``flood.RetryAfter``); a mid-stream
edit that still fails is skipped, the final one is not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing, asynccontextmanager
from typing import cast

import msgspec
from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest, TelegramNotFound, TelegramRetryAfter
from aiogram.types import InlineKeyboardMarkup, MessageEntity, ReplyParameters

from adapters.telegram.receipts import receipt_chunk, receipt_keyboard, receipt_notes, shows_texts
from adapters.telegram.render import MAX_MESSAGE_CHARS, Chunk, render, split, with_footer
from engine.requestlog import MemoryNote
from engine.service import ReplyDelta, ReplyDone, ReplyEvent, ReplyFailed

__all__ = [
    "Delivered",
    "DeliveryPolicy",
    "ReplyStream",
    "Target",
    "deliver",
    "notice_footer",
    "send_chunk",
    "send_text",
    "typing",
]

log = logging.getLogger("hearth.telegram")

SORRY = "⚠️ Something went wrong on my side. Your message is saved; please try again in a moment."


class DeliveryPolicy(msgspec.Struct, frozen=True, kw_only=True):
    """How fast replies stream and how long a message may be."""

    private_interval: float = 1.0
    group_interval: float = 3.0
    typing_every: float = 4.5
    max_chars: int = MAX_MESSAGE_CHARS


class Target(msgspec.Struct, frozen=True, kw_only=True):
    """Where a reply goes: the chat, the forum topic, and the message it answers."""

    chat_id: int
    thread_id: int | None = None
    reply_to: int | None = None
    group: bool = False


class Delivered(msgspec.Struct, frozen=True, kw_only=True):
    """What a delivery showed: the turn it finished (if any) and the messages that show it."""

    turn: str | None
    parts: tuple[int, ...]


class _Part(msgspec.Struct, kw_only=True):
    message_id: int
    shown: tuple[Chunk, str] | None = None


def _entities(chunk: Chunk) -> list[MessageEntity] | None:
    return [MessageEntity(**msgspec.structs.asdict(e)) for e in chunk.entities] or None


def _markup_key(markup: InlineKeyboardMarkup | None) -> str:
    return markup.model_dump_json() if markup is not None else ""


class ReplyStream:
    """The Telegram messages that show one reply, kept in step with its text."""

    def __init__(self, bot: Bot, target: Target, policy: DeliveryPolicy, parts: tuple[int, ...] = ()) -> None:
        self.bot, self.target, self.policy = bot, target, policy
        self._parts = [_Part(message_id=p) for p in parts]

    @property
    def parts(self) -> tuple[int, ...]:
        """The message ids, in order."""
        return tuple(p.message_id for p in self._parts)

    async def show(
        self,
        text: str,
        *,
        markup: InlineKeyboardMarkup | None = None,
        markdown: bool = True,
        footer: str | None = None,
    ) -> None:
        """Make the messages show ``text`` (Markdown unless ``markdown=False``).

        ``markup`` goes under the last message, after the italic ``footer`` if any; messages no
        longer needed are deleted.
        """
        limit = self.policy.max_chars
        chunks = render(text, limit) if markdown else split(text, (), limit)
        if footer:
            chunks = with_footer(chunks, footer, limit)
        await self.show_chunks(chunks, markup=markup)

    async def show_chunks(
        self, chunks: tuple[Chunk, ...], *, markup: InlineKeyboardMarkup | None = None
    ) -> None:
        """Make the messages show already rendered chunks (see ``show``)."""
        chunks = chunks or (Chunk(text="…"),)
        for index, chunk in enumerate(chunks):
            last = index == len(chunks) - 1
            await self._put(index, chunk, markup if last else None)
        for extra in self._parts[len(chunks) :]:
            with contextlib.suppress(TelegramAPIError):
                await self.bot.delete_message(chat_id=self.target.chat_id, message_id=extra.message_id)
        del self._parts[len(chunks) :]

    async def _put(self, index: int, chunk: Chunk, markup: InlineKeyboardMarkup | None) -> None:
        wanted = (chunk, _markup_key(markup))
        if index < len(self._parts) and self._parts[index].shown == wanted:
            return
        if index < len(self._parts) and await self._edit(self._parts[index], chunk, markup):
            self._parts[index].shown = wanted
            return
        sent = await self._send(chunk, markup, quote=index == 0)
        part = _Part(message_id=sent, shown=wanted)
        if index < len(self._parts):
            self._parts[index] = part
        else:
            self._parts.append(part)

    async def _send(self, chunk: Chunk, markup: InlineKeyboardMarkup | None, *, quote: bool) -> int:
        reply = None
        if quote and self.target.reply_to is not None:
            reply = ReplyParameters(message_id=self.target.reply_to, allow_sending_without_reply=True)
        try:
            return await self._send_once(chunk, markup, reply, _entities(chunk))
        except TelegramBadRequest as exc:
            if not chunk.entities or "entit" not in exc.message.lower():
                raise
            log.warning("Telegram refused the formatting; sending plain text", exc_info=True)
            return await self._send_once(chunk, markup, reply, None)

    async def _send_once(
        self,
        chunk: Chunk,
        markup: InlineKeyboardMarkup | None,
        reply: ReplyParameters | None,
        entities: list[MessageEntity] | None,
    ) -> int:
        message = await self.bot.send_message(
            chat_id=self.target.chat_id,
            text=chunk.text,
            entities=entities,
            message_thread_id=self.target.thread_id,
            reply_parameters=reply,
            reply_markup=markup,
        )
        return message.message_id

    async def _edit(self, part: _Part, chunk: Chunk, markup: InlineKeyboardMarkup | None) -> bool:
        """Edit a message in place; False when it is gone (then a new one is sent)."""
        try:
            await self._edit_once(part, chunk, markup, _entities(chunk))
        except TelegramBadRequest as exc:
            reason = exc.message.lower()
            if "not modified" in reason:
                return True
            if "not found" in reason or "can't be edited" in reason:
                return False
            if not chunk.entities:
                raise
            log.warning("Telegram refused the formatting; editing as plain text", exc_info=True)
            await self._edit_once(part, chunk, markup, None)
        return True

    async def _edit_once(
        self,
        part: _Part,
        chunk: Chunk,
        markup: InlineKeyboardMarkup | None,
        entities: list[MessageEntity] | None,
    ) -> None:
        await self.bot.edit_message_text(
            chat_id=self.target.chat_id,
            message_id=part.message_id,
            text=chunk.text,
            entities=entities,
            reply_markup=markup,
        )


_NO_DRAFTS: set[int] = set()
"""Bots whose Bot API server answered that ``sendMessageDraft`` does not exist."""


class _Draft:
    """A reply streaming as a draft in a private chat; ``usable`` turns False for good on failure."""

    def __init__(self, bot: Bot, target: Target, *, usable: bool) -> None:
        self.bot, self.target = bot, target
        self.usable = usable and bot.id not in _NO_DRAFTS
        self.draft_id = secrets.randbelow(2**31 - 2) + 1  # non-zero; one per reply, so it animates

    async def show(self, stream: ReplyStream, text: str) -> bool:
        """Show ``text`` so far: full messages are sent, the draft shows the last one.

        Returns:
            False when drafts cannot be used (then the caller streams by edits).
        """
        if not self.usable:
            return False
        chunks = render(text, stream.policy.max_chars)
        if not chunks:
            return True
        if len(chunks) > 1:
            await stream.show_chunks(chunks[:-1])
        try:
            await self._send(chunks[-1])
        except TelegramNotFound:  # what the Bot API answers for a method it does not have
            _NO_DRAFTS.add(self.bot.id)
            log.info("this Bot API server has no sendMessageDraft; replies stream by edits")
            self.usable = False
        except TelegramBadRequest as exc:
            if "method" in exc.message.lower():
                _NO_DRAFTS.add(self.bot.id)
            log.warning("a draft was refused (%s); this reply streams by edits", exc.message)
            self.usable = False
        return self.usable

    async def _send(self, chunk: Chunk) -> None:
        try:
            await self._send_once(chunk, _entities(chunk))
        except TelegramBadRequest as exc:
            if not chunk.entities or "entit" not in exc.message.lower():
                raise
            await self._send_once(chunk, None)

    async def _send_once(self, chunk: Chunk, entities: list[MessageEntity] | None) -> None:
        await self.bot.send_message_draft(
            chat_id=self.target.chat_id,
            draft_id=self.draft_id,
            text=chunk.text,
            entities=entities,
            message_thread_id=self.target.thread_id,
        )


@asynccontextmanager
async def typing(bot: Bot, target: Target, every: float) -> AsyncIterator[None]:
    """Show "typing…" in the chat (renewed every ``every`` seconds) while the block runs."""

    async def keep_typing() -> None:
        while True:
            with contextlib.suppress(TelegramAPIError):
                await bot.send_chat_action(
                    chat_id=target.chat_id, action="typing", message_thread_id=target.thread_id
                )
            await asyncio.sleep(every)

    task = asyncio.create_task(keep_typing())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def deliver(
    bot: Bot,
    target: Target,
    events: AsyncIterator[ReplyEvent],
    policy: DeliveryPolicy,
    *,
    keyboard: Callable[[str], InlineKeyboardMarkup | None],
    parts: tuple[int, ...] = (),
) -> Delivered:
    """Stream a turn's events into the chat.

    Args:
        bot: the bot.
        target: the chat, topic and message to answer.
        events: the service's reply events; always consumed to the end (the service holds the
            chat's lock until then).
        policy: edit pacing and size limit.
        keyboard: the buttons for a finished turn, by turn id.
        parts: messages that already show this reply (regenerate edits them in place).

    Returns:
        The finished turn (None when it failed) and the messages that show it.
    """
    stream = ReplyStream(bot, target, policy, parts)
    draft = _Draft(bot, target, usable=not parts and not target.group and target.chat_id > 0)
    interval = policy.group_interval if target.group else policy.private_interval
    text, due, turn = "", 0.0, None
    replies = cast("AsyncGenerator[ReplyEvent, None]", events)  # the service's reply streams are generators
    async with typing(bot, target, policy.typing_every), aclosing(replies) as stream_events:
        try:
            async for event in stream_events:
                if isinstance(event, ReplyDelta):
                    text += event.text
                    if time.monotonic() >= due and text.strip():
                        due = time.monotonic() + interval
                        due += await _progress(stream, text, draft)
                elif isinstance(event, ReplyDone):
                    turn = event.turn
                    saved = receipt_notes(event)
                    covered = bool(saved) and len(saved) == len(event.context.memory_writes)
                    footer = None if covered else notice_footer(event.notices)  # receipts say it
                    await stream.show(event.reply, markup=keyboard(event.turn), footer=footer)
                    await _receipts(stream, event, saved)
                elif isinstance(event, ReplyFailed):
                    await stream.show(f"⚠️ {event.message}", markdown=False)
        except TelegramAPIError:
            raise
        except Exception:
            log.exception("a reply failed in chat %s", target.chat_id)
            if turn is None:  # a reply already shown stays shown
                await stream.show(SORRY, markdown=False)
    return Delivered(turn=turn, parts=stream.parts)


async def _receipts(stream: ReplyStream, done: ReplyDone, saved: tuple[MemoryNote, ...]) -> None:
    """Send a receipt with Undo and Pin under the reply for each memory it saved."""
    target = msgspec.structs.replace(stream.target, reply_to=stream.parts[-1] if stream.parts else None)
    texts = shows_texts(done, private=not target.group)
    for note in saved:
        try:
            await send_chunk(
                stream.bot,
                target,
                receipt_chunk(note, texts=texts, group=target.group),
                markup=receipt_keyboard(note, target.chat_id),
            )
        except TelegramAPIError:  # the reply is shown; a missing receipt leaves /memories
            log.warning("a memory receipt could not be sent in chat %s", target.chat_id, exc_info=True)


async def _progress(stream: ReplyStream, text: str, draft: _Draft) -> float:
    """Show the text so far (as a draft when it can); returns extra seconds to wait before the next."""
    try:
        if await draft.show(stream, text):
            return 0.0
        await stream.show(text)
    except TelegramRetryAfter as exc:
        return float(exc.retry_after)
    except TelegramAPIError:
        log.warning("a streaming edit failed; the next one will catch up", exc_info=True)
    return 0.0


def notice_footer(notices: tuple[str, ...]) -> str | None:
    """The footer that shows a turn's memory notices (DEC-11), or None without any."""
    return "\n".join(f"🧠 {notice}" for notice in notices) or None


async def send_text(
    bot: Bot,
    target: Target,
    text: str,
    *,
    markdown: bool = True,
    markup: InlineKeyboardMarkup | None = None,
) -> tuple[int, ...]:
    """Send a whole text (Markdown unless ``markdown=False``), split as needed; returns the ids."""
    stream = ReplyStream(bot, target, DeliveryPolicy())
    await stream.show(text, markdown=markdown, markup=markup)
    return stream.parts


async def send_chunk(
    bot: Bot,
    target: Target,
    chunk: Chunk,
    *,
    markup: InlineKeyboardMarkup | None = None,
    edit: int | None = None,
) -> int:
    """Send one rendered message, or edit message ``edit`` to show it (sent anew if it is gone).

    Returns:
        The id of the message that shows it.
    """
    stream = ReplyStream(bot, target, DeliveryPolicy(), (edit,) if edit is not None else ())
    await stream.show_chunks((chunk,), markup=markup)
    return stream.parts[0]
