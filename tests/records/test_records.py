"""Game records: record -> replay is exact, and a record that departs is refused at its first
bad step."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.envs.records import (
    GameRecord,
    RecordError,
    ReplayError,
    load_record,
    load_records,
    replay,
    replay_steps,
    state_digest,
    write_records,
)


def _records(game, players, games, lineup=("greedy", "random"), seed=0, **env_kwargs):
    result = evaluate(game, players, list(lineup), games, seed=seed, progress=False,
                      env_kwargs=env_kwargs or None, record=True)
    return result, result.game_records()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hungry_records_replay_exactly(players, tmp_path):
    result, records = _records("hungry", players, 40)
    path = tmp_path / "games.jsonl"
    write_records(path, records)
    loaded = load_records(path)
    assert len(loaded) == result.games
    for outcome, record in zip(result.records, loaded, strict=True):
        env = replay(record)
        score = env.game.score()
        assert record.result["scores"] == dict(zip(env.possible_agents, score.totals,
                                                   strict=True))
        assert list(score.totals) == list(outcome.scores)
        assert [env.possible_agents[p] for p in score.winners] == record.result["winners"]
        assert state_digest(env.game) == record.result["state_digest"]
        assert len(record.steps) == 48
        assert record.players == list(outcome.seats)


@pytest.mark.parametrize("characters", [False, True])
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_show_records_replay_exactly(players, characters, tmp_path):
    result, records = _records("hunger_show", players, 10 * players,
                               lineup=("greedy", "random"), characters=characters)
    path = tmp_path / "games.jsonl"
    write_records(path, records)
    decisions = 0
    for outcome, record in zip(result.records, load_records(path), strict=True):
        assert record.options == {"characters": characters}
        env = replay(record)
        assert sorted(env.possible_agents[p] for p in env.game.winners) == sorted(
            record.result["winners"])
        ranked = {env.possible_agents[p]: list(k) for p, k in env.game.final_keys.items()}
        assert ranked == record.result["scores"]
        for seat, score in enumerate(outcome.scores):
            agent = env.possible_agents[seat]
            assert (score is None) == (agent not in ranked)
        assert sum(sum(step["rewards"].values()) for step in record.steps) == pytest.approx(0)
        decisions += sum(len(step["decisions"]) for step in record.steps)
    assert decisions > 0


def test_the_record_holds_each_step_in_order():
    record = _records("hungry", 2, 1, lineup=("random",))[1][0]
    movers = [step["agent"] for step in record.steps]
    assert movers[:4] == ["player_0", "player_1", "player_0", "player_1"]
    final = record.steps[-1]["rewards"]
    assert sorted(final.values()) == [-1.0, 1.0] or set(final.values()) == {0.0}
    assert all(set(step["rewards"].values()) == {0.0} for step in record.steps[:-1])


def _hungry_record():
    return _records("hungry", 3, 1, lineup=("random",), seed=5)[1][0]


def _show_record():
    _, records = _records("hunger_show", 4, 8, lineup=("expert", "random"), seed=3)
    return next(r for r in records if sum(len(s["decisions"]) for s in r.steps[1:]) > 0)


def test_an_illegal_action_names_its_step():
    record = _hungry_record()
    env = next(e for i, e in enumerate(replay_steps(copy.deepcopy(record))) if i == 7)
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = copy.deepcopy(record)
    bad.steps[7]["action"] = int(np.flatnonzero(mask == 0)[0])  # a card not in hand
    with pytest.raises(ReplayError, match="step 7: player_1's recorded action .* not legal"
                       ) as caught:
        replay(bad)
    assert caught.value.step == 7
    bad.steps[7]["action"] = 50
    with pytest.raises(ReplayError, match="step 7: action 50 is not an action number"):
        replay(bad)


def test_a_wrong_mover_or_reward_names_its_step():
    record = _hungry_record()
    bad = copy.deepcopy(record)
    bad.steps[10]["agent"] = "player_2" if record.steps[10]["agent"] != "player_2" else "player_0"
    with pytest.raises(ReplayError, match="step 10: recorded mover"):
        replay(bad)
    bad = copy.deepcopy(record)
    bad.steps[47]["rewards"]["player_1"] += 0.5
    with pytest.raises(ReplayError, match="step 47: player_1's recorded reward"):
        replay(bad)


def test_a_changed_decision_names_its_step():
    record = _show_record()
    index = next(i for i, s in enumerate(record.steps) if i and s["decisions"])
    bad = copy.deepcopy(record)
    method, seat, answer = bad.steps[index]["decisions"][0]
    bad.steps[index]["decisions"][0] = [method, seat, [-1] if isinstance(answer, list) else -1]
    with pytest.raises(ReplayError, match=rf"step {index} \(day {index + 1}\): decision 0 "
                                          "differs") as caught:
        replay(bad)
    assert caught.value.step == index


def test_a_masked_show_action_names_its_step():
    record = _show_record()
    bad = copy.deepcopy(record)
    bad.steps[1]["actions"]["player_2"] = 19  # the Mountains are not in play with 4 players
    with pytest.raises(ReplayError, match=r"step 1 \(day 2\): player_2: action 19"):
        replay(bad)


def test_a_truncated_or_altered_result_is_refused():
    for record in (_hungry_record(), _show_record()):
        short = copy.deepcopy(record)
        del short.steps[-1]
        with pytest.raises(ReplayError, match="before .* over"):
            replay(short)
        longer = copy.deepcopy(record)
        longer.steps.append(copy.deepcopy(record.steps[-1]))
        with pytest.raises(ReplayError, match="already over"):
            replay(longer)
        altered = copy.deepcopy(record)
        altered.result["state_digest"] = "0" * 64
        with pytest.raises(ReplayError, match="final result differs: recorded state_digest"):
            replay(altered)


def test_malformed_files_get_clear_errors(tmp_path):
    record = _hungry_record()
    line = record.to_json_line()
    truncated = tmp_path / "truncated.jsonl"
    truncated.write_text(line + "\n" + line[: len(line) // 2])
    with pytest.raises(RecordError, match="line 2: not a complete JSON record.*truncated"):
        load_records(truncated)
    # Cut inside a string: json says "Unterminated string starting at" (issue 50: "at at").
    quote = line.index('"steps"')
    truncated.write_text(line[: quote + 3])
    with pytest.raises(RecordError, match=r"\(Unterminated string starting at column "
                                          rf"{quote + 1}\); is the file truncated\?"):
        load_records(truncated)
    with pytest.raises(RecordError, match=f"{tmp_path} is a folder, not a record file"):
        load_records(tmp_path)
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(json.dumps({**record.to_dict(), "game": "chess"}))
    with pytest.raises(RecordError, match="line 1: unknown game 'chess'"):
        load_records(unknown)
    missing = tmp_path / "missing.jsonl"
    data = record.to_dict()
    del data["steps"]
    missing.write_text(json.dumps(data))
    with pytest.raises(RecordError, match=r"missing field\(s\) \['steps'\]"):
        load_records(missing)
    wrong_type = tmp_path / "wrong.jsonl"
    wrong_type.write_text(json.dumps({**record.to_dict(), "seed": "five"}))
    with pytest.raises(RecordError, match="field 'seed' must be a int"):
        load_records(wrong_type)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(RecordError, match="holds no record"):
        load_records(empty)
    with pytest.raises(RecordError, match="no record file"):
        load_records(tmp_path / "absent.jsonl")
    good = tmp_path / "good.jsonl"
    write_records(good, [record])
    with pytest.raises(RecordError, match=r"holds 1 game\(s\); game index 3"):
        load_record(good, 3)
    assert isinstance(load_record(good, 0), GameRecord)


def test_bad_setup_options_are_refused():
    record = _hungry_record()
    bad = copy.deepcopy(record)
    bad.options = {"no_such_option": 1}
    with pytest.raises(ReplayError, match="setup does not build a game"):
        replay(bad)


def test_custom_decisions_cannot_be_recorded():
    from hunger_rl.envs.hunger_show_v0 import DefaultDecisions

    with pytest.raises(ValueError, match="custom decision objects cannot be recorded"):
        evaluate("hunger_show", 2, ["random"], 2, progress=False, record=True,
                 env_kwargs={"decisions": [DefaultDecisions()] * 2})


def test_evaluate_record_command_writes_replayable_records(tmp_path, capsys):
    from hunger_rl.cli import main

    folder = tmp_path / "games"
    assert main(["evaluate", "--game", "hunger_show", "--players", "3", "--policies", "expert",
                 "random", "--games", "6", "--workers", "1", "--no-progress", "--record",
                 str(folder)]) == 0
    assert f"wrote {folder / 'hunger_show_3p.jsonl'} (6 games)" in capsys.readouterr().out
    records = load_records(folder / "hunger_show_3p.jsonl")
    assert [r.players for r in records[:3]] == [["expert", "random", "random"],
                                                 ["random", "expert", "random"],
                                                 ["random", "random", "expert"]]
    for record in records:
        replay(record)
    (tmp_path / "file").write_text("")
    assert main(["evaluate", "--game", "hungry", "--policies", "random", "--games", "2",
                 "--record", str(tmp_path / "file" / "games")]) == 2
    assert "--record" in capsys.readouterr().err
