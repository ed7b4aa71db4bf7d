"""Recall templates written blind (docs/RECALL.md, "Seventh round", "Eighth round"), three sets.

One module a language and set (``recall_fresh_<lang>.py``, ``recall_fresh2_<lang>.py``,
``recall_fresh3_<lang>.py``), each
written by an author (a helper agent given only the table's shape) who had not seen
``recall_templates``, the other sets, the scoring code or its figures. Set 1 (``FRESH1``) has
fact kinds other than the development set's twelve; set 2 (``FRESH2``) at least 7 kinds of 12
outside both. Same shape as a ``recall_templates`` table: ``names``, ``facts`` (values, the
memory, four recall messages, two near-misses), ``small``. Set 1 was the held-out split for
one look (round 7), set 2 for one look (round 8); both are development data since. Set 3
(``FRESH3``, round 8, five more authors: at least 8 kinds of 12 outside every other set, a
third of the small talk longer lines with everyday content) was the held-out split for one
look (round 9) and is development data since. Set 4 (``FRESH4``, written in round 9 by five
more authors, the same brief with the kinds of set 3 also excluded) is the held-out split. Set 5
(``FRESH5``, ``recall_fresh5_<lang>.py``, written in round 10 by five more authors, every kind
of the sets before excluded) is kept for the next held-out split.
"""

from __future__ import annotations

from typing import Any

from bench import (
    recall_fresh2_en,
    recall_fresh2_he,
    recall_fresh2_pt,
    recall_fresh2_ru,
    recall_fresh2_vi,
    recall_fresh3_en,
    recall_fresh3_he,
    recall_fresh3_pt,
    recall_fresh3_ru,
    recall_fresh3_vi,
    recall_fresh4_en,
    recall_fresh4_he,
    recall_fresh4_pt,
    recall_fresh4_ru,
    recall_fresh4_vi,
    recall_fresh5_en,
    recall_fresh5_he,
    recall_fresh5_pt,
    recall_fresh5_ru,
    recall_fresh5_vi,
    recall_fresh_en,
    recall_fresh_he,
    recall_fresh_pt,
    recall_fresh_ru,
    recall_fresh_vi,
)

__all__ = ["FRESH1", "FRESH2", "FRESH3", "FRESH4", "FRESH5"]

FRESH1: dict[str, dict[str, Any]] = {
    "en": recall_fresh_en.TABLE,
    "ru": recall_fresh_ru.TABLE,
    "pt": recall_fresh_pt.TABLE,
    "vi": recall_fresh_vi.TABLE,
    "he": recall_fresh_he.TABLE,
}
FRESH2: dict[str, dict[str, Any]] = {
    "en": recall_fresh2_en.TABLE,
    "ru": recall_fresh2_ru.TABLE,
    "pt": recall_fresh2_pt.TABLE,
    "vi": recall_fresh2_vi.TABLE,
    "he": recall_fresh2_he.TABLE,
}
FRESH3: dict[str, dict[str, Any]] = {
    "en": recall_fresh3_en.TABLE,
    "ru": recall_fresh3_ru.TABLE,
    "pt": recall_fresh3_pt.TABLE,
    "vi": recall_fresh3_vi.TABLE,
    "he": recall_fresh3_he.TABLE,
}
FRESH4: dict[str, dict[str, Any]] = {
    "en": recall_fresh4_en.TABLE,
    "ru": recall_fresh4_ru.TABLE,
    "pt": recall_fresh4_pt.TABLE,
    "vi": recall_fresh4_vi.TABLE,
    "he": recall_fresh4_he.TABLE,
}
FRESH5: dict[str, dict[str, Any]] = {
    "en": recall_fresh5_en.TABLE,
    "ru": recall_fresh5_ru.TABLE,
    "pt": recall_fresh5_pt.TABLE,
    "vi": recall_fresh5_vi.TABLE,
    "he": recall_fresh5_he.TABLE,
}
