"""HashEmbedder: deterministic, normalized lexical vectors with no model."""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.embedding import HASH_NAME, HashEmbedder

REPO = Path(__file__).resolve().parents[3]
TEXTS = ["Juno's cat is named Mochi", "Кошку Джуно зовут Моти", "לכלבה קוראים לולה", "Mèo tên Bông"]


def test_name_and_dim() -> None:
    embedder = HashEmbedder()
    assert (embedder.name, embedder.dim) == (HASH_NAME, 512)
    assert embedder.embed_queries(TEXTS).shape == (4, 512)
    assert HashEmbedder(dim=64).name == "hash/char34-word-64"


def test_same_vectors_in_another_process_with_another_hash_seed() -> None:
    code = (
        "import sys, numpy as np; sys.path.insert(0, sys.argv[1]);"
        "from adapters.embedding import HashEmbedder;"
        f"v = HashEmbedder().embed_passages({TEXTS!r});"
        "sys.stdout.write(v.tobytes().hex())"
    )
    env = {"PYTHONHASHSEED": "12345", "PATH": ""}
    out = subprocess.run(
        [sys.executable, "-c", code, str(REPO)], capture_output=True, check=True, env=env, text=True
    ).stdout
    other = np.frombuffer(bytes.fromhex(out), dtype=np.float32).reshape(4, 512)
    np.testing.assert_array_equal(other, HashEmbedder().embed_passages(TEXTS))


@given(st.lists(st.text(max_size=80), max_size=6))
def test_rows_are_unit_or_zero_for_wordless_text(texts: list[str]) -> None:
    vectors = HashEmbedder().embed_passages(texts)
    assert vectors.shape == (len(texts), 512)
    assert vectors.dtype == np.float32
    for text, norm in zip(texts, np.linalg.norm(vectors, axis=1), strict=True):
        has_words = any(ch.isalnum() or ch == "_" for ch in text)
        assert norm == pytest.approx(1.0, abs=1e-5) if has_words else norm == 0.0


def test_case_and_unicode_form_do_not_matter() -> None:
    embedder = HashEmbedder()
    nfd = unicodedata.normalize("NFD", "Mèo tên BÔNG")
    a, b = embedder.embed_queries(["mèo tên bông", nfd])
    np.testing.assert_allclose(a, b)


def test_shared_words_score_higher_than_unrelated_text() -> None:
    embedder = HashEmbedder()
    memory = embedder.embed_passages(["Juno's cat is named Mochi"])[0]
    related, unrelated = embedder.embed_queries(["how is Mochi doing?", "the tram was late"])
    assert memory @ related > 0.2 > memory @ unrelated


def test_queries_and_passages_are_embedded_alike() -> None:
    embedder = HashEmbedder()
    np.testing.assert_array_equal(embedder.embed_queries(TEXTS), embedder.embed_passages(TEXTS))


def test_empty_input_gives_empty_matrix() -> None:
    assert HashEmbedder().embed_queries([]).shape == (0, 512)


def test_bare_string_is_refused() -> None:
    with pytest.raises(TypeError, match="sequence of texts"):
        HashEmbedder().embed_queries("Mochi")
