"""EPI-5: keep-worthy tokens, one table per kind."""

from __future__ import annotations

import time

import pytest

from engine.archive import keep_worthy, keep_worthy_tokens, merge_keep


def _kinds(text: str) -> dict[str, str]:
    return {t.text: t.kind for t in keep_worthy_tokens(text)}


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("edit /etc/hosts now", "/etc/hosts"),
        ("run ./scripts/run.sh please", "./scripts/run.sh"),
        ("in ~/notes/todo.md.", "~/notes/todo.md"),
        ("see src/engine/window.py", "src/engine/window.py"),
        ("the folder engine/archive/ is new", "engine/archive/"),
        (r"open C:\Users\me\report.docx, then", r"C:\Users\me\report.docx"),
        ("change settings.toml first", "settings.toml"),
        ("it lives in main.py.", "main.py"),
    ],
)
def test_epi_5_file_paths(text: str, token: str) -> None:
    assert _kinds(text).get(token) == "path"


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("docs at https://docs.example.com/a?b=1#c.", "https://docs.example.com/a?b=1#c"),
        ("(see http://x.org/page)", "http://x.org/page"),
        ("wiki https://en.wikipedia.org/wiki/Foo_(bar) ok", "https://en.wikipedia.org/wiki/Foo_(bar)"),
        ("visit www.example.org, thanks", "www.example.org"),
        ("mirror ftp://files.example.net/pub/x.tar.gz", "ftp://files.example.net/pub/x.tar.gz"),
    ],
)
def test_epi_5_urls(text: str, token: str) -> None:
    assert _kinds(text).get(token) == "url"


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("type `pip install -e .` first", "`pip install -e .`"),
        ("```python\ndef foo_bar():\n    return 1\n```", "```python\ndef foo_bar():\n    return 1\n```"),
        ("inline ```x = 1``` too", "```x = 1```"),
    ],
)
def test_epi_5_code_snippets_kept_whole(text: str, token: str) -> None:
    found = _kinds(text)
    assert found.get(token) == "code"
    assert "foo_bar" not in found  # the snippet is kept whole, not split into identifiers


@pytest.mark.parametrize(
    ("text", "token"),
    [
        ("failed with E1234 again", "E1234"),
        ("tsc says TS2345", "TS2345"),
        ("server said HTTP 404", "HTTP 404"),
        ("HTTP/1.1 503 Service Unavailable", "HTTP/1.1 503"),
        ("chrome: ERR_CONNECTION_REFUSED", "ERR_CONNECTION_REFUSED"),
        ("open failed: ENOENT", "ENOENT"),
        ("windows code 0x80070005 shown", "0x80070005"),
    ],
)
def test_epi_5_error_codes(text: str, token: str) -> None:
    assert _kinds(text).get(token) == "error"


@pytest.mark.parametrize(
    ("text", "token", "kind"),
    [
        ("call load_settings()", "load_settings", "identifier"),
        ("set MAX_RETRIES to 3", "MAX_RETRIES", "identifier"),
        ("use camelCase names", "camelCase", "identifier"),
        ("it raised ValueError", "ValueError", "identifier"),
        ("an HTTPServer instance", "HTTPServer", "identifier"),
        ("the __init__ module", "__init__", "identifier"),
        (
            "request 123e4567-e89b-12d3-a456-426614174000 failed",
            "123e4567-e89b-12d3-a456-426614174000",
            "uuid",
        ),
        ("at commit 9f3c2ab we", "9f3c2ab", "hash"),
        ("sha e3b0c44298fc1c149afbf4c8996fb924", "e3b0c44298fc1c149afbf4c8996fb924", "hash"),
    ],
)
def test_epi_5_identifiers_uuids_and_hashes(text: str, token: str, kind: str) -> None:
    assert _kinds(text).get(token) == kind


@pytest.mark.parametrize(
    "text",
    [
        "cats and/or dogs",
        "open 24/7 all year",
        "born 12/05/2026 in Hanoi",
        "e.g. this, i.e. that",
        "Hello there, how are you today?",
        "APIs and URLs are words",
        "the number 1234567 and the word deadbeef",
        "Chúng ta đã nói chuyện về thời tiết.",
    ],
)
def test_epi_5_plain_prose_is_not_kept(text: str) -> None:
    assert keep_worthy(text) == ()


def test_epi_5_tokens_in_order_without_repeats() -> None:
    text = "see /a/b.py and E1234, then /a/b.py again and E1234"
    assert keep_worthy(text) == ("/a/b.py", "E1234")


def test_epi_5_url_is_not_also_a_path() -> None:
    assert keep_worthy("go to https://x.org/a/b/c.html now") == ("https://x.org/a/b/c.html",)


def test_epi_6_merge_keep_preserves_order_and_drops_repeats() -> None:
    assert merge_keep(("a", "b"), ("b", "c"), ["a", "d"]) == ("a", "b", "c", "d")


def test_epi_5_long_text_scans_in_linear_time() -> None:
    text = ("x" * 20_000 + " ") * 5 + "a/" * 5_000 + " " + "_" * 10_000
    started = time.perf_counter()
    keep_worthy(text)
    assert time.perf_counter() - started < 2.0
