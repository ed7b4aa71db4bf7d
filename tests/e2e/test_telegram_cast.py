"""A Telegram group served by two bots, one per persona (issue 33; CAST-2, CAST-4, PLT-1, PLT-2).

In-process like ``test_telegram.py``: the real aiogram client and one Dispatcher for both bots
against the fake Bot API (two tokens, shared chats), real Redis and the fake Anthropic server.
Telegram gives each bot in a group its own copy of a person's message; here both copies are
fed at once, each to its bot, as two pollers would.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiogram.types import Update

from adapters.bootstrap import Hearth, build, install_personas
from adapters.telegram.bot import TelegramApp
from adapters.telegram.delivery import DeliveryPolicy
from config.settings import load_settings
from engine.cast import Cast as CastRule
from engine.errors import ConfigError
from tests.e2e.test_telegram import person, running_bot
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, Reply
from tests.fakes.telegram_server import FakeTelegram
from tests.fixtures.servers import API_KEY, ROOT, RedisServer

pytestmark = pytest.mark.e2e

FAST = DeliveryPolicy(private_interval=0.1, group_interval=0.1, typing_every=0.5)
LYRA, BRAM = "700501:lyra-token-XYZZY", "700502:bram-token-XYZZY"
PERSONAS = {
    "lyra": 'name = "Lyra"\ngreeting = "Hello."\nsystem_prompt = "You are Lyra, a LYRA-PROMPT bard."\n',
    "bram": 'name = "Bram"\ngreeting = "Hi."\nsystem_prompt = "You are Bram, a BRAM-PROMPT smith."\n',
}


def persona_folder(root: Path) -> Path:
    """The default persona plus Lyra and Bram."""
    folder = root / "personas"
    folder.mkdir()
    shutil.copy(ROOT / "config" / "personas" / "default.toml", folder / "default.toml")
    for persona, toml in PERSONAS.items():
        (folder / f"{persona}.toml").write_text(toml)
    return folder


@pytest.fixture(scope="module")
def telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram(token=LYRA, username="lyra_bot", first_name="Lyra") as fake:
        fake.bot().reads_all = True
        fake.add_bot(BRAM, "bram_bot", "Bram", reads_all=True)
        yield fake


@pytest.fixture(scope="module")
def personas(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return persona_folder(tmp_path_factory.mktemp("cast"))


class Cast:
    """Both bots of one test: deliver a message to them, read what the chat shows and stores."""

    def __init__(self, hearth: Hearth, app: TelegramApp, fake: FakeTelegram) -> None:
        self.hearth, self.app, self.fake = hearth, app, fake

    async def deliver(self, update: dict[str, Any], *tokens: str) -> None:
        """Each bot of ``tokens`` (both by default) receives its copy, at the same time."""
        copies = self.fake.copies(update, *(tokens or (LYRA, BRAM)))
        bots = {bot.token: bot for bot in self.app.bots}
        await asyncio.gather(
            *(
                self.app.feed(Update.model_validate(copy, context={"bot": bots[token]}), bots[token])
                for token, copy in copies.items()
            )
        )
        await self.app.context.replies.wait()

    async def stored(self, chat_id: int) -> list[tuple[str, str, str]]:
        """The chat's log from the first person's message on (before it: the opening greeting)."""
        found = await self.hearth.service.chats.history(f"tg:{chat_id}", 100)
        start = next((n for n, m in enumerate(found) if m.role == "user"), len(found))
        return [(m.role, m.persona if m.role == "assistant" else m.name, m.text) for m in found[start:]]

    def said(self, chat_id: int) -> dict[str, list[str]]:
        """What each bot's messages in the chat say."""
        return {
            name: [m["text"] for m in self.fake.bot_messages(chat_id, token)]
            for name, token in (("lyra", LYRA), ("bram", BRAM))
        }


