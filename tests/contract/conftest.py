"""The store contract suites run over the in-memory fakes and over Redis (single and cluster).

The Redis runs are marked ``integration`` too: ``make check`` leaves them to ``make test`` with
``-m "not (contract and integration)"``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.contract.stores import Kind, Stores
from tests.fixtures.servers import backends, fresh_db, redis_of


@pytest.fixture(params=["fake", *(pytest.param(kind, marks=pytest.mark.integration) for kind in backends())])
async def stores(request: pytest.FixtureRequest) -> AsyncIterator[Stores]:
    """A fresh deployment's stores: ``[fake]``, ``[single]`` or ``[cluster]`` in the test id."""
    kind: Kind = request.param
    if kind == "fake":
        yield Stores("fake")
        return
    async with fresh_db(redis_of(request, kind), 9) as client:
        yield Stores(kind, client)
