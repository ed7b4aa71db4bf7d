"""The command menu (setMyCommands) in the languages the menu is offered in, and help texts.

Only commands that work are listed (phase 2 adds the memory commands when they land).
Telegram shows the menu in the user's app language when one was registered for it; the
default (English) list serves everyone else.
"""

from __future__ import annotations

__all__ = ["COMMANDS", "LANGUAGES", "help_text", "menu"]

COMMANDS: tuple[str, ...] = ("start", "help", "regenerate", "lore")

_MENU: dict[str, dict[str, str]] = {
    "": {
        "start": "Say hello",
        "help": "What I can do",
        "regenerate": "Write my last reply again",
        "lore": "Lorebooks of this chat",
    },
    "ru": {
        "start": "Поздороваться",
        "help": "Что я умею",
        "regenerate": "Переписать мой последний ответ",
        "lore": "Лорбуки этого чата",
    },
    "pt": {
        "start": "Dizer olá",
        "help": "O que eu sei fazer",
        "regenerate": "Reescrever minha última resposta",
        "lore": "Lorebooks deste chat",
    },
    "vi": {
        "start": "Chào hỏi",
        "help": "Tôi có thể làm gì",
        "regenerate": "Viết lại câu trả lời gần nhất",
        "lore": "Lorebook của cuộc trò chuyện này",
    },
    "he": {
        "start": "להגיד שלום",
        "help": "מה אני יודע לעשות",
        "regenerate": "לכתוב מחדש את התשובה האחרונה",
        "lore": "ספרי הידע (lorebooks) של הצ'אט",
    },
}

LANGUAGES: tuple[str, ...] = tuple(code for code in _MENU if code)


def menu(language: str = "") -> list[tuple[str, str]]:
    """``(command, description)`` pairs for one language (``""`` = the default list)."""
    texts = _MENU.get(language, _MENU[""])
    return [(command, texts[command]) for command in COMMANDS]


def help_text(persona: str, username: str | None) -> str:
    """The /help message (Markdown)."""
    handle = f"@{username}" if username else persona
    lines = [
        f"I'm **{persona}**. Talk to me here like to a friend.",
        "",
        f"In groups I read along and answer when you mention {handle} or my name, "
        "or reply to one of my messages.",
        "",
        *(f"/{command} — {description}" for command, description in menu()),
        "",
        "`/lore attach <id>` and `/lore detach <id>` choose the lorebooks of this chat (group admins only).",
    ]
    return "\n".join(lines)
