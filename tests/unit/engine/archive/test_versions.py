"""EPI-11: every rewrite is a new version; restore brings back the exact earlier text."""

from __future__ import annotations

import pytest

from engine.archive import (
    absorb_tokens,
    compact_page,
    current_version,
    evict_page,
    find_version,
    keep_worthy,
    page_text,
    restore_page,
    rewrite_page,
    supersede_page,
)
from engine.errors import NotFound

from .helpers import BODY, day, page


def test_epi_11_a_rewrite_archives_the_full_earlier_content() -> None:
    p = page("p")
    edited = rewrite_page(p, at=day(3), reason="edited", body="short")
    assert (edited.version, edited.version_reason, edited.version_at, edited.body) == (
        2,
        "edited",
        day(3),
        "short",
    )
    (v1,) = edited.versions
    assert (v1.number, v1.reason, v1.body, v1.abstract, v1.summary, v1.keep) == (
        1,
        "created",
        BODY,
        p.abstract,
        p.summary,
        p.keep,
    )
    assert v1.at == p.created_at


def test_epi_11_restore_brings_back_the_exact_earlier_text() -> None:
    p = page("p")
    compacted = compact_page(p, day(90))
    assert compacted.body == ""
    restored = restore_page(compacted, 1, day(95))
    assert (restored.abstract, restored.summary, restored.body, restored.keep) == (
        p.abstract,
        p.summary,
        BODY,
        p.keep,
    )
    assert restored.status == "active"
    assert (restored.version, restored.version_reason) == (3, "restored:1")
    assert [v.number for v in restored.versions] == [1, 2]


def test_epi_11_a_restore_can_itself_be_undone() -> None:
    compacted = compact_page(page("p"), day(90))
    restored = restore_page(compacted, 1, day(95))
    back = restore_page(restored, 2, day(96))
    assert (back.body, back.status, back.keep) == ("", "cold", compacted.keep)


def test_epi_11_restoring_the_current_version_changes_nothing() -> None:
    p = page("p")
    assert restore_page(p, 1, day(1)) is p


def test_epi_11_restoring_an_unknown_version_is_not_found() -> None:
    with pytest.raises(NotFound) as err:
        restore_page(page("p"), 7, day(1))
    assert err.value.code == "no_such_version"


def test_epi_11_restore_undoes_eviction_and_supersession() -> None:
    evicted = evict_page(page("p"), day(100))
    assert (evicted.status, evicted.evicted_at, evicted.version) == ("evicted", day(100), 2)
    back = restore_page(evicted, 1, day(101))
    assert (back.status, back.evicted_at, back.body) == ("active", None, BODY)
    merged = supersede_page(page("q"), "p", day(100))
    assert (merged.status, merged.superseded_by, merged.body) == ("superseded", "p", BODY)
    unmerged = restore_page(merged, 1, day(101))
    assert (unmerged.status, unmerged.superseded_by) == ("active", None)


def test_epi_11_find_version_includes_the_current_one() -> None:
    edited = rewrite_page(page("p"), at=day(1), reason="edited", abstract="new")
    assert find_version(edited, 2) == current_version(edited)
    assert find_version(edited, 1).abstract == "Session p: fixing the deploy"


def test_epi_5_compaction_keeps_tokens_found_only_in_the_body() -> None:
    p = page("p", keep=())  # e.g. a page stored before its tokens were extracted
    compacted = compact_page(p, day(90))
    for token in keep_worthy(BODY):
        assert token in compacted.keep
    assert compacted.versions[-1].body == BODY


def test_epi_6_absorb_adds_the_others_tokens_and_records_them() -> None:
    survivor = page("s", body="plain words", keep=("a.py",))
    other = page("o", body="see /x/y.txt", keep=("E1234",))
    merged = absorb_tokens(survivor, (other,), day(5))
    assert merged.keep == ("a.py", "E1234", "/x/y.txt")
    assert merged.merged_from == ("o",)
    assert (merged.version, merged.versions[-1].keep) == (2, ("a.py",))


def test_page_text_adds_tokens_missing_from_the_text() -> None:
    compacted = compact_page(page("p"), day(90))
    text = page_text(compacted)
    assert text.startswith(compacted.abstract)
    for token in compacted.keep:
        assert token in text
    assert "weather" not in text
