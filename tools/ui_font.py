"""Build the page's fallback font: a subset of DejaVu Sans with every glyph the UI uses.

    python tools/ui_font.py [--source /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf]

Reproducible from Debian's ``fonts-dejavu-core`` (the source) and ``fonttools`` (the ``fonts``
extra): the same inputs give the same file. It keeps Basic Latin, Latin-1 and Latin Extended
(Vietnamese included), the combining accents, Greek, Cyrillic, Hebrew, general punctuation,
arrows, the box, block and geometric shapes, the symbols and dingbats the page shows, plus every
other non-ASCII character found in ``adapters/web/static`` — and stops with an error naming any
of those the source font lacks, so the page never shows a tofu box for its own text. Writes
``adapters/web/static/fonts/hearth-ui.woff`` and the font's licence beside it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "adapters" / "web" / "static"
OUT = STATIC / "fonts"
SOURCE = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
LICENCE = Path("/usr/share/doc/fonts-dejavu-core/copyright")
RANGES = [
    (0x0020, 0x007E),  # Basic Latin
    (0x00A0, 0x024F),  # Latin-1, Latin Extended-A and -B
    (0x0300, 0x036F),  # combining diacritical marks
    (0x0370, 0x03FF),  # Greek
    (0x0400, 0x04FF),  # Cyrillic
    (0x0590, 0x05FF),  # Hebrew
    (0x1EA0, 0x1EF9),  # Latin Extended Additional: Vietnamese
    (0x2000, 0x206F),  # general punctuation
    (0x20AC, 0x20AC),  # euro sign
    (0x2190, 0x21FF),  # arrows
    (0x2500, 0x25FF),  # box drawing, blocks, geometric shapes
    (0x2600, 0x26FF),  # miscellaneous symbols (☰ ⚠)
    (0x2700, 0x27BF),  # dingbats (✓ ✗)
]
REQUIRED = "←→↑↓↻↳✓✗✔☰⚠●▍×·…“”‘’‹›—–кот скотина Tiếng Việt lửa lửng שלום"
"""Characters the page must show even if no static file holds them today (arrows, marks, and
words of the languages people write in: Cyrillic, Vietnamese, Hebrew). The branch mark ⑂ is in
no free sans font at hand; the page writes branches with ↳."""


def ui_characters() -> set[str]:
    """Every non-ASCII character of the page's HTML, scripts and styles."""
    found: set[str] = set()
    for path in sorted(STATIC.glob("*")):
        if path.suffix in {".html", ".js", ".css"}:
            found |= {c for c in path.read_text(encoding="utf-8") if ord(c) > 0x7E}
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE)
    parser.add_argument("--licence", type=Path, default=LICENCE)
    args = parser.parse_args()
    font = TTFont(args.source, recalcTimestamp=False)
    cmap = set(font.getBestCmap())
    needed = {ord(c) for c in ui_characters() | set(REQUIRED) if not c.isspace()}
    wanted = {cp for low, high in RANGES for cp in range(low, high + 1)} | needed
    missing = sorted(cp for cp in needed if cp not in cmap and not 0x1F000 <= cp <= 0x1FAFF)
    if missing:
        names = ", ".join(f"U+{cp:04X} {chr(cp)}" for cp in missing)
        sys.stderr.write(f"{args.source.name} lacks {names}: use inline SVG or another source\n")
        return 1
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    options.recalc_timestamp = False  # the same inputs give the same bytes
    sub = subset.Subsetter(options)
    sub.populate(unicodes=sorted(wanted & cmap))
    sub.subset(font)
    OUT.mkdir(parents=True, exist_ok=True)
    target = OUT / "hearth-ui.woff"
    subset.save_font(font, str(target), options)
    shutil.copyfile(args.licence, OUT / "LICENSE-DejaVu.txt")
    size = target.stat().st_size
    sys.stdout.write(f"{target.relative_to(ROOT)}: {len(wanted & cmap)} characters, {size:,} bytes\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
