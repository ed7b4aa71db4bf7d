"""Contract: ``MessageEdits`` and ``SwipeStore`` behave alike on the fake and on Redis."""

from __future__ import annotations

import msgspec
import pytest

from engine.images import ImageRef
from engine.model import StoredMessage
from tests.contract.builders import finish_reply, new_message, request_log, turn_of
from tests.contract.stores import Stores
from tests.fixtures.pictures import png

pytestmark = pytest.mark.contract

CHAT = "web:den"


async def test_an_edited_message_keeps_its_place(stores: Stores) -> None:
    chats, controls = stores.chats(), stores.controls()
    first = await chats.append(CHAT, new_message("helo"), pending=False, greeting=None)
    await chats.append(CHAT, new_message("next", minute=1), pending=False, greeting=None)
    await controls.replace_message(msgspec.structs.replace(first, text="hello"))
    assert [m.text for m in await chats.history(CHAT, 10)] == ["hello", "next"]


async def test_a_removed_message_leaves_the_log_and_the_queue(stores: Stores) -> None:
    chats, controls = stores.chats(), stores.controls()
    await chats.store_message(CHAT, new_message("oops"), pending=True, greeting=None)
    assert await controls.remove_message(CHAT, "m1") is True
    assert await controls.remove_message(CHAT, "m1") is False
    assert (await chats.history(CHAT, 10), await chats.oldest_pending(CHAT, 5.0)) == ([], None)
    assert await chats.message(CHAT, "m1") is None


async def test_a_requeued_message_awaits_a_reply_again(stores: Stores) -> None:
    """Issue 31: a message taken off the queue (its turn failed) can be put back on it."""
    chats, controls = stores.chats(), stores.controls()
    stored, _ = await chats.store_message(CHAT, new_message("anyone?"), pending=True, greeting=None)
    await chats.drop_pending(CHAT, stored.id)
    assert await chats.oldest_pending(CHAT, 5.0) is None
    await controls.requeue(stored)
    found = await chats.oldest_pending(CHAT, 5.0)
    assert found is not None and found.id == stored.id


async def test_swipes_collect_each_alternative_once(stores: Stores) -> None:
    controls = stores.controls()
    assert await controls.swipes(CHAT, "m1") == []
    assert await controls.add_swipe(CHAT, "m1", "t1", "t2") == ["t1", "t2"]
    assert await controls.add_swipe(CHAT, "m1", "t2", "t3") == ["t1", "t2", "t3"]
    assert await controls.add_swipe(CHAT, "m1", "t3", "t2") == ["t1", "t2", "t3"]
    assert await controls.swipes(CHAT, "m1") == ["t1", "t2", "t3"]
    assert await controls.swipes("web:other", "m1") == []


async def test_choosing_an_alternative_puts_its_reply_back(stores: Stores) -> None:
    chats, controls = stores.chats(), stores.controls()
    await chats.store_message(CHAT, new_message("ask"), pending=True, greeting=None)
    first = turn_of(CHAT, "t1", ("m1",), 1.0, reply_message="r-t1")
    await finish_reply(chats, CHAT, first, "first")
    old_reply = await chats.message(CHAT, "r-t1")
    second = turn_of(CHAT, "t2", ("m1",), 1.0, reply_message="r-t2")
    superseded = msgspec.structs.replace(first, status="superseded")
    await chats.finish(second, request_log(CHAT, "t2"), new_message("second", role="assistant"), superseded)
    assert old_reply is not None
    left = msgspec.structs.replace(second, status="superseded")
    picked = msgspec.structs.replace(first, status="done")
    await controls.choose(left, picked, old_reply)
    assert [m.text for m in await chats.history(CHAT, 10)] == ["ask", "first"]
    assert await chats.latest(CHAT) == picked
    assert await chats.answer_of(CHAT, "m1") == picked
    found = await chats.get(CHAT, "t2")
    assert found is not None and found[0].status == "superseded"


async def test_a_copy_brings_the_log_up_to_a_message_its_turns_and_books(stores: Stores) -> None:
    chats, controls, books = stores.chats(), stores.controls(), stores.books()
    await books.attach(CHAT, ["lb-1"])
    await chats.store_message(CHAT, new_message("one"), pending=True, greeting=None)
    await finish_reply(chats, CHAT, turn_of(CHAT, "t1", ("m1",), 1.0, reply_message="r-t1"), "reply one")
    await chats.store_message(CHAT, new_message("two", minute=1), pending=True, greeting=None)
    await finish_reply(chats, CHAT, turn_of(CHAT, "t2", ("m2",), 2.0, reply_message="r-t2"), "reply two")
    branch = "web:den=b-1"

    def shout(message: StoredMessage) -> StoredMessage:
        return msgspec.structs.replace(message, text=message.text.upper())

    copied = await controls.copy(CHAT, branch, upto=1.5, rewrite=shout)
    assert copied == 2
    copy = await chats.history(branch, 10)
    assert [(m.text, m.chat) for m in copy] == [("ONE", branch), ("REPLY ONE", branch)]
    latest = await chats.latest(branch)
    assert latest is not None and (latest.id, latest.chat) == ("t1", branch)
    assert await chats.get(branch, "t2") is None
    assert await stores.lore().attached(branch) == ["lb-1"]
    nxt = await chats.append(branch, new_message("three"), pending=False, greeting=None)
    assert nxt.id == "m3"  # the sequence continues after the source's


async def test_issue_30_a_branch_keeps_the_pictures_of_the_messages_it_copies(stores: Stores) -> None:
    chats, controls = stores.chats(), stores.controls()
    refs = (ImageRef(id="ia", media_type="image/png", width=8, height=6, size=10),)
    first = msgspec.structs.replace(new_message("look"), images=refs)
    later = msgspec.structs.replace(
        new_message("later", minute=1), images=(msgspec.structs.replace(refs[0], id="ib"),)
    )
    await chats.store_message(CHAT, first, pending=False, greeting=None, images=[("ia", png(seed=1))])
    await chats.store_message(CHAT, later, pending=False, greeting=None, images=[("ib", png(seed=2))])
    branch = "web:den=b-2"
    assert await controls.copy(CHAT, branch, upto=1.0) == 1
    assert await chats.images(branch, ["ia", "ib"]) == {"ia": png(seed=1)}
    assert await chats.images(CHAT, ["ia", "ib"]) == {"ia": png(seed=1), "ib": png(seed=2)}
