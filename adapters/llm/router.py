"""Per-persona providers (LLM-1): a ``ChatModel`` that hands each call to the provider it names.

A persona may name a provider (``[model] provider`` in its TOML, or the web editor); the
service puts the resolved provider on the call's ``ModelSettings``, and this router streams
from that provider's model. ``provider`` is the deployment's, the default.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

from engine.errors import LLMUnavailable
from engine.model import ModelSettings
from engine.ports import ChatModel, ModelEvent
from engine.prompt import Prompt
from engine.tools import ToolSpec

__all__ = ["ProviderRouter"]


class ProviderRouter:
    """Implements ``ChatModel`` over the configured providers' models."""

    def __init__(self, default: ChatModel, others: Mapping[str, ChatModel]) -> None:
        self.inner = default
        self.provider = default.provider
        self._models = {**others, default.provider: default}

    def __getattr__(self, name: str) -> object:  # the client, attempts... of the default model
        return getattr(self.inner, name)

    @property
    def providers(self) -> tuple[str, ...]:
        """The providers this router can reach."""
        return tuple(self._models)

    async def stream(
        self,
        prompt: Prompt,
        settings: ModelSettings,
        persona_name: str,
        tools: tuple[ToolSpec, ...] = (),
    ) -> AsyncIterator[ModelEvent]:
        """See ``engine.ports.ChatModel.stream``; ``settings.provider`` picks the model."""
        wanted = settings.provider or self.provider
        model = self._models.get(wanted)
        if model is None:
            raise LLMUnavailable(
                f"the provider {wanted!r} is not configured on this deployment", code="llm_provider_missing"
            )
        async for event in model.stream(prompt, settings, persona_name, tools):
            yield event
