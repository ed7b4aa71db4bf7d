"""The browser's session view (PLT-4): who it is, its rooms and branches, its chat with the
chosen persona and that chat's history (``GET /app/session``)."""

from __future__ import annotations

import re

from msgspec import UNSET

from adapters.web.actions.chat import history
from adapters.web.actions.messages import branch_chat, root_chat
from adapters.web.actions.personas import avatar_url, persona_summaries, visible_persona
from adapters.web.schemas.chat import (
    Branch,
    ModelInfo,
    PersonaCard,
    Room,
    SessionMessage,
    SessionView,
)
from adapters.web.session import MAIN_ROOM, BrowserSession, chat_for
from adapters.web.state import WebState
from engine.errors import NotFound
from engine.model import StoredMessage
from engine.offline import OFFLINE_LABEL
from engine.prompt import fill_macros

__all__ = ["HISTORY", "model_info", "session_view"]

HISTORY = 200
"""How many of the chat's newest messages the page gets."""

_MAIN = Room(slug=MAIN_ROOM, title="Main room")
_BRANCH = re.compile(r"[0-9a-f]{8}")


def model_info(state: WebState) -> ModelInfo:
    """Which model answers, labelled for people (RUN-2)."""
    if state.settings.offline:
        return ModelInfo(name="offline", offline=True, label=OFFLINE_LABEL)
    name = state.settings.model
    claude = state.settings.llm.provider == "anthropic"
    label = f"Claude ({name})" if claude else f"{name} (OpenAI-compatible)"
    return ModelInfo(name=name, offline=False, label=label)


async def _rooms(web: WebState, session: BrowserSession) -> list[Room]:
    if session.guest or web.accounts is None:
        return [_MAIN]
    return [_MAIN, *(Room(slug=r.slug, title=r.title) for r in await web.accounts.store.rooms(session.slug))]


async def _branches(web: WebState, chat: str) -> list[Branch]:
    if web.chat_controls is None:
        return []
    return [
        Branch(id=b.id, title=b.title, chat=b.chat) for b in await web.chat_controls.branches(root_chat(chat))
    ]


async def _history(web: WebState, session: BrowserSession, chat: str) -> list[SessionMessage]:
    """The chat's newest messages; each persona reply with alternatives carries ``swipes``."""
    swipes = await web.chat_controls.all_swipes(chat) if web.chat_controls else {}

    def view(m: StoredMessage) -> SessionMessage:
        alternatives = swipes.get(m.reply_to or "") if m.role == "assistant" else None
        return SessionMessage(
            id=m.id,
            role=m.role,
            name=m.name,
            text=m.text,
            sent_at=m.sent_at,
            turn=m.turn,
            mine=m.role == "user" and m.user == session.user,
            swipes=UNSET if alternatives is None else alternatives,
            images=list(m.images) if m.images else UNSET,
        )

    return [view(m) for m in (await history(web, chat, HISTORY)).messages]


async def session_view(
    web: WebState, session: BrowserSession, csrf: str, persona: str, room: str, branch: str | None
) -> SessionView:
    """The session's chat (room × persona × branch) and its history, with the CSRF token.

    Raises:
        NotFound: ``room_not_found``, ``persona_not_found`` (or not the visitor's to see),
            ``branch_not_found`` (not a branch id).
    """
    rooms = await _rooms(web, session)
    if room not in {r.slug for r in rooms}:
        raise NotFound(f"There is no room {room!r}.", code="room_not_found")
    chosen = await visible_persona(web, session, persona)
    chat = chat_for(session, chosen.id, room)
    if branch is not None:
        if not _BRANCH.fullmatch(branch):
            raise NotFound(f"There is no branch {branch!r}.", code="branch_not_found")
        chat = branch_chat(chat, branch)
    avatars = await web.persona_extras.has_avatars() if web.persona_extras else set()
    reader = "You" if session.guest else session.slug
    messages = await _history(web, session, chat)
    return SessionView(
        user=session.user,
        guest=session.guest,
        username=None if session.guest else session.slug,
        chat=chat,
        room=room,
        rooms=rooms,
        branch=branch,
        branches=await _branches(web, chat),
        csrf=csrf,
        memory=web.service.memory is not None,
        persona=PersonaCard(
            id=chosen.id,
            name=chosen.name,
            greeting=fill_macros(chosen.greeting, char=chosen.name, user=reader),
            greetings=[
                fill_macros(g, char=chosen.name, user=reader)
                for g in (chosen.greeting, *chosen.alternate_greetings)
            ]
            if chosen.greeting.strip()
            else [],
            avatar=avatar_url(chosen.id) if chosen.id in avatars else None,
        ),
        personas=await persona_summaries(web, session),
        model=model_info(web),
        messages=messages,
        awaiting=await _awaiting(web, chat, messages),
    )


async def _awaiting(web: WebState, chat: str, messages: list[SessionMessage]) -> bool:
    """Whether the last message is a person's and the chat's pending queue still holds messages."""
    if not messages or messages[-1].role != "user":
        return False
    return await web.service.chats.oldest_pending(chat, float("inf")) is not None
