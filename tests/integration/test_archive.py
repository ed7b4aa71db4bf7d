"""The episodic archive in-process on a real Redis (EPI-1..7, 11, 13): pages, scores, sweep, search."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta

import msgspec
import pytest
import redis.asyncio as aioredis

from adapters.embedding import Embedder, HashEmbedder, Vectors
from adapters.llm.tokens import OfflineTokenCounter
from adapters.recall.archive import PageLexicon, PageRecall, _analysis, page_lexicon
from adapters.recall.lexical import parse
from adapters.vector import BruteForceVectorIndex
from adapters.worker.jobs import ArchiveSweeper, JobRunner
from config.archive import archive_settings
from engine.archive import ArchivePolicy, Page, QueryOptions, new_page, page_text, supersede_page
from engine.errors import ConfigError, NotFound
from engine.model import IncomingMessage, Persona
from engine.service import ChatService, ServicePolicy
from engine.service.archive import ArchiveDesk, ArchiveSettings
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy
from engine.window import WindowPolicy
from storage.keys import KeyBuilder
from storage.redis_archive import RedisArchiveStore
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_lore import RedisLoreStore
from storage.redis_summary import RedisSummaryStore
from tests.fakes.ports import FixedClock, ScriptedChatModel
from tests.fixtures.servers import RedisServer, fresh_db

pytestmark = pytest.mark.integration

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
CHAT = "web:den"
PERSONA = Persona(id="default", name="Ember", system_prompt="You are Ember.")
DEPLOY = [
    "The deploy failed with ECONNREFUSED when it reached https://api.example.com/v2/health again.",
    "Check /etc/hearth/config.toml and run `redis-cli PING` before the next deploy.",
    "Also the HTTP 502 came from the load balancer; error E1234 is in the logs.",
]
GARDEN = ["Tomatoes need more sun this year.", "Let us move the basil next to the window."]


class World:
    """The desk, the store and a service to post messages, all on one fake clock."""

    def __init__(
        self, redis: aioredis.Redis, *, embed: bool = True, embedder: Embedder | None = None
    ) -> None:
        keys = KeyBuilder(prefix="a")
        self.clock = FixedClock(T0)
        self.store = RedisArchiveStore(redis, keys)
        used = embedder or HashEmbedder()
        recall = PageRecall(self.store, used, BruteForceVectorIndex()) if embed else None
        self.desk = ArchiveDesk(store=self.store, clock=self.clock, settings=ArchiveSettings(), recall=recall)
        self.service = ChatService(
            chats=RedisChatStore(redis, keys),
            lock=RedisChatLock(redis, keys),
            personas=RedisPersonaStore(redis, keys),
            lore=RedisLoreStore(redis, keys),
            model=ScriptedChatModel(),
            counter=OfflineTokenCounter(),
            clock=self.clock,
            policy=ServicePolicy(),
        )

    async def say(self, texts: list[str], start: datetime, chat: str = CHAT, *, reply: bool = False) -> None:
        for i, text in enumerate(texts):
            message = IncomingMessage(
                platform="web",
                space=chat,
                chat=chat,
                user="web:ana",
                display_name="Ana",
                text=text,
                sent_at=start + timedelta(minutes=i),
            )
            accepted = await self.service.accept(message, "default", reply=reply)
            async for _ in accepted.events:
                pass

    def with_policy(self, **changes: object) -> ArchiveDesk:
        policy = msgspec.structs.replace(self.desk.policy, **changes)
        return self.desk.reconfigured(ArchiveSettings(policy=policy))

    async def put(self, page: Page) -> None:
        await self.store.change(page.chat, lambda _: ((page,), (), None))

    async def page(self, page_id: str) -> Page:
        return next(p for p in await self.store.pages(CHAT) if p.id == page_id)


@pytest.fixture
async def redis(redis_server: RedisServer) -> AsyncIterator[aioredis.Redis]:
    async with fresh_db(redis_server, 10) as client:
        yield client


@pytest.fixture
async def world(redis: aioredis.Redis) -> World:
    made = World(redis)
    await made.service.personas.put(PERSONA)
    return made


async def two_sessions(world: World) -> tuple[Page, Page]:
    """A deploy session, an 8-hour gap, a garden session; both archived 7 hours later."""
    await world.say(DEPLOY, T0)
    await world.say(GARDEN, T0 + timedelta(hours=8))
    world.clock.current = T0 + timedelta(hours=15)
    pages = await world.desk.archive_sessions(CHAT)
    assert len(pages) == 2
    return pages[0], pages[1]


async def test_epi_1_sessions_split_by_the_idle_gap_become_pages_with_keep_worthy_tokens(
    world: World,
) -> None:
    await world.say(DEPLOY, T0)
    await world.say(GARDEN, T0 + timedelta(hours=8))
    world.clock.current = T0 + timedelta(hours=9)  # the garden session is still running
    (deploy,) = await world.desk.archive_sessions(CHAT)
    assert deploy.layer == "episodic" and deploy.status == "active" and deploy.version == 1
    assert deploy.body == "\n".join(f"Ana: {t}" for t in DEPLOY)
    assert deploy.created_at == T0 + timedelta(minutes=2)  # age counts from the session's end
    assert deploy.abstract.startswith("Ana: The deploy failed with ECONNREFUSED")
    assert "ECONNREFUSED" in deploy.summary
    for token in (
        "https://api.example.com/v2/health",
        "/etc/hearth/config.toml",
        "`redis-cli PING`",
        "E1234",
    ):
        assert token in deploy.keep
    assert await world.desk.archive_sessions(CHAT) == ()  # nothing archived twice
    world.clock.advance(hours=6)
    (garden,) = await world.desk.archive_sessions(CHAT)
    assert garden.body.startswith("Ana: Tomatoes") and "ECONNREFUSED" not in garden.body
    assert [p.id for p in await world.store.pages(CHAT)] == [deploy.id, garden.id]
    vectors = await world.store.vectors(CHAT)
    assert vectors.model == HashEmbedder().name and set(vectors.vectors) == {deploy.id, garden.id}


async def test_epi_7_a_near_empty_session_is_archived_but_marked_low_entropy(world: World) -> None:
    await world.say(["ok", "ok", "ok", "ok"], T0)
    await world.say(GARDEN, T0 + timedelta(hours=8))
    world.clock.current = T0 + timedelta(days=1)
    empty, garden = await world.desk.archive_sessions(CHAT)
    listed = {p.id: low for p, _, low in await world.desk.pages(CHAT)}
    assert listed == {empty.id: True, garden.id: False}


async def test_epi_2_3_reads_raise_the_score_and_feedback_drops_it(world: World) -> None:
    deploy, garden = await two_sessions(world)
    world.clock.advance(days=20)
    before = {p.id: score for p, score, _ in await world.desk.pages(CHAT)}
    opened = await world.desk.read(deploy.id)
    assert opened.read_count == 1 and opened.last_read_at == world.clock.now()
    after = {p.id: score for p, score, _ in await world.desk.pages(CHAT)}
    assert after[deploy.id] > before[deploy.id]
    assert after[garden.id] == before[garden.id]
    judged = await world.desk.feedback(garden.id, "stale")
    assert judged.salience == 0.0 and judged.feedback[0].kind == "stale"
    dropped = {p.id: score for p, score, _ in await world.desk.pages(CHAT)}
    assert dropped[garden.id] < before[garden.id]
    with pytest.raises(NotFound) as missing:
        await world.desk.read("pg-nope")
    assert missing.value.code == "page_not_found"


async def test_epi_1_2_the_sweep_evicts_cold_episodic_pages_never_pinned_or_semantic(world: World) -> None:
    deploy, garden = await two_sessions(world)
    policy = world.desk.policy
    fact = new_page(
        id="sem-1", chat=CHAT, created_at=T0, policy=policy, layer="semantic", body="Ana owns a cat."
    )
    pinned = msgspec.structs.replace(
        new_page(
            id="pin-1",
            chat=CHAT,
            created_at=T0,
            policy=policy,
            body="The wifi password lives in /etc/wifi.conf",
        ),
        pinned=True,
    )
    await world.put(fact)
    await world.put(pinned)
    world.clock.advance(days=30)
    assert await world.desk.sweep() == {}  # warm pages: nothing to do
    world.clock.advance(days=90)  # e^(-0.02*120) = 0.09 < 0.20: cold
    counts = await world.desk.sweep()
    assert counts == {"evicted": 2}
    by_id = {p.id: p for p in await world.store.pages(CHAT)}
    assert by_id[deploy.id].status == "evicted" and by_id[deploy.id].body == deploy.body
    assert by_id[garden.id].status == "evicted"
    assert by_id["sem-1"] == fact and by_id["pin-1"] == pinned  # untouched, byte for byte
    found = await world.desk.search(CHAT, "deploy failed ECONNREFUSED", QueryOptions())
    assert deploy.id not in [f.item.id for f in found.items]  # evicted pages leave search


async def test_epi_5_11_compaction_keeps_tokens_and_restore_brings_back_the_exact_text(world: World) -> None:
    deploy, _ = await two_sessions(world)
    desk = world.with_policy(compact_cold_episodic=True)
    world.clock.advance(days=120)
    assert (await desk.sweep())["compacted"] == 2
    cold = await world.page(deploy.id)
    assert cold.status == "cold" and cold.body == "" and cold.version == 2
    assert cold.summary == deploy.summary and cold.abstract == deploy.abstract
    for token in (
        "https://api.example.com/v2/health",
        "/etc/hearth/config.toml",
        "`redis-cli PING`",
        "E1234",
    ):
        assert token in cold.keep
    assert (await desk.sweep()) == {}  # compacted once
    restored = await desk.restore(deploy.id, 1)
    assert restored.body == deploy.body and restored.status == "active" and restored.version == 3
    assert (await world.page(deploy.id)).body == deploy.body
    with pytest.raises(NotFound) as missing:
        await desk.restore(deploy.id, 9)
    assert missing.value.code == "no_such_version"


async def test_epi_5_an_evicted_page_is_deleted_180_days_after_eviction(world: World) -> None:
    deploy, _ = await two_sessions(world)
    world.clock.advance(days=120)
    await world.desk.sweep()
    evicted_at = (await world.page(deploy.id)).evicted_at
    assert evicted_at == world.clock.now()
    world.clock.current = evicted_at + timedelta(days=179)
    assert await world.desk.sweep() == {}
    assert await world.store.chat_of(deploy.id) == CHAT
    world.clock.current = evicted_at + timedelta(days=180)
    assert await world.desk.sweep() == {"purged": 2}
    assert await world.store.pages(CHAT) == []
    assert await world.store.chat_of(deploy.id) is None
    assert (await world.store.vectors(CHAT)).vectors == {}


async def test_epi_6_dedup_keeps_the_best_page_and_points_the_others_to_it(world: World) -> None:
    await world.say(DEPLOY, T0)
    await world.say([*DEPLOY[:2], "HTTP 503 too, and /var/log/hearth.log is full."], T0 + timedelta(hours=8))
    await world.say(GARDEN, T0 + timedelta(hours=16))
    world.clock.current = T0 + timedelta(days=1)
    first, second, garden = await world.desk.archive_sessions(CHAT)
    await world.desk.read(second.id)
    desk = world.with_policy(dedup_cold_clusters=True)
    world.clock.advance(days=150)
    counts = await desk.reconfigured(msgspec.structs.replace(desk.settings, dedup_similarity=0.8)).sweep()
    assert counts["superseded"] == 1 and counts["absorbed"] == 1
    by_id = {p.id: p for p in await world.store.pages(CHAT)}
    assert by_id[first.id].status == "superseded" and by_id[first.id].superseded_by == second.id
    assert "E1234" in by_id[second.id].keep and by_id[second.id].merged_from == (first.id,)
    assert by_id[garden.id].status == "evicted"  # not a duplicate of anything


async def test_epi_13_search_records_reads_and_supports_the_three_options(world: World) -> None:
    deploy, garden = await two_sessions(world)
    policy = world.desk.policy
    pinned = msgspec.structs.replace(
        new_page(id="pin-1", chat=CHAT, created_at=T0, policy=policy, body="House rules: be kind."),
        pinned=True,
    )
    linked = new_page(
        id="link-1", chat=CHAT, created_at=T0, policy=policy, body="Runbook.", links=(deploy.id,)
    )
    old = supersede_page(
        new_page(id="old-1", chat=CHAT, created_at=T0, policy=policy, body="An older deploy note."),
        deploy.id,
        T0,
    )
    for page in (pinned, linked, old):
        await world.put(page)
    query = "the deploy failed with ECONNREFUSED at the health check"
    plain = await world.desk.search(CHAT, query, QueryOptions())
    assert [f.item.id for f in plain.items] == [deploy.id]
    assert plain.items[0].page is not None and plain.items[0].page.read_count == 1
    assert (
        plain.status.persona == "default"
        and plain.status.space == CHAT
        and plain.status.search == "embedding"
    )
    full = await world.desk.search(
        CHAT, query, QueryOptions(pin_first=True, include_related=True, include_superseded=True)
    )
    items = [(f.item.id, f.item.source) for f in full.items]
    assert items == [
        ("pin-1", "pinned"),
        (deploy.id, "result"),
        ("link-1", "related"),
        ("old-1", "superseded"),
    ]
    reads = {p.id: p.read_count for p in await world.store.pages(CHAT)}
    assert reads == {deploy.id: 2, garden.id: 0, "pin-1": 1, "link-1": 1, "old-1": 1}


async def test_epi_13_without_an_embedder_search_is_lexical(redis: aioredis.Redis) -> None:
    world = World(redis, embed=False)
    await world.service.personas.put(PERSONA)
    _, garden = await two_sessions(world)
    found = await world.desk.search(CHAT, "basil window", QueryOptions())
    assert found.status.search == "lexical" and found.status.embedder is None
    assert [f.item.id for f in found.items] == [garden.id]
    assert (await world.page(garden.id)).read_count == 1


async def test_the_sweep_lease_lets_one_worker_pass_per_interval(world: World) -> None:
    await world.say(DEPLOY, T0)
    world.clock.current = T0 + timedelta(days=1)
    first = ArchiveSweeper(world.desk)
    assert await first.run_once() is True  # archives the closed session of every chat, then sweeps
    assert len(await world.store.pages(CHAT)) == 1
    assert await ArchiveSweeper(world.desk).run_once() is False  # another worker waits its turn


def test_archive_settings_read_env_overrides() -> None:
    settings = archive_settings(
        {
            "HEARTH_ARCHIVE_SWEEP_SECS": "30",
            "HEARTH_ARCHIVE_SESSION_GAP_SECS": "600",
            "HEARTH_ARCHIVE_COMPACT_COLD": "true",
            "HEARTH_ARCHIVE_DELETE_AFTER_DAYS": "90",
        }
    )
    assert settings.sweep_secs == 30 and settings.policy.session_gap_secs == 600
    assert settings.policy.compact_cold_episodic and not settings.policy.dedup_cold_clusters
    assert settings.policy.delete_after_days == 90
    assert archive_settings({}).policy == ArchivePolicy()


async def test_epi_1_a_chats_summary_job_also_archives_its_closed_sessions(
    world: World, redis: aioredis.Redis
) -> None:
    await world.say(DEPLOY, T0)
    world.clock.current = T0 + timedelta(days=1)
    keys = KeyBuilder(prefix="a")
    jobs = RedisSummaryStore(redis, keys)
    summaries = SummaryDesk(
        store=jobs,
        model=ScriptedChatModel(),
        personas=world.service.personas,
        clock=world.clock,
        policy=SummaryPolicy(),
        window=WindowPolicy(),
        default_model="m",
    )
    runner = JobRunner(summaries, jobs, block_ms=10, archive=world.desk)
    await jobs.enqueue(CHAT)
    assert await runner.run_once() == 1
    (page,) = await world.store.pages(CHAT)
    assert page.body.startswith("Ana: The deploy failed")


@pytest.mark.parametrize(
    ("env", "code"),
    [
        ({"HEARTH_ARCHIVE_COLD_BELOW": "2"}, "invalid_policy"),
        ({"HEARTH_ARCHIVE_COMPACT_COLD": "maybe"}, "invalid_setting"),
        ({"HEARTH_ARCHIVE_SWEEP_SECS": "0"}, "invalid_setting"),
        ({"HEARTH_ARCHIVE_SESSION_GAP_SECS": "soon"}, "invalid_setting"),
    ],
)
def test_archive_settings_name_a_bad_value(env: dict[str, str], code: str) -> None:
    with pytest.raises(ConfigError) as bad:
        archive_settings(env)
    assert bad.value.code == code


async def test_epi_13_a_session_page_links_the_memories_its_turns_saved(redis: aioredis.Redis) -> None:
    from adapters.recall.search import NoRecall
    from engine.memory import MemoryPolicy
    from engine.service.memory import MemoryDesk
    from engine.tools import ToolCall
    from storage.redis_memory import RedisMemoryStore
    from storage.redis_memory_directory import RedisMemoryDirectory

    world = World(redis)
    keys = KeyBuilder(prefix="a")
    memory_store = RedisMemoryStore(redis, keys)
    world.service.memory = MemoryDesk(
        store=memory_store,
        recall=NoRecall(memory_store),
        directory=RedisMemoryDirectory(redis, keys),
        policy=MemoryPolicy(),
    )
    await world.service.personas.put(PERSONA)
    world.service.model.script.append(  # type: ignore[attr-defined]
        ToolCall(id="c1", name="save_memory", arguments='{"text": "Ana grows tomatoes"}')
    )
    await world.say(GARDEN[:1], T0)
    message = IncomingMessage(
        platform="web",
        space=CHAT,
        chat=CHAT,
        user="web:ana",
        display_name="Ana",
        text="Remember my tomatoes",
        sent_at=T0 + timedelta(minutes=5),
    )
    events = [e async for e in (await world.service.accept(message, "default")).events]
    saved = events[-1].context.memory_writes[0].id  # type: ignore[union-attr]
    world.clock.current = T0 + timedelta(hours=8)
    (page,) = await world.desk.archive_sessions(CHAT)
    assert saved in page.links
    found = await world.desk.search(CHAT, "tomatoes", QueryOptions(include_related=True))
    related = [f.item for f in found.items if not f.item.is_page]
    assert [(i.id, i.via) for i in related] == [(saved, page.id)]


async def test_epi_1_working_notes_end_with_their_session(world: World) -> None:
    note = new_page(
        id="work-1",
        chat=CHAT,
        created_at=T0 + timedelta(minutes=1),
        policy=ArchivePolicy(),
        layer="working",
        body="Scratch: try the staging box first.",
    )
    kept = new_page(
        id="work-pinned",
        chat=CHAT,
        created_at=T0 + timedelta(minutes=1),
        policy=ArchivePolicy(),
        layer="working",
        body="Pinned scratch.",
        pinned=True,
    )
    later = new_page(
        id="work-next",
        chat=CHAT,
        created_at=T0 + timedelta(hours=8, minutes=1),
        policy=ArchivePolicy(),
        layer="working",
        body="Notes for the next session.",
    )
    for page in (note, kept, later):
        await world.put(page)
    await world.say(DEPLOY, T0)
    await world.say(GARDEN, T0 + timedelta(hours=8))
    world.clock.current = T0 + timedelta(hours=9)  # the first session closed, the second runs
    await world.desk.archive_sessions(CHAT)
    left = {p.id for p in await world.store.pages(CHAT) if p.layer == "working"}
    assert left == {"work-pinned", "work-next"}


def test_epi_4_per_layer_half_lives_from_the_environment() -> None:
    from engine.archive import HalfLives

    settings = archive_settings({"HEARTH_ARCHIVE_HALF_LIFE_DAYS": "working=7, episodic=365"})
    assert settings.policy.half_life_days == HalfLives(working=7.0, episodic=365.0)
    for bad in ("moon=3", "episodic", "episodic=-1"):
        with pytest.raises(ConfigError):
            archive_settings({"HEARTH_ARCHIVE_HALF_LIFE_DAYS": bad})


CHATTER = [f"{w} — anyway, how was your day number {n}?" for n, w in enumerate(["ok", "lol", "sure"] * 9)]


async def test_recall_1_a_fact_buried_in_a_long_session_is_found_by_its_best_chunk(world: World) -> None:
    buried = [*CHATTER[:14], "My sister Lena adopted a greyhound called Biscuit last week.", *CHATTER[14:]]
    other = [*CHATTER[:6], "The neighbours walk their noisy poodle every single morning.", *CHATTER[6:]]
    await world.say(buried, T0)
    await world.say(other, T0 + timedelta(hours=8))
    world.clock.current = T0 + timedelta(hours=15)
    first, second = await world.desk.archive_sessions(CHAT)
    found = await world.desk.search(CHAT, "which greyhound did my sister Lena adopt?", QueryOptions())
    assert [f.item.id for f in found.items][:1] == [first.id]
    model, stored = await world.store.chunk_vectors(CHAT)
    assert model == HashEmbedder().name and set(stored) == {first.id, second.id}
    dim = HashEmbedder().dim
    assert all(
        (len(raw) - 8) % (dim * 4) == 0 and len(raw) - 8 > dim * 4 for raw in stored.values()
    )  # chunks
    await world.desk.search(CHAT, "poodle", QueryOptions())
    assert (await world.store.chunk_vectors(CHAT))[1] == stored  # embedded once, kept in Redis


class CountingEmbedder:
    """The hash embedder (the embedder port), counting the passages it is asked to embed."""

    def __init__(self) -> None:
        self.inner = HashEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.passages = 0

    def embed_queries(self, texts: Sequence[str]) -> Vectors:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> Vectors:
        self.passages += len(texts)
        return self.inner.embed_passages(texts)


LENA = "My sister Lena adopted a greyhound called Biscuit last week."


async def long_chat(redis: aioredis.Redis) -> tuple[World, CountingEmbedder, list[Page]]:
    """600 messages in six sessions eight hours apart (the fact about Lena in the fourth),
    archived by the worker's archive pass."""
    embedder = CountingEmbedder()
    world = World(redis, embedder=embedder)
    await world.service.personas.put(PERSONA)
    for session in range(6):
        lines = [f"{CHATTER[n % len(CHATTER)]} (session {session}, line {n})" for n in range(100)]
        if session == 3:
            lines[57] = LENA
        await world.say(lines, T0 + timedelta(hours=8 * session))
    world.clock.current = T0 + timedelta(hours=8 * 6 + 2)
    await world.desk.warm()  # as every process does at start
    assert await ArchiveSweeper(world.desk).run_once()
    pages = await world.store.pages(CHAT)
    assert len(pages) == 6
    return world, embedder, pages


