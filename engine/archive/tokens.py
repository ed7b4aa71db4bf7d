"""Keep-worthy tokens: what compaction and merging must never drop (EPI-5, EPI-6).

Kinds, found in this order; each match is masked before later kinds run, so a code snippet is
kept whole and a URL is not also read as a path:

- ``code``: fenced blocks (```...```) and inline spans in backticks, kept whole;
- ``url``: ``http(s)://``, ``ftp://`` and ``www.`` addresses, trailing punctuation trimmed;
- ``uuid``: 8-4-4-4-12 hex;
- ``path``: ``/abs/path``, ``./rel``, ``~/x``, ``C:\\dir\\file``, ``a/b.ext``, ``a/b/c`` and bare
  file names with a common extension (``settings.toml``); a path needs a letter, so dates and
  fractions (``12/05/2026``, ``24/7``) and ``and/or`` are not paths;
- ``error``: ``E1234``/``TS2345``-style codes, ``HTTP 404``, ``ERR_X``, ``0x8007...`` and errno
  names (``ENOENT``);
- ``hash``: 7-64 hex digits with at least one digit and one letter;
- ``identifier``: ``snake_case``, ``SCREAMING_CASE``, ``camelCase`` and ``CamelCase`` (two humps).

Every pattern starts at a word boundary (a look-behind), so scanning stays linear in practice.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

import msgspec

__all__ = ["KEEP_KINDS", "KeepKind", "KeepToken", "keep_worthy", "keep_worthy_tokens", "merge_keep"]

KeepKind = Literal["code", "url", "uuid", "path", "error", "hash", "identifier"]

_EXT = (
    "py|pyi|ipynb|js|mjs|cjs|ts|tsx|jsx|json|jsonl|toml|yaml|yml|ini|cfg|conf|env|md|rst|txt|log|csv|"
    "tsv|html|htm|css|scss|xml|svg|png|jpg|jpeg|gif|webp|pdf|rs|go|java|kt|kts|swift|c|h|cc|cpp|hpp|"
    "cs|rb|php|lua|sh|bash|zsh|ps1|bat|sql|db|sqlite|lock|gradle|dockerfile|tf|proto|wasm|zip|tar|gz"
)
_ERRNO = (
    "ENOENT|EACCES|EPERM|EEXIST|ENOTDIR|EISDIR|EINVAL|ENOMEM|ENOSPC|EPIPE|EAGAIN|EBADF|EBUSY|"
    "ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EADDRINUSE|EADDRNOTAVAIL|EHOSTUNREACH|"
    "ENETUNREACH|EMFILE|ENFILE|EROFS|ENOTEMPTY|EXDEV|ENOTFOUND|EPROTO"
)
_START = r"(?<![\w./\\~:-])"
_SEG = r"[\w.\-+@]+"

_WINDOWS_PATH = r"(?<![\w\\])[A-Za-z]:\\(?:[^\\\s:*?\"<>|]+\\)*[^\\\s:*?\"<>|]+"
_PASCAL = r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z]{2,}(?=[A-Z][a-z])(?:[A-Z][a-z0-9]{2,})+\b"

_PATTERNS: tuple[tuple[KeepKind, re.Pattern[str]], ...] = (
    ("code", re.compile(r"```[^\n]*\n.*?```|```.*?```", re.DOTALL)),
    ("code", re.compile(r"`[^`\n]+`")),
    ("url", re.compile(r"(?<![\w@])(?:(?:https?|ftp)://|www\.)[^\s<>\"'`]+", re.IGNORECASE)),
    (
        "uuid",
        re.compile(r"(?<![\w-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![\w-])", re.I),
    ),
    ("error", re.compile(r"(?<![\w/])HTTP(?:/\d(?:\.\d)?)?\s+[1-5]\d\d\b")),
    ("path", re.compile(_WINDOWS_PATH)),
    ("path", re.compile(rf"{_START}(?:~|\.{{1,2}})?(?:/{_SEG})+/?")),
    ("path", re.compile(rf"{_START}{_SEG}(?:/{_SEG})+/?")),
    ("path", re.compile(rf"{_START}[\w\-]+(?:\.[\w\-]+)*\.(?:{_EXT})(?!\w|\.\w)", re.IGNORECASE)),
    (
        "error",
        re.compile(
            rf"\b(?:{_ERRNO})\b|\bERR_[A-Z0-9_]+\b|\b0x[0-9A-Fa-f]{{4,16}}\b|\b[A-Z]{{1,4}}\d{{3,5}}\b"
        ),
    ),
    ("hash", re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b", re.IGNORECASE)),
    (
        "identifier",
        re.compile(
            r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b|\b_{1,2}[A-Za-z][A-Za-z0-9_]*\b"
            rf"|\b[a-z]+(?:[A-Z][a-z0-9]*)+\b|{_PASCAL}"
        ),
    ),
)
KEEP_KINDS: tuple[KeepKind, ...] = ("code", "url", "uuid", "path", "error", "hash", "identifier")
_TRAILING = ".,;:!?)]}'\""


class KeepToken(msgspec.Struct, frozen=True, kw_only=True):
    """One keep-worthy token with its kind and where it starts in the text."""

    kind: KeepKind
    text: str
    start: int


def keep_worthy_tokens(text: str) -> tuple[KeepToken, ...]:
    """Every keep-worthy token of ``text``, in order of appearance.

    Args:
        text: any page text (abstract, summary, body).

    Returns:
        The tokens, each with its kind; repeated tokens appear once (the first time).
    """
    masked = text
    found: list[KeepToken] = []
    for kind, pattern in _PATTERNS:
        spans: list[tuple[int, int]] = []
        for match in pattern.finditer(masked):
            token = _trimmed(kind, match.group())
            if token and _accepted(kind, token):
                found.append(KeepToken(kind=kind, text=token, start=match.start()))
                spans.append((match.start(), match.start() + len(token)))
        masked = _masked(masked, spans)
    seen: set[str] = set()
    unique: list[KeepToken] = []
    for kept in sorted(found, key=lambda t: t.start):
        if kept.text not in seen:
            seen.add(kept.text)
            unique.append(kept)
    return tuple(unique)


def keep_worthy(text: str) -> tuple[str, ...]:
    """The keep-worthy tokens of ``text`` (see the module docstring), in order, without repeats."""
    return tuple(token.text for token in keep_worthy_tokens(text))


def merge_keep(*groups: Iterable[str]) -> tuple[str, ...]:
    """Concatenate token groups in order, dropping repeats (absorbing others' tokens, EPI-6)."""
    return tuple(dict.fromkeys(token for group in groups for token in group))


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    parts: list[str] = []
    done = 0
    for start, end in spans:
        parts.extend((text[done:start], " " * (end - start)))
        done = end
    parts.append(text[done:])
    return "".join(parts)


def _trimmed(kind: KeepKind, token: str) -> str:
    if kind not in ("url", "path"):
        return token
    while token and token[-1] in _TRAILING:
        if token[-1] == ")" and token.count("(") >= token.count(")"):
            break
        token = token[:-1]
    return token


def _accepted(kind: KeepKind, token: str) -> bool:
    if kind == "path":
        return _is_path(token)
    if kind == "url":
        return len(token) > len("www.")
    return True


def _is_path(token: str) -> bool:
    if not any(ch.isalpha() for ch in token):
        return False
    if token.startswith(("/", "~", ".")) or ":\\" in token:
        return len(token.strip("/.~")) > 0
    if "/" not in token:
        return True
    last = token.rstrip("/").rsplit("/", 1)[-1]
    return token.count("/") >= 2 or ("." in last.strip("."))
