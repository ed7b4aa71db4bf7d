"""The ``archive`` and ``dream`` settings groups: ``HEARTH_ARCHIVE_*``, ``HEARTH_DREAM_*`` (EPI-2..6, 10).

Every process reads them the same way (``load_settings``), so the web's archive tool and
listings score pages with the policy the worker sweeps with.

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

import math
from collections.abc import Mapping

import msgspec

from config.env import Env, parse_number
from engine.archive import LAYERS, ArchivePolicy, HalfLives
from engine.archive.dream import DreamPolicy
from engine.errors import ConfigError
from engine.service.archive_settings import ArchiveSettings

__all__ = ["archive_settings", "dream_policy"]

_MANY = 10**9  # no practical upper bound; the policy checks its own ranges
_POLICY_KEYS = (
    "HEARTH_ARCHIVE_SESSION_GAP_SECS",
    "HEARTH_ARCHIVE_COLD_BELOW",
    "HEARTH_ARCHIVE_DELETE_AFTER_DAYS",
)


def archive_settings(env: Mapping[str, str]) -> ArchiveSettings:
    """``ArchivePolicy()`` defaults with the ``HEARTH_ARCHIVE_*`` overrides.

    Raises:
        ConfigError: ``invalid_setting`` for a value that does not parse or is out of range;
            ``invalid_policy`` when the policy refuses a value (the message names the variables).
    """
    read = Env(env)
    base = ArchivePolicy()
    values = {
        "session_gap_secs": read.integer(
            "HEARTH_ARCHIVE_SESSION_GAP_SECS", base.session_gap_secs, -_MANY, _MANY
        ),
        "cold_below": read.number("HEARTH_ARCHIVE_COLD_BELOW", base.cold_below, above=-math.inf),
        "compact_cold_episodic": read.boolean("HEARTH_ARCHIVE_COMPACT_COLD", base.compact_cold_episodic),
        "dedup_cold_clusters": read.boolean("HEARTH_ARCHIVE_DEDUP_COLD", base.dedup_cold_clusters),
        "delete_after_days": read.integer(
            "HEARTH_ARCHIVE_DELETE_AFTER_DAYS", base.delete_after_days, 0, _MANY
        ),
        "half_life_days": _half_lives(read.raw("HEARTH_ARCHIVE_HALF_LIFE_DAYS")),
    }
    try:
        policy = msgspec.convert(values, ArchivePolicy)  # runs the policy's own range checks
    except ConfigError as exc:
        named = ", ".join(read.given(*_POLICY_KEYS)) or "HEARTH_ARCHIVE_*"
        raise ConfigError(f"{named}: {exc.message}", code=exc.code) from None
    return ArchiveSettings(
        policy=policy,
        sweep_secs=read.number("HEARTH_ARCHIVE_SWEEP_SECS", 3600.0, above=0),
        dedup_similarity=read.number("HEARTH_ARCHIVE_DEDUP_SIMILARITY", 0.92, above=0, most=1),
    )


def _half_lives(raw: str) -> HalfLives | None:
    """``working=7,episodic=365`` → ``HalfLives`` (EPI-4); layers left out keep the shared curve."""
    if not raw:
        return None
    key = "HEARTH_ARCHIVE_HALF_LIFE_DAYS"
    values: dict[str, float] = {}
    for part in raw.split(","):
        layer, sep, days = part.partition("=")
        if not sep or layer.strip() not in LAYERS:
            raise ConfigError(
                f"{key}: {part.strip()!r} is not <layer>=<days> with a layer among {', '.join(LAYERS)}.",
                code="invalid_setting",
            )
        values[layer.strip()] = parse_number(key, days, above=0)
    return HalfLives(**values)


def dream_policy(env: Mapping[str, str]) -> DreamPolicy:
    """``DreamPolicy()`` with the ``HEARTH_DREAM_*`` overrides (EPI-10; off by default, EPI-12).

    Raises:
        ConfigError: ``invalid_setting``, naming the variable.
    """
    read = Env(env)
    base = DreamPolicy()
    return DreamPolicy(
        enabled=read.boolean("HEARTH_DREAM_ENABLED", base.enabled),
        idle_window_secs=read.integer("HEARTH_DREAM_IDLE_SECS", base.idle_window_secs, 0, _MANY),
        max_clusters_per_run=read.integer("HEARTH_DREAM_MAX_CLUSTERS", base.max_clusters_per_run, 1, 10_000),
        similarity=read.number("HEARTH_DREAM_SIMILARITY", base.similarity, above=0, most=1),
    )
