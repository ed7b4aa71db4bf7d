"""The benchmarks' data sets: files under ``bench/data/``, checked against ``MANIFEST.toml``.

Each set has an entry ``[datasets."<name>"]`` in ``bench/data/MANIFEST.toml`` with its ``file``
(relative to ``bench/data/``), its ``sha256`` digest (``"sha256:<hex>"``), the ``seed`` of the
generator that turns it into benchmark cases where there is one, and a ``source`` and
``licence`` note. ``load(name)`` reads the file, refuses it when its digest is not the
manifest's (a set edited by hand without updating the manifest, or a truncated checkout), and
parses it by extension: ``.toml`` to a dict (tables keep the file's order), ``.jsonl`` to a
list of dicts, ``.json`` to the decoded value. Schemas: docs/BENCHMARKS.md, "Data sets".
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["DATA", "MANIFEST", "DatasetError", "digest", "entries", "load", "path", "seed"]

DATA = Path(__file__).resolve().parent / "data"
MANIFEST = DATA / "MANIFEST.toml"


class DatasetError(Exception):
    """A data set that is not in the manifest, or whose file does not match its digest."""


def digest(data: bytes) -> str:
    """The manifest's form of a file's digest."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def entries(data: Path = DATA) -> dict[str, dict[str, Any]]:
    """Every data set of the manifest in ``data``, by name."""
    return dict(tomllib.loads((data / MANIFEST.name).read_text(encoding="utf-8")).get("datasets", {}))


def _entry(name: str, data: Path) -> dict[str, Any]:
    try:
        return entries(data)[name]
    except KeyError:
        raise DatasetError(f"no data set {name!r} in {data / MANIFEST.name}") from None


def path(name: str, data: Path = DATA) -> Path:
    """Where a data set's file is."""
    return data / _entry(name, data)["file"]


def seed(name: str, data: Path = DATA) -> int:
    """The seed the set's benchmark generates its cases with."""
    value = _entry(name, data).get("seed")
    if not isinstance(value, int):
        raise DatasetError(f"data set {name!r} has no seed in {data / MANIFEST.name}")
    return value


@cache
def load(name: str, data: Path = DATA) -> Any:
    """The parsed content of a data set, after checking its digest (cached: do not mutate)."""
    entry = _entry(name, data)
    file = data / entry["file"]
    content = file.read_bytes()
    if digest(content) != entry["sha256"]:
        raise DatasetError(f"{file} does not match its digest in the manifest ({entry['sha256']})")
    text = content.decode("utf-8")
    if file.suffix == ".toml":
        return tomllib.loads(text)
    if file.suffix == ".jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if file.suffix == ".json":
        return json.loads(text)
    raise DatasetError(f"{file}: no reader for {file.suffix!r} files")


def main(data: Path = DATA) -> None:
    """Print every data set of the manifest with its file's digest; exit 1 if one differs."""
    wrong = 0
    for name, entry in entries(data).items():
        found = digest((data / entry["file"]).read_bytes())
        ok = found == entry["sha256"]
        wrong += not ok
        print(f"{'ok' if ok else 'CHANGED':<8} {name:<28} {entry['file']}" + ("" if ok else f"  now {found}"))
    raise SystemExit(1 if wrong else 0)


if __name__ == "__main__":
    main()
