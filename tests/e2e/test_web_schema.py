"""``/schema`` documents the memory, lint, lore, summary and archive endpoints with their types.

Issue 14 point 4: request bodies and answers are msgspec Structs, so the OpenAPI document names
each body and each answer; the schema of an answer lists the fields the wire really carries.
"""

from __future__ import annotations

import secrets
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import HearthClient
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e

# (method, path): (the request body's schema or None, the answer's schema)
ENDPOINTS: dict[tuple[str, str], tuple[str | None, str]] = {
    ("get", "/api/memories"): (None, "MemoryList"),
    ("post", "/api/memories"): ("ApiNewMemory", "MemoryAdded"),
    ("patch", "/api/memories/{memory}"): ("MemoryEdit", "MemoryOne"),
    ("delete", "/api/memories/{memory}"): (None, "MemoryDeleted"),
    ("post", "/api/memories/clear"): ("ApiClear", "Cleared"),
    ("post", "/api/memories/compose"): ("ApiCompose", "Composed"),
    ("put", "/api/users/{user}/privacy"): ("PrivacyBody", "Privacy"),
    ("put", "/api/spaces/{space}/settings"): ("SpaceNoticesBody", "SpaceNotices"),
    ("put", "/api/spaces/{space}/blocklist"): ("BlocklistBody", "Blocklist"),
    ("get", "/api/personas/{persona}/documents"): (None, "DocumentList"),
    ("get", "/api/personas/{persona}/documents/{doc}"): (None, "JobView"),
    ("get", "/api/memories/lint"): (None, "LintReport"),
    ("get", "/api/memories/{memory}/explain"): (None, "Explained"),
    ("get", "/api/lorebooks"): (None, "BookList"),
    ("post", "/api/lorebooks"): (None, "Imported"),
    ("get", "/api/lorebooks/{book}"): (None, "BookView"),
    ("put", "/api/chats/{chat}/lorebooks"): ("AttachBooks", "ChatBooks"),
    ("put", "/api/personas/{persona}/lorebooks"): ("AttachBooks", "PersonaBooks"),
    ("delete", "/api/personas/{persona}"): (None, "PersonaDeleted"),
    ("post", "/api/chats/{chat}/answer"): (None, "ChatReply"),
    ("get", "/api/chats/{chat}/summary"): (None, "ApiSummary"),
    ("put", "/api/chats/{chat}/summary/{tier}"): ("TierEdit", "ApiTierEdited"),
    ("post", "/api/chats/{chat}/summary/rebuild"): (None, "Rebuilt"),
    ("get", "/api/chats/{chat}/deep-reports"): (None, "DeepReports"),
    ("get", "/api/chats/{chat}/archive"): (None, "ArchivePages"),
    ("get", "/api/archive/pages/{page_id}"): (None, "OneFullPage"),
    ("post", "/api/archive/pages/{page_id}/feedback"): ("FeedbackBody", "OnePage"),
    ("post", "/api/archive/pages/{page_id}/restore"): ("RestoreBody", "OneFullPage"),
    ("post", "/api/archive/search"): ("SearchBody", "SearchAnswer"),
    ("get", "/api/archive/status"): (None, "StatusView"),
    ("get", "/api/archive/dream-reports"): (None, "DreamReports"),
    ("get", "/app/chats/{chat}/memories"): (None, "Panel"),
    ("post", "/app/chats/{chat}/memories"): ("PanelAdd", "MemoryAdded"),
    ("put", "/app/chats/{chat}/memory-notices"): ("NoticeLevelBody", "NoticeLevel"),
    ("patch", "/app/memories/{memory}"): ("MemoryEdit", "MemoryOne"),
    ("delete", "/app/memories/{memory}"): (None, "MemoryDeleted"),
    ("post", "/app/chats/{chat}/memories/clear"): ("PanelClear", "Cleared"),
    ("post", "/app/chats/{chat}/memories/compose"): ("PanelCompose", "Composed"),
    ("get", "/app/lorebooks"): (None, "EditorBookList"),
    ("post", "/app/lorebooks"): (None, "Imported"),
    ("get", "/app/lorebooks/{book}"): (None, "EditorBook"),
    ("put", "/app/lorebooks/{book}/settings"): ("BookEdit", "EditorBook"),
    ("put", "/app/lorebooks/{book}/entries/{entry}"): ("EntryEdit", "EntrySaved"),
    ("post", "/app/lorebooks/{book}/entries"): ("EntryEdit", "EntrySaved"),
    ("delete", "/app/lorebooks/{book}/entries/{entry}"): (None, "EntryDeleted"),
    ("put", "/app/chats/{chat}/lorebooks"): ("AttachBooks", "ChatBooks"),
    ("get", "/app/chats/{chat}/summary"): (None, "ChatSummary"),
    ("put", "/app/chats/{chat}/summary/{tier}"): ("TierEdit", "PanelTierEdited"),
    ("post", "/app/chats/{chat}/summary/rebuild"): (None, "Rebuilt"),
}
EITHER = {  # answers that are one of two shapes
    ("post", "/api/memories/from-dialogue"): ("ApiDialogue", {"Drafts", "MemoryList"}),
    ("post", "/app/chats/{chat}/memories/from-dialogue"): ("PanelDialogue", {"Drafts", "MemoryList"}),
}


