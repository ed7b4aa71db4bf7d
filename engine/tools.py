"""Tools the model may call mid-reply (MEM-6a), provider-neutral.

A tool is described by a ``ToolSpec`` whose ``input_type`` is a Struct: the LLM adapter derives
the JSON schema from it, and the service decodes a call's arguments into it at the edge
(STYLE D3). A round of calls and their results is a ``ToolExchange``; the prompt carries the
exchanges of the reply so far, so the model can continue after its tools ran.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

import msgspec

__all__ = [
    "ARCHIVE_TOOLS",
    "MEMORY_TOOLS",
    "AddWorkingNoteInput",
    "DeleteMemoryInput",
    "ExploreArchiveInput",
    "SaveMemoryInput",
    "SearchArchiveInput",
    "ToolCall",
    "ToolExchange",
    "ToolResult",
    "ToolSpec",
    "UpdateMemoryInput",
    "memory_tools",
]


class ToolSpec(msgspec.Struct, frozen=True, kw_only=True):
    """A tool offered to the model."""

    name: str
    description: str
    input_type: type[msgspec.Struct]


class ToolCall(msgspec.Struct, frozen=True, kw_only=True, tag="tool_call"):
    """The model asked to run a tool; ``arguments`` is the JSON text of its input."""

    id: str
    name: str
    arguments: str


class ToolResult(msgspec.Struct, frozen=True, kw_only=True):
    """What a tool call did, as the model reads it."""

    call_id: str
    content: str
    is_error: bool = False


class ToolExchange(msgspec.Struct, frozen=True, kw_only=True):
    """One round: the text the model wrote before calling, its calls, and their results."""

    text: str
    calls: tuple[ToolCall, ...]
    results: tuple[ToolResult, ...]


class SaveMemoryInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Save a fact that will stay true for weeks (a name, a birthday, an allergy, a promise).

    text: the fact in the third person with the person's name ("Alice hates cilantro", not "I
    hate cilantro"). scope: "personal" for a fact about one person (default: the person who just wrote),
    "space" for a fact about this group or room that everyone shares, "global" for a fact about
    a person that every persona may know. about: for a personal or global fact, the id (never
    the name) of the person it is about, one of the people this reply answers as listed in the
    tool's description; leave it out for the person who just wrote.
    """

    text: str
    scope: Literal["personal", "space", "global"] = "personal"
    about: str | None = None


class UpdateMemoryInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Correct one of your saved memories (not a pinned one); id as shown in your notes."""

    id: str
    text: str


class DeleteMemoryInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Delete one of your saved memories that is no longer true (not a pinned one)."""

    id: str


class SearchArchiveInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Look through this chat's archive of earlier sessions (EPI-13) for what was said about a topic."""

    query: str


class ExploreArchiveInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Explore this chat's archive from a topic (EPI-13): the matching session pages and the pages
    linked to them. reasoning: how much to read, "minimal" to "max" (default "medium")."""

    query: str
    reasoning: Literal["minimal", "low", "medium", "high", "max"] = "medium"


class AddWorkingNoteInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Note something for the rest of this session only (EPI-1): it stays in view until the chat
    goes quiet for a while, then it ends. text: the note (at most 500 characters)."""

    text: str


ARCHIVE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="search_archive",
        description=(
            "Search the archive of this chat's earlier sessions (older than the summaries) for a "
            "topic, name or detail; returns the matching session pages."
        ),
        input_type=SearchArchiveInput,
    ),
    ToolSpec(
        name="explore_archive",
        description=(
            "Explore the archive of this chat's earlier sessions from a topic: reads the matching "
            "session pages and the pages linked to them, as far as the reasoning level allows."
        ),
        input_type=ExploreArchiveInput,
    ),
    ToolSpec(
        name="add_working_note",
        description=(
            "Write a short working note for this session only (a plan, an open question, where "
            "things stand). It stays in your notes until the chat goes quiet and the session "
            "ends; for lasting facts use save_memory."
        ),
        input_type=AddWorkingNoteInput,
    ),
)

MEMORY_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="save_memory",
        description=(
            "Save a durable fact about a person or this space, to remember in later chats. "
            "Only facts that stay true for weeks; not moods or plot events. Write it in the third "
            'person with the person\'s name ("Alice hates cilantro", not "I hate cilantro").'
        ),
        input_type=SaveMemoryInput,
    ),
    ToolSpec(
        name="update_memory",
        description=(
            "Correct a saved memory that changed, in the third person with the person's name. "
            "Pinned memories cannot be changed."
        ),
        input_type=UpdateMemoryInput,
    ),
    ToolSpec(
        name="delete_memory",
        description="Delete a saved memory that is no longer true. Pinned memories cannot be deleted.",
        input_type=DeleteMemoryInput,
    ),
)


def memory_tools(people: Sequence[tuple[str, str]]) -> tuple[ToolSpec, ...]:
    """The memory tools of one turn: ``save_memory`` lists the people (platform id, display
    name) whose personal and global memories the model may write, by id (MEM-4)."""
    if not people:
        return MEMORY_TOOLS
    listed = ", ".join(f"{json.dumps(u)} ({json.dumps(name, ensure_ascii=False)})" for u, name in people)
    save, *rest = MEMORY_TOOLS
    about = (
        f"{save.description} A personal or global fact may only be about one of the people this "
        f"reply answers; give their id in about: {listed}."
    )
    return (msgspec.structs.replace(save, description=about), *rest)
