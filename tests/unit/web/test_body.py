"""JSON bodies decode into Structs with the API's own errors (API.md error shape, issue 14).

A route of the typed web layer declares ``data: SomeBody``; what a client gets for a bad body is
what ``decode_body`` always answered: 400 ``invalid_json``, 422 ``invalid_body`` (strict types,
no unknown fields), 422 ``json_too_deep``.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec
import pytest
from litestar import Litestar, post
from litestar.exceptions import HTTPException
from litestar.params import JSONBody
from litestar.testing import TestClient

from adapters.web.body import StrictJSON, body_required
from adapters.web.errors import handle_domain_error, handle_http_error
from engine.errors import HearthError


class Note(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    text: str
    pinned: bool = False


@post("/notes", dto=StrictJSON, return_dto=None, guards=[body_required])
async def add_note(data: JSONBody[Note]) -> Note:
    return data


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient[Litestar]]:
    app = Litestar(
        [add_note],
        exception_handlers={HearthError: handle_domain_error, HTTPException: handle_http_error},
    )
    with TestClient(app) as test_client:
        yield test_client


def _post(client: TestClient[Litestar], body: bytes) -> tuple[int, str]:
    response = client.post("/notes", content=body, headers={"content-type": "application/json"})
    return response.status_code, response.json().get("error", {}).get("code", "")


def test_a_good_body_arrives_as_its_struct(client: TestClient[Litestar]) -> None:
    response = client.post("/notes", json={"text": "Tea at five", "pinned": True})
    assert (response.status_code, response.json()) == (201, {"text": "Tea at five", "pinned": True})


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (b"", 400, "invalid_json"),
        (b"{not json", 400, "invalid_json"),
        (b'{"text": 5}', 422, "invalid_body"),
        (b'{"text": "a", "pinned": "true"}', 422, "invalid_body"),  # no lenient str -> bool
        (b'{"text": "a", "colour": "red"}', 422, "invalid_body"),
        (b"{}", 422, "invalid_body"),
        (b"[" * 100 + b"]" * 100, 422, "json_too_deep"),
    ],
)
def test_a_bad_body_gets_the_apis_error(
    client: TestClient[Litestar], body: bytes, status: int, code: str
) -> None:
    assert _post(client, body) == (status, code)


def test_the_message_says_what_does_not_fit(client: TestClient[Litestar]) -> None:
    response = client.post("/notes", json={"text": "a", "pinned": "yes"})
    assert (
        response.json()["error"]["message"]
        == "The body does not fit: Expected `bool`, got `str` - at `$.pinned`."
    )
