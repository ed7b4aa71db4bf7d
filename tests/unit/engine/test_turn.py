"""The turn planned without IO (issue 14, ``engine.turn``): window, plan, commit, in milliseconds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from engine.lorebook import LoreResult, LoreState
from engine.memory import MemoryTurn
from engine.memory.tools import MEMORY_OFF, MemoryContext
from engine.model import ModelSettings, Persona, StoredMessage, Turn
from engine.ports import TurnInputs
from engine.summary import SummaryState
from engine.tools import ARCHIVE_TOOLS, MEMORY_TOOLS
from engine.turn import BACKDATED, Draft, Gathered, fail_turn, finish_turn, frame_turn, plan_turn, reply_time
from engine.window import WindowPolicy

T0 = datetime(2026, 5, 4, 18, 0, tzinfo=UTC)
CHAT = "web:inn"
PERSONA = Persona(id="ember", name="Ember", system_prompt="You are Ember, who keeps the inn's fire.")


def said(
    n: int,
    text: str,
    *,
    user: str = "web:juno",
    name: str = "Juno",
    guest: bool = False,
    listened: bool = False,
) -> StoredMessage:
    return StoredMessage(
        id=f"m{n}",
        chat=CHAT,
        role="user",
        user=user,
        name=name,
        text=text,
        sent_at=T0 + timedelta(minutes=n),
        position=float(n),
        tokens=5,
        persona="ember",
        guest=guest,
        listened=listened,
    )


def replied(n: int, text: str) -> StoredMessage:
    return StoredMessage(
        id=f"r-t{n}",
        chat=CHAT,
        role="assistant",
        user="persona:ember",
        name="Ember",
        text=text,
        sent_at=T0 + timedelta(minutes=n),
        position=n + 0.5,
        tokens=5,
        persona="ember",
        reply_to=f"m{n}",
    )


LOG = (
    said(1, "Evening! Is the stew ready?"),
    replied(1, "Nearly, sit by the fire."),
    said(2, "Lovely, thank you."),
    said(3, "Can my friend join us?", user="web:tam", name="Tam", guest=True),
)


def gathered(inputs: TurnInputs, *, memory: MemoryContext = MEMORY_OFF, **options: object) -> Gathered:
    assert inputs.answered is not None
    frame = frame_turn(inputs, inputs.answered, policy=WindowPolicy(), context_window=200_000, summaries=True)
    return Gathered(
        frame=frame,
        persona=PERSONA,
        settings=ModelSettings(name="claude-test-1"),
        provider="anthropic",
        lore=LoreResult(state=LoreState()),
        memory=memory,
        turn_id="t3",
        started=T0 + timedelta(minutes=3),
        **options,  # type: ignore[arg-type]  # the optional Gathered fields of each test
    )


def test_a_turn_answers_every_message_since_the_last_reply_and_knows_their_authors() -> None:
    frame = frame_turn(
        TurnInputs(answered=LOG[-1], messages=LOG),
        LOG[-1],
        policy=WindowPolicy(),
        context_window=200_000,
        summaries=False,
    )
    assert frame.answers == ("m2", "m3")
    assert frame.participants == ("web:juno", "web:tam")
    assert frame.guests == ("web:tam",)
    assert [m.id for m in frame.window.messages] == ["m1", "r-t1", "m2", "m3"]


def test_sum3_summarized_messages_reach_the_prompt_only_through_their_tiers() -> None:
    inputs = TurnInputs(answered=LOG[-1], messages=LOG, summary=SummaryState(upto=1.5))
    on = frame_turn(inputs, LOG[-1], policy=WindowPolicy(), context_window=200_000, summaries=True)
    off = frame_turn(inputs, LOG[-1], policy=WindowPolicy(), context_window=200_000, summaries=False)
    assert [m.id for m in on.window.messages] == ["m2", "m3"]
    assert [m.id for m in off.window.messages] == ["m1", "r-t1", "m2", "m3"]
    assert not off.at_greeting  # the persona has replied already


def test_plan_logs_every_prompt_message_with_its_estimate_and_the_turn_it_records() -> None:
    plan = plan_turn(gathered(TurnInputs(answered=LOG[-1], messages=LOG)), estimate=len)
    assert plan.turn.answers == ("m2", "m3") and plan.turn.position == 3.0 and plan.turn.status == "done"
    assert plan.log.model == "claude-test-1" and plan.log.turn == "t3"
    assert any("Can my friend join us?" in m.text for m in plan.prompt.messages)
    assert plan.tools == ()  # no memory desk, no archive


def test_mem6a_the_model_gets_the_memory_tools_only_when_the_turn_may_write() -> None:
    inputs = TurnInputs(answered=LOG[-1], messages=LOG)
    writer = MemoryContext(enabled=True, can_write=True)
    reader = MemoryContext(enabled=True, can_write=False)
    assert [
        t.name for t in plan_turn(gathered(inputs, memory=writer, memory_tools=True), estimate=len).tools
    ] == [t.name for t in MEMORY_TOOLS]
    assert plan_turn(gathered(inputs, memory=reader, memory_tools=True), estimate=len).tools == ()
    assert plan_turn(gathered(inputs, memory=reader, archive_tools=True), estimate=len).tools == ARCHIVE_TOOLS


def test_a_finished_turn_stores_its_reply_after_the_answered_message_and_supersedes_the_old_one() -> None:
    old = Turn(
        id="t2",
        chat=CHAT,
        persona="ember",
        answers=("m2", "m3"),
        position=3.0,
        status="done",
        created_at=T0,
        reply_message="r-t2",
    )
    g = gathered(TurnInputs(answered=LOG[-1], messages=LOG), replaces=old)
    plan = plan_turn(g, estimate=len)
    draft = Draft()
    draft.text.append("Of course, pull up a chair.")
    commit = finish_turn(
        g,
        plan,
        draft,
        text="Of course, pull up a chair.",
        reply_tokens=7,
        now=T0 + timedelta(minutes=4),
        duration_ms=40,
    )
    assert commit.reply is not None and commit.reply.reply_to == "m3" and commit.reply.tokens == 7
    assert commit.turn.reply_message == "r-t3" and commit.turn.replaces == "t2"
    assert commit.superseded is not None and commit.superseded.status == "superseded"
    assert commit.log.duration_ms == 40
    assert commit.lore_state is None  # no lore in play: the chat's state is left as it is


def test_a_failed_turn_records_the_error_and_stores_no_reply() -> None:
    g = gathered(TurnInputs(answered=LOG[-1], messages=LOG))
    commit = fail_turn(
        plan_turn(g, estimate=len), Draft(), code="llm_unavailable", message="timeout", duration_ms=12
    )
    assert commit.reply is None and commit.superseded is None
    assert commit.turn.status == "failed" and commit.turn.error_code == "llm_unavailable"
    assert commit.log.error == "llm_unavailable: timeout"


def test_a_reply_follows_a_back_dated_message_and_takes_the_clock_otherwise() -> None:
    """Issue 29: an imported conversation keeps its own timeline (archive sessions split by it)."""
    started = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    now = started + timedelta(seconds=3)
    live = started - timedelta(seconds=40)  # waited for the chat's lock: still live
    assert reply_time(live, started=started, now=now) == now
    old = datetime(2026, 1, 10, 10, 0, tzinfo=UTC)
    assert reply_time(old, started=started, now=now) == old + timedelta(seconds=3)
    edge = started - BACKDATED - timedelta(seconds=1)
    assert reply_time(edge, started=started, now=now) == edge + timedelta(seconds=3)


LURKED = (
    said(1, "hello", user="web:dave", name="Dave"),
    replied(1, "Hi Dave!"),
    said(2, "lurking", user="web:carol", name="Carol", listened=True),
    said(3, "what's new?", user="web:dave", name="Dave"),
)


def test_mem4_a_listened_to_message_is_context_and_its_author_no_participant() -> None:
    """Issue 29: carol's listened-to line is in the window, but the turn replies to dave only."""
    frame = frame_turn(
        TurnInputs(answered=LURKED[-1], messages=LURKED),
        LURKED[-1],
        policy=WindowPolicy(),
        context_window=200_000,
        summaries=False,
    )
    assert frame.answers == ("m3",)
    assert frame.participants == ("web:dave",) and frame.guests == ()
    assert [m.id for m in frame.window.messages] == ["m1", "r-t1", "m2", "m3"]
    plan = plan_turn(gathered(TurnInputs(answered=LURKED[-1], messages=LURKED)), estimate=len)
    assert plan.turn.answers == ("m3",)
    assert any(m.text == "Carol: lurking" for m in plan.prompt.messages)  # context, with her name
    # the cache mark still falls before every message the model has not seen yet
    window = [i for i, m in enumerate(plan.prompt.messages) if m.slot == "window"]
    assert plan.prompt.cache_marks and max(plan.prompt.cache_marks) < window[-2]


