"""Who speaks in a chat with several personas (CAST-1..CAST-6).

A chat's *cast* is the ordered list of personas that share it. For every person's message the
cast's *strategy* decides which of them answer and in what order; this module is that decision,
pure and deterministic (the same inputs give the same speakers, so a retried or replayed turn
picks the same voices):

- CAST-2 **natural** (SillyTavern's natural order): the personas the message names (a name or an
  alias, whole word, any case, ``@`` allowed) answer first, in the order the message names them.
  With nobody named, one persona is drawn: weighted by talkativeness (0..1, default 0.5), from a
  seed the caller derives from the chat and the message, never the one who spoke last when
  another may. A reply that names another member lets that member follow it (CAST-5).
- CAST-3 **list**: members answer in cast order, starting after the last one who spoke.
- CAST-4 **manual**: only the persona asked for (``requested``: the body's ``persona``, ``/as``,
  the browser's picker) or, without one, the personas the message names; nobody otherwise.
- CAST-5 **at most N replies** per person's message (``max_replies``, default 1, capped at the
  cast's size); each member answers a message at most once. In natural order the replies may
  call on each other, within the same N.
- CAST-6 **no one three times running**: in natural and list order a persona never answers a
  third time in a row while another unmuted member could; a named persona who already gave the
  last two replies yields to the next best. A **muted** member never answers unless requested.

``requested`` is the person's own choice and goes first in every strategy (muted or not, streak
or not); natural and list fill the rest of the N as above, manual adds no one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from hashlib import blake2b
from typing import Literal

import msgspec

from engine.errors import InvalidInput

__all__ = [
    "CAST_STEP",
    "DEFAULT_TALKATIVENESS",
    "MAX_CAST",
    "STRATEGIES",
    "Cast",
    "Strategy",
    "check_cast",
    "follower",
    "named_in",
    "recent_speakers",
    "reply_cap",
    "reply_slot",
    "seed_of",
    "speakers",
    "swipe_key",
]

Strategy = Literal["natural", "list", "manual"]
STRATEGIES: tuple[str, ...] = ("natural", "list", "manual")

MAX_CAST = 8
"""The most personas one chat's cast may hold."""

DEFAULT_TALKATIVENESS = 0.5
"""A member's talkativeness when its card says none (SillyTavern's default)."""

STREAK = 2
"""Replies in a row after which a persona yields to another member (CAST-6)."""

CAST_STEP = 0.01
"""The k-th reply to one message is a turn at the message's position + k × this, so its reply
sits at + 0.5 + k × this: the replies keep their order and stay before the next message."""


class Cast(msgspec.Struct, frozen=True, kw_only=True):
    """A chat's cast: who shares the chat and how they take turns (CAST-1).

    ``personas`` in cast order (the first is the chat's main persona); ``muted`` members stay in
    the chat but answer only when requested; ``max_replies`` is the N of CAST-5.
    """

    personas: tuple[str, ...]
    strategy: Strategy = "natural"
    muted: tuple[str, ...] = ()
    max_replies: int = 1


