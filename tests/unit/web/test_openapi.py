"""``/schema`` documents the chat, message, persona and account endpoints (issue 14, point 4).

A client generated from the OpenAPI document must find each endpoint with the JSON it takes and
the JSON it answers: the request body's fields (and which are required) and the 2xx answer's.
Marked ``integration``: the app is the web process's own, on the session's real Redis.
"""

from __future__ import annotations

from typing import Any

import pytest
import pytest_asyncio
from litestar.testing import AsyncTestClient

from adapters.bootstrap import create_web_app
from config.settings import load_settings
from tests.fixtures.servers import RedisServer

pytestmark = pytest.mark.integration

# (method, path, request body: required fields, optional fields | None, answer's fields)
ENDPOINTS: list[tuple[str, str, tuple[set[str], set[str]] | None, set[str]]] = [
    ("get", "/healthz", None, {"status", "redis", "model"}),
    (
        "post",
        "/api/chats/{chat}/messages",
        ({"user", "text"}, {"name", "persona", "sent_at", "reply"}),
        {"turn", "reply", "context", "message", "notices"},
    ),
    ("post", "/api/chats/{chat}/turns/{turn}/regenerate", None, {"turn", "reply", "context"}),
    ("get", "/api/chats/{chat}/turns/{turn}", None, {"turn", "status", "request"}),
    ("get", "/api/chats/{chat}/messages", None, {"messages"}),
    ("get", "/app/session", None, {"user", "guest", "chat", "rooms", "csrf", "persona", "messages"}),
    ("post", "/app/rooms", ({"name"}, set()), {"room"}),
    ("get", "/app/chats/{chat}/turns/{turn}", None, {"turn", "slots", "lore", "memories", "usage"}),
    ("put", "/app/chats/{chat}/messages/{message}", ({"text"}, set()), {"message"}),
    ("delete", "/app/chats/{chat}/messages/{message}", None, {"deleted"}),
    ("post", "/app/chats/{chat}/turns/{turn}/choose", None, {"message", "swipes"}),
    ("post", "/app/chats/{chat}/branches", ({"message"}, {"title"}), {"branch", "messages"}),
    ("post", "/app/guest-chat/ticket", None, {"ticket", "has_chat"}),
    ("post", "/app/guest-chat/move", ({"ticket"}, set()), {"room", "moved"}),
    ("post", "/app/signup", ({"username", "password"}, set()), {"user", "username", "guest"}),
    ("post", "/app/signin", ({"username", "password"}, set()), {"user", "username", "guest"}),
    ("post", "/app/signout", (set(), {"everywhere"}), {"user", "guest"}),
    ("post", "/app/link-code", None, {"code", "command", "expires_in"}),
    ("get", "/app/personas", None, {"personas", "admin", "can_create"}),
    (
        "post",
        "/app/personas",
        ({"name", "system_prompt"}, {"greeting", "description", "model", "lorebooks", "shared"}),
        {"persona"},
    ),
    ("post", "/app/personas/import", None, {"persona"}),
    ("put", "/app/personas/{persona}", ({"name", "system_prompt"}, {"model", "lorebooks"}), {"persona"}),
    ("delete", "/app/personas/{persona}", None, {"deleted", "memories_made_global"}),
    ("put", "/app/personas/{persona}/avatar", None, {"persona"}),
    ("get", "/app/personas/{persona}/documents", None, {"documents"}),
    ("post", "/app/personas/{persona}/documents", ({"name", "text"}, set()), {"id", "name", "chunks"}),
]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def schema(redis_server: RedisServer) -> dict[str, Any]:
    """The app's OpenAPI document, built once for the module's tests (they only read it)."""
    env = {"REDIS_URL": redis_server.db(12), "HEARTH_EMBEDDER": "hash"}
    async with AsyncTestClient(app=create_web_app(load_settings(env))) as client:
        response = await client.get("/schema/openapi.json")
        assert response.status_code == 200, response.text
        document: dict[str, Any] = response.json()
    return document


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """The object schema a node stands for (following ``$ref`` and a nullable ``oneOf``)."""
    if "$ref" in node:
        name = node["$ref"].removeprefix("#/components/schemas/")
        return resolve(schema, schema["components"]["schemas"][name])
    options = [o for o in node.get("oneOf", []) if o.get("type") != "null"]
    return resolve(schema, options[0]) if len(options) == 1 else node


def answer_of(schema: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    ok = [code for code in operation["responses"] if code.startswith("2")]
    assert len(ok) == 1, operation["responses"]
    return resolve(schema, operation["responses"][ok[0]]["content"]["application/json"]["schema"])


def _id(value: object) -> str:
    """A test id that is the same in every process (a set's order depends on the hash seed, and
    parallel test workers must collect identical ids)."""
    if isinstance(value, set | frozenset):
        return "{" + ", ".join(sorted(map(repr, value))) + "}" if value else "set()"
    if isinstance(value, tuple):
        return "(" + ", ".join(map(_id, value)) + ")"
    return str(value)


@pytest.mark.parametrize(("method", "path", "body", "answer"), ENDPOINTS, ids=_id)
async def test_schema_documents_the_endpoint_its_body_and_its_answer(
    schema: dict[str, Any],
    method: str,
    path: str,
    body: tuple[set[str], set[str]] | None,
    answer: set[str],
) -> None:
    operation = schema["paths"].get(path, {}).get(method)
    assert operation is not None, f"{method.upper()} {path} is not in /schema"
    assert answer <= set(answer_of(schema, operation)["properties"])
    if body is None:
        return
    required, optional = body
    content = operation["requestBody"]["content"]["application/json"]["schema"]
    documented = resolve(schema, content)
    assert required | optional <= set(documented["properties"])
    assert set(documented.get("required", [])) == required


async def test_the_model_failing_is_documented_in_the_errors_shape(schema: dict[str, Any]) -> None:
    operation = schema["paths"]["/api/chats/{chat}/messages"]["post"]
    failed = resolve(schema, operation["responses"]["502"]["content"]["application/json"]["schema"])
    assert set(resolve(schema, failed["properties"]["error"])["properties"]) == {"code", "message"}
