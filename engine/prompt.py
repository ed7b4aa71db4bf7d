"""Prompt assembly (PRM-1, PRM-2, DEC-15).

A prompt template is an ordered tuple of slot names. Each slot renders, from ``PromptParts``,
zero or more provider-neutral ``PromptMessage``s. The *stable prefix* is the leading run of
slots whose content changes rarely (persona, pinned and active memories, summaries).

Cache marks are where the LLM adapter puts prompt-cache breakpoints, so the next
turn reads everything up to them from the provider's cache: after persona + pinned memories
(they change least), after the active memories (they change on an active/dormant switch), at
the end of the stable prefix (summaries change with a new tier), and after the window's older messages
(everything before the messages this turn answers: the live window is append-only between
its steps, see ``engine.window.live_window``). The default template puts what changes every
turn after the window: lore activated by the newest messages, recalled memories, documents.
Moving a slot in a persona's template moves its content (LORE-9): lore placed before the
window makes every change of the activated entries re-send the window uncached, and lore
before the persona re-sends everything (docs/BENCHMARKS.md measures each position).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec

from engine.errors import ConfigError
from engine.images import Image, ImageRef, placeholder
from engine.macros import MacroContext, expand
from engine.model import Persona, Role
from engine.tools import ToolExchange
from engine.window import Window

__all__ = [
    "DEFAULT_TEMPLATE",
    "EXAMPLES_MAX_TOKENS",
    "SLOTS",
    "STABLE_SLOTS",
    "MemoryLine",
    "Prompt",
    "PromptMessage",
    "PromptParts",
    "assemble_prompt",
    "dialogue_examples",
    "fill_macros",
    "resolve_template",
]

SLOTS: tuple[str, ...] = (
    "persona",
    "pinned_memories",
    "active_memories",
    "summaries",
    "window",
    "lore",
    "recalled",
    "post_history",
)
DEFAULT_TEMPLATE: tuple[str, ...] = SLOTS
EXAMPLES_MAX_TOKENS = 1_000  # the persona's example dialogue takes at most this much of a prompt
_START = re.compile(r"<start>", re.IGNORECASE)
MAX_CACHE_MARKS = 4  # the provider allows 4 breakpoints
# Stable slots that end a cached part of their own: a change of the active memories then keeps
# persona + pinned read, and a new summary tier keeps the active memories read.
_MARKED_SLOTS: frozenset[str] = frozenset({"pinned_memories", "active_memories"})
STABLE_SLOTS: frozenset[str] = frozenset({"persona", "pinned_memories", "active_memories", "summaries"})


class PromptMessage(msgspec.Struct, frozen=True, kw_only=True):
    """One provider-neutral message of a prompt, tagged with the slot it came from.

    ``images``: pictures a user message carries (the adapter puts them before its text).
    """

    role: Role
    text: str
    slot: str
    source: str | None = None
    images: tuple[Image, ...] = ()


class MemoryLine(msgspec.Struct, frozen=True, kw_only=True):
    """A memory as the prompt shows it; ``owner``: the display name of the person a personal
    memory belongs to, shown in front of it ("- (Alice) Alice hates cilantro"), so in a group
    the model can tell whose it is (issue 28)."""

    id: str
    text: str
    recent: bool = False
    owner: str | None = None


def _memory_line(m: MemoryLine) -> str:
    owner = f"({m.owner}) " if m.owner else ""
    return f"- {owner}{m.text}{' (recent)' if m.recent else ''} [{m.id}]"


class PromptParts(msgspec.Struct, frozen=True, kw_only=True):
    """Everything a turn's prompt is built from; later features fill the empty slots."""

    persona: Persona
    window: Window
    pinned: tuple[MemoryLine, ...] = ()
    active: tuple[MemoryLine, ...] = ()
    summaries: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()  # example dialogue blocks, macros filled (``dialogue_examples``)
    lore: tuple[PromptMessage, ...] = ()
    recalled: tuple[MemoryLine, ...] = ()
    documents: tuple[str, ...] = ()
    archive_pinned: tuple[str, ...] = ()  # the briefing's pinned archive pages (EPI-13)
    working_notes: tuple[str, ...] = ()  # the running session's working notes (EPI-1)
    user_name: str = "the user"
    macros: MacroContext | None = None
    answering: int = 1  # the newest window messages this turn answers (the rest were seen before)
    memory_note: str = ""  # said in the pinned memories' place when the chat has memory off (MEM-8)
    pictures: dict[str, Image] = msgspec.field(default_factory=dict)
    """The pictures the prompt carries, by id (``engine.images``); any other picture a window
    message names is a placeholder."""