@asynccontextmanager
async def running_cast(
    redis_server: RedisServer, anthropic: FakeAnthropic, telegram: FakeTelegram, personas: Path
) -> AsyncIterator[Cast]:
    env = {
        "REDIS_URL": redis_server.db(15),
        "ANTHROPIC_API_KEY": API_KEY,
        "ANTHROPIC_BASE_URL": anthropic.base_url,
        "HEARTH_LLM_MAX_RETRIES": "0",
        "HEARTH_EMBEDDER": "hash",
        "HEARTH_PERSONAS": str(personas),
        "TELEGRAM_BOT_TOKENS": f"lyra={LYRA},bram={BRAM}",
        "TELEGRAM_API_BASE": telegram.base_url,
    }
    hearth = build(load_settings(env))
    await install_personas(hearth)
    app = TelegramApp.from_hearth(hearth, policy=FAST)
    await app.check_personas(hearth.service)
    try:
        yield Cast(hearth, app, telegram)
    finally:
        await app.close()
        await hearth.service.model.client.close()  # type: ignore[attr-defined]  # Hearth.close keeps it open
        await hearth.close()


@pytest.fixture
async def cast(
    redis_server: RedisServer, anthropic_fake: FakeAnthropic, telegram: FakeTelegram, personas: Path
) -> AsyncIterator[Cast]:
    async with running_cast(redis_server, anthropic_fake, telegram, personas) as found:
        yield found


def group(fake: FakeTelegram, *, basic: bool = False) -> dict[str, Any]:
    return fake.group(-(10**12) - secrets.randbelow(10**9), basic=basic)


def requests(fake: FakeAnthropic) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.path == "/v1/messages"]


def system(request: RecordedRequest) -> str:
    raw = request.body.get("system", "")
    return raw if isinstance(raw, str) else " ".join(b.get("text", "") for b in raw)


async def test_issue_33_a_message_both_bots_receive_is_stored_once_and_answered_by_the_persona_it_names(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-2, PLT-2 (issue 33): "Bram, ..." reaches both bots: stored once, answered once, by Bram,
    through Bram's bot, quoting the message."""
    anthropic_fake.script(Reply(text="The forge says yes."))
    room, alice = group(cast.fake), person(cast.fake)
    ask = cast.fake.message(room, alice, "Bram, what do you think of the new blade?")
    await cast.deliver(ask)
    assert await cast.stored(room["id"]) == [
        ("user", "Alice", "Bram, what do you think of the new blade?"),
        ("assistant", "bram", "The forge says yes."),
    ]
    (request,) = requests(anthropic_fake)
    assert "BRAM-PROMPT" in system(request) and "LYRA-PROMPT" not in system(request)
    assert cast.said(room["id"]) == {"lyra": [], "bram": ["The forge says yes."]}
    (reply,) = cast.fake.bot_messages(room["id"], BRAM)
    assert reply["reply_to_message"]["message_id"] == ask["message"]["message_id"]


async def test_issue_33_as_makes_the_named_persona_answer(cast: Cast, anthropic_fake: FakeAnthropic) -> None:
    """CAST-4 (issue 33): ``/as lyra ...``: Lyra answers through her bot; what follows the name is stored."""
    anthropic_fake.script(Reply(text="Once upon a time..."), Reply(text="Iron and fire."))
    room, alice = group(cast.fake), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "/as lyra tell us a story"))
    await cast.deliver(cast.fake.message(room, alice, "/as @bram_bot and you?"))
    assert await cast.stored(room["id"]) == [
        ("user", "Alice", "tell us a story"),
        ("assistant", "lyra", "Once upon a time..."),
        ("user", "Alice", "and you?"),
        ("assistant", "bram", "Iron and fire."),
    ]
    first, second = requests(anthropic_fake)
    assert "LYRA-PROMPT" in system(first) and "BRAM-PROMPT" in system(second)
    assert cast.said(room["id"]) == {"lyra": ["Once upon a time..."], "bram": ["Iron and fire."]}


async def test_issue_33_as_with_an_unknown_name_says_who_is_in_the_cast_and_stores_nothing(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-4 (issue 33): a name outside the cast is answered once, by one bot, with the members' names."""
    room, alice = group(cast.fake), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "/as zed hello"))
    said = cast.said(room["id"])
    (hint,) = said["lyra"] + said["bram"]
    assert "'zed'" in hint and "Lyra" in hint and "Bram" in hint
    assert await cast.stored(room["id"]) == [] and requests(anthropic_fake) == []


