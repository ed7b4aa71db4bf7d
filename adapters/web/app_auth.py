"""Browser authentication: the session dependency, CSRF protection, sign-up/in/out, link codes.

CSRF (documented for operators and tests): every state-changing request under ``/app``
(POST, PUT, PATCH, DELETE) must

1. carry ``X-CSRF-Token`` equal to the token ``GET /app/session`` returned — an HMAC of the
   session cookie under the server secret (a stateless synchronizer token, bound to the session,
   so a token from another browser or an older session does not work), and
2. if it sends ``Origin`` (browsers always do on such requests), come from this app's own host.

Otherwise → ``403 {"error": {"code": "csrf_failed"}}``. Cookies are ``HttpOnly``,
``SameSite=Lax`` (and ``Secure`` over HTTPS). The WebSocket checks ``Origin`` the same way.
The operator REST API (``/api``) uses a bearer token, not cookies, so it needs none of this.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import msgspec
from litestar import Request, Response, post
from litestar.connection import ASGIConnection
from litestar.di import NamedDependency
from litestar.handlers.base import BaseRouteHandler

from adapters.web.accounts import Accounts, SignInLimited
from adapters.web.api import decode_body
from adapters.web.errors import error_body
from adapters.web.session import COOKIE, BrowserSession
from adapters.web.state import WebState
from engine.errors import ConfigError, Forbidden, Unauthorized
from engine.validate import qualify_id

__all__ = [
    "AUTH_ROUTES",
    "CSRF_HEADER",
    "accounts_of",
    "csrf_guard",
    "current_session",
    "origin_ok",
    "owned_chat",
    "provide_visitor",
    "require_user",
    "set_session_cookie",
]

CSRF_HEADER = "x-csrf-token"
GUEST_COOKIE_AGE = 365 * 24 * 3600
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def origin_ok(origin: str | None, host: str | None) -> bool:
    """Whether a request's ``Origin`` (when it sent one) names the host it was sent to."""
    if origin is None:
        return True
    if not host or origin == "null":
        return False
    return urlsplit(origin).netloc.lower() == host.lower()


async def current_session(state: WebState, cookie: str | None) -> BrowserSession | None:
    """The browser's session: a valid signature, not expired, and (signed in) still current."""
    session = state.signer.load(cookie)
    if session is None or session.guest:
        return session
    accounts = state.accounts
    if accounts is None or not await accounts.is_current(session):
        return None
    return session


