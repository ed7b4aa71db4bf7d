"""STYLE P1 for ``engine/ports/``: every port is a small, documented Protocol.

A port declares at most five members of its own (methods or properties); a composite (such as
``ChatStore``) only names other ports together and declares none.
"""

from __future__ import annotations

import inspect
from typing import Protocol

import engine.ports

PORTS = [
    getattr(engine.ports, name)
    for name in engine.ports.__all__
    if inspect.isclass(getattr(engine.ports, name)) and Protocol in getattr(engine.ports, name).__mro__
]


def own_members(port: type) -> dict[str, object]:
    return {
        name: value
        for name, value in vars(port).items()
        if not name.startswith("_") and (callable(value) or isinstance(value, property))
    }


def test_p1_every_port_has_at_most_five_members_each_documented() -> None:
    assert len(PORTS) >= 30
    for port in PORTS:
        members = own_members(port)
        composite = all(Protocol in base.__mro__ for base in port.__bases__ if base is not Protocol)
        assert len(members) <= 5, f"{port.__name__} has {len(members)} members"
        assert members or composite, f"{port.__name__} declares nothing"
        assert port.__doc__, f"{port.__name__} has no docstring"
        for name, member in members.items():
            assert inspect.getdoc(member), f"{port.__name__}.{name} has no docstring"


def test_p1_the_wide_stores_are_composites_of_narrow_ports() -> None:
    for name in ("ChatStore", "TurnStore", "SummaryStore", "ArchiveStore", "DreamStore", "ControlStore"):
        port = getattr(engine.ports, name)
        assert own_members(port) == {}
        assert len([b for b in port.__bases__ if b is not Protocol]) >= 2, name
