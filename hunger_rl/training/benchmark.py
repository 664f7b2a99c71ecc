"""``hunger-rl benchmark SPEC``: the suite's versioned benchmark protocol and its result card.

A benchmark entry measures one policy spec at one game and player count against a fixed
population, with fixed seeds and a fixed budget (docs/benchmark.md). Protocol ``v1``:

- **Tables.** The candidate holds one seat; the other seats are fixed opponents: each scripted
  baseline alone (``random``, ``greedy``, ``expert``, and Hungry's ``forecast`` or HUNGER's
  ``crowd``), the game's search (``search:200``, ``smmcts:100``), the shipped agent of that
  player count (``pretrained:GAME_Np``), and at 3 players or more a mixed table of different
  baselines. Every table is seat-rotated (the candidate sits in every seat equally often) and
  has its own seed. Tables whose opponents search play fewer games, to keep a card within
  minutes on one core (``SEARCH_TABLE_GAMES``).
- **Score.** A table's win share over the equal share ``1/N`` (1 is par, ``N`` is winning every
  game); the headline ``score`` is the mean of that ratio over the tables.
- **Exploiter.** A best response trained against the candidate with the shipped exploiter recipe
  (``hunger-rl exploit``) at ``EXPLOITER_STEPS`` steps, measured over ``EXPLOITER_GAMES`` games:
  its win share is a lower bound on how exploitable the candidate is. ``--no-exploit`` leaves it
  out (``"exploiter": null``).

The definition is the data below; ``protocol_digest`` hashes it, and a test pins that digest to
``PROTOCOL_VERSION``, so changing a table, a seed or a budget requires a new version.

Output folder: ``benchmark.json`` (the result), ``benchmark.md`` (the card) and
``benchmark.png`` (its plot), the exploiter's run in ``exploit/``; while it runs,
``benchmark.partial.json`` holds the tables finished, which a rerun of the same command keeps
(it resumes, and the exploiter resumes from its newest checkpoint). The result is the same for
the same command apart from ``"run"`` (the CPU, the seconds taken, the workers): see
``MACHINE_FIELDS``. Overrides of the protocol (``games``, ``exploit_steps``, another exploiter
recipe: for tests and quick looks) are recorded under ``"overrides"`` and make
``"protocol_entry"`` false, so such a result never passes for a protocol entry.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import sys
import time
from dataclasses import asdict, dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from tqdm import tqdm

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.policies.learned import write_atomically
from hunger_rl.policies.registry import make_policy

PROTOCOL_VERSION = "v1"
# The player counts each game is benchmarked at.
PLAYER_COUNTS = {"hungry": (2, 3, 4), "hunger_show": (2, 4, 6)}
SCRIPTED_OPPONENTS = {"hungry": ("random", "greedy", "expert", "forecast"),
                      "hunger_show": ("random", "greedy", "expert", "crowd")}
SEARCH_OPPONENT = {"hungry": "search:200", "hunger_show": "smmcts:100"}
# The other seats of the mixed table, in seat order after the candidate's.
MIXED_OPPONENTS = {
    ("hungry", 3): ("expert", "forecast"),
    ("hungry", 4): ("expert", "forecast", "greedy"),
    ("hunger_show", 4): ("expert", "crowd", "greedy"),
    ("hunger_show", 6): ("expert", "crowd", "greedy", "expert", "crowd"),
}
# Games of a table (a multiple of every player count, so whole seat rotations): 240 gives a 95%
# interval of about +-0.06 at a share of 0.5.
TABLE_GAMES = 240
# Tables whose opponents search, which cost about a second of CPU a game (docs/benchmark.md):
# fewer games, so that a card stays within minutes on one core, at wider intervals (+-0.14).
SEARCH_TABLE_GAMES = {("hungry", 2): 48, ("hungry", 3): 48, ("hungry", 4): 48,
                      ("hunger_show", 2): 48, ("hunger_show", 4): 48, ("hunger_show", 6): 24}
# Hungry's shipped agents search at play time; HUNGER's play their network.
SHIPPED_AGENT_SEARCHES = {"hungry": True, "hunger_show": False}
# A card's tables take seeds FIRST_SEED, FIRST_SEED + 1, ... in table order.
FIRST_SEED = 4600
EXPLOITER_STEPS = 200_000
EXPLOITER_GAMES = 400
EXPLOITER_SEED = 0
# The fields of a result that depend on the machine and the moment, not on the protocol and the
# policy: two runs of one command give the same result apart from these.
MACHINE_FIELDS = ("run",)
RESULT_FILE, CARD_FILE, PLOT_FILE = "benchmark.json", "benchmark.md", "benchmark.png"
PARTIAL_FILE = "benchmark.partial.json"
EXPLOIT_FOLDER = "exploit"
# The libraries a result names the versions of (those installed).
LIBRARIES = ("numpy", "numba", "gymnasium", "pettingzoo", "safetensors", "torch",
             "stable-baselines3", "sb3-contrib")
PRETRAINED = re.compile(r"pretrained:([A-Za-z0-9_]+)")
# The keys of a shipped agent's catalogue entry that describe it without changing how it plays
# (its measured strength among them, which scripts/pretrained_strength.py rewrites).
CATALOGUE_DESCRIPTIONS = {"description", "config", "network_strength", "strength",
                          "cost_ms_per_move"}


@dataclass(frozen=True)
class Table:
    """One table of a card: the candidate in one seat, ``opponents`` in the others (in seat
    order after the candidate's), ``games`` seat-rotated games from ``seed``."""

    name: str
    opponents: tuple[str, ...]
    games: int
    seed: int


def shipped_agent(game: str, num_players: int) -> str:
    return f"pretrained:{game}_{num_players}p"


def protocol_tables(game: str, num_players: int) -> tuple[Table, ...]:
    """The tables of ``game`` at ``num_players`` players; a ``ValueError`` naming the player
    counts the protocol covers for any other."""
    if game not in PLAYER_COUNTS:
        raise ValueError(f"protocol {PROTOCOL_VERSION} has no game {game!r}; it covers "
                         f"{', '.join(PLAYER_COUNTS)}")
    if num_players not in PLAYER_COUNTS[game]:
        counts = ", ".join(map(str, PLAYER_COUNTS[game]))
        raise ValueError(f"protocol {PROTOCOL_VERSION} benchmarks {game} at {counts} players, "
                         f"not {num_players}")
    others = num_players - 1
    search_games = SEARCH_TABLE_GAMES[game, num_players]
    agent = shipped_agent(game, num_players)
    agent_games = search_games if SHIPPED_AGENT_SEARCHES[game] else TABLE_GAMES
    rows = [(name, (name,) * others, TABLE_GAMES) for name in SCRIPTED_OPPONENTS[game]]
    rows.append((SEARCH_OPPONENT[game], (SEARCH_OPPONENT[game],) * others, search_games))
    rows.append((agent, (agent,) * others, agent_games))
    if (game, num_players) in MIXED_OPPONENTS:
        rows.append(("mixed", MIXED_OPPONENTS[game, num_players], TABLE_GAMES))
    return tuple(Table(name, opponents, games, FIRST_SEED + i)
                 for i, (name, opponents, games) in enumerate(rows))


def protocol_definition() -> dict[str, Any]:
    """Everything the protocol fixes, as JSON data: what ``protocol_digest`` hashes."""
    return {
        "tables": {f"{game}_{n}p": [asdict(table) for table in protocol_tables(game, n)]
                   for game, counts in PLAYER_COUNTS.items() for n in counts},
        "exploiter": {"recipe": "exploit_GAME", "steps": EXPLOITER_STEPS,
                      "games": EXPLOITER_GAMES, "seed": EXPLOITER_SEED},
        "score": "mean over the tables of the candidate's win share / (1 / players)",
    }


def protocol_digest(definition: dict[str, Any] | None = None) -> str:
    """SHA-256 of the protocol's definition (its canonical JSON)."""
    text = json.dumps(definition or protocol_definition(), sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def path_safe(spec: str) -> str:
    """``spec`` as a file or folder name: every character but letters, digits, ``-`` and ``_``
    becomes ``_``."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in spec)


def default_out(spec: str, game: str, num_players: int) -> str:
    return f"runs/benchmark_{game}_{num_players}p_{path_safe(spec)}"


def reproducing_command(spec: str, game: str, num_players: int, exploit: bool,
                        overrides: dict[str, Any]) -> str:
    """The ``hunger-rl benchmark`` command that gives this result."""
    words = ["hunger-rl", "benchmark", spec, "--game", game, "--players", str(num_players)]
    if not exploit:
        words.append("--no-exploit")
    for option, value in overrides.items():
        words += [f"--{option.replace('_', '-')}", str(value)]
    return " ".join(words)


def check_candidate(spec: str, game: str, num_players: int) -> tuple[Table, ...]:
    """The protocol's tables for the candidate, after checking that the protocol covers the
    player count and that ``spec`` plays this game at it: a ``ValueError`` naming the problem
    otherwise, before anything is played."""
    tables = protocol_tables(game, num_players)
    try:
        make_policy(spec, game, num_players)
    except ValueError as error:
        raise ValueError(f"benchmark {spec!r} ({game}, {num_players} players): {error}") from None
    return tables


def run_benchmark(spec: str, game: str, num_players: int, out: str | Path,
                  exploiter_recipe: Path | None, protocol_recipe: bool = True,
                  games: int | None = None, exploit_steps: int | None = None, workers: int = 1,
                  progress: bool = True) -> dict[str, Any]:
    """Benchmark ``spec`` by the protocol into ``out`` (resuming a run of the same command
    stopped there), write the result file, the card and its plot, and return the result.

    ``exploiter_recipe`` is the exploiter's config file: the shipped ``exploit_GAME`` (the
    caller resolves it: configs are the command line's), or with ``protocol_recipe`` false
    another one; ``None`` leaves the exploiter out (``--no-exploit``). Another recipe,
    ``games`` (every table's and the exploiter's final games) and ``exploit_steps`` override
    the protocol: the result records them and is then not a protocol entry."""
    tables = check_candidate(spec, game, num_players)
    exploit = exploiter_recipe is not None
    if not exploit and (exploit_steps is not None or not protocol_recipe):
        option = "--exploit-steps" if exploit_steps is not None else "--exploit-config"
        raise ValueError(f"{option} sets the exploiter, which --no-exploit leaves out")
    overrides = {key: value for key, value in (("games", games), ("exploit_steps", exploit_steps))
                 if value is not None}
    if exploit and not protocol_recipe:
        overrides["exploit_config"] = str(exploiter_recipe)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    identity = {"protocol": PROTOCOL_VERSION, "protocol_digest": protocol_digest(),
                "spec": spec, "game": game, "num_players": num_players, "exploit": exploit,
                "overrides": overrides}
    partial = resumed_partial(out / PARTIAL_FILE, identity)
    finished = {row["table"] for row in partial["tables"]}
    remaining = [table for table in tables if table.name not in finished]
    bar = tqdm(total=len(tables), initial=len(tables) - len(remaining), desc="benchmark tables",
               unit="table", disable=not progress, file=sys.stderr)
    with bar:
        for table in remaining:
            bar.set_postfix_str(table.name)
            started = time.perf_counter()
            row = play_table(spec, game, num_players, table, games, workers, progress)
            partial["tables"].append(row)
            partial["seconds"][table.name] = round(time.perf_counter() - started, 1)
            write_json(out / PARTIAL_FILE, partial)
            bar.update()
    if exploit and partial["exploiter"] is None:
        started = time.perf_counter()
        partial["exploiter"] = run_exploiter(spec, game, num_players, out / EXPLOIT_FOLDER,
                                             exploiter_recipe, games, exploit_steps, progress)
        partial["seconds"]["exploiter"] = round(time.perf_counter() - started, 1)
        write_json(out / PARTIAL_FILE, partial)
    order = [table.name for table in tables]
    rows = sorted(partial["tables"], key=lambda row: order.index(row["table"]))
    result = {
        "protocol": PROTOCOL_VERSION,
        "protocol_digest": identity["protocol_digest"],
        "protocol_entry": not overrides,
        "overrides": identity["overrides"],
        "spec": spec,
        "game": game,
        "num_players": num_players,
        "equal_share": 1.0 / num_players,
        "score": sum(row["ratio"] for row in rows) / len(rows),
        "tables": rows,
        "exploiter": partial["exploiter"],
        "shipped_agents": shipped_agent_digests([spec, *(o for t in tables for o in t.opponents)]),
        "versions": library_versions(),
        "command": reproducing_command(spec, game, num_players, exploit, overrides),
        "run": {"cpu": cpu_model(), "workers": workers,
                "seconds": round(sum(partial["seconds"].values()), 1),
                "seconds_by_part": partial["seconds"]},
    }
    write_json(out / RESULT_FILE, result)
    write_card(result, out)
    (out / PARTIAL_FILE).unlink()
    return result


def resumed_partial(path: Path, identity: dict[str, Any]) -> dict[str, Any]:
    """The partial result in ``path`` of a run of the same command, or a fresh one; a
    ``ValueError`` naming what differs when it holds another command's run."""
    if not path.is_file():
        return {"identity": identity, "tables": [], "seconds": {}, "exploiter": None}
    try:
        partial = json.loads(path.read_text())
        before = partial["identity"]
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{path} is not a partial benchmark ({error}); remove it to start "
                         "afresh") from None
    differing = [key for key in identity if before.get(key) != identity[key]]
    if differing:
        shown = ", ".join(f"{key} {before.get(key)!r} (now {identity[key]!r})"
                          for key in differing)
        raise ValueError(f"{path.parent} holds a stopped benchmark of another command: {shown}; "
                         "give another --out or remove that folder")
    return partial


def play_table(spec: str, game: str, num_players: int, table: Table, games: int | None,
               workers: int, progress: bool) -> dict[str, Any]:
    """Play one table and return its row: the candidate's share by its own seats (an opponent
    with the candidate's spec is not counted with it)."""
    result = evaluate(game, num_players, [spec, *table.opponents], games or table.games,
                      seed=table.seed, workers=workers, progress=progress)
    share, low, high, played = result.entry_share(0)
    return {"table": table.name, "opponents": list(table.opponents), "seed": table.seed,
            "games": played, "win_share": share, "ci_low": low, "ci_high": high,
            "ratio": share * num_players}


def run_exploiter(spec: str, game: str, num_players: int, out: Path, recipe: Path,
                  games: int | None, steps: int | None, progress: bool) -> dict[str, Any]:
    """Train and measure the exploiter of ``spec`` (``training.exploit``) with the recipe file
    ``recipe``, resuming the run in ``out`` if one was stopped there after a checkpoint, and
    return its figures."""
    # Imported here: torch and stable-baselines3 take seconds to load, and --no-exploit needs
    # neither.
    from hunger_rl.training.checkpoint import has_checkpoint
    from hunger_rl.training.exploit import exploit, exploit_config

    config = exploit_config(spec, game, num_players, steps or EXPLOITER_STEPS, out, recipe,
                            seed=EXPLOITER_SEED, games=games or EXPLOITER_GAMES)
    report = exploit(config, resume=has_checkpoint(out), progress=progress)
    return {"recipe": recipe.stem, "steps": report["steps"],
            "seed": report["seed"], "games": report["games"], "win_share": report["win_share"],
            "ci_low": report["ci_low"], "ci_high": report["ci_high"]}


def shipped_agent_digests(specs: list[str]) -> dict[str, str]:
    """A SHA-256 of every shipped agent ``specs`` name: of its catalogue entry (how it plays:
    a temperature, a search; not ``CATALOGUE_DESCRIPTIONS``) and of its files (its weights,
    and any file of the package named after it): a table against a shipped agent measures
    these, which a retrained one replaces."""
    from hunger_rl.policies.pretrained import catalogue

    package = resources.files("hunger_rl.pretrained")
    names = sorted({name for spec in specs for name in PRETRAINED.findall(spec)})
    digests = {}
    for name in names:
        playing = {key: value for key, value in catalogue()[name].items()
                   if key not in CATALOGUE_DESCRIPTIONS}
        digest = hashlib.sha256(json.dumps(playing, sort_keys=True).encode())
        for file in sorted(package.iterdir(), key=lambda file: file.name):
            if file.name.startswith((f"{name}.", f"{name}_")):
                digest.update(file.name.encode() + file.read_bytes())
        digests[f"pretrained:{name}"] = digest.hexdigest()
    return digests


def library_versions() -> dict[str, str]:
    versions = {"hunger-rl": metadata.version("hunger-rl"),
                "python": platform.python_version()}
    for library in LIBRARIES:
        try:
            versions[library] = metadata.version(library)
        except metadata.PackageNotFoundError:
            continue  # not installed: it played no part
    return versions


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux), and how many cores there are."""
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass  # not Linux: platform's name stands
    return f"{name} ({os.cpu_count()} cores)"


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` whole or not at all: a stop midway leaves the previous file."""
    write_atomically(path, json.dumps(data, indent=1) + "\n")


