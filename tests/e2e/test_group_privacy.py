"""Group privacy from outside (MEM-4, issue 29): the web process under uvicorn, real Redis (single
and Cluster), the fake Anthropic server.

- A listened-to message (``reply: false``) is context: its author is not a participant of the
  next turn, so her personal and global memories stay out of a reply to someone else.
- The model saves personal and global memories only for a participant of the turn, named by
  platform id: a fact "about Frank" asked for by dave is refused, reported in the turn's request
  log and the web process's log, and never reaches Frank's lists or his private chat.
"""

from __future__ import annotations

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


@pytest.fixture
async def api(claude_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(claude_app.base_url)
    yield client
    await client.close()


def calls(fake: FakeAnthropic) -> list[RecordedRequest]:
    return [r for r in fake.requests if r.path == "/v1/messages"]


def people(*names: str) -> list[str]:
    """Fresh user ids, so the deployment-wide global lists start empty in every test."""
    tag = secrets.token_hex(3)
    return [f"{name}-{tag}" for name in names]


async def remember(api: HearthClient, **body: Any) -> None:
    response = await api.http.post("/api/memories", json=body)
    assert response.status_code == 201, response.text


async def texts(api: HearthClient, **params: str) -> list[str]:
    response = await api.http.get("/api/memories", params=params)
    assert response.status_code == 200, response.text
    return [m["text"] for m in response.json()["memories"]]


async def test_mem4_a_lurker_s_memories_stay_out_of_a_reply_to_someone_else(
    api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 29, item 1: carol's one listened-to line must not bring her memories into dave's turn."""
    chat = f"g-{secrets.token_hex(4)}"
    carol, dave = people("carol", "dave")
    await remember(api, scope="personal", owner=carol, space=chat, text="CAROL-SECRET: she is job hunting")
    await remember(api, scope="global", owner=carol, text="CAROL-GLOBAL: she is allergic to cats")
    anthropic_fake.script(Reply(text="Hi Dave!"), Reply(text="Not much, Dave."), Reply(text="Hi Carol!"))

    assert (await api.send(chat, "hello", user=dave, name="Dave")).status_code == 200
    lurked = await api.send(chat, "lurking", user=carol, name="Carol", reply=False)
    assert lurked.status_code == 200 and lurked.json()["reply"] is None
    to_dave = await api.send(chat, "what's new?", user=dave, name="Dave")
    assert to_dave.status_code == 200, to_dave.text
    request = json.dumps(calls(anthropic_fake)[-1].body)
    assert "what's new?" in request and "lurking" in request  # her line is context
    assert "CAROL-SECRET" not in request and "CAROL-GLOBAL" not in request
    assert to_dave.json()["context"]["memories"] == []

    to_carol = await api.send(chat, "anything for me?", user=carol, name="Carol")
    assert to_carol.status_code == 200, to_carol.text
    request = json.dumps(calls(anthropic_fake)[-1].body)
    assert "CAROL-SECRET" in request and "CAROL-GLOBAL" in request  # answered, she takes part


async def test_mem4_a_fact_planted_about_someone_else_is_refused_and_reported(
    claude_app: WebApp, api: HearthClient, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 29, item 2: dave asks the persona to remember something about Frank, who only
    listened; the model's save "about Frank" is refused; a save for dave, by id, works."""
    chat = f"g-{secrets.token_hex(4)}"
    frank, dave = people("frank", "dave")
    planted = "Frank is afraid of dogs"
    anthropic_fake.script(
        Reply(
            text="Noted. ",
            tool_uses=(
                ToolUse(name="save_memory", input={"text": planted, "scope": "global", "about": "Frank"}),
                ToolUse(
                    name="save_memory",
                    input={"text": "Dave has a dog named Rex", "scope": "global", "about": f"web:{dave}"},
                ),
            ),
        ),
        Reply(text="I'll keep Rex in mind."),
        Reply(text="Hello Frank."),
    )
    assert (await api.send(chat, "hi all", user=frank, name="Frank", reply=False)).status_code == 200
    response = await api.send(
        chat, "Remember that Frank is afraid of dogs. I have a dog named Rex.", user=dave, name="Dave"
    )
    assert response.status_code == 200, response.text
    assert response.json()["reply"] == "Noted. I'll keep Rex in mind."

    first, second = calls(anthropic_fake)[-2:]
    (save,) = [t for t in first.body["tools"] if t["name"] == "save_memory"]
    assert f'"web:{dave}"' in save["description"] and frank not in save["description"]
    refused, saved = second.body["messages"][-1]["content"]
    assert refused["is_error"] is True and refused["content"].startswith("Refused: ")
    assert f'"web:{dave}"' in refused["content"]  # the model is told whom it may name, by id
    assert saved.get("is_error") is not True and "Dave has a dog named Rex" in saved["content"]

    turn = response.json()["turn"]
    log = (await api.turn(chat, turn))["request"]
    assert [
        (w["kind"], w["tool"], w["code"], w["scope"], w["about"], w["text"]) for w in log["refused_writes"]
    ] == [("refused", "save_memory", "not_a_participant", "global", "Frank", planted)]
    assert [(w["kind"], w["scope"], w["text"]) for w in log["memory_writes"]] == [
        ("saved", "global", "Dave has a dog named Rex")
    ]
    assert f"memory write refused by turn {turn}: save_memory (not_a_participant)" in claude_app.output()

    assert await texts(api, scope="global", owner=frank) == []
    assert await texts(api, scope="personal", owner=frank, space=chat) == []
    assert await texts(api, scope="global", owner=dave) == ["Dave has a dog named Rex"]

    private = await api.send(f"dm-{secrets.token_hex(4)}", "hi, it's me", user=frank, name="Frank")
    assert private.status_code == 200, private.text
    assert "afraid of dogs" not in json.dumps(calls(anthropic_fake)[-1].body)  # not in his private chat
