"""The dream pass in-process on a real Redis (EPI-10, EPI-11): merges, rejections, stops, skips."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta

import pytest
import redis.asyncio as aioredis

from adapters.embedding import HashEmbedder
from adapters.recall.archive import PageRecall
from adapters.vector import BruteForceVectorIndex
from adapters.worker.jobs import ArchiveSweeper, dream_runner
from config.archive import dream_policy
from engine.archive import ArchivePolicy, Page, new_page, page_text
from engine.archive.dream import DreamPolicy
from engine.errors import ConfigError
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.service.archive import ArchiveDesk, ArchiveSettings
from engine.service.dream import DreamRunner, novelty_of
from engine.tools import ToolSpec
from storage.keys import KeyBuilder
from storage.redis_archive import DREAM_REPORTS_KEPT, RedisArchiveStore
from tests.fakes.ports import FixedClock
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

NOW = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
OLD = NOW - timedelta(days=200)  # e^(-0.02·200) ≈ 0.02: cold
CHAT = "web:den"
DEPLOY = (
    "Ana: The deploy failed with ECONNREFUSED on https://api.example.com/v2/health this morning. "
    "The fix went into /srv/hearth/deploy.toml.",
    "Ana: The deploy failed again with ECONNREFUSED on https://api.example.com/v2/health. "
    "The fix went into /srv/hearth/deploy.toml.",
)
GARDEN = (
    "Ana: Tomatoes need more sun this year, so we move the basil next to the kitchen window on Sunday.",
    "Ana: Tomatoes need more sun this year; we move the basil next to the kitchen window on Sunday.",
)
TRIP = "Ana: My sister flies to Lisbon on the 14th of June and stays for two weeks at the old hotel."
_PAGE = re.compile(r"^\[page ([^\]]+)\]$", re.MULTILINE)


def merged_json(prompt: Prompt) -> str:
    """A valid dream answer naming the cluster's pages as evidence."""
    ids = _PAGE.findall(prompt.messages[-1].text)
    return json.dumps(
        {
            "abstract": f"Merged {len(ids)} pages",
            "summary": "One coherent page.",
            "body": "The merged story, keeping ECONNREFUSED and /srv/hearth/deploy.toml.",
            "evidence": [{"page": i, "line": "The merged story"} for i in ids],
        }
    )


class PromptedModel:
    """A chat model answering each prompt with ``answer(prompt)``; records the prompts."""

    provider = "scripted"

    def __init__(self, answer: Callable[[Prompt], str], on_call: Callable[[], object] | None = None) -> None:
        self.answer = answer
        self.on_call = on_call
        self.prompts: list[Prompt] = []

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        self.prompts.append(prompt)
        if self.on_call is not None:
            await self.on_call()  # type: ignore[misc]
        yield TextDelta(text=self.answer(prompt))
        yield ModelDone(usage=Usage(input_tokens=10, output_tokens=5))


class OfflineModel(PromptedModel):
    provider = "offline"


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 12) as client:
        yield client


class World:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.clock = FixedClock(NOW)
        self.store = RedisArchiveStore(redis, KeyBuilder(prefix="dr"))
        self.recall = PageRecall(self.store, HashEmbedder(), BruteForceVectorIndex())
        self.desk = ArchiveDesk(
            store=self.store, clock=self.clock, settings=ArchiveSettings(), recall=self.recall
        )

    def runner(self, model: object, *, recall: bool = True, **policy: object) -> DreamRunner:
        return DreamRunner(
            store=self.store,
            recall=self.recall if recall else None,
            model=model,  # type: ignore[arg-type]
            clock=self.clock,
            archive=ArchivePolicy(),
            policy=DreamPolicy(**{"enabled": True, **policy}),  # type: ignore[arg-type]
            default_model="claude-test",
        )

    async def put(self, page: Page) -> None:
        await self.store.change(page.chat, lambda _: ((page,), (), None))

    async def pages(self) -> dict[str, Page]:
        return {p.id: p for p in await self.store.pages(CHAT)}


def page(id: str, body: str, *, at: datetime = OLD, pinned: bool = False) -> Page:
    return new_page(id=id, chat=CHAT, created_at=at, policy=ArchivePolicy(), body=body, pinned=pinned)


