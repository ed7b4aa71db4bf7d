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
* ``@@activate`` / ``@@dont_activate`` (SillyTavern) — always / never activate; with both,
  ``@@activate`` wins (CCv3, LORE-19).
* ``@@additional_keys a,b`` — the entry activates only when one of these keys occurs too (may
  repeat: the lists add up); ``@@exclude_keys a,b`` — the entry does not activate when one of
  these keys occurs (ignored with ``use_regex``). Both are searched where the primary keys are
  (CCv3, LORE-19).

CCv3 semantics (LORE-19): the *first* decorator of a name counts, later ones of that name are
ignored; unknown decorators are kept in the model and ignored here (the import report lists
them); a CCv3 fallback line ``@@@name`` applies only when the decorator just before it (or the
fallback chain's start) is unknown or ignored. A known decorator with a malformed value is
ignored with an issue ``invalid_decorator`` (``validate_book`` turns the first one into ``InvalidInput``).
"""

from __future__ import annotations

from typing import Final

import msgspec

from engine.lorebook.model import Decorator, LoreEntry, Role
from engine.lorebook.regex_keys import split_key_string

__all__ = ["KNOWN_UNSUPPORTED", "EntryOptions", "resolve_options"]

KNOWN_UNSUPPORTED: Final = {
    "depth": "Hearth has one lore slot; move the slot in the prompt template (LORE-9)",
    "instruct_depth": "Hearth has one lore slot; move the slot in the prompt template (LORE-9)",
    "reverse_depth": "Hearth has one lore slot; move the slot in the prompt template (LORE-9)",
    "position": "Hearth has one lore slot; move the slot in the prompt template (LORE-9)",
    "ignore_on_max_context": "the token budget decides what stays (LORE-7)",
    "reverse_instruct_depth": "Hearth has one lore slot; move the slot in the prompt template (LORE-9)",
    "instruct_scan_depth": "chats are scanned by messages (@@scan_depth), not tokens",
    "is_user_icon": "Hearth has no user icons",
    "disable_ui_prompt": "Hearth has no per-entry UI prompt",
}
"""CCv3 decorators Hearth knows but does not apply, with the reason the import report gives."""

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
    additional_keys: tuple[str, ...] = ()
    exclude_keys: tuple[str, ...] = ()


class DecoratorProblem(msgspec.Struct, frozen=True, kw_only=True):
    """A decorator that was not applied: ``code`` ``invalid_decorator`` or ``unsupported``."""

    line: str
    reason: str
    code: str


def resolve_options(entry: LoreEntry) -> tuple[EntryOptions, tuple[DecoratorProblem, ...]]:
    """Apply the entry's decorators over its fields (LORE-10, LORE-19).

    Args:
        entry: The entry.

    Returns:
        The effective options, and the decorators that were ignored with the reason.
    """
    values: dict[str, object] = {
        "probability": entry.probability if entry.use_probability else None,
        "scan_depth": entry.scan_depth,
        "order": entry.order,
        "priority": entry.priority,
        "role": entry.role,
    }
    problems: list[DecoratorProblem] = []
    seen: set[str] = set()
    need_fallback = False
    for decorator in entry.decorators:
        if decorator.fallback and not need_fallback:
            continue
        why = _apply(decorator, values, seen)
        need_fallback = why is not None  # CCv3: a fallback stands in for an unknown or ignored one
        if why is not None and not (decorator.fallback and why[1] == "unsupported"):
            problems.append(DecoratorProblem(line=_line(decorator), reason=why[0], code=why[1]))
    if values.get("always"):
        values["never"] = False  # CCv3: @@activate beats @@dont_activate
    return msgspec.convert(values, EntryOptions), tuple(problems)


def _line(decorator: Decorator) -> str:
    prefix = "@@@" if decorator.fallback else "@@"
    return f"{prefix}{decorator.name} {decorator.value}".strip()


def _apply(decorator: Decorator, values: dict[str, object], seen: set[str]) -> tuple[str, str] | None:
    """Apply one decorator; return ``(reason, code)`` when it is not applied."""
    name, value = decorator.name, decorator.value.strip()
    known = name in _FLAGS or name in _INTS or name in ("role", "additional_keys", "exclude_keys")
    if not known:
        if name in KNOWN_UNSUPPORTED:
            return f"not applied: {KNOWN_UNSUPPORTED[name]}", "unsupported"
        return "unknown decorator", "unsupported"
    field = _FLAGS.get(name, name)
    if field in seen and name != "additional_keys":  # CCv3: @@additional_keys may repeat
        return f"ignored: the first @@{name} counts (CCv3)", "invalid_decorator"
    if name in _FLAGS:
        values[field] = True
    elif name == "role":
        if value.lower() not in _ROLES:
            return "ignored: expected system, user or assistant", "invalid_decorator"
        values["role"] = value.lower()
    elif name in ("additional_keys", "exclude_keys"):
        keys = split_key_string(value)
        if not keys:
            return "ignored: expected comma-separated keys", "invalid_decorator"
        earlier = values.get(name, ())
        values[name] = (*(earlier if isinstance(earlier, tuple) else ()), *keys)
    else:
        low, high = _INTS[name]
        try:
            number = int(value)
        except ValueError:
            return "ignored: expected a whole number", "invalid_decorator"
        if not low <= number <= high:
            return f"ignored: expected {low}..{high}", "invalid_decorator"
        values[name] = number
    seen.add(field)
    return None
