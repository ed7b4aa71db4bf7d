r"""Import/export codecs for lorebooks and character cards (LORE-13, LORE-6, LORE-8).

Formats: SillyTavern World Info JSON; Character Card V1/V2/V3 (JSON, PNG with ``chara``/
``ccv3`` text chunks, CHARX zip) and their ``character_book``; standalone ``lorebook_v3``.
The container is sniffed by magic bytes (PNG signature, ``PK\\x03\\x04``, else JSON); the
card version comes from the JSON ``spec``, never from the PNG chunk name; ``ccv3`` is
preferred over ``chara``.

Order: files say "lower ``insertion_order``/``order`` goes earlier", Hearth says "higher
``order`` goes earlier", so ``order = -insertion_order`` both ways (see ``mapping``).
Unknown fields of every level survive a round trip (``extensions``/``extra`` pairs); the
normalizations an export applies are listed in ``worldinfo`` and ``cardbook``.
"""

from __future__ import annotations

from adapters.cards.card import CardPersona
from adapters.cards.codec import (
    LorebookFormat,
    decode_card,
    decode_lorebook,
    encode_card,
    encode_lorebook,
)
from adapters.cards.limits import DEFAULT_LIMITS, DEFAULT_MAX_BYTES, CardLimits
from adapters.cards.mapping import insertion_from_order, order_from_insertion

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_BYTES",
    "CardLimits",
    "CardPersona",
    "LorebookFormat",
    "decode_card",
    "decode_lorebook",
    "encode_card",
    "encode_lorebook",
    "insertion_from_order",
    "order_from_insertion",
]
