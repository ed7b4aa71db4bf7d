"""EPI-10: the dream pass, pure part."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import msgspec

from engine.archive import ArchivePolicy, Page, restore_page
from engine.archive.dream import DreamPolicy, apply_dream, dream_prompt, is_idle, parse_dream, plan_dream

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
OLD = NOW - timedelta(days=200)
POLICY = ArchivePolicy()


def page(pid: str, body: str, *, created: datetime = OLD, **fields: object) -> Page:
    return Page(
        id=pid,
        chat="web:c",
        created_at=created,
        abstract=f"about {pid}",
        summary=body.split(".")[0],
        body=body,
        keep=(f"/srv/{pid}.log",),
        **fields,
    )  # type: ignore[arg-type]


PAGES = (
    page("a", "We fixed the deploy. The error was E1234 in /srv/app.py after the upgrade to v2."),
    page("b", "Deploy fixed again: E1234 came back in /srv/app.py, rolled back to v1 then forward."),
    page("c", "A trip to Lisbon was planned for May with Ana and Bo, trains booked."),
    page("d", "Lisbon in May: Ana booked trains, Bo found a flat near Alfama."),
    page("e", "Pinned notes about Lisbon.", pinned=True),
    page("f", "Fresh notes about the deploy.", created=NOW),
)


def test_epi_10_clusters_of_cold_pages_most_novel_first_and_bounded() -> None:
    clusters = [("a", "b", "f"), ("c", "d", "e")]
    novelty = {"a": 0.2, "b": 0.2, "c": 0.7, "d": 0.5}
    plan = plan_dream(PAGES, clusters, novelty, NOW, POLICY, DreamPolicy(enabled=True))
    assert [c.pages for c in plan] == [("c", "d"), ("a", "b")]  # pinned and fresh pages stay out
    assert plan_dream(PAGES, clusters, novelty, NOW, POLICY, DreamPolicy(max_clusters_per_run=1))[
        0
    ].pages == ("c", "d")


def test_epi_10_valid_output_rewrites_the_survivor_and_stubs_point_to_it() -> None:
    cluster = plan_dream(PAGES, [("c", "d")], {}, NOW, POLICY, DreamPolicy(enabled=True))[0]
    output = parse_dream(
        '{"abstract": "Lisbon trip in May", "summary": "Ana and Bo planned Lisbon.",'
        ' "body": "In May Ana and Bo go to Lisbon by train and stay near Alfama.",'
        ' "evidence": [{"page": "c", "line": "trains booked"}, {"page": "d", "line": "flat near Alfama"}]}',
        cluster,
    )
    assert not isinstance(output, str)
    survivor, stub = apply_dream(PAGES, cluster, output, NOW)
    assert survivor.id == cluster.survivor and survivor.version == 2 and survivor.version_reason == "dream"
    assert "Evidence:" in survivor.body and "from d: flat near Alfama" in survivor.body
    assert set(survivor.keep) >= {"/srv/c.log", "/srv/d.log"}
    assert stub.status == "superseded" and stub.superseded_by == survivor.id
    original = next(p for p in PAGES if p.id == survivor.id)
    assert restore_page(survivor, 1, NOW).body == original.body  # EPI-11: nothing is lost


def test_epi_10_schema_invalid_output_is_rejected_with_a_reason() -> None:
    cluster = plan_dream(PAGES, [("c", "d")], {}, NOW, POLICY, DreamPolicy(enabled=True))[0]
    assert "invalid JSON" in str(parse_dream('{"abstract": "x"}', cluster))
    assert "invalid JSON" in str(parse_dream("not json at all", cluster))
    stray = '{"abstract": "x", "summary": "y", "body": "z", "evidence": [{"page": "zz", "line": "?"}]}'
    assert "outside the cluster" in str(parse_dream(stray, cluster))


def test_epi_10_idle_trigger_and_the_prompt() -> None:
    policy = DreamPolicy(idle_window_secs=300)
    assert is_idle(None, NOW, policy) and is_idle(NOW - timedelta(seconds=300), NOW, policy)
    assert not is_idle(NOW - timedelta(seconds=10), NOW, policy)
    prompt = dream_prompt(PAGES[:2])
    assert "[page a]" in prompt.messages[1].text and "JSON" in prompt.messages[0].text
    assert msgspec.structs.asdict(DreamPolicy())["enabled"] is False  # opt-in
