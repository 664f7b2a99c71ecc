"""`hunger-rl benchmark`: the protocol pinned to its version, the same result from the same
command, a stopped run resumed, the exploiter, bad input, and the leaderboard made from its
files (scripts/leaderboard.py)."""

from __future__ import annotations

import copy
import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from scripts_under_test import load_script

from hunger_rl.cli import main
from hunger_rl.training import benchmark
from hunger_rl.training.benchmark import (
    CARD_FILE,
    PARTIAL_FILE,
    PLAYER_COUNTS,
    PLOT_FILE,
    PROTOCOL_VERSION,
    RESULT_FILE,
    protocol_definition,
    protocol_digest,
    protocol_tables,
    run_benchmark,
    without_machine_fields,
)

# Each protocol version and the digest of its definition. A change to a table, a seed or a
# budget changes the digest: give the protocol a new version and pin its digest here, never
# repin an old version (its published results would stop meaning what they say).
PINNED_DIGESTS = {"v1": "ff8d418f9be14ae2ee90921df09ce0f26ca7102d3e3507c63d77dfe157508db8"}
TINY_RECIPE = Path(__file__).with_name("tiny_exploit_hungry.yaml")
ROOT = Path(__file__).resolve().parents[2]
leaderboard = load_script("leaderboard")

# A cheap card: HUNGER at 2 players, two games a table (the override marks it not-protocol).
GAME, PLAYERS, SPEC, GAMES = "hunger_show", 2, "greedy", 2


def test_the_protocol_definition_is_pinned_to_its_version():
    assert protocol_digest() == PINNED_DIGESTS[PROTOCOL_VERSION]


def test_changing_a_seed_a_table_or_the_budget_changes_the_digest():
    definition = protocol_definition()
    changes = []
    for path, value in ((("tables", "hungry_2p", 0, "seed"), 4601),
                        (("tables", "hunger_show_6p", 5, "games"), 48),
                        (("tables", "hungry_4p", 6, "opponents"), ["expert"] * 3),
                        (("exploiter", "steps"), 100_000)):
        changed = copy.deepcopy(definition)
        *parents, last = path
        target = changed
        for key in parents:
            target = target[key]
        assert target[last] != value
        target[last] = value
        changes.append(protocol_digest(changed))
    assert len(set(changes)) == len(changes) and protocol_digest() not in changes


@pytest.mark.parametrize("game, players", [(g, n) for g, counts in PLAYER_COUNTS.items()
                                           for n in counts])
def test_every_card_has_the_baselines_the_search_and_the_shipped_agent(game, players):
    tables = protocol_tables(game, players)
    names = [table.name for table in tables]
    search = {"hungry": "search:200", "hunger_show": "smmcts:100"}[game]
    fourth = {"hungry": "forecast", "hunger_show": "crowd"}[game]
    assert names[:6] == ["random", "greedy", "expert", fourth, search,
                         f"pretrained:{game}_{players}p"]
    assert (names[6:] == ["mixed"]) == (players >= 3)
    for table in tables:
        assert len(table.opponents) == players - 1
        assert table.games % players == 0  # whole seat rotations
    assert len({table.seed for table in tables}) == len(tables)


def cheap_run(out: Path, **options) -> dict:
    return run_benchmark(SPEC, GAME, PLAYERS, out, None, games=GAMES, progress=False, **options)


@pytest.fixture(scope="module")
def first_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("first")
    return out, cheap_run(out)


