"""A provider's SDK is imported only when that provider is configured (memory at rest,
issue 32; LLM-1): the web app built for the offline model holds neither ``anthropic`` nor
``openai``, one built for an OpenAI-compatible server holds no ``anthropic``. Checked in a fresh
interpreter, as ``python -m adapters.web`` builds it.

One interpreter imports the settings and the composition root (the costly part, shared), checks
that neither SDK is loaded yet, then forks one child per configuration: each child builds its web
app from that clean state and reports which SDKs it then holds.
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures.probe import fresh_interpreter

CONFIGS: dict[str, dict[str, str]] = {
    "offline": {},
    "openai-only": {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"},
    "anthropic": {"ANTHROPIC_API_KEY": "sk-ant-test"},
}

PROBE = """
import json, os, sys
from config.settings import load_settings
from adapters.bootstrap import create_web_app
SDKS = ("anthropic", "openai")
assert not any(name in sys.modules for name in SDKS), "an SDK was loaded before any app was built"
for name, extra in json.loads(sys.argv[1]).items():
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        try:
            os.environ.update(extra)
            create_web_app(load_settings(os.environ))
            print(json.dumps({name: {sdk: sdk in sys.modules for sdk in SDKS}}), flush=True)
        except BaseException:
            import traceback
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert status == 0, f"building the {name} app failed"
"""


@pytest.fixture(scope="module")
def sdks_loaded() -> dict[str, dict[str, bool]]:
    """Which SDKs each configuration's web app holds, by configuration name."""
    stdout = fresh_interpreter(PROBE, json.dumps(CONFIGS))
    loaded: dict[str, dict[str, bool]] = {}
    for line in stdout.splitlines():
        if line.startswith("{"):
            loaded.update(json.loads(line))
    return loaded


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("offline", {"anthropic": False, "openai": False}),
        ("openai-only", {"anthropic": False, "openai": True}),
        ("anthropic", {"anthropic": True, "openai": False}),
    ],
    ids=["offline", "openai-only", "anthropic"],
)
def test_web_app_imports_only_the_configured_sdk(
    sdks_loaded: dict[str, dict[str, bool]], config: str, expected: dict[str, bool]
) -> None:
    """The offline model's web app does not import the Anthropic SDK (~58 MB at rest), nor does
    an OpenAI-only deployment; with a Claude key it does (the check can see an import)."""
    assert sdks_loaded[config] == expected
