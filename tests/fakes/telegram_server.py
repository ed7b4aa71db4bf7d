"""A local fake of the Telegram Bot API for tests: aiohttp in a background thread.

Shaped after the Bot API docs and aiogram 3.31's types. ``/bot<token>/<method>`` takes a query
string, a urlencoded or multipart form (what aiogram sends) or a JSON body, and answers
``{"ok": true, "result": ...}`` or ``{"ok": false, "error_code", "description"[, "parameters"]}``.

Covered: getMe, getUpdates (queued updates; ``offset`` confirms, ``timeout`` long-polls; 409
while a webhook is set), setWebhook / deleteWebhook, sendMessage, sendMessageDraft (Bot API 9:
private chats only, a non-zero ``draft_id``; the chat's draft is kept until the bot sends a
message there, as the app shows it; ``FakeTelegram(drafts=False)`` answers it as an unknown
method, ``404 Not Found``, like a server without it), editMessageText, deleteMessage,
sendChatAction, answerCallbackQuery,
set/getMyCommands, getChat, getChatMember. Checked like Telegram does: the token, empty
or over-long text (4096 UTF-16 units), entities out of range, ``parse_mode=HTML`` tags, unknown
chats and topics, editing a missing or someone else's message, "message is not modified",
callback data over 64 bytes, command names and descriptions. Every request is recorded as a
:class:`Call`; :meth:`FakeTelegram.fail` scripts answers such as a 429 with ``retry_after``.

The builders (:meth:`FakeTelegram.message`, :meth:`FakeTelegram.press`...) make the updates a
user would cause, with the ``mention`` and ``bot_command`` entities Telegram adds, and keep each
chat's messages so that tests assert on what the chat shows (STYLE T7).

Files: :meth:`FakeTelegram.photo` and :meth:`FakeTelegram.document` keep a file's bytes and
return what a message carries (``photo`` sizes, a ``document``); ``getFile`` answers a
``file_path`` (400 "file is too big" over 20 MB, as the Bot API does) and
``GET /file/bot<token>/<path>`` serves the bytes.

Not covered: media sending, inline mode, payments, business, reactions, rate limits of
its own (only scripted ones), MarkdownV2.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from html.parser import HTMLParser
from typing import Any

import msgspec
from aiohttp import web

from tests.fakes.threaded import ThreadedServer

__all__ = ["Call", "Failure", "FakeTelegram", "utf16_len"]

INT_FIELDS = frozenset(
    {
        "chat_id",
        "message_id",
        "offset",
        "limit",
        "timeout",
        "user_id",
        "message_thread_id",
        "max_connections",
        "draft_id",
        "cache_time",
    }
)
JSON_FIELDS = frozenset(
    {
        "reply_markup",
        "entities",
        "allowed_updates",
        "commands",
        "scope",
        "reply_parameters",
        "link_preview_options",
        "caption_entities",
    }
)
ENTITY_TYPES = frozenset(
    {
        "mention",
        "hashtag",
        "cashtag",
        "bot_command",
        "url",
        "email",
        "phone_number",
        "bold",
        "italic",
        "underline",
        "strikethrough",
        "spoiler",
        "blockquote",
        "expandable_blockquote",
        "code",
        "pre",
        "text_link",
        "text_mention",
        "custom_emoji",
        "date_time",
    }
)
HTML_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "code": "code",
    "pre": "pre",
    "a": "text_link",
    "blockquote": "blockquote",
}
ACTIONS = frozenset(
    {
        "typing",
        "upload_photo",
        "record_video",
        "upload_video",
        "record_voice",
        "upload_voice",
        "upload_document",
        "choose_sticker",
        "find_location",
        "record_video_note",
        "upload_video_note",
    }
)
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are "
    "exactly the same as a current content and reply markup of the message"
)
_COMMAND = re.compile(r"[a-z0-9_]{1,32}")
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")
_MENTION = re.compile(r"(?<![\w@])@[A-Za-z0-9_]{3,32}")
_BOT_COMMAND = re.compile(r"/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, as Telegram counts text and entity offsets."""
    return len(text.encode("utf-16-le")) // 2


