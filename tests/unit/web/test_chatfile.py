"""Chat files (issue 31): SillyTavern ``.jsonl`` and Hearth JSON read back what was written —
messages, roles, texts, swipes and send dates — and a bad file is refused naming its problem."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.chatfile import (
    MAX_FILE_BYTES,
    MAX_SWIPES,
    ChatFile,
    FileMessage,
    decode_chat,
    encode_hearth,
    encode_st,
)
from engine.errors import InvalidInput

NOW = datetime(2026, 12, 6, 8, 0, tzinfo=UTC)


def _chat() -> ChatFile:
    t0 = datetime(2025, 3, 1, 12, 0, 5, tzinfo=UTC)
    return ChatFile(
        user_name="Ann",
        character_name="Mira",
        created_at=t0,
        messages=(
            FileMessage(role="assistant", name="Mira", text="Hello, traveller.", sent_at=t0),
            FileMessage(role="user", name="Ann", text="Hi! Где мы?", sent_at=t0 + timedelta(seconds=7)),
            FileMessage(
                role="assistant",
                name="Mira",
                text="In the hearth-hall.",
                sent_at=t0 + timedelta(seconds=9, microseconds=250_000),
                swipes=("At the inn.", "In the hearth-hall.", "Nowhere 🙂"),
                swipe_id=1,
            ),
        ),
    )


@pytest.mark.parametrize(("encode", "fmt"), [(encode_st, "st"), (encode_hearth, "hearth")])
def test_round_trip_keeps_messages_swipes_and_dates(encode, fmt) -> None:  # type: ignore[no-untyped-def]
    """Written then read: the same messages, roles, texts, chosen swipe and alternatives, and
    send dates to the microsecond."""
    chat = _chat()
    back = decode_chat(encode(chat), fmt, now=NOW)
    assert back.messages == chat.messages
    assert (back.user_name, back.character_name) == ("Ann", "Mira")


def test_st_file_shape_is_what_sillytavern_reads() -> None:
    """A header line, then one object per message with SillyTavern's field names."""
    lines = encode_st(_chat()).decode().splitlines()
    header = json.loads(lines[0])
    assert header["user_name"] == "Ann" and header["character_name"] == "Mira"
    assert header["create_date"] == "2025-03-01@12h00m05s" and header["chat_metadata"] == {}
    reply = json.loads(lines[3])
    assert reply["is_user"] is False and reply["mes"] == "In the hearth-hall."
    assert reply["swipes"] == ["At the inn.", "In the hearth-hall.", "Nowhere 🙂"] and reply["swipe_id"] == 1
    assert reply["send_date"] == "2025-03-01T12:00:14.250000Z"
    assert json.loads(lines[2])["is_user"] is True and "swipes" not in json.loads(lines[2])


def test_reads_sillytavern_dates_and_skips_system_notes() -> None:
    """SillyTavern's human dates, its stamp, epoch milliseconds; ``is_system`` notes skipped."""
    rows = [
        {
            "user_name": "You",
            "character_name": "Bot",
            "create_date": "2024-06-05@15h04m12s",
            "chat_metadata": {},
        },
        {"name": "Bot", "is_user": False, "send_date": "June 5, 2024 3:04pm", "mes": "Hi"},
        {"name": "You", "is_user": True, "send_date": 1717600000000, "mes": "Yo"},
        {"name": "Note", "is_user": False, "is_system": True, "send_date": "June 5, 2024 3:06pm", "mes": "x"},
        {
            "name": "Bot",
            "is_user": False,
            "send_date": "June 5, 2024 12:07am",
            "mes": "B",
            "swipes": ["A", "B"],
            "swipe_id": 1,
        },
    ]
    chat = decode_chat("\n".join(json.dumps(r) for r in rows).encode(), "st", now=NOW)
    assert [m.sent_at for m in chat.messages] == [
        datetime(2024, 6, 5, 15, 4, tzinfo=UTC),
        datetime.fromtimestamp(1717600000, tz=UTC),
        datetime(2024, 6, 5, 0, 7, tzinfo=UTC),
    ]
    assert chat.created_at == datetime(2024, 6, 5, 15, 4, 12, tzinfo=UTC)
    assert chat.skipped == 1 and chat.messages[2].swipes == ("A", "B") and chat.messages[2].swipe_id == 1


