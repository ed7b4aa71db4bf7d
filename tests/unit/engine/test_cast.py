"""CAST-1..CAST-6: who answers in a chat with several personas (issue 33)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cast import Cast, check_cast, follower, named_in, reply_cap, reply_slot, speakers, swipe_key
from engine.errors import InvalidInput

NAMES = {"lyra": ["Lyra"], "bram": ["Bram", "the smith"], "ada": ["Ada"]}
TALK = {"lyra": 0.5, "bram": 0.5, "ada": 0.5}


def pick(
    cast: Cast, text: str, recent: list[str], *, requested: str | None = None, seed: int = 7
) -> list[str]:
    return speakers(
        cast,
        text=text,
        names=NAMES,
        recent_speakers=recent,
        talkativeness=TALK,
        requested=requested,
        seed=seed,
    )


def test_cast_2_the_named_persona_answers_first() -> None:
    """Issue 33: "Bram, what do you think?" is answered by Bram."""
    cast = Cast(personas=("lyra", "bram"))
    assert pick(cast, "Bram, what do you think?", ["lyra"]) == ["bram"]
    assert pick(cast, "what does the smith say?", ["lyra"]) == ["bram"]
    assert pick(cast, "@lyra hello", ["bram"]) == ["lyra"]


def test_cast_2_names_are_whole_words_in_order_of_appearance() -> None:
    cast = Cast(personas=("lyra", "bram", "ada"), max_replies=3)
    assert named_in("Brambles and lyras", NAMES, cast.personas) == []
    assert pick(cast, "Ada first, then Lyra and BRAM", []) == ["ada", "lyra", "bram"]


def test_cast_5_replies_are_capped_at_n() -> None:
    cast = Cast(personas=("lyra", "bram", "ada"), max_replies=2)
    assert pick(cast, "Ada, Lyra and Bram: hello", []) == ["ada", "lyra"]
    assert reply_cap(Cast(personas=("lyra",), max_replies=5)) == 1


def test_cast_2_with_nobody_named_the_last_speaker_does_not_answer() -> None:
    cast = Cast(personas=("lyra", "bram", "ada"))
    for seed in range(50):
        (one,) = pick(cast, "hello everyone", ["ada", "bram"], seed=seed)
        assert one != "bram"


def test_cast_2_talkativeness_weighs_the_draw() -> None:
    cast = Cast(personas=("lyra", "bram", "ada"))
    talk = {"lyra": 1.0, "bram": 0.05, "ada": 0.0}
    drawn = [
        speakers(
            cast, text="hi", names=NAMES, recent_speakers=[], talkativeness=talk, requested=None, seed=s
        )[0]
        for s in range(200)
    ]
    assert drawn.count("lyra") > drawn.count("bram") * 3
    assert "ada" not in drawn


def test_cast_6_a_named_persona_yields_after_two_replies_in_a_row() -> None:
    cast = Cast(personas=("lyra", "bram"))
    assert pick(cast, "Bram, again?", ["bram", "bram"]) == ["lyra"]
    assert pick(Cast(personas=("bram",)), "Bram, again?", ["bram", "bram"]) == ["bram"]
    assert pick(Cast(personas=("lyra", "bram"), muted=("lyra",)), "Bram?", ["bram", "bram"]) == ["bram"]


def test_cast_3_list_order_rotates_after_the_last_speaker() -> None:
    cast = Cast(personas=("lyra", "bram", "ada"), strategy="list")
    assert pick(cast, "hi", []) == ["lyra"]
    assert pick(cast, "hi", ["lyra"]) == ["bram"]
    assert pick(cast, "hi", ["ada"]) == ["lyra"]
    assert pick(Cast(personas=("lyra", "bram", "ada"), strategy="list", max_replies=2), "hi", ["lyra"]) == [
        "bram",
        "ada",
    ]


def test_cast_4_manual_answers_only_when_asked() -> None:
    """Issue 33: ``manual`` answers only when named."""
    cast = Cast(personas=("lyra", "bram"), strategy="manual")
    assert pick(cast, "hello there", ["lyra"]) == []
    assert pick(cast, "Lyra?", []) == ["lyra"]
    assert pick(cast, "hello", [], requested="bram") == ["bram"]
    assert pick(cast, "Lyra?", [], requested="bram") == ["bram"]


def test_cast_6_muted_members_answer_only_when_requested() -> None:
    cast = Cast(personas=("lyra", "bram"), muted=("bram",))
    assert pick(cast, "Bram, you there?", ["lyra", "lyra"]) == ["lyra"]
    assert pick(cast, "you there?", [], requested="bram") == ["bram"]
    assert pick(Cast(personas=("bram",), muted=("bram",)), "hi", []) == []


def test_cast_5_a_reply_naming_another_member_lets_it_follow_within_n() -> None:
    cast = Cast(personas=("lyra", "bram", "ada"), max_replies=2)
    args = {"names": NAMES, "recent_speakers": ["lyra"]}
    assert follower(cast, reply="What do you say, Bram?", speaker="lyra", spoken=["lyra"], **args) == "bram"
    assert follower(cast, reply="I said, Lyra.", speaker="lyra", spoken=["lyra"], **args) is None
    assert follower(cast, reply="Ada?", speaker="bram", spoken=["lyra", "bram"], **args) is None
    listed = Cast(personas=("lyra", "bram"), strategy="list", max_replies=2)
    assert follower(listed, reply="Bram?", speaker="lyra", spoken=["lyra"], **args) is None


def test_cast_1_bad_casts_are_refused_with_a_code() -> None:
    known = {"lyra", "bram"}
    cases = [
        (Cast(personas=()), "cast_empty"),
        (Cast(personas=("lyra", "lyra")), "cast_duplicate"),
        (Cast(personas=("lyra", "zed")), "unknown_persona"),
        (Cast(personas=("lyra",), strategy="loud"), "bad_strategy"),  # type: ignore[arg-type]
        (Cast(personas=("lyra",), muted=("bram",)), "muted_not_in_cast"),
        (Cast(personas=("lyra",), max_replies=2), "bad_max_replies"),
        (Cast(personas=("lyra", "bram")), None),
    ]
    for cast, code in cases:
        if code is None:
            assert check_cast(cast, known) == cast
            continue
        with pytest.raises(InvalidInput) as refused:
            check_cast(cast, known)
        assert refused.value.code == code
    with pytest.raises(InvalidInput) as refused:
        check_cast(Cast(personas=("lyra", "bram")), known, limit=1)
    assert refused.value.code == "cast_too_large"


MEMBERS = ["lyra", "bram", "ada"]
casts = st.builds(
    lambda members, strategy, muted, n: Cast(
        personas=tuple(members),
        strategy=strategy,
        muted=tuple(m for m in members if m in muted),
        max_replies=n,
    ),
    st.lists(st.sampled_from(MEMBERS), min_size=1, max_size=3, unique=True),
    st.sampled_from(["natural", "list", "manual"]),
    st.sets(st.sampled_from(MEMBERS)),
    st.integers(min_value=1, max_value=3),
)
messages = st.lists(
    st.tuples(
        st.sampled_from(["hi", "Bram?", "Lyra and Ada", "the smith, Lyra", "Ada Ada", "nobody"]),
        st.one_of(st.none(), st.sampled_from(MEMBERS)),
        st.integers(min_value=0, max_value=2**32),
    ),
    min_size=1,
    max_size=40,
)


@given(casts, messages, st.dictionaries(st.sampled_from(MEMBERS), st.floats(0, 1)))
def test_cast_properties_over_a_conversation(
    cast: Cast, conversation: list[tuple[str, str | None, int]], talk: dict[str, float]
) -> None:
    """CAST-5/6 as properties: at most N distinct members a message; muted only when requested;
    never three in a row while another unmuted member is present (natural, list); deterministic."""
    awake = [p for p in cast.personas if p not in cast.muted]
    history: list[str] = []
    for text, requested, seed in conversation:
        args = {
            "text": text,
            "names": NAMES,
            "recent_speakers": list(history),
            "talkativeness": talk,
            "seed": seed,
        }
        chosen = speakers(cast, requested=requested, **args)  # type: ignore[arg-type]
        assert chosen == speakers(cast, requested=requested, **args)  # type: ignore[arg-type]
        assert len(chosen) <= reply_cap(cast)
        assert len(set(chosen)) == len(chosen)
        assert all(p in cast.personas for p in chosen)
        for persona in chosen:
            if persona in cast.muted:
                assert persona == requested
        for persona in chosen:
            if persona != requested and cast.strategy != "manual" and len(awake) > 1:
                assert history[-2:] != [persona, persona]
            history.append(persona)
        if cast.strategy != "manual" and awake and requested is None:
            assert chosen, "natural and list always find someone while a member is awake"


@given(messages)
def test_cast_6_natural_never_three_in_a_row_without_requests(
    conversation: list[tuple[str, str | None, int]],
) -> None:
    """Issue 33: a natural-order chat never lets one persona answer three times running."""
    cast = Cast(personas=("lyra", "bram", "ada"), max_replies=2)
    history: list[str] = []
    for text, _, seed in conversation:
        chosen = speakers(
            cast,
            text=text,
            names=NAMES,
            recent_speakers=history,
            talkativeness=TALK,
            requested=None,
            seed=seed,
        )
        history.extend(chosen)
        assert all(history[i : i + 3] != [history[i]] * 3 for i in range(len(history) - 2))


def test_cast_1_later_replies_to_one_message_get_their_own_slot_and_swipes() -> None:
    """Issue 33: the k-th reply to a message sits after the ones before it and before the next
    message; its alternatives are kept apart from the first reply's."""
    assert reply_slot(7.0, [6.5, 7.0]) == 7.0
    assert reply_slot(7.0, [7.0, 7.5]) == 7.01
    assert reply_slot(7.0, [7.0, 7.5, 7.51, 8.0]) == 7.02
    assert swipe_key("m7", 7.0) == "m7"
    assert swipe_key("m7", 7.01) == "m7~1"
    assert swipe_key("m7", 7.02) == "m7~2"
    assert swipe_key("m7", 7.52) == "m7~2"  # the reply's own position
    assert swipe_key("m7", 7.5) == "m7"  # an imported chat's turn sits at its reply's position
