"""hunger-rl: multi-agent RL environments for the tabletop games Hungry and HUNGER: The Show.

Play a random game (demo), pit policies against each other (evaluate, tournament), list the
shipped training configs (configs), train a policy from one (train), train an exploiter of a
policy (exploit) and benchmark a policy by the suite's versioned protocol (benchmark).
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from hunger_rl.arena.commands import (
    MAX_COMMAND_SEED,
    MAX_GAMES,
    MAX_PLAYERS,
    MAX_WORKERS,
    bounded_int,
    output_folder,
)
from hunger_rl.arena.commands import add_commands as add_evaluation_commands
from hunger_rl.configs import config_names, config_summary, resolve_config
from hunger_rl.envs import GAMES, game_spec, player_counts_text
from hunger_rl.ui.commands import add_commands as add_game_commands

# The optional extra that provides each module a command may need.
EXTRA_OF_MODULE = {
    **dict.fromkeys(("torch", "stable_baselines3", "sb3_contrib", "yaml", "matplotlib",
                     "tensorboard", "safetensors"), "train"),
    "ray": "rllib",
}


def _demo(args: argparse.Namespace) -> int:
    spec = game_spec(args.game)
    players = args.players if args.players is not None else spec.default_players
    spec.load().demo(num_players=players, seed=args.seed, out=sys.stdout)
    return 0


def _configs(args: argparse.Namespace) -> int:
    names = config_names()
    width = max(len(name) for name in names)
    for name in names:
        print(f"{name:<{width}}  {config_summary(name)}")
    return 0


def _train(args: argparse.Namespace) -> int:
    # Imported here: torch, stable-baselines3 and Ray take seconds to load.
    from hunger_rl.training.config import config_from_dict, load_config

    config = load_config(resolve_config(args.config)).to_dict()
    overrides = {"total_steps": args.total_steps, "out": args.out}
    config.update({k: v for k, v in overrides.items() if v is not None})
    if args.final_games is not None:
        config["evaluation"]["final_games"] = args.final_games
    try:
        config = config_from_dict(config)  # the overrides meet the schema's bounds too
    except ValueError as error:
        raise ValueError(f"{args.config} with the command line's overrides: {error}") from error
    output_folder("--out" if args.out else "out", config.out)
    if args.resume and not Path(args.resume).is_dir():
        raise ValueError(f"--resume {args.resume}: no such folder")
    if args.beside:
        from hunger_rl.policies.registry import make_policy

        make_policy(args.beside, config.game, config.num_players)  # a bad spec fails before
    if config.backend == "rllib":
        if args.beside:
            raise ValueError("--beside works with the sb3 backend only")
        if args.resume:
            raise ValueError("--resume works with the sb3 backend only")
        try:
            from hunger_rl.training.rllib import train_rllib
        except ImportError as error:  # the rllib extra is not installed
            raise ValueError(str(error)) from error
        train_rllib(config, progress=not args.no_progress)
        return 0
    if config.backend == "exploiter_league":
        if args.beside:
            raise ValueError("--beside works with the sb3 backend only")
        from hunger_rl.training.recipes import train_recipe

        train_recipe(config, resolve_config, resume=args.resume, progress=not args.no_progress)
        return 0
    from hunger_rl.training.outputs import final_evaluation, format_beside

    if config.backend == "expert_iteration":
        from hunger_rl.training.expert_iteration import train_expert_iteration

        table = train_expert_iteration(config, resume=args.resume, progress=not args.no_progress)
    else:
        from hunger_rl.training.recipes import train_recipe

        table = train_recipe(config, resolve_config, resume=args.resume,
                             progress=not args.no_progress)
    if args.beside:
        other = final_evaluation(config, args.beside, progress=not args.no_progress)
        print(f"\nThe same games with {args.beside} in the trained policy's seats:")
        print(format_beside(table, args.beside, other))
    return 0


def _exploit(args: argparse.Namespace) -> int:
    # Imported here: torch and stable-baselines3 take seconds to load.
    from hunger_rl.training.benchmark import path_safe
    from hunger_rl.training.exploit import exploit, exploit_config, format_report, recipe_name

    out = args.out or f"runs/exploit_{args.game}_{args.players}p_{path_safe(args.spec)}"
    recipe = resolve_config(args.config or recipe_name(args.game))
    config = exploit_config(args.spec, args.game, args.players, args.steps, out, recipe,
                            seed=args.seed, games=args.games)
    output_folder("--out" if args.out else "out", config.out)
    print(format_report(exploit(config, resume=args.resume, progress=not args.no_progress)))
    return 0


def _benchmark(args: argparse.Namespace) -> int:
    # Imported here: the exploiter's torch and stable-baselines3 load only when it trains.
    from hunger_rl.training.benchmark import (
        CARD_FILE,
        RESULT_FILE,
        default_out,
        exploiter_text,
        run_benchmark,
    )

    recipe = None
    if not args.no_exploit:
        from hunger_rl.training.exploit import recipe_name

        recipe = resolve_config(args.exploit_config or recipe_name(args.game))
    out = args.out or default_out(args.spec, args.game, args.players)
    output_folder("--out" if args.out else "out", out)
    result = run_benchmark(args.spec, args.game, args.players, out, recipe,
                           protocol_recipe=args.exploit_config is None, games=args.games,
                           exploit_steps=args.exploit_steps, workers=args.workers,
                           progress=not args.no_progress)
    print(f"{args.spec} ({args.game}, {args.players} players), protocol {result['protocol']}"
          f"{'' if result['protocol_entry'] else ' with overrides (not a protocol entry)'}: "
          f"score {result['score']:.3f}; exploiter's win share "
          f"{exploiter_text(result['exploiter'])}")
    for row in result["tables"]:
        print(f"  {row['table']:<24} {row['win_share']:.3f} [{row['ci_low']:.3f}, "
              f"{row['ci_high']:.3f}] over {row['games']} games")
    print(f"wrote {Path(out) / RESULT_FILE} and {Path(out) / CARD_FILE}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hunger-rl", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="print one random game with the text renderer")
    demo.add_argument("game", choices=sorted(GAMES))
    demo.add_argument("--players", type=bounded_int(1, MAX_PLAYERS),
                      help=f"number of players ({player_counts_text()}; default: the game's "
                      "usual count)")
    demo.add_argument("--seed", type=bounded_int(0, MAX_COMMAND_SEED), default=0,
                      help="seed of the deal and of the moves")
    demo.set_defaults(handler=_demo)

    add_evaluation_commands(commands)
    add_game_commands(commands)

    configs = commands.add_parser("configs", help="list the shipped training configs")
    configs.set_defaults(handler=_configs)

    train = commands.add_parser("train", help="train from a YAML config: self-play PPO (SB3 or Ray "
                           "RLlib) or expert iteration")
    train.add_argument("config", help="a shipped config's name (see `hunger-rl configs`), "
                       "e.g. hungry_2p, or the path of a config file")
    train.add_argument("--resume", help="a checkpoint folder (OUT/checkpoints/step_N), or a run "
                       "folder OUT: its newest complete checkpoint")
    # Their upper bounds are the config schema's, checked with the rest of the config.
    train.add_argument("--total-steps", type=bounded_int(1), help="override total_steps")
    train.add_argument("--out", help="override the output folder")
    train.add_argument("--final-games", type=bounded_int(1),
                       help="override evaluation.final_games (games per baseline at the end)")
    train.add_argument("--beside", metavar="SPEC",
                       help="also evaluate this policy (e.g. pretrained:hungry_2p) against the "
                            "same opponents and print both side by side")
    train.add_argument("--no-progress", action="store_true", help="no progress bars")
    train.set_defaults(handler=_train)

    exploit = commands.add_parser(
        "exploit", help="train a best response to a policy: a lower bound on its exploitability",
        description="Every seat but the learner's plays SPEC; the learner trains with the "
        "game's exploiter recipe (hunger-rl configs: exploit_GAME) and reports its win share "
        "against SPEC with a 95%% interval and a learning curve.")
    exploit.add_argument("spec", metavar="SPEC", help="the policy to exploit (a scripted "
                         "name, search:N, pretrained:NAME or a policy file)")
    exploit.add_argument("--game", choices=sorted(GAMES), required=True)
    exploit.add_argument("--players", type=bounded_int(1, MAX_PLAYERS), default=2,
                         help=f"number of players ({player_counts_text()}; default 2)")
    # Their upper bounds are the config schema's, checked with the rest of the config.
    exploit.add_argument("--steps", type=bounded_int(1), default=200_000,
                         help="the exploiter's training budget in learner steps (default "
                              "200,000)")
    exploit.add_argument("--games", type=bounded_int(1), default=400,
                         help="seat-rotated games of the final measurement (default 400)")
    exploit.add_argument("--seed", type=bounded_int(0), default=0)
    exploit.add_argument("--config", help="another recipe: a shipped config's name or a config "
                         "file (its game must match; its opponents and budget are replaced)")
    exploit.add_argument("--out", help="output folder (default runs/exploit_GAME_Np_SPEC)")
    exploit.add_argument("--resume", action="store_true",
                         help="continue the run stopped in the output folder from its newest "
                              "checkpoint (one is written at every point of the curve)")
    exploit.add_argument("--no-progress", action="store_true", help="no progress bars")
    exploit.set_defaults(handler=_exploit)

    benchmark = commands.add_parser(
        "benchmark", help="the versioned benchmark protocol: fixed tables, seeds and budget; a "
        "result file and a card with a headline score",
        description="Plays SPEC against the protocol's tables (scripted baselines, the search, "
        "the shipped agent, a mixed table; seat-rotated, fixed seeds), then trains the "
        "protocol's exploiter against it, and writes OUT/benchmark.json, a card OUT/benchmark.md "
        "and its plot (docs/benchmark.md). A stopped run resumes when run again.")
    benchmark.add_argument("spec", metavar="SPEC", help="the policy to benchmark (any policy "
                           "spec: a scripted name, a search, pretrained:NAME, a policy file)")
    benchmark.add_argument("--game", choices=sorted(GAMES), required=True)
    benchmark.add_argument("--players", type=bounded_int(1, MAX_PLAYERS), required=True,
                           help="number of players: one the protocol covers (an error names them)")
    benchmark.add_argument("--no-exploit", action="store_true",
                           help="leave out the exploiter (a quick card, without torch)")
    benchmark.add_argument("--out", help="output folder (default runs/benchmark_GAME_Np_SPEC)")
    benchmark.add_argument("--workers", type=bounded_int(1, MAX_WORKERS), default=1,
                           help="worker processes for the tables (the result does not depend on "
                                "them)")
    benchmark.add_argument("--games", type=bounded_int(1, MAX_GAMES),
                           help="override every table's games (and the exploiter's): the result "
                                "is then not a protocol entry")
    benchmark.add_argument("--exploit-steps", type=bounded_int(1),
                           help="override the exploiter's budget (not a protocol entry)")
    benchmark.add_argument("--exploit-config", help="another exploiter recipe, as exploit's "
                           "--config (not a protocol entry)")
    benchmark.add_argument("--no-progress", action="store_true", help="no progress bars")
    benchmark.set_defaults(handler=_benchmark)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that the command unwinds as on Ctrl-C (worker
    pools terminate their workers on the way out). A BaseException, as KeyboardInterrupt is, so
    that no ``except Exception`` stops it."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return args.handler(args)
    except KeyboardInterrupt:
        print(f"hunger-rl: {args.command} interrupted (Ctrl-C)", file=sys.stderr)
        return 130
    except Terminated:
        print(f"hunger-rl: {args.command} terminated (SIGTERM)", file=sys.stderr)
        return 143
    except ValueError as error:
        print(f"hunger-rl: error: {error}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:
        top = (error.name or "").split(".")[0]
        if top not in EXTRA_OF_MODULE:
            raise
        extra = EXTRA_OF_MODULE[top]
        print(f"hunger-rl: error: `hunger-rl {args.command}` needs the {extra} extra (no module "
              f"{top!r}): pip install 'hunger-rl[{extra}]'", file=sys.stderr)
        return 2
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
