"""Typed views of redis-py replies and the pipeline calls its annotations leave loose.

redis-py types every reply as ``bytes | str``, because a client may decode responses. Hearth's
clients never do (``storage.client.connect``; vectors and msgpack blobs are bytes), so a reply is
``bytes``: these functions narrow it for the type checker, and accept text too, so that they
are right whatever the client.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar, cast

from redis.asyncio.client import Pipeline
from redis.typing import EncodableT, FieldT

_Field = TypeVar("_Field", bound=FieldT)

__all__ = [
    "blob",
    "blob_hash",
    "fields",
    "maybe_blob",
    "maybe_text",
    "members",
    "multi",
    "text",
    "texts",
    "unwatch",
]


def blob(raw: bytes | str) -> bytes:
    """A reply as bytes."""
    return raw if isinstance(raw, bytes) else raw.encode()


def text(raw: bytes | str) -> str:
    """A reply as text (UTF-8)."""
    return raw.decode() if isinstance(raw, bytes) else raw


def maybe_blob(raw: bytes | str | None) -> bytes | None:
    """A reply that may be missing (``HGET`` of an absent field), as bytes."""
    return None if raw is None else blob(raw)


def maybe_text(raw: bytes | str | None) -> str | None:
    """A reply that may be missing, as text."""
    return None if raw is None else text(raw)


def texts(raw: Iterable[bytes | str]) -> list[str]:
    """A list or set reply (``SMEMBERS``, ``HKEYS``...) as texts, in its order."""
    return [text(item) for item in raw]


def members(raw: Iterable[Any]) -> list[bytes]:
    """A ``ZRANGE`` reply without scores as bytes (its type allows the ``withscores`` shapes)."""
    return [blob(member) for member in raw]


def blob_hash(raw: Mapping[bytes | str, bytes | str]) -> dict[str, bytes]:
    """An ``HGETALL`` reply as field name → bytes."""
    return {text(k): blob(v) for k, v in raw.items()}


def fields(values: Mapping[_Field, EncodableT]) -> Mapping[FieldT, EncodableT]:
    """A mapping as ``HSET``'s ``mapping`` argument (whose key type is invariant: ``str`` keys fail)."""
    return cast("Mapping[FieldT, EncodableT]", values)


def multi(pipe: Pipeline) -> None:
    """Start the MULTI block of a pipeline after its WATCH (``Pipeline.multi`` is unannotated)."""
    cast("Callable[[], None]", pipe.multi)()


async def unwatch(pipe: Pipeline) -> None:
    """Drop a pipeline's WATCH (``Pipeline.unwatch`` is unannotated)."""
    await cast("Callable[[], Awaitable[object]]", pipe.unwatch)()
