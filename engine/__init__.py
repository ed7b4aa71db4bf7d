"""Hearth's pure engine: decides what a turn sends and records (no IO, clock or environment).

``engine.service`` is the one async module; it drives the ports in ``engine.ports``.
"""

from engine.errors import HearthError
from engine.model import IncomingMessage, Persona, StoredMessage, Turn
from engine.prompt import Prompt, PromptMessage, PromptParts, assemble_prompt
from engine.requestlog import Context, RequestLog, summarize_context
from engine.window import Window, WindowPolicy, select_window

__all__ = [
    "Context",
    "HearthError",
    "IncomingMessage",
    "Persona",
    "Prompt",
    "PromptMessage",
    "PromptParts",
    "RequestLog",
    "StoredMessage",
    "Turn",
    "Window",
    "WindowPolicy",
    "assemble_prompt",
    "select_window",
    "summarize_context",
]
