"""``/readyz`` of the web app as the composition root builds it (API.md Operations, issue 32).

Marked ``integration``: the app's startup talks to the session's real ``redis-server``
(database 15, namespace ``readyz``).
"""

from __future__ import annotations

import pytest
from litestar.testing import AsyncTestClient

from adapters.bootstrap import create_web_app
from config.settings import load_settings
from tests.fixtures.servers import RedisServer

pytestmark = pytest.mark.integration


async def test_readyz_is_503_until_the_startup_loaded_models_and_indexes(redis_server: RedisServer) -> None:
    """Issue 32: built but not started (the recall and archive indexes, the tokenizer not loaded
    yet), the app answers ``/readyz`` 503 ``not_ready``; once its startup ran, 200."""
    env = {**redis_server.env(15), "HEARTH_NAMESPACE": "readyz", "HEARTH_EMBEDDER": "hash"}
    app = create_web_app(load_settings(env))
    client = AsyncTestClient(app)
    before = await client.get("/readyz")  # outside ``async with``: the startup has not run
    assert before.status_code == 503
    assert before.json()["error"]["code"] == "not_ready"
    async with client:  # runs the startup
        after = await client.get("/readyz")
    assert (after.status_code, after.json()) == (200, {"status": "ready"})
