"""The chat service with pictures (issue 30), on the in-memory fakes: what the model is sent,
what a model without vision gets, the notice once per chat, regenerate, the bound per chat."""

from __future__ import annotations

import msgspec
import pytest

from engine.errors import InvalidInput
from engine.images import Image, image_tokens
from engine.notices import NO_VISION_NOTICE
from engine.service import ReplyDone
from tests.fakes.ports import ScriptedChatModel
from tests.fixtures.pictures import jpeg, png
from tests.unit.service.world import World, drain


class SeeingModel(ScriptedChatModel):
    """The scripted model, reading pictures."""

    vision = True


async def _send(world: World, text: str, *images: bytes) -> list[object]:
    message = world.message(text)
    pictured = msgspec.structs.replace(
        message, images=tuple(Image(media_type="image/png", data=d) for d in images)
    )
    accepted = await world.service.accept(pictured, "default")
    return list(await drain(accepted.events))


async def test_issue_30_a_seeing_model_gets_the_pictures_bytes_on_the_user_message() -> None:
    model = SeeingModel()
    world = await World(model).start()
    picture = png(800, 600, seed=4)
    events = await _send(world, "what is this?", picture)
    assert isinstance(events[-1], ReplyDone) and events[-1].notices == ()
    (sent,) = [m for m in model.prompts[0].messages if m.images]
    assert sent.role == "user" and sent.text == "what is this?"
    assert [(i.media_type, i.data, i.width, i.height) for i in sent.images] == [
        ("image/png", picture, 800, 600)
    ]
    stored = (await world.chats.history("web:room", 10))[-2]
    assert stored.tokens >= image_tokens(800, 600)  # the window budget counts the picture


async def test_issue_30_a_model_without_vision_gets_a_placeholder_and_the_person_one_notice() -> None:
    model = ScriptedChatModel()
    world = await World(model).start()
    first = await _send(world, "look", png(640, 480))
    second = await _send(world, "and this one", png(32, 32))
    assert all(not m.images for p in model.prompts for m in p.messages)
    assert any(m.text == "[image: photo, 640×480] look" for m in model.prompts[0].messages)
    assert isinstance(first[-1], ReplyDone) and first[-1].notices == (NO_VISION_NOTICE,)
    assert isinstance(second[-1], ReplyDone) and second[-1].notices == ()


async def test_issue_30_a_picture_alone_is_a_message_and_a_bad_one_stores_nothing() -> None:
    world = await World(SeeingModel()).start()
    events = await _send(world, "", png())
    assert isinstance(events[-1], ReplyDone)
    with pytest.raises(InvalidInput) as refused:
        await _send(world, "five", *([png()] * 5))
    assert refused.value.code == "too_many_images"
    with pytest.raises(InvalidInput) as typed:
        await _send(world, "a jpeg called png", jpeg())
    assert typed.value.code == "image_type"
    assert await world.texts() == ["Hello, traveller!", "", "reply to:"]


async def test_issue_30_regenerate_sends_the_answered_messages_pictures_again() -> None:
    model = SeeingModel()
    world = await World(model).start()
    picture = png(10, 10, seed=9)
    done = (await _send(world, "describe it", picture))[-1]
    assert isinstance(done, ReplyDone)
    await drain(await world.service.regenerate("web:room", done.turn))
    again = [m for m in model.prompts[-1].messages if m.images]
    assert len(model.prompts) == 2 and [i.data for m in again for i in m.images] == [picture]


async def test_issue_30_only_the_three_newest_messages_with_pictures_carry_them() -> None:
    model = SeeingModel()
    world = await World(model).start()
    for n in range(6):
        await _send(world, f"picture {n}", png(20, 10, seed=n))
    last = model.prompts[-1]
    carried = [m for m in last.messages if m.images]
    assert [m.text for m in carried] == ["picture 3", "picture 4", "picture 5"]
    assert [m.text for m in last.messages if m.text.startswith("[image:")] == [
        f"[image: photo, 20×10] picture {n}" for n in range(3)
    ]


async def test_issue_30_editing_a_message_keeps_its_pictures_and_their_tokens() -> None:
    model = SeeingModel()
    world = await World(model).start()
    await _send(world, "frist look", png(750, 100))
    (sent,) = [m for m in await world.chats.history("web:room", 10) if m.images]
    edited = await world.controls.edit("web:room", sent.id, "web:alice", "first look")
    assert edited.images == sent.images and edited.tokens >= image_tokens(750, 100)
