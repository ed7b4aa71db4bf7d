"""The candidate ranking signals of bench/rank_signals.py (issue 28, RECALL-1): whether a memory
ends with a question, as the measurement reads it (the periods: tests/unit/engine/memory/test_periods.py)."""

from __future__ import annotations

import pytest

from bench.rank_signals import asks


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("Hello Emily! How did the basketball game go yesterday?", True),
        ("Did you get to do that cooking class? 😊", True),
        ("Ты придёшь завтра？", True),
        ("هل أنت بخير؟", True),
        ("Is it a question? No, it is a fact.", False),
        ("Kate loves skiing", False),
    ],
)
def test_asks_reads_the_last_sentence(text: str, question: bool) -> None:
    """A memory whose text ends with a question mark (any script's, trailing emoji ignored)
    asks; one whose last sentence states something does not."""
    assert asks(text) is question
