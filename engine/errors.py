"""Hearth's exception tree (STYLE E1, E2).

HearthError
 ├── LocalError              our fault or the caller's: bad input, bad config
 │    ├── InvalidInput       a request or file that cannot be accepted (``code`` names the problem)
 │    ├── NotFound           an id that names nothing (persona, chat, turn, book, memory)
 │    ├── Conflict           a valid request that the current state refuses (``code`` says why)
 │    ├── Unauthorized       no or wrong credentials (admin token, session)
 │    ├── Forbidden          valid credentials that may not do this
 │    ├── ConfigError        a setting or persona file that is wrong
 │    └── BudgetError        something that cannot fit its token budget
 └── UpstreamError           a service we depend on failed
      ├── LLMUnavailable     the model provider failed (after retries)
      │    └── LLMRateLimited    429/529 with ``retry_after`` seconds when known
      └── StorageUnavailable Redis failed

Every error carries a snake_case ``code`` and a human ``message``; the web adapter maps the
class to an HTTP status in one table and renders ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations

__all__ = [
    "BudgetError",
    "ConfigError",
    "Conflict",
    "Forbidden",
    "HearthError",
    "InvalidInput",
    "LLMRateLimited",
    "LLMUnavailable",
    "LocalError",
    "LockLost",
    "NotFound",
    "PersonaBotError",
    "StorageUnavailable",
    "Unauthorized",
    "UpstreamError",
]


class HearthError(Exception):
    """Root of every error Hearth raises on purpose."""

    default_code = "error"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code


PersonaBotError = HearthError
"""The root's former name, kept so code written against it still imports."""


class LocalError(HearthError):
    """The request, the file or the configuration is at fault."""


class InvalidInput(LocalError):
    """Input that cannot be accepted; ``code`` names the problem (e.g. ``text_too_long``)."""

    default_code = "invalid_input"


class NotFound(LocalError):
    """An id that names nothing."""

    default_code = "not_found"


class Conflict(LocalError):
    """A valid request that the current state refuses (e.g. ``memory_full``)."""

    default_code = "conflict"


class LockLost(Conflict):
    """The chat's lock passed to another holder before this turn committed; nothing was stored.

    The message stays pending: the holder that took over answers it.
    """

    default_code = "lock_lost"


class Unauthorized(LocalError):
    """No credentials, or wrong ones."""

    default_code = "unauthorized"


class Forbidden(LocalError):
    """Credentials that may not do this (e.g. another user's memories)."""

    default_code = "forbidden"


class ConfigError(LocalError):
    """A setting or persona file that is wrong; the message names the key or file."""

    default_code = "config_error"


class BudgetError(LocalError):
    """Something that cannot fit into its token budget."""

    default_code = "over_budget"


class UpstreamError(HearthError):
    """A service Hearth depends on failed."""

    default_code = "upstream_error"


class LLMUnavailable(UpstreamError):
    """The model provider did not answer (after the retries the adapter makes)."""

    default_code = "llm_unavailable"

    def __init__(self, message: str, *, code: str | None = None, status: int | None = None) -> None:
        super().__init__(message, code=code)
        self.status = status


class LLMRateLimited(LLMUnavailable):
    """The provider is overloaded or rate-limits us; ``retry_after`` in seconds when known."""

    default_code = "llm_rate_limited"

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message, code=code, status=status)
        self.retry_after = retry_after


class StorageUnavailable(UpstreamError):
    """Redis could not be reached or refused the command."""

    default_code = "storage_unavailable"