def csrf_guard(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Refuse state-changing browser requests without the session's CSRF token or from elsewhere."""
    if connection.scope.get("method", "GET") not in _UNSAFE:
        return
    state: WebState = connection.app.state.web
    if not origin_ok(connection.headers.get("origin"), connection.headers.get("host")):
        raise Forbidden("This request came from another site.", code="csrf_failed")
    if not state.signer.check_csrf(connection.cookies.get(COOKIE), connection.headers.get(CSRF_HEADER)):
        raise Forbidden("The request lacks this session's CSRF token (reload the page).", code="csrf_failed")


async def provide_visitor(request: Request[Any, Any, Any]) -> BrowserSession:
    """The browser's session (guest or user), or 401 ``session_required``."""
    session = await current_session(request.app.state.web, request.cookies.get(COOKIE))
    if session is None:
        raise Unauthorized(
            "Open the chat page first: this browser has no valid session.", code="session_required"
        )
    return session


def require_user(visitor: NamedDependency[BrowserSession]) -> None:
    """403 ``sign_in_required`` for guests (nothing is remembered for them, MEM-8)."""
    if visitor.guest:
        raise Forbidden("Sign in to keep memories and lorebooks.", code="sign_in_required")


def owned_chat(visitor: NamedDependency[BrowserSession], chat: str) -> str:
    """The qualified chat id if it is one of the visitor's chats, else 403 ``not_your_chat``."""
    chat_id = qualify_id(chat, what="chat")
    if not visitor.owns(chat_id):
        raise Forbidden("This is not your chat.", code="not_your_chat")
    return chat_id


def accounts_of(state: WebState) -> Accounts:
    """The account service, or a config error when the deployment has none."""
    if state.accounts is None:
        raise ConfigError("Accounts are not configured in this deployment.", code="accounts_unavailable")
    return state.accounts


def set_session_cookie(
    response: Response[Any], request: Request[Any, Any, Any], value: str, age: int
) -> None:
    """Set the session cookie: HttpOnly, SameSite=Lax, Secure over HTTPS (seen through trusted proxies)."""
    secure = request.app.state.web.is_https(request)
    response.set_cookie(COOKIE, value, max_age=age, httponly=True, samesite="lax", secure=secure)


class Credentials(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/signup`` and ``POST /app/signin``."""

    username: str
    password: str


class SignOut(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/signout``."""

    everywhere: bool = False


def _ip(request: Request[Any, Any, Any]) -> str:
    return str(request.app.state.web.client_ip(request))


def _limited(exc: SignInLimited) -> Response[Any]:
    body = error_body(exc.code, exc.message, retry_after=exc.retry_after)
    return Response(body, status_code=429, headers={"Retry-After": str(max(exc.retry_after, 1))})


async def _signed_in(
    request: Request[Any, Any, Any], state: WebState, account: Any, status: int
) -> Response[Any]:
    accounts = accounts_of(state)
    session = accounts.session(state.signer, account, now=state.clock.now().timestamp())
    response: Response[Any] = Response(
        {"user": session.user, "username": account.username, "guest": False}, status_code=status
    )
    set_session_cookie(response, request, state.signer.dump(session), accounts.policy.session_days * 86_400)
    return response


@post("/signup", status_code=201)
async def sign_up(request: Request[Any, Any, Any]) -> Response[Any]:
    """Create an account and sign this browser in."""
    state: WebState = request.app.state.web
    body: Credentials = decode_body(await request.body(), Credentials)
    try:
        account = await accounts_of(state).sign_up(
            body.username, body.password, ip=_ip(request), now=state.clock.now()
        )
    except SignInLimited as exc:
        return _limited(exc)
    return await _signed_in(request, state, account, 201)


@post("/signin", status_code=200)
async def sign_in(request: Request[Any, Any, Any]) -> Response[Any]:
    """Check the password (rate-limited per username and IP) and sign this browser in."""
    state: WebState = request.app.state.web
    body: Credentials = decode_body(await request.body(), Credentials)
    try:
        account = await accounts_of(state).sign_in(body.username, body.password, ip=_ip(request))
    except SignInLimited as exc:
        return _limited(exc)
    return await _signed_in(request, state, account, 200)


@post("/signout", status_code=200)
async def sign_out(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession]
) -> Response[Any]:
    """Sign out: this cookie is revoked on the server and the browser becomes a fresh guest;
    ``everywhere`` invalidates every session of the account."""
    state: WebState = request.app.state.web
    raw = await request.body()
    body: SignOut = decode_body(raw, SignOut) if raw.strip() else SignOut()
    if not visitor.guest:
        accounts = accounts_of(state)
        await accounts.sign_out(visitor, now=state.clock.now().timestamp())
        if body.everywhere:
            await accounts.sign_out_everywhere(visitor.slug)
    guest = state.signer.new()
    response: Response[Any] = Response({"user": guest.user, "guest": True})
    set_session_cookie(response, request, state.signer.dump(guest), GUEST_COOKIE_AGE)
    return response


@post("/link-code", status_code=201)
async def link_code(
    request: Request[Any, Any, Any], visitor: NamedDependency[BrowserSession]
) -> dict[str, Any]:
    """A single-use code to type as ``/link <code>`` in Telegram, linking that identity to this user."""
    require_user(visitor)
    accounts = accounts_of(request.app.state.web)
    code = await accounts.link_code(visitor.user)
    return {"code": code, "command": f"/link {code}", "expires_in": accounts.policy.link_ttl}


AUTH_ROUTES = [sign_up, sign_in, sign_out, link_code]
