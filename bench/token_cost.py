"""Token cost of a long chat: prompt tokens per turn with tiers and decay vs "send everything".

In process, on a private ``redis-server`` (free port, no persistence), with the real
``ChatService``, ``SummaryDesk`` (default ``SummaryPolicy``: chunks of 20, 3 chunks per job,
4:1 folds, 1,500 characters), the worker's ``JobRunner`` (drained after every turn, as an idle
worker would) and a ``MemoryDesk`` with the ``hash`` embedder (decay on, DEC-1..8) holding six
memories: one pinned, three that come up now and then (one of them quiet mid-chat), one that
comes up only early and one never mentioned.

Conversation: ``--messages`` (default 2,000) stored messages in one web room: two people (Ana,
Juno) alternating and the persona answering after every ``--reply-every`` (default 1) person
message, so 1,000 turns by default. People write 5-80 words (log-normal, median ~22), the
persona 20-80 (median ~45), from a bank of everyday English sentences; a few recurring facts
(Juno's cat Mochi, Ana's marathon, the Thursday book club, ...) come back now and then.
``--per-day`` messages (default 40) per chat day, so decay counts about 50 chat days.

Measured per turn (from the request log, ``ReplyDone.context.tokens``: the offline counter,
cl100k × 1.25 + 4 per message, summed over the prompt's slots): the prompt Hearth sent; and
"send everything": the same persona slot plus every earlier message raw, rendered as the window
renders them ("Name: text" for people), counted the same way. Tool definitions are left out of
both. Summary work: calls of the summarization model and their input (system + lines) and output
tokens; the scripted summarizer answers with 900-1,450 characters taken from its input (our
assumption of what a real model writes under the prompt's 1,500-character limit).

Run: ``.venv/bin/python bench/token_cost.py`` (``--messages 2000 --reply-every 1 --seed 7``).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import sys
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import redis.asyncio as aioredis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.embedding import make_embedder
from adapters.llm.tokens import OfflineTokenCounter, offline_count
from adapters.recall.search import EmbeddingRecall
from adapters.vector import FaissVectorIndex
from adapters.worker.jobs import JobRunner
from bench import datasets
from bench.redis_process import RedisProcess
from engine.memory import MemoryPolicy, MemoryRecord, personal_list, space_list
from engine.model import IncomingMessage, ModelSettings, Persona
from engine.ports import ModelDone, ModelEvent, TextDelta
from engine.prompt import Prompt
from engine.requestlog import Usage
from engine.service import ChatService, ReplyDone, ServicePolicy
from engine.service.memory import MemoryDesk
from engine.service.summaries import SummaryDesk
from engine.summary import SummaryPolicy, SummaryState
from engine.tools import ToolSpec
from engine.window import WindowPolicy
from storage.keys import KeyBuilder
from storage.redis_chat import RedisChatLock, RedisChatStore, RedisPersonaStore
from storage.redis_lore import RedisLoreStore
from storage.redis_memory import RedisMemoryStore
from storage.redis_memory_directory import RedisMemoryDirectory
from storage.redis_summary import RedisSummaryStore

ROOM = "web:club"
DAY0 = datetime(2026, 3, 2, 17, 0, tzinfo=UTC)
_BANK = datasets.load("token_cost")
PERSONA = Persona(**_BANK["persona"])
SENTENCES: tuple[str, ...] = tuple(_BANK["sentences"])
EMBER: tuple[str, ...] = tuple(_BANK["ember"])
FACTS = {  # fact -> (sentences a person says, who says it, (start, end, chance) spans of the chat)
    name: (tuple(fact["sentences"]), fact["who"], tuple(tuple(span) for span in fact["spans"]))
    for name, fact in _BANK["facts"].items()
}
MEMORIES = tuple((m["text"], m.get("owner"), m["pinned"]) for m in _BANK["memories"])
"""(text, owner or None for the room, pinned)."""
NAMES = {"web:ana": "Ana", "web:juno": "Juno"}


def write(rng: random.Random, bank: tuple[str, ...], words: int, lead: str = "") -> str:
    """A message of exactly ``words`` words (5-80) built from ``bank``, optionally opening with ``lead``."""
    out = lead.split()
    while len(out) < words:
        out += rng.choice(bank).split()
    text = " ".join(out[:words])
    return text if text[-1] in ".?!" else text.rstrip(",") + "."


def user_length(rng: random.Random) -> int:
    return max(5, min(80, round(rng.lognormvariate(math.log(22), 0.7))))


def persona_length(rng: random.Random) -> int:
    return max(20, min(80, round(rng.lognormvariate(math.log(45), 0.4))))


def fact_lead(rng: random.Random, user: str, progress: float) -> str:
    """A recurring-fact sentence this person might open with, or ""."""
    for sentences, who, spans in FACTS.values():
        if who not in (user, "any"):
            continue
        for start, end, chance in spans:
            if start <= progress < end and rng.random() < chance:
                return rng.choice(sentences)
    return ""


class PersonaModel:
    """The persona's chat model: realistic-length replies from Ember's sentence bank."""

    provider = "scripted"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed + 1)

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        """One reply of 20-80 words."""
        yield TextDelta(text=write(self.rng, EMBER, persona_length(self.rng)))
        yield ModelDone(usage=Usage())


class SummaryModel:
    """The summarization model: counts calls and tokens; answers 900-1,450 characters of its input."""

    provider = "scripted"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed + 2)
        self.calls = {"recent": 0, "merge": 0}
        self.input_tokens = self.output_tokens = 0

    async def stream(
        self, prompt: Prompt, settings: ModelSettings, persona_name: str, tools: tuple[ToolSpec, ...] = ()
    ) -> AsyncIterator[ModelEvent]:
        """A summary of the lines in the prompt's last message."""
        merging = "consecutive summaries" in prompt.messages[0].text
        self.calls["merge" if merging else "recent"] += 1
        self.input_tokens += sum(offline_count(m.text) for m in prompt.messages)
        lines = [line.split(": ", 1)[-1] for line in prompt.messages[-1].text.splitlines()]
        sentences = [s.strip() + "." for line in lines for s in line.split(".") if len(s.split()) > 3]
        target, text = self.rng.randint(900, 1_450), ""
        for sentence in sentences * 2:
            if len(text) + len(sentence) + 1 > target:
                break
            text += sentence + " "
        self.output_tokens += offline_count(text.strip())
        yield TextDelta(text=text.strip())
        yield ModelDone(usage=Usage())


