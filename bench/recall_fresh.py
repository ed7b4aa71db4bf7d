"""The held-out split since round 7 (docs/RECALL.md, "Seventh round"): templates written blind.

One module a language (``recall_fresh_<lang>.py``), each written by an author who had not seen
``recall_templates``, the other development data, the scoring code or its figures, with fact
kinds other than the development set's twelve. Same shape as a ``recall_templates`` table:
``names``, ``facts`` (values, the memory, four recall messages, two near-misses), ``small``.
"""

from __future__ import annotations

from typing import Any

from bench.recall_fresh_en import TABLE as EN
from bench.recall_fresh_he import TABLE as HE
from bench.recall_fresh_pt import TABLE as PT
from bench.recall_fresh_ru import TABLE as RU
from bench.recall_fresh_vi import TABLE as VI

__all__ = ["FRESH"]

FRESH: dict[str, dict[str, Any]] = {"en": EN, "ru": RU, "pt": PT, "vi": VI, "he": HE}
