"""The async service layer: drives the ports and performs what the pure engine decides.

``chat`` answers messages (ChatService); the rest of the engine stays pure and synchronous.
"""

from engine.service.chat import (
    Accepted,
    ChatService,
    ReplyDelta,
    ReplyDone,
    ReplyEvent,
    ReplyFailed,
    ReplySilent,
    ServicePolicy,
)

__all__ = [
    "Accepted",
    "ChatService",
    "ReplyDelta",
    "ReplyDone",
    "ReplyEvent",
    "ReplyFailed",
    "ReplySilent",
    "ServicePolicy",
]
