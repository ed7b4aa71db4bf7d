"""Undo and Pin under a memory receipt (``receipts``): only for whoever may change that memory.

Undo deletes the memory the reply saved; Pin keeps it in mind always. Who may press is decided
as for ``/memories`` (``check_may_change``): a personal or global memory by its person only, a
chat's memory by the person of a private chat or a group's admins. Anyone else gets a toast
and nothing changes; a memory already gone (regenerated away, forgotten) says so.
"""

from __future__ import annotations

from typing import Literal

from aiogram import Bot, Router
from aiogram.types import CallbackQuery, Message

from adapters.telegram.access import may_change_space
from adapters.telegram.context import BotContext
from adapters.telegram.conversation import target_of
from adapters.telegram.delivery import send_chunk
from adapters.telegram.memory_access import check_may_change, desk_of
from adapters.telegram.receipts import ReceiptButton, receipt_after, receipt_keyboard
from engine.errors import Forbidden, NotFound
from engine.requestlog import MemoryNote
from engine.service import ChatService

__all__ = ["create_router", "on_receipt"]

REFUSED = "Only the person this memory is about can change it."
GONE = "That memory is already gone."


async def on_receipt(
    query: CallbackQuery, callback_data: ReceiptButton, bot: Bot, service: ChatService, ctx: BotContext
) -> None:
    """Undo or pin the receipt's memory, then show on the receipt what was done."""
    message = query.message
    action: Literal["undo", "pin"] = "pin" if callback_data.action == "pin" else "undo"
    if not isinstance(message, Message):
        await query.answer("This receipt is too old; use /memories.")
        return
    desk, user = desk_of(service), await ctx.person(query.from_user.id)
    try:
        scope, record = await desk.locate(callback_data.memory)
    except NotFound:
        await query.answer(GONE)
        return

    async def admin() -> bool:
        return await may_change_space(bot, callback_data.space, query.from_user.id)

    try:
        await check_may_change(scope, persona=ctx.persona, space=callback_data.space, user=user, admin=admin)
    except Forbidden as refused:  # a group's own memory, pressed by a member who is not an admin
        await query.answer(refused.message, show_alert=True)
        return
    except NotFound:
        await query.answer(REFUSED, show_alert=True)
        return
    if action == "undo":
        await desk.delete(record.id)
        markup = None
    else:
        await desk.edit(record.id, text=None, pinned=True, now=ctx.clock.now())
        note = MemoryNote(kind="saved", id=record.id, scope=scope.scope, text=record.text)
        markup = receipt_keyboard(note, callback_data.space, pinned=True)
    chunk = receipt_after(message.text or "", action)
    await send_chunk(bot, target_of(message, quote=False), chunk, markup=markup, edit=message.message_id)
    await query.answer(
        "Undone: I won't keep that." if action == "undo" else "Pinned: I'll always keep it in mind."
    )


def create_router() -> Router:
    """The memory receipt router."""
    router = Router(name="receipts")
    router.callback_query.register(on_receipt, ReceiptButton.filter())
    return router