async def test_issue_28_a_long_chats_first_archive_search_embeds_no_page(redis: aioredis.Redis) -> None:
    """RECALL-1, EPI-13 (issue 28): the worker's archive pass embeds the chunks of the pages it
    writes; the first search of a 600-message chat embeds its query only, and finds the page."""
    world, embedder, pages = await long_chat(redis)
    model, stored = await world.store.chunk_vectors(CHAT)
    assert model == embedder.name and set(stored) == {p.id for p in pages}
    before = embedder.passages
    found = await world.desk.search(CHAT, "which greyhound did my sister Lena adopt?", QueryOptions())
    assert embedder.passages == before
    assert [f.item.id for f in found.items][:1] == [pages[3].id]


async def test_issue_28_pages_without_chunk_vectors_are_read_lexically_and_embedded_by_the_worker(
    redis: aioredis.Redis,
) -> None:
    """RECALL-1, EPI-13 (issue 28): pages whose chunk vectors are missing (a worker stopped
    after writing them) are searched lexically inside the turn, never embedded there; the
    chat is queued and the worker's next minute embeds them, after which searches use them."""
    world, embedder, pages = await long_chat(redis)
    await redis.delete(KeyBuilder(prefix="a").chat(CHAT, "archive:cvecs"))
    before = embedder.passages
    query = "which greyhound did my sister Lena adopt?"
    found = await world.desk.search(CHAT, query, QueryOptions())
    assert embedder.passages == before
    assert [f.item.id for f in found.items][:1] == [pages[3].id]
    assert (await world.store.chunk_vectors(CHAT))[1] == {}
    world.clock.advance(minutes=1)
    assert not await ArchiveSweeper(world.desk).run_once()  # no pass due: only the queue is served
    assert embedder.passages > before
    model, stored = await world.store.chunk_vectors(CHAT)
    assert model == embedder.name and set(stored) == {p.id for p in pages}
    assert await world.store.take_embedding_queue() == []
    before = embedder.passages
    again = await world.desk.search(CHAT, query, QueryOptions())
    assert embedder.passages == before
    assert [f.item.id for f in again.items][:1] == [pages[3].id]


