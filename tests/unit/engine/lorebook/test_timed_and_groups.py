"""Timed effects (LORE-14), inclusion groups (LORE-15) and recursion controls (LORE-16)."""

from __future__ import annotations

import msgspec

from engine.lorebook import LoreState, LoreTimed
from tests.unit.engine.lorebook.support import book, decision, entry, included, scan


def turns(compiled, texts: list[tuple[int, str]]):  # type: ignore[no-untyped-def]
    """Run one scan per (message count, newest message), carrying the state; return the results."""
    state, results = LoreState(), []
    for count, text in texts:
        result = scan(compiled, [text], state, turn_id=f"t{count}", message_count=count)
        state = result.state
        results.append(result)
    return results


# --- LORE-14 timed effects ------------------------------------------------------------------


def test_lore_14_sticky_stays_for_its_messages_without_a_key() -> None:
    compiled = book(entry("1", "lantern", sticky=3), entry("2", "bridge"))
    first, second, third = turns(compiled, [(1, "the lantern by the bridge"), (3, "silence"), (5, "silence")])
    assert included(first) == ["1", "2"]
    assert included(second) == ["1"]  # the control without sticky is gone
    assert decision(second, "1").reason == "sticky: active since message 1, until message 4"
    assert included(third) == []


def test_lore_14_cooldown_blocks_reactivation_until_it_ends() -> None:
    compiled = book(entry("1", "comet", cooldown=3), entry("2", "star"))
    results = turns(compiled, [(1, "comet star"), (3, "comet star"), (5, "comet star")])
    assert [included(r) for r in results] == [["1", "2"], ["2"], ["1", "2"]]
    assert "cooldown: since message 1, until message 4" in decision(results[1], "1").reason


def test_lore_14_a_sticky_entry_that_ends_starts_its_cooldown() -> None:
    compiled = book(entry("1", "wolf", sticky=2, cooldown=4))
    results = turns(compiled, [(1, "wolf"), (3, "wolf"), (5, "wolf"), (7, "wolf")])
    assert [included(r) for r in results] == [["1"], [], [], ["1"]]
    started = LoreTimed(book="b", entry="1", kind="cooldown", start=3, end=7, protected=True)
    assert started in results[1].state.timed


def test_lore_14_delay_waits_for_the_message_count() -> None:
    compiled = book(entry("1", "harvest", delay=5), entry("2", "harvest"))
    early = scan(compiled, ["harvest"], message_count=4)
    assert included(early) == ["2"]
    assert decision(early, "1").reason.endswith("delay: the chat has 4 messages, the entry waits for 5")
    assert included(scan(compiled, ["harvest"], message_count=5)) == ["1", "2"]


def test_lore_14_delay_holds_even_for_a_sticky_entry() -> None:
    compiled = book(entry("1", "harvest", sticky=5, delay=6))
    state = LoreState(timed=(LoreTimed(book="b", entry="1", kind="sticky", start=1, end=6),), turn="t0")
    assert included(scan(compiled, ["quiet"], state, turn_id="t1", message_count=3)) == []
    assert included(scan(compiled, ["harvest"], state, turn_id="t1", message_count=3)) == []


def test_lore_14_regenerate_starts_from_the_effects_before_the_turn() -> None:
    compiled = book(entry("1", "comet", cooldown=3))
    first = scan(compiled, ["comet"], turn_id="t1", message_count=1)
    assert first.state.turn == "t1" and first.state.before == ()
    again = scan(compiled, ["comet"], first.state, turn_id="t1", message_count=1)  # regenerate
    assert included(again) == ["1"] and again.state == first.state
    later = scan(compiled, ["comet"], first.state, turn_id="t2", message_count=3)  # a new turn
    assert included(later) == []


def test_lore_14_sticky_entries_are_not_rolled_again() -> None:
    compiled = book(entry("1", "dice", sticky=10, probability=50))
    state = LoreState(timed=(LoreTimed(book="b", entry="1", kind="sticky", start=1, end=11),), turn="t0")
    for count in range(3, 11):
        assert included(scan(compiled, ["nothing"], state, turn_id=f"t{count}", message_count=count)) == ["1"]


