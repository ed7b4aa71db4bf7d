"""CAST-1..6 from outside (issue 33): several personas in one web room, through the operator REST
API of a running web process, with the fake Anthropic server (what each persona's request held)
or the offline model (a long natural-order chat)."""

from __future__ import annotations

import json
import secrets
from typing import Any

import pytest

from tests.e2e.api_client import HearthClient
from tests.e2e.test_web_app import Visitor
from tests.e2e.test_web_ux_api import converse, error_of, people
from tests.fakes.anthropic_server import FakeAnthropic, Reply, ToolUse
from tests.fixtures.servers import WebApp

pytestmark = pytest.mark.e2e

__all__ = ["people"]  # the fixture, shared with the web UX API tests

LYRA_PROMPT = "You are Lyra, a wandering bard who speaks in short rhymes."
BRAM_PROMPT = "You are Bram, the village smith, gruff and practical."
SECRET = "Ana paints with cobalt blue."


async def _personas(api: HearthClient, *names: str) -> list[str]:
    """Create one persona per name (a fresh id each run); their ids in order."""
    ids = []
    tag = secrets.token_hex(3)
    for name in names:
        persona = f"{name.lower()}-{tag}"
        prompt = {"Lyra": LYRA_PROMPT, "Bram": BRAM_PROMPT}.get(name, f"You are {name}.")
        made = await api.http.post(
            "/api/personas", json={"id": persona, "name": name, "system_prompt": prompt}
        )
        assert made.status_code == 201, made.text
        ids.append(persona)
    return ids


async def _cast(api: HearthClient, chat: str, personas: list[str], **extra: Any) -> dict[str, Any]:
    put = await api.http.put(f"/api/chats/{chat}/personas", json={"personas": personas, **extra})
    assert put.status_code == 200, put.text
    return dict(put.json())


def _requests(fake: FakeAnthropic) -> list[dict[str, Any]]:
    return [r.body for r in fake.requests if r.path == "/v1/messages"]


def _system(body: dict[str, Any]) -> str:
    system = body.get("system") or ""
    return system if isinstance(system, str) else " ".join(b.get("text", "") for b in system)


