"""What a process imports is what it uses (memory at rest, issue 32): the worker builds its
Hearth without the web layer (Litestar, argon2, ``adapters.web``), and neither process loads
tiktoken's Rust tables (token counts come from ``adapters.llm.cl100k``). Checked in a fresh
interpreter, as ``python -m adapters.worker`` and ``python -m adapters.web`` build them."""

from __future__ import annotations

import json

from tests.fixtures.probe import fresh_interpreter

WATCHED = ("litestar", "argon2", "adapters.web.app", "tiktoken")

PROBE = """
import json, os, sys
from config.settings import load_settings
from adapters import bootstrap
from adapters.llm.tokens import warm_tokenizer
getattr(bootstrap, sys.argv[1])(load_settings(os.environ))
warm_tokenizer()
print(json.dumps({name: name in sys.modules for name in sys.argv[2:]}))
"""


def loaded(builder: str) -> dict[str, bool]:
    found: dict[str, bool] = json.loads(fresh_interpreter(PROBE, builder, *WATCHED).strip().splitlines()[-1])
    return found


def test_the_workers_build_leaves_the_web_layer_and_tiktoken_out() -> None:
    assert loaded("build") == dict.fromkeys(WATCHED, False)


def test_the_web_app_has_its_layer_and_no_tiktoken() -> None:
    """The same probe sees the web layer where it is used (it can see an import)."""
    assert loaded("create_web_app") == {
        "litestar": True,
        "argon2": True,
        "adapters.web.app": True,
        "tiktoken": False,
    }
