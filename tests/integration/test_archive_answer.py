"""EPI-13 ``answer`` and ``reasoning``: the pure prompt/parse and the answering service with a
scripted model (no Redis needed: the search results are built by hand)."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.archive import ArchivePolicy, QueryItem, new_page
from engine.archive.answer import (
    REASONING_LEVELS,
    AnswerSource,
    answer_prompt,
    parse_answer,
    reasoning_budget,
)
from engine.errors import InvalidInput, LLMUnavailable
from engine.service.archive import ArchiveStatus, FoundPage, SearchResults
from engine.service.archive_answer import ArchiveAnswerer, answer_sources
from tests.fakes.ports import ScriptedChatModel

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
STATUS = ArchiveStatus(
    chat="web:den", space="web:den", persona="default", how="test", search="lexical", embedder=None, pages={}
)


def found(*texts: str, superseded: tuple[int, ...] = ()) -> SearchResults:
    items = []
    for i, text in enumerate(texts):
        page = new_page(id=f"pg-{i}", chat="web:den", created_at=T0, policy=ArchivePolicy(), body=text)
        item = QueryItem(
            id=page.id, source="superseded" if i in superseded else "result", superseded=i in superseded
        )
        items.append(FoundPage(item=item, page=page, relevance=1.0))
    return SearchResults(status=STATUS, items=tuple(items))


def test_epi_13_parse_answer_keeps_only_returned_citations() -> None:
    answer = parse_answer("The deploy broke [pg-1] [pg-9], fixed later [pg-2]. See [pg-1].", ["pg-1", "pg-2"])
    assert answer.citations == ("pg-1", "pg-2")
    assert answer.stripped == ("pg-9",)
    assert "[pg-9]" not in answer.text and answer.text.startswith(
        "The deploy broke [pg-1], fixed later [pg-2]."
    )


@given(st.lists(st.sampled_from(["pg-a", "pg-b", "pg-x", "zz-1"]), max_size=6), st.text(max_size=30))
def test_epi_13_citations_are_always_among_the_returned_pages(refs: list[str], filler: str) -> None:
    text = " ".join(f"{filler} [{r}]" for r in refs)
    answer = parse_answer(text, ["pg-a", "pg-b"])
    assert set(answer.citations) <= {"pg-a", "pg-b"}
    assert not {r for r in refs if r not in ("pg-a", "pg-b")} & set(answer.citations)


def test_epi_13_reasoning_levels_grow_and_unknown_levels_fail() -> None:
    budgets = [reasoning_budget(level) for level in ("minimal", "low", "medium", "high", "max")]
    assert [b.max_tokens for b in budgets] == [256, 512, 1024, 2048, 4096]
    assert all(a.results <= b.results and a.hops <= b.hops for a, b in itertools.pairwise(budgets))
    assert all(1 <= b.hops <= 3 for b in REASONING_LEVELS.values())
    with pytest.raises(InvalidInput) as caught:
        reasoning_budget("extreme")
    assert caught.value.code == "invalid_reasoning"


def test_epi_13_answer_prompt_lists_pages_with_ids() -> None:
    prompt = answer_prompt("why?", [AnswerSource(id="pg-7", text="Because of ECONNREFUSED.")])
    assert "[pg-7] Because of ECONNREFUSED." in prompt.messages[-1].text
    assert prompt.messages[-1].text.endswith("Question: why?")


async def test_epi_13_answer_cites_returned_pages_with_the_level_budget() -> None:
    model = ScriptedChatModel("It failed with ECONNREFUSED [pg-0] and not [pg-404].")
    answerer = ArchiveAnswerer(model=model, default_model="claude-test")
    outcome = await answerer.answer("why did it fail?", found("ECONNREFUSED on deploy.", "Basil."), "low")
    assert outcome.unavailable is None and outcome.answer is not None
    assert outcome.answer.citations == ("pg-0",) and outcome.answer.stripped == ("pg-404",)
    assert "[pg-0] ECONNREFUSED on deploy." in model.prompts[0].messages[-1].text


async def test_epi_13_superseded_pages_are_not_cited() -> None:
    results = found("current text", "old text", superseded=(1,))
    assert [s.id for s in answer_sources(results)] == ["pg-0"]
    outcome = await ArchiveAnswerer(model=ScriptedChatModel("see [pg-1]"), default_model="m").answer(
        "q", results
    )
    assert (
        outcome.answer is not None and outcome.answer.citations == () and outcome.answer.stripped == ("pg-1",)
    )


async def test_epi_13_without_an_llm_there_is_no_answer_and_it_says_so() -> None:
    model = ScriptedChatModel("never used")
    model.provider = "offline"
    outcome = await ArchiveAnswerer(model=model, default_model="m").answer("q", found("text"))
    assert outcome.answer is None and outcome.unavailable is not None
    assert outcome.unavailable.startswith("no LLM")
    assert model.prompts == []


async def test_epi_13_a_failing_llm_or_no_pages_leaves_no_answer() -> None:
    failing = ScriptedChatModel(LLMUnavailable("down", code="llm_unavailable"))
    outcome = await ArchiveAnswerer(model=failing, default_model="m").answer("q", found("text"))
    assert outcome.answer is None and outcome.unavailable == "the LLM failed: llm_unavailable"
    empty = await ArchiveAnswerer(model=ScriptedChatModel(), default_model="m").answer("q", found())
    assert empty.answer is None and empty.unavailable is not None and "no pages" in empty.unavailable
