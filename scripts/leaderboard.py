"""The leaderboard: docs/leaderboard.md, generated from the result files in docs/leaderboard/.

Usage:
    python scripts/leaderboard.py                  # regenerate docs/leaderboard.md
    python scripts/leaderboard.py --check          # exit 1 if the page is not the files' page
    python scripts/leaderboard.py --add RESULT     # file a benchmark.json as an entry
    python scripts/leaderboard.py --rerun NAME     # run entry NAME's command again, refile it
    python scripts/leaderboard.py --add RESULT --trained-by COMMAND --budget TEXT
                                                   # a reference training's entry

A reference training (a policy trained by a stated recipe and budget, such as
``python scripts/train_maskable_ppo.py ...``) files its benchmark result with the command that
trained the policy and the budget in words; ``--rerun`` runs that command first, from the
repository's root, then the benchmark.

A result enters only as a protocol entry of the current protocol (hunger_rl.training.benchmark,
docs/benchmark.md). ``--rerun NAME`` (NAME: the entry's file name without .json, such as
hunger_show_4p_pretrained_hunger_show_4p) is the one command that remeasures an entry, after a
shipped agent is retrained for instance; every change of the files regenerates the page.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from hunger_rl.cli import main as hunger_rl
from hunger_rl.training.benchmark import (
    RESULT_FILE,
    check_entry,
    default_out,
    entry_name,
    leaderboard_page,
    read_entries,
    write_json,
)

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "leaderboard"
PAGE = ROOT / "docs" / "leaderboard.md"
# Where --rerun runs an entry's command (the folder its run folder's default name is under).
RUNS_ROOT = ROOT
REGENERATE = "python scripts/leaderboard.py"


def page_text() -> str:
    """The page the result files make."""
    return leaderboard_page(read_entries(RESULTS), RESULTS.name, REGENERATE)


def add(result_path: Path, training: dict[str, str] | None = None) -> str:
    """File a result as an entry under its entry name, with ``training`` (the command that
    trained its policy and the budget) for a reference training; that name."""
    result = json.loads(result_path.read_text())
    if training is not None:
        result["training"] = training
    name = entry_name(result)
    try:
        check_entry(result, f"{name}.json")
    except ValueError as error:
        raise SystemExit(f"{result_path}: {error}") from None
    write_json(RESULTS / f"{name}.json", result)
    return name


def run_command(command: str) -> None:
    """Run a ``hunger-rl`` or ``python scripts/`` command line from the repository's root, with
    ``scripts`` on the Python path (of its workers too), where a reference training's own policy
    class lives (``python:train_interop:PlayScorerPolicy:FILE``)."""
    scripts = str(ROOT / "scripts")
    if scripts not in sys.path:
        sys.path.insert(0, scripts)
        os.environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [scripts, os.environ.get("PYTHONPATH")]))
    words = shlex.split(command)
    if words[0] == "hunger-rl":
        code = hunger_rl(words[1:])
    else:
        code = subprocess.run([sys.executable, *words[1:]], cwd=RUNS_ROOT).returncode
    if code != 0:
        raise SystemExit(f"{command} failed")


def rerun(name: str) -> None:
    """Run the command of entry ``name`` again into its run folder and refile the result."""
    path = RESULTS / f"{name}.json"
    if not path.is_file():
        known = ", ".join(p.stem for p in sorted(RESULTS.glob("*.json")))
        raise SystemExit(f"no entry {name!r}; the entries: {known}")
    result = json.loads(path.read_text())
    training = result.get("training")
    if training is not None:
        run_command(training["command"])
    out = RUNS_ROOT / default_out(result["spec"], result["game"], result["num_players"])
    shutil.rmtree(out, ignore_errors=True)  # a fresh run, not a resumed one of older weights
    run_command(f"{result['command']} --out {shlex.quote(str(out))}")
    add(out / RESULT_FILE, training)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--check", action="store_true",
                        help="exit 1 if docs/leaderboard.md is not what the files make")
    action.add_argument("--add", type=Path, metavar="RESULT",
                        help="file this benchmark.json as an entry, then regenerate")
    action.add_argument("--rerun", metavar="NAME",
                        help="run this entry's command again, refile it, then regenerate")
    parser.add_argument("--trained-by", metavar="COMMAND",
                        help="with --add: the command that trained the entry's policy")
    parser.add_argument("--budget", metavar="TEXT",
                        help="with --trained-by: the training's budget, in words")
    args = parser.parse_args()
    if (args.trained_by is None) != (args.budget is None) or (args.trained_by and not args.add):
        parser.error("--trained-by and --budget go together, with --add")
    if args.check:
        if PAGE.read_text() != page_text():
            print(f"{PAGE.relative_to(ROOT)} is stale: run {REGENERATE}", file=sys.stderr)
            return 1
        return 0
    if args.add:
        training = (None if args.trained_by is None
                    else {"command": args.trained_by, "budget": args.budget})
        print(f"filed {args.add} as {add(args.add, training)}")
    if args.rerun:
        rerun(args.rerun)
    PAGE.write_text(page_text())
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
