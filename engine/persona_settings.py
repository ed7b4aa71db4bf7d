"""A persona's generation settings: sampling, lengths, window, switches and prompt order.

The settings live on the persona (``Persona.model``, ``window_tokens``, ``summaries``,
``learn_from_chat``, ``template``); an unset one means the deployment's default. ``check``
validates a set of settings and names the field and its range on a bad value; ``apply`` puts
checked settings on a persona; ``window_policy`` is the live-window caps a persona's turns use.
"""

from __future__ import annotations

import math

import msgspec

from engine.errors import ConfigError
from engine.model import Persona
from engine.prompt import DEFAULT_TEMPLATE, resolve_template
from engine.window import WindowPolicy

__all__ = ["RANGES", "GenerationSettings", "apply", "check", "defaults", "of", "window_policy"]

RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 2.0),
    "top_p": (0.0, 1.0),
    "max_tokens": (16, 64_000),
    "context_window": (1_000, 2_000_000),
    "window_tokens": (500, 1_000_000),
}


class GenerationSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One persona's settings (``None``: the deployment's default)."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int = 1024
    context_window: int = 200_000
    window_tokens: int | None = None
    summaries: bool = True
    learn_from_chat: bool = True
    prompt_order: tuple[str, ...] = DEFAULT_TEMPLATE


def defaults(window: WindowPolicy) -> GenerationSettings:
    """The deployment's defaults, with the live window's cap spelled out."""
    return GenerationSettings(window_tokens=window.max_tokens)


def of(persona: Persona, window: WindowPolicy) -> GenerationSettings:
    """The settings in effect for ``persona`` (its own, else the deployment's)."""
    return GenerationSettings(
        temperature=persona.model.temperature,
        top_p=persona.model.top_p,
        max_tokens=persona.model.max_tokens,
        context_window=persona.model.context_window,
        window_tokens=persona.window_tokens if persona.window_tokens is not None else window.max_tokens,
        summaries=persona.summaries,
        learn_from_chat=persona.learn_from_chat,
        prompt_order=resolve_template(persona.template),
    )


def _in_range(field: str, value: float | None) -> None:
    if value is None:
        return
    low, high = RANGES[field]
    if not (isinstance(value, int | float) and math.isfinite(value) and low <= value <= high):
        message = f"{field} must be between {low:,} and {high:,}, not {value!r}"
        raise ConfigError(message, code=f"invalid_{field}")


def check(settings: GenerationSettings) -> GenerationSettings:
    """``settings`` if every value is in its range (``RANGES``) and the prompt order is valid.

    Raises:
        ConfigError: the message names the field and its range; the code is ``invalid_<field>``
            (``invalid_template`` for the prompt order).
    """
    for field in RANGES:
        _in_range(field, getattr(settings, field))
    if not settings.prompt_order:
        raise ConfigError("prompt_order must list the prompt's slots", code="invalid_template")
    resolve_template(settings.prompt_order)
    return settings


def apply(persona: Persona, settings: GenerationSettings) -> Persona:
    """``persona`` with checked ``settings``; the default prompt order is stored as empty."""
    order = check(settings).prompt_order
    model = msgspec.structs.replace(
        persona.model,
        temperature=settings.temperature,
        top_p=settings.top_p,
        max_tokens=settings.max_tokens,
        context_window=settings.context_window,
    )
    return msgspec.structs.replace(
        persona,
        model=model,
        window_tokens=settings.window_tokens,
        summaries=settings.summaries,
        learn_from_chat=settings.learn_from_chat,
        template=() if order == DEFAULT_TEMPLATE else order,
    )


def window_policy(persona: Persona, window: WindowPolicy) -> WindowPolicy:
    """The live-window caps of ``persona``'s turns: the deployment's, with its own token cap."""
    if persona.window_tokens is None:
        return window
    return msgspec.structs.replace(window, max_tokens=persona.window_tokens)
