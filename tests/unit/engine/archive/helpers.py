"""Builders shared by the archive tests: a fixed epoch, explicit days, one-call pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from engine.archive import ArchivePolicy, Page, new_page

__all__ = ["BODY", "POLICY", "T0", "by_id", "day", "page"]

T0 = datetime(2026, 1, 1, tzinfo=UTC)
POLICY = ArchivePolicy()

BODY = """We fixed the deploy of the bot together.

The crash came from /srv/hearth/config/settings.toml missing a key; the docs at
https://docs.example.com/deploy#redis explain it. Running `make run` then failed with
ERR_CONNECTION_REFUSED and the web page showed HTTP 502, later E1234 from the importer.
The function load_settings raised ConfigError for the request 123e4567-e89b-12d3-a456-426614174000
on commit 9f3c2ab. We talked a lot about the weather and about cats in between, which was nice.
"""


def day(n: float) -> datetime:
    """``n`` days after the epoch."""
    return T0 + timedelta(days=n)


def page(page_id: str, created: float = 0.0, **changes: Any) -> Page:
    """A page created on day ``created`` with ``BODY``; ``changes`` replace any field."""
    base = new_page(
        id=page_id,
        chat="web:c",
        created_at=day(created),
        policy=POLICY,
        abstract=f"Session {page_id}: fixing the deploy",
        body=BODY,
    )
    return msgspec.structs.replace(base, **changes) if changes else base


def by_id(pages: tuple[Page, ...] | list[Page]) -> dict[str, Page]:
    """Pages keyed by id."""
    return {p.id: p for p in pages}
