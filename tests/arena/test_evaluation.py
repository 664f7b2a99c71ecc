"""Evaluation harness and tournament: intervals, seat rotation, determinism, outputs, CLI."""

import csv
import json
from collections import Counter

import pytest

from hunger_rl.arena.evaluation import (
    compare,
    evaluate,
    expand_lineup,
    paired_difference,
    rotation_schedule,
    wilson_interval,
)
from hunger_rl.arena.tournament import (
    TournamentResult,
    arrangements,
    tournament,
    tournament_schedule,
)
from hunger_rl.cli import main


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (8, 10, 0.4902, 0.9433),
    ],
)
def test_wilson_interval_known_values(successes, trials, low, high):
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=1e-4)
    assert wilson_interval(successes, trials)[0] <= successes / trials <= wilson_interval(
        successes, trials)[1]


def test_lineup_fills_the_last_spec_and_rejects_too_many():
    assert expand_lineup(["expert", "random"], 4) == ["expert", "random", "random", "random"]
    with pytest.raises(ValueError, match="at most one per seat"):
        expand_lineup(["a", "b", "c"], 2)


def test_seat_rotation_is_exact():
    schedule = rotation_schedule(["a", "b", "c", "d"], 8)
    for seat in range(4):
        assert Counter(game[seat] for game in schedule) == {"a": 2, "b": 2, "c": 2, "d": 2}


def test_evaluation_rounds_up_and_rotates_every_seat():
    result = evaluate("hungry", 3, ["greedy", "random"], games=7, seed=1, progress=False)
    assert result.games == 9 and result.requested_games == 7
    assert "rounded up to a multiple of 3" in result.to_table()
    greedy, random = result.row("greedy"), result.row("random")
    assert (greedy.games, random.games) == (9, 18)
    for seat in range(3):
        assert sum(r.seats[seat] == "greedy" for r in result.records) == 3
    assert all(w is not None for w in greedy.per_seat_win_share)
    # Win shares of a game sum to 1, so the rows' total share does too.
    assert greedy.win_share * 9 + random.win_share * 18 == pytest.approx(9)


@pytest.mark.parametrize(
    ("game", "players", "policies"),
    [("hungry", 2, ["expert", "greedy"]), ("hunger_show", 4, ["expert", "greedy", "random"])],
)
def test_one_and_two_workers_give_identical_tables(game, players, policies):
    results = [
        evaluate(game, players, policies, games=24, seed=5, workers=w, progress=False)
        for w in (1, 2)
    ]
    assert results[0].to_table() == results[1].to_table()
    assert results[0].records == results[1].records


def test_outputs_csv_json_plot(tmp_path):
    result = evaluate("hungry", 2, ["greedy", "random"], games=10, seed=0, progress=False)
    result.to_csv(tmp_path / "table.csv")
    result.to_json(tmp_path / "table.json")
    result.plot(tmp_path / "table.png")
    rows = list(csv.DictReader((tmp_path / "table.csv").read_text().splitlines()))
    assert [r["policy"] for r in rows] == ["greedy", "random"]
    data = json.loads((tmp_path / "table.json").read_text())
    assert data["games"] == 10 and data["rows"][0]["policy"] == "greedy"
    assert (tmp_path / "table.png").read_bytes()[:4] == b"\x89PNG"


def test_evaluation_errors():
    with pytest.raises(ValueError, match="2 to 4 players"):
        evaluate("hungry", 5, ["random"], games=4, progress=False)
    with pytest.raises(ValueError, match="unknown policy spec"):
        evaluate("hungry", 2, ["nobody"], games=4, progress=False)
    with pytest.raises(ValueError, match="unknown game"):
        evaluate("go", 2, ["random"], games=4, progress=False)


def test_tournament_arrangements_are_fair():
    assert len(arrangements(["a", "b", "c"], 2)) == 6
    assert len(arrangements(["a", "b", "c", "d", "e"], 4)) == 120
    # Fewer policies than seats: every 4-tuple that holds each of the 3 policies.
    every = arrangements(["a", "b", "c"], 4)
    assert len(every) == 36 and all(set(seats) == {"a", "b", "c"} for seats in every)
    schedule = tournament_schedule(["a", "b", "c"], 2, 12, seed=0)
    assert Counter(schedule) == dict.fromkeys(arrangements(["a", "b", "c"], 2), 2)


def test_tournament_is_deterministic_and_consistent(tmp_path):
    results = [
        tournament("hungry", 2, ["random", "greedy", "expert"], 24, seed=3, workers=w,
                   progress=False)
        for w in (1, 2)
    ]
    assert results[0].to_dict() == results[1].to_dict()
    result = results[0]
    for i in range(3):
        for j in range(3):
            if i != j:
                assert result.pairwise[i][j] + result.pairwise[j][i] == pytest.approx(1.0)
    assert result.ratings["expert"]["mu"] > result.ratings["random"]["mu"]
    result.plot(tmp_path / "t.png")
    result.to_csv(tmp_path / "t.csv")
    assert (tmp_path / "t.png").exists() and "vs_expert" in (tmp_path / "t.csv").read_text()


