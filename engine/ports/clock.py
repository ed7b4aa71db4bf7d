"""The clock port: the only source of the current time (STYLE C2)."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

__all__ = ["Clock"]


class Clock(Protocol):
    """The only source of the current time (STYLE C2). Fake: ``tests.fakes.ports.FixedClock``."""

    def now(self) -> datetime:
        """Returns the current time, timezone-aware UTC."""
        ...
