"""Renaming and deleting rooms and lorebooks through the browser's and the operator's API
(issue 31): a rename keeps everything; deleting a room deletes its chats and the room's own
memories and keeps the memories about the person (moved to their Global list, as MEM-10 does for
a deleted persona); deleting a book detaches it from its personas and leaves memories alone;
bad input is a 4xx in the contract's error shape with nothing changed."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.e2e import backends
from tests.e2e.api_client import HearthClient
from tests.e2e.test_web_app import Visitor
from tests.e2e.test_web_ux_api import converse, error_of, signed_up
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e]

claude_app = backends.claude_app  # every test here runs on a single Redis and on a Redis Cluster

BOOK = {
    "entries": {"0": {"uid": 0, "key": ["harbor"], "content": "The harbor freezes.", "comment": "Harbor"}}
}


async def put(visitor: Visitor, url: str, body: object) -> httpx.Response:
    return await visitor.http.put(url, json=body, headers=visitor.headers())


async def remove(visitor: Visitor, url: str) -> httpx.Response:
    return await visitor.http.delete(url, headers=visitor.headers())


async def panel(visitor: Visitor, chat: str) -> dict[str, list[str]]:
    got = await visitor.http.get(f"/app/chats/{chat}/memories")
    assert got.status_code == 200, got.text
    return {lst["list"]: [m["text"] for m in lst["memories"]] for lst in got.json()["lists"]}


async def remember(visitor: Visitor, chat: str, where: str, text: str) -> None:
    made = await visitor.post(f"/app/chats/{chat}/memories", {"list": where, "text": text})
    assert made.status_code == 201, made.text


async def test_issue_31_rooms_rename_keeps_all_and_delete_keeps_memories_about_you(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    alice = await signed_up(claude_app)
    try:
        made = await alice.post("/app/rooms", {"name": "Kitchen"})
        assert made.status_code == 201, made.text
        slug = made.json()["room"]["slug"]
        chat = (await alice.open(room=slug))["chat"]
        anthropic_fake.script(Reply(text="The stew is on."))
        (done,) = await converse(claude_app, alice, chat, {"type": "message", "text": "Is the stew on?"})
        assert done["type"] == "done", done
        await remember(alice, chat, "personal", "Alice likes her stew spicy")
        await remember(alice, chat, "space", "The kitchen has a red door")
        await remember(alice, chat, "global", "Alice lives in Lyon")

        renamed = await put(alice, f"/app/rooms/{slug}", {"title": "  Big   kitchen "})
        assert renamed.status_code == 200, renamed.text
        assert renamed.json()["room"] == {"slug": slug, "title": "Big kitchen"}
        opened = await alice.open(room=slug)
        assert {"slug": slug, "title": "Big kitchen"} in opened["rooms"]
        assert [m["text"] for m in opened["messages"]][-2:] == ["Is the stew on?", "The stew is on."]
        assert "The kitchen has a red door" in (await panel(alice, chat))["space"]

        for body, code in [({"title": ""}, "title_empty"), ({"title": "x" * 61}, "title_too_long"),
                           ({"title": "a\u0000b"}, "title_invalid")]:  # fmt: skip
            refused = await put(alice, f"/app/rooms/{slug}", body)
            assert refused.status_code == 422 and error_of(refused) == code, refused.text
        assert (await put(alice, "/app/rooms/nowhere", {"title": "X"})).status_code == 404
        assert error_of(await put(alice, "/app/rooms/main", {"title": "X"})) == "main_room"
        assert (await remove(alice, "/app/rooms/main")).status_code == 409
        missing = await remove(alice, "/app/rooms/nowhere")
        assert missing.status_code == 404 and error_of(missing) == "room_not_found"
        no_csrf = await alice.http.delete(f"/app/rooms/{slug}")
        assert no_csrf.status_code == 403 and error_of(no_csrf) == "csrf_failed"

        deleted = await remove(alice, f"/app/rooms/{slug}")
        assert deleted.status_code == 200, deleted.text
        assert deleted.json() == {"room": slug, "chats": 1, "memories_kept": 1, "memories_deleted": 1}
        main = await alice.open()
        assert slug not in {r["slug"] for r in main["rooms"]}
        lists = await panel(alice, main["chat"])
        assert "Alice likes her stew spicy" in lists["personal_global"]  # about her: kept, Global
        assert "Alice lives in Lyon" in lists["global"]
        again = await alice.post("/app/rooms", {"name": "Kitchen"})
        fresh = await alice.open(room=again.json()["room"]["slug"])
        assert not [m for m in fresh["messages"] if m["role"] == "user"]  # its messages are gone
        assert "The kitchen has a red door" not in (await panel(alice, fresh["chat"]))["space"]
    finally:
        await alice.close()


async def book_of(visitor: Visitor) -> str:
    made = await visitor.http.post(
        "/app/lorebooks?name=Harbor", content=json.dumps(BOOK).encode(),
        headers={**visitor.headers(), "Content-Type": "application/json"},
    )  # fmt: skip
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


async def books(visitor: Visitor) -> dict[str, dict[str, Any]]:
    return {b["id"]: b for b in (await visitor.http.get("/app/lorebooks")).json()["lorebooks"]}


async def test_issue_31_lorebooks_rename_and_delete_in_the_browser_and_the_operator_api(
    claude_app: WebApp,
) -> None:
    alice, bob = await signed_up(claude_app), await signed_up(claude_app)
    operator = HearthClient(claude_app.base_url)
    try:
        book = await book_of(alice)
        renamed = await put(alice, f"/app/lorebooks/{book}", {"name": "Port lore"})
        assert renamed.status_code == 200 and renamed.json()["name"] == "Port lore"
        assert len(renamed.json()["entries"]) == 1
        for body, code in [({"name": " "}, "title_empty"), ({"name": "x" * 101}, "title_too_long"),
                           ({"name": "a\u0007"}, "title_invalid")]:  # fmt: skip
            refused = await put(alice, f"/app/lorebooks/{book}", body)
            assert refused.status_code == 422 and error_of(refused) == code
        unknown = await put(alice, f"/app/lorebooks/{book}", {"name": "A", "colour": "red"})
        assert unknown.status_code in (400, 422) and error_of(unknown)
        assert error_of(await put(bob, f"/app/lorebooks/{book}", {"name": "Mine"})) == "not_your_lorebook"
        assert (await remove(bob, f"/app/lorebooks/{book}")).status_code == 403
        assert (await books(alice))[book]["name"] == "Port lore"

        attached = await put(alice, f"/app/chats/{alice.session['chat']}/lorebooks", {"books": [book]})
        assert attached.status_code == 200, attached.text
        persona = await alice.post(
            "/app/personas", {"name": "Pip", "system_prompt": "Pip.", "lorebooks": [book]}
        )
        assert persona.status_code == 201, persona.text
        pid = persona.json()["persona"]["id"]
        deleted = await remove(alice, f"/app/lorebooks/{book}")
        assert deleted.status_code == 200, deleted.text
        assert deleted.json() == {"deleted": book, "personas": [pid]}
        assert book not in await books(alice)
        mine = (await alice.http.get("/app/personas")).json()["personas"]
        assert next(p for p in mine if p["id"] == pid)["lorebooks"] == []
        assert (await remove(alice, f"/app/lorebooks/{book}")).status_code == 403  # no longer hers

        # the operator's API
        other = await operator.http.post("/api/lorebooks", content=json.dumps(BOOK).encode())
        oid = other.json()["id"]
        assert (await operator.http.put(f"/api/lorebooks/{oid}", json={"name": "Ops"})).json()[
            "name"
        ] == "Ops"
        bad = await operator.http.put(f"/api/lorebooks/{oid}", json={"name": ""})
        assert bad.status_code == 422 and error_of(bad) == "title_empty"
        assert (await operator.http.delete(f"/api/lorebooks/{oid}")).json() == {
            "deleted": oid,
            "personas": [],
        }
        gone = await operator.http.delete(f"/api/lorebooks/{oid}")
        assert gone.status_code == 404 and error_of(gone) == "lorebook_not_found"
        assert (await operator.http.put("/api/lorebooks/nope", json={"name": "X"})).status_code == 404
    finally:
        await alice.close()
        await bob.close()
        await operator.close()
