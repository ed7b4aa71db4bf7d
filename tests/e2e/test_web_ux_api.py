"""Issue 16 over plain HTTP and the WebSocket: who may do what with personas and messages.

Private personas are their owner's alone; shared ones change only by the deployment's admins
(``HEARTH_WEB_ADMINS``); one's own messages only; swipes keep alternatives and MEM-7 applies per
swipe; a branch shares the original's memories (MEM-1); a guest's chat moves only with its own
ticket. The web process, real Redis and the fake Anthropic server are the session's.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import websockets

from tests.e2e.api_client import HearthClient
from tests.e2e.test_web_app import PASSWORD, Visitor, new_name, save_memory
from tests.e2e.test_web_ux import address, card_png, png
from tests.fakes.anthropic_server import Error, FakeAnthropic, Reply
from tests.fixtures.cards import image_png, own_file
from tests.fixtures.servers import WEB_ADMIN, WebApp

pytestmark = [pytest.mark.e2e]


def visitor_of(app: WebApp) -> Visitor:
    """A visitor from an address of its own (see ``test_web_ux.address``)."""
    visitor = Visitor(app.base_url)
    visitor.http.headers["X-Forwarded-For"] = address()
    return visitor


async def signed_up(app: WebApp, name: str | None = None) -> Visitor:
    visitor = visitor_of(app)
    name = name or new_name()
    await visitor.open()
    made = await visitor.post("/app/signup", {"username": name, "password": PASSWORD})
    if made.status_code == 409:  # the admin account exists from an earlier test of this session
        signed = await visitor.post("/app/signin", {"username": name, "password": PASSWORD})
        assert signed.status_code == 200, signed.text
    else:
        assert made.status_code == 201, made.text
    await visitor.open()
    return visitor


@pytest.fixture
async def people(claude_app: WebApp) -> AsyncIterator[tuple[Visitor, Visitor]]:
    alice, bob = await signed_up(claude_app), await signed_up(claude_app)
    yield alice, bob
    await alice.close()
    await bob.close()


def error_of(response: httpx.Response) -> str:
    body = response.json()
    assert body["error"]["message"], body
    return str(body["error"]["code"])


async def converse(app: WebApp, visitor: Visitor, chat: str, *frames: dict[str, Any]) -> list[dict[str, Any]]:
    """Send frames over the chat's WebSocket; the last frame of each reply (done or error)."""
    url = app.base_url.replace("http", "ws", 1) + f"/ws/chats/{chat}"
    cookie = f"hearth_session={visitor.http.cookies['hearth_session']}"
    finals = []
    async with websockets.connect(url, additional_headers={"Cookie": cookie}) as ws:
        for frame in frames:
            await ws.send(json.dumps(frame))
            while (got := json.loads(await ws.recv()))["type"] == "delta":
                pass
            finals.append(got)
    return finals


