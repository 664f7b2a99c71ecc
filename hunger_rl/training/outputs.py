"""What every trainer writes and reports, whatever its backend (SB3's ``training.train``, Ray
RLlib's ``training.rllib``): the output folder and its config, the policy file's metadata, the
seat-rotated evaluations against the config's baselines, the final table (``evaluation.csv`` /
``.json``) and the learning curve (``learning_curve.csv`` / ``.png``).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
import yaml
from gymnasium import spaces

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.policies.learned import PolicyMetadata
from hunger_rl.training.checkpoint import HISTORY_FIELDS, remove_leftovers
from hunger_rl.training.config import TrainConfig

CURVE_FIELDS = tuple(HISTORY_FIELDS)
# The final evaluation plays from seed + this: a large prime, so that its games share no seed
# with the periodic evaluations, which play from seed + steps.
FINAL_EVALUATION_SEED_OFFSET = 1_000_003


def prepare_output(config: TrainConfig) -> Path:
    """Set torch's thread count, create the output folder (removing what writes killed midway
    left in it) and record the config in it."""
    torch.set_num_threads(config.torch_threads)
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    removed = remove_leftovers(out)
    if removed:
        print(f"removed {len(removed)} unfinished file(s) of an interrupted run in {out}")
    (out / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    return out


def saved_config_differences(config: TrainConfig, run: str) -> list[str]:
    """The top-level keys in which ``config`` differs from the config its output folder
    recorded (``out`` aside); a ``ValueError`` naming the ``run`` wanted if the folder recorded
    none."""
    from hunger_rl.training.config import load_config

    saved = Path(config.out) / "config.yaml"
    if not saved.is_file():
        raise ValueError(f"--resume: {config.out} holds no {run} run (no config.yaml)")
    before, now = load_config(saved).to_dict(), config.to_dict()
    return sorted(key for key in (before.keys() | now.keys()) - {"out"}
                  if before.get(key) != now.get(key))


def policy_metadata(config: TrainConfig, observation_space: spaces.Box,
                    action_space: spaces.Discrete) -> PolicyMetadata:
    """The policy file's metadata for the training envs' spaces (their inputs hold the state
    after the observation with a privileged critic)."""
    shape = config.network_shape()
    return PolicyMetadata(
        config.game, config.num_players,
        observation_size=int(observation_space.shape[0]) - shape.critic_state_size,
        num_actions=int(action_space.n), network=shape,
        game_options=dict(config.game_options), features=True,
        extra={"config": config.to_dict()})


def evaluate_policy(config: TrainConfig, policy_path: Path, games: int, seed: int,
                    progress: bool = False) -> list[dict[str, Any]]:
    """Seat-rotated games of the policy against each evaluation opponent filling all other
    seats; one row per opponent with the policy's win share and its 95% Wilson interval."""
    rows = []
    for opponent in config.evaluation.opponents:
        result = evaluate(config.game, config.num_players, [str(policy_path), opponent],
                          games=games, seed=seed, workers=config.evaluation.workers,
                          env_kwargs=config.game_options, progress=progress)
        row = result.row(str(policy_path))
        rows.append({"opponent": opponent, "games": row.games, "win_share": row.win_share,
                     "ci_low": row.ci_low, "ci_high": row.ci_high})
    return rows


def final_evaluation(config: TrainConfig, spec: str | Path,
                     progress: bool = False) -> list[dict[str, Any]]:
    """The final table's games (``evaluation.final_games`` per opponent, a seed of their own)
    with the policy ``spec`` in the trained policy's seats."""
    return evaluate_policy(config, spec, config.evaluation.final_games,
                           seed=config.seed + FINAL_EVALUATION_SEED_OFFSET, progress=progress)


def format_table(rows: list[dict[str, Any]], config: TrainConfig, steps: int,
                 seconds: float) -> str:
    lines = [f"{config.game} {config.num_players} players: policy after {steps:,} steps "
             f"({seconds / 60:.1f} min of training), seat-rotated, 95% Wilson intervals",
             f"{'opponent':<12}{'games':>7}{'win share':>11}   interval"]
    lines += [f"{r['opponent']:<12}{r['games']:>7}{r['win_share']:>11.3f}   "
              f"[{r['ci_low']:.3f}, {r['ci_high']:.3f}]" for r in rows]
    return "\n".join(lines)


def format_beside(rows: list[dict[str, Any]], spec: str, other: list[dict[str, Any]]) -> str:
    """The trained policy's rows and another policy's rows against the same opponents."""
    lines = [f"{'opponent':<12}{'games':>7}   {'trained policy':<24}{spec}"]
    for mine, theirs in zip(rows, other, strict=True):
        cells = [f"{r['win_share']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                 for r in (mine, theirs)]
        lines.append(f"{mine['opponent']:<12}{mine['games']:>7}   {cells[0]:<24}{cells[1]}")
    return "\n".join(lines)


def write_table(rows: list[dict[str, Any]], out: Path, summary: dict[str, Any]) -> None:
    with open(out / "evaluation.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    (out / "evaluation.json").write_text(json.dumps({**summary, "rows": rows}, indent=1))


def write_learning_curve(history: list[dict[str, Any]], out: Path) -> None:
    """``learning_curve.csv`` and a PNG: win share against each opponent over steps."""
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    with open(out / "learning_curve.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CURVE_FIELDS)
        writer.writeheader()
        writer.writerows({k: row[k] for k in CURVE_FIELDS} for row in history)
    figure = learning_curve_figure(history)
    figure.savefig(out / "learning_curve.png", dpi=100)
    plt.close(figure)


def learning_curve_figure(history: list[dict[str, Any]]):
    """Win share against each opponent over steps, each point with its 95% interval as an
    error bar (so that a run with one evaluation still shows its point and interval)."""
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    for opponent in dict.fromkeys(row["opponent"] for row in history):
        rows = [row for row in history if row["opponent"] == opponent]
        shares = np.array([row["win_share"] for row in rows])
        # Clipped at 0: at a share of 0 or 1 the interval's end can round past the share.
        below = np.maximum(shares - [row["ci_low"] for row in rows], 0)
        above = np.maximum([row["ci_high"] for row in rows] - shares, 0)
        axes.errorbar([row["steps"] for row in rows], shares, yerr=[below, above], marker="o",
                      capsize=3, label=opponent)
    axes.set_xlabel("training steps (learner decisions)")
    axes.set_ylabel("win share (95% interval)")
    # A curve whose only point is at 0 steps (a run's start) still gets a width.
    axes.set_xlim(0, 1.05 * max(row["steps"] for row in history) or 1)
    axes.set_ylim(0, 1)
    axes.grid(alpha=0.3)
    axes.legend(title="against")
    figure.tight_layout()
    return figure
