"""Checks of untrusted input that every adapter shares (PLT-6).

Ids arrive bare (``room1`` → ``web:room1``) or platform-qualified (``tg:-1001234``,
``tg:-1001234/topic/7``). They may not contain braces, because chat ids become Redis Cluster
hash tags (``{chat}``), nor whitespace or control characters.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import msgspec

from engine.errors import InvalidInput

if TYPE_CHECKING:  # engine.model imports this module (through engine.memory)
    from engine.model import ModelSettings

__all__ = [
    "MODEL_PROVIDERS",
    "SENT_AT_WINDOW_DAYS",
    "TextLimits",
    "check_model_choice",
    "check_sent_at",
    "check_text",
    "has_control_chars",
    "qualify_id",
]

MODEL_PROVIDERS = ("anthropic", "openai", "offline")
_NEEDS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY or OPENAI_BASE_URL"}
_ID = re.compile(r"[A-Za-z0-9_.:@/+=-]{1,128}")
_PREFIXES = {"web": "web", "tg": "tg"}


class TextLimits(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Length limits of a chat message (API.md: 1 to 16,000 characters, configurable)."""

    min_chars: int = 1
    max_chars: int = 16_000


def check_text(text: str, limits: TextLimits) -> str:
    """Validate a message text and return it NFC-normalized.

    Args:
        text: the text as received.
        limits: the configured limits.

    Returns:
        The text, Unicode NFC.

    Raises:
        InvalidInput: ``text_empty`` (nothing but whitespace), ``text_too_long``, or
            ``text_invalid`` (control characters other than tab/newline/CR, or unpaired
            surrogates).
    """
    if not text.strip():
        raise InvalidInput("The message is empty.", code="text_empty")
    if len(text) > limits.max_chars:
        raise InvalidInput(
            f"The message is {len(text):,} characters long; the limit is {limits.max_chars:,}.",
            code="text_too_long",
        )
    if has_control_chars(text) or any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise InvalidInput(
            "The message contains characters that are not valid text "
            "(a control character such as NUL, or a lone surrogate).",
            code="text_invalid",
        )
    normalized = unicodedata.normalize("NFC", text)
    if len(normalized) < limits.min_chars:
        raise InvalidInput("The message is too short.", code="text_empty")
    return normalized


def qualify_id(raw: str, *, what: str = "id") -> str:
    """Turn a bare web id into a platform-qualified one, and check it.

    Args:
        raw: ``room1``, ``web:room1``, ``tg:-1001234/topic/7``...
        what: the kind of id, used in the error (``chat``, ``user``...).

    Returns:
        The qualified id (``web:room1``).

    Raises:
        InvalidInput: ``invalid_<what>_id`` when the id has forbidden characters, is too long,
            or names an unknown platform.
    """
    code = f"invalid_{what}_id"
    if not _ID.fullmatch(raw):
        raise InvalidInput(
            f"The {what} id {raw[:40]!r} is not valid: use 1-128 letters, digits and _ . : @ / + = -.",
            code=code,
        )
    prefix, sep, rest = raw.partition(":")
    if not sep:
        return f"web:{raw}"
    if prefix not in _PREFIXES or not rest:
        raise InvalidInput(
            f"The {what} id {raw[:40]!r} names an unknown platform {prefix!r} (use web: or tg:).",
            code=code,
        )
    return raw


SENT_AT_WINDOW_DAYS = 3653
"""How far from now a message's ``sent_at`` may be, either way: about ten years (API.md)."""


def check_sent_at(sent_at: datetime, now: datetime, *, window_days: int = SENT_AT_WINDOW_DAYS) -> datetime:
    """Validate a client-given message time and return it in UTC.

    Days are counted from message times (DEC-2), so a time far in the past would overflow date
    arithmetic and one far in the future would freeze decay in its space; both are refused.

    Args:
        sent_at: the time as received.
        now: the server's clock.
        window_days: the accepted distance from ``now``, either way.

    Returns:
        ``sent_at`` in UTC.

    Raises:
        InvalidInput: ``invalid_sent_at`` without a time zone, ``bad_sent_at`` outside
            ``now ± window_days``.
    """
    if sent_at.tzinfo is None or sent_at.utcoffset() is None:
        raise InvalidInput(
            "sent_at needs a time zone (RFC 3339, e.g. 2026-05-01T12:00:00Z).", code="invalid_sent_at"
        )
    years = round(window_days / 365.25)
    try:
        utc = sent_at.astimezone(UTC)
        in_window = abs((utc - now).total_seconds()) <= window_days * 86_400
    except (OverflowError, ValueError):
        in_window = False
    if not in_window:
        raise InvalidInput(
            f"sent_at {sent_at.isoformat()} is more than {years} years from now; send a real message time.",
            code="bad_sent_at",
        )
    return utc


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def has_control_chars(text: str) -> bool:
    """Whether ``text`` holds control characters other than tab, newline and carriage return.

    NUL, escape, backspace, DEL and the C1 controls are never text a person typed; a CR is
    kept because pasted Windows line ends carry it.
    """
    return _CONTROL.search(text) is not None


def check_model_choice(model: ModelSettings, *, deployment: str, available: tuple[str, ...]) -> None:
    """Check a persona's provider and model against what the deployment can reach (LLM-1).

    Args:
        model: the persona's model settings (``provider`` empty: the deployment's).
        deployment: the deployment's provider (``HEARTH_LLM``).
        available: the providers whose credentials are set.

    Raises:
        InvalidInput: ``invalid_provider`` (not a provider), ``provider_unavailable`` (its
            credentials are not set), ``model_name_required`` (another provider than the
            deployment's without a model name: ``HEARTH_MODEL`` names the deployment's model).
    """
    provider = model.provider
    if not provider or provider == deployment:
        return
    if provider not in MODEL_PROVIDERS:
        raise InvalidInput(
            f"There is no model provider {provider!r}; use one of {', '.join(MODEL_PROVIDERS)}.",
            code="invalid_provider",
        )
    if provider not in available:
        raise InvalidInput(
            f"The provider {provider!r} is not set up on this deployment: {_NEEDS[provider]} is not set.",
            code="provider_unavailable",
        )
    if not model.name.strip() and provider != "offline":
        raise InvalidInput(
            f"A persona on {provider!r} (not this deployment's {deployment!r}) needs a model name.",
            code="model_name_required",
        )