class Clock:
    """The bench's clock: moves to each message's time."""

    def __init__(self) -> None:
        self.current = DAY0

    def now(self) -> datetime:
        """The current time."""
        return self.current


class Bench:
    """The wired service, its summary worker and what each turn cost."""

    def __init__(self, client: aioredis.Redis, seed: int) -> None:
        keys = KeyBuilder(prefix="bench")
        self.clock = Clock()
        personas = RedisPersonaStore(client, keys)
        self.summary_store = RedisSummaryStore(client, keys)
        self.summarizer = SummaryModel(seed)
        self.summaries = SummaryDesk(
            store=self.summary_store,
            model=self.summarizer,
            personas=personas,
            clock=self.clock,
            policy=SummaryPolicy(),
            window=WindowPolicy(),
            default_model="m",
        )
        embedder = make_embedder("hash")
        assert embedder is not None
        store = RedisMemoryStore(client, keys)
        self.memory = MemoryDesk(
            store=store,
            recall=EmbeddingRecall(store, embedder, FaissVectorIndex()),
            directory=RedisMemoryDirectory(client, keys),
            policy=MemoryPolicy(),
        )
        self.service = ChatService(
            chats=RedisChatStore(client, keys),
            lock=RedisChatLock(client, keys),
            personas=personas,
            lore=RedisLoreStore(client, keys),
            model=PersonaModel(seed),
            counter=OfflineTokenCounter(),
            clock=self.clock,
            policy=ServicePolicy(),
            memory=self.memory,
            summaries=self.summaries,
        )
        self.runner = JobRunner(self.summaries, self.summary_store, consumer="bench", block_ms=1)
        self.memory_ids: list[str] = []
        self.turns: list[dict[str, int]] = []  # per turn: tokens per slot, "everything", "messages"
        self.history = 0  # tokens of every stored message so far, rendered as the window renders them

    async def setup(self) -> None:
        await self.service.personas.put(PERSONA)
        for text, owner, pinned in MEMORIES:
            target = space_list("default", ROOM) if owner is None else personal_list("default", owner, ROOM)
            plan = await self.memory.add(
                persona="default", target=target, text=text, pinned=pinned, source="import", now=DAY0
            )
            self.memory_ids.append(plan.record.id)

    async def say(self, user: str, text: str, at: datetime, *, reply: bool, stored: int) -> None:
        self.clock.current = at
        message = IncomingMessage(
            platform="web", space=ROOM, chat=ROOM, user=user, display_name=NAMES[user], text=text, sent_at=at
        )
        self.history += offline_count(f"{NAMES[user]}: {text}")
        accepted = await self.service.accept(message, "default", reply=reply)
        events = [e async for e in accepted.events]
        if not reply:
            return
        done = events[-1]
        if not isinstance(done, ReplyDone):
            raise RuntimeError(f"turn failed: {done}")
        persona_slot = done.context.tokens.get("persona", 0)
        everything = persona_slot + self.history
        messages = done.context.window.messages
        self.turns.append(
            {**done.context.tokens, "everything": everything, "at": stored, "messages": messages}
        )
        self.history += offline_count(done.reply)
        while await self.runner.run_once():  # the worker picks the job up right after the turn
            pass


