"""SillyTavern World Info parity end to end: POST /api/lorebooks, then chat turns (LORE-14..21).

Every book here is written by the test; the fake Anthropic server records what each turn sent.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.corpus import corpus_json, corpus_params, needs_corpus
from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e


def room() -> str:
    return f"lore-st-{secrets.token_hex(4)}"


def world(*entries: dict[str, Any]) -> bytes:
    """A World Info file scanning only the newest message (the fake's replies echo the user)."""
    body = {"scan_depth": 1, "entries": {str(i): {"uid": i, **e} for i, e in enumerate(entries)}}
    return json.dumps(body).encode()


def sent(fake: FakeAnthropic) -> str:
    """Everything the newest /v1/messages request carried, as one string."""
    request = [r for r in fake.requests if r.path == "/v1/messages"][-1]
    return json.dumps(request.body, ensure_ascii=False)


@pytest.fixture
async def api(claude_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(claude_app.base_url)
    yield client
    await client.close()


async def new_chat(api: HearthClient, book: bytes) -> tuple[str, dict[str, Any]]:
    headers = {"Content-Type": "application/json"}
    created = await api.http.post("/api/lorebooks", content=book, headers=headers)
    assert created.status_code == 201, created.text
    chat = room()
    attached = await api.http.put(f"/api/chats/{chat}/lorebooks", json={"books": [created.json()["id"]]})
    assert attached.status_code == 200
    return chat, created.json()


async def turn(api: HearthClient, chat: str, text: str, **extra: Any) -> dict[str, Any]:
    reply = await api.send(chat, text, user="juno", name="Juno", **extra)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def decision(reply: dict[str, Any], entry: str) -> dict[str, Any] | None:
    return next((d for d in reply["context"]["lore"] if d["entry"] == entry), None)


async def test_lore_14_sticky_keeps_an_entry_for_its_messages_then_lets_go(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat, _ = await new_chat(
        api,
        world(
            {"key": ["lantern"], "content": "The lantern of Osk burns blue.", "sticky": 3},
            {"key": ["bridge"], "content": "The bridge creaks.", "sticky": 0},  # control
        ),
    )
    first = await turn(api, chat, "I lift the lantern at the bridge.")
    assert "burns blue" in sent(anthropic_fake) and "creaks" in sent(anthropic_fake)
    second = await turn(api, chat, "We walk on in silence.")  # 2 messages later: still sticky
    assert "burns blue" in sent(anthropic_fake) and "creaks" not in sent(anthropic_fake)
    assert "sticky" in (decision(second, "0") or {})["reason"]
    await turn(api, chat, "The night is cold.")  # 4 messages after it started: sticky 3 ended
    assert "burns blue" not in sent(anthropic_fake)
    assert decision(first, "0")["included"]  # type: ignore[index]


async def test_lore_14_cooldown_blocks_reactivation_and_regenerate_undoes_it(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat, _ = await new_chat(api, world({"key": ["comet"], "content": "The comet returns.", "cooldown": 3}))
    first = await turn(api, chat, "Look, a comet!")
    assert "The comet returns." in sent(anthropic_fake)
    # Regenerating that reply must not find the entry on the cooldown the reply itself started.
    again = await api.http.post(f"/api/chats/{chat}/turns/{first['turn']}/regenerate")
    assert again.status_code == 200, again.text
    assert "The comet returns." in sent(anthropic_fake)
    assert decision(again.json(), "0")["included"]  # type: ignore[index]
    second = await turn(api, chat, "The comet again, brighter.")
    assert "The comet returns." not in sent(anthropic_fake)
    assert "cooldown" in (decision(second, "0") or {})["reason"]
    await turn(api, chat, "The comet is fading.")  # 4 messages later: cooldown over
    assert "The comet returns." in sent(anthropic_fake)


async def test_lore_14_delay_waits_until_the_chat_has_enough_messages(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat, _ = await new_chat(api, world({"key": ["harvest"], "content": "Harvest songs start.", "delay": 4}))
    first = await turn(api, chat, "When is the harvest?")
    assert "Harvest songs" not in sent(anthropic_fake)
    assert "delay" in (decision(first, "0") or {})["reason"]
    await turn(api, chat, "Tell me of the harvest.")
    await turn(api, chat, "The harvest, please.")
    assert "Harvest songs start." in sent(anthropic_fake)


async def test_lore_15_inclusion_group_lets_one_entry_in_and_says_why(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat, _ = await new_chat(
        api,
        world(
            {"key": ["weather"], "content": "WEATHER-RAIN", "group": "weather", "groupWeight": 50},
            {"key": ["weather"], "content": "WEATHER-SUN", "group": "weather", "groupWeight": 50},
            {"key": ["weather"], "content": "WEATHER-FOG", "group": "mist"},  # a group of one
        ),
    )
    reply = await turn(api, chat, "How is the weather today?")
    body = sent(anthropic_fake)
    assert ("WEATHER-RAIN" in body) != ("WEATHER-SUN" in body) and "WEATHER-FOG" in body
    losers = [d for d in reply["context"]["lore"] if not d["included"]]
    assert len(losers) == 1 and "inclusion group 'weather'" in losers[0]["reason"]
    winner = next(d for d in reply["context"]["lore"] if d["included"] and d["entry"] in ("0", "1"))
    assert "won inclusion group 'weather'" in winner["reason"]
    log = await api.turn(chat, reply["turn"])
    assert any("inclusion group" in d["reason"] for d in log["request"]["lore"])  # the inspector's data
    again = await api.http.post(f"/api/chats/{chat}/turns/{reply['turn']}/regenerate")
    assert [d["entry"] for d in again.json()["context"]["lore"] if d["included"]] == [
        d["entry"] for d in reply["context"]["lore"] if d["included"]
    ]  # seeded: the same winner for the same turn


async def test_lore_15_group_override_wins_by_priority(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat, _ = await new_chat(
        api,
        world(
            {"key": ["tavern"], "content": "TAVERN-A", "group": "inn", "groupWeight": 1000},
            {"key": ["tavern"], "content": "TAVERN-B", "group": "inn", "groupOverride": True, "order": 10},
            {"key": ["tavern"], "content": "TAVERN-C", "group": "inn", "groupOverride": True, "order": 90},
        ),
    )
    await turn(api, chat, "Let us find a tavern.")
    body = sent(anthropic_fake)
    assert "TAVERN-C" in body and "TAVERN-A" not in body and "TAVERN-B" not in body


async def test_lore_17_macros_in_keys_and_content_use_names_and_the_message_time(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    personas = (await api.http.get("/api/personas")).json()["personas"]
    char = next(p for p in personas if p["id"] == "default")["name"]
    chat, _ = await new_chat(
        api,
        world(
            {"key": ["{{char}}"], "content": "{{user}} meets {{char}} at {{time}} on {{date}}. {{mystery}}"},
            {"key": ["{{user}}"], "content": "Known traveller {{user}}."},
            {"key": ["nobody-here"], "content": "NEVER"},
        ),
    )
    reply = await turn(api, chat, f"Hello {char}, it is Juno.", sent_at="2026-03-14T15:09:00Z")
    body = sent(anthropic_fake)
    assert f"Juno meets {char} at 3:09 PM on March 14, 2026. {{{{mystery}}}}" in body  # unknown stays
    assert "Known traveller Juno." in body and "NEVER" not in body
    assert decision(reply, "0")["included"]  # type: ignore[index]


@pytest.mark.parametrize(
    ("key", "message"),
    [("дракон", "Вчера я видел дракона над рекой."), ("ירושלים", "גרתי בירושלים שלוש שנים.")],
)
async def test_lore_18_imported_books_match_inflections_as_sillytavern_does(
    api: HearthClient, anthropic_fake: FakeAnthropic, key: str, message: str
) -> None:
    chat, created = await new_chat(
        api,
        world(
            {"key": [key], "content": "INFLECTED-HIT"},  # matchWholeWords unset: the book's default
            {"key": [key], "content": "WHOLE-WORD-HIT", "matchWholeWords": True},  # control
        ),
    )
    await turn(api, chat, message)
    body = sent(anthropic_fake)
    assert "INFLECTED-HIT" in body and "WHOLE-WORD-HIT" not in body
    book = (await api.http.get(f"/api/lorebooks/{created['id']}")).json()
    assert book["matching"] == "inflections"


WHOLE_WORD_ENTRIES: tuple[dict[str, Any], ...] = (
    {"key": ["кот"], "content": "KOT-HIT"},
    {"key": ["ice cream"], "content": "ICE-CREAM-HIT"},
    {"key": ["lửa"], "content": "LUA-HIT"},
    {"key": ["дракон"], "content": "DRAGON-HIT"},
    {"key": ["שמש"], "content": "SUN-HIT"},
    {"key": ["mar"], "content": "SEA-HIT"},
    {"key": ["кот"], "content": "KOT-SUBSTRING-HIT", "matchWholeWords": False},  # the entry asks
)
NEGATIVE = "Эта скотина съела a nice creamy soup, con lửng chạy, um café amargo."
POSITIVE = "Мой кот любит ice cream; ngọn lửa; драконы летят; השמש זורחת; os mares."


def card_lorebook(*entries: dict[str, Any], **book: Any) -> bytes:
    """The same entries as a CCv3 ``lorebook_v3`` (card names, an array)."""
    items = [
        {
            "keys": e["key"],
            "content": e["content"],
            "insertion_order": 100,
            "enabled": True,
            "extensions": {"match_whole_words": e["matchWholeWords"]} if "matchWholeWords" in e else {},
        }
        for e in entries
    ]
    return json.dumps({"spec": "lorebook_v3", "data": {"scan_depth": 1, **book, "entries": items}}).encode()


def hits(body: str) -> set[str]:
    names = ("KOT", "ICE-CREAM", "LUA", "DRAGON", "SUN", "SEA", "KOT-SUBSTRING")
    return {n for n in names if f"{n}-HIT" in body}


@pytest.mark.parametrize("build", [world, card_lorebook], ids=["world_info", "lorebook_v3"])
async def test_lore_5_imported_books_match_whole_words_by_default(
    api: HearthClient, anthropic_fake: FakeAnthropic, build: Any
) -> None:
    """Issue 31, LORE-5: an imported book never fires a key inside another word ('кот' in
    'скотина', 'ice cream' in 'nice creamy', 'lửa' in 'lửng', 'mar' in 'amargo'), but a word
    with a short ending or a Hebrew proclitic still counts ('драконы', 'mares', 'השמש'); only
    ``matchWholeWords: false`` asks for substrings."""
    chat, created = await new_chat(api, build(*WHOLE_WORD_ENTRIES))
    await turn(api, chat, NEGATIVE)
    assert hits(sent(anthropic_fake)) == {"KOT-SUBSTRING"}
    await turn(api, chat, POSITIVE)
    assert hits(sent(anthropic_fake)) == {"KOT", "ICE-CREAM", "LUA", "DRAGON", "SUN", "SEA", "KOT-SUBSTRING"}
    book = (await api.http.get(f"/api/lorebooks/{created['id']}")).json()
    assert book["matching"] == "inflections"


async def test_lore_5_a_book_that_says_match_whole_words_false_matches_substrings(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31, LORE-18: the book-level ``matchWholeWords: false`` is the explicit request for
    SillyTavern's substring matching; an entry's own ``true`` still wins."""
    entries = (
        {"key": ["кот"], "content": "KOT-HIT"},
        {"key": ["lửa"], "content": "LUA-HIT", "matchWholeWords": True},
    )
    body = json.loads(world(*entries))
    chat, created = await new_chat(api, json.dumps({**body, "matchWholeWords": False}).encode())
    await turn(api, chat, "Эта скотина и con lửng.")
    assert hits(sent(anthropic_fake)) == {"KOT"}
    book = (await api.http.get(f"/api/lorebooks/{created['id']}")).json()
    assert book["matching"] == "substring"
    exported = await api.http.get(f"/api/lorebooks/{created['id']}/export", params={"format": "sillytavern"})
    assert exported.status_code == 200 and exported.json()["matchWholeWords"] is False


async def test_lore_21_import_report_names_what_is_ignored_and_keeps_the_book(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat, created = await new_chat(
        api,
        world(
            {"key": ["/(?<=a)b/", "owl"], "content": "Owls see at night."},
            {"key": ["moth"], "content": "@@probability abc\nMoths love lamps."},
            {"key": ["bat"], "content": "Bats sleep by day.", "position": 4, "depth": 2},
        ),
    )
    report = {(r["entry"], r["code"]): r for r in created["report"]}
    assert "RE2" in report[("0", "invalid_regex_key")]["reason"]
    assert "@@probability abc" in report[("1", "invalid_decorator")]["field"]
    assert "position 4" in report[("2", "unsupported")]["field"]
    await turn(api, chat, "An owl and a moth by the lamp.")
    body = sent(anthropic_fake)
    assert "Owls see at night." in body and "Moths love lamps." in body  # both entries still work


# --- exports SillyTavern reads back (Issue 31) -------------------------------------------------

ST_POSITIONS = range(8)
"""``world_info_position``: before, after, AN top/bottom, at depth, EM top/bottom, outlet."""


def st_reads_world_info(doc: dict[str, Any]) -> list[tuple[Any, Any]]:
    """(position, caseSensitive) of each entry as SillyTavern loads a World Info file: as written."""
    return [(e.get("position"), e.get("caseSensitive")) for e in doc["entries"].values()]


def st_reads_card_book(book: dict[str, Any]) -> list[tuple[Any, Any]]:
    """The same as SillyTavern converts a card's book (``convertCharacterBook``): the position from
    ``extensions.position``, else ``before_char`` → 0 and anything else → 1; the case from
    ``extensions.case_sensitive`` only."""
    read = []
    for entry in book["entries"]:
        ext = entry.get("extensions") or {}
        position = ext.get("position", 0 if entry.get("position") == "before_char" else 1)
        read.append((position, ext.get("case_sensitive")))
    return read


@needs_corpus
@pytest.mark.parametrize("name", corpus_params("*.json"))
async def test_lore_20_exports_read_back_by_sillytavern_keep_position_and_case(
    api: HearthClient, name: str
) -> None:
    """Issue 31: every entry of both exports has a position SillyTavern inserts (one that had
    none gets 1, after the character, in both), and case sensitivity where ST reads it."""
    doc = corpus_json(name)
    entries = list(doc["entries"].values())
    entries[0].pop("position", None)
    entries[0]["caseSensitive"] = True
    if len(entries) > 1:
        entries[1]["caseSensitive"] = False
    wanted = [(e.get("position", 1), e.get("caseSensitive")) for e in entries]
    created = await api.http.post("/api/lorebooks", content=json.dumps(doc).encode())
    assert created.status_code == 201, created.text
    book = created.json()["id"]
    world_info = (
        await api.http.get(f"/api/lorebooks/{book}/export", params={"format": "sillytavern"})
    ).json()
    card = (await api.http.get(f"/api/lorebooks/{book}/export", params={"format": "ccv3"})).json()
    for read in (st_reads_world_info(world_info), st_reads_card_book(card["data"])):
        assert read == wanted
        assert all(position in ST_POSITIONS for position, _ in read)
    first = card["data"]["entries"][0]
    assert first["case_sensitive"] is True and first["extensions"]["case_sensitive"] is True  # both places
