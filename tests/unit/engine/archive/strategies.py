"""Hypothesis strategies for the archive tests (STYLE T2)."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import strategies as st

from engine.archive import LAYERS, Page

from .helpers import T0, page

__all__ = ["TOKENS", "moments", "pages", "texts"]

TOKENS = (
    "/etc/hosts",
    "src/app/main.py",
    "https://example.com/x?y=1",
    "`pip install hearth`",
    "E1234",
    "HTTP 404",
    "ERR_TIMED_OUT",
    "load_settings",
    "ValueError",
    "9f3c2ab7",
    "123e4567-e89b-12d3-a456-426614174000",
)
WORDS = ("we", "talked", "about", "the", "cat", "and", "weather", "Hanoi", "trip", "later", "nice")


def moments(max_days: int = 1_000) -> st.SearchStrategy[datetime]:
    """Tz-aware times from the epoch, at minute resolution."""
    return st.integers(min_value=0, max_value=max_days * 24 * 60).map(lambda m: T0 + timedelta(minutes=m))


@st.composite
def pages(draw: st.DrawFn, page_id: str = "p") -> Page:
    """A page with arbitrary layer, salience, reads, pin and status."""
    created = draw(moments(400))
    reads = draw(st.integers(min_value=0, max_value=50))
    last = draw(moments(600)) if reads else None
    return page(
        page_id,
        created=(created - T0).total_seconds() / 86_400,
        layer=draw(st.sampled_from(LAYERS)),
        salience=draw(st.floats(min_value=0, max_value=1)),
        read_count=reads,
        last_read_at=last,
        pinned=draw(st.booleans()),
        status=draw(st.sampled_from(("active", "active", "cold"))),
    )


def texts() -> st.SearchStrategy[str]:
    """Prose words mixed with keep-worthy tokens."""
    return st.lists(st.sampled_from(WORDS + TOKENS), min_size=0, max_size=30).map(" ".join)
