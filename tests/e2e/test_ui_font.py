"""The page's fallback font in real Chromium (issue 31: "⑂ renders as a box"), on a phone and a
desktop: every non-ASCII character of the page's HTML, scripts and styles, and text in Cyrillic,
Vietnamese and Hebrew, is drawn from the shipped ``Hearth UI`` font alone — Chromium's own
account of the fonts it used (DevTools ``CSS.getPlatformFontsForNode``) names no other — so no
glyph falls back to a system font that may lack it or to a tofu box; the page's text stack ends
with that font, and the licence ships beside it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser

from adapters.web.app import STATIC
from tests.e2e.test_web_ux import SIZES, open_page
from tests.fixtures.servers import WebApp

pytestmark = [pytest.mark.e2e, pytest.mark.browser]

LANGUAGES = "кот и скотина · Tiếng Việt: lửa, lửng, người · שלום עולם · ✓ ✗ ← → ↑ ↓ ↻ ↳ ☰ ⚠ ● ▍ … “quotes”"


def ui_characters() -> str:
    """Every non-ASCII character of the page's files (the inline SVG icons are not text)."""
    found: set[str] = set()
    for path in sorted(Path(STATIC).iterdir()):
        if path.suffix in {".html", ".js", ".css"}:
            found |= {c for c in path.read_text(encoding="utf-8") if ord(c) > 0x7E and not c.isspace()}
    return "".join(sorted(found))


@pytest.mark.parametrize("size", list(SIZES))
async def test_issue_31_every_glyph_of_the_page_comes_from_its_own_font(
    browser: Browser, claude_app: WebApp, size: str
) -> None:
    width, height = SIZES[size]
    page = await open_page(browser, claude_app, width=width, height=height)
    chars = ui_characters()
    assert not [c for c in chars if 0x1F000 <= ord(c) <= 0x1FAFF], "emoji are drawn as inline SVG"
    probe = f"{chars} {LANGUAGES} ABC xyz 0123"
    await page.evaluate(
        """async (text) => {
            await document.fonts.load('16px "Hearth UI"', text);
            const el = document.createElement('p');
            el.id = 'glyph-probe';
            el.style.fontFamily = '"Hearth UI"';  // nothing but the page's font: a gap shows
            el.textContent = text;
            document.body.append(el);
        }""",
        probe,
    )
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("DOM.enable")
    await cdp.send("CSS.enable")
    root = await cdp.send("DOM.getDocument")
    found = await cdp.send(
        "DOM.querySelector", {"nodeId": root["root"]["nodeId"], "selector": "#glyph-probe"}
    )
    used = (await cdp.send("CSS.getPlatformFontsForNode", {"nodeId": found["nodeId"]}))["fonts"]
    assert used and all(f["isCustomFont"] for f in used), used  # no system fallback for any glyph
    assert sum(f["glyphCount"] for f in used) >= len(probe.replace(" ", "")), used

    # and none of them is the font's "missing glyph" box: each drawn unlike U+E000's (no font has it)
    boxes = await page.evaluate(
        """(chars) => {
            const canvas = document.createElement('canvas');
            canvas.width = 48; canvas.height = 48;
            const ctx = canvas.getContext('2d', { willReadFrequently: true });
            const draw = (ch) => {
                ctx.clearRect(0, 0, 48, 48);
                ctx.font = '32px "Hearth UI"';
                ctx.textBaseline = 'middle';
                ctx.fillText(ch, 4, 24);
                return ctx.getImageData(0, 0, 48, 48).data.join(',');
            };
            const tofu = draw('\\uE000');
            const blank = (ctx.clearRect(0, 0, 48, 48), ctx.getImageData(0, 0, 48, 48).data.join(','));
            if (tofu === blank || draw('A') === tofu) return ['the check itself is broken'];
            return [...chars].filter((ch) => draw(ch) === tofu);
        }""",
        probe.replace(" ", ""),
    )
    assert boxes == [], f"drawn as a missing-glyph box: {boxes}"

    stack = await page.evaluate("getComputedStyle(document.body).fontFamily")
    assert '"Hearth UI"' in stack and stack.index('"Hearth UI"') < stack.index("sans-serif")
    woff = await page.request.get(claude_app.base_url + "/static/fonts/hearth-ui.woff")
    assert woff.status == 200 and (await woff.body())[:4] == b"wOFF"
    licence = await page.request.get(claude_app.base_url + "/static/fonts/LICENSE-DejaVu.txt")
    assert licence.status == 200 and "Bitstream" in await licence.text()
    await cdp.detach()
    await page.close()
