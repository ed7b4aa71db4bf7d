"""Drafting memories from a person's description (MEM-6c) or selected messages (MEM-6d).

The model is asked "What should the persona remember?" about the material only (it does not
read the chat) and answers one fact per line; ``parse_drafts`` keeps at most ``limit`` usable
lines. Without an LLM, ``extract_drafts`` picks the material's sentences (labelled offline by
the caller).
"""

from __future__ import annotations

import re

from engine.errors import InvalidInput
from engine.model import Persona
from engine.prompt import Prompt, PromptMessage

__all__ = [
    "COMPOSE_QUESTION",
    "DESCRIPTION_LIMIT",
    "DRAFT_LIMIT",
    "check_description",
    "compose_prompt",
    "extract_drafts",
    "parse_drafts",
]

COMPOSE_QUESTION = "What should the persona remember?"
DESCRIPTION_LIMIT = 1_000  # MEM-6c
DRAFT_LIMIT = 5  # MEM-6d: "review up to 5 drafts"


def check_description(description: str) -> str:
    """A person's description for "Create memories" (MEM-6c), stripped.

    Raises:
        InvalidInput: ``description_empty`` or ``description_too_long`` (over 1,000 characters).
    """
    if not description.strip():
        raise InvalidInput("The description is empty.", code="description_empty")
    if len(description) > DESCRIPTION_LIMIT:
        raise InvalidInput(
            f"The description is {len(description):,} characters; the limit is {DESCRIPTION_LIMIT:,}.",
            code="description_too_long",
        )
    return description.strip()


_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def compose_prompt(persona: Persona, material: str, *, limit: int, max_chars: int) -> Prompt:
    """The prompt that turns material into at most ``limit`` memory drafts."""
    system = (
        f"You help {persona.name} keep notes about the people they talk to. "
        f"Answer the question: {COMPOSE_QUESTION} Write at most {limit} short facts that stay true "
        f"for weeks (names, dates, preferences, allergies, promises), one per line, each under "
        f"{max_chars} characters, in the material's language, each in the third person with the "
        f'person\'s name ("Alice hates cilantro", not "I hate cilantro"). No moods, no plot, '
        f"no commentary."
    )
    return Prompt(
        messages=(
            PromptMessage(role="system", text=system, slot="persona"),
            PromptMessage(role="user", text=f"Material:\n{material}", slot="window"),
        ),
        stable_count=1,
    )


def parse_drafts(text: str, *, limit: int, max_chars: int) -> tuple[str, ...]:
    """Usable drafts from the model's answer: one per line, bullets stripped, deduplicated."""
    drafts: list[str] = []
    for line in text.splitlines():
        draft = _BULLET.sub("", line).strip().strip('"“”')
        if draft and len(draft) <= max_chars and draft.casefold() not in {d.casefold() for d in drafts}:
            drafts.append(draft)
    return tuple(drafts[:limit])


def extract_drafts(material: str, *, limit: int, max_chars: int) -> tuple[str, ...]:
    """Offline drafts: the material's sentences, longest first up to ``limit``, in order."""
    sentences = [s.strip() for s in _SENTENCE.split(material) if len(s.strip()) > 3]
    fitting = [s if len(s) <= max_chars else s[: max_chars - 1] + "…" for s in sentences]
    keep = set(sorted(fitting, key=len, reverse=True)[:limit])
    return tuple(dict.fromkeys(s for s in fitting if s in keep))
