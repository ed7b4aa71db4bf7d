"""Typed reads of one environment mapping; every error names the variable (STYLE K1).

An unset or blank variable gives the default. A malformed or out-of-range one raises
``ConfigError`` with the code ``invalid_setting`` and a message that starts with its name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from engine.errors import ConfigError

__all__ = ["Env", "Secret"]

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class Secret(str):
    """A string that never shows itself in ``repr``."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Secret('********')"


def _bad(key: str, problem: str) -> ConfigError:
    return ConfigError(f"{key} {problem}.", code="invalid_setting")


class Env:
    """Reads settings from ``env`` (usually ``os.environ``, passed in by a ``__main__``)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = env

    def raw(self, key: str) -> str:
        """The stripped value, ``""`` when unset."""
        return self._env.get(key, "").strip()

    def given(self, *keys: str) -> list[str]:
        """Which of ``keys`` are set (for errors about a group of them)."""
        return [key for key in keys if self.raw(key)]

    def text(self, key: str, default: str) -> str:
        """The value, or ``default`` when unset."""
        return self.raw(key) or default

    def optional(self, key: str) -> str | None:
        """The value, or ``None`` when unset."""
        return self.raw(key) or None

    def secret(self, key: str) -> Secret | None:
        """The value wrapped so it never prints, or ``None`` when unset."""
        raw = self.raw(key)
        return Secret(raw) if raw else None

    def choice(self, key: str, default: str, allowed: tuple[str, ...]) -> str:
        """One of ``allowed``."""
        value = self.text(key, default)
        if value not in allowed:
            raise _bad(key, f"must be one of {', '.join(allowed)}, got {value!r}")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        """``true/false``, ``1/0``, ``yes/no`` or ``on/off``."""
        raw = self.raw(key).lower()
        if not raw:
            return default
        if raw not in _TRUE | _FALSE:
            raise _bad(key, f"must be true or false, got {raw!r}")
        return raw in _TRUE

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        """A whole number in ``low..high``."""
        raw = self.raw(key)
        if not raw:
            return default
        try:
            value = int(raw)
        except ValueError:
            raise _bad(key, f"must be a whole number, got {raw!r}") from None
        if not low <= value <= high:
            raise _bad(key, f"must be between {low} and {high}, got {value}")
        return value

    def number(self, key: str, default: float, *, above: float, most: float = math.inf) -> float:
        """A finite number ``x`` with ``above < x <= most``."""
        raw = self.raw(key)
        if not raw:
            return default
        return parse_number(key, raw, above=above, most=most)

    def names(self, key: str, default: str, *, lower: bool = False) -> tuple[str, ...]:
        """A comma-separated list, blanks dropped."""
        raw = self._env.get(key, default)
        items = (part.strip() for part in raw.split(","))
        return tuple(item.lower() if lower else item for item in items if item)


def parse_number(key: str, raw: str, *, above: float, most: float = math.inf) -> float:
    """``raw`` as a finite number ``x`` with ``above < x <= most``; errors name ``key``."""
    try:
        value = float(raw.strip())
    except ValueError:
        raise _bad(key, f"must be a number, got {raw.strip()!r}") from None
    if not math.isfinite(value) or not above < value <= most:
        bound = "" if math.isinf(most) else f" and at most {most:g}"
        raise _bad(key, f"must be above {above:g}{bound}, got {raw.strip()}")
    return value
