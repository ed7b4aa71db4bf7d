"""One composition root, the same settings in every process (issue 14, point 2).

The web process used to build its archive desk with the default policy whatever
``HEARTH_ARCHIVE_*`` said (only the worker applied them), so the operator's archive listing
called a page "cold" by another threshold than the sweep that evicts it. Here the web app is
built as ``python -m adapters.web`` builds it, and a second graph stands in for the worker
that archives the session; both read the same environment.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from adapters.bootstrap import build, create_web_app
from config.settings import load_settings
from tests.fixtures.servers import ADMIN_TOKEN, RedisServer

pytestmark = [
    pytest.mark.e2e,
    # the web app's own routes still use a parameter style Litestar deprecates; not this module's concern
    pytest.mark.filterwarnings("ignore::litestar.exceptions.LitestarDeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Deprecated 'query' parameter:DeprecationWarning"),
]

DB = 13


def _env(redis_server: RedisServer, **archive: str) -> dict[str, str]:
    return {
        "REDIS_URL": redis_server.db(DB),
        "HEARTH_ADMIN_TOKEN": ADMIN_TOKEN,
        "HEARTH_EMBEDDER": "hash",
        **archive,
    }


@pytest.fixture
async def api(
    request: pytest.FixtureRequest, redis_server: RedisServer
) -> AsyncIterator[AsyncTestClient[Any]]:
    """The web app for the test's environment (``request.param``: extra ``HEARTH_ARCHIVE_*``)."""
    env = _env(redis_server, **request.param)
    async with AsyncTestClient(app=create_web_app(load_settings(env))) as client:
        client.headers["Authorization"] = f"Bearer {ADMIN_TOKEN}"
        yield client


async def _archived_page(api: AsyncTestClient[Any], env: dict[str, str]) -> dict[str, Any]:
    """A session two days old, then one now; the "worker" archives the old one into a page."""
    chat = f"den-{secrets.token_hex(3)}"
    start = datetime.now(UTC) - timedelta(days=2)
    for i, text in enumerate(("The deploy failed with ECONNREFUSED.", "I restarted the service.")):
        body = {
            "user": "ana",
            "text": text,
            "sent_at": (start + timedelta(minutes=i)).isoformat(),
            "reply": False,
        }
        assert (await api.post(f"/api/chats/{chat}/messages", json=body)).status_code == 200
    now = {"user": "ana", "text": "Morning!", "sent_at": datetime.now(UTC).isoformat(), "reply": False}
    assert (await api.post(f"/api/chats/{chat}/messages", json=now)).status_code == 200
    worker = build(load_settings(env))
    try:
        assert len(await worker.archive.archive_sessions(f"web:{chat}")) == 1
    finally:
        await worker.close()
    listing = await api.get(f"/api/chats/{chat}/archive")
    assert listing.status_code == 200, listing.text
    (page,) = listing.json()["pages"]
    return dict(page)


@pytest.mark.parametrize("api", [{}], indirect=True)
async def test_a_fresh_page_is_not_cold_by_default(
    api: AsyncTestClient[Any], redis_server: RedisServer
) -> None:
    page = await _archived_page(api, _env(redis_server))
    assert page["status"] == "active" and page["cold"] is False


COLD = {"HEARTH_ARCHIVE_COLD_BELOW": "1"}


@pytest.mark.parametrize("api", [COLD], indirect=True)
async def test_the_web_process_scores_pages_with_the_archive_settings_of_its_environment(
    api: AsyncTestClient[Any], redis_server: RedisServer
) -> None:
    page = await _archived_page(api, _env(redis_server, **COLD))
    assert page["status"] == "active" and page["score"] < 1
    assert page["cold"] is True  # the threshold of HEARTH_ARCHIVE_COLD_BELOW, not the default 0.20
