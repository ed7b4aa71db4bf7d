"""Every Redis key Hearth uses, built by one pure function (STYLE P3).

Keys carry a namespace prefix (``hearth`` by default) so several deployments can share one
Redis. Everything that belongs to one chat carries the chat id as a Redis Cluster hash tag
(``{web:room1}``), so one chat's keys live in one slot and multi-key transactions and scripts
on a chat work on a cluster. Chat ids cannot contain braces (engine.validate.qualify_id).
"""

from __future__ import annotations

import msgspec

__all__ = ["KeyBuilder"]


class KeyBuilder(msgspec.Struct, frozen=True, kw_only=True):
    """Builds keys under a namespace prefix."""

    prefix: str = "hearth"

    def chat(self, chat: str, part: str) -> str:
        """A key of one chat, e.g. ``hearth:chat:{web:room1}:log``."""
        return f"{self.prefix}:chat:{{{chat}}}:{part}"

    def request_log(self, chat: str, turn: str) -> str:
        """The request log of one turn (kept for a limited time)."""
        return f"{self.prefix}:chat:{{{chat}}}:req:{turn}"

    def memory_uses(self) -> str:
        """The HASH of each memory's last use by a turn (in the memory directory's slot)."""
        return f"{self.prefix}:mem:used{{{self.prefix}:mem:where}}"

    def lock(self, chat: str) -> str:
        """The lock that serializes a chat's turns."""
        return f"{self.prefix}:chat:{{{chat}}}:lock"

    def personas(self) -> str:
        """The hash of personas by id."""
        return f"{self.prefix}:personas"

    def persona_versions(self) -> str:
        """The hash of persona id → version, bumped by every change (processes cache by it).

        Its hash tag is the whole name of the personas hash, so both hash to one slot (a Redis
        Cluster transaction writes a persona and bumps its version together).
        """
        return f"{self.prefix}:persona_versions{{{self.personas()}}}"

    def user_personas(self) -> str:
        """The hash of person (platform id) → their own persona (name, description)."""
        return f"{self.prefix}:user_personas"

    def token_ratio(self) -> str:
        """The hash of model → learned ratio of reported to estimated input tokens (LORE-11)."""
        return f"{self.prefix}:token_ratio"

    def setting(self, name: str) -> str:
        """A deployment-wide value (e.g. the generated session secret)."""
        return f"{self.prefix}:setting:{name}"

    def room_owner(self, chat: str) -> str:
        """Which browser user owns a web room."""
        return f"{self.prefix}:chat:{{{chat}}}:owner"

    def lorebook(self, book: str, part: str) -> str:
        """A key of one lorebook: ``data`` (the book) or ``version`` (bumped on every change).

        Every lorebook key and the index share the ``{lore}`` tag: a save writes a book and its
        index entry in one transaction, and a turn reads several books' versions in one MGET.
        """
        return f"{self.prefix}:{{lore}}:book:{book}:{part}"

    def document(self, persona: str, part: str) -> str:
        """A key of one persona's documents: ``meta`` (version, embedder), ``docs``, ``chunks``,
        ``vecs``; all in the persona's slot."""
        return f"{self.prefix}:doc:{{{persona}}}:{part}"

    def lorebooks(self) -> str:
        """The hash of lorebook summaries by id (in the lorebooks' slot)."""
        return f"{self.prefix}:{{lore}}:books"

    def token_cache(self, model: str) -> str:
        """Cached exact token counts of one model, by content hash."""
        return f"{self.prefix}:tokens:{model}"
