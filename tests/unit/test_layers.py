"""The layers (STYLE P6, issue 32): the web and Telegram adapters reach state only through the
engine's services and ports, and the engine imports neither adapters nor storage.

The contracts are ``[tool.importlinter]`` in pyproject.toml, checked by import-linter's
``lint-imports``; this test runs it (so ``make test`` and ``make check`` check the layers), and
runs it again on a scratch copy of the packages where a web module imports storage, which must
break the contract.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.servers import ROOT

PACKAGES = ("adapters", "config", "engine", "storage")
LINT = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(
    not LINT.exists(), reason="import-linter is not installed (pip install -e '.[test]')"
)


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the packages under ``root``, with ``root``'s pyproject.toml."""
    return subprocess.run(
        [str(LINT), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def scratch_copy(tmp_path: Path) -> Path:
    """The packages and pyproject.toml, copied (no caches)."""
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__", "static")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_layer_contracts_are_kept() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_the_contract_fails_when_a_web_adapter_imports_storage(tmp_path: Path) -> None:
    root = scratch_copy(tmp_path)
    assert lint_imports(root).returncode == 0  # the copy alone keeps the contracts
    handler = root / "adapters" / "web" / "app_lore.py"
    handler.write_text(handler.read_text() + "\nfrom storage.redis_lore import RedisLoreStore  # noqa\n")
    result = lint_imports(root)
    assert result.returncode == 1
    assert "adapters.web.app_lore -> storage.redis_lore" in result.stdout


def test_the_contract_fails_when_a_telegram_router_or_the_engine_reaches_past_the_ports(
    tmp_path: Path,
) -> None:
    root = scratch_copy(tmp_path)
    router = root / "adapters" / "telegram" / "routers" / "lore.py"
    router.write_text(router.read_text() + "\nimport storage.redis_lore  # noqa\n")
    desk = root / "engine" / "service" / "lore.py"
    desk.write_text(desk.read_text() + "\nimport adapters.web.state  # noqa\n")
    result = lint_imports(root)
    assert result.returncode == 1
    assert "adapters.telegram.routers.lore -> storage.redis_lore" in result.stdout
    assert "engine.service.lore -> adapters.web.state" in result.stdout
