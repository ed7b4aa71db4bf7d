"""Session-wide test setup: Hypothesis profile; servers are added by tests/fixtures modules."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "hearth", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("ci", max_examples=300, deadline=None)
settings.load_profile("hearth")

pytest_plugins = ["tests.fixtures.servers", "tests.fixtures.browser"]
