"""``claude_app`` and ``offline_app`` on both Redis deployments, for the core e2e suites.

A module that imports these fixtures runs each of its tests against the web process on a
single redis-server and again on a 3-master Redis Cluster (``[cluster]`` in the test id).
"""

from __future__ import annotations

import pytest

from tests.fixtures.servers import WebApp, backends


def _on(request: pytest.FixtureRequest, single: WebApp, cluster: str) -> WebApp:
    return single if request.param == "single" else request.getfixturevalue(cluster)  # type: ignore[no-any-return]


@pytest.fixture(params=backends())
def claude_app(request: pytest.FixtureRequest, claude_app: WebApp) -> WebApp:
    """The Claude-backed web process on the single server or on the cluster."""
    return _on(request, claude_app, "claude_app_cluster")


@pytest.fixture(params=backends())
def offline_app(request: pytest.FixtureRequest, offline_app: WebApp) -> WebApp:
    """The offline web process on the single server or on the cluster."""
    return _on(request, offline_app, "offline_app_cluster")