async def test_issue_33_a_message_that_names_nobody_gets_exactly_one_reply(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-2, CAST-6 (issue 33): nobody named — one persona is drawn; three such messages never get
    the same persona three times running, and each gets one reply."""
    anthropic_fake.script(*(Reply(text=f"reply {n}") for n in range(3)))
    room, alice = group(cast.fake), person(cast.fake)
    for text in ("Good evening, everyone.", "Any news from the road?", "Who is buying the next round?"):
        await cast.deliver(cast.fake.message(room, alice, text))
    stored = await cast.stored(room["id"])
    assert [role for role, _, _ in stored] == ["user", "assistant"] * 3
    speakers = [who for role, who, _ in stored if role == "assistant"]
    assert set(speakers) <= {"lyra", "bram"} and len(set(speakers)) == 2  # no one thrice running
    said = cast.said(room["id"])
    assert len(said["lyra"]) + len(said["bram"]) == 3 == len(requests(anthropic_fake))
    texts = ["reply 0", "reply 1", "reply 2"]
    assert said["lyra"] == [text for who, text in zip(speakers, texts, strict=True) if who == "lyra"]


async def test_issue_33_a_mention_or_a_reply_to_a_bot_picks_its_persona(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """PLT-2 (issue 33): ``@lyra_bot`` is answered by Lyra; a reply to Bram's message by Bram."""
    anthropic_fake.script(Reply(text="Lyra here."), Reply(text="Bram here."), Reply(text="Bram again."))
    room, alice = group(cast.fake), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "@lyra_bot sing something"))
    await cast.deliver(cast.fake.message(room, alice, "/as bram your turn"))
    (bram_said,) = cast.fake.bot_messages(room["id"], BRAM)
    await cast.deliver(cast.fake.message(room, alice, "really?", reply_to=bram_said))
    stored = await cast.stored(room["id"])
    assert [who for role, who, _ in stored if role == "assistant"] == ["lyra", "bram", "bram"]
    assert cast.said(room["id"]) == {"lyra": ["Lyra here."], "bram": ["Bram here.", "Bram again."]}
    replies = await cast.hearth.service.chats.history(f"tg:{room['id']}", 100)
    assert replies[-2].reply_to == replies[-3].id  # the reply names the stored message of Bram's it answers


