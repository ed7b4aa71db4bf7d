"""The Telegram adapter on aiogram 3 (PLT-1..3, PLT-5, PLT-6).

- ``bot``: Bot and Dispatcher built from the process's ``Hearth`` (``TelegramApp``), update de-duplication.
- ``routers/``: one Router per feature (chat, start/help, memories, remember/forget, clear,
  privacy, notices, summary, link, regenerate, lore, unknown, ignored, errors).
- ``access``: who may change what (group admins, the person themselves).
- ``memory_access`` / ``memory_views``: which memory lists a command works on, and how they look
  (pages, buttons, confirmations by the space's notice level).
- ``normalize``: Telegram message → ``IncomingMessage``; who is addressed in groups.
- ``delivery`` / ``render`` / ``flood``: streaming replies by edits, Markdown → entities,
  splitting at 4096, flood control.
- ``polling`` (the ``worker`` process) and ``webhook`` (the ``web`` process).

Importing aiogram takes seconds, so nothing here is imported unless Telegram is configured;
this package's ``__init__`` imports nothing.
"""

__all__: list[str] = []
