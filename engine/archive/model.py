"""Episodic archive types: layers, pages, their version chain, and the archive policy (EPI-1..13).

A *page* is one unit of the archive. Every finished session leaves one episodic page (abstract,
first-paragraph summary, body and the keep-worthy tokens found in them); the other layers hold
working notes (``working``), facts and decisions (``semantic``) and rules (``procedural``).
Pinned pages are exempt from every sweep in every layer (EPI-1).

Every rewrite appends the page's earlier content to ``versions`` (EPI-11), so the full text of
every earlier version stays with the page until it is purged. Persisted Structs evolve only by
adding fields with defaults (STYLE D4); :data:`PAGE_SCHEMA` names the current shape.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Literal

import msgspec

from engine.errors import ConfigError, InvalidInput

__all__ = [
    "AGE_RATE",
    "COLD_BELOW",
    "LAYERS",
    "PAGE_SCHEMA",
    "READ_RATE",
    "READ_WEIGHT",
    "SWEPT_LAYERS",
    "ArchivePolicy",
    "Feedback",
    "FeedbackKind",
    "HalfLives",
    "Layer",
    "Page",
    "PageStatus",
    "PageVersion",
    "WorkingNote",
    "require_aware",
]

Layer = Literal["working", "episodic", "semantic", "procedural"]
LAYERS: tuple[Layer, ...] = ("working", "episodic", "semantic", "procedural")
SWEPT_LAYERS: frozenset[str] = frozenset({"episodic"})
"""The only layer that decays by score and is swept (EPI-1)."""

PageStatus = Literal["active", "cold", "evicted", "superseded", "deleted"]
"""``active``: normal. ``cold``: scored cold and compacted (prose dropped, still searchable).
``evicted``: out of search, purged ``delete_after_days`` later. ``superseded``: merged into the
page named by ``superseded_by``. ``deleted``: a tombstone a person left; never swept or returned."""

FeedbackKind = Literal["stale", "wrong"]

PAGE_SCHEMA = 1
"""Current shape of :class:`Page`; older payloads decode with defaults (see ``migrate``)."""

AGE_RATE = 0.02
"""Published age decay per day: ``e^(-0.02 * 35) ~= 0.50``, a half-life of ~35 days (EPI-2)."""
READ_WEIGHT = 0.6
"""Weight of the read term ``0.6 * ln(1 + reads)``."""
READ_RATE = 0.04
"""Published decay per day of the read term, counted from the last read."""
COLD_BELOW = 0.20
"""Default score under which a page is cold."""


def require_aware(at: datetime, what: str = "time") -> datetime:
    """Return ``at`` unchanged if it carries a time zone.

    Raises:
        InvalidInput: ``naive_datetime`` when ``at`` has no time zone.
    """
    if at.tzinfo is None or at.utcoffset() is None:
        raise InvalidInput(f"The {what} {at.isoformat()} has no time zone.", code="naive_datetime")
    return at


class Feedback(msgspec.Struct, frozen=True, kw_only=True):
    """A person's verdict on a page: ``stale`` or ``wrong`` drop it to the lowest salience (EPI-3)."""

    kind: FeedbackKind
    at: datetime
    by: str | None = None
    note: str = ""


class PageVersion(msgspec.Struct, frozen=True, kw_only=True):
    """The full content of a page as it was before a rewrite (EPI-11).

    Attributes:
        number: the version number this content had (the first content is version 1).
        at: when this content became current.
        reason: why it became current (``created``, ``compacted``, ``absorbed``, ...).
        status: the page status while this content was current.
        superseded_by: the pointer while this content was current.
    """

    number: int
    at: datetime
    reason: str
    abstract: str
    summary: str
    body: str
    keep: tuple[str, ...] = ()
    status: PageStatus = "active"
    superseded_by: str | None = None


class WorkingNote(msgspec.Struct, frozen=True, kw_only=True):
    """A working note of a session that has ended, kept in its session page's history (EPI-1).

    Attributes:
        id: the id the note had as a working page.
        text: what the note said.
        at: when it was written.
        author: who wrote it (``persona:<id>`` for the persona's tool, else the person's id).
    """

    id: str
    text: str
    at: datetime
    author: str | None = None


