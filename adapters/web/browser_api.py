"""The browser app's API under ``/app``: authorized by the session cookie, never the admin token.

One ``Router`` holds every browser endpoint: the session and rooms (``app_chat``), accounts
(``app_auth``), the memory panel (``app_memory``), the lorebook editor (``app_lore``) and the
conversation-memory view (``app_summary``, SUM-4: read, edit and rebuild the tiers, the count of
unsummarized messages), the archive view (``app_archive``: pins and working notes, EPI-1),
personas (``app_personas``) and message controls, branches and the guest
chat move (``app_messages``). Its guard enforces CSRF on state-changing requests, its ``visitor``
dependency resolves the session (401 without a valid one) and its ``accounts`` dependency the
account service; each group of routes brings the ``web`` state (``layers.web_dependency``).
Handlers add the ownership checks and call ``adapters.web.actions``, the layer the operator's
``/api`` calls as well.
"""

from __future__ import annotations

from litestar import Router
from litestar.di import Provide

from adapters.web.accounts import SignInLimited
from adapters.web.app_archive import ARCHIVE_VIEW_ROUTES
from adapters.web.app_auth import (
    AUTH_ROUTES,
    csrf_guard,
    handle_sign_in_limited,
    provide_accounts,
    provide_visitor,
)
from adapters.web.app_chat import CHAT_ROUTES
from adapters.web.app_chatfiles import CHATFILE_ROUTES
from adapters.web.app_lore import LORE_ROUTES
from adapters.web.app_memory import MEMORY_ROUTES
from adapters.web.app_messages import MESSAGE_ROUTES
from adapters.web.app_persona_settings import PERSONA_SETTINGS_ROUTES
from adapters.web.app_personas import PERSONA_ROUTES
from adapters.web.app_summary import SUMMARY_ROUTES
from adapters.web.layers import web_dependency

__all__ = ["browser_router"]


def browser_router() -> Router:
    """The ``/app`` router (a new one per app: Litestar routers are not shared between apps)."""
    return Router(
        path="/app",
        route_handlers=[
            Router(
                path="/",
                route_handlers=[
                    *CHAT_ROUTES,
                    *AUTH_ROUTES,
                    *PERSONA_ROUTES,
                    *PERSONA_SETTINGS_ROUTES,
                    *MESSAGE_ROUTES,
                    *CHATFILE_ROUTES,
                ],
                dependencies=web_dependency(),
            ),
            *MEMORY_ROUTES,
            *LORE_ROUTES,
            *SUMMARY_ROUTES,
            *ARCHIVE_VIEW_ROUTES,
        ],
        guards=[csrf_guard],
        dependencies={
            "visitor": Provide(provide_visitor),
            "accounts": Provide(provide_accounts, sync_to_thread=False),
        },
        exception_handlers={SignInLimited: handle_sign_in_limited},
        tags=["browser"],
    )
