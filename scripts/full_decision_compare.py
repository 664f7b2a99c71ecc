"""Compare a HUNGER full-decision learner with a default-decision one, and say where the first
departs from the S19 rules.

- Strength: each policy in its own mode (the full-decision one with ``decision_mode="agents"``)
  against three experts and at the mixed table (an expert, a crowd and a greedy player),
  seat-rotated, ``--games`` games per table from the same seed, win share with its 95% Wilson
  interval.
- Departures: ``--departure-games`` seeded games of the full-decision policy against three
  experts (seat-rotated); at every one of its later choices, whether it takes the S19 rule's
  choice (``rule_action``), counted by step kind; with ``--start`` (the default-mode agent the
  learner started from), at every daily pick whether it picks as that agent does on the same
  position.

    PYTHONPATH=. python scripts/full_decision_compare.py --full RUN_A --default RUN_B \
        --start pretrained:hunger_show_4p --games 400 --json OUT.json
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

import numpy as np

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.engines.hunger_show.full_decisions import NUM_PICKS
from hunger_rl.envs import hunger_show_v0
from hunger_rl.policies.registry import make_policy

NUM_PLAYERS = 4
FULL = {"decision_mode": "agents"}
TABLES = {"expert x3": ["expert"], "expert, crowd, greedy": ["expert", "crowd", "greedy"]}


def strength(spec: str, env_kwargs: dict, games: int, seed: int, workers: int) -> dict:
    rows = {}
    for name, table in TABLES.items():
        result = evaluate("hunger_show", NUM_PLAYERS, [spec, *table], games, seed=seed,
                          workers=workers, env_kwargs=env_kwargs, progress=False)
        row = result.row(spec)
        rows[name] = {"games": row.games, "win_share": row.win_share, "ci_low": row.ci_low,
                      "ci_high": row.ci_high}
    return rows


def departures(full_spec: str, start_spec: str | None, games: int, seed: int) -> dict:
    """Per step kind: the full-decision policy's steps and how many depart from the S19 rule
    (the daily picks: from the start agent's pick on the same position)."""
    learner = make_policy(full_spec, "hunger_show", NUM_PLAYERS)
    start = None if start_spec is None else make_policy(start_spec, "hunger_show", NUM_PLAYERS)
    experts = [make_policy("expert", "hunger_show", NUM_PLAYERS) for _ in range(NUM_PLAYERS - 1)]
    env = hunger_show_v0.env(num_players=NUM_PLAYERS, **FULL)
    rng = np.random.default_rng(seed)
    steps, departed = Counter(), Counter()
    for game in range(games):
        env.reset(seed=seed + game)
        learner_agent = env.possible_agents[game % NUM_PLAYERS]
        others = iter(experts)
        seats = {agent: learner if agent == learner_agent else next(others)
                 for agent in env.possible_agents}
        for policy in seats.values():
            policy.reset()
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = seats[agent].act(observation, rng)
            if agent == learner_agent:
                pending = env.unwrapped.game.pending
                if pending is None and start is not None:
                    view = {"observation": observation["observation"][
                                :start._encode.action_features.start],
                            "action_mask": observation["action_mask"][:NUM_PICKS]}
                    steps["pick"] += 1
                    departed["pick"] += action != start.act(view, rng)
                elif pending is not None:
                    steps[pending.kind] += 1
                    departed[pending.kind] += action != int(
                        np.flatnonzero(observation["rule_action"])[0])
            env.step(action)
    return {kind: {"steps": steps[kind], "departures": departed[kind]} for kind in steps}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", required=True, help="the full-decision policy (a policy file)")
    parser.add_argument("--default", required=True, help="the default-decision policy")
    parser.add_argument("--start", help="the default-mode agent the full-decision one started "
                                        "from, to count its daily picks that depart from it")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--departure-games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args(argv)
    results = {
        "full": strength(args.full, FULL, args.games, args.seed, args.workers),
        "default": strength(args.default, {}, args.games, args.seed, args.workers),
        "departures": departures(args.full, args.start, args.departure_games, args.seed),
    }
    print("| learner | " + " | ".join(f"vs {name}" for name in TABLES) + " |")
    print("|---|" + "---|" * len(TABLES))
    for learner in ("default", "full"):
        cells = [f"{r['win_share']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] ({r['games']})"
                 for r in results[learner].values()]
        print(f"| {learner} | " + " | ".join(cells) + " |")
    print("\n| step kind | steps | departures from the rule (picks: from the start agent) |")
    print("|---|---|---|")
    for kind, row in sorted(results["departures"].items()):
        print(f"| {kind} | {row['steps']} | {row['departures']} "
              f"({row['departures'] / row['steps']:.1%}) |")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
