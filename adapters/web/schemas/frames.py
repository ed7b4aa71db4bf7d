"""The browser chat's WebSocket frames (PLT-4, API.md): tagged unions on ``type``.

In: ``message`` ``{text, persona?, images?}``, ``regenerate`` ``{turn}``, ``answer`` (the chat's last
message, left without a reply), ``stop``; unknown fields are
ignored. Out: the service's ``delta``, ``done`` and ``error`` events; the browser's ``done``
(:class:`BrowserDone`) also carries the reply's message id, the sent message's id and the
reply's alternatives; :class:`ErrorFrame` is a frame the socket itself refused.
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from adapters.web.schemas.chat import ImageIn
from engine.requestlog import Context
from engine.service import ReplyDelta, ReplyDone, ReplyFailed
from engine.service.controls import Swipes

__all__ = [
    "AnswerFrame",
    "BrowserDone",
    "ErrorFrame",
    "InFrame",
    "MessageFrame",
    "OutFrame",
    "RegenerateFrame",
    "StopFrame",
    "decode_frame",
]


class MessageFrame(msgspec.Struct, frozen=True, kw_only=True, tag="message", tag_field="type"):
    """Say something; ``persona`` empty or null means ``default``; ``images``: pictures as in
    ``POST /api/chats/{chat}/messages`` (``text`` may then be empty)."""

    text: str
    persona: str | None = None
    images: list[ImageIn] = msgspec.field(default_factory=list)
    greeting: int = 0  # which greeting opens a new chat (0: the first message, n: alternate n)


class RegenerateFrame(msgspec.Struct, frozen=True, kw_only=True, tag="regenerate", tag_field="type"):
    """Write the latest reply again (the old one stays an alternative)."""

    turn: str


class AnswerFrame(msgspec.Struct, frozen=True, kw_only=True, tag="answer", tag_field="type"):
    """Answer the chat's last message, a person's message left without a reply."""


class StopFrame(msgspec.Struct, frozen=True, kw_only=True, tag="stop", tag_field="type"):
    """Stop generating: the reply so far is kept."""


InFrame = MessageFrame | RegenerateFrame | AnswerFrame | StopFrame


class ErrorFrame(msgspec.Struct, frozen=True, kw_only=True, tag="error", tag_field="type"):
    """A frame the socket refused, or a turn that failed before it began.

    ``retry_after`` (seconds) comes with the chat limits' refusals (``too_many_replies``,
    ``too_many_messages``): the message was not stored; send it again after that long.
    """

    code: str
    message: str
    retry_after: int | UnsetType = UNSET


class BrowserDone(msgspec.Struct, frozen=True, kw_only=True, tag="done", tag_field="type"):
    """The browser's ``done``: the service's fields and the ids the page's message controls need."""

    turn: str
    reply: str
    context: Context
    notices: tuple[str, ...]
    reply_message: str | None
    message: str | UnsetType = UNSET
    swipes: Swipes | UnsetType = UNSET

    @classmethod
    def of(
        cls,
        done: ReplyDone,
        reply_message: str | None,
        message: str | None,
        swipes: Swipes | None,
    ) -> BrowserDone:
        """``done`` with the ids (``message`` and ``swipes`` are left out when None)."""
        return cls(
            turn=done.turn,
            reply=done.reply,
            context=done.context,
            notices=done.notices,
            reply_message=reply_message,
            message=UNSET if message is None else message,
            swipes=UNSET if swipes is None else swipes,
        )


OutFrame = ReplyDelta | ReplyDone | ReplyFailed | BrowserDone | ErrorFrame

_FRAME: msgspec.json.Decoder[InFrame] = msgspec.json.Decoder(InFrame)
_KIND = msgspec.json.Decoder(dict[str, Any])
_FIELD = {"message": "text", "regenerate": "turn"}


def decode_frame(raw: str) -> InFrame | ErrorFrame:
    """The frame, or the error frame that answers it.

    Not JSON, or JSON that is not an object → ``invalid_json``; an unknown ``type`` or a field of
    the wrong type → ``invalid_frame`` naming it.
    """
    try:
        return _FRAME.decode(raw)
    except msgspec.ValidationError:
        pass
    except msgspec.DecodeError:
        return ErrorFrame(code="invalid_json", message="The frame is not JSON.")
    try:
        found = _KIND.decode(raw)
    except msgspec.DecodeError:  # valid JSON, but no object
        return ErrorFrame(code="invalid_json", message="The frame is not JSON.")
    kind = found.get("type")
    field = _FIELD.get(kind) if isinstance(kind, str) else None
    if field is None:
        return ErrorFrame(code="invalid_frame", message=f"Unknown frame type {kind!r}.")
    if kind == "message" and "images" in found and isinstance(found.get("text"), str):
        return ErrorFrame(
            code="invalid_frame", message='images must be a list of {"media_type", "data"} (base64).'
        )
    return ErrorFrame(code="invalid_frame", message=f"{field} must be a string.")