def check_cast(cast: Cast, known: Collection[str], *, limit: int = MAX_CAST) -> Cast:
    """``cast`` checked against the personas that exist, or ``InvalidInput`` naming the problem.

    Codes: ``cast_empty``, ``cast_too_large``, ``cast_duplicate``, ``unknown_persona``,
    ``bad_strategy``, ``muted_not_in_cast``, ``bad_max_replies``. ``muted`` comes back deduplicated
    in cast order.
    """
    if not cast.personas:
        raise InvalidInput("A cast needs at least one persona.", code="cast_empty")
    if len(cast.personas) > limit:
        raise InvalidInput(f"A cast holds at most {limit} personas.", code="cast_too_large")
    seen: set[str] = set()
    for persona in cast.personas:
        if persona in seen:
            raise InvalidInput(f"The persona {persona!r} is in the cast twice.", code="cast_duplicate")
        seen.add(persona)
        if persona not in known:
            raise InvalidInput(f"There is no persona {persona!r}.", code="unknown_persona")
    if cast.strategy not in STRATEGIES:
        raise InvalidInput(f"The strategy must be one of {', '.join(STRATEGIES)}.", code="bad_strategy")
    for persona in cast.muted:
        if persona not in seen:
            raise InvalidInput(f"The muted persona {persona!r} is not in the cast.", code="muted_not_in_cast")
    if not 1 <= cast.max_replies <= len(cast.personas):
        raise InvalidInput(
            f"max_replies must be between 1 and the cast's size ({len(cast.personas)}).",
            code="bad_max_replies",
        )
    muted = tuple(p for p in cast.personas if p in cast.muted)
    return msgspec.structs.replace(cast, muted=muted)


def reply_cap(cast: Cast) -> int:
    """The N of CAST-5: ``max_replies`` within 1..the cast's size."""
    return max(1, min(cast.max_replies, len(cast.personas)))


def named_in(text: str, names: Mapping[str, Sequence[str]], cast: Sequence[str]) -> list[str]:
    """The members of ``cast`` that ``text`` names, in the order it first names them.

    A name or alias counts as a whole word in any case (``Bram,`` and ``@bram`` name Bram;
    ``Brambles`` does not). Two members first named at the same place keep cast order.
    """
    found: list[tuple[int, int, str]] = []
    for rank, persona in enumerate(cast):
        places = [_find(text, name) for name in names.get(persona, ()) if name.strip()]
        first = min((place for place in places if place >= 0), default=-1)
        if first >= 0:
            found.append((first, rank, persona))
    return [persona for _, _, persona in sorted(found)]


def speakers(
    cast: Cast,
    *,
    text: str,
    names: Mapping[str, Sequence[str]],
    recent_speakers: Sequence[str],
    talkativeness: Mapping[str, float],
    requested: str | None,
    seed: int,
) -> list[str]:
    """Who answers one person's message, in order (CAST-2..CAST-6).

    Args:
        cast: the chat's cast.
        text: the person's message.
        names: each member's name and aliases.
        recent_speakers: the personas of the chat's latest replies, newest last.
        talkativeness: each member's weight for the natural draw (missing: 0.5).
        requested: the member the person asked for, if any (a non-member is ignored).
        seed: a number the caller derives from the chat and the message (the draw's seed).

    Returns:
        At most ``reply_cap(cast)`` distinct members; empty when nobody may answer (manual
        with no one asked for, or every member muted).
    """
    cap = reply_cap(cast)
    chosen: list[str] = []
    if requested is not None and requested in cast.personas:
        chosen.append(requested)
        if cast.strategy == "manual":
            return chosen
    awake = [p for p in cast.personas if p not in cast.muted]
    if cast.strategy == "manual":
        return named_in(text, names, awake)[:cap]
    if cast.strategy == "list":
        for persona in _rotation(awake, recent_speakers):
            if len(chosen) >= cap:
                break
            if persona not in chosen and not _third_in_a_row(persona, [*recent_speakers, *chosen], awake):
                chosen.append(persona)
        return chosen
    for persona in named_in(text, names, awake):
        if len(chosen) >= cap:
            break
        if persona not in chosen and not _third_in_a_row(persona, [*recent_speakers, *chosen], awake):
            chosen.append(persona)
    if chosen:
        return chosen
    drawn = _draw(awake, [*recent_speakers], talkativeness, seed)
    return [drawn] if drawn is not None else []