# --- LORE-15 inclusion groups ---------------------------------------------------------------


def test_lore_15_one_winner_per_group_seeded_by_the_turn() -> None:
    compiled = book(
        entry("1", "weather", group="sky", content="rain"),
        entry("2", "weather", group="sky", content="sun"),
        entry("3", "weather", content="wind"),  # control: no group
    )
    winners = []
    for turn in range(40):
        result = scan(compiled, ["the weather"], turn_id=f"t{turn}")
        ids = included(result)
        assert "3" in ids and len(ids) == 2
        assert included(scan(compiled, ["the weather"], turn_id=f"t{turn}")) == ids  # stable for a turn
        winners.append(ids[0] if ids[0] != "3" else ids[1])
    assert set(winners) == {"1", "2"}  # equal weights: both win sometimes


def test_lore_15_weights_decide_the_roll_and_the_log_says_why() -> None:
    compiled = book(
        entry("1", "inn", group="inn", group_weight=0), entry("2", "inn", group="inn", group_weight=100)
    )
    for turn in range(20):
        result = scan(compiled, ["the inn"], turn_id=f"t{turn}")
        assert included(result) == ["2"]
    assert decision(result, "1").reason.startswith("inclusion group 'inn': lost to entry 2 (weighted roll")
    assert "won inclusion group 'inn'" in decision(result, "2").reason


def test_lore_15_group_override_picks_the_highest_priority() -> None:
    compiled = book(
        entry("1", "key", group="g", group_weight=1000),
        entry("2", "key", group="g", group_override=True, priority=5),
        entry("3", "key", group="g", group_override=True, priority=9),
    )
    result = scan(compiled, ["key"])
    assert included(result) == ["3"]
    assert "group override, priority 9" in decision(result, "1").reason


def test_lore_15_group_scoring_keeps_the_entries_with_most_matching_keys() -> None:
    entries = (
        entry("1", "castle", group="g", use_group_scoring=True),
        entry("2", "castle", "moat", "tower", group="g", use_group_scoring=True),
    )
    for turn in range(10):
        result = scan(book(*entries), ["the castle tower"], turn_id=f"t{turn}")
        assert included(result) == ["2"]
    assert "group scoring (1 keys matched, best 2)" in decision(result, "1").reason
    # Control: without scoring both can win.
    plain = book(*(msgspec.structs.replace(e, use_group_scoring=None) for e in entries))
    unscored = {included(scan(plain, ["the castle tower"], turn_id=f"t{t}"))[0] for t in range(40)}
    assert unscored == {"1", "2"}


def test_lore_15_book_default_group_scoring_applies_to_unset_entries() -> None:
    compiled = book(entry("1", "a", group="g"), entry("2", "a", "b", group="g"), use_group_scoring=True)
    assert all(included(scan(compiled, ["a b"], turn_id=f"t{t}")) == ["2"] for t in range(10))


def test_lore_15_a_sticky_member_wins_its_group() -> None:
    compiled = book(entry("1", "x", group="g", sticky=5), entry("2", "x", group="g", group_weight=10**6))
    state = LoreState(timed=(LoreTimed(book="b", entry="1", kind="sticky", start=1, end=6),), turn="t0")
    result = scan(compiled, ["x"], state, turn_id="t1", message_count=3)
    assert included(result) == ["1"] and "lost to sticky entry 1" in decision(result, "2").reason


def test_lore_15_a_group_won_in_an_earlier_pass_takes_no_more_members() -> None:
    compiled = book(
        entry("1", "gate", group="g", content="the gate opens to the garden"),
        entry("2", "garden", group="g", content="flowers"),
        entry("3", "garden", content="bees"),  # control outside the group
        recursive_scanning=True,
    )
    result = scan(compiled, ["the gate"])
    assert included(result) == ["1", "3"]
    assert decision(result, "2").reason == "inclusion group 'g': entry 1 won it in an earlier pass"


