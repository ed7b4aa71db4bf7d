"""``DreamRunner`` on the in-memory fakes (EPI-10): what a dream merges, and when it must not run."""

from __future__ import annotations

import json
import re
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta

import pytest

from engine.archive import ArchivePolicy, Page, new_page, rewrite_page
from engine.archive.dream import DreamPolicy
from engine.model import ModelSettings
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.service.dream import DreamRunner
from engine.tools import ToolSpec
from tests.fakes.ports import FixedClock
from tests.fakes.stores import InMemoryArchiveStore, InMemoryData

NOW = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
OLD = NOW - timedelta(days=200)  # cold
CHAT = "web:den"
_PAGE = re.compile(r"^\[page ([^\]]+)\]$", re.MULTILINE)


class FirstWordRecall:
    """Page "embeddings" for tests: pages are near-duplicates when their bodies start alike."""

    model = "first-word"

    def __init__(self, store: InMemoryArchiveStore) -> None:
        self._store = store

    async def embed(self, texts: Sequence[str]) -> list[bytes]:
        return [struct.pack("<2f", float(len(t)), 1.0) for t in texts]

    async def clusters(self, chat: str, ids: Sequence[str], threshold: float) -> tuple[tuple[str, ...], ...]:
        groups: dict[str, list[str]] = {}
        for page in await self._store.pages(chat):
            if page.id in ids:
                groups.setdefault(page.body.split()[0], []).append(page.id)
        return tuple(tuple(g) for g in groups.values() if len(g) > 1)


class Dreamer:
    """Answers every merge with a valid page naming the cluster's pages; may run ``meanwhile``."""

    def __init__(
        self, provider: str = "scripted", meanwhile: Callable[[], Awaitable[None]] | None = None
    ) -> None:
        self.provider, self.meanwhile, self.asked = provider, meanwhile, 0

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        self.asked += 1
        if self.meanwhile is not None:
            await self.meanwhile()
        ids = _PAGE.findall(prompt.messages[-1].text)
        evidence = [{"page": i, "line": "All of it"} for i in ids]
        answer = {
            "abstract": f"Merged {len(ids)}",
            "summary": "One page.",
            "body": "All of it.",
            "evidence": evidence,
        }
        yield TextDelta(text=json.dumps(answer))
        yield ModelDone(usage=Usage())


class Den:
    def __init__(self) -> None:
        self.clock = FixedClock(NOW)
        self.store = InMemoryArchiveStore(InMemoryData())
        self.recall = FirstWordRecall(self.store)

    async def fill(self) -> Den:
        pages = [
            ("d1", "Deploy failed with ECONNREFUSED.", OLD),
            ("d2", "Deploy failed again with ECONNREFUSED.", OLD + timedelta(days=1)),
            ("g1", "Garden: the basil moves to the window.", OLD),
            ("g2", "Garden: the basil goes by the window.", OLD + timedelta(days=1)),
            ("warm", "Deploy notes from yesterday.", NOW - timedelta(days=1)),
        ]
        made = tuple(
            new_page(id=i, chat=CHAT, created_at=at, policy=ArchivePolicy(), body=b) for i, b, at in pages
        )

        def store_all(_: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], None]:
            return made, (), None

        await self.store.change(CHAT, store_all)
        return self

    def runner(self, model: Dreamer | None, *, recall: bool = True, **policy: bool | int) -> DreamRunner:
        return DreamRunner(
            store=self.store,
            recall=self.recall if recall else None,
            model=model,
            clock=self.clock,
            archive=ArchivePolicy(),
            policy=DreamPolicy(
                enabled=bool(policy.get("enabled", True)), idle_window_secs=int(policy.get("idle", 300))
            ),
            default_model="m",
        )

    async def pages(self) -> dict[str, Page]:
        return {p.id: p for p in await self.store.pages(CHAT)}


async def test_epi_10_each_cold_cluster_merges_into_its_survivor() -> None:
    den = await Den().fill()
    before = await den.pages()
    report = await den.runner(Dreamer()).run()
    assert (report.status, report.rejected) == ("done", ())
    assert sorted(report.merged) == [("d2", ("d1", "d2")), ("g2", ("g1", "g2"))]
    after = await den.pages()
    for survivor, stub in (("d2", "d1"), ("g2", "g1")):
        assert (after[survivor].version, after[survivor].merged_from) == (2, (stub,))
        assert (after[stub].status, after[stub].superseded_by) == ("superseded", survivor)
    assert after["warm"] == before["warm"]
    assert set((await den.store.vectors(CHAT)).vectors) == {"d2", "g2"}  # the survivors re-embedded
    assert await den.store.dream_reports() == [report]


@pytest.mark.parametrize(
    ("model", "options", "reason"),
    [
        (Dreamer(), {"enabled": False}, "off (HEARTH_DREAM_ENABLED)"),
        (Dreamer(provider="offline"), {}, "no LLM"),
        (None, {}, "no LLM"),
        (Dreamer(), {"recall": False}, "no embedder"),
    ],
)
async def test_epi_10_without_what_it_needs_a_dream_skips_and_says_so(
    model: Dreamer | None, options: dict[str, bool], reason: str
) -> None:
    den = await Den().fill()
    before = await den.pages()
    recall = options.pop("recall", True)
    report = await den.runner(model, recall=recall, **options).run()
    assert report.status == "skipped" and reason in report.reason
    assert await den.pages() == before


async def test_epi_10_a_recent_client_means_no_dream_and_one_arriving_stops_it() -> None:
    den = await Den().fill()
    await den.store.touch_activity(NOW - timedelta(seconds=100))
    idle = Dreamer()
    assert (await den.runner(idle).run()).reason.startswith("not idle")
    assert idle.asked == 0
    den.clock.advance(seconds=250)

    async def client_speaks() -> None:
        await den.store.touch_activity(den.clock.now() + timedelta(seconds=1))

    report = await den.runner(Dreamer(meanwhile=client_speaks)).run()
    assert report.status == "stopped" and "activity resumed" in report.reason
    assert len(report.merged) == 1


class Rambler(Dreamer):
    """Answers every merge with output the pass rejects (no body, no evidence)."""

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        self.asked += 1
        yield TextDelta(text='{"abstract": "no body and no evidence"}')
        yield ModelDone(usage=Usage())


async def test_epi_10_a_rejected_cluster_is_not_sent_again_until_one_of_its_pages_changes() -> None:
    """Issue 29: a rejected cluster was sent to the model again on every pass."""
    den = await Den().fill()
    model = Rambler()
    first = await den.runner(model).run()
    assert sorted(survivor for survivor, _ in first.rejected) == ["d2", "g2"] and model.asked == 2
    again = await den.runner(model).run()  # another pass, another process: the store remembers
    assert (again.status, again.rejected, again.merged) == ("done", (), ()) and model.asked == 2

    def edit_g1(pages: list[Page]) -> tuple[tuple[Page, ...], tuple[str, ...], None]:
        (g1,) = [p for p in pages if p.id == "g1"]
        return (rewrite_page(g1, at=NOW, reason="edited", body="Garden: basil by the window."),), (), None

    await den.store.change(CHAT, edit_g1)
    changed = await den.runner(model).run()
    assert [survivor for survivor, _ in changed.rejected] == ["g2"] and model.asked == 3
