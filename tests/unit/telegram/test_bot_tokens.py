"""``TELEGRAM_BOT_TOKENS``: several bots, each bound to one persona (issue 33, PLT-1, RUN-1)."""

from __future__ import annotations

import pytest

from adapters.telegram.ids import chat_key, parse_chat_key
from config.settings import BotBinding, load_settings
from engine.errors import ConfigError
from engine.turn import memory_space

REDIS = {"REDIS_URL": "redis://x:6379/0"}


def test_issue_33_persona_token_pairs_bind_one_bot_to_each_persona_and_turn_polling_on() -> None:
    """RUN-1: ``persona=token`` pairs, comma-separated, blanks ignored; the worker polls them."""
    env = {**REDIS, "TELEGRAM_BOT_TOKENS": " lyra=111:XYZZY-a , bram=222:XYZZY_b ,"}
    telegram = load_settings(env).telegram
    assert telegram.bot_tokens == (
        BotBinding(persona="lyra", token="111:XYZZY-a"),  # type: ignore[arg-type]
        BotBinding(persona="bram", token="222:XYZZY_b"),  # type: ignore[arg-type]
    )
    assert telegram.bot_token is None and telegram.polling and telegram.configured
    assert "XYZZY" not in repr(telegram)  # tokens never print


def test_issue_33_one_token_works_as_before() -> None:
    """PLT-1: ``TELEGRAM_BOT_TOKEN`` alone is one unbound bot, as it always was."""
    telegram = load_settings({**REDIS, "TELEGRAM_BOT_TOKEN": "1:abc"}).telegram
    assert telegram.bot_tokens == () and telegram.polling and str(telegram.bot_token) == "1:abc"


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("lyra:111:XYZZY-a", "entry 1 must be persona=token"),
        ("=111:XYZZY-a", "entry 1 must be persona=token"),
        ("ly ra=111:XYZZY-a", "entry 1 must be persona=token"),
        ("lyra=111:XYZZY-a,bram=XYZZY not a token", "entry 2 (bram) has no bot token"),
        ("lyra=111:XYZZY-a,lyra=222:XYZZY-c", "persona 'lyra' has two bots"),
        ("lyra=111:XYZZY-a,bram=111:XYZZY-a", "that bot is already bound"),
    ],
)
def test_issue_33_a_malformed_pair_names_its_entry_and_never_the_token(raw: str, says: str) -> None:
    """RUN-1: the error starts with the variable's name; no token text appears in it."""
    with pytest.raises(ConfigError) as bad:
        load_settings({**REDIS, "TELEGRAM_BOT_TOKENS": raw})
    assert bad.value.message.startswith("TELEGRAM_BOT_TOKENS") and says in bad.value.message
    assert bad.value.code == "invalid_setting" and "XYZZY" not in bad.value.message


def test_issue_33_both_variables_at_once_is_refused() -> None:
    """One scheme at a time: an unbound bot beside bound ones would store a group's messages twice."""
    env = {**REDIS, "TELEGRAM_BOT_TOKEN": "1:abc", "TELEGRAM_BOT_TOKENS": "lyra=111:AAA"}
    with pytest.raises(ConfigError, match="both set"):
        load_settings(env)


def test_issue_33_a_bound_bot_s_private_chat_has_its_own_id_in_the_person_s_space() -> None:
    """PLT-5, MEM-1 (issue 33): ``tg:<user>/bot/<persona>``; its memories live in the space ``tg:<user>``."""
    assert chat_key(42, bot_persona="lyra") == "tg:42/bot/lyra" and chat_key(42) == "tg:42"
    assert chat_key(-100, 7, bot_persona="lyra") == "tg:-100/topic/7"  # groups are shared by the bots
    assert parse_chat_key("tg:42/bot/lyra") == (42, None)
    assert memory_space("tg:42/bot/lyra") == "tg:42" == memory_space("tg:42/bot/lyra=b-x1")