def test_lore_15_a_group_freed_by_a_loser_elsewhere_still_takes_one_member_over_later_passes() -> None:
    # Found by Hypothesis in a fresh clone: entry 2 won group g in pass 1 but lost group h, so
    # g stayed open; delayed entries 1 (level 2) and 3 (level 3) then both joined g.
    compiled = book(
        entry("0", "fog", delay_until_recursion=True),
        entry("1", "fog", group="g", delay_until_recursion=2),
        entry("2", "fog", group="g, h"),
        entry("3", "fog", group="g", delay_until_recursion=3),
        entry("4", "fog", group="h"),
    )
    for turn in ("t", "t2", "t3", "t4", "t5", "t6"):
        chosen = included(scan(compiled, ["fog"], turn_id=turn))
        assert sum(e in chosen for e in ("1", "2", "3")) <= 1, (turn, chosen)
        assert sum(e in chosen for e in ("2", "4")) == 1, (turn, chosen)


def test_lore_15_an_entry_can_be_in_several_groups() -> None:
    compiled = book(
        entry("1", "k", group="a, b", group_override=True, priority=3),
        entry("2", "k", group="a", priority=1),
        entry("3", "k", group="b", priority=1),
    )
    assert included(scan(compiled, ["k"])) == ["1"]


# --- LORE-16 recursion controls ---------------------------------------------------------------


def test_lore_16_delay_until_recursion_skips_the_chat_pass() -> None:
    compiled = book(
        entry("1", "tower", content="the tower has a bell"),
        entry("2", "bell", content="the bell rings", delay_until_recursion=True),
        entry("3", "tower", content="never in pass one", delay_until_recursion=True),
        recursive_scanning=True,
    )
    result = scan(compiled, ["the tower"])
    assert included(result) == ["1", "2", "3"]
    assert decision(result, "2").reason.startswith("recursion pass 2: key 'bell' matched in entry 1")
    flat = scan(book(*compiled_entries(), recursive_scanning=False), ["the tower bell"])
    assert included(flat) == ["1"]  # no recursion, one level: delayed entries never run (ST)


def compiled_entries():  # type: ignore[no-untyped-def]
    return (
        entry("1", "tower", content="the tower has a bell"),
        entry("2", "bell", content="the bell rings", delay_until_recursion=True),
    )


def test_lore_16_higher_levels_wait_for_the_lower_ones() -> None:
    compiled = book(
        entry("1", "seed", content="a sprout"),
        entry("2", "sprout", content="a tree", delay_until_recursion=1),
        entry("3", "seed", content="late bloom", delay_until_recursion=2),
        recursive_scanning=True,
    )
    result = scan(compiled, ["a seed"])
    assert included(result) == ["1", "2", "3"]
    assert decision(result, "2").reason.startswith("recursion pass 2")
    assert decision(result, "3").reason.startswith("recursion pass 3")


def test_lore_16_exclude_and_prevent_recursion() -> None:
    compiled = book(
        entry("1", "storm", content="lightning and thunder"),
        entry("2", "lightning", content="bright", exclude_recursion=True),
        entry("3", "thunder", content="loud rain"),
        entry("4", "rain", content="wet", prevent_recursion=True),
        entry("5", "wet", content="never"),
        recursive_scanning=True,
    )
    assert included(scan(compiled, ["a storm"])) == ["1", "3", "4"]
    assert included(scan(compiled, ["a storm with lightning"])) == ["1", "2", "3", "4"]  # by the chat: fine


def test_lore_16_a_long_chain_stops_at_the_pass_cap() -> None:
    # 400 entries, each naming the next 39: pass 1 and three recursion passes of 39 new entries.
    names = [" ".join(f"link{j}" for j in range(i + 1, i + 40)) for i in range(400)]
    chain = [entry(str(i), f"link{i}", content=text) for i, text in enumerate(names)]
    compiled = book(*chain, recursive_scanning=True)
    result = scan(compiled, ["link0"], count_tokens=lambda text: 1)
    assert len(included(result)) == 1 + 39 * 3
