"""The chat WebSocket's frames (PLT-4, API.md): what the browser may send and what it gets back.

A frame the socket cannot use is answered with an error frame that names the problem, the
same ones the page has always received; a ``done`` frame leaves out the ids it does not have.
"""

from __future__ import annotations

import json

import msgspec
import pytest

from adapters.web.schemas.frames import (
    BrowserDone,
    ErrorFrame,
    MessageFrame,
    RegenerateFrame,
    StopFrame,
    decode_frame,
)
from engine.requestlog import Context, WindowLog
from engine.service import ReplyDone
from engine.service.controls import Swipes

NOT_JSON = ErrorFrame(code="invalid_json", message="The frame is not JSON.")
NO_TEXT = ErrorFrame(code="invalid_frame", message="text must be a string.")
NO_TURN = ErrorFrame(code="invalid_frame", message="turn must be a string.")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"type": "message", "text": "Hello Ember"}', MessageFrame(text="Hello Ember")),
        ('{"type": "message", "text": "Hi", "persona": "moss"}', MessageFrame(text="Hi", persona="moss")),
        ('{"type": "message", "text": "Hi", "persona": null}', MessageFrame(text="Hi")),
        ('{"type": "message", "text": "Hi", "extra": [1]}', MessageFrame(text="Hi")),
        ('{"type": "regenerate", "turn": "t-1"}', RegenerateFrame(turn="t-1")),
        ('{"type": "stop"}', StopFrame()),
    ],
)
def test_frames_the_page_sends_are_read(raw: str, expected: object) -> None:
    assert decode_frame(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("not json", NOT_JSON),
        ('{"type": "message", "text": "x"', NOT_JSON),
        ("[1, 2]", NOT_JSON),
        ('"message"', NOT_JSON),
        ("42", NOT_JSON),
        ('{"type": "bogus"}', ErrorFrame(code="invalid_frame", message="Unknown frame type 'bogus'.")),
        ('{"no": "type"}', ErrorFrame(code="invalid_frame", message="Unknown frame type None.")),
        ('{"type": 5}', ErrorFrame(code="invalid_frame", message="Unknown frame type 5.")),
        ('{"type": "message"}', NO_TEXT),
        ('{"type": "message", "text": 5}', NO_TEXT),
        ('{"type": "message", "text": "hi", "persona": 3}', NO_TEXT),
        ('{"type": "regenerate"}', NO_TURN),
        ('{"type": "regenerate", "turn": 7}', NO_TURN),
    ],
)
def test_a_frame_the_socket_cannot_use_is_answered_with_the_error_naming_it(
    raw: str, expected: ErrorFrame
) -> None:
    answer = decode_frame(raw)
    assert answer == expected
    assert json.loads(msgspec.json.encode(answer)) == {
        "type": "error",
        "code": expected.code,
        "message": expected.message,
    }


DONE = ReplyDone(
    turn="t-1",
    reply="Evening.",
    context=Context(
        lore=(), memories=(), window=WindowLog(messages=2, tokens=40, budget=1000, dropped=0), tokens={}
    ),
)


def test_the_browsers_done_frame_carries_the_ids_it_has_and_leaves_out_the_others() -> None:
    regenerated = json.loads(msgspec.json.encode(BrowserDone.of(DONE, "m-2", None, None)))
    assert regenerated["type"] == "done" and regenerated["reply_message"] == "m-2"
    assert "message" not in regenerated and "swipes" not in regenerated
    plain = json.loads(msgspec.json.encode(DONE))
    assert {k: v for k, v in regenerated.items() if k != "reply_message"} == plain

    swipes = Swipes(message="m-2", turns=("t-0", "t-1"), index=1)
    answered = json.loads(msgspec.json.encode(BrowserDone.of(DONE, None, "m-1", swipes)))
    assert answered["reply_message"] is None and answered["message"] == "m-1"
    assert answered["swipes"] == {"message": "m-2", "turns": ["t-0", "t-1"], "index": 1}
