"""Pictures in messages (issue 30): the type check, the size parser, the token rule, placeholders,
which pictures a prompt carries, and how Anthropic's request shows them."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.llm.anthropic_format import estimate_request, to_messages_request
from engine.errors import InvalidInput
from engine.images import (
    MAX_IMAGE_BYTES,
    Image,
    ImageRef,
    check_images,
    dimensions,
    image_tokens,
    placeholder,
    sniff,
)
from engine.model import ModelSettings, Persona, StoredMessage
from engine.offline import NO_PICTURES, offline_reply
from engine.prompt import PromptParts, assemble_prompt
from engine.turn import recent_image_ids
from engine.window import Window
from tests.fixtures.pictures import gif, jpeg, png, webp_extended, webp_lossless, webp_lossy

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
PERSONA = Persona(id="p", name="Ember", system_prompt="You are Ember.")
SETTINGS = ModelSettings(name="claude-test", max_tokens=100)


@pytest.mark.parametrize(
    ("data", "kind", "size"),
    [
        (png(800, 600), "image/png", (800, 600)),
        (jpeg(640, 480), "image/jpeg", (640, 480)),
        (gif(320, 200), "image/gif", (320, 200)),
        (webp_lossy(400, 300), "image/webp", (400, 300)),
        (webp_lossless(100, 50), "image/webp", (100, 50)),
        (webp_extended(2000, 1000), "image/webp", (2000, 1000)),
    ],
)
def test_the_type_and_size_come_from_the_headers(data: bytes, kind: str, size: tuple[int, int]) -> None:
    assert sniff(data) == kind
    assert dimensions(data) == size


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"hello",
        b"%PDF-1.7 ...",
        png()[:20],
        b"\xff\xd8\xff\xe0\x00",
        b"RIFF\x00\x00\x00\x00WEBPVP8 ",
        b"GIF8",
    ],
)
def test_what_is_not_a_readable_picture_has_no_size(data: bytes) -> None:
    assert dimensions(data) is None


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=200))
def test_the_size_parser_never_raises_on_any_bytes(data: bytes) -> None:
    found = dimensions(data)
    assert found is None or (found[0] > 0 and found[1] > 0)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF89a", b"RIFF\x10\x00\x00\x00WEBP"]),
    st.binary(max_size=120),
)
def test_the_size_parser_never_raises_on_a_damaged_header(magic: bytes, tail: bytes) -> None:
    found = dimensions(magic + tail)
    assert found is None or min(found) > 0


def test_a_picture_costs_width_times_height_over_750_tokens_after_scaling() -> None:
    assert image_tokens(750, 100) == 100
    assert image_tokens(200, 200) == 54  # ceil(40,000 / 750)
    assert image_tokens(1092, 1092) == image_tokens(4000, 4000)  # scaled down: at most ~1,600
    assert 1500 <= image_tokens(4000, 4000) <= 1600
    assert image_tokens(3136, 100) == image_tokens(1568, 50)  # the long side goes to 1568
    assert image_tokens(0, 0) == 1600  # unknown: counted as the largest


def test_check_refuses_a_fifth_picture_a_large_one_and_a_non_picture_naming_the_problem() -> None:
    one = (None, png())
    assert len(check_images([one] * 4)) == 4
    with pytest.raises(InvalidInput) as many:
        check_images([one] * 5)
    assert many.value.code == "too_many_images" and "at most 4" in many.value.message
    with pytest.raises(InvalidInput) as large:
        check_images([one, ("image/png", png(pad=MAX_IMAGE_BYTES))])
    assert large.value.code == "image_too_large" and "Image 2" in large.value.message
    with pytest.raises(InvalidInput) as text:
        check_images([("image/png", b"just some text, not a picture")])
    assert text.value.code == "image_type"
    with pytest.raises(InvalidInput) as lied:
        check_images([("image/png", jpeg())])  # the bytes decide, not the declared type
    assert lied.value.code == "image_type" and "JPEG" in lied.value.message


def test_checked_pictures_carry_the_type_their_bytes_say_and_their_size() -> None:
    (checked,) = check_images([(None, webp_lossy(400, 300))])
    assert (checked.media_type, checked.width, checked.height) == ("image/webp", 400, 300)


def test_a_placeholder_names_the_kind_and_size() -> None:
    assert placeholder(ImageRef(id="i1", media_type="image/jpeg", width=800, height=600)) == (
        "[image: photo, 800×600]"
    )
    assert placeholder(ImageRef(id="i1", media_type="image/gif")) == "[image: animation]"


def _msg(i: int, role: str, text: str, refs: tuple[ImageRef, ...] = ()) -> StoredMessage:
    return StoredMessage(
        id=f"m{i}",
        chat="web:c",
        role=role,  # type: ignore[arg-type]
        user="web:ana" if role == "user" else "persona:p",
        name="Ana",
        text=text,
        sent_at=NOW,
        position=float(i),
        tokens=5,
        images=refs,
    )


def _ref(n: int) -> ImageRef:
    return ImageRef(id=f"i{n}", media_type="image/png", width=8, height=6, size=100)


def test_only_the_newest_three_user_messages_with_pictures_carry_them() -> None:
    messages = tuple(_msg(i, "user", f"look {i}", (_ref(i),)) for i in range(1, 6))
    assert recent_image_ids(messages) == ("i3", "i4", "i5")
    assert recent_image_ids((*messages, _msg(6, "user", "no picture"))) == ("i3", "i4", "i5")
    assert recent_image_ids(messages, keep=0) == ()


def _parts(messages: tuple[StoredMessage, ...], pictures: dict[str, Image]) -> PromptParts:
    window = Window(messages=messages, tokens=5, budget=10_000, dropped=0)
    return PromptParts(persona=PERSONA, window=window, pictures=pictures, answering=1)


def test_pictures_not_carried_leave_a_placeholder_in_front_of_the_text() -> None:
    old, new = _ref(1), _ref(2)
    picture = Image(media_type="image/png", data=png(), width=8, height=6)
    prompt = assemble_prompt(
        _parts((_msg(1, "user", "first", (old,)), _msg(2, "user", "second", (new,))), {"i2": picture})
    )
    window = [m for m in prompt.messages if m.slot == "window"]
    assert window[0].text == "[image: photo, 8×6] first" and window[0].images == ()
    assert window[1].text == "second" and window[1].images == (picture,)


def test_anthropic_gets_image_blocks_before_the_text_with_the_same_bytes() -> None:
    data = png(8, 6, seed=3)
    picture = Image(media_type="image/png", data=data, width=8, height=6)
    messages = (
        _msg(1, "user", "hello"),
        _msg(2, "assistant", "hi"),
        _msg(3, "user", "what is this?", (_ref(3),)),
    )
    request = to_messages_request(assemble_prompt(_parts(messages, {"i3": picture})), SETTINGS)
    last = request["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["image", "text"]
    assert last[0]["source"]["media_type"] == "image/png"
    assert base64.b64decode(last[0]["source"]["data"]) == data
    marks = [b for m in request["messages"] for b in m["content"] if "cache_control" in b] + [
        b for b in request.get("system", []) if "cache_control" in b
    ]
    assert 1 <= len(marks) <= 4


def test_a_message_of_pictures_alone_sends_no_empty_text_and_caches_after_its_picture() -> None:
    picture = Image(media_type="image/png", data=png(), width=8, height=6)
    messages = (
        _msg(1, "user", "", (_ref(1),)),
        _msg(2, "assistant", "a cat"),
        _msg(3, "user", "and now?"),
    )
    request = to_messages_request(assemble_prompt(_parts(messages, {"i1": picture})), SETTINGS)
    first = request["messages"][0]["content"]
    assert [b["type"] for b in first] == ["image"]
    assert all(b.get("text") != "" for m in request["messages"] for b in m["content"])
    # the mark after the window's older messages sits on the reply before the answered message
    assert "cache_control" in request["messages"][1]["content"][-1]


def test_the_request_estimate_counts_a_picture_by_its_size_not_its_base64() -> None:
    big = png(1000, 750, pad=200_000)  # 200 KB of base64 text would be ~70,000 "tokens"
    picture = Image(media_type="image/png", data=big, width=1000, height=750)
    with_picture = to_messages_request(
        assemble_prompt(_parts((_msg(1, "user", "look", (_ref(1),)),), {"i1": picture})), SETTINGS
    )
    without = to_messages_request(assemble_prompt(_parts((_msg(1, "user", "look"),), {})), SETTINGS)
    assert estimate_request(with_picture) - estimate_request(without) == image_tokens(1000, 750)


def test_the_offline_model_says_it_cannot_see_a_picture() -> None:
    prompt = assemble_prompt(_parts((_msg(1, "user", "what is this?", (_ref(1),)),), {}))
    reply = offline_reply(prompt, "Ember")
    assert "Offline model" in reply and NO_PICTURES in reply
    assert NO_PICTURES not in offline_reply(assemble_prompt(_parts((_msg(1, "user", "hi"),), {})), "Ember")