def pct(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]


class Result(msgspec.Struct, frozen=True, kw_only=True):
    """What one run measured."""

    messages: int
    elapsed: float
    turns: list[dict[str, int]]
    summarizer: SummaryModel
    state: SummaryState
    waiting: int
    records: list[MemoryRecord]


async def chat(bench: Bench, args: argparse.Namespace) -> None:
    """Two people alternating; the persona answers every ``reply_every`` person messages."""
    rng = random.Random(args.seed)
    stored, people, user = 0, 0, "web:ana"
    while stored < args.messages:
        day, slot = divmod(stored, args.per_day)
        at = DAY0 + timedelta(days=day, minutes=2 * slot)
        reply = (people + 1) % args.reply_every == 0 and stored + 2 <= args.messages
        lead = fact_lead(rng, user, stored / args.messages)
        # a message that brings a fact up is mostly about it: the fact and a few more words
        words = len(lead.split()) + rng.randint(0, 15) if lead else user_length(rng)
        text = write(rng, SENTENCES, words, lead)
        await bench.say(user, text, at, reply=reply, stored=stored + 1)
        stored, people = stored + 1 + reply, people + 1
        user = "web:juno" if user == "web:ana" else "web:ana"


async def run(args: argparse.Namespace) -> Result:
    """Start Redis, run the chat, collect the end state, stop Redis."""
    # --hz 500: the worker's short blocking XREADGROUP would otherwise wait for the next
    # server tick (100 ms at the default hz 10) whenever the queue is empty
    server = RedisProcess("--hz", "500")
    try:
        client = await server.client()
        bench = Bench(client, args.seed)
        await bench.setup()
        started = time.perf_counter()
        await chat(bench, args)
        elapsed = time.perf_counter() - started
        state, waiting = await bench.summaries.view(ROOM)
        records = [(await bench.memory.locate(i))[1] for i in bench.memory_ids]
        await client.aclose()
    finally:
        server.stop()
    return Result(
        messages=args.messages,
        elapsed=elapsed,
        turns=bench.turns,
        summarizer=bench.summarizer,
        state=state,
        waiting=waiting,
        records=records,
    )


OUTPUT_PRICE = 5  # Claude list prices put an output token at 5x an input token


