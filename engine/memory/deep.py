"""The deep memory pass (DEEP-1..4): durable details lifted from a chunk that was just summarized.

The LLM reads the chunk (never pinned memories, never the rest of the chat) and answers JSON
that is validated against ``DeepOutput`` before anything is saved; invalid output changes
nothing and is reported. The pass is bounded: at most ``max_edits`` new memories per chunk,
each saved unpinned with source ``deep`` (so never protected, and never able to touch pinned
entries), only about people who wrote in the chunk and are not guests.

People are told apart by platform id, never by display name (MEM-4): each signed-in author of
the chunk gets a label (``P1``, ``P2``... in order of first appearance) that the excerpt shows
before their lines, and a fact's ``about`` must be one of those labels. Two people with one
name get two labels; a fact whose ``about`` is a name, or nobody's label, is not saved.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Literal

import msgspec

from engine.memory.model import ScopeList, personal_list, space_list
from engine.model import Persona, StoredMessage
from engine.prompt import Prompt, PromptMessage

__all__ = [
    "DeepExcerpt",
    "DeepFact",
    "DeepOutput",
    "DeepPolicy",
    "DeepReport",
    "deep_excerpt",
    "deep_prompt",
    "parse_deep",
    "plan_deep",
]


class DeepPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Bounds and switches of the pass (DEEP-3)."""

    platforms: tuple[str, ...] = ("web",)
    max_edits: int = 3
    min_messages: int = 10


class DeepFact(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One durable fact the model proposes."""

    text: str
    scope: Literal["personal", "space"] = "personal"
    about: str | None = None


class DeepOutput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The only JSON the pass accepts: ``{"facts": [{"text", "scope"?, "about"?}, ...]}``."""

    facts: list[DeepFact]


class DeepReport(msgspec.Struct, frozen=True, kw_only=True):
    """What one pass did, for people to read (kept per chat)."""

    chat: str
    first: float
    last: float
    status: Literal["saved", "nothing", "skipped", "rejected"]
    reason: str = ""
    saved: tuple[str, ...] = ()


_DECODER = msgspec.json.Decoder(DeepOutput)


class DeepExcerpt(msgspec.Struct, frozen=True, kw_only=True):
    """A chunk as the pass shows it: its lines, and each speaker's label → platform id."""

    lines: tuple[str, ...]
    speakers: dict[str, str]


def deep_excerpt(chunk: Sequence[StoredMessage]) -> DeepExcerpt:
    """The chunk's lines, each signed-in author's labelled ``[P<n>] <name>: <text>``.

    Guests and the persona get no label: nothing can be saved about them. A label never equals a
    display name in the chunk, so a person named "P1" cannot pass for another's label.
    """
    names = {m.name.strip().strip("[]").upper() for m in chunk}
    free = (f"P{n}" for n in itertools.count(1) if f"P{n}" not in names)  # never a name of the chunk
    labels: dict[str, str] = {}
    for m in chunk:
        if m.role == "user" and not m.guest and m.user not in labels:
            labels[m.user] = next(free)
    lines = tuple(
        f"[{labels[m.user]}] {m.name}: {m.text}" if m.user in labels else f"{m.name}: {m.text}" for m in chunk
    )
    return DeepExcerpt(lines=lines, speakers={label: user for user, label in labels.items()})


def deep_prompt(persona: Persona, lines: Sequence[str], *, limit: int) -> Prompt:
    """Ask for at most ``limit`` durable facts from a chunk (``deep_excerpt``'s lines), as JSON."""
    system = (
        f"You keep {persona.name}'s long-term notes about the people in a chat. Read the excerpt and "
        f"list at most {limit} facts that will stay true for weeks (names, relationships, birthdays, "
        "allergies, jobs, promises). No moods, no plot, nothing already obvious. Each speaker's "
        "lines start with their label in brackets, e.g. [P1]; two people may share a name but never "
        "a label. For a personal fact, about is the label of the speaker it is about (not a name); "
        "leave out a fact about anyone without a label. Answer only JSON: "
        '{"facts": [{"text": "...", "scope": "personal" | "space", "about": "<speaker label>"}]}'
    )
    return Prompt(
        messages=(
            PromptMessage(role="system", text=system, slot="persona"),
            PromptMessage(role="user", text="\n".join(lines), slot="window"),
        ),
        stable_count=1,
    )


def parse_deep(text: str) -> DeepOutput | str:
    """The validated output, or the reason it was rejected (schema-invalid output changes nothing)."""
    body = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        return _DECODER.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        return f"invalid JSON output: {exc}"


def plan_deep(
    output: DeepOutput,
    *,
    persona: str,
    space: str,
    speakers: Mapping[str, str],
    existing: Sequence[str],
    policy: DeepPolicy,
    max_chars: int,
) -> tuple[tuple[ScopeList, str], ...]:
    """Where each accepted fact goes, bounded and deduplicated.

    Args:
        output: the validated model output.
        persona: the persona.
        space: the chat's space.
        speakers: label → platform id of the chunk's signed-in authors (``deep_excerpt``).
        existing: texts already remembered in those lists (duplicates are skipped).
        policy: the bounds.
        max_chars: the longest memory.

    Returns:
        ``(list, text)`` pairs, at most ``policy.max_edits``.
    """
    seen = {t.casefold() for t in existing}
    planned: list[tuple[ScopeList, str]] = []
    for fact in output.facts:
        text = fact.text.strip()
        if not text or len(text) > max_chars or text.casefold() in seen:
            continue
        if fact.scope == "space":
            target = space_list(persona, space)
        else:
            owner = _owner(fact.about, speakers)
            if owner is None:
                continue  # a name, someone who did not write here, or nobody said: not saved
            target = personal_list(persona, owner, space)
        planned.append((target, text))
        seen.add(text.casefold())
        if len(planned) >= policy.max_edits:
            break
    return tuple(planned)


def _owner(about: str | None, speakers: Mapping[str, str]) -> str | None:
    """The platform id a fact's ``about`` labels; with no ``about``, the only speaker, if one."""
    label = (about or "").strip().strip("[]").upper()
    if not label:
        return next(iter(speakers.values())) if len(speakers) == 1 else None
    return speakers.get(label)
