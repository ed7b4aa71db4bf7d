"""A small client for the web process, as an operator or a browser uses it (STYLE T6)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import websockets

from tests.fixtures.servers import ADMIN_TOKEN

__all__ = ["BrowserClient", "HearthClient"]


class HearthClient:
    """The operator REST API with the admin token."""

    def __init__(self, base_url: str, token: str | None = ADMIN_TOKEN) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.AsyncClient(base_url=base_url, headers=headers, timeout=30)

    async def send(self, chat: str, text: str, *, user: str = "alice", **extra: Any) -> httpx.Response:
        """POST a chat message."""
        return await self.http.post(f"/api/chats/{chat}/messages", json={"user": user, "text": text, **extra})

    async def history(self, chat: str) -> list[dict[str, Any]]:
        """The chat's messages."""
        response = await self.http.get(f"/api/chats/{chat}/messages")
        response.raise_for_status()
        return list(response.json()["messages"])

    async def turn(self, chat: str, turn: str) -> dict[str, Any]:
        """A turn's request log."""
        response = await self.http.get(f"/api/chats/{chat}/turns/{turn}")
        response.raise_for_status()
        return dict(response.json())

    async def close(self) -> None:
        """Close the connection pool."""
        await self.http.aclose()


class BrowserClient:
    """What the chat page does: a session cookie, then the WebSocket."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.http = httpx.AsyncClient(base_url=base_url, timeout=30)
        self.session: dict[str, Any] = {}

    async def open(self, persona: str = "default") -> dict[str, Any]:
        """Load the session like the page does."""
        response = await self.http.get("/app/session", params={"persona": persona})
        response.raise_for_status()
        self.session = response.json()
        return self.session

    def cookie_header(self) -> str:
        """The session cookie as a Cookie header."""
        return "; ".join(f"{k}={v}" for k, v in self.http.cookies.items())

    async def chat(
        self,
        text: str,
        chat: str | None = None,
        cookie: str | None = None,
        *,
        images: list[dict[str, str]] | None = None,
    ) -> list[dict[str, Any]]:
        """Send one message (with ``images``: pictures) over the WebSocket and collect frames
        until done/error."""
        url = self.base_url.replace("http", "ws", 1) + f"/ws/chats/{chat or self.session['chat']}"
        headers = {"Cookie": cookie if cookie is not None else self.cookie_header()}
        frames: list[dict[str, Any]] = []
        frame: dict[str, Any] = {"type": "message", "text": text}
        if images is not None:
            frame["images"] = images
        async with websockets.connect(url, additional_headers=headers, max_size=None) as ws:
            await ws.send(json.dumps(frame))
            while True:
                frame = json.loads(await ws.recv())
                frames.append(frame)
                if frame["type"] in ("done", "error"):
                    return frames

    async def close(self) -> None:
        """Close the connection pool."""
        await self.http.aclose()
