"""Lorebooks end to end through the REST API and the fake Anthropic server (LORE-1..13, PRM-3)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.corpus import corpus_file, needs_corpus
from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest
from tests.fixtures.cards import CARD_NAME, GREETING, own_file
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e


def room() -> str:
    return f"lore-{secrets.token_hex(4)}"


def last_call(fake: FakeAnthropic) -> RecordedRequest:
    return [r for r in fake.requests if r.path == "/v1/messages"][-1]


def texts(request: RecordedRequest) -> tuple[list[str], list[tuple[str, str]]]:
    """System block texts, and (role, text) of every conversation block."""
    system = [b["text"] for b in request.body.get("system", [])]
    convo = [(m["role"], b["text"]) for m in request.body["messages"] for b in m["content"]]
    return system, convo


def world(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"entries": {str(i): {"uid": i, **e} for i, e in enumerate(entries)}}


@pytest.fixture
async def api(claude_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(claude_app.base_url)
    yield client
    await client.close()


async def upload(api: HearthClient, body: bytes, content_type: str = "application/json") -> Any:
    return await api.http.post("/api/lorebooks", content=body, headers={"Content-Type": content_type})


async def attach(api: HearthClient, chat: str, *books: str) -> None:
    response = await api.http.put(f"/api/chats/{chat}/lorebooks", json={"books": list(books)})
    assert response.status_code == 200, response.text


async def test_lore_3_own_book_a_mentioned_key_enters_the_lore_slot(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    created = await upload(api, own_file("own_lanternfall_world.json"))
    assert created.status_code == 201, created.text
    chat = room()
    await attach(api, chat, created.json()["id"])
    reply = await api.send(chat, "Is Wickmoor dangerous at night?", name="Juno")
    assert reply.status_code == 200
    blocks = [b for m in last_call(anthropic_fake).body["messages"] for b in m["content"]]
    last_mark = max(i for i, b in enumerate(blocks) if "cache_control" in b)
    # issue 12: lore follows the cached part (persona, memories, the window's older messages)
    lore = [b["text"] for b in blocks[last_mark + 1 :] if "Marsh lights" in b["text"]]
    assert lore and '"What lies east of town?"' in lore[0] and "Juno:" in lore[0]  # {{user}} filled in
    everything = json.dumps(last_call(anthropic_fake).body)
    assert "spring flood" not in everything  # the Sallow entry's key was not mentioned
    included = {d["entry"]: d["reason"] for d in reply.json()["context"]["lore"] if d["included"]}
    assert "wickmoor" in included["7"].lower()
    assert "0" in included  # the constant entry (Harrowgate) is always in
    assert "8" not in included and "3" not in included  # disabled; not mentioned


@needs_corpus
async def test_lore_3_a_mentioned_key_puts_the_entry_in_the_lore_slot(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    created = await upload(api, corpus_file("st_default_Eldoria.json"))
    assert created.status_code == 201 and created.json()["entries"] == 4
    book = created.json()["id"]
    chat = room()
    await attach(api, chat, book)
    reply = await api.send(chat, "Are there shadowfang beasts around here?", name="Juno")
    assert reply.status_code == 200
    blocks = [b for m in last_call(anthropic_fake).body["messages"] for b in m["content"]]
    last_mark = max(i for i, b in enumerate(blocks) if "cache_control" in b)
    # issue 12: lore follows the cached part (persona, memories, the window's older messages)
    lore = [b["text"] for b in blocks[last_mark + 1 :] if "Shadowfang" in b["text"]]
    assert lore, "the entry is in the lore slot, after the cached prefix"
    assert blocks[-1]["text"] == lore[0] and lore[0].startswith("[System note: ")
    assert '"What are Shadowfangs?"' in lore[0] and "Juno:" in lore[0]  # {{user}} filled in
    everything = json.dumps(last_call(anthropic_fake).body)
    assert "What is the glade?" not in everything  # a key not mentioned does not enter
    decisions = reply.json()["context"]["lore"]
    included = [d for d in decisions if d["included"]]
    assert [d["entry"] for d in included] == ["1"] and "shadowfang" in included[0]["reason"]
    log = await api.turn(chat, reply.json()["turn"])
    assert log["request"]["lore"] == decisions  # LORE-12 in the request log
    assert next(s["tokens"] for s in log["request"]["slots"] if s["name"] == "lore") > 0


async def test_lore_9_roles_decorators_and_comments(api: HearthClient, anthropic_fake: FakeAnthropic) -> None:
    book = world(
        {
            "key": ["lighthouse"],
            "content": "@@priority 5\nThe lighthouse keeper is Mara.",
            "comment": "SECRET-NOTE-1",
            "role": 1,
        },
        {
            "key": ["harbor"],
            "content": "The harbor freezes in winter.",
            "comment": "SECRET-NOTE-2",
            "role": 0,
        },
    )
    created = await upload(api, json.dumps(book).encode())
    chat = room()
    await attach(api, chat, created.json()["id"])
    await api.send(chat, "Who keeps the lighthouse by the harbor?")
    _, convo = texts(last_call(anthropic_fake))
    # role system → a marked system note after the window (issue 12: after the cached part)
    assert ("user", "[System note: The harbor freezes in winter.]") in convo
    assert ("user", "The lighthouse keeper is Mara.") in convo  # role user → a user turn
    everything = json.dumps(last_call(anthropic_fake).body)
    assert "@@" not in everything and "SECRET-NOTE" not in everything  # LORE-10, LORE-6


async def test_lore_13_own_card_png_becomes_a_persona_with_its_book(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    created = await api.http.post(
        "/api/personas?id=wren-e2e",
        content=own_file("own_wren_v2.png"),
        headers={"Content-Type": "image/png"},
    )
    assert created.status_code == 201, created.text
    persona = created.json()
    assert persona["name"] == CARD_NAME and persona["greeting"] == GREETING
    assert persona["lorebooks"] and len(persona["lorebooks"]) == 1
    reply = await api.send(room(), "Does the fog ever reach Wickmoor?", persona="wren-e2e")
    assert reply.status_code == 200
    system, convo = texts(last_call(anthropic_fake))
    assert any(CARD_NAME in t for t in system[:1])
    assert {"0", "7"} <= {d["entry"] for d in reply.json()["context"]["lore"] if d["included"]}
    assert convo[0] == ("user", "[The conversation begins.]") and convo[1][0] == "assistant"
    assert "Evening," in convo[1][1] and "{{user}}" not in convo[1][1]


@needs_corpus
async def test_lore_13_card_png_becomes_a_persona_with_its_book(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    png = corpus_file("st_default_Seraphina.png")
    created = await api.http.post(
        "/api/personas?id=seraphina-e2e", content=png, headers={"Content-Type": "image/png"}
    )
    assert created.status_code == 201, created.text
    persona = created.json()
    assert persona["name"] == "Seraphina" and persona["greeting"] and len(persona["lorebooks"]) == 1
    book = (await api.http.get(f"/api/lorebooks/{persona['lorebooks'][0]}")).json()
    assert book["entries"] and all("keys" in e for e in book["entries"])
    chat = room()
    reply = await api.send(chat, "What is Eldoria, this forest?", persona="seraphina-e2e")
    assert reply.status_code == 200
    system, convo = texts(last_call(anthropic_fake))
    assert any("Seraphina" in t for t in system[:1])
    assert any(d["included"] for d in reply.json()["context"]["lore"])
    assert convo[0] == ("user", "[The conversation begins.]") and convo[1][0] == "assistant"


async def test_lore_13_export_and_reimport_round_trip(api: HearthClient) -> None:
    created = (await upload(api, own_file("own_lanternfall_world.json"))).json()
    for fmt in ("sillytavern", "ccv3"):
        exported = await api.http.get(f"/api/lorebooks/{created['id']}/export", params={"format": fmt})
        assert exported.status_code == 200 and "attachment" in exported.headers["content-disposition"]
        again = (await upload(api, exported.content)).json()
        assert again["entries"] == created["entries"]
        first = (await api.http.get(f"/api/lorebooks/{created['id']}")).json()
        second = (await api.http.get(f"/api/lorebooks/{again['id']}")).json()
        assert [(e["comment"], e["order"], e["keys"]) for e in first["entries"]] == [
            (e["comment"], e["order"], e["keys"]) for e in second["entries"]
        ]


async def test_lore_5_catastrophic_regex_key_finishes_fast(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    created = await upload(api, json.dumps(world({"key": ["/(a+)+$/"], "content": "Regex fired."})).encode())
    assert created.status_code == 201
    chat = room()
    await attach(api, chat, created.json()["id"])
    started = time.monotonic()
    reply = await api.send(chat, "a" * 15_000 + "b")
    # unguarded, (a+)+$ over 15,000 letters backtracks for longer than the universe's age; a
    # whole turn on a loaded 2-core machine takes seconds (9 s measured at load 8)
    assert reply.status_code == 200 and time.monotonic() - started < 20


async def books_count(api: HearthClient) -> int:
    return len((await api.http.get("/api/lorebooks")).json()["lorebooks"])


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [
        (own_file("own_wren_v2.png")[:3_000], "image/png", 422, "invalid_png"),
        (b"[" * 100_000 + b"]" * 100_000, "application/json", 422, "json_too_deep"),
        (b"x" * 50_000_000, "application/json", 413, "body_too_large"),
        (json.dumps(world({"key": 42, "content": "x"})).encode(), "application/json", 422, "invalid_field"),
        (b'{"entries": ', "application/json", 400, "invalid_json"),
        (b"PK\x03\x04garbage", "application/zip", 422, "invalid_charx"),
    ],
)
async def test_lore_13_bad_uploads_get_a_clear_error_and_store_nothing(
    api: HearthClient, body: bytes, content_type: str, status: int, code: str
) -> None:
    before = await books_count(api)
    response = await upload(api, body, content_type)
    assert response.status_code == status, response.text[:300]
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]
    assert await books_count(api) == before


async def test_lore_1_attaching_an_unknown_book_is_404(api: HearthClient) -> None:
    response = await api.http.put(f"/api/chats/{room()}/lorebooks", json={"books": ["lb-nope"]})
    assert response.status_code == 404 and response.json()["error"]["code"] == "lorebook_not_found"


async def test_cards_in_hearth_personas_load_at_start(
    redis_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import shutil

    from tests.fixtures.servers import ADMIN_TOKEN, ROOT

    folder = tmp_path_factory.mktemp("personas")
    shutil.copy(ROOT / "config" / "personas" / "default.toml", folder / "default.toml")
    (folder / "wren.png").write_bytes(own_file("own_wren_v2.png"))
    env = {"REDIS_URL": redis_server.db(4), "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN, "HEARTH_PERSONAS": str(folder)}
    app = WebApp(env, folder / "web.log")
    try:
        client = HearthClient(app.base_url)
        personas = {p["id"]: p for p in (await client.http.get("/api/personas")).json()["personas"]}
        assert {"default", "wren"} <= personas.keys()
        assert personas["wren"]["lorebooks"] == ["card-wren"]
        reply = await client.send(room(), "Is Wickmoor far?", persona="wren")
        assert reply.status_code == 200
        assert any(d["included"] for d in reply.json()["context"]["lore"])
        await client.close()
    finally:
        app.stop()


async def test_lore_1_books_of_the_persona_and_the_chat_are_one_pool(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    persona_book = (
        await upload(api, json.dumps(world({"key": ["comet"], "content": "Comets are omens."})).encode())
    ).json()
    chat_book = (
        await upload(api, json.dumps(world({"key": ["tide"], "content": "Tides obey the moon."})).encode())
    ).json()
    pid = f"p-{secrets.token_hex(3)}"
    created = await api.http.post(
        "/api/personas", json={"id": pid, "name": "Oracle", "system_prompt": "You foresee."}
    )
    assert created.status_code == 201
    attached = await api.http.put(f"/api/personas/{pid}/lorebooks", json={"books": [persona_book["id"]]})
    assert attached.status_code == 200
    chat = room()
    await attach(api, chat, chat_book["id"])
    reply = await api.send(chat, "A comet at high tide!", persona=pid)
    _, convo = texts(last_call(anthropic_fake))
    notes = [text for _, text in convo]
    assert "[System note: Comets are omens.]" in notes and "[System note: Tides obey the moon.]" in notes
    assert {d["book"] for d in reply.json()["context"]["lore"] if d["included"]} == {
        persona_book["id"],
        chat_book["id"],
    }
    missing = await api.http.put(f"/api/personas/{pid}/lorebooks", json={"books": ["lb-missing"]})
    assert missing.status_code == 404
