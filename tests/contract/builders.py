"""Small builders shared by the store contract suites."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engine.model import Turn
from engine.ports import ChatStore, NewMessage
from engine.requestlog import RequestLog, WindowLog

__all__ = ["T0", "finish_reply", "new_message", "request_log", "turn_of"]

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def new_message(text: str, *, minute: int = 0, role: str = "user", persona: str = "default") -> NewMessage:
    """A message by Ana ``minute`` minutes after ``T0``."""
    return NewMessage(
        role=role,
        user="web:ana",
        name="Ana",
        text=text,
        sent_at=T0 + timedelta(minutes=minute),
        tokens=len(text.split()),
        persona=persona,
    )


def request_log(chat: str, turn: str) -> RequestLog:
    """A minimal request log of one turn."""
    window = WindowLog(messages=1, tokens=1, budget=100, dropped=0)
    return RequestLog(
        turn=turn,
        chat=chat,
        persona="default",
        provider="scripted",
        model="m",
        created_at=T0,
        slots=(),
        window=window,
        prompt=(),
        stable_count=0,
    )


def turn_of(chat: str, turn: str, answers: tuple[str, ...], position: float, **changes: object) -> Turn:
    """A finished turn answering ``answers`` (the last at ``position``)."""
    fields: dict[str, object] = {
        "id": turn,
        "chat": chat,
        "persona": "default",
        "answers": answers,
        "position": position,
        "status": "done",
        "created_at": T0,
        "reply": f"reply of {turn}",
        **changes,
    }
    return Turn(**fields)  # type: ignore[arg-type]  # the test's keyword arguments, checked by msgspec


async def finish_reply(chats: ChatStore, chat: str, turn: Turn, text: str | None = None) -> None:
    """Finish ``turn`` with a reply (``text`` or the turn's)."""
    reply = new_message(text or turn.reply or "", role="assistant")
    await chats.finish(turn, request_log(chat, turn.id), reply, None)
