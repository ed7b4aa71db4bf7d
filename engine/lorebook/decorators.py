"""Resolve an entry's ``@@`` decorators into its effective settings (LORE-10).

Supported (name → effect); a decorator overrides the matching entry field:

* ``@@probability N`` (0-100), ``@@scan_depth N`` (0-100), ``@@order N``, ``@@priority N``,
  ``@@role system|user|assistant``.
* ``@@activate_only_after N`` — active only once the chat has at least N messages.
* ``@@activate_only_every N`` — active only when the chat's message count is a multiple of N
  (N of 0 or 1 means always).
* ``@@keep`` (alias ``@@keep_activate_after_match``) — once included, stays active on later turns
  without a key match.
* ``@@dont_activate_after_match`` — once included, never activates again in that chat.
* ``@@is_greeting`` — active only while the chat is still at the greeting message.
* ``@@activate`` / ``@@dont_activate`` (SillyTavern) — always / never activate.

Unknown decorators are kept in the model and ignored here. A CCv3 fallback line ``@@@name``
applies only when the decorator just before it (or the fallback chain's start) is unknown.
A known decorator with a malformed value raises ``InvalidInput(code="invalid_decorator")``.
"""

from __future__ import annotations

from typing import Final

import msgspec

from engine.errors import InvalidInput
from engine.lorebook.model import Decorator, LoreEntry, Role

__all__ = ["EntryOptions", "resolve_options"]

_ROLES: Final = ("system", "user", "assistant")
_FLAGS: Final = {
    "keep": "keep",
    "keep_activate_after_match": "keep",
    "dont_activate_after_match": "once",
    "is_greeting": "greeting_only",
    "activate": "always",
    "dont_activate": "never",
}
_INTS: Final = {
    "probability": (0, 100),
    "scan_depth": (0, 100),
    "order": (-(10**9), 10**9),
    "priority": (-(10**9), 10**9),
    "activate_only_after": (0, 10**9),
    "activate_only_every": (0, 10**9),
}


class EntryOptions(msgspec.Struct, frozen=True, kw_only=True):
    """Effective per-entry settings after decorators were applied."""

    probability: int | None
    scan_depth: int | None
    order: int
    priority: int
    role: Role
    activate_only_after: int = 0
    activate_only_every: int = 0
    keep: bool = False
    once: bool = False
    greeting_only: bool = False
    always: bool = False
    never: bool = False


def resolve_options(entry: LoreEntry, *, where: str) -> EntryOptions:
    """Apply the entry's decorators over its fields.

    Args:
        entry: The entry.
        where: Human label of the entry for error messages (e.g. ``"entry 3 of book 'X'"``).

    Returns:
        The effective options.

    Raises:
        InvalidInput: A known decorator has a malformed or out-of-range value.
    """
    values: dict[str, object] = {
        "probability": entry.probability if entry.use_probability else None,
        "scan_depth": entry.scan_depth,
        "order": entry.order,
        "priority": entry.priority,
        "role": entry.role,
    }
    for decorator in _effective(entry.decorators):
        _apply(decorator, values, where)
    return msgspec.convert(values, EntryOptions)


def _effective(decorators: tuple[Decorator, ...]) -> list[Decorator]:
    chosen: list[Decorator] = []
    need_fallback = False
    for decorator in decorators:
        known = _is_known(decorator.name)
        if not decorator.fallback:
            need_fallback = not known
            if known:
                chosen.append(decorator)
        elif need_fallback and known:
            chosen.append(decorator)
            need_fallback = False
    return chosen


def _is_known(name: str) -> bool:
    return name in _FLAGS or name in _INTS or name == "role"


def _apply(decorator: Decorator, values: dict[str, object], where: str) -> None:
    name, value = decorator.name, decorator.value.strip()
    if name in _FLAGS:
        values[_FLAGS[name]] = True
    elif name == "role":
        if value.lower() not in _ROLES:
            raise _bad(decorator, where, "expected system, user or assistant")
        values["role"] = value.lower()
    else:
        low, high = _INTS[name]
        try:
            number = int(value)
        except ValueError:
            raise _bad(decorator, where, "expected a whole number") from None
        if not low <= number <= high:
            raise _bad(decorator, where, f"expected {low}..{high}")
        values[name] = number


def _bad(decorator: Decorator, where: str, why: str) -> InvalidInput:
    return InvalidInput(
        f"{where}: decorator '@@{decorator.name} {decorator.value}' is invalid: {why}",
        code="invalid_decorator",
    )