def test_mem4_a_turn_answering_several_people_counts_each_but_not_the_listener() -> None:
    log = (
        said(1, "hi all", user="web:dave", name="Dave"),
        said(2, "just reading", user="web:carol", name="Carol", listened=True),
        said(3, "me too!", user="web:erin", name="Erin"),
    )
    frame = frame_turn(
        TurnInputs(answered=log[-1], messages=log),
        log[-1],
        policy=WindowPolicy(),
        context_window=200_000,
        summaries=False,
    )
    assert frame.answers == ("m1", "m3") and frame.participants == ("web:dave", "web:erin")


def test_mem4_save_memory_lists_the_people_it_may_write_about_by_id() -> None:
    """The model names owners by platform id: the tool tells it whose ids it may use (issue 29)."""
    turn = MemoryTurn(persona="ember", space=CHAT, participants=("web:juno", "web:tam"), guests=("web:tam",))
    writer = MemoryContext(enabled=True, turn=turn, can_write=True)
    tools = plan_turn(
        gathered(TurnInputs(answered=LOG[-1], messages=LOG), memory=writer, memory_tools=True), estimate=len
    ).tools
    save = next(t for t in tools if t.name == "save_memory")
    assert '"web:juno" ("Juno")' in save.description
    assert "web:tam" not in save.description  # a guest: nothing is saved about them (MEM-8)
