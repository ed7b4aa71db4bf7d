"""Every integration test runs on a single redis-server and on a 3-master Redis Cluster."""

from __future__ import annotations

import pytest

from tests.fixtures.servers import RedisClusterServer, RedisServer, backends, redis_of


@pytest.fixture(params=backends())
def redis_server(
    request: pytest.FixtureRequest, redis_server: RedisServer
) -> RedisServer | RedisClusterServer:
    """The session's single server, or the session's cluster (``[cluster]`` in the test id)."""
    return redis_server if request.param == "single" else redis_of(request, "cluster")
