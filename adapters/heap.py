"""Hand back what start-up left on the heap, once a process is ready (memory at rest).

Building the app allocates and drops a lot: the onnx graph's build or load, the model file's
tables, persona installs, imports. glibc keeps freed memory in its arenas, so a process that is
done starting still holds it. ``settle`` runs a full collection, moves every object alive
after start-up to the collector's permanent generation (``gc.freeze``: later collections no
longer walk the app's long-lived objects, a turn's young garbage is all they see) and asks
glibc to give free pages back (``malloc_trim``; elsewhere nothing happens).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging

__all__ = ["settle"]

log = logging.getLogger(__name__)


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
