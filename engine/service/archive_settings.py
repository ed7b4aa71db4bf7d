"""What the archive desk and the worker's archive pass need besides ``ArchivePolicy`` (EPI-2..6).

``config.archive`` reads them from ``HEARTH_ARCHIVE_*``; nothing here reads the environment.
"""

from __future__ import annotations

import msgspec

from engine.archive import ArchivePolicy

__all__ = ["ArchiveSettings"]


class ArchiveSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The archive policy plus the pass interval, the dedup threshold and the search limit."""

    policy: ArchivePolicy = ArchivePolicy()
    sweep_secs: float = 3600.0
    dedup_similarity: float = 0.92
    search_limit: int = 10
