"""The offline model: a deterministic, clearly labelled stand-in for Claude (RUN-2).

It answers from the context it was given so that every feature is demonstrable without a key:
it repeats what the person said and quotes the piece of context (a lore entry, a memory, a
summary, a document) that shares the most words with it. It never pretends to be Claude.
"""

from __future__ import annotations

import re

import msgspec

from engine.memory.mode import MEMORY_OFF_NOTE
from engine.prompt import Prompt, PromptMessage
from engine.tools import SaveMemoryInput, ToolCall, ToolSpec

__all__ = [
    "NO_PICTURES",
    "OFFLINE_LABEL",
    "REMEMBER",
    "REMEMBER_INSIDE",
    "offline_reply",
    "offline_tool_calls",
    "remembered_fact",
]

OFFLINE_LABEL = "Offline model (no Claude key)"
NO_PICTURES = "I cannot see pictures: I only know that you sent one, not what it shows."
_PICTURE = re.compile(r"\[image: [^\]]{1,40}\]")
_WORD = re.compile(r"\w{3,}", re.UNICODE)
_SPEAKER = re.compile(r"^[^:\n]{1,64}: ")
_MEMORY_ID = re.compile(r" \[[\w-]+\]$")
_OWNER = re.compile(r"^\([^()\n]{1,64}\) ")  # "(Alice) " in front of a personal memory
_MEMORY_SLOTS = frozenset({"pinned_memories", "active_memories", "recalled"})
_CONTEXT_SLOTS = frozenset({"pinned_memories", "active_memories", "summaries", "lore", "recalled"})


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def _last_user(prompt: Prompt) -> str:
    for message in reversed(prompt.messages):
        if message.slot == "window" and message.role == "user":
            return message.text
    return ""


def _context_lines(prompt: Prompt) -> list[str]:
    lines: list[str] = []
    for message in prompt.messages:
        if message.slot in _CONTEXT_SLOTS:
            lines.extend(_split(message))
    return lines


def _split(message: PromptMessage) -> list[str]:
    if message.slot == "lore":
        return [message.text.strip()]
    lines = [line.lstrip("- ").strip() for line in message.text.splitlines()[1:] if line.strip()]
    if message.slot in _MEMORY_SLOTS:
        lines = [_OWNER.sub("", line, count=1) for line in lines]
    return [_MEMORY_ID.sub("", line).removesuffix(" (recent)") for line in lines]


REMEMBER = re.compile(
    r"^\W*(?:please\s+)?(?:remember|запомни|lembre(?:-se)?|hãy nhớ|nhớ|זכור|זכרי)\b[\s,:]*"
    r"(?:that|что|que|rằng|ש)?\s*(?P<fact>.+)$",
    re.IGNORECASE | re.DOTALL,
)


# "remember that …" anywhere in a message (after other words): needs the "that", so "do you
# remember me?" saves nothing; the fact runs to the end of its sentence.
REMEMBER_INSIDE = re.compile(
    r"\b(?:please\s+)?(?:remember|запомни|lembre(?:-se)?|hãy nhớ|nhớ|זכור|זכרי)[\s,:]+"
    r"(?:that\s|что\s|que\s|rằng\s|ש)\s*(?P<fact>[^\n]+?)(?=[.!?](?:\s|$)|\n|$)",
    re.IGNORECASE,
)
# tool results name memory ids for the model ("[mem-0f6b1d7ca9]"); people never see them
_IDS_IN_RESULT = re.compile(r"\s*\[mem-[\w-]+\]")


def remembered_fact(said: str) -> str | None:
    """The fact of a "remember that …" request anywhere in a message, or None."""
    text = _SPEAKER.sub("", said.strip(), count=1)
    found = REMEMBER.match(said.strip()) or REMEMBER.match(text) or REMEMBER_INSIDE.search(text)
    if found is None:
        return None
    fact = found.group("fact").strip().rstrip(".!")
    return fact[:1].upper() + fact[1:] if fact.strip(" .!") else None


def offline_tool_calls(prompt: Prompt, tools: tuple[ToolSpec, ...]) -> tuple[ToolCall, ...]:
    """The tool calls the offline model makes: "remember that …" saves a personal memory.

    Args:
        prompt: the assembled prompt.
        tools: the tools offered (none: the offline model calls nothing).

    Returns:
        At most one ``save_memory`` call, and only before any tool round of this reply.
    """
    if prompt.exchanges or "save_memory" not in {t.name for t in tools}:
        return ()
    fact = remembered_fact(_last_user(prompt))
    if fact is None:
        return ()
    arguments = msgspec.json.encode(SaveMemoryInput(text=fact)).decode()
    return (ToolCall(id="offline-save-1", name="save_memory", arguments=arguments),)


def offline_reply(prompt: Prompt, persona_name: str) -> str:
    """Compose the offline model's reply to a prompt.

    Args:
        prompt: the assembled prompt.
        persona_name: the persona's display name.

    Returns:
        A short reply that says it comes from the offline model, echoes the newest user
        message and quotes the best-overlapping context line, if any.
    """
    said = _last_user(prompt).strip()
    asked = _words(said)
    best, best_overlap = "", 0
    for line in _context_lines(prompt):
        overlap = len(asked & _words(line))
        if overlap > best_overlap:
            best, best_overlap = line, overlap
    echo = said if len(said) <= 280 else said[:277] + "..."
    parts = [
        f"[{OFFLINE_LABEL}] This is {persona_name}'s offline stand-in, not Claude.",
        f"You said: “{echo}”.",
    ]
    if _PICTURE.search(said):
        parts.append(NO_PICTURES)
    results = [r for exchange in prompt.exchanges for r in exchange.results]
    if results:
        parts.extend(_IDS_IN_RESULT.sub("", r.content) for r in results)
    elif best:
        quoted = best if len(best) <= 400 else best[:397] + "..."
        parts.append(f"From what I was given: “{quoted}”")
    else:
        parts.append("Nothing I was given touches that yet.")
    if remembered_fact(said) and any(m.text == MEMORY_OFF_NOTE for m in prompt.messages):
        parts.append("Memory is off in this chat, so I will not remember that.")  # MEM-8
    return " ".join(parts)