async def test_issue_28_a_first_search_loads_the_page_lexicons_the_worker_stored(
    redis: aioredis.Redis,
) -> None:
    """RECALL-1, EPI-13 (issue 28): the worker's archive pass stores each page's lexicon beside
    its chunk vectors; a process's first search builds the pages' BM25 index from them and ranks
    exactly as from the texts. A missing lexicon, or one of another text, is not used: the page
    is read from its text and the chat queued, and the worker stores a current one."""
    world, embedder, pages = await long_chat(redis)
    stored = await world.store.lexicons(CHAT)
    assert set(stored) == {p.id for p in pages}
    query = "which greyhound did my sister Lena adopt?"

    async def first_search() -> list[tuple[str, float | None]]:
        recall = PageRecall(world.store, embedder, BruteForceVectorIndex())  # a fresh process
        desk = ArchiveDesk(store=world.store, clock=world.clock, settings=ArchiveSettings(), recall=recall)
        found = await desk.search(CHAT, query, QueryOptions())
        return [(f.item.id, f.relevance) for f in found.items]

    loaded = await first_search()
    assert loaded[0][0] == pages[3].id
    assert await world.store.take_embedding_queue() == []
    key = KeyBuilder(prefix="a").chat(CHAT, "archive:lex")
    await redis.hset(key, pages[3].id, stored[pages[0].id])  # another page's lexicon
    await redis.hdel(key, pages[5].id)
    assert await first_search() == loaded
    assert await world.store.take_embedding_queue() == [CHAT]
    before = embedder.passages
    await world.desk.embed_pages(CHAT)
    assert embedder.passages == before  # chunk vectors were current: only lexicons were written
    assert await world.store.lexicons(CHAT) == stored
    _, vectors = await world.store.chunk_vectors(CHAT)
    for page in pages:
        made = msgspec.msgpack.decode(stored[page.id][8:], type=PageLexicon)
        rows = (len(vectors[page.id]) - 8) // (embedder.dim * 4)
        assert made == page_lexicon(page_text(page)) and len(made.chunks) == rows


