"""Hostile lorebooks against the real web process (issue 29, item 8; LORE-3, LORE-5, LORE-16).

Seen from outside before the fix: a plain key of ~550,000 characters killed the web process
(pyahocorasick, also from inside a card PNG); a book whose entries each had their own
``delay_until_recursion`` level imported and then cost quadratic time per turn (20,000 levels:
109 s); ``@@exclude_keys`` bypassed the key limit; 2**65 in ``order``, ``insertion_order`` or
``priority`` answered 500 on the import and editor endpoints; a big book that is not recursive
was scanned on the event loop, so one chat's turn stalled every other chat of the process.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import statistics
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.e2e.api_client import HearthClient
from tests.fixtures.cards import card_charx, card_png
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e

PASSWORD = "correct horse battery"
HUGE_KEY = "q" * 550_000
BIG = 2**65


@pytest.fixture
async def api(offline_app: WebApp) -> AsyncIterator[HearthClient]:
    client = HearthClient(offline_app.base_url)
    client.http.timeout = httpx.Timeout(300)  # a 20,000-entry upload on a busy shared machine
    yield client
    await client.close()


@pytest.fixture
async def browser(offline_app: WebApp) -> AsyncIterator[httpx.AsyncClient]:
    """A signed-in browser session; ``headers`` carries its CSRF token."""
    async with httpx.AsyncClient(base_url=offline_app.base_url, timeout=300) as client:
        csrf = (await client.get("/app/session")).json()["csrf"]
        name = f"lore{secrets.token_hex(4)}"
        signed = await client.post(
            "/app/signup", json={"username": name, "password": PASSWORD}, headers={"X-CSRF-Token": csrf}
        )
        assert signed.status_code == 201, signed.text
        client.headers["X-CSRF-Token"] = (await client.get("/app/session")).json()["csrf"]
        yield client


def world(entries: list[dict[str, Any]], name: str) -> bytes:
    return json.dumps(
        {"name": name, "entries": {str(i): {"uid": i, **e} for i, e in enumerate(entries)}}
    ).encode()


def card(entries: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """An original minimal CCv2 card whose ``character_book`` holds ``entries``."""
    data = {
        "name": name,
        "description": f"{name} keeps the archive.",
        "first_mes": f"*{name} looks up.* Yes?",
        "character_book": {"name": f"{name}'s book", "entries": entries},
    }
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}


def card_entry(uid: int, keys: list[str], **fields: Any) -> dict[str, Any]:
    return {
        "id": uid,
        "keys": keys,
        "content": f"Archive shelf {uid}.",
        "enabled": True,
        "insertion_order": 10,
        **fields,
    }


def error(response: httpx.Response, status: int, code: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()["error"]
    assert body["code"] == code, body
    return str(body["message"])


async def alive(app: WebApp) -> None:
    async with httpx.AsyncClient(base_url=app.base_url, timeout=10) as client:
        assert (await client.get("/healthz")).status_code == 200
    assert app.proc.poll() is None, "the web process died"


async def book_names(api: HearthClient) -> str:
    return json.dumps((await api.http.get("/api/lorebooks")).json())


async def test_lore_3_a_550k_key_is_refused_and_the_process_lives(
    offline_app: WebApp, api: HearthClient, browser: httpx.AsyncClient
) -> None:
    entries = [
        {"key": ["lamp"], "content": "Lamps."},
        {"key": [HUGE_KEY], "content": "Long.", "comment": "Crasher"},
    ]
    wi = world(entries, "Crasher book")
    refused = await api.http.post("/api/lorebooks", content=wi, headers={"content-type": "application/json"})
    message = error(refused, 422, "key_too_long")
    assert "entry '1' ('Crasher')" in message and "550,000 characters" in message and "1,000" in message
    await alive(offline_app)
    # the same key inside a card: PNG, CHARX and JSON, as a book and as a persona
    hostile = card([card_entry(0, ["lamp"]), card_entry(1, [HUGE_KEY], comment="Crasher")], "Archivist")
    uploads = [
        ("/api/lorebooks", card_png(chara=hostile), "image/png", api.http),
        ("/api/personas?id=archivist-hostile", card_png(chara=hostile), "image/png", api.http),
        ("/api/personas?id=archivist-hostile", card_charx(hostile), "application/zip", api.http),
        ("/api/personas?id=archivist-hostile", json.dumps(hostile).encode(), "application/json", api.http),
        ("/app/lorebooks", wi, "application/json", browser),
        ("/app/personas/import", card_png(chara=hostile), "image/png", browser),
    ]
    for url, body, content_type, client in uploads:
        response = await client.post(url, content=body, headers={"content-type": content_type})
        assert "entry '1' ('Crasher')" in error(response, 422, "key_too_long"), url
        await alive(offline_app)
    assert "Crasher book" not in await book_names(api) and "Archivist" not in await book_names(api)
    personas = (await api.http.get("/api/personas")).json()
    assert "archivist-hostile" not in json.dumps(personas)
    # the editor: a new entry, then an existing one, given the key
    own = await browser.post(
        "/app/lorebooks", content=world(entries[:1], "Mine"), headers={"content-type": "application/json"}
    )
    assert own.status_code == 201, own.text
    book = own.json()["id"]
    added = await browser.post(f"/app/lorebooks/{book}/entries", json={"keys": HUGE_KEY, "content": "x"})
    error(added, 422, "key_too_long")
    edited = await browser.put(
        f"/app/lorebooks/{book}/entries/0", json={"keys": f"lamp, {HUGE_KEY}", "content": "x"}
    )
    error(edited, 422, "key_too_long")
    await alive(offline_app)
    stored = (await browser.get(f"/app/lorebooks/{book}")).json()
    assert [e["keys"] for e in stored["entries"]] == ["lamp"]  # nothing half-written
    # control: a key of 1,000 characters is a fine key
    edge = await browser.post(f"/app/lorebooks/{book}/entries", json={"keys": "w" * 1000, "content": "x"})
    assert edge.status_code == 201, edge.text


@pytest.mark.parametrize("field", ["order", "insertion_order", "priority"])
async def test_lore_13_a_2_65_number_is_a_422_on_every_endpoint(
    offline_app: WebApp, api: HearthClient, browser: httpx.AsyncClient, field: str
) -> None:
    wi_entry: dict[str, Any] = {"key": ["lamp"], "content": "Lamps.", "comment": "Huge"}
    if field == "priority":
        wi_entry["extensions"] = {"hearth": {"priority": BIG}}
    else:
        wi_entry[field] = BIG
    wi = world([wi_entry], f"Big {field}")
    card_field = "insertion_order" if field == "order" else field  # a card's entries have no ``order``
    hostile = card([card_entry(0, ["lamp"], comment="Huge", **{card_field: BIG})], "Counter")
    png = card_png(chara=hostile)
    uploads = [
        ("/api/lorebooks", wi, "application/json", api.http),
        ("/api/lorebooks", png, "image/png", api.http),
        ("/api/personas?id=counter-hostile", png, "image/png", api.http),
        ("/app/lorebooks", wi, "application/json", browser),
        ("/app/personas/import", png, "image/png", browser),
    ]
    for url, body, content_type, client in uploads:
        response = await client.post(url, content=body, headers={"content-type": content_type})
        message = error(response, 422, "number_out_of_range")
        assert "'Huge'" in message and str(BIG) in message, (url, message)
    await alive(offline_app)
    assert f"Big {field}" not in await book_names(api)
    # the editor's entry create and update (the editor's fields are ``order`` and ``priority``)
    own = await browser.post(
        "/app/lorebooks",
        content=world([{"key": ["lamp"], "content": "x"}], "Mine"),
        headers={"content-type": "application/json"},
    )
    book = own.json()["id"]
    name = "priority" if field == "priority" else "order"
    added = await browser.post(
        f"/app/lorebooks/{book}/entries", json={"keys": "k", "content": "x", name: BIG}
    )
    assert name in error(added, 422, "number_out_of_range")
    edited = await browser.put(
        f"/app/lorebooks/{book}/entries/0", json={"keys": "k", "content": "x", name: -BIG}
    )
    assert name in error(edited, 422, "number_out_of_range")
    assert [e["keys"] for e in (await browser.get(f"/app/lorebooks/{book}")).json()["entries"]] == ["lamp"]
    ok = await browser.put(
        f"/app/lorebooks/{book}/entries/0", json={"keys": "lamp", "content": "x", name: 2**40}
    )
    assert ok.status_code == 200 and ok.json()["entry"][name] == 2**40  # control


async def test_lore_19_exclude_keys_count_toward_the_key_limit(
    offline_app: WebApp, api: HearthClient
) -> None:
    """A million ``@@exclude_keys`` imported and cost 0.3-0.7 s a scan; now they are keys like any."""
    excluded = ",".join(f"x{n}" for n in range(1_000))
    entries = [{"key": [f"k{n}"], "content": f"@@exclude_keys {excluded}\nShelf {n}."} for n in range(101)]
    refused = await api.http.post(
        "/api/lorebooks", content=world(entries, "Exclusions"), headers={"content-type": "application/json"}
    )
    assert "more than 100,000 keys" in error(refused, 422, "lorebook_too_complex")
    assert "Exclusions" not in await book_names(api)
    fine = await api.http.post(  # control: 99 such entries are 99,099 keys
        "/api/lorebooks",
        content=world(entries[:99], "Some exclusions"),
        headers={"content-type": "application/json"},
    )
    assert fine.status_code == 201, fine.text


async def reply_seconds(api: HearthClient, chat: str, text: str) -> float:
    started = time.monotonic()
    response = await api.send(chat, text)
    assert response.status_code == 200 and response.json()["reply"], response.text
    return time.monotonic() - started


async def test_lore_16_a_20000_level_book_is_refused_beside_a_second_chat(
    offline_app: WebApp, api: HearthClient
) -> None:
    """20,000 ``delay_until_recursion`` levels (a 1.9 MB upload) imported and cost 109 s a turn."""
    levels = [
        {"key": [f"w{n}"], "content": f"Stage {n} leads to w{n + 1}.", "delayUntilRecursion": n + 1}
        for n in range(20_000)
    ]
    quiet = f"quiet-{secrets.token_hex(3)}"
    upload = asyncio.create_task(
        api.http.post(
            "/api/lorebooks", content=world(levels, "Staircase"), headers={"content-type": "application/json"}
        )
    )
    while not upload.done():  # the other chat answers while the book is read and refused
        assert await reply_seconds(api, quiet, "still there?") < 30
    message = error(upload.result(), 422, "lorebook_too_complex")
    assert "entry '100'" in message and "more than 100 delay_until_recursion levels" in message
    assert "Staircase" not in await book_names(api)
    await alive(offline_app)
    # control: 100 levels are a fine book, and its chain still runs level by level
    chain = world(levels[:100], "Short staircase")
    stored = await api.http.post(
        "/api/lorebooks", content=chain, headers={"content-type": "application/json"}
    )
    assert stored.status_code == 201, stored.text


async def test_lore_16_a_big_book_does_not_stall_a_second_chat(
    offline_app: WebApp, api: HearthClient
) -> None:
    """A big book every message triggers (allowed: 20,000 entries, 80,000 keys, not recursive) was
    scanned on the event loop; now off it, so another chat keeps its pace."""
    heavy = [
        {
            "key": [f"rune{n}", f"glyph{n}", f"sigil{n}", "the"],
            "content": f"Tower {n} stands on the hill by the river.",
        }
        for n in range(20_000)
    ]
    stored = await api.http.post(
        "/api/lorebooks", content=world(heavy, "Everything"), headers={"content-type": "application/json"}
    )
    assert stored.status_code == 201, stored.text
    busy, quiet = f"busy-{secrets.token_hex(3)}", f"quiet-{secrets.token_hex(3)}"
    attached = await api.http.put(f"/api/chats/{busy}/lorebooks", json={"books": [stored.json()["id"]]})
    assert attached.status_code == 200
    first = await api.send(busy, "the lamps of the town")  # compiles the book (cached after)
    assert first.status_code == 200, first.text
    assert any(d["included"] for d in first.json()["context"]["lore"]), "the busy chat's book activates"
    await reply_seconds(api, quiet, "hello there")  # warm the quiet chat
    alone = [await reply_seconds(api, quiet, f"quiet message {n}") for n in range(8)]

    stop = asyncio.Event()
    scans = 0

    async def flood(chat: str) -> None:
        nonlocal scans
        other = HearthClient(offline_app.base_url)
        other.http.timeout = httpx.Timeout(300)
        try:
            while not stop.is_set():
                response = await other.send(chat, "the fog and the river and the lamps")
                assert response.status_code == 200, response.text
                scans += 1
        finally:
            await other.close()

    floods = [asyncio.create_task(flood(busy))]
    try:
        await asyncio.sleep(0.5)
        during = [
            await reply_seconds(api, quiet, f"message {n} while the other chat scans") for n in range(8)
        ]
    finally:
        stop.set()
        await asyncio.gather(*floods)
    assert scans >= 2, scans  # the busy chat really was scanning meanwhile
    quiet_median, busy_median = statistics.median(alone), statistics.median(during)
    # ≤ 2× is the goal; the margin absorbs a shared CI machine (the stall was a whole scan, 0.3-1 s)
    print(f"quiet chat alone {quiet_median:.3f} s, beside the busy chat {busy_median:.3f} s ({scans} scans)")
    assert busy_median <= 3 * quiet_median + 0.15, (alone, during)
