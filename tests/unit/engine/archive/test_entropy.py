"""EPI-7: near-empty or highly repetitive pages stay out of LLM passes."""

from __future__ import annotations

import pytest

from engine.archive import EntropyPolicy, low_entropy, text_stats

from .helpers import BODY

PROSE = [
    BODY,
    "Juno told us about her trip to Da Lat: the pine forests, the cold mornings and the strawberry farms.",
    "Chúng tôi đã nói về chuyến đi Đà Lạt, rừng thông, buổi sáng lạnh và những trang trại dâu tây.",
    "我们聊了去大叻的旅行、松树林、寒冷的早晨和草莓农场，还约好明年一起再去一次。",
    "```python\nimport json\nprint(json.dumps({'a': 1}))\n```\nThat printed the dict as JSON.",
]


@pytest.mark.parametrize("text", PROSE)
def test_epi_7_ordinary_pages_pass(text: str) -> None:
    assert not low_entropy(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t ",
        "ok",
        "lol thanks!",
        "a" * 500,
        "hahahahahahahahahahahahahahahahahahahaha",
        "ok " * 100,
        "I love you. " * 30,
        "abcabcabcabcabcabcabcabcabcabcabc",
        "\n".join(["[image]", "[image]", "[image]", "nice pic of the sea", "[image]", "[image]"]),
    ],
)
def test_epi_7_near_empty_or_repetitive_pages_are_filtered(text: str) -> None:
    assert low_entropy(text)


def test_epi_7_thresholds_are_configurable() -> None:
    text = "lol thanks, see you tomorrow!"
    assert not low_entropy(text)
    assert low_entropy(text, EntropyPolicy(min_chars=40))


def test_epi_7_stats_measure_the_text() -> None:
    stats = text_stats("ab ab\nab ab")
    assert (stats.chars, stats.words, stats.lines) == (8, 4, 2)
    assert stats.char_bits == pytest.approx(1.0)
    assert stats.distinct_ratio == pytest.approx(0.25)
    assert stats.top_line_share == pytest.approx(1.0)
