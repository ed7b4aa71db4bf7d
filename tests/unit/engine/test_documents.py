"""DOC-1: documents split into searchable chunks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.documents import chunk_document
from engine.errors import InvalidInput

GUIDE = """# The Inn

The inn has twelve rooms and a big fireplace.

Breakfast is served from seven to ten.

## Stables

Horses are fed twice a day. The stable boy is called Tam.
"""


def test_doc_1_chunks_follow_headings_and_paragraphs() -> None:
    chunks = chunk_document(GUIDE, max_chars=60)
    assert [(c.heading, c.text) for c in chunks] == [
        ("The Inn", "The inn has twelve rooms and a big fireplace."),
        ("The Inn", "Breakfast is served from seven to ten."),
        ("Stables", "Horses are fed twice a day. The stable boy is called Tam."),
    ]
    assert [c.index for c in chunks] == [0, 1, 2]


def test_doc_1_small_paragraphs_are_packed_together() -> None:
    (chunk,) = chunk_document("One.\n\nTwo.\n\nThree.", max_chars=800)
    assert chunk.text == "One.\n\nTwo.\n\nThree."


def test_doc_1_empty_document_is_refused() -> None:
    with pytest.raises(InvalidInput) as caught:
        chunk_document(" \n\n ")
    assert caught.value.code == "document_empty"


@given(st.text(min_size=1, max_size=3000).filter(str.strip), st.integers(min_value=40, max_value=900))
def test_doc_1_property_no_chunk_over_the_limit_and_no_word_lost(text: str, limit: int) -> None:
    try:
        chunks = chunk_document(text, max_chars=limit)
    except InvalidInput as refused:  # only a document with no text but headings is empty
        assert refused.code == "document_empty"
        return
    assert not chunks or any(c.text != c.heading for c in chunks)
    assert all(len(c.text) <= limit for c in chunks)
    words = [w for w in text.split() if not w.startswith("#")]
    joined = " ".join(c.text for c in chunks) + " " + " ".join(c.heading for c in chunks)
    flat = "".join(joined.split())  # a word longer than the limit is cut across chunks
    assert all(w in joined if len(w) <= limit else w in flat for w in words)


def test_doc_1_a_heading_with_no_text_under_it_is_kept() -> None:
    chunks = chunk_document("# Harbour hours\n\n# Fees\nMooring costs two coins a night.", max_chars=200)
    assert [(c.heading, c.text) for c in chunks] == [
        ("Harbour hours", "Harbour hours"),
        ("Fees", "Mooring costs two coins a night."),
    ]
    with pytest.raises(InvalidInput) as caught:  # headings alone are not a document
        chunk_document("# 0\n\n## 1", max_chars=40)
    assert caught.value.code == "document_empty"


def test_doc_1_a_heading_line_needs_no_blank_line_around_it() -> None:
    chunks = chunk_document("Welcome aboard.\n# Fees\nMooring costs two coins.\n## Hours\nOpen at dawn.")
    assert [(c.heading, c.text) for c in chunks] == [
        ("", "Welcome aboard."),
        ("Fees", "Mooring costs two coins."),
        ("Hours", "Open at dawn."),
    ]
    with pytest.raises(InvalidInput) as caught:  # two headings on adjacent lines are still no text
        chunk_document("# Only\n## Headings")
    assert caught.value.code == "document_empty"


def test_doc_1_overlapping_chunks_repeat_the_last_paragraphs_under_the_same_heading() -> None:
    """DOC-1 (issue 28): with ``overlap`` a chunk starts with the last whole paragraphs of the one
    before it (up to ``overlap`` characters, within ``max_chars``), never across a heading; without
    it chunks share nothing."""
    text = "# Hours\n\nAlpha opens.\n\nBravo closes.\n\nCharlie naps.\n\n# Fees\n\nDelta pays.\n\nEcho owes."
    assert [c.text for c in chunk_document(text, max_chars=30)] == [
        "Alpha opens.\n\nBravo closes.",
        "Charlie naps.",
        "Delta pays.\n\nEcho owes.",
    ]
    assert [(c.heading, c.text) for c in chunk_document(text, max_chars=30, overlap=14)] == [
        ("Hours", "Alpha opens.\n\nBravo closes."),
        ("Hours", "Bravo closes.\n\nCharlie naps."),
        ("Fees", "Delta pays.\n\nEcho owes."),
    ]


@given(
    st.text(min_size=1, max_size=3000).filter(str.strip),
    st.integers(min_value=40, max_value=900),
    st.integers(min_value=0, max_value=400),
)
def test_doc_1_property_overlap_keeps_chunks_within_the_limit_and_every_word(
    text: str, limit: int, overlap: int
) -> None:
    try:
        chunks = chunk_document(text, max_chars=limit, overlap=overlap)
    except InvalidInput as refused:
        assert refused.code == "document_empty"
        return
    assert all(len(c.text) <= limit for c in chunks)
    assert len(chunks) >= len(chunk_document(text, max_chars=limit))  # the same pieces, some twice
    words = [w for w in text.split() if not w.startswith("#")]
    joined = " ".join(c.text for c in chunks) + " " + " ".join(c.heading for c in chunks)
    flat = "".join(joined.split())
    assert all(w in joined if len(w) <= limit else w in flat for w in words)
