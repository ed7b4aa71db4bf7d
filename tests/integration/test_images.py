"""Pictures on a real Redis and a Redis Cluster (issue 30): the process built from the
environment keeps each picture under its own key, in the chat's slot, for
``HEARTH_IMAGE_TTL_DAYS``; deleting the message deletes them; the offline model tells the
person once that it cannot see them."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

import msgspec
from redis.crc import key_slot

from adapters.bootstrap import build, install_personas
from config.settings import load_settings
from engine.images import Image
from engine.model import IncomingMessage
from engine.notices import NO_VISION_NOTICE
from engine.service import ReplyDone
from tests.fixtures.pictures import png
from tests.fixtures.servers import RedisClusterServer, RedisServer


async def test_issue_30_pictures_expire_as_the_operator_set_and_go_with_their_message(
    redis_server: RedisServer | RedisClusterServer,
) -> None:
    env = {**redis_server.env(12), "HEARTH_EMBEDDER": "hash", "HEARTH_IMAGE_TTL_DAYS": "2"}
    env["HEARTH_NAMESPACE"] = f"img{secrets.token_hex(3)}"
    hearth = build(load_settings(env))
    try:
        await install_personas(hearth)
        chat = f"web:pics-{secrets.token_hex(3)}"
        message = IncomingMessage(
            platform="web",
            space=chat,
            chat=chat,
            user="web:ana",
            display_name="Ana",
            text="What is this?",
            sent_at=datetime.now(UTC),
            images=(Image(media_type="image/png", data=png(64, 48)),),
        )
        accepted = await hearth.service.accept(message, "default")
        events = [e async for e in accepted.events]
        done = events[-1]
        assert isinstance(done, ReplyDone) and NO_VISION_NOTICE in done.notices
        assert "cannot see pictures" in done.reply  # the offline model says so
        (ref,) = accepted.message.images
        key = hearth.keys.chat(chat, f"img:{ref.id}")
        assert key_slot(key.encode()) == key_slot(hearth.keys.chat(chat, "log").encode())
        assert await hearth.redis.get(key) == png(64, 48)
        ttl = await hearth.redis.ttl(key)
        assert 2 * 86_400 - 60 <= ttl <= 2 * 86_400
        again = msgspec.structs.replace(message, images=(Image(media_type="image/png", data=png(8, 8)),))
        later = await hearth.service.accept(again, "default")
        second = [e async for e in later.events][-1]
        assert isinstance(second, ReplyDone) and NO_VISION_NOTICE not in second.notices  # once per chat
        await hearth.controls.delete(chat, accepted.message.id, "web:ana")
        assert await hearth.redis.exists(key) == 0
    finally:
        await hearth.close()
