"""``claude_app`` and ``offline_app`` on both Redis deployments, for the core e2e suites.

A module that imports these fixtures runs each of its tests against the web process on a
single redis-server and again on a 3-master Redis Cluster (``[cluster]`` in the test id).
"""

from __future__ import annotations

import pytest

from tests.fixtures.servers import WebApp, backends


def _on(request: pytest.FixtureRequest, name: str) -> WebApp:
    # By the session fixture's own name (``claude_app_single``, ``claude_app_cluster``, …): a
    # session fixture named like these parametrized ones would take their parameter as its cache
    # key and its process would be stopped and started again at every single/cluster switch.
    app: WebApp = request.getfixturevalue(f"{name}_{request.param}")
    return app


@pytest.fixture(params=backends())
def claude_app(request: pytest.FixtureRequest) -> WebApp:
    """The Claude-backed web process on the single server or on the cluster."""
    return _on(request, "claude_app")


@pytest.fixture(params=backends())
def offline_app(request: pytest.FixtureRequest) -> WebApp:
    """The offline web process on the single server or on the cluster."""
    return _on(request, "offline_app")
