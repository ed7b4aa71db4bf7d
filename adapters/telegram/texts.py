"""The command menu (setMyCommands) in the languages the menu is offered in, and help texts.

Only commands that work are listed. Telegram shows the menu in the user's app language when
one was registered for it; the default (English) list serves everyone else.
"""

from __future__ import annotations

__all__ = ["COMMANDS", "LANGUAGES", "help_text", "menu"]

COMMANDS: tuple[str, ...] = (
    "start",
    "help",
    "memories",
    "personal",
    "remember",
    "forget",
    "clear",
    "privacy",
    "notices",
    "memory",
    "summary",
    "regenerate",
    "lore",
    "persona",
    "link",
)

_MENU: dict[str, dict[str, str]] = {
    "": {
        "start": "Say hello",
        "help": "What I can do",
        "memories": "What I remember about this chat",
        "personal": "What I remember about you",
        "remember": "Remember something",
        "forget": "Forget a memory",
        "clear": "Forget all memories here",
        "privacy": "Personal memory on or off",
        "notices": "How I tell about memory changes",
        "memory": "Memory off or on in this chat",
        "summary": "Summaries of this conversation",
        "regenerate": "Write my last reply again",
        "lore": "Lorebooks of this chat",
        "persona": "Choose who talks here",
        "link": "Link your web account",
    },
    "ru": {
        "start": "Поздороваться",
        "help": "Что я умею",
        "memories": "Что я помню об этом чате",
        "personal": "Что я помню о вас",
        "remember": "Запомнить что-нибудь",
        "forget": "Забыть воспоминание",
        "clear": "Забыть всё в этом чате",
        "privacy": "Личная память: включить или выключить",
        "notices": "Как я сообщаю об изменениях памяти",
        "memory": "Память в этом чате: выкл. или вкл.",
        "summary": "Сводки этого разговора",
        "regenerate": "Переписать мой последний ответ",
        "lore": "Лорбуки этого чата",
        "persona": "Выбрать, кто говорит здесь",
        "link": "Связать с веб-аккаунтом",
    },
    "pt": {
        "start": "Dizer olá",
        "help": "O que eu sei fazer",
        "memories": "O que lembro deste chat",
        "personal": "O que lembro de você",
        "remember": "Lembrar algo",
        "forget": "Esquecer uma memória",
        "clear": "Esquecer todas as memórias daqui",
        "privacy": "Memória pessoal ligada ou desligada",
        "notices": "Como aviso mudanças na memória",
        "memory": "Memória desligada ou ligada neste chat",
        "summary": "Resumos desta conversa",
        "regenerate": "Reescrever minha última resposta",
        "lore": "Lorebooks deste chat",
        "persona": "Escolher quem fala aqui",
        "link": "Vincular sua conta web",
    },
    "vi": {
        "start": "Chào hỏi",
        "help": "Tôi có thể làm gì",
        "memories": "Những gì tôi nhớ về cuộc trò chuyện này",
        "personal": "Những gì tôi nhớ về bạn",
        "remember": "Ghi nhớ một điều",
        "forget": "Quên một ký ức",
        "clear": "Quên mọi ký ức ở đây",
        "privacy": "Bật hoặc tắt bộ nhớ cá nhân",
        "notices": "Cách tôi báo thay đổi bộ nhớ",
        "memory": "Tắt hoặc bật bộ nhớ trong cuộc trò chuyện này",
        "summary": "Tóm tắt cuộc trò chuyện này",
        "regenerate": "Viết lại câu trả lời gần nhất",
        "lore": "Lorebook của cuộc trò chuyện này",
        "persona": "Chọn ai trò chuyện ở đây",
        "link": "Liên kết tài khoản web",
    },
    "he": {
        "start": "להגיד שלום",
        "help": "מה אני יודע לעשות",
        "memories": "מה אני זוכר על הצ'אט הזה",
        "personal": "מה אני זוכר עליך",
        "remember": "לזכור משהו",
        "forget": "לשכוח זיכרון",
        "clear": "לשכוח את כל הזיכרונות כאן",
        "privacy": "זיכרון אישי: פעיל או כבוי",
        "notices": "איך אני מדווח על שינויי זיכרון",
        "memory": "זיכרון כבוי או פועל בצ'אט הזה",
        "summary": "סיכומים של השיחה",
        "regenerate": "לכתוב מחדש את התשובה האחרונה",
        "lore": "ספרי הידע (lorebooks) של הצ'אט",
        "persona": "לבחור מי מדבר כאן",
        "link": "קישור לחשבון האינטרנט",
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
        "**Memories.** `/remember <text>` (or `/remember` in reply to a message): in a private chat I "
        "remember it about you, everywhere; "
        "in a group, an admin's becomes a memory of the group and anyone else's a personal one "
        "for this group. `/forget <id or words>` forgets one (ids are shown by /memories and "
        "/personal). In groups only admins change the group's memories; /personal is sent to you "
        "privately. `/clear` forgets the unpinned memories here and asks separately about pinned "
        "ones; `/clear personal` does that for yours. `/notices off|brief|full` sets how much I "
        "say when I save or forget memories (group admins). `/memory off` switches this chat to "
        "memory off: I neither read nor save memories here, a clean slate every time; `/memory on` "
        "brings them back (group admins).",
        "",
        "`/lore attach <id>` and `/lore detach <id>` choose the lorebooks of this chat (group admins only).",
        "`/persona` chooses who talks in this chat (group admins only).",
    ]
    return "\n".join(lines)
