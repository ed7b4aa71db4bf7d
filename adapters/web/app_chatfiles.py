"""Chat files in the browser: export a chat, import one into a new room.

- ``GET /app/chats/{chat}/export?format=st|hearth``: one of the visitor's chats as a SillyTavern
  ``.jsonl`` or Hearth JSON file (an attachment).
- ``POST /app/chats/import?format=st|hearth&persona=…&room=…`` with the file as the body (signed
  in; CSRF like every state-changing ``/app`` request): a new room named ``room`` is made and
  the file becomes its chat with ``persona``, swipes and send dates kept. A room whose chat
  already has messages is 409 ``chat_not_empty``; a bad file is 422 naming the line.
"""

from __future__ import annotations

from litestar import Response, get, post
from litestar.params import FromPath, FromQuery, RawBody

from adapters.web.actions.chatfiles import export_chat, import_chat, read_file
from adapters.web.actions.personas import visible_persona
from adapters.web.params import AccountService, Visitor, Web
from adapters.web.schemas.chat import ImportedChat, Room
from adapters.web.session import chat_for, owned_chat, require_user

__all__ = ["CHATFILE_ROUTES"]


@get("/chats/{chat:str}/export")
async def export_file(
    web: Web, visitor: Visitor, chat: FromPath[str], format: FromQuery[str] = "st"
) -> Response[bytes]:
    """Download one of your chats as a SillyTavern ``.jsonl`` or Hearth JSON file."""
    return await export_chat(web, owned_chat(visitor, chat), format)


@post("/chats/import", status_code=201)
async def import_file(
    web: Web,
    visitor: Visitor,
    accounts: AccountService,
    body: RawBody,
    room: FromQuery[str],
    format: FromQuery[str] = "st",
    persona: FromQuery[str] = "default",
) -> ImportedChat:
    """Import a chat file into a new room, as a chat with ``persona``."""
    require_user(visitor)
    found = await visible_persona(web, visitor, persona)
    file = read_file(web, body, format)
    made = await accounts.add_room(visitor.slug, room, now=web.clock.now())
    chat = chat_for(visitor, found.id, made.slug)
    done = await import_chat(web, chat, file, user=visitor.user, persona=found.id)
    return ImportedChat(
        chat=done.chat,
        messages=done.messages,
        swipes=done.swipes,
        skipped=done.skipped,
        room=Room(slug=made.slug, title=made.title),
    )


CHATFILE_ROUTES = [export_file, import_file]
