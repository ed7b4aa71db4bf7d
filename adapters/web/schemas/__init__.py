"""Request and response types of the web API (msgspec Structs), by domain; ``/schema`` shows them.

They encode to the JSON of ``API.md`` exactly: a field absent from an answer is ``UNSET``.
"""