def test_two_runs_give_the_same_file_apart_from_the_run_fields(first_run, tmp_path):
    out, first = first_run
    second = cheap_run(tmp_path)
    assert without_machine_fields(first) == without_machine_fields(second)
    assert json.loads((out / RESULT_FILE).read_text()) == first
    assert set(first) - set(without_machine_fields(first)) == {"run"}
    assert first["run"]["seconds"] >= 0 and "cores" in first["run"]["cpu"]
    # Every table played its games from its own seed, the candidate in one seat of two.
    assert [row["table"] for row in first["tables"]] == [
        t.name for t in protocol_tables(GAME, PLAYERS)]
    assert all(row["games"] == GAMES for row in first["tables"])
    assert first["score"] == pytest.approx(
        sum(row["win_share"] * PLAYERS for row in first["tables"]) / len(first["tables"]))
    assert first["shipped_agents"].keys() == {"pretrained:hunger_show_2p"}
    assert first["versions"]["hunger-rl"] and first["exploiter"] is None


def test_overridden_sizes_are_not_a_protocol_entry(first_run):
    out, result = first_run
    assert result["protocol_entry"] is False and result["overrides"] == {"games": GAMES}
    assert result["command"] == (f"hunger-rl benchmark {SPEC} --game {GAME} --players "
                                 f"{PLAYERS} --no-exploit --games {GAMES}")
    card = (out / CARD_FILE).read_text()
    assert "NOT a protocol entry" in card and f"Score {result['score']:.3f}" in card
    assert (out / PLOT_FILE).stat().st_size > 0 and not (out / PARTIAL_FILE).exists()
    with pytest.raises(ValueError, match="not a protocol v1 entry"):
        benchmark.check_entry(result, f"{benchmark.entry_name(result)}.json")


class Stopped(Exception):
    """Stands for a Ctrl-C in the middle of a table."""


def test_a_stopped_benchmark_resumes_without_replaying_finished_tables(first_run, tmp_path,
                                                                       monkeypatch):
    played = []
    real_evaluate = benchmark.evaluate

    def evaluate(game, num_players, lineup, games, **options):
        played.append(lineup[1])
        if stop_after is not None and len(played) > stop_after:
            raise Stopped
        return real_evaluate(game, num_players, lineup, games, **options)

    monkeypatch.setattr(benchmark, "evaluate", evaluate)
    stop_after = 1
    with pytest.raises(Stopped):
        cheap_run(tmp_path)
    partial = json.loads((tmp_path / PARTIAL_FILE).read_text())
    assert [row["table"] for row in partial["tables"]] == ["random"]
    assert not (tmp_path / RESULT_FILE).exists()
    played.clear()
    stop_after = None
    resumed = cheap_run(tmp_path)
    names = [table.name for table in protocol_tables(GAME, PLAYERS)]
    assert played == [table.opponents[0] for table in protocol_tables(GAME, PLAYERS)][1:]
    assert [row["table"] for row in resumed["tables"]] == names
    assert without_machine_fields(resumed) == without_machine_fields(first_run[1])
    assert not (tmp_path / PARTIAL_FILE).exists()


def test_a_stopped_run_of_another_command_is_not_resumed(tmp_path, monkeypatch):
    (tmp_path / PARTIAL_FILE).write_text(json.dumps({
        "identity": {"protocol": "v1", "spec": "expert"}, "tables": [], "seconds": {},
        "exploiter": None}))
    with pytest.raises(ValueError, match="another command: .*spec 'expert' \\(now 'greedy'\\)"):
        cheap_run(tmp_path)


def exploited_run(out: Path) -> dict:
    return run_benchmark("random", "hungry", 2, out, TINY_RECIPE, protocol_recipe=False,
                         games=2, exploit_steps=128, progress=False)


def test_the_exploiter_trains_against_the_candidate_and_joins_the_card(tmp_path):
    out = tmp_path / "first"
    result = exploited_run(out)
    # The exploiter trains from a fixed seed: a second run trains and measures the same.
    assert without_machine_fields(exploited_run(tmp_path / "again")) == (
        without_machine_fields(result))
    exploiter = result["exploiter"]
    assert exploiter["steps"] == 128 and exploiter["games"] == 2
    assert 0 <= exploiter["ci_low"] <= exploiter["win_share"] <= exploiter["ci_high"] <= 1
    report = json.loads((out / "exploit" / "exploit.json").read_text())
    assert report == json.loads((tmp_path / "again" / "exploit" / "exploit.json").read_text())
    assert report["spec"] == "random" and report["win_share"] == exploiter["win_share"]
    assert result["overrides"] == {"games": 2, "exploit_steps": 128,
                                   "exploit_config": str(TINY_RECIPE)}
    assert "--exploit-steps 128" in result["command"] and "--no-exploit" not in result["command"]
    assert exploiter["recipe"] == TINY_RECIPE.stem
    assert "after 128 steps" in (out / CARD_FILE).read_text()


