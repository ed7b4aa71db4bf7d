"""A card's fields in the prompt (PRM-1, issue 31): personality, scenario and the example
dialogue after the persona, budgeted and the first thing a full prompt drops."""

from __future__ import annotations

import msgspec

from engine.model import Persona
from engine.ports import TurnInputs
from engine.prompt import EXAMPLES_MAX_TOKENS, PromptParts, assemble_prompt, dialogue_examples
from engine.turn import frame_turn, plan_turn
from engine.window import WindowPolicy
from tests.unit.engine.test_prompt import window
from tests.unit.engine.test_turn import LOG, gathered, said

EXAMPLES = "<START>\n{{user}}: Is the fire lit?\n{{char}}: Always.\n<start>\n{{user}}: Tea?\n{{char}}: Mint."
CARD = Persona(
    id="ember",
    name="Ember",
    system_prompt="You are {{char}}.",
    personality="warm, stubborn",
    scenario="A snowed-in inn.",
    mes_example=EXAMPLES,
)


def test_personality_and_scenario_are_in_the_persona_slot() -> None:
    prompt = assemble_prompt(PromptParts(persona=CARD, window=window(), user_name="Juno"))
    first = prompt.messages[0]
    assert first.slot == "persona"
    assert "Ember's personality: warm, stubborn" in first.text
    assert "Scenario: A snowed-in inn." in first.text


def test_examples_are_split_at_start_filled_and_follow_the_persona() -> None:
    g = msgspec.structs.replace(gathered(TurnInputs(answered=LOG[-1], messages=LOG)), persona=CARD)
    prompt = plan_turn(g, estimate=len).prompt
    assert [m.slot for m in prompt.messages[:2]] == ["persona", "persona"]
    example = prompt.messages[1]
    assert example.source == "examples"
    assert example.text.count("[Example chat]") == 2
    assert "Tam: Is the fire lit?\nEmber: Always." in example.text  # {{user}} is the answered speaker
    assert "<START>" not in example.text and "<start>" not in example.text
    assert example in prompt.stable_prefix  # cached with the persona


def test_examples_keep_to_their_budget_whole_blocks_in_order() -> None:
    big = "<START>\n" + "a" * (EXAMPLES_MAX_TOKENS - 10) + "\n<START>\nsecond block"
    kept = dialogue_examples(big, char="Ember", user="Juno", ctx=None, estimate=len)
    assert kept == ("a" * (EXAMPLES_MAX_TOKENS - 10),)  # the second would pass the budget
    assert (
        dialogue_examples(
            "<START>\n" + "b" * (EXAMPLES_MAX_TOKENS + 1), char="E", user="J", ctx=None, estimate=len
        )
        == ()
    )


def test_a_full_prompt_drops_the_examples_first() -> None:
    long_chat = tuple(said(n, f"message {n}") for n in range(1, 30))
    inputs = TurnInputs(answered=long_chat[-1], messages=long_chat)
    tight = WindowPolicy(max_tokens=50)  # 10 of the 29 messages fit: the window is full
    frame = frame_turn(inputs, long_chat[-1], policy=tight, context_window=200_000, summaries=False)
    assert frame.window.dropped > 0
    g = msgspec.structs.replace(gathered(inputs), persona=CARD, frame=frame)
    prompt = plan_turn(g, estimate=len).prompt
    assert not any(m.source == "examples" for m in prompt.messages)
    assert "Ember's personality" in prompt.messages[0].text  # the persona itself stays
