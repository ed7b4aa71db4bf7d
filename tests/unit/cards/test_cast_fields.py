"""CAST-2: a card's talkativeness and nickname feed the natural order (issue 33)."""

from __future__ import annotations

from typing import Any

from adapters.cards import CardLimits
from adapters.cards.card import decode_card_document
from adapters.cards.persona import persona_from_card


def _card(**data: Any) -> dict[str, Any]:
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Lyra Vale", **data}}


def test_cast_2_talkativeness_comes_from_the_card_within_0_and_1() -> None:
    def talk(value: object) -> float:
        card = decode_card_document(_card(extensions={"talkativeness": value}), CardLimits())
        return persona_from_card(card, persona_id="lyra", book_id=None).talkativeness

    assert talk(0.8) == 0.8
    assert talk("0.25") == 0.25
    assert talk(7) == 1.0
    assert talk("loud") == 0.5
    assert talk(None) == 0.5
    plain = decode_card_document(_card(), CardLimits())
    assert persona_from_card(plain, persona_id="lyra", book_id=None).talkativeness == 0.5


def test_cast_2_a_nicknamed_card_is_also_addressed_by_its_name() -> None:
    card = decode_card_document(_card(nickname="Lyra"), CardLimits())
    persona = persona_from_card(card, persona_id="lyra", book_id=None)
    assert persona.name == "Lyra" and persona.aliases == ("Lyra Vale",)
