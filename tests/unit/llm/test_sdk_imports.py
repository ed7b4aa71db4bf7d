"""A provider's SDK is imported only when that provider is configured (memory at rest,
issue 32; LLM-1): the web app built for the offline model holds neither ``anthropic`` nor
``openai``, one built for an OpenAI-compatible server holds no ``anthropic``. Checked in a fresh
interpreter, as ``python -m adapters.web`` builds it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

PROBE = """
import json, os, sys
from config.settings import load_settings
from adapters.bootstrap import create_web_app
create_web_app(load_settings(os.environ))
print(json.dumps({name: name in sys.modules for name in ("anthropic", "openai")}))
"""


def sdks_loaded(**env: str) -> dict[str, bool]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "HEARTH_"))}
    clean.update(REDIS_URL="redis://127.0.0.1:1/0", HEARTH_EMBEDDER="hash", **env)
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loaded: dict[str, bool] = json.loads(done.stdout.strip().splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({}, {"anthropic": False, "openai": False}),
        ({"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, {"anthropic": False, "openai": True}),
        ({"ANTHROPIC_API_KEY": "sk-ant-test"}, {"anthropic": True, "openai": False}),
    ],
    ids=["offline", "openai-only", "anthropic"],
)
def test_web_app_imports_only_the_configured_sdk(env: dict[str, str], expected: dict[str, bool]) -> None:
    """The offline model's web app does not import the Anthropic SDK (~58 MB at rest), nor does
    an OpenAI-only deployment; with a Claude key it does (the check can see an import)."""
    assert sdks_loaded(**env) == expected
