"""The third-party compatibility corpus: real cards and World Info files made by other tools.

They are not part of the project (never copied in). Tests over them run when the folder exists —
``HEARTH_COMPAT_CORPUS=DIR``, or ``shared/fixtures/cards`` beside the checkout — and are skipped
with one clear reason otherwise. When ``HEARTH_COMPAT_CORPUS`` is set the folder must exist
(``.ci/run`` sets it, so CI always runs these tests).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

__all__ = ["CORPUS", "SKIP_REASON", "corpus_file", "corpus_json", "corpus_params", "needs_corpus"]

_ROOT = Path(__file__).resolve().parents[1]
_ENV = "HEARTH_COMPAT_CORPUS"


def _find() -> Path | None:
    named = os.environ.get(_ENV)
    if named:
        folder = Path(named)
        if not folder.is_dir():
            raise RuntimeError(f"{_ENV}={named} is not a folder: the compatibility corpus is missing")
        return folder
    beside = _ROOT.parent / "shared" / "fixtures" / "cards"
    return beside if beside.is_dir() else None


CORPUS = _find()
SKIP_REASON = (
    "third-party compatibility corpus not found: set HEARTH_COMPAT_CORPUS=DIR "
    "(or place shared/fixtures/cards beside the checkout) to run these tests"
)
needs_corpus = pytest.mark.skipif(CORPUS is None, reason=SKIP_REASON)


def corpus_file(name: str) -> bytes:
    """The bytes of one corpus file (the calling test is skipped without the corpus)."""
    if CORPUS is None:
        pytest.skip(SKIP_REASON)
    return (CORPUS / name).read_bytes()


def corpus_json(name: str) -> Any:
    """One corpus file parsed as JSON."""
    return json.loads(corpus_file(name))


def corpus_params(pattern: str) -> list[Any]:
    """Corpus file names matching ``pattern`` as pytest params; one skipped param without it."""
    if CORPUS is None:
        return [pytest.param("corpus", marks=pytest.mark.skip(reason=SKIP_REASON))]
    return [pytest.param(p.name, id=f"corpus:{p.name}") for p in sorted(CORPUS.glob(pattern))]
