"""Strength order of the scripted baselines (slow: run with ``make test-slow``)."""

import pytest

from hunger_rl.arena.evaluation import evaluate

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("game", ["hungry", "hunger_show"])
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize(("stronger", "weaker"), [("greedy", "random"), ("expert", "greedy")])
def test_stronger_policy_wins_more_than_its_share(game, players, stronger, weaker):
    result = evaluate(game, players, [stronger, weaker], games=400, seed=11, progress=False)
    assert result.row(stronger).ci_low > result.equal_share


def test_search_beats_expert_at_two_players():
    result = evaluate("hungry", 2, ["search:200", "expert"], 400, seed=0, workers=2, progress=False)
    assert result.row("search:200").ci_low > result.equal_share


def test_search_beats_expert_at_four_players():
    # One search against three experts, seats rotated; 800 games keep the interval clear of 1/4.
    result = evaluate("hungry", 4, ["search:200", "expert"], 800, seed=1, workers=2, progress=False)
    assert result.row("search:200").ci_low > result.equal_share


def test_random_does_not_beat_three_hunger_experts():
    result = evaluate(
        "hunger_show", 4, ["random", "expert"], 400, seed=11, workers=2, progress=False
    )
    assert result.row("random").ci_high < result.equal_share


def test_crowd_beats_three_hunger_experts():
    """The pick the experts all keep out of is there for the taking (README, HUNGER)."""
    result = evaluate("hunger_show", 4, ["crowd", "expert"], 400, seed=11, workers=2,
                      progress=False)
    assert result.row("crowd").ci_low > 0.40