async def test_issue_33_a_basic_group_s_copies_with_different_ids_are_stored_once(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 33: a basic group numbers messages per bot; sender, time and text still make them one."""
    anthropic_fake.script(Reply(text="One answer."))
    room, alice = group(cast.fake, basic=True), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "Lyra, are you there?"))
    assert await cast.stored(room["id"]) == [
        ("user", "Alice", "Lyra, are you there?"),
        ("assistant", "lyra", "One answer."),
    ]
    assert cast.said(room["id"]) == {"lyra": ["One answer."], "bram": []}


async def test_issue_33_a_bot_that_left_the_group_is_not_in_its_cast(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-1 (issue 33): the group's cast is the bound bots that are members; Bram's bot left."""
    anthropic_fake.script(*(Reply(text=f"reply {n}") for n in range(3)))
    room, alice = group(cast.fake), person(cast.fake)
    cast.fake.set_member(room["id"], cast.fake.bot(BRAM).bot_id, "left")
    for text in ("Evening!", "Bram, are you here?", "Anyone?"):
        await cast.deliver(cast.fake.message(room, alice, text), LYRA)
    assert cast.said(room["id"]) == {"lyra": ["reply 0", "reply 1", "reply 2"], "bram": []}


async def test_issue_33_a_bot_in_privacy_mode_answers_its_mentions_and_says_so_once(
    redis_server: RedisServer, anthropic_fake: FakeAnthropic, telegram: FakeTelegram, personas: Path
) -> None:
    """Issue 33 item 4: Bram's bot sees only mentions (privacy on, not an admin): a mention of it is
    answered by Bram, and the group is told once why other messages go unanswered."""
    telegram.bot(BRAM).reads_all = False
    try:
        async with running_cast(redis_server, anthropic_fake, telegram, personas) as cast:
            anthropic_fake.script(Reply(text="I see you."), Reply(text="Still here."))
            room, alice = group(cast.fake), person(cast.fake)
            await cast.deliver(cast.fake.message(room, alice, "@bram_bot hello?"), BRAM)
            await cast.deliver(cast.fake.message(room, alice, "@bram_bot again"), BRAM)
            notice, *answers = cast.said(room["id"])["bram"]
            assert "only see messages here that mention me" in notice and "/setprivacy" in notice
            assert answers == ["I see you.", "Still here."] and cast.said(room["id"])["lyra"] == []
    finally:
        telegram.bot(BRAM).reads_all = True


async def test_issue_33_a_private_chat_with_a_bound_bot_is_answered_by_its_persona(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """PLT-2 (issue 33): in a private chat each bound bot speaks as its own persona."""
    anthropic_fake.script(Reply(text="Bram, at your service."))
    alice = person(cast.fake)
    update = cast.fake.message(cast.fake.private(alice), alice, "hi there")
    await cast.deliver(update, BRAM)
    (request,) = requests(anthropic_fake)
    assert "BRAM-PROMPT" in system(request)
    assert [m["text"] for m in cast.fake.bot_messages(alice["id"], BRAM)] == ["Bram, at your service."]


async def test_issue_33_regenerate_in_a_group_is_done_by_the_bot_that_wrote_the_reply(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """MEM-7, PLT-3 (issue 33): ``/regenerate`` reaches both bots; Bram's reply is rewritten in place
    by Bram's bot (only it can edit its messages), and Lyra's bot says nothing."""
    anthropic_fake.script(Reply(text="First try."), Reply(text="Second try."))
    room, alice = group(cast.fake), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "/as bram hello"))
    (first,) = cast.fake.bot_messages(room["id"], BRAM)
    await cast.deliver(cast.fake.message(room, alice, "/regenerate"))
    (again,) = cast.fake.bot_messages(room["id"], BRAM)
    assert again["message_id"] == first["message_id"] and again["text"] == "Second try."
    assert cast.said(room["id"])["lyra"] == []
    assert "BRAM-PROMPT" in system(requests(anthropic_fake)[-1])


async def test_issue_33_a_bot_removed_from_the_group_leaves_its_cast_when_it_cannot_post(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-1 (issue 33): Bram's bot is removed after the group was first seen; the reply it was
    chosen for is refused (403), so it leaves the cast and Lyra answers the next message."""
    anthropic_fake.script(Reply(text="Hi."), Reply(text="Bram would say this."), Reply(text="Lyra now."))
    room, alice = group(cast.fake), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "/as lyra hello"), LYRA)  # both bots are members
    cast.fake.set_member(room["id"], cast.fake.bot(BRAM).bot_id, "kicked")
    await cast.deliver(cast.fake.message(room, alice, "/as bram still there?"), LYRA)
    await cast.deliver(cast.fake.message(room, alice, "Bram? Anyone?"), LYRA)
    assert cast.said(room["id"]) == {"lyra": ["Hi.", "Lyra now."], "bram": []}
    assert [who for role, who, _ in await cast.stored(room["id"]) if role == "assistant"] == [
        "lyra",
        "bram",
        "lyra",
    ]


async def test_issue_33_persona_on_a_bound_bot_says_whom_it_speaks_as(cast: Cast) -> None:
    """PLT-3 (issue 33): a persona-bound bot cannot switch persona; ``/persona`` says so and points to /as."""
    alice = person(cast.fake)
    await cast.deliver(cast.fake.message(cast.fake.private(alice), alice, "/persona lyra"), BRAM)
    (said,) = [m["text"] for m in cast.fake.bot_messages(alice["id"], BRAM)]
    assert said.startswith("This bot always speaks as Bram.") and "/as" in said


def turns(request: RecordedRequest) -> list[tuple[str, str]]:
    """The request's conversation as (role, text) pairs."""
    found = []
    for message in request.body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        found += [(message["role"], b["text"]) for b in blocks if b.get("type") == "text"]
    return found


async def test_issue_33_the_group_is_one_conversation_with_each_reply_attributed(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-1 (issue 33): the group's bots become the chat's cast, so Bram's request shows Lyra's
    earlier reply as Lyra's, not as his own."""
    anthropic_fake.script(Reply(text="A ballad of the north."), Reply(text="Fine verses."))
    room, alice = group(cast.fake), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "/as lyra sing"))
    await cast.deliver(cast.fake.message(room, alice, "Bram, did you like it?"))
    _, bram_request = requests(anthropic_fake)
    assert "BRAM-PROMPT" in system(bram_request)
    assert any(
        role == "user" and "Lyra: A ballad of the north." in text for role, text in turns(bram_request)
    )
    cast_now = await cast.hearth.service.cast_of(f"tg:{room['id']}")
    assert cast_now is not None and cast_now.personas == ("lyra", "bram")


async def test_issue_33_a_cast_set_through_rest_decides_in_the_group(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-4 (issue 33): a manual cast set for the group's chat is kept: a message naming nobody
    is stored without a reply; one naming Bram is answered by Bram's bot."""
    room, alice = group(cast.fake), person(cast.fake)
    chat = f"tg:{room['id']}"
    await cast.hearth.service.set_cast(chat, CastRule(personas=("lyra", "bram"), strategy="manual"))
    anthropic_fake.script(Reply(text="You called?"))
    await cast.deliver(cast.fake.message(room, alice, "nice weather today"))
    await cast.deliver(cast.fake.message(room, alice, "Bram, the hinge squeaks"))
    assert cast.said(room["id"]) == {"lyra": [], "bram": ["You called?"]}
    assert [role for role, _, _ in await cast.stored(room["id"])] == ["user", "user", "assistant"]
    kept = await cast.hearth.service.cast_of(chat)
    assert kept is not None and kept.strategy == "manual"


async def test_issue_33_with_two_replies_allowed_the_second_comes_from_its_own_bot(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-5 (issue 33): max_replies 2; Lyra's reply calls on Bram, and Bram's bot sends his."""
    room, alice = group(cast.fake), person(cast.fake)
    chat = f"tg:{room['id']}"
    await cast.hearth.service.set_cast(chat, CastRule(personas=("lyra", "bram"), max_replies=2))
    anthropic_fake.script(Reply(text="A tune for you. What say you, Bram?"), Reply(text="Aye, a fine tune."))
    await cast.deliver(cast.fake.message(room, alice, "Lyra, play something"))
    assert cast.said(room["id"]) == {
        "lyra": ["A tune for you. What say you, Bram?"],
        "bram": ["Aye, a fine tune."],
    }
    stored = await cast.stored(room["id"])
    assert [who for role, who, _ in stored if role == "assistant"] == ["lyra", "bram"]
    first, second = requests(anthropic_fake)
    assert "LYRA-PROMPT" in system(first) and "BRAM-PROMPT" in system(second)


async def test_issue_33_a_person_s_private_chats_with_two_bots_are_two_chats(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """PLT-2 (issue 33): Telegram names a person's private chat the same for every bot; each bound
    bot's is still its own chat (``tg:<id>/bot/<persona>``), so Bram never reads what Lyra was told."""
    anthropic_fake.script(Reply(text="Your secret is safe."), Reply(text="Hello, stranger."))
    alice = person(cast.fake)
    chat = cast.fake.private(alice)
    await cast.deliver(cast.fake.message(chat, alice, "Lyra, my PRIVATE-PLAN is to leave"), LYRA)
    await cast.deliver(cast.fake.message(chat, alice, "hi Bram"), BRAM)
    to_lyra, to_bram = requests(anthropic_fake)
    assert "PRIVATE-PLAN" in str(to_lyra.body) and "PRIVATE-PLAN" not in str(to_bram.body)
    history = cast.hearth.service.chats.history
    assert [m.text for m in await history(f"tg:{alice['id']}/bot/bram", 10) if m.role == "user"] == [
        "hi Bram"
    ]
    assert await history(f"tg:{alice['id']}", 10) == []
    assert [m["text"] for m in cast.fake.bot_messages(alice["id"], LYRA)] == ["Your secret is safe."]


async def test_issue_33_as_in_a_private_chat_says_where_it_works(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-4 (issue 33): ``/as`` in a private chat with a bound bot explains itself; nothing is stored."""
    alice = person(cast.fake)
    await cast.deliver(cast.fake.message(cast.fake.private(alice), alice, "/as bram hi"), LYRA)
    (said,) = [m["text"] for m in cast.fake.bot_messages(alice["id"], LYRA)]
    assert said.startswith("/as works in a group") and requests(anthropic_fake) == []


async def test_issue_33_one_unbound_bot_still_does_not_know_as(
    redis_server: RedisServer, anthropic_fake: FakeAnthropic
) -> None:
    """PLT-6 (issue 33): with one ``TELEGRAM_BOT_TOKEN`` nothing changes: ``/as`` is an unknown
    command (a hint in a private chat, silence in a group, where it may be another bot's)."""
    with FakeTelegram(token="700701:single-token") as fake:
        async with running_bot(redis_server, anthropic_fake, fake) as bot:
            alice, room = person(fake), group(fake)
            await bot.feed(fake.message(fake.private(alice), alice, "/as bram hi"))
            await bot.feed(fake.message(room, alice, "/as bram hi"))
            assert [m["text"] for m in fake.bot_messages(alice["id"])] == ["I don't know /as. Try /help."]
            assert fake.bot_messages(room["id"]) == [] and requests(anthropic_fake) == []


async def test_issue_33_a_bot_bound_to_a_persona_that_is_not_loaded_stops_the_start(
    redis_server: RedisServer, anthropic_fake: FakeAnthropic, telegram: FakeTelegram, personas: Path
) -> None:
    """RUN-1 (issue 33): ``ghost=<token>`` names no loaded persona: a ConfigError naming it, not the token."""
    env = {
        "REDIS_URL": redis_server.db(15),
        "HEARTH_PERSONAS": str(personas),
        "HEARTH_EMBEDDER": "hash",
        "TELEGRAM_BOT_TOKENS": f"lyra={LYRA},ghost={BRAM}",
        "TELEGRAM_API_BASE": telegram.base_url,
    }
    hearth = build(load_settings(env))
    try:
        await install_personas(hearth)
        app = TelegramApp.from_hearth(hearth, policy=FAST)
        with pytest.raises(ConfigError) as refused:
            await app.check_personas(hearth.service)
        assert "'ghost'" in refused.value.message and "XYZZY" not in refused.value.message
        await app.close()
    finally:
        await hearth.close()


async def test_issue_33_help_in_a_cast_group_is_answered_once_and_lists_as(cast: Cast) -> None:
    """PLT-3 (issue 33): a bare ``/help`` reaches both bots; one answers, and its list has ``/as``."""
    room, alice = group(cast.fake), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "/help"))
    said = cast.said(room["id"])
    (help_message,) = said["lyra"] + said["bram"]
    assert "/as — " in help_message and "/persona — " not in help_message


async def test_issue_33_a_name_in_a_reply_to_another_bot_goes_before_the_reply(
    cast: Cast, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-2 (issue 33): replying to Lyra's message with "Bram, ..." is answered by Bram."""
    anthropic_fake.script(Reply(text="La la la."), Reply(text="Not bad at all."))
    room, alice = group(cast.fake), person(cast.fake)
    await cast.deliver(cast.fake.message(room, alice, "/as lyra sing"))
    (lyra_said,) = cast.fake.bot_messages(room["id"], LYRA)
    await cast.deliver(cast.fake.message(room, alice, "Bram, what do you make of this?", reply_to=lyra_said))
    assert cast.said(room["id"]) == {"lyra": ["La la la."], "bram": ["Not bad at all."]}
