"""Request and response types of the browser's persona endpoints (issue 16, ``/app/personas``)."""

from __future__ import annotations

import msgspec

from engine.documents import DocumentInfo
from engine.model import ModelSettings

__all__ = [
    "DocumentBody",
    "ModelBody",
    "PersonaBody",
    "PersonaDeleted",
    "PersonaDocuments",
    "PersonaOne",
    "PersonaView",
    "VisiblePersonas",
]


class ModelBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A persona's model settings in the editor (``provider`` empty: the deployment's)."""

    name: str = ""
    max_tokens: int = 1024
    provider: str = ""


class PersonaBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/personas`` and ``PUT /app/personas/{id}``."""

    name: str
    system_prompt: str
    greeting: str = ""
    description: str = ""
    personality: str | None = None
    scenario: str | None = None
    mes_example: str | None = None
    alternate_greetings: list[str] | None = None
    """The card fields (issue 31); left out (``None``), a change keeps the persona's own."""
    model: ModelBody = msgspec.field(default_factory=ModelBody)
    lorebooks: list[str] = msgspec.field(default_factory=list)
    learn_from_chat: bool = True
    shared: bool = False


class PersonaView(msgspec.Struct, frozen=True, kw_only=True):
    """A persona as the visitor sees it; ``system_prompt`` only when they may change it."""

    id: str
    name: str
    greeting: str
    description: str
    personality: str
    scenario: str
    mes_example: str
    alternate_greetings: list[str]
    system_prompt: str | None
    avatar: str | None
    private: bool
    editable: bool
    learn_from_chat: bool
    lorebooks: list[str]
    model: ModelSettings


class VisiblePersonas(msgspec.Struct, frozen=True, kw_only=True):
    """``GET /app/personas``; ``admin``: the visitor may change the shared personas."""

    personas: list[PersonaView]
    admin: bool
    can_create: bool


class PersonaOne(msgspec.Struct, frozen=True, kw_only=True):
    """One persona, after it was made or changed."""

    persona: PersonaView


class PersonaDeleted(msgspec.Struct, frozen=True, kw_only=True):
    """A deleted persona and how many of its personal memories became global (MEM-10)."""

    deleted: str
    memories_made_global: int


class DocumentBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Body of ``POST /app/personas/{id}/documents``."""

    name: str
    text: str


class PersonaDocuments(msgspec.Struct, frozen=True, kw_only=True):
    """A persona's documents (DOC-1)."""

    documents: list[DocumentInfo]
