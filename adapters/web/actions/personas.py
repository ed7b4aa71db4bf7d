"""What the persona endpoints do (issue 16), and who may see and change which persona.

- **Shared personas** (no owner): every visitor, guests too, may talk to them; only the
  deployment's admins (``HEARTH_WEB_ADMINS``) may change them in the browser.
- **Private personas** (owned by one account): only their owner sees, talks to, changes,
  exports or deletes them.

The functions take the ``web`` state and, where it matters, the visitor (a ``BrowserSession``);
``delete_persona`` and ``persona_documents`` take an already authorized persona and serve the
operator's API as well.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

import msgspec

from adapters.cards.card import CardPersona
from adapters.cards.persona import slug
from adapters.web.schemas.chat import PersonaSummary
from adapters.web.schemas.personas import (
    PersonaBody,
    PersonaDeleted,
    PersonaDocuments,
    PersonaView,
    VisiblePersonas,
)
from adapters.web.session import BrowserSession, require_user
from adapters.web.state import WebState
from engine.documents import DocumentInfo
from engine.errors import Conflict, Forbidden, InvalidInput, NotFound
from engine.model import ModelSettings, Persona
from engine.validate import check_model_choice

__all__ = [
    "add_document",
    "avatar_url",
    "books_allowed",
    "card_of",
    "change_persona",
    "checked",
    "delete_persona",
    "editable",
    "is_admin",
    "new_persona",
    "owner_for",
    "persona_documents",
    "persona_list",
    "persona_summaries",
    "persona_view",
    "shared_persona_books",
    "unique_id",
    "updated",
    "visible_persona",
    "visible_personas",
]

DOCUMENT_LIMIT = 2_000_000
MAX_ALTERNATE_GREETINGS = 50  # a persona's alternate greetings (swipes of its first message)


def avatar_url(persona_id: str) -> str:
    """Where the browser loads a persona's picture."""
    return f"/app/personas/{persona_id}/avatar"


def is_admin(web: WebState, visitor: BrowserSession) -> bool:
    """Whether the visitor is one of the deployment's admins (they change the shared personas)."""
    return not visitor.guest and visitor.slug in web.settings.web_admins


async def _owners(web: WebState) -> dict[str, str]:
    return await web.persona_extras.owners() if web.persona_extras else {}


async def _owner(web: WebState, persona_id: str) -> str | None:
    return await web.persona_extras.owner(persona_id) if web.persona_extras else None


async def visible_personas(web: WebState, visitor: BrowserSession) -> list[tuple[Persona, str | None]]:
    """The personas this visitor may talk to, with their owner (None: shared)."""
    owners = await _owners(web)
    return [
        (p, owners.get(p.id))
        for p in await web.service.personas.all()
        if p.id not in owners or (not visitor.guest and owners[p.id] == visitor.slug)
    ]


async def visible_persona(web: WebState, visitor: BrowserSession, persona_id: str) -> Persona:
    """The persona if this visitor may talk to it, else 404 ``persona_not_found``."""
    owner = await _owner(web, persona_id)
    if owner is not None and (visitor.guest or owner != visitor.slug):
        raise NotFound(f"There is no persona {persona_id!r}.", code="persona_not_found")
    return await web.service.persona(persona_id)


async def shared_persona_books(web: WebState) -> set[str]:
    """The books of the shared personas (every visitor may read them)."""
    owners = await _owners(web)
    return {b for p in await web.service.personas.all() if p.id not in owners for b in p.lorebooks}


async def editable(web: WebState, visitor: BrowserSession, persona_id: str) -> tuple[Persona, str | None]:
    """The persona and its owner, if the visitor may change it (their own; shared: admins).

    Raises:
        Forbidden: ``sign_in_required`` (guests) or ``not_your_persona``.
        NotFound: ``persona_not_found``.
    """
    require_user(visitor)
    persona = await visible_persona(web, visitor, persona_id)
    owner = await _owner(web, persona_id)
    if owner is None and not is_admin(web, visitor):
        raise Forbidden(
            "Shared personas can be changed only by this deployment's admins; make your own instead.",
            code="not_your_persona",
        )
    return persona, owner


