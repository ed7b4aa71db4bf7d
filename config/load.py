"""Load persona files (TOML) from ``HEARTH_PERSONAS`` (a directory or one file).

A persona file is decoded with unknown fields forbidden (STYLE D3), so a typo fails at start
with the file and the field named, instead of silently doing nothing.
"""

from __future__ import annotations

from pathlib import Path

import msgspec

from engine.errors import ConfigError
from engine.model import MemoryLimits, ModelSettings, Persona
from engine.persona_settings import check, of
from engine.prompt import resolve_template
from engine.window import WindowPolicy

__all__ = ["PersonaFile", "load_personas", "parse_persona_toml"]


class PersonaFile(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The TOML shape of a persona file; ``id`` defaults to the file's stem."""

    name: str
    system_prompt: str
    id: str = ""
    greeting: str = ""
    description: str = ""
    template: list[str] = []
    learn_from_chat: bool = True
    lorebooks: list[str] = []
    model: ModelSettings = msgspec.field(default_factory=ModelSettings)
    memory: MemoryLimits | None = None
    deep_memory: bool = True
    window_tokens: int | None = None
    summaries: bool = True


def parse_persona_toml(data: bytes, *, default_id: str, source: str) -> Persona:
    """Decode one persona file.

    Args:
        data: the file's bytes.
        default_id: the id to use when the file sets none (its stem).
        source: the file name, for error messages.

    Returns:
        The persona.

    Raises:
        ConfigError: the file is not valid TOML or has a wrong or unknown field.
    """
    try:
        raw = msgspec.toml.decode(data, type=PersonaFile)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise ConfigError(f"Persona file {source}: {exc}", code="invalid_persona") from exc
    if not raw.name.strip() or not raw.system_prompt.strip():
        raise ConfigError(f"Persona file {source}: name and system_prompt must not be empty.")
    persona = Persona(
        id=raw.id or default_id,
        name=raw.name.strip(),
        system_prompt=raw.system_prompt,
        greeting=raw.greeting,
        description=raw.description,
        model=raw.model,
        template=resolve_template(tuple(raw.template)) if raw.template else (),
        learn_from_chat=raw.learn_from_chat,
        lorebooks=tuple(raw.lorebooks),
        memory=raw.memory,
        deep_memory=raw.deep_memory,
        window_tokens=raw.window_tokens,
        summaries=raw.summaries,
    )
    try:
        check(of(persona, WindowPolicy()))
    except ConfigError as exc:
        raise ConfigError(f"Persona file {source}: {exc.message}", code=exc.code) from exc
    return persona


def load_personas(path: str | Path) -> list[Persona]:
    """Load every ``*.toml`` persona under ``path`` (or the one file it names).

    Raises:
        ConfigError: the path does not exist, holds no persona, or a file is invalid.
    """
    root = Path(path)
    if not root.exists():
        raise ConfigError(f"HEARTH_PERSONAS points at {root}, which does not exist.")
    files = [root] if root.is_file() else sorted(root.glob("*.toml"))
    if not files:
        raise ConfigError(f"No persona files (*.toml) in {root}.")
    return [parse_persona_toml(f.read_bytes(), default_id=f.stem, source=str(f)) for f in files]
