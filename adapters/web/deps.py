"""Litestar dependency providers of the web adapter."""

from __future__ import annotations

from typing import Any

from litestar import Request

from adapters.web.state import WebState
from engine.service.lore import LoreDesk

__all__ = ["provide_lore", "provide_web"]


def provide_web(request: Request[Any, Any, Any]) -> WebState:
    """The ``web`` dependency: the service and web helpers the app was built around."""
    state: WebState = request.app.state.web
    return state


def provide_lore(request: Request[Any, Any, Any]) -> LoreDesk:
    """The ``lore`` dependency: the lore desk, for handlers that need nothing else of ``web``."""
    state: WebState = request.app.state.web
    return state.lore
