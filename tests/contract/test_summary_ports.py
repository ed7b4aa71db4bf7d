"""Contract: ``SummaryTiers``, ``SummaryLog``, ``SummaryQueue`` and ``ReportStore`` behave alike on
the fake and on Redis."""

from __future__ import annotations

import pytest

from engine.memory.deep import DeepReport
from engine.summary import SummaryState, Tier
from tests.contract.builders import T0, new_message
from tests.contract.stores import Stores

pytestmark = pytest.mark.contract

CHAT = "web:saga"


def tier(name: str) -> Tier:
    return Tier(id=name, level="recent", text=f"summary {name}", first=1, last=2, messages=2, created_at=T0)


async def test_tiers_commit_with_compare_and_set(stores: Stores) -> None:
    summaries = stores.summaries()
    assert await summaries.state(CHAT) == SummaryState()
    assert await summaries.commit(CHAT, 0, SummaryState(upto=2.0, tiers=(tier("a"),)))
    assert not await summaries.commit(CHAT, 0, SummaryState(upto=4.0, tiers=(tier("b"),)))
    state = await summaries.state(CHAT)
    assert (state.version, state.upto, state.tiers) == (1, 2.0, (tier("a"),))
    assert await summaries.commit(CHAT, 1, SummaryState(upto=9.0, version=77))
    assert await summaries.state(CHAT) == SummaryState(upto=9.0, version=2)


async def test_the_log_is_read_after_a_position_and_counted_between(stores: Stores) -> None:
    chats, summaries = stores.chats(), stores.summaries()
    for i in range(6):
        await chats.append(CHAT, new_message(f"n{i}", minute=i), pending=False, greeting=None)
    assert [m.text for m in await summaries.after(CHAT, 2.0, 2)] == ["n2", "n3"]
    assert [m.text for m in await summaries.after(CHAT, -1.0, 10)] == [f"n{i}" for i in range(6)]
    assert [m.text for m in await summaries.newest(CHAT, 2)] == ["n4", "n5"]
    assert await summaries.count_between(CHAT, 1.0, 4.0) == 2
    assert await summaries.newest("web:none", 3) == []


async def test_one_job_waits_per_chat(stores: Stores) -> None:
    summaries = stores.summaries()
    assert await summaries.enqueue(CHAT) is True
    assert await summaries.enqueue(CHAT) is False
    assert await summaries.enqueue("web:other") is True
    await summaries.dequeued(CHAT)
    assert await summaries.enqueue(CHAT) is True


async def test_deep_reports_newest_first_and_bounded(stores: Stores) -> None:
    reports = stores.reports()
    for i in range(53):
        await reports.add_report(CHAT, DeepReport(chat=CHAT, first=i, last=i, status="nothing"))
    kept = await reports.reports(CHAT)
    assert [r.first for r in kept[:3]] == [52, 51, 50]
    assert (len(kept), kept[-1].first) == (50, 3)
    assert await reports.reports("web:other") == []
