"""People's memory operations over REST (API.md Memories; MEM-1..10, DEC-10..14)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response, delete, get, patch, post, put
from litestar.params import FromPath, FromQuery, QueryParameter

from adapters.web.api import admin_guard, decode_body
from adapters.web.state import WebState
from engine.documents import DOCUMENT_MAX_BYTES, DocumentJob
from engine.errors import Conflict, InvalidInput, NotFound
from engine.memory import (
    MemoryRecord,
    ScopeList,
    global_list,
    global_personal_list,
    memory_state,
    personal_list,
    space_list,
)
from engine.memory.compose import DRAFT_LIMIT
from engine.service.documents import DocumentIngest
from engine.service.memory import MemoryDesk
from engine.validate import qualify_id

__all__ = [
    "MemoryController",
    "add_document",
    "compose_memories",
    "document_status",
    "list_documents",
    "memories_from_dialogue",
    "memory_view",
    "set_privacy",
    "space_blocklist",
    "space_settings",
]

Scope = Literal["space", "personal", "global"]


class NewMemoryBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/memories``."""

    scope: Scope
    text: str
    persona: str = "default"
    space: str | None = None
    owner: str | None = None
    global_: bool = msgspec.field(default=False, name="global")
    pinned: bool = False
    source: Literal["person", "import"] = "person"


class EditMemoryBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PATCH /api/memories/{id}``."""

    text: str | None = None
    pinned: bool | None = None


class ClearBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/memories/clear`` (MEM-9)."""

    scope: Scope
    persona: str = "default"
    space: str | None = None
    owner: str | None = None
    global_: bool = msgspec.field(default=False, name="global")
    pinned_confirmed: bool = False


class PrivacyBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/users/{user}/privacy`` (DEC-10)."""

    personal_memory: bool


def target_list(
    scope: Scope, persona: str, space: str | None, owner: str | None, is_global: bool
) -> ScopeList:
    """The list named by API parameters (ids qualified: ``room1`` → ``web:room1``)."""

    def need(value: str | None, what: str) -> str:
        if not value:
            raise InvalidInput(f"A {scope} memory needs '{what}'.", code=f"missing_{what}")
        return qualify_id(value, what=what)

    if scope == "space":
        return space_list(persona, need(space, "space"))
    if scope == "global":
        return global_list(need(owner, "owner"))
    if is_global:
        return global_personal_list(persona, need(owner, "owner"))
    return personal_list(persona, need(owner, "owner"), need(space, "space"))


def memory_view(record: MemoryRecord, desk: MemoryDesk) -> dict[str, Any]:
    """A memory as API.md shows it."""
    return {
        "id": record.id,
        "persona": record.persona,
        "scope": record.scope,
        "text": record.text,
        "space": record.space,
        "owner": record.owner,
        "global": record.is_global,
        "pinned": record.pinned,
        "protected": record.protected,
        "source": record.source,
        "state": memory_state(record, desk.policy),
        "unused_days": record.unused_days,
        "last_matched_at": record.last_matched_at,
        "created_at": record.created_at,
        "updated_at": record.updated_at,
    }


class MemoryController(Controller):
    """``/api/memories``."""

    path = "/api/memories"
    guards = [admin_guard]  # noqa: RUF012
    tags = ["memories"]  # noqa: RUF012

    @get("/")
    async def list_memories(
        self,
        request: Request[Any, Any, Any],
        kind: Annotated[Scope, QueryParameter(name="scope")],
        persona: FromQuery[str] = "default",
        space: FromQuery[str | None] = None,
        owner: FromQuery[str | None] = None,
        is_global: Annotated[bool, QueryParameter(name="global")] = False,
    ) -> dict[str, Any]:
        """One list's memories, pinned first, then newest first."""
        desk = _desk(request)
        targets = [target_list(kind, persona, space, owner, is_global)]
        records = await desk.list(targets)
        records.sort(key=lambda r: (not r.pinned, -r.updated_at.timestamp(), r.id))
        return {"memories": [memory_view(r, desk) for r in records]}

    @post("/", status_code=201)
    async def add(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        """A person saves a memory (protected, DEC-12); a full list forgets one dormant (DEC-11)."""
        desk = _desk(request)
        state: WebState = request.app.state.web
        body: NewMemoryBody = decode_body(await request.body(), NewMemoryBody)
        persona = await state.service.persona(body.persona)
        target = target_list(body.scope, body.persona, body.space, body.owner, body.global_)
        plan = await desk.add(
            persona=body.persona,
            target=target,
            text=body.text,
            pinned=body.pinned,
            source=body.source,
            now=state.clock.now(),
            limits=persona.memory,
        )
        forgotten = memory_view(plan.forgotten, desk) if plan.forgotten else None
        return {"memory": memory_view(plan.record, desk), "forgotten": forgotten}

    @patch("/{memory:str}")
    async def edit(self, request: Request[Any, Any, Any], memory: FromPath[str]) -> dict[str, Any]:
        """Edit text (protects it) or pin/unpin."""
        desk = _desk(request)
        state: WebState = request.app.state.web
        body: EditMemoryBody = decode_body(await request.body(), EditMemoryBody)
        if body.text is None and body.pinned is None:
            raise InvalidInput(
                'Nothing to change: send "text" (the new wording) and/or "pinned" (true or false).',
                code="empty_patch",
            )
        record = await desk.edit(memory, text=body.text, pinned=body.pinned, now=state.clock.now())
        return {"memory": memory_view(record, desk)}

    @delete("/{memory:str}", status_code=200)
    async def forget(self, request: Request[Any, Any, Any], memory: FromPath[str]) -> dict[str, Any]:
        """Forget one memory."""
        desk = _desk(request)
        record = await desk.delete(memory)
        return {"deleted": memory_view(record, desk)}

    @post("/clear", status_code=200)
    async def clear(self, request: Request[Any, Any, Any]) -> dict[str, Any]:
        """Clear all: unpinned first; pinned only with ``pinned_confirmed`` (MEM-9)."""
        desk = _desk(request)
        body: ClearBody = decode_body(await request.body(), ClearBody)
        target = target_list(body.scope, body.persona, body.space, body.owner, body.global_)
        plan = await desk.clear(target, pinned_confirmed=body.pinned_confirmed)
        return {"deleted": len(plan.writes), "pinned_left": plan.pinned_left}


@put("/api/users/{user:str}/privacy", guards=[admin_guard], tags=["memories"])
async def set_privacy(request: Request[Any, Any, Any], user: FromPath[str]) -> Response[dict[str, Any]]:
    """Opt a user out of (or back in to) personal memory (DEC-10)."""
    state: WebState = request.app.state.web
    body: PrivacyBody = decode_body(await request.body(), PrivacyBody)
    user_id = qualify_id(user, what="user")
    await state.directory.set_privacy(user_id, personal_memory=body.personal_memory)
    return Response({"user": user_id, "personal_memory": body.personal_memory})


def _desk(request: Request[Any, Any, Any]) -> MemoryDesk:
    state: WebState = request.app.state.web
    if state.service.memory is None:
        raise InvalidInput("Memory is not configured in this deployment.", code="memory_unavailable")
    return state.service.memory


def _ingest(request: Request[Any, Any, Any]) -> DocumentIngest:
    state: WebState = request.app.state.web
    _desk(request)
    if state.ingest is None:
        raise Conflict("Documents need an embedder (HEARTH_EMBEDDER is none).", code="documents_unavailable")
    return state.ingest


@post("/api/personas/{persona:str}/documents", guards=[admin_guard], tags=["documents"], status_code=202)
async def add_document(
    request: Request[Any, Any, Any], persona: FromPath[str], name: FromQuery[str] = "document"
) -> Response[dict[str, Any]]:
    """Upload a text or Markdown document to a persona (DOC-1); the body is the document.

    Answers ``202`` at once with the job (``status`` ``queued``); the document is embedded in
    the background in small batches and becomes searchable when ``status`` is ``done`` (poll
    ``GET .../documents/{id}``). At most ``DOCUMENT_MAX_BYTES`` (1,000,000) bytes of UTF-8.
    """
    state: WebState = request.app.state.web
    await state.service.persona(persona)
    raw = await request.body()
    if len(raw) > DOCUMENT_MAX_BYTES:
        raise InvalidInput(
            f"The document is {len(raw):,} bytes; the limit is {DOCUMENT_MAX_BYTES:,} bytes per upload "
            "(split it into several documents).",
            code="file_too_large",
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("The document is not UTF-8 text.", code="document_not_text") from None
    job = await _ingest(request).submit(persona, name[:200], text)
    location = f"/api/personas/{persona}/documents/{job.id}"
    return Response(_job_view(job), status_code=202, headers={"Location": location})


def _job_view(job: DocumentJob) -> dict[str, Any]:
    view: dict[str, Any] = msgspec.to_builtins(job)
    view["progress"] = round(job.embedded / job.chunks, 3) if job.chunks else 1.0
    return view


@get("/api/personas/{persona:str}/documents", guards=[admin_guard], tags=["documents"])
async def list_documents(request: Request[Any, Any, Any], persona: FromPath[str]) -> dict[str, Any]:
    """A persona's searchable documents, and the uploads being embedded or that failed (``jobs``)."""
    desk = _desk(request)
    state: WebState = request.app.state.web
    docs = await desk.documents.all(persona) if desk.documents else []
    jobs = await state.ingest.jobs(persona) if state.ingest else []
    return {
        "documents": [msgspec.to_builtins(d) for d in docs],
        "jobs": [_job_view(j) for j in jobs if j.status != "done"],
    }


@get("/api/personas/{persona:str}/documents/{doc:str}", guards=[admin_guard], tags=["documents"])
async def document_status(
    request: Request[Any, Any, Any], persona: FromPath[str], doc: FromPath[str]
) -> dict[str, Any]:
    """One upload's job: ``status``, ``embedded`` of ``chunks``, ``progress`` (0..1), ``error``."""
    job = await _ingest(request).job(persona, doc)
    if job is None:
        raise NotFound(f"There is no document {doc!r} of persona {persona!r}.", code="document_not_found")
    return _job_view(job)


class ComposeBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/memories/compose`` (MEM-6c)."""

    scope: Scope
    description: str
    persona: str = "default"
    space: str | None = None
    owner: str | None = None
    global_: bool = msgspec.field(default=False, name="global")


class DialogueBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /api/memories/from-dialogue`` (MEM-6d)."""

    scope: Scope
    chat: str
    messages: list[str]
    mode: Literal["compose", "keep"] = "keep"
    texts: list[str] | None = None
    persona: str = "default"
    space: str | None = None
    owner: str | None = None
    global_: bool = msgspec.field(default=False, name="global")


_DIALOGUE_LIMIT = 20


async def _save_all(
    request: Request[Any, Any, Any],
    persona: str,
    target: ScopeList,
    texts: list[str],
    *,
    pinned: bool,
    source: str,
) -> list[dict[str, Any]]:
    desk, state = _desk(request), request.app.state.web
    limits = (await state.service.persona(persona)).memory
    saved = []
    for text in texts:
        plan = await desk.add(
            persona=persona,
            target=target,
            text=text,
            pinned=pinned,
            source=source,  # type: ignore[arg-type]
            now=state.clock.now(),
            limits=limits,
        )
        saved.append(memory_view(plan.record, desk))
    return saved


@post("/api/memories/compose", guards=[admin_guard], tags=["memories"], status_code=201)
async def compose_memories(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """ "Create memories": the model turns a person's description into memories (MEM-6c)."""
    state: WebState = request.app.state.web
    body: ComposeBody = decode_body(await request.body(), ComposeBody)
    target = target_list(body.scope, body.persona, body.space, body.owner, body.global_)
    drafts, offline = await state.service.memories_from_description(body.persona, body.description)
    saved = await _save_all(request, body.persona, target, list(drafts), pinned=False, source="person")
    return {"memories": saved, "offline": offline}


@post("/api/memories/from-dialogue", guards=[admin_guard], tags=["memories"], status_code=201)
async def memories_from_dialogue(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """ "Save from dialogue": up to 20 messages, composed by AI (drafts) or kept as is, pinned (MEM-6d)."""
    state: WebState = request.app.state.web
    body: DialogueBody = decode_body(await request.body(), DialogueBody)
    if not 1 <= len(body.messages) <= _DIALOGUE_LIMIT:
        raise InvalidInput(f"Select 1 to {_DIALOGUE_LIMIT} messages.", code="invalid_selection")
    chat = qualify_id(body.chat, what="chat")
    found = [await state.service.chats.message(chat, m) for m in dict.fromkeys(body.messages)]
    if any(m is None for m in found):
        raise InvalidInput("A selected message is not in this chat.", code="message_not_found")
    lines = [f"{m.name}: {m.text}" for m in found if m is not None]
    target = target_list(body.scope, body.persona, body.space, body.owner, body.global_)
    if body.mode == "compose":
        drafts, offline = await state.service.draft_memories(
            body.persona, "\n".join(lines), limit=DRAFT_LIMIT
        )
        return {"drafts": list(drafts), "offline": offline}
    texts = body.texts if body.texts is not None else [m.text for m in found if m is not None]
    if not texts or len(texts) > _DIALOGUE_LIMIT:
        raise InvalidInput(f"Keep 1 to {_DIALOGUE_LIMIT} entries.", code="invalid_selection")
    saved = await _save_all(request, body.persona, target, texts, pinned=True, source="dialogue")
    return {"memories": saved}


class SpaceSettingsBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/spaces/{space}/settings``."""

    memory_notices: Literal["off", "brief", "full"]


@put("/api/spaces/{space:str}/settings", guards=[admin_guard], tags=["memories"])
async def space_settings(request: Request[Any, Any, Any], space: FromPath[str]) -> dict[str, Any]:
    """How visible memory notices are in a space (DEC-11): off, brief or full."""
    state: WebState = request.app.state.web
    body: SpaceSettingsBody = decode_body(await request.body(), SpaceSettingsBody)
    space_id = qualify_id(space, what="space")
    await state.directory.set_notice_level(space_id, body.memory_notices)
    return {"space": space_id, "memory_notices": body.memory_notices}


class BlocklistBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``PUT /api/spaces/{space}/blocklist``."""

    memories: list[str]


@put("/api/spaces/{space:str}/blocklist", guards=[admin_guard], tags=["memories"])
async def space_blocklist(request: Request[Any, Any, Any], space: FromPath[str]) -> dict[str, Any]:
    """Memories hidden in a space: never searched, carried or aged there (DEC-10)."""
    state: WebState = request.app.state.web
    body: BlocklistBody = decode_body(await request.body(), BlocklistBody)
    space_id = qualify_id(space, what="space")
    await state.directory.set_blocked(space_id, body.memories)
    return {"space": space_id, "memories": list(dict.fromkeys(body.memories))}