class Call(msgspec.Struct, frozen=True):
    """One Bot API request: method, decoded parameters, when (``time.monotonic``), HTTP status."""

    method: str
    params: dict[str, Any]
    at: float
    status: int


class Failure(msgspec.Struct, frozen=True):
    """A scripted error answer; ``retry_after`` adds ``parameters.retry_after`` (flood control)."""

    status: int = 429
    description: str = ""
    retry_after: int | None = None


class ApiError(Exception):
    """An error answer of the fake."""

    def __init__(self, status: int, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.status, self.description, self.retry_after = status, description, retry_after


def _bad(description: str) -> ApiError:
    return ApiError(400, f"Bad Request: {description}")


class _Html(HTMLParser):
    """Telegram's HTML subset → (text, entities); raises ApiError like the API does."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text, self.entities, self.stack = "", [], []  # type: ignore[var-annotated]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        kind = HTML_TAGS.get(tag) or ("spoiler" if ("class", "tg-spoiler") in attrs else None)
        if kind is None:
            raise _bad(f'can\'t parse entities: Unsupported start tag "{tag}"')
        self.stack.append((tag, kind, utf16_len(self.text), dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1][0] != tag:
            raise _bad(f'can\'t parse entities: Unmatched end tag "{tag}"')
        _, kind, start, attrs = self.stack.pop()
        entity = {"type": kind, "offset": start, "length": utf16_len(self.text) - start}
        if kind == "text_link":
            entity["url"] = attrs.get("href") or ""
        if entity["length"]:
            self.entities.append(entity)

    def handle_data(self, data: str) -> None:
        self.text += data


def _parse_html(text: str) -> tuple[str, list[dict[str, Any]]]:
    parser = _Html()
    parser.feed(text)
    parser.close()
    if parser.stack:
        raise _bad(f'can\'t parse entities: Unclosed start tag "{parser.stack[-1][0]}"')
    return parser.text, sorted(parser.entities, key=lambda e: e["offset"])


def _auto_entities(text: str) -> list[dict[str, Any]]:
    """The entities Telegram adds to a user's text: a leading command, @mentions."""
    found = []
    if command := _BOT_COMMAND.match(text):
        found.append({"type": "bot_command", "offset": 0, "length": utf16_len(command.group())})
    for hit in _MENTION.finditer(text):
        found.append(
            {"type": "mention", "offset": utf16_len(text[: hit.start()]), "length": utf16_len(hit.group())}
        )
    return found


def _decode(params: dict[str, str]) -> dict[str, Any]:
    decoded: dict[str, Any] = {}
    for key, raw in params.items():
        value: Any = raw
        if key in JSON_FIELDS:
            try:
                value = json.loads(raw)
            except ValueError:
                raise _bad(f"can't parse {key} JSON object") from None
        elif key in INT_FIELDS and re.fullmatch(r"-?\d+", raw):
            value = int(raw)
        elif raw in ("true", "false"):
            value = raw == "true"
        decoded[key] = value
    return decoded


class FakeTelegram(ThreadedServer):
    """The fake server; ``with FakeTelegram() as fake:`` starts and stops it.

    Chat state is a dict per chat id: ``fake.chat(chat_id)`` lists its messages (dicts shaped
    like the API's ``Message``) as they stand now, users' and the bot's alike.
    """

    def __init__(
        self,
        *,
        token: str = "700001:fake-token",
        username: str = "hearth_test_bot",
        first_name: str = "Hearth",
        port: int = 0,
        drafts: bool = True,
    ) -> None:
        super().__init__(port)
        self.token, self.username, self.first_name = token, username, first_name
        self.drafts_known = drafts
        self._drafts: dict[int, list[dict[str, Any]]] = defaultdict(list)
        self._draft_now: dict[int, dict[str, Any]] = {}
        self.bot_id = int(token.split(":", 1)[0])
        self._lock = threading.Lock()
        self._calls: list[Call] = []
        self._arrived: dict[str, int] = defaultdict(int)
        self._failures: dict[str, deque[Failure]] = defaultdict(deque)
        self._updates: list[dict[str, Any]] = []
        self._update_ids = itertools.count(1)
        self._chats: dict[int, dict[str, Any]] = {}
        self._log: dict[int, list[dict[str, Any]]] = defaultdict(list)
        self._message_ids: dict[int, itertools.count[int]] = defaultdict(lambda: itertools.count(1))
        self._members: dict[tuple[int, int], str] = {}
        self._queries: dict[str, dict[str, Any]] = {}
        self._query_ids = itertools.count(1)
        self._commands: dict[tuple[str, str], list[dict[str, str]]] = {}
        self._files: dict[str, bytes] = {}
        self._file_ids = itertools.count(1)
        self.webhook: dict[str, Any] = {}

    # --- lifecycle -------------------------------------------------------------------

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=8 * 2**20)
        app.router.add_route("*", "/bot{token}/{method}", self._on_request)
        app.router.add_get("/file/bot{token}/{path:.+}", self._on_file)
        return app

    async def _on_file(self, request: web.Request) -> web.Response:
        with self._lock:
            self._calls.append(Call("file", {"path": request.match_info["path"]}, time.monotonic(), 200))
            data = self._files.get(request.match_info["path"].rsplit("/", 1)[-1])
        if request.match_info["token"] != self.token or data is None:
            return web.Response(status=404, text="Not Found")
        return web.Response(body=data, content_type="application/octet-stream")

    def file(self, data: bytes) -> dict[str, Any]:
        """Keep a file; its ``file_id``, ``file_unique_id`` and ``file_size``."""
        with self._lock:
            number = next(self._file_ids)
            self._files[f"f{number}"] = data
        return {"file_id": f"f{number}", "file_unique_id": f"u{number}", "file_size": len(data)}

    def photo(self, *sizes: tuple[bytes, int, int]) -> list[dict[str, Any]]:
        """A message's ``photo``: one PhotoSize per (bytes, width, height), smallest first."""
        return [self.file(data) | {"width": w, "height": h} for data, w, h in sizes]

    def document(self, data: bytes, name: str, mime_type: str) -> dict[str, Any]:
        """A message's ``document``."""
        return self.file(data) | {"file_name": name, "mime_type": mime_type}

    async def _api_getfile(self, p: dict[str, Any]) -> dict[str, Any]:
        file_id = str(p.get("file_id", ""))
        with self._lock:
            data = self._files.get(file_id)
        if data is None:
            raise _bad("invalid file_id")
        if len(data) > 20 * 2**20:
            raise _bad("file is too big")
        found = {"file_id": file_id, "file_unique_id": "u" + file_id[1:], "file_size": len(data)}
        return found | {"file_path": f"photos/{file_id}"}

    # --- what tests read and script ---------------------------------------------------

    def calls(self, *methods: str) -> list[Call]:
        """The requests received so far (only ``methods`` when given), oldest first."""
        with self._lock:
            return [c for c in self._calls if not methods or c.method in methods]

    def arrived(self, method: str) -> int:
        """How many requests of ``method`` arrived, answered or not (a long poll is in flight)."""
        with self._lock:
            return self._arrived[method]

    def fail(self, method: str, *failures: Failure) -> None:
        """The next requests of ``method`` get these error answers, one each, in order."""
        with self._lock:
            self._failures[method].extend(failures)

    def chat(self, chat_id: int) -> list[dict[str, Any]]:
        """The chat's messages as they stand now, oldest first."""
        with self._lock:
            return [dict(m) for m in self._log[chat_id]]

    def drafts(self, chat_id: int) -> list[dict[str, Any]]:
        """Every draft the bot showed in the chat (``draft_id``, ``text``, ``entities``), oldest first."""
        with self._lock:
            return [dict(d) for d in self._drafts[chat_id]]

    def draft_shown(self, chat_id: int) -> dict[str, Any] | None:
        """The draft the chat shows now: none once the bot sent a message after it."""
        with self._lock:
            found = self._draft_now.get(chat_id)
            return dict(found) if found else None

    def bot_messages(self, chat_id: int) -> list[dict[str, Any]]:
        """The bot's messages in the chat as they stand now."""
        return [m for m in self.chat(chat_id) if m["from"]["id"] == self.bot_id]

    def commands(self, language_code: str = "", scope: str = "default") -> list[dict[str, str]]:
        """The command menu registered for a language and scope type."""
        with self._lock:
            return list(self._commands.get((scope, language_code), []))

    def set_member(self, chat_id: int, user_id: int, status: str) -> None:
        """``creator``, ``administrator``, ``member``, ``left``... (default ``member``)."""
        with self._lock:
            self._members[(chat_id, user_id)] = status

    def wait(self, predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
        """Polls ``predicate`` until it returns something truthy (from test threads)."""
        deadline = time.monotonic() + timeout
        while not (result := predicate()) and time.monotonic() < deadline:
            time.sleep(0.02)
        if not result:
            raise TimeoutError("the fake Telegram server did not reach the expected state")
        return result

    async def until(self, predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
        """``wait`` for async tests (does not block the event loop)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if result := predicate():
                return result
            await asyncio.sleep(0.02)
        raise TimeoutError("the fake Telegram server did not reach the expected state")

    # --- building what users do -------------------------------------------------------

    def user(
        self,
        user_id: int,
        first_name: str = "Alice",
        *,
        username: str | None = None,
        language_code: str = "en",
    ) -> dict[str, Any]:
        """A person's ``User``."""
        found = {"id": user_id, "is_bot": False, "first_name": first_name, "language_code": language_code}
        return found | ({"username": username} if username else {})

    def private(self, user: dict[str, Any]) -> dict[str, Any]:
        """The private chat with ``user`` (its id is the user's)."""
        return self._register({"id": user["id"], "type": "private", "first_name": user["first_name"]})

    def group(self, chat_id: int, title: str = "The Inn", *, forum: bool = False) -> dict[str, Any]:
        """A supergroup (a forum when ``forum``)."""
        chat = {"id": chat_id, "type": "supergroup", "title": title}
        return self._register(chat | ({"is_forum": True} if forum else {}))

    def channel(self, chat_id: int, title: str = "News") -> dict[str, Any]:
        """A channel."""
        return self._register({"id": chat_id, "type": "channel", "title": title})

    def _register(self, chat: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._chats[chat["id"]] = chat
        return chat

    def message(
        self,
        chat: dict[str, Any],
        user: dict[str, Any] | None,
        text: str | None = None,
        *,
        thread: int | None = None,
        reply_to: dict[str, Any] | None = None,
        **content: Any,
    ) -> dict[str, Any]:
        """A new message from ``user`` in ``chat``, kept in the chat; returns its Update."""
        message: dict[str, Any] = {"chat": chat, "date": int(time.time()), **content}
        if user is not None:
            message["from"] = user
        if text is not None:
            message["text"] = text
            if entities := _auto_entities(text):
                message["entities"] = entities
        if thread is not None:
            message |= {"message_thread_id": thread, "is_topic_message": True}
        if reply_to is not None:
            message["reply_to_message"] = reply_to
        kind = "channel_post" if chat["type"] == "channel" else "message"
        return {"update_id": self._next_update(), kind: self._keep(message)}

    def edit(self, update: dict[str, Any], text: str) -> dict[str, Any]:
        """The user edits the message of ``update``; returns the ``edited_message`` Update."""
        original = update["message"]
        edited = {**original, "text": text, "edit_date": int(time.time())}
        with self._lock:
            log = self._log[original["chat"]["id"]]
            log[:] = [edited if m["message_id"] == original["message_id"] else m for m in log]
        return {"update_id": self._next_update(), "edited_message": edited}

    def press(self, message: dict[str, Any], user: dict[str, Any], data: str) -> dict[str, Any]:
        """``user`` presses the inline button with ``data`` under ``message``."""
        query_id = f"q{next(self._query_ids)}"
        query = {"id": query_id, "from": user, "message": message, "chat_instance": "ci-1", "data": data}
        with self._lock:
            self._queries[query_id] = query
        return {"update_id": self._next_update(), "callback_query": query}

    def enqueue(self, *updates: dict[str, Any]) -> None:
        """Makes updates available to getUpdates."""
        with self._lock:
            self._updates.extend(updates)

    def _next_update(self) -> int:
        with self._lock:
            return next(self._update_ids)

    def _keep(self, message: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            chat_id = message["chat"]["id"]
            message["message_id"] = next(self._message_ids[chat_id])
            self._log[chat_id].append(message)
            return dict(message)

    # --- the API ----------------------------------------------------------------------

    async def _on_request(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        with self._lock:
            self._arrived[method] += 1
        raw: dict[str, str] = dict(request.query)
        if request.content_type == "application/json":
            body = await request.json()
            raw |= {k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()}
        elif request.can_read_body:
            raw |= {k: v for k, v in (await request.post()).items() if isinstance(v, str)}
        try:
            params = _decode(raw)
        except ApiError as error:
            params = {}
            return self._record(method, params, error)
        if request.match_info["token"] != self.token:
            return self._record(method, params, ApiError(401, "Unauthorized"))
        with self._lock:
            failure = self._failures[method].popleft() if self._failures[method] else None
        if failure is not None:
            text = failure.description or (
                f"Too Many Requests: retry after {failure.retry_after}"
                if failure.status == 429
                else "Internal Server Error"
            )
            return self._record(method, params, ApiError(failure.status, text, failure.retry_after))
        handler = getattr(self, f"_api_{method.lower()}", None)
        if method.lower() == "sendmessagedraft" and not self.drafts_known:
            handler = None
        if handler is None:
            return self._record(method, params, ApiError(404, "Not Found"))
        try:
            result = await handler(params)
        except ApiError as error:
            return self._record(method, params, error)
        return self._record(method, params, result)

    def _record(self, method: str, params: dict[str, Any], outcome: Any) -> web.Response:
        status = outcome.status if isinstance(outcome, ApiError) else 200
        with self._lock:
            self._calls.append(Call(method, params, time.monotonic(), status))
        if not isinstance(outcome, ApiError):
            return web.json_response({"ok": True, "result": outcome})
        body: dict[str, Any] = {"ok": False, "error_code": outcome.status, "description": outcome.description}
        if outcome.retry_after is not None:
            body["parameters"] = {"retry_after": outcome.retry_after}
        return web.json_response(body, status=outcome.status)

    def _me(self) -> dict[str, Any]:
        return {"id": self.bot_id, "is_bot": True, "first_name": self.first_name, "username": self.username}

    async def _api_getme(self, _: dict[str, Any]) -> dict[str, Any]:
        return self._me() | {
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    async def _api_getupdates(self, p: dict[str, Any]) -> list[dict[str, Any]]:
        if self.webhook.get("url"):
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset, limit = p.get("offset", 0), max(1, min(100, p.get("limit", 100)))
        deadline = time.monotonic() + min(max(0, p.get("timeout", 0)), 30)
        while True:
            with self._lock:
                if offset > 0:
                    self._updates = [u for u in self._updates if u["update_id"] >= offset]
                ready = self._updates[offset:] if offset < 0 else list(self._updates)
            if ready or time.monotonic() >= deadline:
                return ready[:limit]
            await asyncio.sleep(0.02)

    async def _api_setwebhook(self, p: dict[str, Any]) -> bool:
        url, secret = p.get("url", ""), p.get("secret_token")
        if url and not url.startswith(("https://", "http://")):
            raise _bad("bad webhook: An HTTPS URL must be provided for webhook")
        if secret is not None and not _SECRET.fullmatch(secret):
            raise _bad("secret token contains unallowed characters")
        self.webhook = {"url": url, "secret_token": secret, "allowed_updates": p.get("allowed_updates")}
        return True

    async def _api_deletewebhook(self, p: dict[str, Any]) -> bool:
        self.webhook = {}
        if p.get("drop_pending_updates"):
            with self._lock:
                self._updates.clear()
        return True

    def _known_chat(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._chats.get(p.get("chat_id"))  # type: ignore[arg-type]
        if chat is None:
            raise _bad("chat not found")
        return chat

    def _content(self, p: dict[str, Any]) -> tuple[str, list[dict[str, Any]]]:
        text = p.get("text", "")
        if p.get("parse_mode") == "HTML":
            text, entities = _parse_html(text)
        elif p.get("parse_mode"):
            raise _bad(f"unsupported parse_mode {p['parse_mode']!r} in this fake")
        else:
            entities = list(p.get("entities") or [])
        if not entities:
            text = text.strip()
        if not text.strip():
            raise _bad("message text is empty")
        size = utf16_len(text)
        if size > 4096:
            raise _bad("message is too long")
        for e in entities:
            if (
                e.get("type") not in ENTITY_TYPES
                or e.get("offset", -1) < 0
                or e.get("length", 0) <= 0
                or e["offset"] + e["length"] > size
            ):
                raise _bad(f"can't parse entities: wrong entity {e!r}")
        return text, entities

    @staticmethod
    def _check_markup(markup: Any) -> None:
        for row in (markup or {}).get("inline_keyboard", []):
            for button in row:
                if len(button.get("callback_data", "").encode()) > 64:
                    raise _bad("BUTTON_DATA_INVALID")

    async def _api_sendmessagedraft(self, p: dict[str, Any]) -> bool:
        chat = self._known_chat(p)
        if chat["type"] != "private":
            raise _bad("TEXTDRAFT_PEER_INVALID")
        if not isinstance(p.get("draft_id"), int) or p["draft_id"] == 0:
            raise _bad("draft_id must be a non-zero integer")
        if p.get("message_thread_id"):
            raise _bad("message thread not found")
        text = p.get("text", "")
        entities: list[dict[str, Any]] = []
        if text.strip():  # an empty draft shows "Thinking…"
            text, entities = self._content(p)
        draft = {"draft_id": p["draft_id"], "text": text} | ({"entities": entities} if entities else {})
        with self._lock:
            self._drafts[chat["id"]].append(draft)
            self._draft_now[chat["id"]] = draft
        return True

    async def _api_sendmessage(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._known_chat(p)
        text, entities = self._content(p)
        with self._lock:
            self._draft_now.pop(chat["id"], None)  # a message from the bot ends its draft
        self._check_markup(p.get("reply_markup"))
        message: dict[str, Any] = {"chat": chat, "from": self._me(), "date": int(time.time()), "text": text}
        if entities:
            message["entities"] = entities
        if thread := p.get("message_thread_id"):
            if not chat.get("is_forum"):
                raise _bad("message thread not found")
            message |= {"message_thread_id": thread, "is_topic_message": True}
        if p.get("reply_markup"):
            message["reply_markup"] = p["reply_markup"]
        if (reply := p.get("reply_parameters")) and not self._find(chat["id"], reply["message_id"]):
            if not reply.get("allow_sending_without_reply"):
                raise _bad("message to be replied not found")
        elif reply:
            message["reply_to_message"] = self._find(chat["id"], reply["message_id"])
        return self._keep(message)

    def _find(self, chat_id: int, message_id: int) -> dict[str, Any] | None:
        with self._lock:
            return next((m for m in self._log[chat_id] if m["message_id"] == message_id), None)

    def _own(self, p: dict[str, Any], verb: str) -> dict[str, Any]:
        found = self._find(self._known_chat(p)["id"], p.get("message_id", 0))
        if found is None:
            raise _bad(f"message to {verb} not found")
        if found["from"]["id"] != self.bot_id and verb == "edit":
            raise _bad("message can't be edited")
        return found

    def _replace(self, old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            log = self._log[old["chat"]["id"]]
            log[:] = [new if m is old else m for m in log]
        return dict(new)

    async def _api_editmessagetext(self, p: dict[str, Any]) -> dict[str, Any]:
        old = self._own(p, "edit")
        text, entities = self._content(p)
        self._check_markup(p.get("reply_markup"))
        new = {k: v for k, v in old.items() if k not in ("entities", "reply_markup")}
        new |= {"text": text, "edit_date": int(time.time())}
        if entities:
            new["entities"] = entities
        if p.get("reply_markup"):
            new["reply_markup"] = p["reply_markup"]
        same = ("text", "entities", "reply_markup")
        if all(old.get(k) == new.get(k) for k in same):
            raise _bad(NOT_MODIFIED)
        return self._replace(old, new)

    async def _api_deletemessage(self, p: dict[str, Any]) -> bool:
        old = self._own(p, "delete")
        with self._lock:
            log = self._log[old["chat"]["id"]]
            log[:] = [m for m in log if m is not old]
        return True

    async def _api_sendchataction(self, p: dict[str, Any]) -> bool:
        chat = self._known_chat(p)
        if p.get("action") not in ACTIONS:
            raise _bad("wrong parameter action in request")
        if p.get("message_thread_id") and not chat.get("is_forum"):
            raise _bad("message thread not found")
        return True

    async def _api_answercallbackquery(self, p: dict[str, Any]) -> bool:
        with self._lock:
            query = self._queries.pop(p.get("callback_query_id", ""), None)
        if query is None:
            raise _bad("query is too old and response timeout expired or query ID is invalid")
        return True

    async def _api_setmycommands(self, p: dict[str, Any]) -> bool:
        commands = p.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise _bad("commands must be a list of at most 100 commands")
        for c in commands:
            if not _COMMAND.fullmatch(str(c.get("command", ""))):
                raise _bad("BOT_COMMAND_INVALID")
            if not 1 <= len(str(c.get("description", "")).strip()) <= 256:
                raise _bad("BOT_COMMAND_DESCRIPTION_INVALID")
        key = ((p.get("scope") or {}).get("type", "default"), p.get("language_code", ""))
        with self._lock:
            self._commands[key] = commands
        return True

    async def _api_getmycommands(self, p: dict[str, Any]) -> list[dict[str, str]]:
        return self.commands(p.get("language_code", ""), (p.get("scope") or {}).get("type", "default"))

    async def _api_getchat(self, p: dict[str, Any]) -> dict[str, Any]:
        gifts = dict.fromkeys(
            (
                "unlimited_gifts",
                "limited_gifts",
                "unique_gifts",
                "premium_subscription",
                "gifts_from_channels",
            ),
            False,
        )
        return self._known_chat(p) | {
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": gifts,
        }

    async def _api_getchatmember(self, p: dict[str, Any]) -> dict[str, Any]:
        chat = self._known_chat(p)
        user_id = p.get("user_id")
        status = self._members.get((chat["id"], user_id), "member")  # type: ignore[arg-type]
        member: dict[str, Any] = {
            "status": status,
            "user": {"id": user_id, "is_bot": False, "first_name": "?"},
        }
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            member |= dict.fromkeys(
                (
                    "can_be_edited",
                    "is_anonymous",
                    "can_manage_chat",
                    "can_delete_messages",
                    "can_manage_video_chats",
                    "can_restrict_members",
                    "can_promote_members",
                    "can_change_info",
                    "can_invite_users",
                    "can_post_stories",
                    "can_edit_stories",
                    "can_delete_stories",
                    "can_send_welcome_messages",
                ),
                False,
            )
        return member
