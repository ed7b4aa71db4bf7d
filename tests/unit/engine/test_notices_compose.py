"""DEC-11 notices and the MEM-6c/6d draft parsing."""

from __future__ import annotations

from engine.memory.compose import extract_drafts, parse_drafts
from engine.notices import render_notices
from engine.requestlog import MemoryNote

SAVED = MemoryNote(kind="saved", id="a", scope="space", text="The den has a piano")
FORGOT = MemoryNote(kind="forgotten", id="b", scope="space", text="The door squeaks")


def test_dec_11_notice_levels() -> None:
    assert render_notices((SAVED, FORGOT), "off") == ()
    assert render_notices((SAVED, FORGOT), "brief") == ("Saved 1 memory, forgot 1 memory.",)
    assert render_notices((SAVED, FORGOT), "full") == (
        "Saved a space memory: “The den has a piano”",
        "Forgot a space memory: “The door squeaks”",
    )
    assert render_notices((), "full") == ()


def test_mem_6c_drafts_from_model_lines() -> None:
    text = "- Likes tea\n2. Born in Porto\n\n* likes tea\n" + "x" * 600
    assert parse_drafts(text, limit=5, max_chars=500) == ("Likes tea", "Born in Porto")
    assert len(parse_drafts("\n".join(f"- fact {i}" for i in range(9)), limit=5, max_chars=500)) == 5


def test_mem_6c_offline_drafts_are_the_sentences() -> None:
    drafts = extract_drafts("Ana likes tea. She was born in Porto! Ok.", limit=5, max_chars=500)
    assert drafts == ("Ana likes tea.", "She was born in Porto!")
