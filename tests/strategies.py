"""Shared Hypothesis strategies (STYLE T2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

from engine.model import StoredMessage

__all__ = ["stored_messages"]

_T0 = datetime(2026, 1, 1, tzinfo=UTC)


@st.composite
def stored_messages(draw: st.DrawFn, *, max_size: int = 120, max_tokens: int = 4_000) -> list[StoredMessage]:
    """A chat log, oldest first, with arbitrary token counts."""
    tokens = draw(st.lists(st.integers(min_value=1, max_value=max_tokens), min_size=1, max_size=max_size))
    return [
        StoredMessage(
            id=f"m{i}",
            chat="web:c",
            role="user" if i % 2 == 0 else "assistant",
            user="web:u" if i % 2 == 0 else "persona:default",
            name="U",
            text=f"message {i}",
            sent_at=_T0 + timedelta(minutes=i),
            position=float(i),
            tokens=t,
        )
        for i, t in enumerate(tokens)
    ]