@pytest.mark.parametrize("arguments, message", [
    (["nonsense", "--game", "hungry", "--players", "2"], "unknown policy spec 'nonsense'"),
    (["expert", "--game", "hungry", "--players", "5"],
     "benchmarks hungry at 2, 3, 4 players, not 5"),
    (["expert", "--game", "hunger_show", "--players", "3"],
     "benchmarks hunger_show at 2, 4, 6 players, not 3"),
    (["pretrained:hungry_2p", "--game", "hungry", "--players", "4"],
     "pretrained:hungry_2p plays hungry with 2 players, not hungry with 4"),
    (["expert", "--game", "hungry", "--players", "2", "--no-exploit", "--exploit-steps", "9"],
     "--exploit-steps sets the exploiter, which --no-exploit leaves out"),
])
def test_bad_input_is_one_error_naming_it_and_nothing_is_played(arguments, message, tmp_path,
                                                                capsys):
    out = tmp_path / "card"
    assert main(["benchmark", *arguments, "--out", str(out), "--no-progress"]) == 2
    assert message in capsys.readouterr().err
    assert not (out / RESULT_FILE).exists() and not (out / PARTIAL_FILE).exists()


def test_the_committed_leaderboard_is_the_page_its_files_make():
    assert leaderboard.PAGE.read_text() == leaderboard.page_text(), (
        "docs/leaderboard.md is stale: run python scripts/leaderboard.py")


def test_the_leaderboard_is_made_from_the_files(tmp_path, monkeypatch):
    """Every committed entry is a row with its score and command; a changed file changes its
    row, and a file that is not a protocol entry is refused, naming it."""
    entries = benchmark.read_entries(leaderboard.RESULTS)
    assert len(entries) >= 1
    page = leaderboard.page_text()
    for result in entries.values():
        assert f"{result['score']:.3f}" in page and f"`{result['command']}`" in page
    folder = tmp_path / "leaderboard"
    shutil.copytree(leaderboard.RESULTS, folder)
    monkeypatch.setattr(leaderboard, "RESULTS", folder)
    name, result = next(iter(entries.items()))
    result = dict(result, score=9.876)
    (folder / f"{name}.json").write_text(json.dumps(result))
    assert "| 9.876 |" in leaderboard.page_text() and "| 9.876 |" not in page
    agent = f"pretrained:{result['game']}_{result['num_players']}p"
    retrained = dict(result, shipped_agents={agent: "0" * 64})
    (folder / f"{name}.json").write_text(json.dumps(retrained))
    assert f"(measured against an earlier {agent}: rerun)" in leaderboard.page_text()
    (folder / f"{name}.json").write_text(json.dumps(dict(result, overrides={"games": 2},
                                                         protocol_entry=False)))
    with pytest.raises(ValueError, match=f"{name}.json: not a protocol v1 entry"):
        leaderboard.page_text()


def test_a_result_that_is_not_a_protocol_entry_is_not_filed(first_run, tmp_path, monkeypatch):
    out, result = first_run
    monkeypatch.setattr(leaderboard, "RESULTS", tmp_path)
    with pytest.raises(SystemExit, match="not a protocol v1 entry"):
        leaderboard.add(out / RESULT_FILE)
    assert not list(tmp_path.iterdir())


