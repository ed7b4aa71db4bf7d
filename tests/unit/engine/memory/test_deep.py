"""The deep pass tells people apart by platform id, never by display name (MEM-4, DEEP-1, issue 29):
each signed-in speaker of a chunk gets a label, and a fact is filed only under the label's owner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engine.memory import personal_list, space_list
from engine.memory.deep import DeepFact, DeepOutput, DeepPolicy, deep_excerpt, plan_deep
from engine.model import StoredMessage

T0 = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
SPACE = "web:ward"


def line(n: int, user: str, name: str, text: str, *, guest: bool = False) -> StoredMessage:
    return StoredMessage(
        id=f"m{n}",
        chat=SPACE,
        role="assistant" if user.startswith("persona:") else "user",
        user=user,
        name=name,
        text=text,
        sent_at=T0 + timedelta(minutes=n),
        position=float(n),
        tokens=5,
        guest=guest,
    )


SAMS = (
    line(1, "web:sam-a", "Sam", "I have a heart condition and take warfarin"),
    line(2, "web:sam-b", "Sam", "I just moved to Leeds"),
    line(3, "persona:ember", "Ember", "Take care, both of you."),
    line(4, "web:g-1", "Sam", "I'm only visiting", guest=True),
    line(5, "web:sam-a", "Sam", "My daughter is called Ivy"),
)


def plan(facts: list[DeepFact], speakers: dict[str, str]) -> list[tuple[object, str]]:
    output = DeepOutput(facts=facts)
    policy = DeepPolicy(max_edits=5)
    return list(
        plan_deep(
            output,
            persona="ember",
            space=SPACE,
            speakers=speakers,
            existing=(),
            policy=policy,
            max_chars=500,
        )
    )


def test_two_people_with_one_name_get_two_labels_and_guests_and_the_persona_none() -> None:
    excerpt = deep_excerpt(SAMS)
    assert excerpt.speakers == {"P1": "web:sam-a", "P2": "web:sam-b"}
    assert excerpt.lines == (
        "[P1] Sam: I have a heart condition and take warfarin",
        "[P2] Sam: I just moved to Leeds",
        "Ember: Take care, both of you.",
        "Sam: I'm only visiting",
        "[P1] Sam: My daughter is called Ivy",
    )


def test_a_fact_lands_with_the_speaker_its_label_names_only() -> None:
    speakers = deep_excerpt(SAMS).speakers
    planned = plan(
        [
            DeepFact(text="Sam has a heart condition and takes warfarin", about="P1"),
            DeepFact(text="Sam moved to Leeds", about="[p2]"),
        ],
        speakers,
    )
    assert planned == [
        (personal_list("ember", "web:sam-a", SPACE), "Sam has a heart condition and takes warfarin"),
        (personal_list("ember", "web:sam-b", SPACE), "Sam moved to Leeds"),
    ]


def test_a_fact_about_a_name_or_nobody_known_is_not_saved() -> None:
    speakers = deep_excerpt(SAMS).speakers
    planned = plan(
        [
            DeepFact(text="Sam takes warfarin", about="Sam"),  # which Sam? ambiguous: not saved
            DeepFact(text="Sam takes warfarin", about="web:sam-a"),  # not a label of the excerpt
            DeepFact(text="Sam takes warfarin"),  # nobody named, two speakers
            DeepFact(text="The ward has a garden", scope="space", about="Sam"),  # the space's
        ],
        speakers,
    )
    assert planned == [(space_list("ember", SPACE), "The ward has a garden")]


def test_a_lone_speaker_owns_an_unattributed_fact_but_not_one_about_a_name() -> None:
    alone = deep_excerpt([line(1, "web:ana", "Ana", "I'm allergic to peanuts")]).speakers
    assert plan([DeepFact(text="Ana is allergic to peanuts")], alone) == [
        (personal_list("ember", "web:ana", SPACE), "Ana is allergic to peanuts")
    ]
    assert plan([DeepFact(text="Bob likes jazz", about="Bob")], alone) == []


def test_a_person_named_like_a_label_cannot_take_another_speakers_label() -> None:
    excerpt = deep_excerpt(
        [line(1, "web:eve", "P1", "I'm called P1 here"), line(2, "web:bo", "Bo", "I'm a nurse")]
    )
    assert excerpt.speakers == {"P2": "web:eve", "P3": "web:bo"}
    assert excerpt.lines[0] == "[P2] P1: I'm called P1 here"
    assert plan([DeepFact(text="Bo is a nurse", about="P1")], excerpt.speakers) == []
