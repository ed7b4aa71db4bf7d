"""A card's fields through the browser's API (issue 31, LORE-13, PRM-1): the editor keeps what
a change leaves out, the session offers the greeting's alternates, a new chat opens with the one
the first message names, and an unknown one is refused with nothing stored."""

from __future__ import annotations

import json

from tests.e2e.test_web_app import Visitor, last_call
from tests.e2e.test_web_ux_api import converse, error_of, signed_up
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

DATA = {
    "name": "Ondra",
    "description": "A ferryman.",
    "first_mes": "Step aboard, {{user}}.",
    "personality": "patient",
    "scenario": "A river at dusk.",
    "mes_example": "<START>\n{{user}}: How deep?\n{{char}}: Deep enough.",
    "alternate_greetings": ["Mind the gap, {{user}}.", "Fare first."],
}


async def test_issue_31_card_fields_in_the_editor_the_session_and_the_request(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    alice = await signed_up(claude_app)
    try:
        await card_fields(alice, claude_app, anthropic_fake)
    finally:
        await alice.close()


async def card_fields(alice: Visitor, claude_app: WebApp, anthropic_fake: FakeAnthropic) -> None:
    card = json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": DATA}).encode()
    made = await alice.http.post(
        "/app/personas/import", content=card, headers={**alice.headers(), "Content-Type": "application/json"}
    )
    assert made.status_code == 201, made.text
    persona = made.json()["persona"]
    assert persona["personality"] == "patient" and persona["scenario"] == "A river at dusk."
    assert persona["alternate_greetings"] == DATA["alternate_greetings"]
    assert persona["mes_example"] == DATA["mes_example"]
    pid = persona["id"]

    # a change that leaves the card fields out keeps them; one that names them changes them
    base = {"name": "Ondra", "system_prompt": "You are {{char}}.", "greeting": DATA["first_mes"]}
    kept = await alice.http.put(f"/app/personas/{pid}", json=base, headers=alice.headers())
    assert kept.status_code == 200, kept.text
    assert kept.json()["persona"]["alternate_greetings"] == DATA["alternate_greetings"]
    changed = await alice.http.put(
        f"/app/personas/{pid}", json={**base, "personality": "patient, silent"}, headers=alice.headers()
    )
    assert changed.json()["persona"]["personality"] == "patient, silent"
    too_many = await alice.http.put(
        f"/app/personas/{pid}", json={**base, "alternate_greetings": ["hi"] * 51}, headers=alice.headers()
    )
    assert too_many.status_code == 422 and error_of(too_many) == "too_many_greetings"

    me = alice.session["username"]
    opened = await alice.open(persona=pid)
    assert opened["persona"]["greetings"] == [f"Step aboard, {me}.", f"Mind the gap, {me}.", "Fare first."]
    chat = opened["chat"]
    (refused,) = await converse(
        claude_app, alice, chat, {"type": "message", "text": "Hi", "persona": pid, "greeting": 3}
    )
    assert refused["type"] == "error" and refused["code"] == "invalid_greeting"
    assert (await alice.open(persona=pid))["messages"] == []  # nothing stored

    anthropic_fake.script(Reply(text="Sit down."))
    (done,) = await converse(
        claude_app, alice, chat, {"type": "message", "text": "Hi", "persona": pid, "greeting": 1}
    )
    assert done["type"] == "done", done
    sent = last_call(anthropic_fake)
    assert f"Mind the gap, {me}." in sent and "Step aboard" not in sent
    assert "Ondra's personality: patient, silent" in sent and "Scenario: A river at dusk." in sent
    assert f"{me}: How deep?\\nOndra: Deep enough." in sent
    history = (await alice.open(persona=pid))["messages"]
    assert history[0]["text"] == f"Mind the gap, {me}."
