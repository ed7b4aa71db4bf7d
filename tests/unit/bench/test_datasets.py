"""The benchmarks' data sets (bench/datasets.py, bench/data/MANIFEST.toml).

RECALL-1 measurements are only comparable when their data is the data recorded: every file
under bench/data/ is listed in the manifest with a digest that matches it, the reader refuses a
file edited without its manifest, and the recall development set generated from the files is
the one whose digests docs/RECALL.md records.
"""

from __future__ import annotations

import hashlib
import tomllib
from pathlib import Path

import msgspec
import pytest

from bench import datasets
from bench.recall_devset import FRESH_SEEDS, LANGUAGES, SEED, build, heldout_digest

HELDOUT_DIGEST = "4f405f534d77249501c7a9a19b5fd962f40dbb441fbea469fc9b0de4898c3d08"
BUILD_DIGEST = "3691fb4e66893c34f7286affd45e2bde5104afe77f97d1e4384e617ad3250c4d"


def test_every_manifest_entry_matches_its_file() -> None:
    """Each data set's sha256 in the manifest is its file's, and ``load`` accepts it."""
    entries = datasets.entries()
    assert len(entries) >= 37
    for name, entry in entries.items():
        data = (datasets.DATA / entry["file"]).read_bytes()
        assert datasets.digest(data) == entry["sha256"], name
        assert entry["source"] and entry["licence"], name
        assert datasets.load(name), name


def test_every_file_is_in_the_manifest() -> None:
    """No file under bench/data/ escapes the manifest: a data set or a script's output."""
    manifest = tomllib.loads(datasets.MANIFEST.read_text(encoding="utf-8"))
    listed = {entry["file"] for entry in manifest["datasets"].values()}
    written = set(manifest["written"])
    files = {p.relative_to(datasets.DATA).as_posix() for p in datasets.DATA.rglob("*") if p.is_file()}
    for file in files - {datasets.MANIFEST.name}:
        assert (
            file in listed or file in written or any(w.endswith("/") and file.startswith(w) for w in written)
        ), f"{file} is not in bench/data/MANIFEST.toml"
    assert listed <= files


def test_a_file_that_does_not_match_its_digest_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A set edited without updating the manifest (or an unknown name) is an error, not data;
    ``python -m bench.datasets`` names it and exits 1."""
    (tmp_path / "pairs.jsonl").write_text('{"a": 1}\n{"a": 2}\n')
    right = datasets.digest((tmp_path / "pairs.jsonl").read_bytes())
    (tmp_path / "MANIFEST.toml").write_text(
        f'[datasets.pairs]\nfile = "pairs.jsonl"\nsha256 = "{right}"\nseed = 3\n'
        'source = "test"\nlicence = "test"\n'
    )
    assert datasets.load("pairs", tmp_path) == [{"a": 1}, {"a": 2}]
    assert datasets.seed("pairs", tmp_path) == 3
    (tmp_path / "pairs.jsonl").write_text('{"a": 1}\n{"a": 3}\n')
    with pytest.raises(datasets.DatasetError, match="does not match its digest"):
        datasets.load.__wrapped__("pairs", tmp_path)
    with pytest.raises(datasets.DatasetError, match="no data set"):
        datasets.load("missing", tmp_path)
    with pytest.raises(SystemExit) as exit_:
        datasets.main(tmp_path)
    assert exit_.value.code == 1
    assert "CHANGED  pairs" in capsys.readouterr().out


def test_recall_parts_share_one_seed_across_languages() -> None:
    """The generator reads each part's seed from its English entry: the other languages agree."""
    for lang in LANGUAGES:
        assert datasets.seed(f"recall/templates_{lang}") == SEED == 11
        for part, seed in FRESH_SEEDS.items():
            assert datasets.seed(f"recall/{part}_{lang}") == seed
    assert FRESH_SEEDS == {"fresh1": 23, "fresh2": 29, "fresh3": 31, "fresh4": 37, "fresh5": 41}


def test_the_recall_development_set_is_generated_as_recorded() -> None:
    """The files generate the conversations recorded in docs/RECALL.md, held-out split and all."""
    assert heldout_digest() == HELDOUT_DIGEST
    whole = b"\n".join(msgspec.json.encode(c) for c in build())
    assert hashlib.sha256(whole).hexdigest() == BUILD_DIGEST
