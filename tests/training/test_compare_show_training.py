"""scripts/compare_show_training.py: tiny runs of two small HUNGER configs (the reference env and
the batched one) trained on pinned CPUs from a plain checkout, then both tables evaluated; the
configs it derives; the CPU sets it refuses. scripts/profile_show_training.py: every part timed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from scripts_under_test import load_script

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.configs import config_path
from hunger_rl.training.outputs import FINAL_EVALUATION_SEED_OFFSET

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "scripts" / "compare_show_training.py"
GAMES = 8


def script_module(name: str = "compare_show_training"):
    return load_script(name)


def tiny_config(folder: Path, name: str, env: dict) -> Path:
    """The shipped config ``name`` with a small network and rollouts of a few steps."""
    raw = yaml.safe_load(config_path(name).read_text())
    raw["env"].update(env)
    raw["ppo"].update(n_steps=8, batch_size=16)
    raw["network"]["hidden"] = [8]
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw))
    return path


def documented_arguments(script: str) -> list[str]:
    """The arguments docs/batched_show.md gives ``scripts/<script>.py``; the tests run that
    command with their own small settings after it (a later option overrides)."""
    text = (ROOT / "docs" / "batched_show.md").read_text()
    return re.search(rf"`python scripts/{script}\.py([^`]*)`", text).group(1).split()


def run_script(*args: str) -> subprocess.CompletedProcess:
    # A plain checkout: the package is found through PYTHONPATH only.
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "PYTHONPATH": "."})


# Two interpreter starts that import torch and train: with the slow checks.
@pytest.mark.slow
def test_trains_both_pinned_and_evaluates_the_policies_they_wrote(tmp_path):
    configs = [tiny_config(tmp_path, "hunger_show_4p", {"n_envs": 2, "vec_env": "dummy"}),
               tiny_config(tmp_path, "hunger_show_4p_batched", {"n_envs": 4})]
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        pytest.skip("needs two CPUs to pin the runs apart")
    out = tmp_path / "out"
    result = run_script(*documented_arguments("compare_show_training"),
                        "--configs", *map(str, configs), "--steps", "16", "--games", str(GAMES),
                        "--workers", "1", "--out", str(out), "--cpus", str(cpus[0]),
                        str(cpus[1]))
    assert result.returncode == 0, result.stderr

    results = json.loads((out / "results.json").read_text())
    assert results["pinned"] and results["games"] == GAMES and results["seed"] == 0
    header, rule, *rows = result.stdout.splitlines()[:4]
    assert header.count("|") == 6 and rule == "|---|---|---|---|---|"
    for run, cpu, config, row in zip(results["runs"], cpus, configs, rows, strict=True):
        assert row.startswith(f"| {config} |")
        assert run["cpus"] == [cpu]
        folder = out / config.stem
        # The policy evaluated is the file the run wrote at its last step.
        assert run["policy"] == str(folder / "policy.safetensors")
        assert json.loads((folder / "policy.json").read_text())["steps"] == run["steps"] >= 16
        written = json.loads((folder / "evaluation.json").read_text())
        # PPO's pace leaves the start-up out, so it beats the pace over the whole run.
        assert run["ppo_steps_per_second"] == written["ppo_steps_per_second"] \
            > run["steps"] / run["train_seconds"]
        assert [r["opponent"] for r in written["rows"]] == ["expert"]
        assert run["tables"]["three experts"]["win_share"] == written["rows"][0]["win_share"]
        mixed = evaluate("hunger_show", 4, [run["policy"], "expert", "crowd", "greedy"], GAMES,
                         seed=FINAL_EVALUATION_SEED_OFFSET, progress=False)
        row = mixed.row(run["policy"])
        assert run["tables"]["expert, crowd, greedy"] == {
            "games": row.games, "win_share": row.win_share, "ci_low": row.ci_low,
            "ci_high": row.ci_high}


def test_runs_train_the_config_into_their_folder_with_the_final_table_only(tmp_path):
    config = script_module().run_config("hunger_show_4p_batched", tmp_path, 3000, 40, 3)
    assert config.out == str(tmp_path / "hunger_show_4p_batched")
    assert config.total_steps == 3000 and config.env.batched
    assert config.evaluation.every_steps > config.total_steps  # no periodic evaluation
    assert (config.evaluation.opponents, config.evaluation.final_games,
            config.evaluation.workers) == (["expert"], 40, 3)


def test_refuses_overlapping_or_absent_cpus_and_configs_of_one_name(tmp_path, capsys):
    main = script_module().main
    cpu = min(os.sched_getaffinity(0))
    assert main(["--cpus", str(cpu), f"{cpu},{cpu}", "--out", str(tmp_path)]) == 2
    assert f"the two sets share CPUs [{cpu}]" in capsys.readouterr().err
    absent = max(os.sched_getaffinity(0)) + 1
    assert main(["--cpus", str(cpu), str(absent), "--out", str(tmp_path)]) == 2
    assert f"CPUs [{absent}] are not available" in capsys.readouterr().err
    assert main(["--cpus", "0-1", str(cpu), "--out", str(tmp_path)]) == 2
    assert "give CPU numbers separated by commas" in capsys.readouterr().err
    assert main(["--configs", "hunger_show_4p", str(config_path("hunger_show_4p")), "--out",
                 str(tmp_path)]) == 2
    assert "both would train into one folder" in capsys.readouterr().err


def test_profile_times_every_part_of_a_batched_run(tmp_path, capsys):
    module = script_module("profile_show_training")
    config = tiny_config(tmp_path, "hunger_show_4p_batched", {"n_envs": 4})
    assert module.main([*documented_arguments("profile_show_training"), "--config",
                        str(config), "--steps", "64"]) == 0
    summary, header, *lines = capsys.readouterr().out.splitlines()
    assert summary.startswith(f"{config}: 64 PPO steps in ")  # two rollouts of 4 x 8 steps
    assert header.split() == ["part", "us/step", "share"]
    rows = {line[:18].strip(): line[18:].split() for line in lines}
    assert list(rows) == [*module.PARTS, "learn, other"]
    # Every timer caught its calls: each part took time, the nested ones less than the whole.
    shares = [float(share.rstrip("%")) for _, share in rows.values()]
    assert all(float(micros) > 0 for micros, _ in list(rows.values())[:-1]), rows
    assert sum(shares) == pytest.approx(100, abs=0.1 * len(shares))


def test_profile_refuses_a_run_off_the_batched_engine(capsys):
    assert script_module("profile_show_training").main(["--config", "hunger_show_4p"]) == 2
    assert "this profiles batched HUNGER runs" in capsys.readouterr().err
