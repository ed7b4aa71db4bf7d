"""Archive settings: ``ArchivePolicy()`` defaults with ``HEARTH_ARCHIVE_*`` overrides (EPI-2..6).

The ``worker`` passes ``os.environ``; nothing here reads the environment itself.

| variable | default | meaning |
|---|---|---|
| ``HEARTH_ARCHIVE_SWEEP_SECS`` | 3600 | seconds between archive passes (archive sessions, sweep) |
| ``HEARTH_ARCHIVE_SESSION_GAP_SECS`` | 21600 | idle gap that ends a session |
| ``HEARTH_ARCHIVE_COLD_BELOW`` | 0.20 | score under which a page is cold |
| ``HEARTH_ARCHIVE_COMPACT_COLD`` | false | compact cold pages instead of evicting them (EPI-5) |
| ``HEARTH_ARCHIVE_DEDUP_COLD`` | false | merge clusters of near-duplicate cold pages (EPI-6) |
| ``HEARTH_ARCHIVE_DEDUP_SIMILARITY`` | 0.92 | least cosine between members of a cluster |
| ``HEARTH_ARCHIVE_DELETE_AFTER_DAYS`` | 180 | days from eviction to permanent deletion |
| ``HEARTH_ARCHIVE_HALF_LIFE_DAYS`` | (unset) | per-layer half-lives (EPI-4): ``working=7,episodic=365`` |
| ``HEARTH_DREAM_ENABLED`` | false | run the dream pass in each archive pass (EPI-10) |
| ``HEARTH_DREAM_IDLE_SECS`` | 300 | seconds without client activity before dreaming |
| ``HEARTH_DREAM_MAX_CLUSTERS`` | 8 | clusters rewritten per dream run |
| ``HEARTH_DREAM_SIMILARITY`` | 0.85 | least cosine between members of a dream cluster |
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

import msgspec

from engine.archive import LAYERS, ArchivePolicy, HalfLives
from engine.archive.dream import DreamPolicy
from engine.errors import ConfigError

__all__ = ["ArchiveSettings", "archive_settings"]


class ArchiveSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The archive policy plus what the desk and the worker need besides it."""

    policy: ArchivePolicy = ArchivePolicy()
    sweep_secs: float = 3600.0
    dedup_similarity: float = 0.92
    search_limit: int = 10
    dream: DreamPolicy = DreamPolicy()


_ENV: dict[str, tuple[str, type]] = {
    "HEARTH_ARCHIVE_SESSION_GAP_SECS": ("session_gap_secs", int),
    "HEARTH_ARCHIVE_COLD_BELOW": ("cold_below", float),
    "HEARTH_ARCHIVE_COMPACT_COLD": ("compact_cold_episodic", bool),
    "HEARTH_ARCHIVE_DEDUP_COLD": ("dedup_cold_clusters", bool),
    "HEARTH_ARCHIVE_DELETE_AFTER_DAYS": ("delete_after_days", int),
}


def _parse(name: str, raw: str, kind: type) -> object:
    text = raw.strip().lower()
    try:
        if kind is bool:
            if text not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                raise ValueError(text)
            return text in ("1", "true", "yes", "on")
        return kind(text)
    except ValueError:
        raise ConfigError(f"{name} has an invalid value {raw!r}.", code="invalid_setting") from None


def archive_settings(env: Mapping[str, str]) -> ArchiveSettings:
    """The archive settings: ``ArchivePolicy()`` defaults with ``HEARTH_ARCHIVE_*`` overrides.

    Raises:
        ConfigError: ``invalid_setting`` for a value that does not parse; ``invalid_policy``
            when the policy is out of range.
    """
    overrides = {field: _parse(k, env[k], kind) for k, (field, kind) in _ENV.items() if env.get(k)}
    if env.get("HEARTH_ARCHIVE_HALF_LIFE_DAYS"):
        overrides["half_life_days"] = _half_lives(env["HEARTH_ARCHIVE_HALF_LIFE_DAYS"])
    policy = msgspec.structs.replace(ArchivePolicy(), **overrides)
    policy = msgspec.convert(msgspec.to_builtins(policy), ArchivePolicy)  # runs the range checks
    extra: dict[str, float] = {}
    for name, field in (
        ("HEARTH_ARCHIVE_SWEEP_SECS", "sweep_secs"),
        ("HEARTH_ARCHIVE_DEDUP_SIMILARITY", "dedup_similarity"),
    ):
        if env.get(name):
            extra[field] = _float(name, env[name])
    if extra.get("sweep_secs", 1.0) <= 0:
        raise ConfigError("HEARTH_ARCHIVE_SWEEP_SECS must be positive.", code="invalid_setting")
    if not 0 < extra.get("dedup_similarity", 0.5) <= 1:
        raise ConfigError("HEARTH_ARCHIVE_DEDUP_SIMILARITY must be in (0, 1].", code="invalid_setting")
    return msgspec.structs.replace(ArchiveSettings(policy=policy, dream=_dream(env)), **extra)


def _float(name: str, raw: str) -> float:
    return cast(float, _parse(name, raw, float))  # _parse returns float(text) for kind float


def _half_lives(raw: str) -> HalfLives:
    """``working=7,episodic=365`` → ``HalfLives`` (EPI-4); layers left out keep the shared curve."""
    values: dict[str, float] = {}
    for part in raw.split(","):
        layer, sep, days = part.partition("=")
        if not sep or layer.strip() not in LAYERS:
            raise ConfigError(
                f"HEARTH_ARCHIVE_HALF_LIFE_DAYS: {part.strip()!r} is not <layer>=<days> "
                f"with a layer among {', '.join(LAYERS)}.",
                code="invalid_setting",
            )
        values[layer.strip()] = _float("HEARTH_ARCHIVE_HALF_LIFE_DAYS", days)
    return HalfLives(**values)


_DREAM_ENV: dict[str, tuple[str, type]] = {
    "HEARTH_DREAM_ENABLED": ("enabled", bool),
    "HEARTH_DREAM_IDLE_SECS": ("idle_window_secs", int),
    "HEARTH_DREAM_MAX_CLUSTERS": ("max_clusters_per_run", int),
    "HEARTH_DREAM_SIMILARITY": ("similarity", float),
}


def _dream(env: Mapping[str, str]) -> DreamPolicy:
    """``DreamPolicy()`` with the ``HEARTH_DREAM_*`` overrides (EPI-10; off by default, EPI-12)."""
    values = {field: _parse(k, env[k], kind) for k, (field, kind) in _DREAM_ENV.items() if env.get(k)}
    policy = msgspec.structs.replace(DreamPolicy(), **values)
    if policy.idle_window_secs < 0:
        raise ConfigError("HEARTH_DREAM_IDLE_SECS must not be negative.", code="invalid_setting")
    if policy.max_clusters_per_run < 1:
        raise ConfigError("HEARTH_DREAM_MAX_CLUSTERS must be at least 1.", code="invalid_setting")
    if not 0 < policy.similarity <= 1:
        raise ConfigError("HEARTH_DREAM_SIMILARITY must be in (0, 1].", code="invalid_setting")
    return policy
