"""What a process does once at start, after ``adapters.bootstrap.build``: check Redis, migrate
its data, install the persona files and cards, warm the searches; and the session secret.

The web process runs these in its startup hook (after the port is bound), the worker before
its first job, the tests through the same functions.
"""

from __future__ import annotations

import logging
from pathlib import Path

import msgspec

from adapters.cards import decode_card
from adapters.cards.persona import persona_from_card, slug
from adapters.hearth import Hearth
from adapters.llm.tokens import warm_tokenizer
from config.load import load_personas
from engine.errors import ConfigError, InvalidInput, StorageUnavailable
from engine.model import Persona
from engine.validate import check_model_choice
from storage.client import why_unreachable
from storage.migrations import migrate
from storage.secrets import shared_secret

__all__ = ["install_personas", "migrate_storage", "session_secret"]

log = logging.getLogger("hearth")

_CARD_SUFFIXES = {".png", ".charx", ".json"}


async def migrate_storage(hearth: Hearth) -> None:
    """Check that Redis answers and bring its data to the current schema (a backup first).

    Raises:
        StorageUnavailable: Redis does not answer (the reason and the URL without its password).
    """
    if not await hearth.ping():
        reason = await why_unreachable(hearth.redis)
        where = _redacted(hearth.settings.redis.url)
        raise StorageUnavailable(f"Redis at {where} does not answer{f': {reason}' if reason else ''}.")
    backup = await migrate(hearth.redis, hearth.keys, Path(hearth.settings.backup_dir), hearth.clock.now())
    if backup is not None:
        log.info("data migrated; the backup taken first is %s", backup)


async def install_personas(hearth: Hearth) -> None:
    """Check and migrate Redis, then put the persona files and cards into it (files win over
    stored copies), then warm the tokenizer and the searches.

    ``HEARTH_PERSONAS`` may hold TOML persona files and character cards (``.png``, ``.charx``,
    card ``.json``); a card's embedded lorebook is stored and attached to its persona.
    """
    await migrate_storage(hearth)
    root = Path(hearth.settings.personas_path)
    cards = sorted(p for p in root.glob("*") if p.suffix.lower() in _CARD_SUFFIXES) if root.is_dir() else []
    personas = load_personas(root) if (not cards or any(root.glob("*.toml"))) else []
    for card_file in cards:
        personas.append(await _install_card(hearth, card_file))
    llm = hearth.settings.llm
    for persona in personas:
        try:
            check_model_choice(persona.model, deployment=llm.provider, available=llm.providers)
        except InvalidInput as exc:
            raise ConfigError(f"Persona {persona.id!r}: {exc.message}", code=exc.code) from exc
    for persona in personas:
        await hearth.service.personas.put(persona)
        log.info("persona %r (%s) loaded", persona.id, persona.name)
    warm_tokenizer()  # cl100k loads now, not inside the first turn that counts
    if hearth.service.memory is not None:  # the scorer's background vectors, before the first reply
        await hearth.service.memory.recall.warm()
    await hearth.archive.warm()  # the same for the archive search


async def _install_card(hearth: Hearth, path: Path) -> Persona:
    try:
        card = decode_card(path.read_bytes(), None)
    except InvalidInput as exc:
        raise ConfigError(f"Character card {path}: {exc.message}") from exc
    book = None
    if card.book is not None:
        # a stable id per file, so restarts update the same book instead of adding copies
        named = msgspec.structs.replace(
            card.book, id=f"card-{slug(path.stem)}", name=card.book.name or card.name
        )
        # ignored regex keys/decorators are left out, as on import (LORE-21)
        book = await hearth.lore.save(named, card.name)
    return persona_from_card(card, persona_id=slug(path.stem), book_id=book.id if book else None)


async def session_secret(hearth: Hearth) -> str:
    """``HEARTH_SESSION_SECRET``, or one generated once and shared through Redis."""
    if hearth.settings.web.session_secret is not None:
        return str(hearth.settings.web.session_secret)
    return await shared_secret(hearth.redis, hearth.keys, "session_secret")


def _redacted(url: str) -> str:
    """A Redis URL without its password, for logs."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        rest = "***@" + rest.split("@", 1)[1]
    return f"{scheme}{sep}{rest}"
