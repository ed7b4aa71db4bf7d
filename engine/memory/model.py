"""Saved-memory records, their scope lists, and the policy that bounds them (MEM-1, MEM-2).

A record belongs to exactly one *scope list*, named by a :class:`ScopeList` key:

- ``space``    — the space list of space S for persona P (``persona``, ``space``);
- ``personal`` — the personal list of owner U for persona P, local to space S (``space`` set) or
  Global (``is_global=True``, ``space=None``);
- ``global``   — the global list of owner U, read by every persona (``persona=None``). A global
  record still carries the persona that saved it in :attr:`MemoryRecord.persona` (provenance),
  but that persona does not partition the list.

Counters (DEC-2): ``unused_days`` counts chat days on which the memory was searched and not used.
``last_counted_day`` is the last UTC day already accounted for this memory — the day it gained a
day, was used (matched) or was saved — so a day is counted at most once (DEC-5) and a day on which
the memory was used or saved is never an unused day.
"""

from __future__ import annotations

import functools
from datetime import UTC, date, datetime
from typing import Literal

import msgspec

from engine.errors import ConfigError, InvalidInput

__all__ = [
    "USE_EXCERPT_CHARS",
    "Buried",
    "MemoryPolicy",
    "MemoryRecord",
    "MemoryState",
    "MemoryUse",
    "Scope",
    "ScopeList",
    "Source",
    "Writer",
    "global_list",
    "global_personal_list",
    "personal_list",
    "scope_list_of",
    "space_list",
    "utc_day",
]

Scope = Literal["space", "personal", "global"]
Source = Literal["model", "person", "import", "deep", "dialogue"]
"""Who saved a memory: the model mid-reply, a person, an import, the deep pass, a dialogue."""
Writer = Literal["model", "person", "deep"]
"""Who changes or deletes a memory: the model (tools), a person (command/UI), the deep pass."""
MemoryState = Literal["active", "dormant"]


_POLICY_MINIMUMS = {
    "max_unpinned": 0,
    "max_pinned": 0,
    "max_chars": 1,
    "carry_limit": 0,
    "recent_days": 0,
    "dormant_after": 1,
    "used_matches": 0,
}


class MemoryPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Limits and decay settings, configurable per persona (MEM-2, MEM-3, DEC-4, DEC-6).

    Attributes:
        max_unpinned: unpinned entries per scope list.
        max_pinned: pinned entries per scope list, on top of ``max_unpinned``.
        max_chars: characters per entry.
        carry_limit: active unpinned entries a turn carries (MEM-3).
        recent_days: an entry updated less than this many days before ``now`` is "recent".
        dormant_after: counted unused days at which an unpinned memory goes dormant (DEC-6).
        used_matches: best matches of a search that count as used (DEC-4).
        match_threshold: minimum similarity of a hit; ``None`` when the search already applied it.
        decay_enabled: ``False`` with ``MEMORY_DECAY_ENABLED=false`` or without an embedder
            (DEC-1, DEC-14): everything stays active, nothing is forgotten for room.
    """

    max_unpinned: int = 100
    max_pinned: int = 20
    max_chars: int = 500
    carry_limit: int = 100
    recent_days: int = 7
    dormant_after: int = 7
    used_matches: int = 3
    match_threshold: float | None = None
    decay_enabled: bool = True

    def __post_init__(self) -> None:
        for name, least in _POLICY_MINIMUMS.items():
            if getattr(self, name) < least:
                raise ConfigError(f"memory policy: {name} must be {least} or more.", code="invalid_policy")


class ScopeList(msgspec.Struct, frozen=True, kw_only=True):
    """The identity of one scope list (hashable; use the builder functions below).

    Raises:
        InvalidInput: ``invalid_scope_list`` when the fields do not fit the scope.
    """

    scope: Scope
    persona: str | None = None
    space: str | None = None
    owner: str | None = None
    is_global: bool = False

    def __post_init__(self) -> None:
        problem = _scope_list_problem(self)
        if problem:
            raise InvalidInput(f"A {self.scope} memory list {problem}.", code="invalid_scope_list")


def _scope_list_problem(key: ScopeList) -> str | None:
    if key.scope == "space":
        if not (key.persona and key.space) or key.owner is not None or key.is_global:
            return "needs a persona and a space, and no owner"
    elif key.scope == "personal":
        if not (key.persona and key.owner):
            return "needs a persona and an owner"
        if key.is_global == (key.space is not None):
            return "is either local to a space or Global, not both or neither"
    elif key.persona is not None or key.space is not None or not key.owner or key.is_global:
        return "needs an owner only"
    return None


def space_list(persona: str, space: str) -> ScopeList:
    """The space list ("server memories") of ``space`` for ``persona``."""
    return ScopeList(scope="space", persona=persona, space=space)


def personal_list(persona: str, owner: str, space: str) -> ScopeList:
    """The personal list of ``owner`` for ``persona``, local to ``space``."""
    return ScopeList(scope="personal", persona=persona, owner=owner, space=space)


def global_personal_list(persona: str, owner: str) -> ScopeList:
    """The Global personal list of ``owner`` for ``persona`` (follows the owner everywhere)."""
    return ScopeList(scope="personal", persona=persona, owner=owner, is_global=True)


def global_list(owner: str) -> ScopeList:
    """The global list of ``owner``, read by every persona of the deployment."""
    return ScopeList(scope="global", owner=owner)


class MemoryRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One saved memory (a fact that stays true for weeks, MEM-11).

    ``hidden`` marks a memory that is not usable in the conversation at hand (privacy setting,
    blocklist, topic/chat restriction, tags — DEC-10); the service may set it per turn with
    ``msgspec.structs.replace`` before calling the pure functions.
    """

    id: str
    persona: str
    scope: Scope
    text: str
    created_at: datetime
    updated_at: datetime
    space: str | None = None
    owner: str | None = None
    is_global: bool = False
    pinned: bool = False
    protected: bool = False
    source: Source = "model"
    unused_days: int = 0
    last_counted_day: date | None = None
    last_matched_at: datetime | None = None
    hidden: bool = False
    created_turn: str | None = None


