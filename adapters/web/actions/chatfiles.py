"""Chat export and import (SillyTavern ``.jsonl`` and Hearth JSON) for ``/api`` and ``/app``.

Export reads the chat's log and, for each persona reply, the alternatives kept for it (its
swipes). Import decodes the whole file first (``adapters.chatfile``), then writes the chat in
one transaction, and only into a chat with no messages yet: a person's message takes the next
number, a persona message right after one answers it (a done turn, and the alternatives not
chosen as superseded turns of the same message, so ← → and ↻ work on them), a persona message
that answers nothing (the greeting, or one after another) stands on its own.
"""

from __future__ import annotations

import secrets
from datetime import datetime

import msgspec
from litestar import Response

from adapters.chatfile import ChatFile, FileMessage, decode_chat, encode_hearth, encode_st
from adapters.web.state import WebState
from engine.errors import Conflict, InvalidInput
from engine.model import StoredMessage, Turn
from engine.requestlog import RequestLog, WindowLog
from storage.redis_chat_controls import RedisChatControls

__all__ = ["ImportResult", "export_chat", "import_chat", "read_chat", "read_file"]

_ALL = 1_000_000


def _controls(web: WebState) -> RedisChatControls:
    if web.chat_controls is None:
        raise Conflict("Chat files need the message controls.", code="not_available")
    return web.chat_controls


async def read_chat(web: WebState, chat: str) -> ChatFile:
    """The chat as a ``ChatFile``: every message in the log, each reply with its swipes."""
    store = _controls(web)
    messages = await web.service.chats.history(chat, _ALL)
    turns = await store.turns(chat, [m.turn for m in messages if m.turn])
    rows: list[FileMessage] = []
    for m in messages:
        swipes: tuple[str, ...] = ()
        chosen = 0
        turn = turns.get(m.turn) if m.turn else None
        if m.role == "assistant" and turn is not None and turn.answers:
            ids = await store.swipes(chat, turn.answers[-1])
            others = await store.turns(chat, ids)
            kept = [i for i in ids if i == turn.id or (i in others and others[i].reply is not None)]
            if len(kept) > 1 and turn.id in kept:
                swipes = tuple(m.text if i == turn.id else others[i].reply or "" for i in kept)
                chosen = kept.index(turn.id)
        rows.append(
            FileMessage(
                role=m.role, name=m.name, text=m.text, sent_at=m.sent_at, swipes=swipes, swipe_id=chosen
            )
        )
    user = next((m.name for m in messages if m.role == "user"), "User")
    persona = next((m.name for m in messages if m.role == "assistant"), "")
    created = messages[0].sent_at if messages else web.clock.now()
    return ChatFile(user_name=user, character_name=persona, created_at=created, messages=tuple(rows))


