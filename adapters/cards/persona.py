"""Turn an imported character card into a Hearth persona (LORE-13, SPEC §0 persona)."""

from __future__ import annotations

import re
import unicodedata

from adapters.cards.card import CardPersona
from engine.model import Persona

__all__ = ["DEFAULT_CARD_PROMPT", "persona_from_card", "slug"]

DEFAULT_CARD_PROMPT = (
    "You are {{char}}. Write {{char}}'s next reply in a fictional chat with {{user}}. "
    "Stay in character, keep replies natural and engaging, and never speak for {{user}}."
)
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def slug(name: str) -> str:
    """A persona id from a name: ``"Seraphina Élan"`` → ``"seraphina-elan"``."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return _NOT_SLUG.sub("-", ascii_name.lower()).strip("-")[:48] or "persona"


def persona_from_card(card: CardPersona, *, persona_id: str | None, book_id: str | None) -> Persona:
    """Build a persona from a card; its embedded book (already stored as ``book_id``) is attached.

    The card's system prompt replaces ``{{original}}`` with Hearth's default card prompt (as
    SillyTavern does); an empty one means the default. ``{{char}}`` and ``{{user}}`` stay in
    the texts and are filled in when the prompt is built.
    """
    name = card.nickname or card.name
    prompt = card.system_prompt.strip().replace("{{original}}", DEFAULT_CARD_PROMPT) or DEFAULT_CARD_PROMPT
    return Persona(
        id=persona_id or slug(card.name),
        name=name.strip() or "Unnamed",
        system_prompt=prompt,
        greeting=card.greeting,
        description=card.description,
        personality=card.personality,
        scenario=card.scenario,
        alternate_greetings=tuple(card.alternate_greetings),
        mes_example=card.mes_example,
        post_history_instructions=card.post_history_instructions,
        lorebooks=(book_id,) if book_id else (),
    )
