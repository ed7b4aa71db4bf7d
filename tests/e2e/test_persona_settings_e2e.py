"""A persona's settings page over the real web app (issue 31): a changed setting changes the next
provider request (reply length and prompt order to Anthropic, temperature and top-p to an
OpenAI-compatible server; Anthropic's API refuses sampling, so none is sent there), a bad value is
a 422 naming the field and its range with nothing stored, reset brings the deployment's defaults
back, the inspector's request log shows the settings in effect, and only the owner may change them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.e2e.test_web_app import Visitor
from tests.e2e.test_web_ux_api import converse, error_of, people, signed_up
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.openai_server import Reply as OpenAIReply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e]
__all__ = ["people"]  # the fixture, shared with the web UX API tests

WINDOW_FIRST = [
    "window",
    "persona",
    "pinned_memories",
    "active_memories",
    "summaries",
    "lore",
    "recalled",
    "post_history",
]


def last_request(fake: FakeAnthropic | FakeOpenAI, path: str = "/v1/messages") -> dict[str, Any]:
    body: dict[str, Any] = [r for r in fake.requests if r.path == path][-1].body
    return body


async def own_persona(visitor: Visitor) -> tuple[str, str, dict[str, Any]]:
    """A new private persona of the visitor: its id, settings URL and settings page."""
    made = await visitor.post(
        "/app/personas", {"name": "Tuned", "system_prompt": "You are Tuned, a test persona."}
    )
    assert made.status_code == 201, made.text
    pid = made.json()["persona"]["id"]
    url = f"/app/personas/{pid}/settings"
    return pid, url, (await visitor.http.get(url)).json()


async def test_issue_31_a_changed_setting_changes_the_next_request(
    people: tuple[Visitor, Visitor], claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    alice, bob = people
    pid, url, shown = await own_persona(alice)
    assert shown["settings"] == shown["defaults"] and shown["editable"] is True
    assert shown["settings"]["temperature"] is None and "lore" in shown["slots"]

    chat = alice.session["chat"]
    anthropic_fake.script(Reply(text="One."), Reply(text="Two."), Reply(text="Three."))
    (first,) = await converse(claude_app, alice, chat, {"type": "message", "text": "hi", "persona": pid})
    assert first["type"] == "done", first
    before = last_request(anthropic_fake)
    assert "temperature" not in before and "top_p" not in before
    assert "You are Tuned" in before["system"][0]["text"]  # the persona leads the default order

    changed = {
        **shown["settings"],
        "temperature": 0.2,
        "top_p": 0.8,
        "max_tokens": 300,
        "prompt_order": WINDOW_FIRST,
    }
    put = await alice.http.put(url, json=changed, headers=alice.headers())
    assert put.status_code == 200, put.text
    assert put.json()["settings"]["temperature"] == 0.2
    (second,) = await converse(claude_app, alice, chat, {"type": "message", "text": "again", "persona": pid})
    assert second["type"] == "done", second
    after = last_request(anthropic_fake)
    assert after["max_tokens"] == 300 and "temperature" not in after  # Anthropic refuses sampling
    # the conversation now comes first: the persona's prompt follows it as a system note
    assert "You are Tuned" not in json.dumps(after.get("system", []))
    assert "You are Tuned" in json.dumps(after["messages"][-1])
    log = (await alice.http.get(f"/app/chats/{chat}/turns/{second['turn']}")).json()
    request = log.get("request", log)
    assert request["settings"]["temperature"] == 0.2 and request["settings"]["max_tokens"] == 300
    assert request["settings"]["sampling_sent"] is False
    assert [s["name"] for s in request["slots"]] == WINDOW_FIRST

    for field, value, code in [
        ("temperature", 3, "invalid_temperature"),
        ("top_p", -1, "invalid_top_p"),
        ("max_tokens", 5, "invalid_max_tokens"),
        ("prompt_order", ["persona", "persona", "window"], "invalid_template"),
    ]:
        bad = await alice.http.put(url, json={**changed, field: value}, headers=alice.headers())
        assert bad.status_code == 422 and error_of(bad) == code, bad.text
        if field != "prompt_order":
            assert field in bad.json()["error"]["message"]
    assert (await alice.http.get(url)).json()["settings"]["temperature"] == 0.2  # nothing stored

    theirs = await bob.http.put(url, json=shown["defaults"], headers=bob.headers())
    assert theirs.status_code in (403, 404)

    reset = await alice.http.delete(url, headers=alice.headers())
    assert reset.status_code == 200 and reset.json()["settings"] == reset.json()["defaults"]
    (third,) = await converse(claude_app, alice, chat, {"type": "message", "text": "more", "persona": pid})
    assert third["type"] == "done", third
    assert last_request(anthropic_fake)["max_tokens"] == shown["defaults"]["max_tokens"]


async def test_issue_31_temperature_set_on_the_page_reaches_an_openai_compatible_server(
    openai_app: WebApp, openai_fake: FakeOpenAI
) -> None:
    alice = await signed_up(openai_app)
    try:
        pid, url, shown = await own_persona(alice)
        chat = alice.session["chat"]
        openai_fake.script(OpenAIReply("One."), OpenAIReply("Two."))
        (first,) = await converse(openai_app, alice, chat, {"type": "message", "text": "hi", "persona": pid})
        assert first["type"] == "done", first
        assert "temperature" not in last_request(openai_fake, "/v1/chat/completions")
        changed = {**shown["settings"], "temperature": 1.3, "top_p": 0.7}
        assert (await alice.http.put(url, json=changed, headers=alice.headers())).status_code == 200
        (second,) = await converse(
            openai_app, alice, chat, {"type": "message", "text": "again", "persona": pid}
        )
        assert second["type"] == "done", second
        sent = last_request(openai_fake, "/v1/chat/completions")
        assert (sent["temperature"], sent["top_p"]) == (1.3, 0.7)
    finally:
        await alice.close()
