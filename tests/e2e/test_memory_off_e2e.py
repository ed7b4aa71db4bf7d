"""MEM-8 and DEEP-4 from outside (issue 34): a chat switched to memory off through the operator
API, with the Procfile ``web`` and ``worker`` talking to the fake Anthropic server.

The fake's script is a queue, one item per ``/v1/messages`` request in arrival order. Round one
(memory off): a reply whose scripted ``save_memory`` call is refused, its tool round, then the
summary of the 20 messages the reply pushed out of the window; the deep pass makes no request.
Then the same long chat with memory on: the reply, the summary and the deep pass.
"""

from __future__ import annotations

import asyncio
import secrets
import subprocess
from typing import Any

import pytest

from tests.e2e.api_client import HearthClient
from tests.e2e.test_deep_memory_e2e import _memories, _messages_requests, _system_text, llm_pair
from tests.fakes.anthropic_server import FakeAnthropic, Reply, ToolUse
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e

__all__ = ["llm_pair"]  # the deep memory tests' module-scoped web and worker: one pair for this module

PINNED = "This room's password is heliotrope."
FACT = "Ana is allergic to peanuts."


async def _reports_until(api: HearthClient, chat: str, count: int) -> list[dict[str, Any]]:
    reports: list[dict[str, Any]] = []
    for _ in range(300):  # the worker runs the job in the background
        response = await api.http.get(f"/api/chats/{chat}/deep-reports")
        assert response.status_code == 200, response.text
        reports = response.json()["reports"]
        if len(reports) >= count:
            return reports
        await asyncio.sleep(0.2)
    return reports


async def _listen(api: HearthClient, chat: str, count: int, start: int) -> None:
    for i in range(start, start + count):
        stored = await api.send(chat, f"Day {i}: we walked along the river.", user="ana", reply=False)
        assert stored.status_code == 200, stored.text


async def test_mem_8_deep_4_a_memory_off_chat_reads_and_writes_nothing_and_gets_no_deep_pass(
    llm_pair: tuple[WebApp, subprocess.Popen[bytes]], anthropic_fake: FakeAnthropic
) -> None:
    """MEM-8, DEEP-4 (issue 34): in a memory-off chat a pinned space memory is not in the prompt,
    "remember that …" and a scripted save tool call store nothing, the request log says memory
    off and a long chat triggers no deep pass; the same long chat with memory on gets one."""
    app, _ = llm_pair
    api = HearthClient(app.base_url)
    chat, control = f"challenge-{secrets.token_hex(3)}", f"river-{secrets.token_hex(3)}"
    for room in (chat, control):
        pinned = await api.http.post(
            "/api/memories", json={"scope": "space", "space": room, "text": PINNED, "pinned": True}
        )
        assert pinned.status_code == 201, pinned.text
    assert (await api.http.get(f"/api/chats/{chat}/settings")).json()["memory"] == "on"
    switched = await api.http.put(f"/api/chats/{chat}/settings", json={"memory": "off"})
    assert switched.status_code == 200, switched.text
    assert switched.json() == {"chat": f"web:{chat}", "memory": "off"}  # before its first message
    assert (await api.http.get(f"/api/chats/{chat}/settings")).json()["memory"] == "off"
    bad = await api.http.put(f"/api/chats/{chat}/settings", json={"memory": "maybe"})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_body", bad.text
    unauthorized = await api.http.put(
        f"/api/chats/{chat}/settings", json={"memory": "on"}, headers={"Authorization": "Bearer wrong"}
    )
    assert unauthorized.status_code == 401, unauthorized.text

    save = ToolUse(name="save_memory", input={"text": "Ana likes green tea.", "scope": "personal"})
    anthropic_fake.script(
        Reply(text="I hear you.", tool_uses=(save,)),
        Reply(text="Memory is off here, so I will not keep that."),
        Reply(text="Ana walked along the river for many days."),  # the chunk's summary
    )
    await _listen(api, chat, 69, 0)
    answered = await api.send(chat, "Remember that I like green tea.", user="ana")
    assert answered.status_code == 200, answered.text
    reports = await _reports_until(api, chat, 1)
    assert [r["status"] for r in reports] == ["skipped"], reports
    assert "memory is off" in reports[0]["reason"]

    requests = _messages_requests(anthropic_fake)
    assert len(requests) == 3  # reply, its tool round, the summary: no deep pass request
    first = requests[0].body
    assert PINNED not in _system_text(first) and PINNED not in str(first["messages"])
    assert "Memory is off for this chat" in _system_text(first)
    assert not first.get("tools")  # neither the memory tools nor the archive's are offered
    assert await _memories(api, chat) == []  # neither "remember that …" nor the tool call saved
    log = (await api.turn(f"web:{chat}", answered.json()["turn"]))["request"]
    assert log["memory"] == "off" and log["memories"] == []
    assert [w["code"] for w in log["refused_writes"]] == ["memory_off"]

    deep_json = f'{{"facts": [{{"text": "{FACT}", "scope": "personal", "about": "P1"}}]}}'
    anthropic_fake.script(
        Reply(text="We are by the river, Ana."),
        Reply(text="Ana walked along the river for many days."),
        Reply(text=deep_json),
    )
    await _listen(api, control, 69, 0)
    assert (await api.send(control, "Where are we now?", user="ana")).status_code == 200
    reports = await _reports_until(api, control, 1)
    assert [r["status"] for r in reports] == ["saved"], reports  # the same chat with memory on
    requests = _messages_requests(anthropic_fake)
    assert len(requests) == 6 and PINNED in _system_text(requests[3].body)
    assert "Answer only JSON" in _system_text(requests[5].body)
    await api.close()


async def test_mem_8_switching_back_on_brings_the_pinned_memory_back(
    llm_pair: tuple[WebApp, subprocess.Popen[bytes]], anthropic_fake: FakeAnthropic
) -> None:
    """MEM-8 (issue 34): nothing is lost while memory is off: switched back on, the chat's next
    prompt carries the pinned space memory again, and regenerating there stays memory-on."""
    app, _ = llm_pair
    api = HearthClient(app.base_url)
    chat = f"trial-{secrets.token_hex(3)}"
    pinned = await api.http.post(
        "/api/memories", json={"scope": "space", "space": chat, "text": PINNED, "pinned": True}
    )
    assert pinned.status_code == 201, pinned.text
    anthropic_fake.script(
        Reply(text="One."), Reply(text="One again."), Reply(text="Two."), Reply(text="Three.")
    )
    assert (await api.http.put(f"/api/chats/{chat}/settings", json={"memory": "off"})).status_code == 200
    first = await api.send(chat, "What is the password?", user="ana")
    assert first.status_code == 200, first.text
    again = await api.http.post(f"/api/chats/web:{chat}/turns/{first.json()['turn']}/regenerate")
    assert again.status_code == 200, again.text  # a regenerate in the memory-off chat stays clean
    assert (await api.http.put(f"/api/chats/{chat}/settings", json={"memory": "on"})).status_code == 200
    assert (await api.send(chat, "And now?", user="ana")).status_code == 200
    requests = _messages_requests(anthropic_fake)
    assert [PINNED in _system_text(r.body) for r in requests] == [False, False, True]
    regenerated = (await api.turn(f"web:{chat}", again.json()["turn"]))["request"]
    assert regenerated["memory"] == "off" and regenerated["memories"] == []
    assert (await api.http.get(f"/api/chats/{chat}/settings")).json()["memory"] == "on"
    await api.close()
