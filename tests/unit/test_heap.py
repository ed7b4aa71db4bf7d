"""What a ready process hands back (memory at rest, issue 32): ``adapters.heap.settle`` freezes
the objects alive after start-up and lets go of the resident pages of registered read-only data
files (the embedder's model file), which still read the same afterwards."""

from __future__ import annotations

import gc
import mmap
import re
import sys
from pathlib import Path

import pytest

from adapters.heap import data_files, settle

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/smaps (Linux)")


def resident_kb(path: Path) -> int:
    """Resident kB of this process's mappings of ``path``."""
    total, current = 0, ""
    for line in Path("/proc/self/smaps").read_text().splitlines():
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            parts = line.split()
            current = parts[5] if len(parts) > 5 else ""
        elif line.startswith("Rss:") and current == str(path):
            total += int(line.split()[1])
    return total


def test_settle_drops_a_data_files_pages_and_it_still_reads_the_same(tmp_path: Path) -> None:
    """An 8 MB read-only mapping, every page read: resident before, (almost) nothing after
    ``settle``; reading it again gives the same bytes. An unregistered file's pages stay."""
    payload = bytes(range(256)) * (8 * 2**20 // 256)
    kept, dropped = tmp_path / "other.bin", tmp_path / "model.bin"
    kept.write_bytes(payload)
    dropped.write_bytes(payload)
    data_files(dropped)
    with dropped.open("rb") as a, kept.open("rb") as b:
        model = mmap.mmap(a.fileno(), 0, access=mmap.ACCESS_READ)
        other = mmap.mmap(b.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            assert sum(model[i + 1] for i in range(0, len(model), 4096)) > 0
            assert sum(other[i + 1] for i in range(0, len(other), 4096)) > 0
            assert resident_kb(dropped.resolve()) > 7 * 1024
            settle()
            assert resident_kb(dropped.resolve()) < 512
            assert resident_kb(kept.resolve()) > 7 * 1024
            assert model[:] == payload
        finally:
            model.close()
            other.close()
            gc.unfreeze()


def test_settle_freezes_what_is_alive() -> None:
    """After ``settle`` the objects alive then are in the permanent generation."""
    try:
        settle()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
