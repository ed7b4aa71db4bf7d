"""The system clock: the only place the service learns the time (STYLE C2)."""

from __future__ import annotations

from datetime import UTC, datetime

__all__ = ["SystemClock"]


class SystemClock:
    """Implements ``engine.ports.Clock``."""

    def now(self) -> datetime:
        """The current UTC time."""
        return datetime.now(UTC)