async def test_a_private_persona_is_its_owners_alone(
    people: tuple[Visitor, Visitor], claude_app: WebApp
) -> None:
    alice, bob = people
    made = await alice.http.post(
        "/app/personas/import",
        content=card_png("Nerys"),
        headers={**alice.headers(), "Content-Type": "image/png"},
    )
    assert made.status_code == 201, made.text
    persona = made.json()["persona"]
    assert persona["private"] and persona["editable"] and persona["avatar"] and len(persona["lorebooks"]) == 1
    pid = persona["id"]
    assert (await alice.open(persona=pid))["persona"]["name"] == "Nerys"
    assert pid in [p["id"] for p in (await alice.http.get("/app/personas")).json()["personas"]]

    assert pid not in [p["id"] for p in (await bob.http.get("/app/personas")).json()["personas"]]
    assert pid not in [p["id"] for p in (await bob.open())["personas"]]
    for response in (
        await bob.http.get("/app/session", params={"persona": pid}),
        await bob.http.get(f"/app/personas/{pid}/avatar"),
        await bob.http.get(f"/app/personas/{pid}/card"),
        await bob.http.put(
            f"/app/personas/{pid}", json={"name": "Mine now", "system_prompt": "x"}, headers=bob.headers()
        ),
        await bob.http.delete(f"/app/personas/{pid}", headers=bob.headers()),
    ):
        assert response.status_code == 404 and error_of(response) == "persona_not_found"
    # nor can bob talk to it through his own chat's socket
    (refused,) = await converse(
        claude_app, bob, bob.session["chat"], {"type": "message", "text": "hi", "persona": pid}
    )
    assert refused == {"type": "error", "code": "persona_not_found", "message": refused["message"]}
    # the card's book is alice's (editable), not listed for bob
    book = persona["lorebooks"][0]
    assert book in [
        b["id"] for b in (await alice.http.get("/app/lorebooks")).json()["lorebooks"] if b["editable"]
    ]
    assert book not in [b["id"] for b in (await bob.http.get("/app/lorebooks")).json()["lorebooks"]]
    assert (await bob.http.get(f"/app/lorebooks/{book}")).status_code == 403

    # the owner edits it, replaces the picture, and a bad picture is refused by name
    edited = await alice.http.put(
        f"/app/personas/{pid}",
        json={
            "name": "Nerys the Bold",
            "system_prompt": "You are Nerys.",
            "greeting": "Hail!",
            "lorebooks": [],
        },
        headers=alice.headers(),
    )
    assert edited.status_code == 200 and edited.json()["persona"]["name"] == "Nerys the Bold"
    picture = await alice.http.put(
        f"/app/personas/{pid}/avatar", content=png((10, 20, 30)), headers=alice.headers()
    )
    assert picture.status_code == 200
    assert (await alice.http.get(f"/app/personas/{pid}/avatar")).content == png((10, 20, 30))
    not_image = await alice.http.put(f"/app/personas/{pid}/avatar", content=b"hello", headers=alice.headers())
    assert not_image.status_code == 422 and error_of(not_image) == "avatar_not_image"

    guest = visitor_of(claude_app)
    await guest.open()
    assert pid not in [p["id"] for p in guest.session["personas"]]
    made = await guest.post("/app/personas", {"name": "G", "system_prompt": "x"})
    assert made.status_code == 403 and error_of(made) == "sign_in_required"
    await guest.close()


async def test_shared_personas_are_changed_only_by_admins(
    people: tuple[Visitor, Visitor], claude_app: WebApp
) -> None:
    _, bob = people
    body = {"name": "Harbor Guide", "system_prompt": "You are a harbor guide.", "shared": True}
    refused = await bob.post("/app/personas", body)
    assert refused.status_code == 403 and error_of(refused) == "not_an_admin"
    default = await bob.http.put(
        "/app/personas/default", json={"name": "Hacked", "system_prompt": "x"}, headers=bob.headers()
    )
    assert default.status_code == 403 and error_of(default) == "not_your_persona"
    shared_import = await bob.http.post(
        "/app/personas/import?shared=true",
        content=card_png(),
        headers={**bob.headers(), "Content-Type": "image/png"},
    )
    assert shared_import.status_code == 403 and error_of(shared_import) == "not_an_admin"

    keeper = await signed_up(claude_app, WEB_ADMIN)
    made = await keeper.post("/app/personas", body)
    assert made.status_code == 201 and made.json()["persona"]["private"] is False
    pid = made.json()["persona"]["id"]
    seen = {p["id"]: p for p in (await bob.http.get("/app/personas")).json()["personas"]}
    assert pid in seen and seen[pid]["editable"] is False and seen[pid]["system_prompt"] is None
    guest = visitor_of(claude_app)
    assert pid in [p["id"] for p in (await guest.open())["personas"]]  # everyone may talk to it
    await guest.close()
    change = {"name": "Harbor Guide", "system_prompt": "You are a cheerful harbor guide."}
    assert (await bob.http.put(f"/app/personas/{pid}", json=change, headers=bob.headers())).status_code == 403
    assert (await bob.http.delete(f"/app/personas/{pid}", headers=bob.headers())).status_code == 403
    changed = await keeper.http.put(f"/app/personas/{pid}", json=change, headers=keeper.headers())
    assert changed.status_code == 200
    deleted = await keeper.http.delete(f"/app/personas/{pid}", headers=keeper.headers())
    assert deleted.status_code == 200 and deleted.json()["deleted"] == pid
    await keeper.close()