def follower(
    cast: Cast,
    *,
    reply: str,
    speaker: str,
    names: Mapping[str, Sequence[str]],
    spoken: Sequence[str],
    recent_speakers: Sequence[str],
) -> str | None:
    """The member who answers ``speaker``'s ``reply`` next, in natural order (CAST-5), or ``None``.

    The first unmuted member the reply names who has not answered this message yet (``spoken``,
    in order) and would not be a third reply in a row (``recent_speakers`` ends with ``spoken``),
    while the message has fewer than N replies. List and manual order never follow.
    """
    if cast.strategy != "natural" or len(spoken) >= reply_cap(cast):
        return None
    awake = [p for p in cast.personas if p not in cast.muted]
    for persona in named_in(reply, names, awake):
        if (
            persona != speaker
            and persona not in spoken
            and not _third_in_a_row(persona, recent_speakers, awake)
        ):
            return persona
    return None


def reply_slot(answered: float, positions: Iterable[float]) -> float:
    """The turn position of one more reply to the message at ``answered``, after the replies to it
    already among ``positions`` (the log's positions)."""
    taken = sum(1 for p in positions if answered + 0.5 <= p < answered + 1)
    return answered + CAST_STEP * taken


def swipe_key(answered: str, position: float) -> str:
    """Under what a reply's alternatives (swipes) are kept: the answered message's id for its
    first reply (as in a chat with one persona), ``<id>~k`` for a cast's k-th reply to it, so
    each member's reply has swipes of its own. ``position``: the reply's turn position or its
    own (a half further: both leave the same remainder past the half)."""
    k = round(abs(math.fmod(position, 0.5)) / CAST_STEP)
    return answered if k == 0 else f"{answered}~{k}"


def recent_speakers(replies: Iterable[tuple[float, str]], before: float) -> list[str]:
    """The personas of the replies (position, persona) before ``before``, oldest first."""
    return [persona for position, persona in sorted(replies) if position < before]


def seed_of(chat: str, message: str) -> int:
    """The natural draw's seed for one message of one chat (the same message, the same draw)."""
    return int.from_bytes(blake2b(f"{chat}#{message}".encode(), digest_size=8).digest(), "big")


def _find(text: str, name: str) -> int:
    """Where ``name`` first stands in ``text`` as a whole word (any case), or -1."""
    match = re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", text, flags=re.IGNORECASE)
    return match.start() if match else -1


def _third_in_a_row(persona: str, recent: Sequence[str], awake: Sequence[str]) -> bool:
    """Whether ``persona`` answering now would be its third reply running while another could answer."""
    if all(p == persona for p in awake):
        return False
    tail = recent[-STREAK:]
    return len(tail) == STREAK and all(p == persona for p in tail)


def _rotation(awake: Sequence[str], recent: Sequence[str]) -> list[str]:
    """``awake`` in cast order, starting after the newest speaker who is among them."""
    last = next((p for p in reversed(recent) if p in awake), None)
    if last is None:
        return list(awake)
    start = awake.index(last) + 1
    return [*awake[start:], *awake[:start]]


def _draw(
    awake: Sequence[str], recent: Sequence[str], talkativeness: Mapping[str, float], seed: int
) -> str | None:
    """One member by a weighted draw: not the last speaker when another may answer (CAST-2, CAST-6).

    Each candidate gets ``u ** (1 / weight)`` with ``u`` a hash of the seed and its id in (0, 1)
    (a weighted draw without a random-number generator); the largest wins. Weights are the
    talkativeness clamped to 0..1; a weight of 0 loses to any positive one, and when all are 0
    the plain ``u`` decides.
    """
    if not awake:
        return None
    last = recent[-1] if recent else None
    pool = [p for p in awake if p != last] or list(awake)

    def key(persona: str) -> tuple[int, float]:
        digest = blake2b(f"{seed}\x00{persona}".encode(), digest_size=8).digest()
        u = (int.from_bytes(digest, "big") + 1) / (2**64 + 2)
        weight = min(1.0, max(0.0, talkativeness.get(persona, DEFAULT_TALKATIVENESS)))
        return (1, u ** (1 / weight)) if weight > 0 else (0, u)

    return max(pool, key=key)
