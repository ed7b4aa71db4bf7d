"""Every integration test runs on a single redis-server and on a 3-master Redis Cluster."""

from __future__ import annotations

import pytest

from tests.fixtures.servers import RedisClusterServer, RedisServer, backends


@pytest.fixture(params=backends())
def redis_server(
    request: pytest.FixtureRequest, redis_server: RedisServer
) -> RedisServer | RedisClusterServer:
    """The session's single server, or the session's cluster (``[cluster]`` in the test id)."""
    if request.param == "cluster":
        cluster: RedisClusterServer = request.getfixturevalue("redis_cluster")
        return cluster
    return redis_server
