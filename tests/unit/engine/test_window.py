"""The live window: WIN-1..3."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.model import StoredMessage
from engine.window import ALIGN, WindowPolicy, live_window, select_window, window_budget
from tests.strategies import stored_messages

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def log(*tokens: int) -> list[StoredMessage]:
    return [
        StoredMessage(
            id=f"m{i}",
            chat="web:c",
            role="user" if i % 2 == 0 else "assistant",
            user="web:u",
            name="U",
            text=f"t{i}",
            sent_at=NOW,
            position=float(i),
            tokens=t,
        )
        for i, t in enumerate(tokens)
    ]


@pytest.mark.parametrize(
    ("context_window", "budget"),
    [(200_000, 10_000), (1_000_000, 10_000), (32_000, 8_000), (8_000, 2_000)],
)
def test_win_1_budget_is_min_of_10k_and_quarter_context(context_window: int, budget: int) -> None:
    assert window_budget(WindowPolicy(), context_window) == budget


def test_win_2_a_bigger_model_does_not_keep_more_messages() -> None:
    messages = log(*([500] * 50))
    small = select_window(messages, WindowPolicy(), 200_000)
    huge = select_window(messages, WindowPolicy(), 1_000_000)
    assert small.messages == huge.messages
    assert small.tokens <= 10_000


def test_win_1_token_cap_keeps_the_newest_that_fit() -> None:
    window = select_window(log(4_000, 4_000, 4_000, 4_000), WindowPolicy(), 200_000)
    assert [m.id for m in window.messages] == ["m2", "m3"]
    assert window.tokens == 8_000
    assert window.dropped == 2


def test_win_1_the_25_percent_rule_applies_to_small_models() -> None:
    window = select_window(log(900, 900, 900), WindowPolicy(), 4_000)  # budget 1,000
    assert [m.id for m in window.messages] == ["m2"]


def test_win_1_at_most_50_messages() -> None:
    window = select_window(log(*([1] * 80)), WindowPolicy(), 200_000)
    assert len(window.messages) == 50
    assert window.messages[-1].id == "m79"
    assert window.messages[0].id == "m30"


def test_win_3_both_roles_count_and_the_newest_is_kept_even_when_too_big() -> None:
    window = select_window(log(10, 20, 50_000), WindowPolicy(), 200_000)
    assert [m.id for m in window.messages] == ["m2"]
    assert {m.role for m in select_window(log(1, 1, 1), WindowPolicy(), 200_000).messages} == {
        "user",
        "assistant",
    }


def test_win_1_window_is_contiguous_a_big_message_stops_the_walk() -> None:
    window = select_window(log(5, 9_000, 600, 600), WindowPolicy(), 200_000)
    assert [m.id for m in window.messages] == ["m2", "m3"]


@given(stored_messages(), st.integers(min_value=1_000, max_value=1_000_000))
def test_win_1_property_never_over_budget_unless_only_the_newest(
    messages: list[StoredMessage], context_window: int
) -> None:
    policy = WindowPolicy()
    window = select_window(messages, policy, context_window)
    assert window.messages, "the newest message is always included"
    assert window.messages[-1] == messages[-1]
    assert len(window.messages) <= policy.max_messages
    assert window.tokens == sum(m.tokens for m in window.messages)
    if len(window.messages) > 1:
        assert window.tokens <= window_budget(policy, context_window)
    assert list(window.messages) == messages[len(messages) - len(window.messages) :]


def test_issue_12_the_live_window_only_grows_until_its_next_step() -> None:
    starts = []
    for n in range(60, 100):
        window = live_window(log(*([1] * n)), WindowPolicy(), 200_000)
        assert window.messages[-1].id == f"m{n - 1}" and len(window.messages) <= 50
        starts.append(window.messages[0].position)
    assert sorted(set(starts)) == [10.0, 20.0, 30.0, 40.0, 50.0]  # four steps in 40 messages
    assert all(s % ALIGN == 0 for s in starts)


def test_issue_12_a_short_chat_keeps_every_message() -> None:
    window = live_window(log(1, 1, 1, 1, 1), WindowPolicy(), 200_000)
    assert [m.id for m in window.messages] == ["m0", "m1", "m2", "m3", "m4"]


@given(stored_messages(max_size=150), st.integers(min_value=1_000, max_value=1_000_000))
def test_issue_12_property_live_window_is_a_capped_suffix_that_only_steps_forward(
    messages: list[StoredMessage], context_window: int
) -> None:
    policy = WindowPolicy()
    natural = select_window(messages, policy, context_window)
    live = live_window(messages, policy, context_window)
    assert live.messages[-1] == messages[-1], "the newest message is always included"
    assert list(live.messages) == list(natural.messages[len(natural.messages) - len(live.messages) :])
    assert live.tokens == sum(m.tokens for m in live.messages) <= max(natural.tokens, 0)
    assert len(natural.messages) - len(live.messages) < 2 * ALIGN or len(live.messages) == 1
    if len(messages) > 1:  # one message less: the start is the same or an earlier step
        before = live_window(messages[:-1], policy, context_window)
        assert before.messages[0].position <= live.messages[0].position


def test_issue_12_a_chat_window_steps_at_a_user_message_never_one_reply_at_a_time() -> None:
    # a chat's log: user messages at their numbers, each reply at its message's number + 0.5
    chat = [m for i in range(1, 80) for m in log(1, 1)]
    chat = [
        msgspec.structs.replace(
            m, id=f"{'m' if k % 2 == 0 else 'r'}{k // 2 + 1}", position=k // 2 + 1 + k % 2 / 2
        )
        for k, m in enumerate(chat)
    ]
    starts = set()
    for n in range(60, len(chat) + 1, 2):  # the prompt of each turn: up to its user message
        window = live_window(chat[: n - 1], WindowPolicy(), 200_000)
        starts.add(window.messages[0].position)
    assert all(s % ALIGN == 0 for s in starts), sorted(starts)  # 50 messages never start at a reply
