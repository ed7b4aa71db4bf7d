"""A persona's settings page: sampling, lengths, live window, summary and memory switches and
the prompt order (``engine.persona_settings``).

``GET`` shows them to every visitor who may talk to the persona; ``PUT`` (a whole
``GenerationSettings``) and ``DELETE`` (back to the deployment's defaults) are for those who may
change it. A value out of range is a 422 whose code is ``invalid_<field>`` and whose message
names the field and its range; nothing is stored then.
"""

from __future__ import annotations

from litestar import delete, get, put
from litestar.params import FromPath, JSONBody

from adapters.web.actions.personas import editable, visible_persona
from adapters.web.params import Visitor, Web
from adapters.web.schemas.persona_settings import PersonaSettingsView
from adapters.web.state import WebState
from engine.errors import ConfigError, Forbidden, InvalidInput
from engine.model import Persona
from engine.persona_settings import RANGES, GenerationSettings, apply, defaults, of
from engine.prompt import SLOTS

__all__ = ["PERSONA_SETTINGS_ROUTES"]


def settings_view(web: WebState, persona: Persona, *, can_edit: bool) -> PersonaSettingsView:
    """The page's view of ``persona``'s settings."""
    window = web.service.policy.window
    return PersonaSettingsView(
        persona=persona.id,
        settings=of(persona, window),
        defaults=defaults(window),
        slots=list(SLOTS),
        ranges=RANGES,
        editable=can_edit,
    )


async def may_edit(web: WebState, visitor: Visitor, persona_id: str) -> bool:
    """Whether the visitor may change the persona."""
    try:
        await editable(web, visitor, persona_id)
    except Forbidden:
        return False
    return True


async def store(web: WebState, persona: Persona, settings: GenerationSettings) -> Persona:
    """Put checked settings on the persona and store it (a bad value: 422, nothing stored)."""
    try:
        changed = apply(persona, settings)
    except ConfigError as exc:
        raise InvalidInput(exc.message, code=exc.code) from exc
    await web.service.personas.put(changed)
    return changed


@get("/personas/{persona:str}/settings")
async def get_settings(web: Web, visitor: Visitor, persona: FromPath[str]) -> PersonaSettingsView:
    """The persona's settings in effect and the deployment's defaults."""
    found = await visible_persona(web, visitor, persona)
    return settings_view(web, found, can_edit=await may_edit(web, visitor, persona))


@put("/personas/{persona:str}/settings")
async def put_settings(
    web: Web, visitor: Visitor, persona: FromPath[str], data: JSONBody[GenerationSettings]
) -> PersonaSettingsView:
    """Change the persona's settings; the next turn uses them."""
    found, _ = await editable(web, visitor, persona)
    return settings_view(web, await store(web, found, data), can_edit=True)


@delete("/personas/{persona:str}/settings", status_code=200)
async def reset_settings(web: Web, visitor: Visitor, persona: FromPath[str]) -> PersonaSettingsView:
    """Back to the deployment's defaults (the model's name and provider are kept)."""
    found, _ = await editable(web, visitor, persona)
    return settings_view(web, await store(web, found, GenerationSettings()), can_edit=True)


PERSONA_SETTINGS_ROUTES = [get_settings, put_settings, reset_settings]
