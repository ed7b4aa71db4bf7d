"""End to end with ``HEARTH_LLM=openai``: the Procfile's web process + real Redis + the fake
OpenAI-compatible server (LLM-1, MEM-6a, MEM-8, PLT-6, PRM-3; issue 30).

A reply streams over the WebSocket; the request carries the persona's system prompt, the window
and the person's text; a tool call saves a memory; a server that refuses tools still answers and
is not sent them again; 429 is retried; a 500 storm ends with the same error as with Claude; a
persona may name its own provider and model, and a provider the deployment lacks is a clear 4xx.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import BrowserClient, HearthClient
from tests.e2e.test_memories import memories
from tests.e2e.test_web_ux_api import signed_up
from tests.fakes.anthropic_server import Error as ClaudeError
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.anthropic_server import Reply as ClaudeReply
from tests.fakes.openai_server import Error, FakeOpenAI, Reply, ToolCallReply
from tests.fixtures.servers import OPENAI_KEY, WebApp

pytestmark = pytest.mark.e2e


def room() -> str:
    return f"oai-{secrets.token_hex(4)}"


def calls(fake: FakeOpenAI) -> list[Any]:
    return [r for r in fake.requests if r.path == "/v1/chat/completions"]


def persona_prompt() -> str:
    from config.load import load_personas

    return load_personas("config/personas")[0].system_prompt.strip()


@pytest.fixture
async def api(openai_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(openai_app.base_url)
    yield client
    await client.close()


async def test_llm_1_a_reply_streams_and_the_request_carries_prompt_window_and_text(
    openai_app: WebApp, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script(Reply("The fire is warm tonight, friend. Sit down.", chunk_size=6))
    browser = BrowserClient(openai_app.base_url)
    try:
        await browser.open()
        frames = await browser.chat("Hello Ember!")
    finally:
        await browser.close()
    deltas = [f["text"] for f in frames if f["type"] == "delta"]
    done = frames[-1]
    assert done["type"] == "done" and len(deltas) >= 5
    assert "".join(deltas) == done["reply"] == "The fire is warm tonight, friend. Sit down."
    (request,) = calls(openai_fake)
    body = request.body
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["model"] == "gpt-test" and request.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    system, *window = body["messages"]
    assert system["role"] == "system" and system["content"].startswith(persona_prompt())
    assert [m["role"] for m in window] == ["user", "assistant", "user"]  # opener, greeting, the message
    assert window[1]["content"].startswith("Hi, I'm Ember.")  # the persona's greeting
    assert window[-1]["content"].endswith("Hello Ember!")
    # a guest: no memory tools, only the archive's
    assert {t["function"]["name"] for t in body["tools"]} == {
        "search_archive",
        "explore_archive",
        "add_working_note",
    }


async def test_prm_3_the_request_log_names_provider_model_and_cached_tokens(
    api: HearthClient, openai_fake: FakeOpenAI
) -> None:
    chat = room()
    first = await api.send(chat, "What's for dinner?")
    second = await api.send(chat, "And for dessert?")
    assert first.status_code == second.status_code == 200, second.text
    log = await api.turn(chat, second.json()["turn"])
    assert (log["request"]["provider"], log["request"]["model"]) == ("openai", "gpt-test")
    usage = log["request"]["usage"]
    assert usage["cache_read_input_tokens"] > 0 and usage["output_tokens"] > 0  # the prefix was cached
    one, two = calls(openai_fake)
    assert one.body["messages"][0] == two.body["messages"][0]  # the same system message: a cacheable prefix


async def test_mem_6a_a_scripted_tool_call_saves_a_memory(api: HearthClient, openai_fake: FakeOpenAI) -> None:
    chat = room()
    openai_fake.script(
        Reply("Oh nice! ", tool_calls=(ToolCallReply("save_memory", {"text": "Juno's sister is Ana"}),)),
        Reply("I'll remember Ana."),
    )
    response = await api.send(chat, "My sister is called Ana", user="juno")
    assert response.status_code == 200, response.text
    assert response.json()["reply"] == "Oh nice! I'll remember Ana."
    first, second = calls(openai_fake)
    assert {t["function"]["name"] for t in first.body["tools"]} >= {"save_memory", "update_memory"}
    call, result = second.body["messages"][-2:]
    assert call["role"] == "assistant" and call["tool_calls"][0]["function"]["name"] == "save_memory"
    assert result["role"] == "tool" and result["tool_call_id"] == call["tool_calls"][0]["id"]
    assert "Juno's sister is Ana" in result["content"]
    saved = await memories(api, scope="personal", owner="juno", space=chat)
    assert [m["text"] for m in saved] == ["Juno's sister is Ana"]


async def test_mem_8_a_server_that_refuses_tools_still_answers_and_is_not_sent_them_again(
    api: HearthClient, openai_fake: FakeOpenAI
) -> None:
    """The persona ``toolless`` talks to a model the server runs without tool support."""
    openai_fake.no_tools = True
    chat = room()
    first = await api.send(chat, "Good evening!", persona="toolless")
    assert first.status_code == 200, first.text
    assert first.json()["reply"] == "Fake model heard: Good evening!"
    refused, answered = calls(openai_fake)
    assert refused.body["model"] == "toolless-model" and "tools" in refused.body
    assert "tools" not in answered.body
    second = await api.send(chat, "How are you?", persona="toolless")
    assert second.status_code == 200 and len(calls(openai_fake)) == 3
    assert "tools" not in calls(openai_fake)[-1].body  # remembered: no refused request first
    remember = await api.send(chat, "Remember that I am allergic to cats.", persona="toolless", user="juno")
    assert remember.status_code == 200, remember.text
    (write,) = remember.json()["context"]["memory_writes"]
    assert write["kind"] == "saved" and write["text"].endswith("allergic to cats")
    assert all("tools" not in r.body for r in calls(openai_fake)[2:])
    saved = await memories(api, scope="personal", owner="juno", space=chat, persona="toolless")
    assert [m["text"] for m in saved] == [write["text"]]


async def test_429_with_retry_after_is_retried_and_answers(
    api: HearthClient, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script(Error(429, retry_after=0.2), Reply("Sorry, I dozed off. I'm here."))
    chat = room()
    response = await api.send(chat, "Wake up!")
    assert response.status_code == 200, response.text
    assert response.json()["reply"] == "Sorry, I dozed off. I'm here."
    assert len(calls(openai_fake)) == 2
    assert (await api.turn(chat, response.json()["turn"]))["request"]["attempts"] == 2


async def test_plt_6_a_500_storm_ends_with_the_same_error_as_with_claude(
    api: HearthClient, openai_fake: FakeOpenAI, claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    openai_fake.script(Error(500), Error(500), Error(500))
    anthropic_fake.script(ClaudeError(status=500), ClaudeError(status=500), ClaudeError(status=500))
    claude = HearthClient(claude_app.base_url)
    try:
        chat = room()
        ours, theirs = await api.send(chat, "Anyone home?"), await claude.send(room(), "Anyone home?")
    finally:
        await claude.close()
    assert ours.status_code == theirs.status_code == 502
    mine, claudes = ours.json()["error"], theirs.json()["error"]
    assert mine["code"] == claudes["code"] == "llm_unavailable"
    assert len(calls(openai_fake)) == 3  # two retries, as HEARTH_LLM_MAX_RETRIES says
    label = f"The model server at {httpx.URL(openai_fake.base_url).netloc.decode()}"
    assert mine["message"].replace(f"{label} answered 500 server_error", "X") == claudes["message"].replace(
        "Claude answered 500 api_error", "X"
    )
    assert "saved" in mine["message"]
    assert [m["text"] for m in await api.history(chat)][-1] == "Anyone home?"


async def test_llm_1_a_persona_naming_claude_is_answered_by_claude(
    api: HearthClient, openai_fake: FakeOpenAI, anthropic_fake: FakeAnthropic
) -> None:
    anthropic_fake.script(ClaudeReply(text="Claude here, by the fire."))
    chat = room()
    response = await api.send(chat, "Who answers?", persona="claude-side")
    assert response.status_code == 200, response.text
    assert response.json()["reply"] == "Claude here, by the fire."
    assert calls(openai_fake) == []
    (request,) = [r for r in anthropic_fake.requests if r.path == "/v1/messages"]
    assert request.body["model"] == "claude-side-model"
    log = await api.turn(chat, response.json()["turn"])
    assert (log["request"]["provider"], log["request"]["model"]) == ("anthropic", "claude-side-model")


def persona_body(**model: Any) -> dict[str, Any]:
    return {"name": "Tally", "system_prompt": "You count things.", "model": {"max_tokens": 256, **model}}


async def test_llm_1_the_persona_editor_checks_the_provider(openai_app: WebApp, offline_app: WebApp) -> None:
    visitor = await signed_up(openai_app)
    offline = await signed_up(offline_app)
    try:
        cases = [
            (visitor, {"provider": "bogus", "name": "x"}, "invalid_provider"),
            (visitor, {"provider": "anthropic"}, "model_name_required"),
            (offline, {"provider": "openai", "name": "gpt-test"}, "provider_unavailable"),
        ]
        for who, model, code in cases:
            refused = await who.post("/app/personas", persona_body(**model))
            assert refused.status_code == 422, refused.text
            assert refused.json()["error"]["code"] == code and refused.json()["error"]["message"]
        made = await visitor.post(
            "/app/personas", persona_body(provider="anthropic", name="claude-side-model")
        )
        assert made.status_code == 201, made.text
        persona = made.json()["persona"]
        assert (persona["model"]["provider"], persona["model"]["name"]) == ("anthropic", "claude-side-model")
        pid = persona["id"]
        changed = await visitor.http.put(
            f"/app/personas/{pid}",
            content=json.dumps(persona_body(provider="", name="")),
            headers={**visitor.headers(), "Content-Type": "application/json"},
        )
        assert changed.status_code == 200, changed.text
        assert changed.json()["persona"]["model"]["provider"] == ""  # back to the deployment's
    finally:
        await visitor.close()
        await offline.close()
