"""Macros (LORE-17), matching options and the ST scan buffer (LORE-18), CCv3 decorators (LORE-19)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engine.errors import InvalidInput
from engine.lorebook import LoreBook, LoreEntry, LoreState, compile_book, scan_lore, validate_book
from engine.macros import MacroContext, expand
from engine.model import Persona
from engine.prompt import PromptParts, assemble_prompt, resolve_template
from engine.window import Window
from tests.unit.engine.lorebook.support import approx_tokens, book, decision, entry, included, scan

NOON = datetime(2026, 3, 14, 15, 9, tzinfo=UTC)
CTX = MacroContext(char="Mira", user="Juno", now=NOON, chat_seed="chat-1", turn_seed="turn-1")


def scan_with(compiled, messages, macros=CTX, **kw):  # type: ignore[no-untyped-def]
    return scan_lore(
        [compiled],
        messages,
        LoreState(),
        turn_id=kw.get("turn_id", "t1"),
        message_count=len(messages),
        at_greeting=False,
        count_tokens=approx_tokens,
        macros=macros,
    )


# --- LORE-17 macros -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{{char}} and {{USER}}", "Mira and Juno"),
        ("at {{time}} on {{date}}, a {{weekday}}", "at 3:09 PM on March 14, 2026, a Saturday"),
        ("{{isodate}} {{isotime}}", "2026-03-14 15:09"),
        ("{{time_UTC+2}}", "5:09 PM"),
        ("a{{newline}}b{{noop}}{{// a note}}", "a\nb"),
        ("{{unknown}} {{char", "{{unknown}} {{char"),
    ],
)
def test_lore_17_known_macros_expand_and_unknown_ones_stay(text: str, expected: str) -> None:
    assert expand(text, CTX) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<USER> asks <BOT> about <CHAR>", "Juno asks Mira about Mira"),
        ("<user>, <Bot> and <char>", "Juno, Mira and Mira"),  # any case, as SillyTavern
        ("<USERS> <B0T> <{{char}}>", "<USERS> <B0T> <Mira>"),  # only the three names
        ("{{pick::<USER>::<USER>}}", "Juno"),
    ],
)
def test_lore_17_legacy_placeholders_expand_like_user_and_char(text: str, expected: str) -> None:
    """Issue 31: old cards write ``<USER>``, ``<BOT>``, ``<CHAR>`` for ``{{user}}``/``{{char}}``."""
    assert expand(text, CTX) == expected


def test_lore_17_legacy_placeholders_work_in_keys_content_and_the_persona_prompt() -> None:
    """Issue 31: a ``<BOT>`` key matches the persona's name; content and prompts say the names."""
    compiled = book(entry("1", "<BOT>", content="<USER> trusts <CHAR>."), entry("2", "<USER>'s lamp"))
    result = scan_with(compiled, ["Mira lights juno's lamp"])
    assert included(result) == ["1", "2"]
    assert result.messages[0].text == "Juno trusts Mira."
    persona = Persona(id="p", name="Mira", system_prompt="You are <BOT>, talking to <USER>.")
    window = Window(messages=(), tokens=0, budget=0, dropped=0)
    prompt = assemble_prompt(
        PromptParts(persona=persona, window=window, user_name="Juno", macros=CTX), resolve_template(())
    )
    assert prompt.messages[0].text == "You are Mira, talking to Juno."


def test_lore_17_time_comes_from_the_context_never_the_clock() -> None:
    assert expand("{{time}} {{date}}", MacroContext(char="A")) == "{{time}} {{date}}"
    later = MacroContext(now=datetime(2030, 1, 2, 0, 5, tzinfo=UTC))
    assert expand("{{time}} {{date}}", later) == "12:05 AM January 2, 2030"