def _ref(schema: dict[str, Any]) -> str:
    return str(schema.get("$ref", "")).rsplit("/", 1)[-1]


def _json_schema(content: dict[str, Any]) -> dict[str, Any]:
    return dict(content["application/json"]["schema"])


def _answer(operation: dict[str, Any]) -> dict[str, Any]:
    status = min(s for s in operation["responses"] if s.startswith("2"))
    return _json_schema(operation["responses"][status]["content"])


def _body(operation: dict[str, Any]) -> str | None:
    body = operation.get("requestBody")
    return _ref(_json_schema(body["content"])) if body else None


@pytest.fixture(scope="module")
def schema(offline_app: WebApp) -> dict[str, Any]:
    response = httpx.get(f"{offline_app.base_url}/schema/openapi.json", timeout=30)
    assert response.status_code == 200, response.text
    return dict(response.json())


def test_schema_names_the_body_and_answer_of_every_endpoint(schema: dict[str, Any]) -> None:
    paths = schema["paths"]
    found = {key: (_body(paths[key[1]][key[0]]), _ref(_answer(paths[key[1]][key[0]]))) for key in ENDPOINTS}
    assert found == ENDPOINTS
    for (method, path), (body, answers) in EITHER.items():
        operation = paths[path][method]
        assert _body(operation) == body
        assert {_ref(s) for s in _answer(operation)["oneOf"]} == answers
    components = schema["components"]["schemas"]
    for name in {a for _, a in ENDPOINTS.values()} | {b for b, _ in ENDPOINTS.values() if b}:
        assert components[name]["properties"], name  # a typed object, not a free-form dict


def test_a_bodys_schema_has_its_wire_names_and_required_fields(schema: dict[str, Any]) -> None:
    memory_body = schema["components"]["schemas"]["ApiNewMemory"]
    assert {"scope", "text", "global", "pinned", "source"} <= set(memory_body["properties"])
    assert set(memory_body["required"]) == {"scope", "text"}
    panel_body = schema["components"]["schemas"]["PanelAdd"]
    assert set(panel_body["required"]) == {"list", "text"}


async def test_the_documented_memory_is_the_memory_on_the_wire(
    schema: dict[str, Any], offline_app: WebApp
) -> None:
    api = HearthClient(offline_app.base_url)
    space = f"schema-{secrets.token_hex(4)}"
    added = await api.http.post(
        "/api/memories", json={"scope": "space", "space": space, "text": "Tea at five"}
    )
    listed = await api.http.get("/api/memories", params={"scope": "space", "space": space})
    await api.close()
    assert added.status_code == 201, added.text
    documented = schema["components"]["schemas"]["Memory"]
    memory = added.json()["memory"]
    # every field the operator gets is documented; "recent" is the browser panel's only, and
    # "last_used" (issue 31) comes with list reads only
    assert set(memory) == set(documented["properties"]) - {"recent", "last_used"}
    assert set(documented["required"]) == set(memory)
    (read,) = listed.json()["memories"]
    assert set(read) == set(documented["properties"]) - {"recent"} and read["last_used"] is None
    assert set(added.json()) == set(schema["components"]["schemas"]["MemoryAdded"]["properties"])
