"""The turn observer port: what the chat service reports about its turns (metrics, logs).

The service calls it after it performed a step; an observer only records (no IO on the turn's
path, nothing it answers changes the turn). Implemented by ``adapters.metrics.Metrics``.
"""

from __future__ import annotations

from typing import Protocol

from engine.requestlog import RequestLog

__all__ = ["TurnObserver"]


class TurnObserver(Protocol):
    """Receives a turn's figures as the service performs it."""

    def first_token(self, provider: str, seconds: float) -> None:
        """The reply's first text arrived ``seconds`` after the turn started."""
        ...

    def turn_done(self, log: RequestLog, seconds: float) -> None:
        """A turn was answered and stored; ``log`` holds its usage and its memories."""
        ...

    def turn_failed(self, log: RequestLog, kind: str, seconds: float) -> None:
        """The provider could not answer (``kind``: the error code the turn stored with ``log``)."""
        ...

    def lore_scanned(self, seconds: float) -> None:
        """The lorebooks of a turn were scanned in ``seconds``."""
        ...
