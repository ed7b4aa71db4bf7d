"""A first-person memory about a person reads in the third person with their name (issue 28, MEM-6).

``engine.memory.voice.third_person`` is the one rule every save path uses (save tool, "remember
that", the offline model, "Keep as is", the migration).
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.memory.voice import third_person


@pytest.mark.parametrize(
    ("text", "name", "stored"),
    [
        ("I love jazz", "Alice", "Alice loves jazz"),
        ("I hate cilantro", "Alice", "Alice hates cilantro"),
        ("i love jazz", "Alice", "Alice loves jazz"),
        ("I'm allergic to hazelnuts", "Alice", "Alice is allergic to hazelnuts"),
        ("I am a nurse", "Alice", "Alice is a nurse"),
        ("I've got two cats", "Alice", "Alice has got two cats"),
        ("I have a sister", "Alice", "Alice has a sister"),
        ("I'll be in Rome in May", "Alice", "Alice will be in Rome in May"),
        ("I'd like a window seat", "Alice", "Alice would like a window seat"),
        ("I don't eat meat", "Alice", "Alice doesn't eat meat"),
        ("I also really don't like mornings", "Alice", "Alice also really doesn't like mornings"),
        ("I really like cats", "Alice", "Alice really likes cats"),
        ("I study law", "Alice", "Alice studies law"),
        ("I watch anime", "Alice", "Alice watches anime"),
        ("I go swimming", "Alice", "Alice goes swimming"),
        ("I play the cello", "Alice", "Alice plays the cello"),
        ("I can swim", "Alice", "Alice can swim"),
        ("I went to Oslo", "Alice", "Alice went to Oslo"),
        ("I moved to Oslo in 2020", "Alice", "Alice moved to Oslo in 2020"),
        ("I take my tea without sugar", "Juno", "Juno takes their tea without sugar"),
        ("My real name is Robert Quill", "Bob", "Bob's real name is Robert Quill"),
        ("My sister calls me Ali", "Alice", "Alice's sister calls them Ali"),
        # no safe rule: the name goes in front
        ("I'd been to Oslo", "Alice", "Alice: I'd been to Oslo"),
        ("I think I love jazz", "Alice", "Alice: I think I love jazz"),
        ("I and Bob are friends", "Alice", "Alice: I and Bob are friends"),
        # Portuguese
        ("Eu moro em Lisboa", "Ana", "Ana mora em Lisboa"),
        ("Eu não gosto de peixe", "Ana", "Ana não gosta de peixe"),
        ("Minha irmã se chama Rita", "Ana", "A irmã de Ana se chama Rita"),
        ("Eu pinto aquarelas", "Ana", "Ana: Eu pinto aquarelas"),
        # Russian
        ("Я люблю джаз", "Алиса", "Алиса любит джаз"),
        ("Я не ем мясо", "Олег", "Олег не ест мясо"),
        ("Я работал врачом", "Олег", "Олег работал врачом"),
        ("Я играю на гитаре", "Олег", "Олег играет на гитаре"),
        ("Меня зовут Олег", "Олег", "Олег: Меня зовут Олег"),
        # Vietnamese
        ("Tôi thích nhạc jazz", "Lan", "Lan thích nhạc jazz"),
        ("Tôi nuôi con mèo của tôi", "Lan", "Lan nuôi con mèo của Lan"),
        # Hebrew
        ("אני אוהבת ג'אז", "נועה", "נועה אוהבת ג'אז"),
        ("אני גרה בחיפה עם הכלב שלי", "נועה", "נועה גרה בחיפה עם הכלב של נועה"),
        ("אני גרתי בחיפה", "נועה", "נועה: אני גרתי בחיפה"),
    ],
)
def test_issue_28_first_person_becomes_third_person_with_the_name(text: str, name: str, stored: str) -> None:
    assert third_person(text, name) == stored


@pytest.mark.parametrize(
    "text",
    [
        "Alice hates cilantro",
        "Juno's cat is Mochi",
        "The inn has twelve rooms",
        "EU citizens travel freely",
        "Ian plays the oud",
        "Myra is a Leo",
        "Em gái của tôi tên là Mai",
        "",
    ],
)
def test_issue_28_a_text_not_in_the_first_person_is_stored_as_sent(text: str) -> None:
    assert third_person(text, "Alice") == text


@pytest.mark.parametrize("name", ["", "  ", "I", "Me too: no", "Eu", "Я", "Tôi", "My Lan", "two\nlines"])
def test_issue_28_an_unusable_name_rewrites_nothing(name: str) -> None:
    assert third_person("I love jazz", name) == "I love jazz"


_NAMES = st.sampled_from(["Alice", "Juno", "Ana", "Олег", "Lan", "נועה", "Mary Ann", "O'Neil", "Ian"])
_FIRST = st.sampled_from(
    ["I ", "I'm ", "I've ", "I'd ", "I'll ", "My ", "i ", "Eu ", "Minha ", "Я ", "Мой ", "Tôi ", "אני ", ""]
)
_WORDS = st.lists(
    st.sampled_from(
        [
            "love",
            "loves",
            "my",
            "me",
            "mine",
            "I",
            "I'm",
            "don't",
            "really",
            "go",
            "went",
            "study",
            "jazz",
            "cats",
            "sister",
            "is",
            ",",
            ".",
            "!",
            "gosto",
            "não",
            "люблю",
            "не",
            "мой",
            "я",
            "tôi",
            "của",
            "שלי",
            "גרה",
            "אוהבת",
            "גרתי",
            "Alice",
        ]
    ),
    max_size=8,
).map(" ".join)


@given(text=st.builds(lambda a, b: (a + b).strip(), _FIRST, _WORDS), name=_NAMES)
def test_issue_28_the_rewrite_is_idempotent(text: str, name: str) -> None:
    once = third_person(text, name)
    assert third_person(once, name) == once


@given(text=st.text(max_size=60), name=st.text(max_size=20))
def test_issue_28_any_text_and_name_rewrite_idempotently(text: str, name: str) -> None:
    once = third_person(text, name)
    assert third_person(once, name) == once


@given(rest=_WORDS, name=_NAMES)
def test_issue_28_a_text_that_starts_with_the_name_is_unchanged(rest: str, name: str) -> None:
    text = f"{name} {rest}".strip()
    assert third_person(text, name) == text


@given(text=st.builds(lambda a, b: (a + b).strip(), _FIRST.filter(bool), _WORDS), name=_NAMES)
def test_issue_28_a_first_person_text_names_its_owner_and_drops_the_leading_i(text: str, name: str) -> None:
    stored = third_person(text, name)
    assert name in stored
    assert not stored.startswith(("I ", "I'", "My ", "Eu ", "Я ", "Tôi ", "אני "))
