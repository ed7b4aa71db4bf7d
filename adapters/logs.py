"""Log setup of the processes: text lines, or one JSON object a line (``HEARTH_LOG_FORMAT=json``).

A JSON line holds ``ts`` (UTC, ISO 8601), ``level``, ``logger``, ``message`` and, where the
record carries them (``extra={"chat": ..., "turn": ...}``), ``chat`` and ``turn``; an exception
adds ``exc`` (its traceback). Every answered or failed turn logs one ``hearth.turns`` line with
its chat and turn id (``adapters.metrics.Metrics`` writes it).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import UTC, datetime

__all__ = ["JsonFormatter", "configure_logging", "json_logs"]

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_CONTEXT = ("chat", "turn", "provider", "seconds", "outcome")


class JsonFormatter(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key in _CONTEXT:
            value = record.__dict__.get(key)
            if value is not None:
                line[key] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


def json_logs(env: Mapping[str, str]) -> bool:
    """Whether ``HEARTH_LOG_FORMAT`` asks for JSON lines (else text)."""
    return env.get("HEARTH_LOG_FORMAT", "text").strip().lower() == "json"


def configure_logging(level: str, *, json_lines: bool) -> None:
    """The root logger at ``level``, writing text or JSON lines to stderr.

    Litestar sets up its own root handler and a ``litestar`` logger when the app is built; called
    again after that, this replaces both, so every line has the chosen format.
    """
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    framework = logging.getLogger("litestar")
    framework.handlers.clear()
    framework.propagate = True
