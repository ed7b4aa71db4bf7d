"""Markdown → Telegram chunks (PLT-3): formatting kept, nothing lost, nothing over the limit."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adapters.telegram.render import MAX_MESSAGE_CHARS, Chunk, Entity, render, split, utf16_len


def test_plt_3_plain_text_passes_through() -> None:
    assert render("The fire is warm tonight, friend.") == (Chunk(text="The fire is warm tonight, friend."),)


def test_plt_3_markdown_becomes_entities() -> None:
    (chunk,) = render("Hello **world**, try `code`")
    assert chunk.text == "Hello world, try code"
    assert [(e.type, chunk.text[e.offset : e.offset + e.length]) for e in chunk.entities] == [
        ("bold", "world"),
        ("code", "code"),
    ]


def test_plt_3_angle_brackets_are_text_not_dropped_markup() -> None:
    (chunk,) = render("I <3 you. Use <name> here, <b>not bold</b> and <script>x</script>.")
    assert chunk.text == "I <3 you. Use <name> here, <b>not bold</b> and <script>x</script>."
    assert chunk.entities == ()


def test_plt_3_only_safe_link_schemes_survive() -> None:
    (chunk,) = render("[ok](https://example.org) and [bad](javascript:alert(1))")
    assert chunk.text == "ok and bad"
    assert chunk.entities == (Entity(type="text_link", offset=0, length=2, url="https://example.org"),)


def test_plt_3_whitespace_only_renders_nothing() -> None:
    assert render("  \n\n  ") == ()


def test_plt_3_a_5000_character_reply_is_two_messages_cut_between_paragraphs() -> None:
    paragraph = "The road to the inn winds up the mountain. " * 20
    reply = "\n\n".join([paragraph.strip()] * 6)
    chunks = render(reply)
    assert len(reply) > 5000 and len(chunks) == 2
    assert all(utf16_len(c.text) <= MAX_MESSAGE_CHARS for c in chunks)
    assert chunks[0].text.endswith("mountain.") and chunks[1].text.startswith("The road")
    assert " ".join(c.text for c in chunks).split() == reply.split()


def test_plt_3_the_limit_counts_utf16_units() -> None:
    chunks = render("😀" * 3000)  # 6,000 UTF-16 units
    assert [utf16_len(c.text) for c in chunks] == [4096, 1904]


def test_plt_3_an_entity_across_a_cut_is_clipped_into_both_chunks() -> None:
    text = "aaaa bbbb"
    chunks = split(text, (Entity(type="bold", offset=2, length=5),), limit=5)
    assert chunks == (
        Chunk(text="aaaa", entities=(Entity(type="bold", offset=2, length=2),)),
        Chunk(text="bbbb", entities=(Entity(type="bold", offset=0, length=2),)),
    )


words = st.lists(st.text(alphabet="ab😀é \n", min_size=1, max_size=12), min_size=1, max_size=80)


@given(words=words, limit=st.integers(min_value=8, max_value=60))
def test_plt_3_split_never_exceeds_the_limit_and_keeps_every_word(words: list[str], limit: int) -> None:
    text = " ".join(words)
    entity = Entity(type="italic", offset=0, length=utf16_len(text)) if text else None
    chunks = split(text, (entity,) if entity else (), limit)
    assert all(0 < utf16_len(c.text) <= limit and c.text == c.text.strip() for c in chunks)
    assert "".join("".join(c.text.split()) for c in chunks) == "".join(text.split())
    for chunk in chunks:
        assert all(e.offset >= 0 and e.offset + e.length <= utf16_len(chunk.text) for e in chunk.entities)
