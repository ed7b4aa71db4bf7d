"""Every integration test runs on a single redis-server and on a 3-master Redis Cluster."""

from __future__ import annotations

import pytest

from tests.fixtures.servers import RedisClusterServer, RedisServer, backends, redis_of


@pytest.fixture(params=backends())
def redis_server(request: pytest.FixtureRequest) -> RedisServer | RedisClusterServer:
    """The session's single server, or the session's cluster (``[cluster]`` in the test id).

    Both are looked up by their own names (``redis_single``, ``redis_cluster``): a session
    fixture named ``redis_server`` would take this fixture's parameter as its cache key and be
    restarted at every switch between ``[single]`` and ``[cluster]``.
    """
    return redis_of(request, request.param)
