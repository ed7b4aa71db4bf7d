"""The Lua scripts of the stores, one file each in ``storage/lua/`` (STYLE P4).

A store loads its scripts with ``client.register_script(lua("<name>"))``: the file's text,
read once per process from the installed package (``*.lua`` ship as package data).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

__all__ = ["lua"]


@cache
def lua(name: str) -> str:
    """The source of ``storage/lua/<name>.lua``."""
    return files("storage").joinpath("lua", f"{name}.lua").read_text(encoding="utf-8")
