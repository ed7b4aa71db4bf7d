"""Hand back what start-up left on the heap, once a process is ready (memory at rest).

Building the app allocates and drops a lot: the onnx graph's build or load, the model file's
tables, persona installs, imports. glibc keeps freed memory in its arenas, so a process that is
done starting still holds it. ``settle`` runs a full collection, moves every object alive
after start-up to the collector's permanent generation (``gc.freeze``: later collections no
longer walk the app's long-lived objects, a turn's young garbage is all they see) and asks
glibc to give free pages back (``malloc_trim``; elsewhere nothing happens).

It also lets go of the resident pages of the data files registered with ``data_files`` (the
embedder's model file: the engine and the tokenizer map it read-only, and start-up touches
much of its word table, ~40 MB). Their mappings are read-only and never written, so those pages
are clean copies of the file: the next read maps them again from the page cache, and nothing
changes but what the process holds at rest (``madvise(MADV_DONTNEED)``; Linux only). Only
registered files: a shared library's read-only pages may hold relocations, which must stay.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import mmap
import re
from pathlib import Path

__all__ = ["data_files", "settle"]

log = logging.getLogger(__name__)
_DATA_FILES: set[str] = set()


def data_files(*paths: Path | str) -> None:
    """Register files mapped read-only (and never written) whose pages ``settle`` may drop."""
    _DATA_FILES.update(str(Path(p).resolve()) for p in paths)


def settle() -> None:
    """Collect, freeze what is alive, return free heap pages to the system (call once, when ready)."""
    gc.collect()
    gc.freeze()
    name = ctypes.util.find_library("c")
    if not name:
        return
    try:
        libc = ctypes.CDLL(name)
        trim = libc.malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to trim
        return
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)
    _drop_mapped_files(libc)


_MAPPING = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \d+ +(/.+)$")


def _drop_mapped_files(libc: ctypes.CDLL) -> None:
    """``MADV_DONTNEED`` on the read-only mappings of the registered data files: their clean
    pages leave the process and come back from the page cache on use."""
    advise = getattr(mmap, "MADV_DONTNEED", None)
    if not _DATA_FILES:
        return
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return
    if advise is None:
        return
    madvise = libc.madvise
    madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    madvise.restype = ctypes.c_int
    for line in maps.splitlines():
        found = _MAPPING.match(line)
        if found is None:
            continue
        start, end, perms, path = found.groups()
        if "w" in perms or "x" in perms or path not in _DATA_FILES:
            continue
        if madvise(int(start, 16), int(end, 16) - int(start, 16), advise) != 0:
            log.debug("madvise failed on %s", path)
