"""Issue 16 in Telegram: ``/persona``, ``/memories`` in a private chat, swipes under ↻.

The real aiogram client and Dispatcher against the fake Bot API, real Redis and the fake
Anthropic server, with the harness of ``test_telegram.py`` on this module's own fake server.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.model import Persona
from storage.redis_persona_extras import RedisPersonaExtras
from tests.e2e.test_telegram import Harness, bot, group, person
from tests.e2e.test_telegram_memory import buttons, last_answer, press, say
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fakes.telegram_server import FakeTelegram

pytestmark = pytest.mark.e2e

__all__ = ["bot"]  # the harness fixture of test_telegram.py, run against this module's fake server

WREN = Persona(id="wren", name="Captain Wren", system_prompt="You are Captain Wren, a retired sky-pirate.")
SECRET = Persona(id="secret-muse", name="Secret Muse", system_prompt="You are someone's private muse.")


@pytest.fixture(scope="module")
def telegram() -> Any:
    with FakeTelegram(token="700316:ux-token") as fake:
        yield fake


async def personas(bot: Harness) -> None:
    await bot.hearth.service.personas.put(WREN)
    await bot.hearth.service.personas.put(SECRET)
    await RedisPersonaExtras(bot.hearth.redis, bot.hearth.keys).set_owner(SECRET.id, "someone")


def system_of(anthropic: FakeAnthropic) -> str:
    return json.dumps([r for r in anthropic.requests if r.path == "/v1/messages"][-1].body.get("system"))


async def test_persona_chooses_who_talks_in_a_private_chat(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    await personas(bot)
    alice = person(bot.fake)
    chat = bot.fake.private(alice)
    listing = await say(bot, chat, alice, "/persona")
    assert listing["text"].startswith("Ember talks here now.")
    shown = buttons(listing)
    assert "✓ Ember" in shown and "Captain Wren" in shown
    assert "Secret Muse" not in shown  # a web account's private persona is not offered
    picked = await press(bot, listing, alice, "Captain Wren")
    assert picked["text"].startswith("Captain Wren talks here now.") and "✓ Captain Wren" in buttons(picked)
    anthropic_fake.script(Reply(text="Arr, the skies were kinder then."))
    answered = await say(bot, chat, alice, "Tell me about your ship")
    assert answered["text"] == "Arr, the skies were kinder then."
    assert "Captain Wren, a retired sky-pirate" in system_of(anthropic_fake)
    greeting = await say(bot, chat, alice, "/persona ember")
    assert greeting["text"] == "Ember talks here now."
    missing = await say(bot, chat, alice, "/persona nobody")
    assert missing["text"].startswith("There is no persona 'nobody' here.")


async def test_in_a_group_only_admins_choose_the_persona(bot: Harness) -> None:
    await personas(bot)
    room, boss, member = group(bot.fake), person(bot.fake, "Boss"), person(bot.fake, "Mia")
    bot.fake.set_member(room["id"], boss["id"], "administrator")
    refused = await say(bot, room, member, "/persona wren")
    assert refused["text"] == "Only the group's admins can choose who talks here."
    listing = await say(bot, room, member, "/persona")  # anyone may look
    await press(bot, listing, member, "Captain Wren")
    assert last_answer(bot)["text"] == "Only the group's admins can choose who talks here."
    assert await bot.app.context.store.chat_persona(room["id"]) is None
    done = await press(bot, listing, boss, "Captain Wren")
    assert "✓ Captain Wren" in buttons(done)
    assert await bot.app.context.store.chat_persona(room["id"]) == "wren"


async def test_memories_in_a_private_chat_shows_the_persons_memories(bot: Harness) -> None:
    alice = person(bot.fake, "Alice")
    chat = bot.fake.private(alice)
    await say(bot, chat, alice, "/remember My sister is called Ana")
    await say(bot, chat, alice, "/remember I live in Porto")
    listing = await say(bot, chat, alice, "/memories")
    assert "No memories here yet" not in listing["text"]
    # stored in the third person with the sender's name (issue 28)
    assert "Alice's sister is called Ana" in listing["text"] and "Alice lives in Porto" in listing["text"]
    personal = await say(bot, chat, alice, "/personal")
    assert personal["text"] == listing["text"]


async def test_the_regenerate_button_keeps_the_old_reply_as_a_swipe(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(Reply(text="First take."), Reply(text="Second take."), Reply(text="Noted."))
    alice = person(bot.fake)
    chat = bot.fake.private(alice)
    first = await say(bot, chat, alice, "Say something")
    assert list(buttons(first)) == ["↻"]
    second = await press(bot, first, alice, "↻")
    assert second["message_id"] == first["message_id"] and second["text"] == "Second take."
    assert list(buttons(second)) == ["‹", "2/2", "↻"]
    back = await press(bot, second, alice, "‹")
    assert back["text"] == "First take." and list(buttons(back)) == ["1/2", "›", "↻"]
    assert last_answer(bot)["text"] == "Version 1 of 2"
    stored = await bot.stored(f"tg:{alice['id']}")
    assert stored[-1] == ("assistant", "First take.")  # the chosen one is what the next turn sees
    await say(bot, chat, alice, "Thanks")
    sent = json.dumps([r for r in anthropic_fake.requests if r.path == "/v1/messages"][-1].body["messages"])
    assert "First take." in sent and "Second take." not in sent


async def test_issue_31_about_tells_the_persona_who_you_are_under_your_telegram_name(
    bot: Harness, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31: ``/about`` keeps a description of the sender that reaches the prompt's
    ``user_persona`` slot, with their Telegram name as ``{{user}}``; too long is refused and
    changes nothing; ``/about clear`` forgets it."""
    alice = person(bot.fake)
    chat = bot.fake.private(alice)
    assert (await say(bot, chat, alice, "/about"))["text"].startswith("You have not told me about yourself")
    noted = await say(bot, chat, alice, "/about {{user}} keeps the lighthouse at Brest.")
    assert noted["text"].startswith("Noted.")
    refused = await say(bot, chat, alice, "/about " + "x" * 4001)
    assert "the limit is 4,000" in refused["text"]
    shown = await say(bot, chat, alice, "/about")
    assert shown["text"].endswith("keeps the lighthouse at Brest.")
    anthropic_fake.script(Reply(text="Fair winds."))
    await say(bot, chat, alice, "Evening!")
    name = alice["first_name"]
    assert f"About {name}, the person you are talking with:\\n{name} keeps the lighthouse at Brest." in (
        system_of(anthropic_fake)
    )
    assert (await say(bot, chat, alice, "/about clear"))["text"].startswith("Forgotten")
    anthropic_fake.script(Reply(text="Hm."))
    await say(bot, chat, alice, "Still there?")
    assert "the person you are talking with" not in system_of(anthropic_fake)
