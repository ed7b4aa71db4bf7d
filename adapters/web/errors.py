"""One table from Hearth's errors to HTTP statuses, and the ``{"error": {...}}`` body (API.md)."""

from __future__ import annotations

import logging
import re
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from engine.errors import (
    ConfigError,
    Conflict,
    Forbidden,
    HearthError,
    InvalidInput,
    LLMUnavailable,
    NotFound,
    StorageUnavailable,
    Unauthorized,
)

__all__ = [
    "STATUS",
    "Refused",
    "error_body",
    "handle_domain_error",
    "handle_http_error",
    "handle_refused",
    "handle_unexpected_error",
    "status_of",
]

log = logging.getLogger("hearth.web")

STATUS: tuple[tuple[type[HearthError], int], ...] = (
    (InvalidInput, 422),
    (NotFound, 404),
    (Conflict, 409),
    (Unauthorized, 401),
    (Forbidden, 403),
    (ConfigError, 500),
    (LLMUnavailable, 502),
    (StorageUnavailable, 503),
)
_STATUS_BY_CODE = {
    "invalid_json": 400,
    "file_too_large": 413,
    "image_too_large": 413,
    "image_type": 415,
    "ingest_busy": 429,
}


def status_of(exc: HearthError) -> int:
    """The HTTP status of a domain error."""
    if exc.code in _STATUS_BY_CODE:
        return _STATUS_BY_CODE[exc.code]
    for kind, status in STATUS:
        if isinstance(exc, kind):
            return status
    return 500


def error_body(code: str, message: str, **extra: object) -> dict[str, object]:
    """The API's error body."""
    return {"error": {"code": code, "message": message, **extra}}


class Refused(Exception):
    """An answer in the API's error shape with its own status, extra fields and headers.

    For answers no domain error maps to: a turn the model failed (502 with its ``turn``), too
    many sign-in attempts (429 with ``Retry-After``).
    """

    def __init__(
        self, status: int, code: str, message: str, *, headers: dict[str, str] | None = None, **extra: object
    ) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}
        self.extra = extra


def handle_refused(_: Request[Any, Any, Any], exc: Refused) -> Response[dict[str, object]]:
    """Render a refusal."""
    return Response(
        error_body(exc.code, exc.message, **exc.extra), status_code=exc.status, headers=exc.headers
    )


def _no_body(exc: ValidationException) -> bool:
    """Whether Litestar refused a request for lack of the ``data`` its handler needs."""
    extra = exc.extra if isinstance(exc.extra, list) else []
    return any(isinstance(e, dict) and e.get("key") == "data" and e.get("source") == "body" for e in extra)


def handle_domain_error(_: Request[Any, Any, Any], exc: HearthError) -> Response[dict[str, object]]:
    """Render a domain error."""
    status = status_of(exc)
    if status >= 500:
        log.error("request failed: %s: %s", exc.code, exc.message)
    return Response(error_body(exc.code, exc.message), status_code=status)


def _snake(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "error"


def handle_http_error(_: Request[Any, Any, Any], exc: HTTPException) -> Response[dict[str, object]]:
    """Render Litestar's own errors (unknown route, bad body, too large) in the API's shape."""
    if isinstance(exc, ValidationException):
        detail = str(exc.detail)
        if _no_body(exc):  # an empty body is no JSON at all (bodies are decoded by adapters.web.body)
            return Response(
                error_body("invalid_json", "The body is not valid JSON (UTF-8)."), status_code=400
            )
        if "malformed" in detail.lower() or ("json" in detail.lower() and "decode" in detail.lower()):
            return Response(error_body("invalid_json", "The body is not valid JSON."), status_code=400)
        extra = exc.extra if isinstance(exc.extra, list) else []
        message = "; ".join(str(e.get("message", e)) for e in extra if isinstance(e, dict)) or detail
        return Response(error_body("invalid_body", message), status_code=422)
    status = exc.status_code
    codes = {404: "not_found", 405: "method_not_allowed", 413: "body_too_large", 401: "unauthorized"}
    return Response(
        error_body(codes.get(status, _snake(str(exc.detail))), str(exc.detail)), status_code=status
    )


def handle_unexpected_error(request: Request[Any, Any, Any], exc: Exception) -> Response[dict[str, object]]:
    """Any other exception: logged with its traceback, answered 500 ``internal_error`` (API.md shape).

    More specific handlers registered on the app (domain errors, Litestar's own, Redis errors →
    503 ``storage_unavailable``) win over this one: Litestar picks the closest class in the MRO.
    """
    method = request.scope.get("method", "WEBSOCKET")
    log.error("request failed: %s %s", method, request.scope.get("path", "?"), exc_info=exc)
    return Response(
        error_body("internal_error", "Something broke on our side; it was logged. Try again later."),
        status_code=500,
    )
