"""Lua scripts of the Redis stores, one file each under ``storage/lua`` (issue 14)."""

from functools import cache
from importlib.resources import files


@cache
def lua(name: str) -> str:
    return files("storage").joinpath("lua", f"{name}.lua").read_text(encoding="utf-8")
