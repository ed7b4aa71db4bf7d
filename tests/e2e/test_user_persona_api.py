"""A person's own persona through the browser's and the operator's API (issue 31, SillyTavern's
"user persona"): set, read, used by the next request (``{{user}}`` is its name, the description
follows the card), reset; bad input is a 4xx in the contract's error shape with nothing stored."""

from __future__ import annotations

import httpx
import pytest

from tests.e2e import backends
from tests.e2e.api_client import HearthClient
from tests.e2e.test_web_app import Visitor, last_call
from tests.e2e.test_web_ux_api import converse, error_of, signed_up, visitor_of
from tests.fakes.anthropic_server import FakeAnthropic, Reply
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e]

claude_app = backends.claude_app  # every test here runs on a single Redis and on a Redis Cluster

BAD = [
    ({"name": ""}, "user_name_empty"),
    ({"name": "   "}, "user_name_empty"),
    ({"name": "x" * 65}, "user_name_too_long"),
    ({"name": "Ann\u0000a"}, "user_name_invalid"),
    ({"name": "Ann\na"}, "user_name_invalid"),
    ({"name": "Anna", "description": "y" * 4001}, "user_description_too_long"),
    ({"name": "Anna", "description": "ring \u0007 bell"}, "user_description_invalid"),
]


async def put_me(visitor: Visitor, body: object) -> httpx.Response:
    return await visitor.http.put("/app/me/persona", json=body, headers=visitor.headers())


async def test_issue_31_the_user_persona_is_user_and_its_description_reaches_the_model(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    alice = await signed_up(claude_app)
    try:
        username = alice.session["username"]
        fresh = await alice.http.get("/app/me/persona")
        assert fresh.json() == {"user": f"web:{username}", "name": username, "description": "", "set": False}
        saved = await put_me(alice, {"name": "  Lady   Ann ", "description": "{{user}} is a knight."})
        assert saved.status_code == 200, saved.text
        assert saved.json()["name"] == "Lady Ann" and saved.json()["set"] is True

        anthropic_fake.script(Reply(text="Welcome, knight."))
        chat = alice.session["chat"]
        (done,) = await converse(claude_app, alice, chat, {"type": "message", "text": "Hello there"})
        assert done["type"] == "done", done
        sent = last_call(anthropic_fake)
        assert "About Lady Ann, the person you are talking with:\\nLady Ann is a knight." in sent
        assert username not in sent.replace(f"web:{username}", "")  # {{user}} is the persona's name

        reset = await alice.http.delete("/app/me/persona", headers=alice.headers())
        assert reset.json() == {"user": f"web:{username}", "name": username, "description": "", "set": False}
        anthropic_fake.script(Reply(text="Hm."))
        await converse(claude_app, alice, chat, {"type": "message", "text": "Again"})
        assert "the person you are talking with" not in last_call(anthropic_fake)
    finally:
        await alice.close()


async def test_issue_31_bad_user_personas_are_refused_and_nothing_is_stored(claude_app: WebApp) -> None:
    alice = await signed_up(claude_app)
    guest = visitor_of(claude_app)
    operator = HearthClient(claude_app.base_url)
    try:
        assert (await put_me(alice, {"name": "Kept", "description": "Stays."})).status_code == 200
        for body, code in BAD:
            refused = await put_me(alice, body)
            assert refused.status_code == 422 and error_of(refused) == code, (body, refused.text)
            by_operator = await operator.http.put("/api/users/web:someone/persona", json=body)
            assert by_operator.status_code == 422 and error_of(by_operator) == code
        unknown = await put_me(alice, {"name": "A", "colour": "red"})
        assert unknown.status_code in (400, 422) and error_of(unknown)
        not_json = await alice.http.put(
            "/app/me/persona", content=b"{", headers={**alice.headers(), "Content-Type": "application/json"}
        )
        assert not_json.status_code == 400 and error_of(not_json) == "invalid_json"
        kept = (await alice.http.get("/app/me/persona")).json()
        assert (kept["name"], kept["description"]) == ("Kept", "Stays.")

        no_token = await alice.http.put("/app/me/persona", json={"name": "B"})
        assert no_token.status_code == 403 and error_of(no_token) == "csrf_failed"
        await guest.open()
        as_guest = await put_me(guest, {"name": "Guest"})
        assert as_guest.status_code == 403 and error_of(as_guest) == "sign_in_required"

        bad_user = await operator.http.get("/api/users/{x}/persona")
        assert bad_user.status_code == 422 and error_of(bad_user)
        set_by_operator = await operator.http.put(
            "/api/users/tg:42/persona", json={"name": "Sailor", "description": "Knows knots."}
        )
        assert set_by_operator.status_code == 200
        assert (await operator.http.get("/api/users/tg:42/persona")).json()["name"] == "Sailor"
        assert (await operator.http.delete("/api/users/tg:42/persona")).json()["set"] is False
        stranger = HearthClient(claude_app.base_url, token="wrong")
        nobody = await stranger.http.get("/api/users/tg:42/persona")
        await stranger.close()
        assert nobody.status_code == 401 and error_of(nobody)
    finally:
        await alice.close()
        await guest.close()
        await operator.close()