async def test_only_ones_own_messages_change_and_swipes_keep_alternatives(
    people: tuple[Visitor, Visitor], claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    alice, bob = people
    chat = alice.session["chat"]
    fact = "Alice's cat is called Pixel"
    anthropic_fake.script(
        Reply(text="A cat! ", tool_uses=(save_memory(fact),)),
        Reply(text="Noted."),
        Reply(text="Pixel, what a name."),
        Reply(text="Cats are wonderful."),
    )
    (first,) = await converse(claude_app, alice, chat, {"type": "message", "text": "My cat is called Pixel"})
    assert first["type"] == "done" and first["reply"] == "A cat! Noted."
    assert await memories(alice) == [fact]
    history = (await alice.open())["messages"]
    mine = next(m for m in history if m["role"] == "user")
    reply = next(m for m in history if m["role"] == "assistant" and m["turn"] == first["turn"])
    assert mine["mine"] is True and reply["mine"] is False

    url = f"/app/chats/{chat}/messages"
    theirs = await bob.http.put(f"{url}/{mine['id']}", json={"text": "hacked"}, headers=bob.headers())
    assert theirs.status_code == 403 and error_of(theirs) == "not_your_chat"
    persona_reply = await bob.http.put(f"{url}/{reply['id']}", json={"text": "x"}, headers=bob.headers())
    assert persona_reply.status_code == 403 and error_of(persona_reply) == "not_your_chat"
    blank_reply = await alice.http.put(f"{url}/{reply['id']}", json={"text": ""}, headers=alice.headers())
    assert blank_reply.status_code == 422 and error_of(blank_reply) == "text_empty"
    empty = await alice.http.put(f"{url}/{mine['id']}", json={"text": "  "}, headers=alice.headers())
    assert empty.status_code == 422 and error_of(empty) == "text_empty"
    missing = await alice.http.delete(f"{url}/m999", headers=alice.headers())
    assert missing.status_code == 404 and error_of(missing) == "message_not_found"

    # regenerate: the new reply saves nothing, so the memory the first one saved is rolled back (MEM-7)
    (second,) = await converse(claude_app, alice, chat, {"type": "regenerate", "turn": first["turn"]})
    assert second["type"] == "done" and second["reply"] == "Pixel, what a name."
    assert second["swipes"]["turns"] == [first["turn"], second["turn"]] and second["swipes"]["index"] == 1
    assert await memories(alice) == []
    history = (await alice.open())["messages"]
    assert [m["text"] for m in history if m["role"] == "assistant"][-1] == "Pixel, what a name."
    assert history[-1]["swipes"] == [first["turn"], second["turn"]]

    chosen = await alice.post(f"/app/chats/{chat}/turns/{first['turn']}/choose", None)
    assert chosen.status_code == 200 and chosen.json()["message"]["text"] == "A cat! Noted."
    assert chosen.json()["swipes"]["index"] == 0
    assert [m["text"] for m in (await alice.open())["messages"] if m["role"] == "assistant"][
        -1
    ] == "A cat! Noted."
    assert await memories(alice) == []  # a reply's writes, once undone, are not redone
    stranger = await bob.post(f"/app/chats/{chat}/turns/{second['turn']}/choose", None)
    assert stranger.status_code == 403
    (third,) = await converse(claude_app, alice, chat, {"type": "message", "text": "Do you like cats?"})
    assert third["type"] == "done"
    sent = json.dumps([r for r in anthropic_fake.requests if r.path == "/v1/messages"][-1].body)
    assert "A cat! Noted." in sent and "Pixel, what a name." not in sent  # the chosen one is what it sees
    late = await alice.post(f"/app/chats/{chat}/turns/{second['turn']}/choose", None)
    assert late.status_code == 409 and error_of(late) == "not_a_swipe"  # not the latest reply any more

    deleted = await alice.http.delete(f"{url}/{mine['id']}", headers=alice.headers())
    assert deleted.status_code == 200 and deleted.json()["also"] == [reply["id"]]  # its reply went too
    left = [m["id"] for m in (await alice.open())["messages"]]
    assert mine["id"] not in left and reply["id"] not in left


async def test_issue_31_persona_replies_are_edited_and_deleted_and_an_unanswered_message_is_answered(
    people: tuple[Visitor, Visitor], claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 31: a persona reply is edited (the next request carries the edit) and deleted; a
    message whose turn failed is answered by the ``answer`` frame and by ``POST /api/chats/{chat}
    /answer``; asking when the last message has a reply is 409 ``nothing_to_answer``."""
    alice, bob = people
    chat = alice.session["chat"]
    url = f"/app/chats/{chat}/messages"
    anthropic_fake.script(Reply(text="Tea is ready."), Reply(text="With milk, then."))
    (first,) = await converse(claude_app, alice, chat, {"type": "message", "text": "Tea please"})
    reply_id = first["reply_message"]
    edited = await alice.http.put(
        f"{url}/{reply_id}", json={"text": "Oolong is ready."}, headers=alice.headers()
    )
    assert edited.status_code == 200 and edited.json()["message"]["role"] == "assistant"
    stranger = await bob.http.delete(f"{url}/{reply_id}", headers=bob.headers())
    assert stranger.status_code == 403
    await converse(claude_app, alice, chat, {"type": "message", "text": "Milk?"})
    sent = json.dumps([r for r in anthropic_fake.requests if r.path == "/v1/messages"][-1].body)
    assert "Oolong is ready." in sent and "Tea is ready." not in sent
    history = (await alice.open())["messages"]
    last = history[-1]
    gone = await alice.http.delete(f"{url}/{last['id']}", headers=alice.headers())
    assert gone.status_code == 200 and gone.json() == {"deleted": last["id"], "also": []}
    assert (await alice.open())["messages"][-1]["text"] == "Milk?"

    # a failed turn leaves "Sugar?" without a reply: the answer frame answers it
    anthropic_fake.script(Error(status=400), Reply(text="No sugar."), Reply(text="Lemon, yes."))
    (failed,) = await converse(claude_app, alice, chat, {"type": "message", "text": "Sugar?"})
    assert failed["type"] == "error"
    opened = await alice.open()
    assert opened["messages"][-1]["text"] == "Sugar?"
    (answered,) = await converse(claude_app, alice, chat, {"type": "answer"})
    assert answered["type"] == "done" and answered["reply"] == "No sugar."
    assert answered["reply_message"] == (await alice.open())["messages"][-1]["id"]
    (refused,) = await converse(claude_app, alice, chat, {"type": "answer"})
    assert refused["type"] == "error" and refused["code"] == "nothing_to_answer"

    # the operator's REST twin
    api = HearthClient(claude_app.base_url)
    try:
        op_chat = f"web:answer-{new_name()}"
        stored = await api.send(op_chat, "Lemon?", reply=False)
        assert stored.status_code == 200, stored.text
        done = await api.http.post(f"/api/chats/{op_chat}/answer")
        assert done.status_code == 200 and done.json()["reply"] == "Lemon, yes."
        again = await api.http.post(f"/api/chats/{op_chat}/answer")
        assert again.status_code == 409 and error_of(again) == "nothing_to_answer"
        empty = await api.http.post(f"/api/chats/web:nobody-{new_name()}/answer")
        assert empty.status_code == 409 and error_of(empty) == "nothing_to_answer"
        async with httpx.AsyncClient(base_url=claude_app.base_url) as bare:
            anonymous = await bare.post(f"/api/chats/{op_chat}/answer")
        assert anonymous.status_code == 401
    finally:
        await api.close()


async def memories(visitor: Visitor, chat: str | None = None) -> list[str]:
    listed = (await visitor.http.get(f"/app/chats/{chat or visitor.session['chat']}/memories")).json()[
        "lists"
    ]
    return [m["text"] for lst in listed for m in lst["memories"]]


async def test_a_branch_copies_the_chat_up_to_a_message_and_shares_memories(
    people: tuple[Visitor, Visitor], claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    alice, bob = people
    chat = alice.session["chat"]
    anthropic_fake.script(Reply(text="Hello Alice."), Reply(text="Lisbon is lovely."))
    await converse(
        claude_app,
        alice,
        chat,
        {"type": "message", "text": "Hi there"},
        {"type": "message", "text": "I am moving to Lisbon"},
    )
    history = (await alice.open())["messages"]
    first_reply = next(m for m in history if m["text"] == "Hello Alice.")
    made = await alice.post(f"/app/chats/{chat}/branches", {"message": first_reply["id"]})
    assert made.status_code == 201, made.text
    branch = made.json()["branch"]
    assert (
        branch["chat"].startswith(chat + "=b-") and branch["title"] == "Branch 1"
    )  # issue 31: numbered, not the first words
    # issue 31: a branch is renamed (from the original or from the branch); bad input is refused
    rename = f"/app/chats/{chat}/branches/{branch['id']}"
    renamed = await alice.http.put(rename, json={"title": "  Lisbon   plans "}, headers=alice.headers())
    assert renamed.status_code == 200 and renamed.json()["branch"]["title"] == "Lisbon plans"
    for body, status, code in (
        ({"title": "   "}, 422, "title_empty"),
        ({"title": "x" * 81}, 422, "title_too_long"),
    ):
        refused = await alice.http.put(rename, json=body, headers=alice.headers())
        assert (refused.status_code, error_of(refused)) == (status, code)
    assert (await alice.http.put(rename, json={}, headers=alice.headers())).status_code == 422
    nowhere = await alice.http.put(
        f"/app/chats/{chat}/branches/0000beef", json={"title": "x"}, headers=alice.headers()
    )
    assert nowhere.status_code == 404 and error_of(nowhere) == "branch_not_found"
    stranger = await bob.http.put(rename, json={"title": "mine"}, headers=bob.headers())
    assert stranger.status_code == 403
    opened = await alice.open(branch=branch["id"])
    assert opened["chat"] == branch["chat"]
    assert [b["title"] for b in opened["branches"]] == ["Lisbon plans"]
    assert [m["text"] for m in opened["messages"] if m["role"] == "user"] == ["Hi there"]
    assert [b["id"] for b in opened["branches"]] == [branch["id"]]

    # a memory kept in the branch is the original's too (MEM-1: one space)
    added = await alice.post(
        f"/app/chats/{branch['chat']}/memories", {"list": "personal", "text": "Alice likes trams"}
    )
    assert added.status_code == 201, added.text
    await alice.open()
    assert await memories(alice, chat) == ["Alice likes trams"]
    anthropic_fake.script(Reply(text="Porto, then?"))
    (done,) = await converse(claude_app, alice, branch["chat"], {"type": "message", "text": "Or maybe Porto"})
    assert done["type"] == "done"
    original = [m["text"] for m in (await alice.open())["messages"] if m["role"] == "user"]
    assert original == ["Hi there", "I am moving to Lisbon"]  # the original is untouched

    assert (await bob.post(f"/app/chats/{chat}/branches", {"message": first_reply["id"]})).status_code == 403
    assert (await bob.http.get("/app/session", params={"branch": "zz"})).status_code == 404


async def test_a_guest_chat_moves_only_with_its_own_ticket(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    guest = visitor_of(claude_app)
    await guest.open()
    anthropic_fake.script(Reply(text="Welcome, traveller."))
    await converse(
        claude_app, guest, guest.session["chat"], {"type": "message", "text": "I am Tomas from Brno"}
    )
    got = await guest.post("/app/guest-chat/ticket", None)
    assert got.status_code == 200, got.text
    ticket = got.json()
    assert ticket["has_chat"] is True
    forged = ticket["ticket"].rsplit(".", 1)[0] + ".0123456789abcdef0123456789abcdef"
    name = new_name()
    made = await guest.post("/app/signup", {"username": name, "password": PASSWORD})
    assert made.status_code == 201
    await guest.open()
    bad = await guest.post("/app/guest-chat/move", {"ticket": forged})
    assert bad.status_code == 422 and error_of(bad) == "invalid_ticket"
    moved = await guest.post("/app/guest-chat/move", {"ticket": ticket["ticket"]})
    assert moved.status_code == 200 and moved.json() == {
        "room": "main",
        "moved": 3,
    }  # greeting, message, reply
    history = (await guest.open())["messages"]
    assert [(m["name"], m["text"], m["mine"]) for m in history if m["role"] == "user"] == [
        (name, "I am Tomas from Brno", True)
    ]
    again = await guest.post("/app/guest-chat/move", {"ticket": ticket["ticket"]})
    assert again.status_code == 200 and again.json()["moved"] == 0  # the guest chat is gone from the guest
    signed = await guest.post("/app/guest-chat/ticket", None)
    assert signed.status_code == 403 and error_of(signed) == "not_a_guest"
    await guest.close()


async def test_charx_and_json_cards_import_as_personas_and_bad_cards_are_refused_by_name(
    people: tuple[Visitor, Visitor],
) -> None:
    alice, _ = people
    data = {
        "name": "Ondra",
        "description": "A ferryman.",
        "first_mes": "Step aboard, {{user}}.",
        "personality": "",
        "scenario": "",
        "mes_example": "",
        "creator_notes": "",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [],
        "group_only_greetings": [],
        "tags": [],
        "creator": "tests",
        "character_version": "1",
        "extensions": {},
    }
    v3 = json.dumps({"spec": "chara_card_v3", "spec_version": "3.0", "data": data}).encode()
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("card.json", v3)
    for body, kind in ((archive.getvalue(), "application/zip"), (v3, "application/json")):
        made = await alice.http.post(
            "/app/personas/import", content=body, headers={**alice.headers(), "Content-Type": kind}
        )
        assert made.status_code == 201, made.text
        persona = made.json()["persona"]
        assert persona["name"] == "Ondra" and persona["private"] and persona["avatar"] is None
        opened = await alice.open(persona=persona["id"])
        assert opened["persona"]["greeting"] == f"Step aboard, {alice.session['username']}."
    broken = await alice.http.post(
        "/app/personas/import",
        content=b"\x89PNG\r\n\x1a\nnope",
        headers={**alice.headers(), "Content-Type": "image/png"},
    )
    assert broken.status_code == 422 and error_of(broken).startswith("invalid_")


async def test_a_charx_card_brings_its_main_icon_as_the_persona_picture(
    people: tuple[Visitor, Visitor],
) -> None:
    alice, _ = people
    made = await alice.http.post(
        "/app/personas/import",
        content=own_file("own_wren.charx"),
        headers={**alice.headers(), "Content-Type": "application/zip"},
    )
    assert made.status_code == 201, made.text
    persona = made.json()["persona"]
    assert persona["name"] == "Wren" and persona["avatar"], persona  # CCv3: the nickname is shown
    picture = await alice.http.get(persona["avatar"])
    assert picture.status_code == 200 and picture.content == image_png()  # the icon asset, unchanged


async def test_doc_1_a_persona_document_is_added_and_listed_by_the_personas_owner_alone(
    people: tuple[Visitor, Visitor],
) -> None:
    """The browser's document upload goes to the documents' own desk (issue 14) and stays the owner's."""
    alice, bob = people
    made = await alice.post("/app/personas", {"name": "Quill", "system_prompt": "You are Quill, a scribe."})
    assert made.status_code == 201, made.text
    pid = made.json()["persona"]["id"]
    text = "# The scriptorium\nQuill keeps the red ink in the third drawer."
    added = await alice.http.post(
        f"/app/personas/{pid}/documents", json={"name": "scriptorium", "text": text}, headers=alice.headers()
    )
    assert added.status_code == 201, added.text
    assert added.json()["name"] == "scriptorium" and added.json()["chunks"] >= 1
    listed = (await alice.http.get(f"/app/personas/{pid}/documents")).json()["documents"]
    assert [d["id"] for d in listed] == [added.json()["id"]]
    stolen = await bob.http.post(
        f"/app/personas/{pid}/documents",
        json={"name": "mine", "text": "Bob was here."},
        headers=bob.headers(),
    )
    assert stolen.status_code == 404 and error_of(stolen) == "persona_not_found"