async def persona_view(
    web: WebState, visitor: BrowserSession, persona: Persona, owner: str | None
) -> PersonaView:
    """The persona as this visitor sees it (its prompt only when they may change it)."""
    has_avatar = web.persona_extras is not None and await web.persona_extras.avatar(persona.id) is not None
    may_edit = not visitor.guest and (owner == visitor.slug or (owner is None and is_admin(web, visitor)))
    return PersonaView(
        id=persona.id,
        name=persona.name,
        greeting=persona.greeting,
        description=persona.description,
        personality=persona.personality,
        scenario=persona.scenario,
        mes_example=persona.mes_example,
        alternate_greetings=list(persona.alternate_greetings),
        system_prompt=persona.system_prompt if may_edit else None,
        avatar=avatar_url(persona.id) if has_avatar else None,
        private=owner is not None,
        editable=may_edit,
        learn_from_chat=persona.learn_from_chat,
        lorebooks=list(persona.lorebooks),
        model=persona.model,
    )


async def persona_list(web: WebState, visitor: BrowserSession) -> VisiblePersonas:
    """The personas this visitor may talk to."""
    rows = [await persona_view(web, visitor, p, o) for p, o in await visible_personas(web, visitor)]
    return VisiblePersonas(personas=rows, admin=is_admin(web, visitor), can_create=not visitor.guest)


async def persona_summaries(web: WebState, visitor: BrowserSession) -> list[PersonaSummary]:
    """Id, name, avatar URL and private flag of the visitor's personas (for the picker)."""
    avatars = await web.persona_extras.has_avatars() if web.persona_extras else set()
    return [
        PersonaSummary(
            id=p.id,
            name=p.name,
            private=owner is not None,
            avatar=avatar_url(p.id) if p.id in avatars else None,
        )
        for p, owner in await visible_personas(web, visitor)
    ]


async def unique_id(web: WebState, name: str) -> str:
    """A fresh persona id made from its name."""
    base = slug(name)[:40]
    for _ in range(20):
        candidate = f"{base}-{secrets.token_hex(3)}"
        if await web.service.personas.get(candidate) is None:
            return candidate
    raise Conflict("Could not find a free persona id; try again.", code="persona_id_taken")


async def books_allowed(web: WebState, visitor: BrowserSession, books: list[str]) -> tuple[str, ...]:
    """The books, if each is the visitor's own or a shared persona's, and exists."""
    own = await web.accounts.store.lorebooks(visitor.slug) if web.accounts else set()
    shared = await shared_persona_books(web)
    for book in books:
        if book not in own and book not in shared:
            raise Forbidden(f"The lorebook {book!r} is not yours.", code="not_your_lorebook")
    missing = await web.lore.exist(books)
    if missing:
        raise NotFound(f"There is no lorebook {missing[0]!r}.", code="lorebook_not_found")
    return tuple(dict.fromkeys(books))


def checked(web: WebState, body: PersonaBody) -> PersonaBody:
    """The editor's persona, if its name, prompt, texts and reply length are in bounds and its
    provider is one this deployment can reach (LLM-1)."""
    if not body.name.strip() or len(body.name) > 80:
        raise InvalidInput("A persona needs a name of 1-80 characters.", code="invalid_persona_name")
    if not body.system_prompt.strip():
        raise InvalidInput(
            "A persona needs a prompt: who it is and how it talks.", code="invalid_persona_prompt"
        )
    texts = [body.system_prompt, body.greeting, body.description, body.personality or ""]
    texts += [body.scenario or "", body.mes_example or "", *(body.alternate_greetings or ())]
    if any(len(t) > 20_000 for t in texts):
        raise InvalidInput("Persona texts are limited to 20,000 characters.", code="persona_text_too_long")
    if len(body.alternate_greetings or ()) > MAX_ALTERNATE_GREETINGS:
        raise InvalidInput(
            f"A persona has at most {MAX_ALTERNATE_GREETINGS} alternate greetings.",
            code="too_many_greetings",
        )
    if not 16 <= body.model.max_tokens <= 64_000:
        raise InvalidInput("The reply length must be 16-64,000 tokens.", code="invalid_max_tokens")
    llm = web.settings.llm
    choice = ModelSettings(name=body.model.name, provider=body.model.provider.strip())
    check_model_choice(choice, deployment=llm.provider, available=llm.providers)
    return body


