"""Shorthand types of the handlers' injected parameters (Litestar ``NamedDependency``).

- ``Web``: the ``web`` dependency, the ``WebState`` the app was built around (``deps.provide_web``).
- ``Visitor``: the ``/app`` router's ``visitor``, the browser's session (401 without one).
- ``AccountService``: the ``/app`` router's ``accounts``, the account service.
"""

from __future__ import annotations

from typing import TypeAlias

from litestar.di import NamedDependency

from adapters.web.accounts import Accounts
from adapters.web.session import BrowserSession
from adapters.web.state import WebState

__all__ = ["AccountService", "Visitor", "Web"]

Web: TypeAlias = NamedDependency[WebState]
Visitor: TypeAlias = NamedDependency[BrowserSession]
AccountService: TypeAlias = NamedDependency[Accounts]
