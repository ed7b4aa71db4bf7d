"""People's memory operations over REST (API.md Memories; MEM-1..10, DEC-10..14).

The operator names any list (``scope`` with ``space``/``owner``/``global``); what happens is
``adapters.web.actions.memory``, shared with the browser's memory panel (``app_memory``).
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, Response, delete, get, patch, post, put
from litestar.di import NamedDependency, Provide
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter, RawBody

from adapters.web.actions import memory as act
from adapters.web.actions.memory import memory_desk
from adapters.web.layers import BODY_DTO, operator_guards, operator_route, web_dependency
from adapters.web.schemas.memory import (
    ApiClear,
    ApiCompose,
    ApiDialogue,
    ApiNewMemory,
    Blocklist,
    BlocklistBody,
    Cleared,
    Composed,
    DocumentList,
    Drafts,
    JobView,
    MemoryAdded,
    MemoryDeleted,
    MemoryEdit,
    MemoryList,
    MemoryOne,
    NamedListBody,
    Privacy,
    PrivacyBody,
    SpaceNotices,
    SpaceNoticesBody,
)
from adapters.web.state import WebState
from engine.documents import DOCUMENT_MAX_BYTES, DocumentJob
from engine.errors import Conflict, InvalidInput, NotFound
from engine.memory import (
    ScopeList,
    global_list,
    global_personal_list,
    personal_list,
    space_list,
)
from engine.memory.model import Scope
from engine.service.documents import DocumentIngest
from engine.validate import qualify_id

__all__ = [
    "MemoryController",
    "add_document",
    "compose_memories",
    "document_status",
    "list_documents",
    "memories_from_dialogue",
    "named_list_dependency",
    "provide_named_list",
    "set_privacy",
    "space_blocklist",
    "space_settings",
    "target_list",
    "targets",
]


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


def provide_named_list(
    kind: Annotated[Scope, QueryParameter(name="scope")],
    persona: FromQuery[str] = "default",
    space: FromQuery[str | None] = None,
    owner: FromQuery[str | None] = None,
    is_global: Annotated[bool, QueryParameter(name="global")] = False,
) -> ScopeList:
    """The ``named_list`` dependency: the list named by ``?scope=&persona=&space=&owner=&global=``."""
    return target_list(kind, persona, space, owner, is_global)


def named_list_dependency() -> dict[str, Provide]:
    """``dependencies`` of a route that reads the list named in its query."""
    return {"named_list": Provide(provide_named_list, sync_to_thread=False)}


def targets(body: NamedListBody) -> act.TargetOf:
    """The list a body names, for the persona the action resolves."""
    return lambda persona: target_list(body.scope, persona, body.space, body.owner, body.global_)


class MemoryController(Controller):
    """``/api/memories``."""

    path = "/api/memories"
    guards = operator_guards()
    dependencies = web_dependency()
    dto = BODY_DTO
    return_dto = None
    tags = ["memories"]  # noqa: RUF012

    @get("/", dependencies=named_list_dependency())
    async def list_memories(
        self,
        web: NamedDependency[WebState],
        named_list: NamedDependency[ScopeList],
        q: FromQuery[str | None] = None,
    ) -> MemoryList:
        """One list's memories, pinned first, then newest first; ``q``: those holding its words."""
        desk = memory_desk(web)
        records = act.newest_first(act.matches(await desk.list([named_list]), q))
        uses = await desk.uses(records)
        return MemoryList(memories=[act.memory_view(r, desk, None, uses) for r in records])

    @post("/", status_code=201)
    async def add(self, web: NamedDependency[WebState], data: JSONBody[ApiNewMemory]) -> MemoryAdded:
        """A person saves a memory (protected, DEC-12); a full list forgets one dormant (DEC-11)."""
        return await act.add_memory(
            web,
            persona=data.persona,
            target_of=targets(data),
            text=data.text,
            pinned=data.pinned,
            source=data.source,
            recent=False,
        )

    @patch("/{memory:str}")
    async def edit(
        self, web: NamedDependency[WebState], memory: FromPath[str], data: JSONBody[MemoryEdit]
    ) -> MemoryOne:
        """Edit text (protects it) or pin/unpin."""
        memory_desk(web)  # 422 memory_unavailable before empty_patch
        if data.text is None and data.pinned is None:
            raise InvalidInput(
                'Nothing to change: send "text" (the new wording) and/or "pinned" (true or false).',
                code="empty_patch",
            )
        return await act.edit_memory(web, memory, text=data.text, pinned=data.pinned, recent=False)

    @delete("/{memory:str}", status_code=200)
    async def forget(self, web: NamedDependency[WebState], memory: FromPath[str]) -> MemoryDeleted:
        """Forget one memory."""
        return await act.delete_memory(web, memory, recent=False)

    @post("/{memory:str}/restore", status_code=200)
    async def restore(self, web: NamedDependency[WebState], memory: FromPath[str]) -> MemoryOne:
        """Undo Forget within ``UNDO_SECONDS`` (30): the memory back as it was (id, text, pin, list)."""
        return await act.restore_memory(web, memory, lambda _: True, recent=False)

    @post("/clear", status_code=200)
    async def clear(self, web: NamedDependency[WebState], data: JSONBody[ApiClear]) -> Cleared:
        """Clear all: unpinned first; pinned only with ``pinned_confirmed`` (MEM-9)."""
        memory_desk(web)  # 422 memory_unavailable before a missing space or owner
        target = targets(data)(data.persona)
        return await act.clear_memories(web, target, pinned_confirmed=data.pinned_confirmed)