def prompt_table(turns: list[dict[str, int]], hearth: list[int], everything: list[int]) -> None:
    """Median / p90 / max / total of both prompts, then how they grow along the chat."""
    print("| prompt tokens per turn | median | p90 | max | total over the chat |")
    print("|---|---|---|---|---|")
    for name, values in (("Hearth (window + tiers + memories)", hearth), ('"send everything"', everything)):
        row = f"| {name} | {statistics.median(values):,.0f} | {pct(values, 0.9):,} | {max(values):,} "
        print(row + f"| {sum(values):,} |")
    tail = len(turns) * 3 // 4
    late, late_all = statistics.median(hearth[tail:]), statistics.median(everything[tail:])
    print(
        f"ratio of totals: {sum(everything) / sum(hearth):.1f}x; last quarter of the turns: "
        f"Hearth median {late:,.0f}, send everything {late_all:,.0f}"
    )
    print("\n| at message | Hearth | send everything | window (messages / tokens) | summaries | memories |")
    print("|---|---|---|---|---|---|")
    for mark in sorted({100, 250, 500, 1000, 1500, 2000, turns[-1]["at"]}):
        if mark > turns[-1]["at"]:
            continue
        i = min(range(len(turns)), key=lambda j: abs(turns[j]["at"] - mark))
        t = turns[i]
        memories = sum(t.get(k, 0) for k in ("pinned_memories", "active_memories", "recalled"))
        print(
            f"| {t['at']:,} | {hearth[i]:,} | {everything[i]:,} | {t['messages']} / {t.get('window', 0):,} "
            f"| {t.get('summaries', 0):,} | {memories} |"
        )
    slots = {k: v for k, v in turns[-1].items() if k not in ("everything", "at", "messages") and v}
    print(f"last turn by slot: {slots}")
    most = {
        k: max(t.get(k, 0) for t in turns) for k in ("window", "summaries", "active_memories", "recalled")
    }
    print(f"largest slot over all turns: {most}")


def summary_work(messages: int, summarizer: SummaryModel, state: SummaryState, waiting: int) -> int:
    """Tiers at the end and the summarizer's calls and tokens; returns its input-equivalent tokens."""
    levels = {lvl: len(state.level(lvl)) for lvl in ("long_term", "merged", "recent")}
    covered = sum(t.messages for t in state.tiers)
    print(f"tiers at the end: {levels}, covering {covered} messages; {waiting} waiting (SUM-4)")
    calls = sum(summarizer.calls.values())
    inp, out = summarizer.input_tokens, summarizer.output_tokens
    print(f"summarizer: {calls} calls {summarizer.calls}, {inp:,} input / {out:,} output tokens")
    print(
        f"per message: {calls / messages:.3f} calls, {inp / messages:.0f} input + {out / messages:.0f} "
        f"output tokens = {(inp + OUTPUT_PRICE * out) / messages:.0f} input-equivalent"
    )
    return inp + OUTPUT_PRICE * out


def memory_table(records: list[MemoryRecord], turns: list[dict[str, int]]) -> None:
    """Where each memory ended (decay, DEC-6/7) and how often one was recalled."""
    for r in records:
        where = "pinned" if r.pinned else ("dormant" if r.unused_days >= 7 else "active")
        print(f"  memory {r.text!r}: {r.unused_days} unused chat days, {where}")
    recalled = [t["at"] for t in turns if t.get("recalled")]
    print(f"turns with a recalled memory: {len(recalled)} (at messages {recalled})")


def report(run: Result) -> None:
    """Print every figure of the run."""
    turns = run.turns
    hearth = [sum(v for k, v in t.items() if k not in ("everything", "at", "messages")) for t in turns]
    everything = [t["everything"] for t in turns]
    per_turn = 1000 * run.elapsed / len(turns)
    print(f"{run.messages:,} messages, {len(turns):,} turns, {run.elapsed:.1f} s ({per_turn:.1f} ms/turn)")
    prompt_table(turns, hearth, everything)
    work = summary_work(run.messages, run.summarizer, run.state, run.waiting)
    print(
        f"summary work vs Hearth's chat input: {work / sum(hearth):.1%} (input-equivalent); "
        f"ratio of totals with it: {sum(everything) / (sum(hearth) + work):.1f}x"
    )
    memory_table(run.records, turns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=2_000)
    parser.add_argument("--reply-every", type=int, default=1, help="person messages per persona reply")
    parser.add_argument("--per-day", type=int, default=40, help="stored messages per chat day")
    parser.add_argument("--seed", type=int, default=datasets.seed("token_cost"))
    report(asyncio.run(run(parser.parse_args())))


if __name__ == "__main__":
    main()