@pytest.fixture
async def world(redis: aioredis.Redis) -> World:
    made = World(redis)
    for p in (
        page("d1", DEPLOY[0]),
        page("d2", DEPLOY[1], at=OLD + timedelta(days=1)),
        page("g1", GARDEN[0]),
        page("g2", GARDEN[1], at=OLD + timedelta(days=1)),
        page("pin", DEPLOY[0] + " Pinned.", pinned=True),
        page("trip", TRIP, at=NOW - timedelta(days=1)),  # warm
    ):
        await made.put(p)
    return made


async def test_epi_10_valid_output_merges_each_cluster_into_its_survivor(world: World) -> None:
    before = await world.pages()
    model = PromptedModel(merged_json)
    report = await world.runner(model).run()

    assert report.status == "done" and report.rejected == ()
    assert sorted(report.merged) == [("d2", ("d1", "d2")), ("g2", ("g1", "g2"))]
    after = await world.pages()
    for survivor, stub in (("d2", "d1"), ("g2", "g1")):
        new = after[survivor]
        assert new.version == 2 and new.version_reason == "dream" and new.abstract == "Merged 2 pages"
        assert f"- from {stub}: The merged story" in new.body and "Evidence:" in new.body
        assert new.merged_from == (stub,)
        assert after[stub].status == "superseded" and after[stub].superseded_by == survivor
    assert after["pin"] == before["pin"] and after["trip"] == before["trip"]  # pinned, warm: untouched
    assert all("Pinned." not in p.messages[-1].text for p in model.prompts)
    assert await world.store.dream_reports() == [report]
    vectors = (await world.store.vectors(CHAT)).vectors  # the survivor is found by its new text
    assert vectors["d2"] == (await world.recall.embed([page_text(after["d2"])]))[0]

    restored = await world.desk.restore("d2", 1)  # EPI-11: the earlier text comes back
    assert (restored.abstract, restored.summary, restored.body) == (
        before["d2"].abstract,
        before["d2"].summary,
        before["d2"].body,
    )


async def test_epi_10_schema_invalid_output_is_rejected_recorded_and_changes_nothing(world: World) -> None:
    before = await world.pages()
    answers = iter(['{"abstract": "x", "summary": "y"}', "not json at all"])
    report = await world.runner(PromptedModel(lambda _: next(answers))).run()

    assert report.status == "done" and report.merged == ()
    assert len(report.rejected) == 2
    assert {survivor for survivor, _ in report.rejected} == {"d2", "g2"}
    assert all(reason.startswith("invalid JSON output") for _, reason in report.rejected)
    assert await world.pages() == before
    assert (await world.store.dream_reports())[0] == report


async def test_epi_10_evidence_naming_a_stranger_page_is_rejected(world: World) -> None:
    before = await world.pages()
    stranger = json.dumps(
        {"abstract": "a", "summary": "s", "body": "b", "evidence": [{"page": "pin", "line": "x"}]}
    )
    report = await world.runner(PromptedModel(lambda _: stranger), max_clusters_per_run=1).run()
    assert report.merged == () and "outside the cluster" in report.rejected[0][1]
    assert await world.pages() == before


async def test_epi_10_activity_resuming_stops_the_run_at_the_next_cluster(world: World) -> None:
    async def client_speaks() -> None:  # a message arrives while the LLM writes the first merge
        await world.store.touch_activity(world.clock.now() + timedelta(seconds=1))

    report = await world.runner(PromptedModel(merged_json, on_call=client_speaks)).run()

    assert report.status == "stopped" and "activity resumed" in report.reason
    assert len(report.merged) == 1
    (survivor, members), after = report.merged[0], await world.pages()
    other = ({"d1", "d2", "g1", "g2"} - set(members)) - {survivor}
    assert after[survivor].version == 2
    assert all(after[i].version == 1 and after[i].status == "active" for i in other)


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda w: w.runner(PromptedModel(merged_json), enabled=False), "off (HEARTH_DREAM_ENABLED)"),
        (lambda w: w.runner(OfflineModel(merged_json)), "no LLM"),
        (lambda w: w.runner(None), "no LLM"),
        (lambda w: w.runner(PromptedModel(merged_json), recall=False), "no embedder"),
    ],
)
async def test_epi_10_without_what_it_needs_dream_skips_and_says_so(
    world: World, make: Callable[[World], DreamRunner], reason: str
) -> None:
    before = await world.pages()
    report = await make(world).run()
    assert report.status == "skipped" and reason in report.reason
    assert await world.pages() == before
    assert await world.store.dream_reports() == [report]


