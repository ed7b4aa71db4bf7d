"""Module-level msgpack encoders/decoders for persisted Structs (STYLE D4)."""

from __future__ import annotations

import msgspec

from engine.lorebook import LoreBook, LoreState
from engine.model import ChatSettings, Persona, StoredMessage, Turn
from engine.requestlog import RequestLog
from engine.summary import SummaryState

__all__ = [
    "CHAT_SETTINGS",
    "ENCODER",
    "LOREBOOK",
    "LORE_STATE",
    "MESSAGE",
    "PERSONA",
    "REQUEST_LOG",
    "SUMMARY",
    "TURN",
]

ENCODER = msgspec.msgpack.Encoder()
MESSAGE = msgspec.msgpack.Decoder(StoredMessage)
TURN = msgspec.msgpack.Decoder(Turn)
REQUEST_LOG = msgspec.msgpack.Decoder(RequestLog)
PERSONA = msgspec.msgpack.Decoder(Persona)
LOREBOOK = msgspec.msgpack.Decoder(LoreBook)
LORE_STATE = msgspec.msgpack.Decoder(LoreState)
SUMMARY = msgspec.msgpack.Decoder(SummaryState)
CHAT_SETTINGS = msgspec.msgpack.Decoder(ChatSettings)