def _turn_texts(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every text block of the request's messages."""
    out = []
    for message in body["messages"]:
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out.extend((message["role"], b["text"]) for b in blocks if b.get("type") == "text")
    return out


async def test_cast_1_two_personas_answer_in_their_own_voices_with_their_own_memories(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 33: "Bram, what do you think?" is answered by Bram with Bram's system prompt, and his
    request's window holds Lyra's earlier reply attributed to Lyra; a personal memory saved while
    talking to Lyra is in Lyra's later prompt and not in Bram's; replies, history and the request
    log name the persona (CAST-1, CAST-2, MEM-1)."""
    api = HearthClient(claude_app.base_url)
    lyra, bram = await _personas(api, "Lyra", "Bram")
    chat = f"tavern-{secrets.token_hex(3)}"
    assert await _cast(api, chat, [lyra, bram]) == {
        "chat": f"web:{chat}",
        "personas": [lyra, bram],
        "strategy": "natural",
        "max_replies": 1,
        "muted": [],
    }
    save = ToolUse(name="save_memory", input={"text": SECRET, "scope": "personal"})
    anthropic_fake.script(
        Reply(text="A colour kept, a secret swept.", tool_uses=(save,)),
        Reply(text="Your blue is safe with me, Ana."),
        Reply(text="Hammer first, questions later."),
        Reply(text="Cobalt blue, a painter true."),
    )
    first = await api.send(chat, "Lyra, keep in mind what I paint with.", user="ana", name="Ana")
    assert first.status_code == 200, first.text
    assert first.json()["persona"] == lyra and first.json()["persona_name"] == "Lyra"
    lyra_said = first.json()["reply"]

    asked = await api.send(chat, "Bram, what do you think?", user="ana", name="Ana")
    assert asked.status_code == 200, asked.text
    body = asked.json()
    assert body["persona"] == bram and body["reply"] == "Hammer first, questions later."
    assert [(r["persona"], r["persona_name"]) for r in body["replies"]] == [(bram, "Bram")]

    requests = _requests(anthropic_fake)
    assert len(requests) == 3
    lyra_request, bram_request = requests[0], requests[2]
    assert LYRA_PROMPT in _system(lyra_request) and BRAM_PROMPT not in _system(lyra_request)
    assert BRAM_PROMPT in _system(bram_request) and LYRA_PROMPT not in _system(bram_request)
    assert ("user", f"Lyra: {lyra_said}") in _turn_texts(bram_request)  # attributed, not his own
    assert "cobalt" not in json.dumps(bram_request).lower()  # Lyra's memory of Ana (MEM-1)

    again = await api.send(chat, "Lyra, what do I paint with?", user="ana", name="Ana")
    assert again.status_code == 200 and again.json()["persona"] == lyra, again.text
    lyra_again = _requests(anthropic_fake)[3]
    assert SECRET in _system(lyra_again) + json.dumps(lyra_again["messages"])
    assert ("user", "Bram: Hammer first, questions later.") in _turn_texts(lyra_again)

    log = await api.turn(f"web:{chat}", body["turn"])
    assert log["request"]["persona"] == bram
    replies = [m for m in await api.history(chat) if m["role"] == "assistant" and m["id"] != "m0"]
    assert [(m["persona"], m["name"]) for m in replies] == [(lyra, "Lyra"), (bram, "Bram"), (lyra, "Lyra")]
    await api.close()


async def test_cast_5_a_reply_that_names_another_member_lets_it_follow_within_n(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-5 (issue 33): with N = 2, Lyra's reply that asks Bram lets Bram answer the same
    message after her, and his request holds her reply; regenerating his reply is written by
    him again, after hers; with N = 1 he does not follow."""
    api = HearthClient(claude_app.base_url)
    lyra, bram = await _personas(api, "Lyra", "Bram")
    chat = f"duet-{secrets.token_hex(3)}"
    await _cast(api, chat, [lyra, bram], max_replies=2)
    anthropic_fake.script(Reply(text="A tune for you. What say you, Bram?"), Reply(text="Too loud."))
    sent = await api.send(chat, "Lyra, play us a song.", user="ana", name="Ana")
    assert sent.status_code == 200, sent.text
    replies = sent.json()["replies"]
    assert [(r["persona"], r["reply"]) for r in replies] == [
        (lyra, "A tune for you. What say you, Bram?"),
        (bram, "Too loud."),
    ]
    bram_request = _requests(anthropic_fake)[1]
    assert ("user", "Lyra: A tune for you. What say you, Bram?") in _turn_texts(bram_request)
    history = await api.history(chat)
    assert [m.get("persona") for m in history if m["role"] == "assistant" and m["id"] != "m0"] == [lyra, bram]

    anthropic_fake.script(Reply(text="Far too loud."))  # regenerating a reply keeps its writer
    again = await api.http.post(f"/api/chats/{chat}/turns/{replies[1]['turn']}/regenerate")
    assert again.status_code == 200, again.text
    assert again.json()["persona"] == bram and again.json()["reply"] == "Far too loud."
    regenerated = _requests(anthropic_fake)[2]
    assert BRAM_PROMPT in _system(regenerated)
    assert ("user", "Lyra: A tune for you. What say you, Bram?") in _turn_texts(regenerated)
    shown = [(m["persona"], m["text"]) for m in await api.history(chat) if m["role"] == "assistant"][-2:]
    assert shown == [(lyra, "A tune for you. What say you, Bram?"), (bram, "Far too loud.")]

    await _cast(api, chat, [lyra, bram], max_replies=1)
    anthropic_fake.script(Reply(text="Once more, Bram?"))
    single = await api.send(chat, "Lyra, again!", user="ana", name="Ana")
    assert [r["persona"] for r in single.json()["replies"]] == [lyra]
    assert len(_requests(anthropic_fake)) == 4
    await api.close()


async def test_cast_4_manual_answers_only_when_named_or_asked(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 33: in ``manual`` order nobody answers a message that names no one (it is stored,
    no model request), the named member answers, ``persona`` in the body asks one, and
    ``POST /answer`` with ``persona`` makes that member speak next (CAST-4)."""
    api = HearthClient(claude_app.base_url)
    lyra, bram = await _personas(api, "Lyra", "Bram")
    chat = f"quiet-{secrets.token_hex(3)}"
    await _cast(api, chat, [lyra, bram], strategy="manual")
    silent = await api.send(chat, "Good evening, everyone.", user="ana")
    assert silent.status_code == 200, silent.text
    assert silent.json()["turn"] is None and silent.json()["reply"] is None
    assert silent.json()["replies"] == []
    assert _requests(anthropic_fake) == []
    assert [m["text"] for m in await api.history(chat) if m["id"] != "m0"] == ["Good evening, everyone."]

    anthropic_fake.script(Reply(text="Evening."), Reply(text="Hello, hello."), Reply(text="And me."))
    named = await api.send(chat, "Bram, good evening.", user="ana")
    assert named.json()["persona"] == bram, named.text
    chosen = await api.send(chat, "Good evening to you.", user="ana", persona=lyra)
    assert chosen.json()["persona"] == lyra, chosen.text
    assert BRAM_PROMPT in _system(_requests(anthropic_fake)[0])
    assert LYRA_PROMPT in _system(_requests(anthropic_fake)[1])

    nxt = await api.http.post(f"/api/chats/{chat}/answer", json={"persona": bram})
    assert nxt.status_code == 200, nxt.text
    assert nxt.json()["persona"] == bram and nxt.json()["reply"] == "And me."
    third = _requests(anthropic_fake)[2]
    assert ("user", "Lyra: Hello, hello.") in _turn_texts(third)
    tail = [(m["role"], m.get("persona")) for m in (await api.history(chat))[-3:]]
    assert tail == [("user", lyra), ("assistant", lyra), ("assistant", bram)]

    stranger = await api.http.post(f"/api/chats/{chat}/answer", json={"persona": "default"})
    assert stranger.status_code == 409 and stranger.json()["error"]["code"] == "not_in_cast"
    await api.close()


async def test_cast_1_a_bad_cast_is_refused_in_the_contract_shape(claude_app: WebApp) -> None:
    """CAST-1 (issue 33): ``PUT /personas`` refuses an unknown persona, an empty list, duplicates,
    a bad strategy, too many members, a bad N, a muted stranger and unknown fields with a 422
    naming the problem, and keeps the cast it had; ``DELETE`` removes the cast."""
    api = HearthClient(claude_app.base_url)
    lyra, bram = await _personas(api, "Lyra", "Bram")
    chat = f"strict-{secrets.token_hex(3)}"
    empty = await api.http.get(f"/api/chats/{chat}/personas")
    assert empty.status_code == 200 and empty.json()["personas"] == []
    await _cast(api, chat, [lyra, bram], strategy="list")
    cases = [
        ({"personas": [lyra, "nobody-here"]}, "unknown_persona"),
        ({"personas": []}, "cast_empty"),
        ({"personas": [lyra, lyra]}, "cast_duplicate"),
        ({"personas": [lyra], "strategy": "loudest"}, "bad_strategy"),
        ({"personas": [f"p{i}" for i in range(9)]}, "cast_too_large"),
        ({"personas": [lyra, bram], "max_replies": 3}, "bad_max_replies"),
        ({"personas": [lyra], "muted": [bram]}, "muted_not_in_cast"),
        ({"personas": [lyra], "loud": True}, "invalid_body"),
    ]
    for body, code in cases:
        refused = await api.http.put(f"/api/chats/{chat}/personas", json=body)
        assert refused.status_code == 422, (body, refused.text)
        assert refused.json()["error"]["code"] == code, refused.text
        assert refused.json()["error"]["message"]
    kept = (await api.http.get(f"/api/chats/{chat}/personas")).json()
    assert kept["personas"] == [lyra, bram] and kept["strategy"] == "list"
    dropped = await api.http.delete(f"/api/chats/{chat}/personas")
    assert dropped.status_code == 200 and dropped.json()["personas"] == []
    await api.close()


TEXTS = [
    "Lyra, a song?",
    "What a night.",
    "Bram and Ada, how goes the forge?",
    "Ada?",
    "Anyone awake?",
    "Bram, Bram, Bram!",
    "Lyra and Bram, settle this.",
    "Tell me more.",
]


async def test_cast_6_forty_natural_messages_never_three_in_a_row_and_at_most_n(offline_app: WebApp) -> None:
    """Issue 33: a natural-order chat of 40 messages (three personas, N = 2, the offline model)
    never lets one persona answer three times in a row, never gives a message more than N
    replies, and each reply is in its persona's voice (its name in the labelled reply)."""
    api = HearthClient(offline_app.base_url)
    members = await _personas(api, "Lyra", "Bram", "Ada")
    names = dict(zip(members, ["Lyra", "Bram", "Ada"], strict=True))
    chat = f"long-{secrets.token_hex(3)}"
    await _cast(api, chat, members, max_replies=2)
    for i in range(40):
        sent = await api.send(chat, f"{TEXTS[i % len(TEXTS)]} ({i})", user="ana", name="Ana")
        assert sent.status_code == 200, sent.text
        replies = sent.json()["replies"]
        assert 1 <= len(replies) <= 2
        for reply in replies:
            assert f"This is {names[reply['persona']]}'s offline stand-in" in reply["reply"]
            assert reply["reply"].count("offline stand-in") == 1  # it echoes Ana, not a member
    history = await api.http.get(f"/api/chats/{chat}/messages", params={"limit": 500})
    messages = history.json()["messages"]
    replies = [m for m in messages if m["role"] == "assistant" and m["id"] != "m0"]  # m0: the greeting
    speakers = [m["persona"] for m in replies]
    assert len(speakers) >= 40
    assert all(speakers[i : i + 3] != [speakers[i]] * 3 for i in range(len(speakers) - 2)), speakers
    per_message: dict[str, int] = {}
    for m in replies:
        per_message[m["reply_to"]] = per_message.get(m["reply_to"], 0) + 1
    assert len(per_message) == 40 and max(per_message.values()) <= 2
    assert set(speakers) == set(members)  # everybody got a word in
    await api.close()


async def test_cast_1_prompt_caching_stays_effective_for_each_persona(
    claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """CAST-1 (issue 33): in a two-persona chat each persona's prompt keeps a stable prefix of its
    own, so from its second turn on every request reads from the cache; the share read over the
    whole chat is the figure in docs/BENCHMARKS.md ("Casts")."""
    api = HearthClient(claude_app.base_url)
    lyra, bram = await _personas(api, "Lyra", "Bram")
    chat = f"cache-{secrets.token_hex(3)}"
    await _cast(api, chat, [lyra, bram])
    usage: list[tuple[str, dict[str, int]]] = []
    for i in range(12):
        name = "Lyra" if i % 2 == 0 else "Bram"
        sent = await api.send(chat, f"{name}, tell me about day {i} of the journey.", user="ana", name="Ana")
        assert sent.status_code == 200, sent.text
        log = await api.turn(f"web:{chat}", sent.json()["turn"])
        usage.append((sent.json()["persona"], log["request"]["usage"]))
    assert [p for p, _ in usage] == [lyra, bram] * 6
    for persona in (lyra, bram):
        turns = [u for p, u in usage if p == persona]
        assert all(u["cache_read_input_tokens"] > 0 for u in turns[1:]), turns
    read = sum(u["cache_read_input_tokens"] for _, u in usage)
    total = sum(
        u["input_tokens"] + u["cache_creation_input_tokens"] + u["cache_read_input_tokens"] for _, u in usage
    )
    print(f"cast cache-read share over {len(usage)} turns: {read / total:.1%}")
    assert read / total > 0.5
    await api.close()


async def test_cast_4_the_browser_api_and_socket_keep_casts_to_their_owners(
    people: tuple[Visitor, Visitor], claude_app: WebApp, anthropic_fake: FakeAnthropic
) -> None:
    """Issue 33 (CAST-1, CAST-4) through ``/app`` and the WebSocket: Alice casts her own private
    persona with a shared one, Bob can neither use her persona in his cast (422
    ``unknown_persona``) nor read or set her chat's cast (403); in manual order her socket gets a
    ``silent`` frame for a message naming no one, a ``speaker`` makes that member answer (its
    ``done`` names it), and an ``answer`` frame with ``persona`` makes another speak next."""
    alice, bob = people
    api = HearthClient(claude_app.base_url)
    (bram,) = await _personas(api, "Bram")
    await api.close()
    made = await alice.post("/app/personas", {"name": "Lyra", "system_prompt": LYRA_PROMPT})
    assert made.status_code == 201, made.text
    lyra = made.json()["persona"]["id"]
    chat = alice.session["chat"]
    url = f"/app/chats/{chat}/personas"
    body = {"personas": [lyra, bram], "strategy": "manual"}
    put = await alice.http.put(url, json=body, headers=alice.headers())
    assert put.status_code == 200 and put.json()["personas"] == [lyra, bram], put.text
    theirs = await bob.http.put(
        f"/app/chats/{bob.session['chat']}/personas", json=body, headers=bob.headers()
    )
    assert theirs.status_code == 422 and error_of(theirs) == "unknown_persona"
    assert (await bob.http.get(url)).status_code == 403
    assert (await bob.http.put(url, json=body, headers=bob.headers())).status_code == 403

    anthropic_fake.script(Reply(text="At your service."), Reply(text="Sparks fly."))
    silent, answered, nxt = await converse(
        claude_app,
        alice,
        chat,
        {"type": "message", "text": "Anyone there?"},
        {"type": "message", "text": "A song, please.", "speaker": lyra},
        {"type": "answer", "persona": bram},
    )
    assert silent["type"] == "silent" and silent["message"]
    assert answered["type"] == "done" and answered["persona"] == lyra and answered["persona_name"] == "Lyra"
    assert answered["reply"] == "At your service." and answered["reply_message"]
    assert nxt["type"] == "done" and nxt["persona"] == bram and nxt["reply"] == "Sparks fly."
    assert LYRA_PROMPT in _system(_requests(anthropic_fake)[0])
    assert BRAM_PROMPT in _system(_requests(anthropic_fake)[1])
    session = await alice.open()
    writers = [(m["role"], m.get("persona")) for m in session["messages"] if m["id"] != "m0"]
    assert writers[-2:] == [("assistant", lyra), ("assistant", bram)]
    asked = next(m for m in session["messages"] if m["text"] == "A song, please.")
    gone = await alice.http.delete(f"/app/chats/{chat}/messages/{asked['id']}", headers=alice.headers())
    assert gone.status_code == 200, gone.text
    assert len(gone.json()["also"]) == 2  # both members' replies go with it
    left = [m["text"] for m in (await alice.open())["messages"]]
    assert "A song, please." not in left and "At your service." not in left and "Sparks fly." not in left
