"""What every provider's format mapping shares: the system-note wording and tool schemas.

The Messages API and Chat Completions both take turns of a user and an assistant; a system
message after the leading ones (system-role lore, recalled memories, documents) travels inside
a user turn as a marked system note, and a conversation that starts with the persona's greeting
gets a short user opener, because many chat templates want turns that start with the user.
"""

from __future__ import annotations

import functools
from typing import Any

import msgspec

from engine.model import ModelSettings

__all__ = ["CONVERSATION_OPENER", "SYSTEM_NOTE", "input_schema", "sampling"]

SYSTEM_NOTE = "[System note: {text}]"
CONVERSATION_OPENER = "[The conversation begins.]"


def input_schema(input_type: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON schema of a tool's input Struct (a fresh dict per call, safe to change)."""
    return msgspec.json.decode(_schema(input_type))  # type: ignore[no-any-return]


@functools.cache
def _schema(input_type: type[msgspec.Struct]) -> bytes:
    # built once per input type (msgspec's schema generation cost ~1 ms a turn, issue 12) and
    # decoded per request, so no request shares (or can change) another's dicts
    schema = msgspec.json.schema(input_type)
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = schema["$defs"][name]
    return msgspec.json.encode({k: v for k, v in schema.items() if k != "title"})


def sampling(settings: ModelSettings) -> dict[str, float]:
    """``temperature`` and ``top_p`` of a request, each only when the persona sets it."""
    chosen = {"temperature": settings.temperature, "top_p": settings.top_p}
    return {key: value for key, value in chosen.items() if value is not None}