def test_a_card_without_the_exploiter_needs_no_torch(tmp_path):
    """--no-exploit plays every table (a shipped network's among them) without loading torch
    or stable-baselines3: the base install runs it."""
    code = ("import sys\nfrom hunger_rl.cli import main\n"
            f"assert main(['benchmark', 'random', '--game', 'hunger_show', '--players', '2', "
            f"'--no-exploit', '--games', '2', '--out', {str(tmp_path)!r}, '--no-progress']) == 0\n"
            "print(sorted({'torch', 'stable_baselines3'} & set(sys.modules)))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == "[]"


def test_rerun_runs_the_entry_s_own_command_afresh_and_refiles_it(tmp_path, monkeypatch):
    folder = tmp_path / "leaderboard"
    shutil.copytree(leaderboard.RESULTS, folder)
    monkeypatch.setattr(leaderboard, "RESULTS", folder)
    monkeypatch.setattr(leaderboard, "RUNS_ROOT", tmp_path)
    name, entry = next(iter(benchmark.read_entries(folder).items()))
    out = tmp_path / benchmark.default_out(entry["spec"], entry["game"], entry["num_players"])
    out.mkdir(parents=True)
    (out / PARTIAL_FILE).write_text("{}")  # a stopped run of earlier weights: not resumed
    commands = []

    def hunger_rl(words):
        commands.append(words)
        assert not out.exists()
        out.mkdir()
        (out / RESULT_FILE).write_text(json.dumps(dict(entry, score=9.876)))
        return 0

    monkeypatch.setattr(leaderboard, "hunger_rl", hunger_rl)
    leaderboard.rerun(name)
    assert commands == [shlex.split(entry["command"])[1:] + ["--out", str(out)]]
    assert json.loads((folder / f"{name}.json").read_text())["score"] == 9.876
    with pytest.raises(SystemExit, match="no entry 'nonsense'; the entries: "):
        leaderboard.rerun("nonsense")


def test_a_reference_training_s_entry_names_its_training_and_reruns_it_first(tmp_path,
                                                                             monkeypatch):
    """A reference training's entry holds the command that trained its policy and the budget:
    the page shows both, --rerun runs the training before the benchmark, and a training field
    that is not a suite command is refused, naming the file."""
    folder = tmp_path / "leaderboard"
    folder.mkdir()
    monkeypatch.setattr(leaderboard, "RESULTS", folder)
    monkeypatch.setattr(leaderboard, "RUNS_ROOT", tmp_path)
    name, entry = next(iter(benchmark.read_entries(ROOT / "docs" / "leaderboard").items()))
    result_path = tmp_path / RESULT_FILE
    result_path.write_text(json.dumps(entry))
    training = {"command": "hunger-rl train quick_hungry_2p --out runs/reference",
                "budget": "4,096 PPO steps, seed 0"}
    assert leaderboard.add(result_path, training) == name
    page = leaderboard.page_text()
    assert "(trained: 4,096 PPO steps, seed 0)" in page
    assert f"`{training['command']}`, then `{entry['command']}`" in page
    commands = []
    out = tmp_path / benchmark.default_out(entry["spec"], entry["game"], entry["num_players"])

    def hunger_rl(words):
        commands.append(words)
        if words[0] == "benchmark":
            out.mkdir(parents=True)
            (out / RESULT_FILE).write_text(json.dumps(dict(entry, score=9.876)))
        return 0

    monkeypatch.setattr(leaderboard, "hunger_rl", hunger_rl)
    leaderboard.rerun(name)
    assert commands == [shlex.split(training["command"])[1:],
                        shlex.split(entry["command"])[1:] + ["--out", str(out)]]
    refiled = json.loads((folder / f"{name}.json").read_text())
    assert (refiled["score"], refiled["training"]) == (9.876, training)
    bad = dict(refiled, training={"command": "rm -rf runs", "budget": "none"})
    (folder / f"{name}.json").write_text(json.dumps(bad))
    with pytest.raises(ValueError, match=f"{name}.json: 'training' must hold the command"):
        leaderboard.page_text()