class Prompt(msgspec.Struct, frozen=True, kw_only=True):
    """An assembled prompt: messages in template order, the first ``stable_count`` stable.

    ``exchanges`` are the tool rounds of the reply being written (they follow the messages).
    """

    messages: tuple[PromptMessage, ...]
    stable_count: int
    exchanges: tuple[ToolExchange, ...] = ()
    cache_marks: tuple[int, ...] = ()  # indices of messages that end a part to cache (ascending)

    @property
    def stable_prefix(self) -> tuple[PromptMessage, ...]:
        """The messages that stay byte-identical between turns (DEC-15)."""
        return self.messages[: self.stable_count]


def fill_macros(text: str, *, char: str, user: str, ctx: MacroContext | None = None) -> str:
    """Replace the card macros (``{{char}}``, ``{{user}}``, ``{{time}}``, ... see :mod:`engine.macros`).

    ``ctx`` adds the turn's time and seeds; ``char`` and ``user`` always come from the arguments.
    """
    base = ctx or MacroContext()
    return expand(text, msgspec.structs.replace(base, char=char, user=user))


def _render_persona(parts: PromptParts) -> tuple[PromptMessage, ...]:
    persona = parts.persona
    sections = [persona.system_prompt.strip(), persona.description.strip()]
    if persona.personality.strip():
        sections.append(f"{persona.name}'s personality: {persona.personality.strip()}")
    if persona.scenario.strip():
        sections.append(f"Scenario: {persona.scenario.strip()}")
    joined = "\n\n".join(s for s in sections if s)
    text = fill_macros(joined, char=persona.name, user=parts.user_name, ctx=parts.macros)
    shown = PromptMessage(role="system", text=text, slot="persona")
    if not parts.examples:
        return (shown,)
    blocks = "\n\n".join(f"[Example chat]\n{b}" for b in parts.examples)
    intro = f"Examples of how {persona.name} talks (not part of the chat):"
    example = PromptMessage(role="system", text=f"{intro}\n{blocks}", slot="persona", source="examples")
    return (shown, example)


def dialogue_examples(
    text: str,
    *,
    char: str,
    user: str,
    ctx: MacroContext | None,
    estimate: Callable[[str], int],
    room: bool = True,
    budget: int = EXAMPLES_MAX_TOKENS,
) -> tuple[str, ...]:
    """The example dialogue blocks a prompt carries, as SillyTavern puts them after the persona.

    ``text`` is split at each ``<START>``; ``{{char}}``/``{{user}}`` (and the other macros) are
    filled. Blocks are kept in order while their tokens stay within ``budget``; the first that
    does not fit ends the list. They are the first thing a full prompt drops: with no ``room``
    (the live window could not hold the whole chat) there are none.
    """
    if not room:
        return ()
    kept: list[str] = []
    used = 0
    for raw in _START.split(text):
        block = fill_macros(raw.strip(), char=char, user=user, ctx=ctx)
        if not block:
            continue
        cost = estimate(block)
        if used + cost > budget:
            break
        kept.append(block)
        used += cost
    return tuple(kept)


def _memory_block(title: str, lines: tuple[MemoryLine, ...], slot: str) -> tuple[PromptMessage, ...]:
    if not lines:
        return ()
    body = "\n".join(_memory_line(m) for m in lines)
    return (PromptMessage(role="system", text=f"{title}\n{body}", slot=slot),)


def _render_pinned(parts: PromptParts) -> tuple[PromptMessage, ...]:
    if parts.memory_note:
        return (PromptMessage(role="system", text=parts.memory_note, slot="pinned_memories"),)
    return _memory_block("Things you must always keep in mind:", parts.pinned, "pinned_memories")


def _render_active(parts: PromptParts) -> tuple[PromptMessage, ...]:
    return _memory_block("Things you remember:", parts.active, "active_memories")


def _render_summaries(parts: PromptParts) -> tuple[PromptMessage, ...]:
    if not parts.summaries:
        return ()
    body = "\n\n".join(parts.summaries)
    text = f"The story so far (oldest first):\n{body}"
    return (PromptMessage(role="system", text=text, slot="summaries"),)


def _render_lore(parts: PromptParts) -> tuple[PromptMessage, ...]:
    return parts.lore


def _with_placeholders(text: str, refs: tuple[ImageRef, ...], pictures: dict[str, Image]) -> str:
    """The text after the placeholders of the pictures the prompt does not carry."""
    left = [placeholder(r) for r in refs if r.id not in pictures]
    return " ".join([*left, text]).strip() if left else text