async def test_epi_10_recent_client_activity_means_not_idle(world: World) -> None:
    before = await world.pages()
    await world.store.touch_activity(NOW - timedelta(seconds=100))
    await world.store.touch_activity(NOW - timedelta(seconds=500))  # older: ignored
    assert await world.store.last_activity() == NOW - timedelta(seconds=100)
    model = PromptedModel(merged_json)
    report = await world.runner(model, idle_window_secs=300).run()
    assert report.status == "skipped" and report.reason.startswith("not idle")
    assert model.prompts == [] and await world.pages() == before
    world.clock.advance(seconds=250)  # 350 s of quiet: idle now
    assert (await world.runner(model, idle_window_secs=300).run()).status == "done"


async def test_epi_10_max_clusters_and_report_history(world: World) -> None:
    model = PromptedModel(merged_json)
    report = await world.runner(model, max_clusters_per_run=1).run()
    assert len(report.merged) == 1 and len(model.prompts) == 1
    for _ in range(DREAM_REPORTS_KEPT + 2):
        await world.runner(None).run()
    reports = await world.store.dream_reports()
    assert len(reports) == DREAM_REPORTS_KEPT and reports[0].status == "skipped"


def test_epi_10_novelty_is_one_minus_the_nearest_page_outside_the_cluster() -> None:
    def vec(*values: float) -> bytes:
        return struct.pack(f"<{len(values)}f", *values)

    vectors = {"a": vec(1, 0), "b": vec(1, 0), "c": vec(0, 1), "far": vec(0, 1)}
    assert novelty_of([("a", "b")], vectors) == {"a": 1.0, "b": 1.0}
    near = {**vectors, "c": vec(1, 1)}
    assert novelty_of([("a", "b")], near)["a"] == pytest.approx(1 - 2**-0.5, abs=1e-6)
    assert novelty_of([("c", "far")], {"c": vec(0, 1), "far": vec(0, 1)}) == {"c": 1.0, "far": 1.0}


async def test_epi_10_the_archive_pass_dreams_and_its_sweep_keeps_the_merged_page(world: World) -> None:
    """The dream runs before the sweep, and the sweep of the same pass spares what it merged
    (issue 29: it was evicted at once)."""
    desk = world.desk
    policy = dream_policy({"HEARTH_DREAM_ENABLED": "true", "HEARTH_DREAM_IDLE_SECS": "0"})
    runner = dream_runner(desk, PromptedModel(merged_json), "claude-test", policy)  # type: ignore[arg-type]
    assert await ArchiveSweeper(desk, dream=runner).run_once()
    after = await world.pages()
    assert after["d2"].status == "active" and after["d2"].version_reason == "dream"
    assert after["d2"].evicted_at is None
    assert after["d1"].status == "superseded" and after["d1"].superseded_by == "d2"
    assert (await world.store.dream_reports())[0].status == "done"


def test_epi_10_dream_settings_come_from_env_and_are_off_by_default() -> None:
    assert dream_policy({}) == DreamPolicy()
    assert not DreamPolicy().enabled
    got = dream_policy(
        {
            "HEARTH_DREAM_ENABLED": "yes",
            "HEARTH_DREAM_IDLE_SECS": "0",
            "HEARTH_DREAM_MAX_CLUSTERS": "3",
            "HEARTH_DREAM_SIMILARITY": "0.9",
        }
    )
    assert got == DreamPolicy(enabled=True, idle_window_secs=0, max_clusters_per_run=3, similarity=0.9)
    for name, value in (
        ("HEARTH_DREAM_ENABLED", "maybe"),
        ("HEARTH_DREAM_IDLE_SECS", "-1"),
        ("HEARTH_DREAM_MAX_CLUSTERS", "0"),
        ("HEARTH_DREAM_SIMILARITY", "1.5"),
    ):
        with pytest.raises(ConfigError) as bad:
            dream_policy({name: value})
        assert bad.value.code == "invalid_setting" and name in bad.value.message
