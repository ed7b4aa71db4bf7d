"""A person's own persona (issue 31, SillyTavern's "user persona"): the checks of its name and
description, the budget of the description and its prompt slot."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.prompt import DEFAULT_TEMPLATE, resolve_template
from engine.user_persona import (
    USER_DESCRIPTION_MAX_CHARS,
    USER_NAME_MAX_CHARS,
    UserPersona,
    budgeted_description,
    check_user_persona,
)


def words(text: str) -> int:
    return len(text.split())


def test_a_name_is_trimmed_and_its_spaces_collapsed() -> None:
    checked = check_user_persona(UserPersona(name="  Anna   Lee ", description=" A baker. \n"))
    assert checked == UserPersona(name="Anna Lee", description="A baker.")


@pytest.mark.parametrize(
    ("name", "description", "code"),
    [
        ("", "", "user_name_empty"),
        ("   ", "", "user_name_empty"),
        ("x" * (USER_NAME_MAX_CHARS + 1), "", "user_name_too_long"),
        ("Ann\x00a", "", "user_name_invalid"),
        ("Ann\na", "", "user_name_invalid"),
        ("Anna", "x" * (USER_DESCRIPTION_MAX_CHARS + 1), "user_description_too_long"),
        ("Anna", "bad \x07 bell", "user_description_invalid"),
        ("Anna", "lone \ud800", "user_description_invalid"),
    ],
)
def test_bad_input_is_refused_with_a_code_naming_the_field(name: str, description: str, code: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_user_persona(UserPersona(name=name, description=description))
    assert refused.value.code == code


def test_a_description_within_the_budget_is_kept_whole() -> None:
    assert budgeted_description("I am a baker from Lyon.", words, budget=10) == "I am a baker from Lyon."


@given(st.lists(st.sampled_from(["bread", "oven", "flour", "Lyon", "morning"]), min_size=1, max_size=80))
def test_a_long_description_is_cut_at_a_word_within_the_budget(chosen: list[str]) -> None:
    text = " ".join(chosen)
    cut = budgeted_description(text, words, budget=20)
    assert words(cut) <= 21  # the budget and the ellipsis
    if words(text) <= 20:
        assert cut == text
    else:
        assert cut.endswith(" …") and text.startswith(cut.removesuffix(" …"))


def test_a_template_saved_before_the_slot_gets_it_after_the_persona() -> None:
    old = ("persona", "lore", "pinned_memories", "active_memories", "summaries", "window", "recalled")
    assert resolve_template(old)[:2] == ("persona", "user_persona")
    assert resolve_template(("window",)) == ("user_persona", "window")
    assert resolve_template(()) == DEFAULT_TEMPLATE and DEFAULT_TEMPLATE[1] == "user_persona"
