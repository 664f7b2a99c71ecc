"""A learning curve from a run's checkpoints, at whole tables of baselines.

Each checkpoint's policy (and the untrained network of the run's config, at step 0) in one seat
against a lineup of baselines in the others, seat-rotated (as ``hunger-rl evaluate --policies
POLICY BASELINE...``), win share with its 95% Wilson interval; the rows go to
``OUT/learning_curve.csv`` and ``.png`` as a run's own curve does:
    python scripts/checkpoint_curve.py RUN OUT --tables expert,crowd,greedy crowd --games 200
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.policies.learned import save_policy
from hunger_rl.training.checkpoint import CHECKPOINTS, STEP_PREFIX
from hunger_rl.training.config import load_config
from hunger_rl.training.outputs import policy_metadata, write_learning_curve
from hunger_rl.training.train import make_model, make_vec_env


def untrained_policy(run: Path, out: Path) -> Path:
    """The network the run started from (its config's seed), as a policy file."""
    config = load_config(run / "config.yaml")
    vec_env = make_vec_env(config)
    model = make_model(config, vec_env)
    metadata = policy_metadata(config, vec_env.observation_space, vec_env.action_space)
    return save_policy(out / "step_0.safetensors", model.policy, metadata)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a training run's output folder")
    parser.add_argument("out", type=Path)
    parser.add_argument("--tables", nargs="+", required=True,
                        help="comma-separated baselines filling the other seats, one per table")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    config = load_config(args.run / "config.yaml")
    points = [(0, untrained_policy(args.run, args.out))]
    for folder in sorted((args.run / CHECKPOINTS).glob(f"{STEP_PREFIX}*")):
        points.append((int(folder.name[len(STEP_PREFIX):]), folder / "policy.safetensors"))
    history = []
    for steps, policy in points:
        for table in args.tables:
            lineup = [str(policy), *table.split(",")]
            result = evaluate(config.game, config.num_players, lineup, args.games,
                              seed=args.seed, progress=False)
            row = result.row(str(policy))
            history.append({"steps": steps, "opponent": table.replace(",", "+"),
                            "games": row.games, "win_share": row.win_share,
                            "ci_low": row.ci_low, "ci_high": row.ci_high})
            print(f"{steps:>9} vs {table}: {row.win_share:.3f} [{row.ci_low:.3f}, "
                  f"{row.ci_high:.3f}]", flush=True)
    write_learning_curve(history, args.out)


if __name__ == "__main__":
    main()