def test_cli_evaluate_and_tournament(tmp_path, capsys):
    code = main(["evaluate", "--game", "hunger_show", "--players", "3", "--policies", "greedy",
                 "random", "--games", "6", "--workers", "1", "--no-progress",
                 "--json", str(tmp_path / "e.json")])
    assert code == 0
    assert "win share" in capsys.readouterr().out and (tmp_path / "e.json").exists()
    code = main(["tournament", "--game", "hungry", "--policies", "random", "greedy",
                 "--games", "4", "--workers", "1", "--no-progress"])
    assert code == 0 and "pairwise" in capsys.readouterr().out
    assert main(["evaluate", "--game", "hungry", "--players", "7", "--policies", "random",
                 "--games", "2", "--no-progress"]) == 2
    assert "2 to 4 players" in capsys.readouterr().err


def test_pairwise_matrix_shows_whole_policy_names():
    names = ["random", "search:200"]
    rating = {"mu": 25.0, "sigma": 8.0, "ordinal": 1.0}
    share = {"games": 4, "share": 0.5, "ci_low": 0.1, "ci_high": 0.9}
    result = TournamentResult("hungry", 2, names, 4, 0, dict.fromkeys(names, rating),
                              dict.fromkeys(names, share), [[None, 0.25], [0.75, None]])
    head, *rows = result.to_table().splitlines()[-3:]
    assert head.split() == names
    assert rows[1].split() == ["search:200", "0.750", "-"]


@pytest.mark.parametrize(
    ("candidate", "baseline", "mean", "low", "high"),
    [
        # differences 1, 0, 0, 0.5, 0: sample variance 0.8 / 4, half-width 1.96 * sqrt(0.2 / 5)
        ([1, 1, 0, 0.5, 1], [0, 1, 0, 0, 1], 0.3, 0.3 - 0.392, 0.3 + 0.392),
        # differences 1, 0, 0, 1: half-width 1.96 * sqrt(1/12) = 0.5658, cut at 1 above
        ([1, 0, 1, 1], [0, 0, 1, 0], 0.5, 0.5 - 0.5658, 1.0),
        ([0.5, 0.5], [0.5, 0.5], 0.0, 0.0, 0.0),
    ],
)
def test_paired_difference_known_values(candidate, baseline, mean, low, high):
    got = paired_difference(candidate, baseline, z=1.96)
    assert got == pytest.approx((mean, low, high), abs=1e-4)


def test_paired_difference_refuses_unpaired_or_single_games():
    with pytest.raises(ValueError, match="differ in length: 3 and 2"):
        paired_difference([1, 0, 1], [1, 0])
    with pytest.raises(ValueError, match="at least 2 games, got 1"):
        paired_difference([1], [0])


@pytest.mark.parametrize(("game", "players", "candidate", "baseline", "opponents"), [
    ("hungry", 2, "expert", "greedy", ["expert"]),
    ("hunger_show", 4, "crowd", "random", ["expert", "random"]),
])
def test_compare_plays_both_policies_on_the_same_deals(game, players, candidate, baseline,
                                                       opponents):
    result = compare(game, players, candidate, baseline, opponents, games=24, seed=7,
                     progress=False)
    alone = [evaluate(game, players, [policy, *opponents], 24, seed=7, progress=False,
                      record=True) for policy in (candidate, baseline)]
    # Game by game, both lineups start from the same deal (the env's seed) in the same seats.
    seeds = [[record.seed for record in result_.game_records()] for result_ in alone]
    assert seeds[0] == seeds[1] and len(set(seeds[0])) == 24
    assert [r.index for r in alone[0].records] == [r.index for r in alone[1].records]
    assert result.candidate_share == pytest.approx(alone[0].entry_share(0)[0])
    assert result.baseline_share == pytest.approx(alone[1].entry_share(0)[0])
    assert result.difference == pytest.approx(result.candidate_share - result.baseline_share)
    assert result.ci_low < result.difference < result.ci_high
    assert 0 < result.differing_games <= 24


@pytest.mark.parametrize(("game", "players", "policy", "opponents"), [
    ("hungry", 2, "random", ["expert"]),
    ("hunger_show", 4, "random", ["greedy", "random"]),
])
def test_a_policy_compared_with_itself_plays_identical_games(game, players, policy, opponents):
    """Its own and every opponent's draws are the game's, not the run's: no game differs."""
    result = compare(game, players, policy, policy, opponents, games=40, seed=3, progress=False)
    assert result.differing_games == 0
    assert (result.difference, result.ci_low, result.ci_high) == (0.0, 0.0, 0.0)
    assert result.candidate_share == result.baseline_share


def test_cli_compare_prints_and_writes_the_paired_difference(tmp_path, capsys):
    out = tmp_path / "paired.json"
    assert main(["compare", "--game", "hungry", "--policies", "expert", "random", "--against",
                 "greedy", "--games", "10", "--workers", "1", "--no-progress",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    written = json.loads(out.read_text())
    assert written["candidate"] == "expert" and written["baseline"] == "random"
    assert written["opponents"] == ["greedy"] and written["games"] == 10
    assert f"difference: {written['difference']:+.4f}" in printed
    with pytest.raises(SystemExit):
        main(["compare", "--game", "hungry", "--policies", "expert", "--against", "greedy"])
    assert "expected 2 arguments" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least one opponent"):
        compare("hungry", 2, "expert", "random", [], games=4)