def test_lore_17_pick_is_stable_per_chat_and_random_per_turn() -> None:
    text = "{{pick::red::green::blue}}"
    by_chat = {expand(text, MacroContext(chat_seed=f"c{i}")) for i in range(30)}
    assert by_chat == {"red", "green", "blue"}  # different chats pick differently
    assert len({expand(text, MacroContext(chat_seed="c1", turn_seed=f"t{i}")) for i in range(20)}) == 1
    rolls = {expand("{{random:a,b,c}}", MacroContext(turn_seed=f"t{i}")) for i in range(30)}
    assert rolls == {"a", "b", "c"}
    assert all(1 <= int(expand("{{roll:d6}}", MacroContext(turn_seed=f"t{i}"))) <= 6 for i in range(20))
    assert 2 <= int(expand("{{roll:2d6}}", CTX)) <= 12


def test_lore_17_macro_keys_secondary_keys_and_content() -> None:
    compiled = book(
        entry("1", "{{char}}", content="{{user}} greets {{char}} at {{time}}."),
        entry("2", "castle", secondary_keys=("{{user}}",), selective=True, content="Juno's castle."),
        entry("3", "/{{char}}!/i", content="Excited."),
        entry("4", "{{user}}", content="control: no such name", case_sensitive=True),
    )
    result = scan_with(compiled, ["hello MIRA! juno's castle"])
    assert included(result) == ["1", "2", "3"]
    assert result.messages[0].text == "Juno greets Mira at 3:09 PM."
    assert included(scan_with(compiled, ["hello"], macros=None)) == []  # without names nothing matches


def test_lore_17_recursion_scans_the_expanded_content() -> None:
    compiled = book(
        entry("1", "storm", content="{{char}} hides."),
        entry("2", "mira hides", content="Under the bridge."),
        recursive_scanning=True,
    )
    assert included(scan_with(compiled, ["a storm"])) == ["1", "2"]


def test_lore_17_the_persona_prompt_shares_the_macro_module() -> None:
    persona = Persona(id="p", name="Mira", system_prompt="You are {{char}}; it is {{time}}. {{odd}}")
    window = Window(messages=(), tokens=0, budget=0, dropped=0)
    parts = PromptParts(persona=persona, window=window, user_name="Juno", macros=CTX)
    prompt = assemble_prompt(parts, resolve_template(()))
    assert prompt.messages[0].text == "You are Mira; it is 3:09 PM. {{odd}}"


# --- LORE-18 matching options ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("matching", "text", "hit"),
    [
        ("substring", "into the woods", True),
        ("whole_words", "into the woods", False),
        ("inflections", "into the woods", True),
        ("inflections", "the woodlands", False),  # 5 more letters is another word
        ("substring", "Вчера я видел дракона", True),
        ("inflections", "Вчера я видел драконами", True),
        ("whole_words", "Вчера я видел дракона", False),
        ("inflections", "גרתי בירושלים", True),
        ("inflections", "וכשבירושלים", False),  # four prefix letters is not a proclitic run
        ("inflections", "firewood", False),  # a prefix is only a Hebrew/Arabic proclitic
    ],
)
def test_lore_18_book_matching_modes(matching: str, text: str, hit: bool) -> None:
    compiled = book(entry("1", "wood"), entry("2", "дракон"), entry("3", "ירושלים"), matching=matching)
    assert bool(included(scan(compiled, [text]))) is hit


def test_lore_18_entry_settings_override_the_book() -> None:
    compiled = book(
        entry("1", "wood", match_whole_words=True),
        entry("2", "wood", match_whole_words=False),
        entry("3", "Wood", case_sensitive=True),
        entry("4", "wood", scan_depth=1),
        matching="inflections",
    )
    assert included(scan(compiled, ["Woods far away", "and more"])) == ["2", "3"]  # "woods" ≠ "Wood"+s
    assert included(scan(compiled, ["and more", "Woods far away"])) == ["2", "3", "4"]


def test_lore_18_legacy_books_keep_whole_words() -> None:
    legacy = compile_book(LoreBook(name="old", entries=(LoreEntry(id="1", keys=("wood",), content="x"),)))
    assert included(scan(legacy, ["woods"])) == []