async def test_issue_28_a_lexicon_stored_without_its_chunks_is_made_again_by_the_worker(
    redis: aioredis.Redis,
) -> None:
    """RECALL-1, EPI-13 (issue 28): a page lexicon of the earlier shape (the whole page only, no
    chunks) is not read; the first search parses that page, ranks as with current lexicons and
    queues the chat, and the worker stores the page's lexicon with its chunks."""
    world, embedder, pages = await long_chat(redis)
    stored = await world.store.lexicons(CHAT)
    query = "which greyhound did my sister Lena adopt?"
    fresh = PageRecall(world.store, embedder, BruteForceVectorIndex())
    current = await fresh.search(CHAT, query, [p.id for p in pages], 5, now=world.clock.now())
    text = page_text(pages[3])
    mark = hashlib.blake2b(_analysis() + text.encode(), digest_size=8).digest()  # the earlier mark
    await redis.hset(
        KeyBuilder(prefix="a").chat(CHAT, "archive:lex"),
        pages[3].id,
        mark + msgspec.msgpack.encode(parse(text)),
    )
    fresh = PageRecall(world.store, embedder, BruteForceVectorIndex())
    assert await fresh.search(CHAT, query, [p.id for p in pages], 5, now=world.clock.now()) == current
    assert await world.store.take_embedding_queue() == [CHAT]
    await world.desk.embed_pages(CHAT)
    assert await world.store.lexicons(CHAT) == stored


async def test_recall_1_a_question_naming_a_day_finds_that_days_session_first(world: World) -> None:
    """RECALL-1 (issue 28): two sessions two days apart, both about cooking; a question naming
    one day ("on 03.05.2026", read against the turn's time) finds that day's page first, and
    naming the other day finds the other. The page text holds no date: the time comes from
    when each session was written."""
    await world.say(["I cooked a mushroom risotto for dinner tonight.", "It was lovely."], T0)
    await world.say(["I cooked a pumpkin soup for dinner tonight.", "Rather good."], T0 + timedelta(days=2))
    world.clock.current = T0 + timedelta(days=4)
    first, second = await world.desk.archive_sessions(CHAT)
    for day, page in (("01.05.2026", first), ("03.05.2026", second), ("3 May 2026", second)):
        found = await world.desk.search(CHAT, f"What did I cook for dinner on {day}?", QueryOptions())
        assert [f.item.id for f in found.items][:1] == [page.id], day
