"""Where in a Hungry game does lookahead pay? The forecast player, searching only in a window.

A player follows the compiled forecast policy (the expert's valuation) everywhere except in one
window of the game's plays (counted over all seats, 0 to 47 at 2 players), where it plays
``search:N`` instead. Each window is played against the expert in seat-rotated games; the gain
over the plain forecast shows how much of search's strength that part of the game holds, and so
where a learned policy has the most to learn.

Usage: python scripts/search_by_phase.py [--players 2] [--games 2000] [--simulations 64]
    [--windows 0-16 16-32 32-48 40-48] [--workers 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import multiprocessing

import numpy as np

from hunger_rl.envs.hungry.engine import TOTAL_PLAYS
from hunger_rl.envs.hungry.env import raw_env
from hunger_rl.envs.hungry.view import public_view
from hunger_rl.policies.hungry import ExpertHungryPolicy, ForecastHungryPolicy
from hunger_rl.policies.hungry_search import SearchHungryPolicy
from hunger_rl.training.evaluation import wilson_interval

# Games per worker task.
CHUNK = 50


def play_chunk(task: tuple) -> list[float]:
    """The windowed player's win share in each game of one chunk (seat = game index mod N)."""
    players, simulations, window, first_game, games, seed = task
    start, stop = window
    forecast, search, expert = ForecastHungryPolicy(), SearchHungryPolicy(simulations), \
        ExpertHungryPolicy()
    rng = np.random.default_rng([seed, first_game])
    shares = []
    for game in range(first_game, first_game + games):
        env = raw_env(num_players=players)
        env.reset(seed=seed * 1_000_003 + game)
        player = env.possible_agents[game % players]
        while not env.game.is_over:
            agent = env.agent_selection
            observation = env.observe(agent)
            view = public_view(env, agent)
            if agent != player:
                policy = expert
            elif start <= view.num_plays < stop:
                policy = search
            else:
                policy = forecast
            env.step(policy.act(observation, rng, view))
        winners = env.game.score().winners
        shares.append(1.0 / len(winners) if env.possible_agents.index(player) in winners else 0.0)
    return shares


def parse_window(text: str) -> tuple[int, int]:
    try:
        start, stop = (int(part) for part in text.split("-"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a window is START-STOP, got {text!r}") from None
    if not 0 <= start <= stop <= TOTAL_PLAYS:
        raise argparse.ArgumentTypeError(f"a window lies within 0-{TOTAL_PLAYS}, got {text!r}")
    return start, stop


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--windows", type=parse_window, nargs="+",
                        default=[(0, 0), (0, 16), (16, 32), (32, 48), (40, 48), (0, 48)])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"forecast with search:{args.simulations} in a window of plays, against "
          f"{args.players - 1} expert(s), {args.games} seat-rotated games each")
    print(f"{'window':>8}  {'win share':>9}  95% CI")
    context = multiprocessing.get_context("spawn")
    with context.Pool(args.workers) as pool:
        for window in args.windows:
            tasks = [(args.players, args.simulations, window, first, min(CHUNK, args.games - first),
                      args.seed) for first in range(0, args.games, CHUNK)]
            shares = [s for chunk in pool.imap(play_chunk, tasks) for s in chunk]
            low, high = wilson_interval(sum(shares), len(shares))
            label = "none" if window[0] == window[1] else f"{window[0]}-{window[1]}"
            print(f"{label:>8}  {np.mean(shares):9.3f}  [{low:.3f}, {high:.3f}]", flush=True)


if __name__ == "__main__":
    main()