def _st(*rows: object) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows).encode()


HEAD = {"user_name": "U", "character_name": "C", "create_date": "2024-06-05@15h04m12s"}


@pytest.mark.parametrize(
    ("data", "code", "words"),
    [
        (_st(HEAD, '{"name": "U", "mes": "hi"'), "invalid_json", "Line 2"),
        (_st(HEAD, [1, 2]), "invalid_chat_file", "Line 2 is not a JSON object"),
        (_st(HEAD, {"name": "U", "is_user": True, "send_date": "2024-01-01"}), "invalid_chat_file", "'mes'"),
        (
            _st(HEAD, {"name": "U", "is_user": True, "mes": 5, "send_date": "2024-01-01"}),
            "invalid_chat_file",
            "'mes'",
        ),
        (_st(HEAD, {"name": "U", "mes": "x", "send_date": "2999-01-01T00:00:00Z"}), "invalid_date", "future"),
        (_st(HEAD, {"name": "U", "mes": "x", "send_date": "someday"}), "invalid_date", "not a date"),
        (
            _st(HEAD, {"mes": "x", "send_date": "2024-01-01", "swipes": ["a"], "swipe_id": 3}),
            "invalid_chat_file",
            "swipe_id",
        ),
        (
            _st(HEAD, {"mes": "x", "send_date": "2024-01-01", "swipes": ["a"] * (MAX_SWIPES + 1)}),
            "invalid_chat_file",
            "swipes",
        ),
        (b"", "invalid_chat_file", "no chat"),
        (b"\xff\xfe", "invalid_json", "UTF-8"),
        (b"x" * (MAX_FILE_BYTES + 1), "file_too_large", "limit"),
    ],
)
def test_bad_files_are_refused_naming_the_problem(data: bytes, code: str, words: str) -> None:
    """Malformed lines, wrong shapes, huge files and far-future dates: InvalidInput with a code."""
    with pytest.raises(InvalidInput) as caught:
        decode_chat(data, "st", now=NOW)
    assert caught.value.code == code
    assert words in str(caught.value)


def test_bad_hearth_file_and_unknown_format() -> None:
    """A Hearth file of the wrong shape and an unknown format are refused by code."""
    with pytest.raises(InvalidInput) as caught:
        decode_chat(b'{"format": "hearth.chat", "version": 1}', "hearth", now=NOW)
    assert caught.value.code == "invalid_chat_file"
    with pytest.raises(InvalidInput) as caught:
        decode_chat(b"{}", "tavern", now=NOW)
    assert caught.value.code == "invalid_format"


_texts = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40)
_dates = st.datetimes(
    min_value=datetime(2000, 1, 1),  # noqa: DTZ001 - Hypothesis bounds are naive, the zone is UTC
    max_value=datetime(2026, 12, 1),  # noqa: DTZ001
    timezones=st.just(UTC),
)


@st.composite
def _messages(draw: st.DrawFn) -> FileMessage:
    role = draw(st.sampled_from(["user", "assistant"]))
    text = draw(_texts)
    swipes: tuple[str, ...] = ()
    chosen = 0
    if role == "assistant" and draw(st.booleans()):
        others = draw(st.lists(_texts, min_size=1, max_size=4))
        chosen = draw(st.integers(0, len(others)))
        swipes = (*others[:chosen], text, *others[chosen:])
    return FileMessage(
        role=role, name=draw(_texts), text=text, sent_at=draw(_dates), swipes=swipes, swipe_id=chosen
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(_messages(), min_size=1, max_size=8))
def test_any_chat_round_trips_through_both_formats(messages: list[FileMessage]) -> None:
    """Any texts (any Unicode, newlines, quotes), names, dates and swipes survive both formats."""
    chat = ChatFile(user_name="u", character_name="c", created_at=NOW, messages=tuple(messages))
    assert decode_chat(encode_st(chat), "st", now=NOW).messages == chat.messages
    assert decode_chat(encode_hearth(chat), "hearth", now=NOW).messages == chat.messages
