"""``hunger-rl train --beside SPEC``: the final table with another policy's column."""

from pathlib import Path

from hunger_rl.cli import main

TINY = Path(__file__).with_name("tiny_hungry.yaml")


def test_train_prints_another_policy_beside_the_trained_one(tmp_path, capsys):
    assert main(["train", str(TINY), "--out", str(tmp_path), "--no-progress",
                 "--beside", "expert"]) == 0
    out = capsys.readouterr().out
    table = out.split("in the trained policy's seats:\n")[1].splitlines()
    assert table[0].split() == ["opponent", "games", "trained", "policy", "expert"]
    rows = [line.split() for line in table[1:]]
    assert [row[0] for row in rows] == ["random", "greedy"]
    for row in rows:
        assert int(row[1]) == 10
        for share in (row[2], row[5]):
            assert 0 <= float(share) <= 1


def test_a_bad_beside_spec_fails_before_training(tmp_path, capsys):
    assert main(["train", str(TINY), "--out", str(tmp_path / "run"), "--no-progress",
                 "--beside", "pretrained:nothing"]) == 2
    assert "unknown pretrained agent 'nothing'" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
