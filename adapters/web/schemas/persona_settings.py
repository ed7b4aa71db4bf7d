"""Request and response types of a persona's settings page (``/app/personas/{id}/settings``)."""

from __future__ import annotations

import msgspec

from engine.persona_settings import GenerationSettings

__all__ = ["PersonaSettingsView"]


class PersonaSettingsView(msgspec.Struct, frozen=True, kw_only=True):
    """A persona's settings in effect, the deployment's defaults, the known prompt slots and the
    allowed range of each number; the body of ``PUT`` is a ``GenerationSettings``."""

    persona: str
    settings: GenerationSettings
    defaults: GenerationSettings
    slots: list[str]
    ranges: dict[str, tuple[float, float]]
    editable: bool
