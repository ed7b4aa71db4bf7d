"""JSON request bodies decoded into msgspec Structs with the API's own errors (API.md).

Handlers declare ``data: JSONBody[SomeBody]`` (so ``/schema`` documents the body) on a layer with
``dto=StrictJSON, return_dto=None`` and the :func:`body_required` guard (``adapters.web.layers``).
The :class:`StrictJSON` DTO decodes with :func:`adapters.web.api.decode_body` (strict types, no
unknown fields, 400 ``invalid_json``, 422 ``invalid_body`` / ``json_too_deep``) instead of
Litestar's lenient conversion, and :func:`body_required` answers an empty body like a malformed
one (400 ``invalid_json``) before Litestar would call it a missing ``data`` field.

The body is decoded before the route's dependencies resolve: a bad body is answered before the
browser session is checked (the ``/app`` router's CSRF guard and the admin guard still run first).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import msgspec
from litestar import Request
from litestar.connection import ASGIConnection
from litestar.dto import AbstractDTO, DTOConfig, DTOFieldDefinition
from litestar.handlers.base import BaseRouteHandler
from litestar.openapi.spec import Reference, Schema
from litestar.typing import FieldDefinition

from adapters.web.api import decode_body

__all__ = ["StrictJSON", "body_required"]


class StrictJSON(AbstractDTO[Any]):
    """Decode ``data`` strictly into the handler's annotated Struct; never used for responses."""

    config = DTOConfig()

    @classmethod
    def generate_field_definitions(cls, model_type: type[Any]) -> Generator[DTOFieldDefinition, None, None]:
        """Unused: the Struct is decoded as it is, not through transfer models."""
        yield from ()

    @classmethod
    def detect_nested_field(cls, field_definition: FieldDefinition) -> bool:
        """Unused (no transfer models)."""
        return False

    @classmethod
    def is_supported_model_type_field(cls, field_definition: FieldDefinition) -> bool:
        """Responses are encoded by Litestar as they are: this DTO only reads bodies."""
        return False

    @classmethod
    def create_for_field_definition(
        cls, field_definition: FieldDefinition, handler_id: str, backend_cls: Any = None
    ) -> None:
        """Nothing to build: :meth:`decode_bytes` reads the handler's annotation."""

    @classmethod
    def create_openapi_schema(
        cls, field_definition: FieldDefinition, handler_id: str, schema_creator: Any
    ) -> Reference | Schema:
        """The body's schema is the Struct's own."""
        schema: Reference | Schema = schema_creator.for_field_definition(
            FieldDefinition.from_annotation(field_definition.annotation)
        )
        return schema

    def decode_bytes(self, value: bytes) -> Any:
        """The body as the handler's ``data`` Struct, or the API's 400/422."""
        field = self.asgi_connection.route_handler.parsed_data_field
        return decode_body(value, field.annotation)


async def body_required(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """Guard: an empty body where ``data`` is expected is 400 ``invalid_json``, like bad JSON."""
    if isinstance(connection, Request) and getattr(handler, "parsed_data_field", None) is not None:
        raw = await connection.body()
        if not raw:
            decode_body(raw, msgspec.Struct)  # raises the API's invalid_json
