"""The Telegram adapter on aiogram 3 (PLT-1..3, PLT-5, PLT-6).

- ``bot``: Bot and Dispatcher built from a ``Hearth`` (``TelegramApp``), update de-duplication.
- ``routers/``: one Router per feature (chat, start/help, regenerate, lore, unknown, ignored, errors).
- ``normalize``: Telegram message → ``IncomingMessage``; who is addressed in groups.
- ``delivery`` / ``render`` / ``flood``: streaming replies by edits, Markdown → entities,
  splitting at 4096, flood control.
- ``polling`` (the ``worker`` process) and ``webhook`` (the ``web`` process).

Importing aiogram takes seconds, so nothing here is imported unless Telegram is configured;
this package's ``__init__`` imports nothing.
"""

__all__: list[str] = []
