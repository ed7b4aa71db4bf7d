"""RECALL-2 person evidence with nicknames, short forms and spellings (adapters.recall.names,
``Bm25`` aliases); RECALL-3 a message that only names the list's people. Issue 28."""

from __future__ import annotations

import pytest

from adapters.recall.lexical import Bm25
from adapters.recall.names import names_someone, same_person

PEOPLE = [
    "Melanie goes to pottery classes every Saturday",
    "Melanie's sister lives in Leeds",
    "Jonathan works as a dentist",
    "Jonathan has two daughters",
    "Kevin supports Arsenal",
    "Kevin is learning Japanese",
]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Mel", "Melanie"),  # table and short form
        ("Gina", "Georgina"),  # table only: not a prefix
        ("Bill", "William"),
        ("Jon", "Jonathan"),
        ("Muhhamed", "Muhammad"),  # spelling: doubled letters, vowels
        ("Mohammed", "Muhammad"),
        ("Zoë", "Zoe"),  # accents
    ],
)
def test_recall_2_nicknames_short_forms_and_spellings_are_one_person(a: str, b: str) -> None:
    assert same_person(a, b) and same_person(b, a)


@pytest.mark.parametrize(("a", "b"), [("Mark", "Mary"), ("Elise", "Eloise"), ("Kate", "Emi"), ("Al", "Alan")])
def test_recall_2_different_names_stay_different(a: str, b: str) -> None:
    assert not same_person(a, b)


def test_recall_2_a_nickname_in_the_question_holds_the_persons_memories() -> None:
    index = Bm25(PEOPLE)
    assert [int(x) for x in index.elsewhere("Is Mel still doing pottery?")] == [0, 0, 1, 1, 1, 1]
    assert [int(x) for x in index.elsewhere("how many kids does Jon have?")] == [1, 1, 0, 0, 1, 1]
    asked, _, _ = index.cover("Is Mel still doing pottery?")
    plain, _, _ = index.cover("Is Melanie still doing pottery?")
    assert asked[0] == pytest.approx(plain[0]) and asked[0] > asked[1] > 0
    assert index.scores("Mel pottery")[0] == pytest.approx(index.scores("Melanie pottery")[0])


def test_recall_2_a_stranger_is_no_alias() -> None:
    assert [int(x) for x in Bm25(PEOPLE).elsewhere("Does Bartholomew do pottery?")] == [1] * 6


def test_recall_3_a_message_that_only_names_the_lists_people_says_nothing_about_them() -> None:
    index = Bm25(PEOPLE)
    assert index.names_only("thanks Mel, see you later")
    assert index.names_only("Kevin!")
    assert not index.names_only("how is Kevin's Japanese going?")
    assert not index.names_only("see you later")  # no index word at all


@pytest.mark.parametrize(
    ("message", "owner", "named"),
    [
        ("How is Mel's pottery going?", "Melanie", True),  # nickname and possessive
        ("Did Jon call the dentist?", "Jonathan Price", True),  # short form of a name's word
        ("Does Price still work there?", "Jonathan Price", True),
        ("How is Melanie?", "Kevin", False),
        ("how is mel doing", "Melanie", False),  # aliases only with a capital
        ("How is Mel doing?", "", False),  # no owner name: nobody is named
    ],
)
def test_names_someone_is_the_speaker_evidence(message: str, owner: str, named: bool) -> None:
    """The speaker signal (RECALL-1): a message names a memory's owner by the name, a word of
    it or an alias written with a capital ("Mel" names Melanie's memory)."""
    assert names_someone(message, [owner] if owner else []) is named