def _render_window(parts: PromptParts) -> tuple[PromptMessage, ...]:
    speakers = {m.user for m in parts.window.messages if m.role == "user"}
    named = len(speakers) > 1
    pictures = parts.pictures
    rendered: list[PromptMessage] = []
    for m in parts.window.messages:
        text = _with_placeholders(m.text, m.images, pictures)
        rendered.append(
            PromptMessage(
                role=m.role,
                text=f"{m.name}: {text}" if named and m.role == "user" else text,
                slot="window",
                source=m.id,
                images=tuple(pictures[r.id] for r in m.images if r.id in pictures),
            )
        )
    return tuple(rendered)


def _render_recalled(parts: PromptParts) -> tuple[PromptMessage, ...]:
    recalled = _memory_block("This came back to you just now:", parts.recalled, "recalled")
    briefing = _render_briefing(parts)
    if not parts.documents:
        return (*recalled, *briefing)
    docs = "\n\n".join(parts.documents)
    text = f"From your documents:\n{docs}"
    return (*recalled, PromptMessage(role="system", text=text, slot="recalled"), *briefing)


def _render_briefing(parts: PromptParts) -> tuple[PromptMessage, ...]:
    """The archive's briefing, in the ``recalled`` slot: pinned pages of earlier sessions
    (EPI-13) and the working notes of this session (EPI-1)."""
    shown: list[PromptMessage] = []
    if parts.archive_pinned:
        body = "\n".join(f"- {line}" for line in parts.archive_pinned)
        text = f"Pinned pages from the archive of earlier sessions:\n{body}"
        shown.append(PromptMessage(role="system", text=text, slot="recalled", source="archive:pinned"))
    if parts.working_notes:
        body = "\n".join(f"- {line}" for line in parts.working_notes)
        text = f"Working notes for this session (they end with it):\n{body}"
        shown.append(PromptMessage(role="system", text=text, slot="recalled", source="archive:notes"))
    return tuple(shown)


def _render_post_history(parts: PromptParts) -> tuple[PromptMessage, ...]:
    text = parts.persona.post_history_instructions.strip()
    if not text:
        return ()
    filled = fill_macros(text, char=parts.persona.name, user=parts.user_name, ctx=parts.macros)
    return (PromptMessage(role="system", text=filled, slot="post_history"),)


_RENDERERS: dict[str, Callable[[PromptParts], tuple[PromptMessage, ...]]] = {
    "persona": _render_persona,
    "pinned_memories": _render_pinned,
    "active_memories": _render_active,
    "summaries": _render_summaries,
    "lore": _render_lore,
    "window": _render_window,
    "recalled": _render_recalled,
    "post_history": _render_post_history,
}


def resolve_template(template: tuple[str, ...]) -> tuple[str, ...]:
    """Check a persona's template (empty = default).

    Args:
        template: slot names in order.

    Returns:
        The template to use.

    Raises:
        ConfigError: a slot is unknown or repeated, or "window" is missing.
    """
    if not template:
        return DEFAULT_TEMPLATE
    unknown = [s for s in template if s not in _RENDERERS]
    if unknown:
        raise ConfigError(
            f"unknown prompt slot(s) {unknown}; known slots: {list(SLOTS)}", code="invalid_template"
        )
    if len(set(template)) != len(template):
        raise ConfigError("a prompt slot appears twice in the template", code="invalid_template")
    if "window" not in template:
        raise ConfigError("the prompt template must contain the 'window' slot", code="invalid_template")
    return template


def assemble_prompt(parts: PromptParts, template: tuple[str, ...] = DEFAULT_TEMPLATE) -> Prompt:
    """Render every slot of ``template`` in order (PRM-1).

    Args:
        parts: what the turn's prompt is built from.
        template: slot names in order (see ``resolve_template``).

    Returns:
        The prompt; ``stable_count`` counts the messages of the leading run of stable slots;
        ``cache_marks`` are described in the module docstring.
    """
    messages: list[PromptMessage] = []
    stable_count = 0
    stable = True
    marks: list[int] = []
    for slot in template:
        rendered = _RENDERERS[slot](parts)
        if slot == "window" and len(rendered) > parts.answering:
            marks.append(len(messages) + len(rendered) - parts.answering - 1)
        messages.extend(rendered)
        stable = stable and slot in STABLE_SLOTS
        if stable:
            stable_count = len(messages)
            if slot in _MARKED_SLOTS:
                marks.append(stable_count - 1)
    if stable_count:
        marks.append(stable_count - 1)
    chosen = sorted({m for m in marks if m >= 0})[-MAX_CACHE_MARKS:]
    return Prompt(messages=tuple(messages), stable_count=stable_count, cache_marks=tuple(chosen))
