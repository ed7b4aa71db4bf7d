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

from litestar import Request, Response, post
from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.params import JSONBody

from adapters.web.accounts import Accounts, SignInLimited
from adapters.web.errors import error_body
from adapters.web.params import AccountService, Visitor, Web
from adapters.web.schemas.auth import Credentials, LinkCode, SignedIn, SignedOut, SignOut
from adapters.web.session import COOKIE, BrowserSession, owned_chat, require_user
from adapters.web.sockets import EVERY_SESSION
from adapters.web.state import WebState
from engine.errors import ConfigError, Forbidden, Unauthorized
from engine.ports.accounts import Account

__all__ = [
    "AUTH_ROUTES",
    "CSRF_HEADER",
    "accounts_of",
    "csrf_guard",
    "current_session",
    "handle_sign_in_limited",
    "origin_ok",
    "owned_chat",
    "provide_accounts",
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


async def csrf_guard(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """Refuse state-changing browser requests without the session's CSRF token or from elsewhere.
    (``async``: Litestar runs a plain function guard in its thread pool, a hop per request.)"""
    if connection.scope.get("method", "GET") not in _UNSAFE:
        return
    state: WebState = connection.app.state.web
    if not origin_ok(connection.headers.get("origin"), connection.headers.get("host")):
        raise Forbidden("This request came from another site.", code="csrf_failed")
    if not state.signer.check_csrf(connection.cookies.get(COOKIE), connection.headers.get(CSRF_HEADER)):
        raise Forbidden("The request lacks this session's CSRF token (reload the page).", code="csrf_failed")


async def provide_visitor(request: Request[Any, Any, Any]) -> BrowserSession:
    """The ``visitor`` dependency: the browser's session (guest or user), or 401 ``session_required``.

    It reads the state itself: the ``/app`` router provides it to route groups that bring their
    own ``web`` dependency.
    """
    state: WebState = request.app.state.web
    session = await current_session(state, request.cookies.get(COOKIE))
    if session is None:
        raise Unauthorized(
            "Open the chat page first: this browser has no valid session.", code="session_required"
        )
    return session


def accounts_of(state: WebState) -> Accounts:
    """The account service, or a config error when the deployment has none."""
    if state.accounts is None:
        raise ConfigError("Accounts are not configured in this deployment.", code="accounts_unavailable")
    return state.accounts


def provide_accounts(web: Web) -> Accounts:
    """The ``accounts`` dependency (500 ``accounts_unavailable`` in a deployment without them)."""
    return accounts_of(web)


def set_session_cookie(
    response: Response[Any], web: WebState, request: Request[Any, Any, Any], value: str, age: int
) -> None:
    """Set the session cookie: HttpOnly, SameSite=Lax, Secure over HTTPS (seen through trusted proxies)."""
    secure = web.is_https(request)
    response.set_cookie(COOKIE, value, max_age=age, httponly=True, samesite="lax", secure=secure)


def handle_sign_in_limited(_: Request[Any, Any, Any], exc: SignInLimited) -> Response[dict[str, object]]:
    """429 with ``retry_after`` in the error and a ``Retry-After`` header."""
    body = error_body(exc.code, exc.message, retry_after=exc.retry_after)
    return Response(body, status_code=429, headers={"Retry-After": str(max(exc.retry_after, 1))})


def _signed_in(
    request: Request[Any, Any, Any], web: WebState, accounts: Accounts, account: Account, status: int
) -> Response[SignedIn]:
    session = accounts.session(web.signer, account, now=web.clock.now().timestamp())
    response = Response(SignedIn(user=session.user, username=account.username), status_code=status)
    set_session_cookie(
        response, web, request, web.signer.dump(session), accounts.policy.session_days * 86_400
    )
    return response


@post("/signup", status_code=201)
async def sign_up(
    request: Request[Any, Any, Any], web: Web, accounts: AccountService, data: JSONBody[Credentials]
) -> Response[SignedIn]:
    """Create an account and sign this browser in."""
    ip = web.client_ip(request)
    account = await accounts.sign_up(data.username, data.password, ip=ip, now=web.clock.now())
    return _signed_in(request, web, accounts, account, 201)


@post("/signin", status_code=200)
async def sign_in(
    request: Request[Any, Any, Any], web: Web, accounts: AccountService, data: JSONBody[Credentials]
) -> Response[SignedIn]:
    """Check the password (rate-limited per username and IP) and sign this browser in."""
    account = await accounts.sign_in(data.username, data.password, ip=web.client_ip(request))
    return _signed_in(request, web, accounts, account, 200)


@post("/signout", status_code=200)
async def sign_out(
    request: Request[Any, Any, Any], web: Web, visitor: Visitor, data: JSONBody[SignOut | None] = None
) -> Response[SignedOut]:
    """Sign out: this cookie is revoked on the server and the browser becomes a fresh guest;
    ``everywhere`` invalidates every session of the account. The chat sockets of the signed-out
    sessions are closed (code 4401) on every web process."""
    if not visitor.guest:
        accounts = accounts_of(web)
        await accounts.sign_out(visitor, now=web.clock.now().timestamp())
        everywhere = data is not None and data.everywhere
        if everywhere:
            await accounts.sign_out_everywhere(visitor.slug)
        # this process's sockets at once; the other processes' through the sign-out feed
        await web.sockets.close(visitor.slug, EVERY_SESSION if everywhere else visitor.sid)
    guest = web.signer.new()
    response = Response(SignedOut(user=guest.user))
    set_session_cookie(response, web, request, web.signer.dump(guest), GUEST_COOKIE_AGE)
    return response


@post("/link-code", status_code=201)
async def link_code(visitor: Visitor, accounts: AccountService) -> LinkCode:
    """A single-use code to type as ``/link <code>`` in Telegram, linking that identity to this user."""
    require_user(visitor)
    code = await accounts.link_code(visitor.user)
    return LinkCode(code=code, command=f"/link {code}", expires_in=accounts.policy.link_ttl)


AUTH_ROUTES = [sign_up, sign_in, sign_out, link_code]