def test_lore_18_regex_keys_see_the_sillytavern_scan_buffer() -> None:
    compiled = book(
        entry("1", "/\\x01dragon/i", content="starts with dragon"),
        entry("2", "/quiet\\n\\x01storm/", content="spans two messages"),
        entry("3", "/^dragon/", content="control: ^ is the buffer start only"),
        scan_depth=2,
    )
    result = scan(compiled, ["storm is near", "  quiet"])
    assert included(result) == ["2"]
    assert included(scan(compiled, ["Dragon ahead", "a calm day"])) == ["1"]
    assert decision(scan(compiled, ["x", "Dragon"]), "1").reason.endswith("in the last 2 messages")


# --- LORE-19 CCv3 decorators ----------------------------------------------------------------


def test_lore_19_the_first_decorator_of_a_name_counts() -> None:
    compiled = book(entry("1", "k", content="@@probability 0\n@@probability 100\nText"))
    assert included(scan(compiled, ["k"])) == []
    assert [i.field for i in compiled.issues] == ["@@probability 100"]


def test_lore_19_activate_beats_dont_activate() -> None:
    both = entry("1", content="@@dont_activate\n@@activate\nAlways.")
    compiled = book(both, entry("2", content="@@dont_activate\nNo."))
    assert included(scan(compiled, ["anything"])) == ["1"]


def test_lore_19_invalid_values_are_ignored_with_an_issue() -> None:
    odd = LoreEntry(id="3", keys=("k",), content="@@probability abc\nTexto")
    bad = LoreBook(name="Atlas", entries=(odd,))
    compiled = compile_book(bad)  # the book still compiles
    assert included(scan(compiled, ["k"])) == ["3"]
    found = [(i.entry, i.field, i.code) for i in compiled.issues]
    assert found == [("3", "@@probability abc", "invalid_decorator")]
    with pytest.raises(InvalidInput):
        validate_book(bad)  # the editor still refuses it


def test_lore_19_exclude_keys_and_additional_keys() -> None:
    compiled = book(
        entry("1", "sea", content="@@exclude_keys storm, wreck\nCalm sea."),
        entry("2", "sea", content="@@additional_keys ocean\n@@additional_keys tide\nBlue."),
        entry("3", "sea", content="@@exclude_keys storm\nRegex entry.", use_regex=True),
    )
    assert included(scan(compiled, ["the sea"])) == ["1", "3"]
    assert "@@additional_keys: none matched" in decision(scan(compiled, ["the sea"]), "2").reason
    assert included(scan(compiled, ["the ocean"])) == []  # additional keys alone do not trigger
    assert included(scan(compiled, ["the sea", "high tide"])) == ["1", "2", "3"]  # repeated lines add up
    stormy = scan(compiled, ["a storm at sea"])
    assert included(stormy) == ["3"]  # CCv3: exclude_keys is ignored with use_regex
    assert "@@exclude_keys: 'storm' matched" in decision(stormy, "1").reason


def test_lore_19_a_fallback_stands_in_for_an_unknown_or_ignored_decorator() -> None:
    compiled = book(
        entry("1", "k", content="@@risu_only 4\n@@@probability 0\nA."),
        entry("2", "k", content="@@probability abc\n@@@probability 0\nB."),
        entry("3", "k", content="@@probability 100\n@@@probability 0\nC."),
    )
    assert included(scan(compiled, ["k"])) == ["3"]


def test_lore_21_a_regex_re2_cannot_run_is_left_out_not_fatal() -> None:
    compiled = book(entry("7", "/(?<=a)b/", "wyrm", comment="Wyrm"))
    assert included(scan(compiled, ["a wyrm"])) == ["7"]
    (issue,) = compiled.issues
    assert issue.entry == "7" and issue.code == "invalid_regex_key" and "RE2" in issue.reason