def without_machine_fields(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` without ``MACHINE_FIELDS``: what two runs of one command agree on."""
    return {key: value for key, value in result.items() if key not in MACHINE_FIELDS}


def exploiter_text(exploiter: dict[str, Any] | None) -> str:
    if exploiter is None:
        return "not run (--no-exploit)"
    return (f"{exploiter['win_share']:.3f} [{exploiter['ci_low']:.3f}, "
            f"{exploiter['ci_high']:.3f}] after {exploiter['steps']:,} steps")


def write_card(result: dict[str, Any], out: Path) -> None:
    """The Markdown card (``benchmark.md``) and its plot (``benchmark.png``)."""
    plotted = plot_card(result, out / PLOT_FILE)
    entry = ("a protocol entry" if result["protocol_entry"] else
             f"NOT a protocol entry (overrides: {result['overrides']})")
    run = result["run"]
    lines = [
        f"# Benchmark {result['protocol']}: `{result['spec']}`, {result['game']}, "
        f"{result['num_players']} players",
        "",
        f"**Score {result['score']:.3f}** (mean over the tables of win share / equal share "
        f"{result['equal_share']:.3f}; 1 is par) · exploiter's win share: "
        f"{exploiter_text(result['exploiter'])}",
        "",
        f"`{result['command']}`: {entry}.",
        "",
        "| table | opponents | games | win share | 95% interval | share / equal |",
        "|---|---|---|---|---|---|",
    ]
    lines += [f"| {row['table']} | {', '.join(row['opponents'])} | {row['games']} | "
              f"{row['win_share']:.3f} | [{row['ci_low']:.3f}, {row['ci_high']:.3f}] | "
              f"{row['ratio']:.3f} |" for row in result["tables"]]
    lines += ["", f"![win share by table]({PLOT_FILE})" if plotted else
              "No plot: matplotlib is not installed (pip install 'hunger-rl[train]').", ""]
    versions = ", ".join(f"{name} {version}" for name, version in result["versions"].items())
    lines += [f"Versions: {versions}.", "",
              f"Run: {run['cpu']}, {run['workers']} worker(s), {run['seconds']:,.0f} s.", ""]
    (out / CARD_FILE).write_text("\n".join(lines))


def plot_card(result: dict[str, Any], path: Path) -> bool:
    """Each table's win share with its interval, the exploiter's beside them, and the equal
    share; False (nothing drawn) without matplotlib."""
    try:
        import matplotlib
    except ModuleNotFoundError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [(row["table"], row["win_share"], row["ci_low"], row["ci_high"], "tab:blue")
            for row in result["tables"]]
    if result["exploiter"] is not None:
        e = result["exploiter"]
        rows.append(("exploiter of it", e["win_share"], e["ci_low"], e["ci_high"], "tab:red"))
    figure, axes = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.6))
    names = [row[0] for row in rows]
    shares = [row[1] for row in rows]
    errors = [[max(row[1] - row[2], 0.0) for row in rows], [max(row[3] - row[1], 0.0)
                                                            for row in rows]]
    axes.barh(names, shares, xerr=errors, capsize=4, color=[row[4] for row in rows])
    axes.axvline(result["equal_share"], color="grey", linestyle="--", label="equal share")
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    axes.set_xlabel("win share (95% Wilson interval)")
    axes.set_ylabel("table: the other seats")
    axes.set_title(f"{result['spec']}: {result['game']}, {result['num_players']} players, "
                   f"score {result['score']:.2f} ({result['protocol']})")
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
    return True


# A reference training's entry names the command that trained its policy: the suite's CLI or
# one of its scripts, run from the repository's root.
TRAINING_COMMANDS = ("hunger-rl ", "python scripts/")


def entry_name(result: dict[str, Any]) -> str:
    """The file name (without ``.json``) of a result as a leaderboard entry."""
    return f"{result['game']}_{result['num_players']}p_{path_safe(result['spec'])}"


def check_entry(result: dict[str, Any], file_name: str) -> None:
    """A ``ValueError`` naming ``file_name`` unless ``result`` is a protocol entry of this
    protocol filed under its entry name."""
    if result.get("protocol") != PROTOCOL_VERSION or not result.get("protocol_entry"):
        raise ValueError(f"{file_name}: not a protocol {PROTOCOL_VERSION} entry (protocol "
                         f"{result.get('protocol')!r}, overrides {result.get('overrides')})")
    if result.get("protocol_digest") != protocol_digest():
        raise ValueError(f"{file_name}: measured by another definition of protocol "
                         f"{PROTOCOL_VERSION} (digest {result.get('protocol_digest')})")
    if file_name != f"{entry_name(result)}.json":
        raise ValueError(f"{file_name}: a result of {result['spec']!r} must be filed as "
                         f"{entry_name(result)}.json")
    training = result.get("training")
    if training is not None and (
            not isinstance(training, dict) or set(training) != {"command", "budget"}
            or not str(training["command"]).startswith(TRAINING_COMMANDS)
            or not str(training["budget"]).strip()):
        raise ValueError(f"{file_name}: 'training' must hold the command that trained the policy "
                         f"(starting with {' or '.join(map(repr, TRAINING_COMMANDS))}) and its "
                         f"budget, got {training!r}")


def read_entries(folder: str | Path) -> dict[str, dict[str, Any]]:
    """The leaderboard entries in ``folder`` (``NAME.json`` each, ``NAME`` from
    ``entry_name``), each checked by ``check_entry``."""
    entries = {}
    for path in sorted(Path(folder).glob("*.json")):
        result = json.loads(path.read_text())
        check_entry(result, path.name)
        entries[path.stem] = result
    return entries


def leaderboard_page(entries: dict[str, dict[str, Any]], results_link: str,
                     regenerate: str) -> str:
    """The leaderboard's Markdown: one ranking by score per game and player count, each row with
    its tables, its exploiter and the command that reproduces it. ``results_link`` is the
    entries' folder as the page links it; ``regenerate`` the command that writes the page. An
    entry whose shipped agents' weights differ from those installed now says so."""
    installed = shipped_agent_digests([spec for result in entries.values()
                                       for spec in result["shipped_agents"]])
    lines = [
        "# Leaderboard",
        "",
        f"<!-- Generated by `{regenerate}` from the result files in docs/{results_link}/; "
        "do not edit by hand. -->",
        "",
        f"Benchmark protocol {PROTOCOL_VERSION} ([the protocol](benchmark.md)): each entry is "
        f"one result file in `docs/{results_link}/`, ranked by its score, the mean "
        "over the tables of the win share divided by the equal share (1 is par). The exploiter's "
        "win share is a lower bound on how exploitable the entry is; `--no-exploit` entries "
        "leave it out. Then the entry's win share at each table, and the command that "
        "reproduces its file (a reference training's, after the command that trains its "
        "policy).",
        "",
    ]
    groups: dict[tuple[str, int], list[tuple[str, dict[str, Any]]]] = {}
    for name, result in entries.items():
        groups.setdefault((result["game"], result["num_players"]), []).append((name, result))
    for game, counts in PLAYER_COUNTS.items():
        for num_players in counts:
            group = groups.get((game, num_players))
            if not group:
                continue
            names = [table.name for table in protocol_tables(game, num_players)]
            lines += [f"## {game}, {num_players} players", "",
                      "| rank | policy | score | exploiter | " + " | ".join(names)
                      + " | command |",
                      "|---" * (len(names) + 5) + "|"]
            group.sort(key=lambda item: (-item[1]["score"], item[1]["spec"]))
            for rank, (name, result) in enumerate(group, 1):
                shares = {row["table"]: row["win_share"] for row in result["tables"]}
                changed = [spec for spec, digest in result["shipped_agents"].items()
                           if installed.get(spec) != digest]
                note = (f" (measured against an earlier {', '.join(changed)}: rerun)"
                        if changed else "")
                exploiter = result["exploiter"]
                training = result.get("training")
                trained = "" if training is None else f" (trained: {training['budget']})"
                command = ("" if training is None else f"`{training['command']}`, then ") + (
                    f"`{result['command']}`")
                lines.append(
                    f"| {rank} | [`{result['spec']}`]({results_link}/{name}.json){trained}{note}"
                    f" | {result['score']:.3f} | "
                    + ("-" if exploiter is None else f"{exploiter['win_share']:.3f}")
                    + " | " + " | ".join(f"{shares[table]:.3f}" for table in names)
                    + f" | {command} |")
            lines.append("")
    return "\n".join(lines)
