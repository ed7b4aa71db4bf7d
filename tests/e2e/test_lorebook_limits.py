"""Big and regex-heavy lorebooks against the real web process (issue 13, finding 7).

Before: a book with 1,000 heavy regex keys compiled on the event loop (``/healthz`` blocked for
seconds), then failed with a 500 (``failed to compile Set``); a 20,000-entry book was parsed and
compiled on the loop too.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest

from tests.fixtures.servers import ADMIN_TOKEN, WebApp

pytestmark = pytest.mark.e2e


def world(entries: dict[str, dict[str, Any]], name: str) -> bytes:
    return json.dumps({"name": name, "entries": entries}).encode()


def entry(uid: int, keys: list[str], comment: str) -> dict[str, Any]:
    content = f"Tower {uid} stands on the hill by the river; Alice met Bob there once."
    return {"uid": uid, "key": keys, "keysecondary": [], "comment": comment, "content": content}


def heavy_key(n: int) -> str:
    return f"/(word{n}|term{n})\\w{{0,60}}(fire|ice)[a-zа-я]{{1,40}}/i"


async def test_lore_5_a_regex_heavy_book_is_refused_naming_the_entry(offline_app: WebApp) -> None:
    book = world({str(n): entry(n, [heavy_key(n)], f"Spell {n}") for n in range(1000)}, "Grimoire")
    async with httpx.AsyncClient(
        base_url=offline_app.base_url, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=60
    ) as api:
        refused = await api.post("/api/lorebooks", content=book, headers={"content-type": "application/json"})
        assert refused.status_code == 422, refused.text
        error = refused.json()["error"]
        assert error["code"] == "lorebook_too_complex"
        assert "of book 'Grimoire'" in error["message"] and "Spell " in error["message"]
        assert "RE2 instructions" in error["message"]
        listed = (await api.get("/api/lorebooks")).json()
        assert "Grimoire" not in json.dumps(listed)  # nothing was stored
        # control: a few of the same keys are a fine book, and they match
        small = world({str(n): entry(n, [heavy_key(n)], f"Spell {n}") for n in range(20)}, "Spellbook")
        ok = await api.post("/api/lorebooks", content=small, headers={"content-type": "application/json"})
        assert ok.status_code == 201 and ok.json()["entries"] == 20


async def test_lore_5_healthz_answers_while_a_20000_entry_book_is_imported(offline_app: WebApp) -> None:
    entries = {}
    for n in range(20_000):
        keys = [f"rune{n}", f"glyph{n} stone", f"sigil-{n}", f"tower {n}"]
        if n % 100 == 0:
            keys.append(f"/(ember|flame)\\s*{n}/i")
        entries[str(n)] = entry(n, keys, f"Place {n}")
    book = world(entries, "Atlas")
    async with httpx.AsyncClient(base_url=offline_app.base_url, timeout=120) as client:
        upload = asyncio.create_task(
            client.post(
                "/api/lorebooks",
                content=book,
                headers={"content-type": "application/json", "Authorization": f"Bearer {ADMIN_TOKEN}"},
            )
        )
        await asyncio.sleep(0.3)  # the body is on its way
        started, waits = time.monotonic(), []
        while not upload.done():
            asked = time.monotonic()
            health = await client.get("/healthz")
            assert health.status_code == 200
            waits.append(time.monotonic() - asked)
            await asyncio.sleep(0.05)
        took = time.monotonic() - started
        stored = upload.result()
    assert stored.status_code == 201 and stored.json()["entries"] == 20_000, stored.text
    assert took > 1.5  # parsing and compiling the book took a while...
    # ...and the loop kept answering: never blocked for more than a second, or a tenth of the
    # import on a loaded machine (a blocked loop would hold one request for the whole import)
    assert len(waits) >= 5 and max(waits) < max(1.0, took / 10), (took, waits)