@operator_route(put, "/api/users/{user:str}/privacy", tags=["memories"])
async def set_privacy(
    web: NamedDependency[WebState], user: FromPath[str], data: JSONBody[PrivacyBody]
) -> Privacy:
    """Opt a user out of (or back in to) personal memory (DEC-10)."""
    user_id = qualify_id(user, what="user")
    await web.directory.set_privacy(user_id, personal_memory=data.personal_memory)
    return Privacy(user=user_id, personal_memory=data.personal_memory)


def _ingest(web: WebState) -> DocumentIngest:
    memory_desk(web)
    if web.ingest is None:
        raise Conflict("Documents need an embedder (HEARTH_EMBEDDER is none).", code="documents_unavailable")
    return web.ingest


def _job_view(job: DocumentJob) -> JobView:
    progress = round(job.embedded / job.chunks, 3) if job.chunks else 1.0
    return JobView(**{f: getattr(job, f) for f in job.__struct_fields__}, progress=progress)


@operator_route(post, "/api/personas/{persona:str}/documents", tags=["documents"], status_code=202)
async def add_document(
    web: NamedDependency[WebState], persona: FromPath[str], body: RawBody, name: FromQuery[str] = "document"
) -> Response[JobView]:
    """Upload a text or Markdown document to a persona (DOC-1); the body is the document.

    Answers ``202`` at once with the job (``status`` ``queued``); the document is embedded in
    the background in small batches and becomes searchable when ``status`` is ``done`` (poll
    ``GET .../documents/{id}``). At most ``DOCUMENT_MAX_BYTES`` (1,000,000) bytes of UTF-8.
    """
    await web.service.persona(persona)
    if len(body) > DOCUMENT_MAX_BYTES:
        raise InvalidInput(
            f"The document is {len(body):,} bytes; the limit is {DOCUMENT_MAX_BYTES:,} bytes per upload "
            "(split it into several documents).",
            code="file_too_large",
        )
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("The document is not UTF-8 text.", code="document_not_text") from None
    job = await _ingest(web).submit(persona, name[:200], text)
    location = f"/api/personas/{persona}/documents/{job.id}"
    return Response(_job_view(job), status_code=202, headers={"Location": location})


@operator_route(get, "/api/personas/{persona:str}/documents", tags=["documents"])
async def list_documents(web: NamedDependency[WebState], persona: FromPath[str]) -> DocumentList:
    """A persona's searchable documents, and the uploads being embedded or that failed (``jobs``)."""
    desk = memory_desk(web)
    docs = await desk.documents.all(persona) if desk.documents else []
    jobs = await web.ingest.jobs(persona) if web.ingest else []
    return DocumentList(documents=docs, jobs=[_job_view(j) for j in jobs if j.status != "done"])


@operator_route(get, "/api/personas/{persona:str}/documents/{doc:str}", tags=["documents"])
async def document_status(
    web: NamedDependency[WebState], persona: FromPath[str], doc: FromPath[str]
) -> JobView:
    """One upload's job: ``status``, ``embedded`` of ``chunks``, ``progress`` (0..1), ``error``."""
    job = await _ingest(web).job(persona, doc)
    if job is None:
        raise NotFound(f"There is no document {doc!r} of persona {persona!r}.", code="document_not_found")
    return _job_view(job)


@operator_route(post, "/api/memories/compose", tags=["memories"], status_code=201)
async def compose_memories(web: NamedDependency[WebState], data: JSONBody[ApiCompose]) -> Composed:
    """ "Create memories": the model turns a person's description into memories (MEM-6c)."""
    return await act.compose_memories(
        web, persona=data.persona, target_of=targets(data), description=data.description, recent=False
    )


@operator_route(post, "/api/memories/from-dialogue", tags=["memories"], status_code=201)
async def memories_from_dialogue(
    web: NamedDependency[WebState], data: JSONBody[ApiDialogue]
) -> Drafts | MemoryList:
    """ "Save from dialogue": up to 20 messages, composed by AI (drafts) or kept as is, pinned (MEM-6d)."""
    return await act.from_dialogue(
        web,
        chat=data.chat,
        messages=data.messages,
        compose=data.mode == "compose",
        texts=data.texts,
        persona=data.persona,
        target_of=targets(data),
        recent=False,
    )


@operator_route(put, "/api/spaces/{space:str}/settings", tags=["memories"])
async def space_settings(
    web: NamedDependency[WebState], space: FromPath[str], data: JSONBody[SpaceNoticesBody]
) -> SpaceNotices:
    """How visible memory notices are in a space (DEC-11): off, brief or full."""
    space_id = qualify_id(space, what="space")
    await web.directory.set_notice_level(space_id, data.memory_notices)
    return SpaceNotices(space=space_id, memory_notices=data.memory_notices)


@operator_route(put, "/api/spaces/{space:str}/blocklist", tags=["memories"])
async def space_blocklist(
    web: NamedDependency[WebState], space: FromPath[str], data: JSONBody[BlocklistBody]
) -> Blocklist:
    """Memories hidden in a space: never searched, carried or aged there (DEC-10)."""
    space_id = qualify_id(space, what="space")
    await web.directory.set_blocked(space_id, data.memories)
    return Blocklist(space=space_id, memories=list(dict.fromkeys(data.memories)))
