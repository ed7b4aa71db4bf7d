"""The candidate ranking signals of bench/rank_signals.py (issue 28, RECALL-1): whether a memory
ends with a question, as the measurement reads it (the periods: tests/unit/engine/memory/test_periods.py)."""

from __future__ import annotations

import pytest

from bench.rank_signals import asks, sentences


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


def test_sentences_keep_the_speakers_name_on_each_sentence() -> None:
    """The sentence signal embeds each sentence of a saved memory with its "Name: ", and a
    memory without a sentence break stays whole."""
    assert sentences("Akib: Man. I went to the beach today! It was cold?") == [
        "Akib: Man.",
        "Akib: I went to the beach today!",
        "Akib: It was cold?",
    ]
    assert sentences("Kate: loves skiing") == ["Kate: loves skiing"]
    assert sentences("Tina is afraid of wasps. She got stung once.") == [
        "Tina is afraid of wasps.",
        "She got stung once.",
    ]