USE_EXCERPT_CHARS = 120
"""A memory's last use keeps at most this many characters of the message that used it."""


class MemoryUse(msgspec.Struct, frozen=True, kw_only=True):
    """The last turn that sent a memory to the model: why the memory is in play (the panel's "why")."""

    turn: str
    chat: str
    at: datetime
    excerpt: str

    @classmethod
    def of(cls, *, turn: str, chat: str, at: datetime, message: str) -> MemoryUse:
        """The use by ``turn``, answering ``message`` (one line, cut to ``USE_EXCERPT_CHARS``)."""
        line = " ".join(message.split())
        if len(line) > USE_EXCERPT_CHARS:
            line = line[: USE_EXCERPT_CHARS - 1].rstrip() + "…"
        return cls(turn=turn, chat=chat, at=at, excerpt=line)


class Buried(msgspec.Struct, frozen=True, kw_only=True):
    """A memory a person forgot, kept a short while for Undo, with its last use."""

    record: MemoryRecord
    use: MemoryUse | None = None


def scope_list_of(record: MemoryRecord) -> ScopeList:
    """The key of the scope list ``record`` belongs to.

    Raises:
        InvalidInput: ``invalid_scope_list`` when the record's scope fields are inconsistent.
    """
    return _scope_list(record.scope, record.persona, record.space, record.owner, record.is_global)


@functools.lru_cache(maxsize=4096)
def _scope_list(
    scope: Scope, persona: str, space: str | None, owner: str | None, is_global: bool
) -> ScopeList:
    # A turn asks this of every memory in play several times (issue 12: ~1,200 calls a loaded
    # turn); the same few lists come back, so they are built (and validated) once.
    return ScopeList(
        scope=scope,
        persona=None if scope == "global" else persona,
        space=None if is_global else space,
        owner=owner,
        is_global=is_global,
    )


def utc_day(at: datetime) -> date:
    """The UTC calendar date of a tz-aware moment (days come from message times, SPEC §0).

    Raises:
        InvalidInput: ``naive_datetime`` when ``at`` has no time zone.
    """
    if at.tzinfo is None or at.utcoffset() is None:
        raise InvalidInput(f"The time {at.isoformat()} has no time zone.", code="naive_datetime")
    return at.astimezone(UTC).date()