async def export_chat(web: WebState, chat: str, fmt: str) -> Response[bytes]:
    """The chat's file, as an attachment named after the chat.

    Raises:
        InvalidInput: ``invalid_format``.
    """
    if fmt not in ("st", "hearth"):
        raise InvalidInput(f"Unknown chat format {fmt!r}; use 'st' or 'hearth'.", code="invalid_format")
    found = await read_chat(web, chat)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in chat)[:60]
    data, media, name = (
        (encode_st(found), "application/jsonl", f"{safe}.jsonl")
        if fmt == "st"
        else (encode_hearth(found), "application/json", f"{safe}.hearth.json")
    )
    return Response(data, media_type=media, headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _imported_log(turn: str, chat: str, persona: str, when: datetime) -> RequestLog:
    """The request log of an imported reply: no request was made (the inspector shows it
    empty; regenerate and swipes work as on any reply)."""
    return RequestLog(
        turn=turn,
        chat=chat,
        persona=persona,
        provider="import",
        model="chat file",
        created_at=when,
        slots=(),
        window=WindowLog(messages=0, tokens=0, budget=0, dropped=0),
        prompt=(),
        stable_count=0,
    )


class ImportResult:
    """What an import wrote."""

    def __init__(self, chat: str, messages: int, swipes: int, skipped: int) -> None:
        self.chat = chat
        self.messages = messages
        self.swipes = swipes
        self.skipped = skipped


def read_file(web: WebState, data: bytes, fmt: str) -> ChatFile:
    """A chat file, decoded and checked whole before anything is written.

    Raises:
        InvalidInput: the file cannot be read (``adapters.chatfile.decode_chat``), or holds no
            messages (``invalid_chat_file``).
    """
    found = decode_chat(data, fmt, now=web.clock.now())
    if not found.messages:
        raise InvalidInput("The file holds no messages.", code="invalid_chat_file")
    return found


async def import_chat(web: WebState, chat: str, found: ChatFile, *, user: str, persona: str) -> ImportResult:
    """Write a read chat file into the empty chat ``chat`` as ``user`` talking with ``persona``.

    Raises:
        NotFound: ``persona_not_found``. Conflict: ``chat_not_empty``.
    """
    character = await web.service.persona(persona)
    texts = [m.text for m in found.messages] + [s for m in found.messages for s in m.swipes]
    counts = iter(await web.service.counter.count(texts))
    tokens = [next(counts) for _ in found.messages]
    swipe_tokens = [[next(counts) for _ in m.swipes] for m in found.messages]
    log: list[StoredMessage] = []
    beside: list[StoredMessage] = []
    turns: list[Turn] = []
    swipes: dict[str, list[str]] = {}
    logs: list[RequestLog] = []
    seq = 0
    previous: StoredMessage | None = None
    for n, m in enumerate(found.messages):
        if m.role == "user":
            seq += 1
            stored = StoredMessage(
                id=f"m{seq}",
                chat=chat,
                role="user",
                user=user,
                name=m.name or user.split(":", 1)[-1],
                text=m.text,
                sent_at=m.sent_at,
                position=seq,
                tokens=tokens[n],
                persona=persona,
            )
            log.append(stored)
            previous = stored
            continue
        said = StoredMessage(
            id=f"m{seq}",
            chat=chat,
            role="assistant",
            user=f"persona:{character.id}",
            name=m.name or character.name,
            text=m.text,
            sent_at=m.sent_at,
            position=seq,
            tokens=tokens[n],
            persona=persona,
        )
        if previous is None or previous.role != "user":  # the greeting, or a message of its own
            if log:
                seq += 1
            stored = msgspec.structs.replace(said, id=f"m{seq}", position=seq)
            log.append(stored)
            previous = stored
            continue
        alternatives = m.swipes or (m.text,)
        ids = [secrets.token_hex(6) for _ in alternatives]
        position = previous.position + 0.5
        for k, (text, turn_id) in enumerate(zip(alternatives, ids, strict=True)):
            chosen = k == (m.swipe_id if m.swipes else 0)
            message = msgspec.structs.replace(
                said,
                id=f"r-{turn_id}",
                text=m.text if chosen else text,
                position=position,
                tokens=tokens[n] if chosen else swipe_tokens[n][k],
                turn=turn_id,
                reply_to=previous.id,
            )
            (log if chosen else beside).append(message)
            logs.append(_imported_log(turn_id, chat, persona, m.sent_at))
            turns.append(
                Turn(
                    id=turn_id,
                    chat=chat,
                    persona=persona,
                    answers=(previous.id,),
                    position=position,
                    status="done" if chosen else "superseded",
                    created_at=m.sent_at,
                    reply=message.text,
                    reply_message=message.id,
                )
            )
        if len(ids) > 1:
            swipes[previous.id] = ids
        previous = log[-1]
    if not await _controls(web).load(chat, log, turns, swipes, beside=beside, logs=logs, seq=seq):
        raise Conflict("This chat already has messages; import into a new chat.", code="chat_not_empty")
    return ImportResult(chat=chat, messages=len(log), swipes=len(beside), skipped=found.skipped)