def updated(persona: Persona, body: PersonaBody, books: tuple[str, ...]) -> Persona:
    """The persona with the editor's fields."""
    return msgspec.structs.replace(
        persona,
        name=body.name.strip(),
        system_prompt=body.system_prompt,
        greeting=body.greeting,
        description=body.description,
        personality=persona.personality if body.personality is None else body.personality,
        scenario=persona.scenario if body.scenario is None else body.scenario,
        mes_example=persona.mes_example if body.mes_example is None else body.mes_example,
        alternate_greetings=(
            persona.alternate_greetings
            if body.alternate_greetings is None
            else tuple(g for g in body.alternate_greetings if g.strip())
        ),
        model=ModelSettings(
            name=body.model.name.strip(),
            max_tokens=body.model.max_tokens,
            context_window=persona.model.context_window,
            provider=body.model.provider.strip(),
        ),
        lorebooks=books,
        learn_from_chat=body.learn_from_chat,
    )


def owner_for(web: WebState, visitor: BrowserSession, shared: bool) -> str | None:
    """Who owns a persona the visitor makes: them, or nobody (shared; admins only)."""
    if shared and not is_admin(web, visitor):
        raise Forbidden("Only this deployment's admins can make shared personas.", code="not_an_admin")
    return None if shared else visitor.slug


async def new_persona(
    web: WebState, visitor: BrowserSession, body: PersonaBody
) -> tuple[Persona, str | None]:
    """Make a persona from the editor: private to the visitor, or shared (admins only)."""
    owner = owner_for(web, visitor, checked(web, body).shared)
    books = await books_allowed(web, visitor, body.lorebooks)
    blank = Persona(id=await unique_id(web, body.name), name=body.name, system_prompt=body.system_prompt)
    persona = updated(blank, body, books)
    if web.persona_extras:
        await web.persona_extras.set_owner(persona.id, owner)
    await web.service.personas.put(persona)
    return persona, owner


async def change_persona(
    web: WebState, visitor: BrowserSession, persona: Persona, body: PersonaBody
) -> Persona:
    """Store the editor's changes to a persona the visitor may change (``editable``)."""
    books = await books_allowed(web, visitor, checked(web, body).lorebooks)
    changed = updated(persona, body, books)
    await web.service.personas.put(changed)
    return changed


async def card_of(web: WebState, persona: Persona) -> CardPersona:
    """The persona as a CCv3 character card, with its first lorebook inside."""
    book = await web.lore.get(persona.lorebooks[0]) if persona.lorebooks else None
    return CardPersona(
        spec="chara_card_v3",
        name=persona.name,
        description=persona.description,
        personality=persona.personality,
        scenario=persona.scenario,
        greeting=persona.greeting,
        alternate_greetings=tuple(persona.alternate_greetings),
        mes_example=persona.mes_example,
        system_prompt=persona.system_prompt,
        post_history_instructions=persona.post_history_instructions,
        book=book,
    )


async def delete_persona(
    web: WebState, persona_id: str, authorize: Callable[[str], Awaitable[object]] | None = None
) -> PersonaDeleted:
    """Delete a persona; its personal memories become global ones instead of being lost (MEM-10).

    ``authorize`` (the browser's ``editable``) runs once the default persona is ruled out.

    Raises:
        Conflict: ``persona_required`` for the default persona.
        NotFound: ``persona_not_found``.
    """
    if persona_id == "default":
        raise Conflict("The default persona cannot be deleted.", code="persona_required")
    if authorize is not None:
        await authorize(persona_id)
    found = await web.service.persona(persona_id)
    moved = await web.service.memory.delete_persona(found.id) if web.service.memory else 0
    await web.service.personas.delete(found.id)
    if web.persona_extras:
        await web.persona_extras.forget(found.id)
    return PersonaDeleted(deleted=found.id, memories_made_global=moved)


async def persona_documents(web: WebState, persona: Persona) -> PersonaDocuments:
    """The persona's searchable documents (DOC-1)."""
    desk = web.service.memory
    docs = await desk.documents.all(persona.id) if desk is not None and desk.documents else []
    return PersonaDocuments(documents=list(docs))


async def add_document(web: WebState, persona: Persona, name: str, text: str) -> DocumentInfo:
    """Add a text document the persona may quote from (DOC-1)."""
    if not text.strip():
        raise InvalidInput("The document is empty.", code="document_empty")
    if len(text) > DOCUMENT_LIMIT:
        raise InvalidInput("The document is longer than 2,000,000 characters.", code="file_too_large")
    if web.service.memory is None:
        raise Conflict("Memory is off in this deployment, so documents are too.", code="memory_off")
    documents = web.service.memory.documents
    if documents is None:
        raise Conflict("Documents need an embedder (HEARTH_EMBEDDER is none).", code="documents_unavailable")
    return await documents.add(persona.id, (name.strip() or "document")[:200], text)