class Page(msgspec.Struct, frozen=True, kw_only=True):
    """One archive page with its retention inputs and version chain.

    Attributes:
        id: unique page id.
        chat: the chat (or space) the page belongs to.
        layer: one of :data:`LAYERS`.
        created_at: when the page was written (for a session page: when the session ended);
            its age counts from here.
        abstract: one line saying what the page is about.
        summary: the first-paragraph summary.
        body: the prose (dropped by compaction).
        keep: keep-worthy tokens (paths, URLs, code, error codes, identifiers; EPI-5).
        first_position: position of the session's first message, if a session page.
        last_position: position of the session's last message, if a session page.
        salience: importance in ``[0, 1]``; feedback drops it to the policy's lowest.
        read_count: reads so far (search results, opened, reached by a link, explore).
        last_read_at: time of the latest read.
        reads: the most recent read times, newest last (bounded by ``max_read_log``).
        feedback: verdicts received, oldest first.
        pinned: exempt from every sweep (EPI-1).
        status: see :data:`PageStatus`.
        evicted_at: when the page was evicted (purge counts from here).
        superseded_by: the page this one was merged into (EPI-6).
        links: ids of pages or memories this page points to (EPI-13).
        merged_from: ids of pages whose tokens this page absorbed (evidence, EPI-6).
        version: number of the current content.
        version_at: when the current content became current.
        version_reason: why it did.
        versions: earlier contents, oldest first.
        schema: shape version of the stored page.
        author: who wrote a working note (``persona:<id>`` or the person's id).
        notes: the working notes of the session this page holds, kept when the session ended
            (history only: never searched, recalled or shown in a prompt, EPI-1).
    """

    id: str
    chat: str
    created_at: datetime
    layer: Layer = "episodic"
    abstract: str = ""
    summary: str = ""
    body: str = ""
    keep: tuple[str, ...] = ()
    first_position: float | None = None
    last_position: float | None = None
    salience: float = 1.0
    read_count: int = 0
    last_read_at: datetime | None = None
    reads: tuple[datetime, ...] = ()
    feedback: tuple[Feedback, ...] = ()
    pinned: bool = False
    status: PageStatus = "active"
    evicted_at: datetime | None = None
    superseded_by: str | None = None
    links: tuple[str, ...] = ()
    merged_from: tuple[str, ...] = ()
    version: int = 1
    version_at: datetime | None = None
    version_reason: str = "created"
    versions: tuple[PageVersion, ...] = ()
    schema: int = PAGE_SCHEMA
    author: str | None = None
    notes: tuple[WorkingNote, ...] = ()


class HalfLives(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Optional per-layer half-lives in days (``[decay.half_life_days]``, EPI-4).

    A layer left ``None`` uses the shared published curve (``AGE_RATE``) exactly.

    Raises:
        ConfigError: ``invalid_half_life`` when a value is not a positive finite number.
    """

    working: float | None = None
    episodic: float | None = None
    semantic: float | None = None
    procedural: float | None = None

    def __post_init__(self) -> None:
        for layer in LAYERS:
            days = getattr(self, layer)
            if days is not None and not (math.isfinite(days) and days > 0):
                raise ConfigError(
                    f"decay.half_life_days.{layer} must be a positive number of days, not {days}.",
                    code="invalid_half_life",
                )

    def age_rate(self, layer: Layer) -> float:
        """The age decay per day for ``layer``: ``ln 2 / half-life``, or ``AGE_RATE`` when unset."""
        days: float | None = getattr(self, layer)
        return AGE_RATE if days is None else math.log(2) / days


_UNIT_FIELDS = ("cold_below", "lowest_salience", "default_salience")


class ArchivePolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How sessions are cut, pages scored and the sweep acts. Everything that rewrites is off.

    Attributes:
        session_gap_secs: idle gap after which a session has ended (default 6 h).
        cold_below: score under which a page is cold (EPI-2).
        half_life_days: optional per-layer half-lives (EPI-4); ``None`` = the shared curve.
        compact_cold_episodic: compact cold pages instead of evicting them (EPI-5).
        dedup_cold_clusters: merge clusters of near-duplicate cold pages (EPI-6).
        delete_after_days: days from eviction to permanent deletion (EPI-5).
        lowest_salience: the salience ``stale``/``wrong`` feedback drops a page to (EPI-3).
        default_salience: salience of a new page.
        max_read_log: how many recent read times a page keeps (the count is kept in full).
        belief_authority_weight: weight of confidence in belief ranking; 0 = none (EPI-9).

    Raises:
        ConfigError: ``invalid_policy`` when a value is out of range.
    """

    session_gap_secs: int = 6 * 3600
    cold_below: float = COLD_BELOW
    half_life_days: HalfLives | None = None
    compact_cold_episodic: bool = False
    dedup_cold_clusters: bool = False
    delete_after_days: int = 180
    lowest_salience: float = 0.0
    default_salience: float = 1.0
    max_read_log: int = 50
    belief_authority_weight: float = 0.0

    def __post_init__(self) -> None:
        problem = _policy_problem(self)
        if problem:
            raise ConfigError(f"archive policy: {problem}.", code="invalid_policy")

    def age_rate(self, layer: Layer) -> float:
        """The age decay per day for ``layer`` (the shared ``AGE_RATE`` without half-lives)."""
        return AGE_RATE if self.half_life_days is None else self.half_life_days.age_rate(layer)


def _policy_problem(policy: ArchivePolicy) -> str | None:
    if policy.session_gap_secs < 1:
        return "session_gap_secs must be 1 or more"
    if policy.delete_after_days < 0:
        return "delete_after_days must be 0 or more"
    if policy.max_read_log < 0:
        return "max_read_log must be 0 or more"
    for name in _UNIT_FIELDS:
        value = getattr(policy, name)
        if not 0.0 <= value <= 1.0:
            return f"{name} must be between 0 and 1, not {value}"
    if policy.lowest_salience > policy.default_salience:
        return "lowest_salience must not exceed default_salience"
    if not (math.isfinite(policy.belief_authority_weight) and policy.belief_authority_weight >= 0):
        return "belief_authority_weight must be 0 or more"
    return None
