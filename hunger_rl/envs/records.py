"""Game records: one JSON line per game, and exact replay through the engine.

A record holds the game, its environment options, the reset seed, who sat in each seat, every
step in order and the final result. A Hungry step is one play: ``{"agent", "action",
"rewards"}``. A HUNGER: The Show step is one day: ``{"actions", "decisions", "rewards"}``, where
``decisions`` lists every choice the players' decision objects made that day (S19), in the order
the engine asked for them, as ``[method, seat, answer]`` (token ids as the engine numbers them).
The result names the winners, each ranked player's final score (the env attribute that the
game's ``GameSpec.score_attribute`` names: Hungry's totals, HUNGER's ranking keys) and a digest
of the engine's final state.

:func:`replay` plays a record again from its seed and its actions and checks every step against
it: an action that is not legal, a decision, a reward or the final result that differs raises
:class:`ReplayError` naming the first step where the replay departs from the record. Records
hold only what the default decision rules decide; a game with custom decision objects cannot be
recorded.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hunger_rl.engines.hunger_show.decisions import DefaultDecisions
from hunger_rl.engines.hunger_show.engine import DECISION_METHODS
from hunger_rl.envs import GAMES, game_spec

FORMAT = "hunger-rl-record/2"
RECORD_FIELDS = ("format", "game", "num_players", "options", "seed", "players", "steps", "result")
# Reward comparison tolerance: rewards are sums of a few floats, written by json exactly.
REWARD_TOLERANCE = 1e-9


class RecordError(ValueError):
    """A record that cannot be read: malformed, truncated, or of an unknown game or format."""


class ReplayError(RecordError):
    """A record whose replay departs from it; ``step`` is the first step that differs
    (``None`` for the setup or the final result)."""

    def __init__(self, message: str, step: int | None):
        super().__init__(message)
        self.step = step


@dataclass
class GameRecord:
    """One recorded game; see the module docstring for the fields."""

    game: str
    num_players: int
    options: dict[str, Any]
    seed: int
    players: list[str]
    steps: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "game": self.game, "num_players": self.num_players,
                "options": self.options, "seed": self.seed, "players": self.players,
                "steps": self.steps, "result": self.result}

    def to_json_line(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: Any, where: str = "record") -> GameRecord:
        """A record from its JSON form, its fields checked (not yet replayed)."""
        if not isinstance(data, dict):
            raise RecordError(f"{where}: a record is a JSON object, got {type(data).__name__}")
        missing = [name for name in RECORD_FIELDS if name not in data]
        if missing:
            raise RecordError(f"{where}: missing field(s) {missing}")
        if data["format"] != FORMAT:
            raise RecordError(f"{where}: unknown record format {data['format']!r}; "
                              f"this version reads {FORMAT!r}")
        if data["game"] not in GAMES:
            raise RecordError(f"{where}: unknown game {data['game']!r}; "
                              f"games are {sorted(GAMES)}")
        checks = (("num_players", int), ("options", dict), ("seed", int), ("players", list),
                  ("steps", list), ("result", dict))
        for name, kind in checks:
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, kind):
                raise RecordError(f"{where}: field {name!r} must be a {kind.__name__}, "
                                  f"got {value!r:.80}")
        if len(data["players"]) != data["num_players"]:
            raise RecordError(f"{where}: {len(data['players'])} players named for a "
                              f"{data['num_players']}-player game")
        for index, step in enumerate(data["steps"]):
            if not isinstance(step, dict):
                raise RecordError(f"{where}: step {index} is not a JSON object")
        return cls(data["game"], data["num_players"], data["options"], data["seed"],
                   list(data["players"]), data["steps"], data["result"])


def write_records(path: str | Path, records: Sequence[GameRecord]) -> None:
    """Write ``records`` to ``path``, one JSON line each."""
    with open(path, "w", encoding="utf-8") as out:
        for record in records:
            out.write(record.to_json_line() + "\n")


def load_records(path: str | Path) -> list[GameRecord]:
    """Every record of a JSON-lines file; a clear error names the bad line."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RecordError(f"no record file at {str(path)!r}") from None
    except IsADirectoryError:
        raise RecordError(f"{path} is a folder, not a record file") from None
    except OSError as error:
        raise RecordError(f"cannot read the record file {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise RecordError(f"{path}: not a UTF-8 text file ({error.reason})") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            # Some of json's messages end in "at" ("Unterminated string starting at").
            at = "" if error.msg.endswith(" at") else " at"
            raise RecordError(f"{where}: not a complete JSON record ({error.msg}{at} column "
                              f"{error.colno}); is the file truncated?") from None
        records.append(GameRecord.from_dict(data, where))
    if not records:
        raise RecordError(f"{path}: the file holds no record")
    return records


def load_record(path: str | Path, index: int = 0) -> GameRecord:
    """Game number ``index`` (from 0) of a record file."""
    records = load_records(path)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(records):
        raise RecordError(f"{path} holds {len(records)} game(s); game index {index!r} is not "
                          f"one of 0..{len(records) - 1}")
    return records[index]


# ----------------------------------------------------------------------------- environments
def make_env(game: str, num_players: int, options: Mapping[str, Any]):
    """The game's native environment: Hungry's AEC ``raw_env`` or HUNGER: The Show's Parallel
    env."""
    try:
        return game_spec(game).make_env(num_players, **options)
    except TypeError as error:  # an unknown keyword argument
        raise ValueError(f"bad environment arguments {dict(options)}: {error}") from error


class RecordingDecisions(DefaultDecisions):
    """The default decision rules (S19), noting each answer the engine asked for.

    A rule that asks another (a Campsite theft picks with ``take``) is noted once, as the outer
    choice.
    """

    def __init__(self) -> None:
        self.log: list[list[Any]] = []
        self._depth = 0

    def drain(self) -> list[list[Any]]:
        """The decisions noted since the last drain."""
        log, self.log = self.log, []
        return log


def _recorded(name: str):
    rule = getattr(DefaultDecisions, name)

    def method(self: RecordingDecisions, game, player: int, *args):
        self._depth += 1
        try:
            answer = rule(self, game, player, *args)
        finally:
            self._depth -= 1
        if not self._depth:
            self.log.append([name, player, plain_json(answer)])
        return answer

    method.__name__ = method.__qualname__ = name
    method.__doc__ = rule.__doc__
    return method


for _name in DECISION_METHODS:
    setattr(RecordingDecisions, _name, _recorded(_name))


def plain_json(value: Any) -> Any:
    """``value`` as JSON would give it back: tuples as lists (a decision, a day log)."""
    if isinstance(value, dict):
        return {key: plain_json(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    return value


def recordable_options(options: Mapping[str, Any] | None) -> dict[str, Any]:
    """A copy of the environment options, or an error if a record cannot hold them."""
    options = dict(options or {})
    if "decisions" in options:
        raise ValueError("a game with custom decision objects cannot be recorded: a record "
                         "replays the default decision rules (S19)")
    if options.get("decision_mode", "objects") != "objects":
        raise ValueError("games of HUNGER's full-decision mode cannot be recorded yet: a record "
                         "holds a day's picks and the decision rules' choices, not agents' steps")
    try:
        json.dumps(options)
    except TypeError as error:
        raise ValueError(f"environment options must be JSON values to be recorded: "
                         f"{error}") from error
    return options


class Recorder:
    """Builds the record of one game while it is played.

    ``env_options()`` are the keyword arguments to build the environment with (for HUNGER: The
    Show they add the recording decision objects); after each step call :meth:`aec_step` or
    :meth:`parallel_step`, and :meth:`finish` at the end.
    """

    def __init__(self, game: str, num_players: int, options: Mapping[str, Any] | None,
                 seed: int, players: Sequence[str]):
        options = recordable_options(options)
        self.record = GameRecord(game, num_players, options, int(seed), list(players))
        self.decisions = RecordingDecisions() if game_spec(game).decision_objects else None

    def env_options(self) -> dict[str, Any]:
        options = dict(self.record.options)
        if self.decisions is not None:
            options["decisions"] = [self.decisions] * self.record.num_players
        return options

    def aec_step(self, agent: str, action: int, rewards: Mapping[str, float]) -> None:
        self.record.steps.append({"agent": agent, "action": int(action),
                                  "rewards": _rewards(rewards)})

    def parallel_step(self, actions: Mapping[str, int], rewards: Mapping[str, float]) -> None:
        step = {"actions": {a: int(v) for a, v in actions.items()}}
        if self.decisions is not None:
            step["decisions"] = self.decisions.drain()
        self.record.steps.append({**step, "rewards": _rewards(rewards)})

    def finish(self, env) -> GameRecord:
        self.record.result = final_result(self.record.game, env)
        return self.record


def _rewards(rewards: Mapping[str, float]) -> dict[str, float]:
    return {agent: float(r) for agent, r in rewards.items()}


def final_result(game: str, env) -> dict[str, Any]:
    """Winners, scores (the env's ``score_attribute``, see ``GameSpec``) and the digest of the
    final engine state of a finished game, as JSON gives them back."""
    scores = getattr(env, game_spec(game).score_attribute)
    return plain_json({"winners": list(env.winners), "scores": dict(scores),
                       "state_digest": state_digest(env.game)})


def state_digest(state) -> str:
    """SHA-256 of the engine state's JSON snapshot (``to_dict``, RNG included for HUNGER)."""
    text = json.dumps(state.to_dict(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# ----------------------------------------------------------------------------- replay
def replay(record: GameRecord) -> Any:
    """Play ``record`` again and check it step by step; the finished environment."""
    *_, env = replay_steps(record)
    return env


def replay_steps(record: GameRecord) -> Iterator[Any]:
    """The environment after the reset and after each step of ``record``, checked as it goes.

    The same environment object is yielded each time: read what you need before the next.
    Raises :class:`ReplayError` at the first step that differs from the record.
    """
    if not isinstance(record, GameRecord):
        raise TypeError(f"replay needs a GameRecord, got {type(record).__name__}")
    recorder = Recorder(record.game, record.num_players, record.options, record.seed,
                        record.players)
    try:
        env = make_env(record.game, record.num_players, recorder.env_options())
    except ValueError as error:
        raise ReplayError(f"the record's setup does not build a game: {error}", None) from None
    if game_spec(record.game).native_api(record.options) == "aec":
        yield from _replay_aec(record, env)
    else:
        yield from _replay_parallel(record, env, recorder.decisions)
    result = final_result(record.game, env)
    for key, value in result.items():
        if record.result.get(key) != value:
            raise ReplayError(f"the final result differs: recorded {key} "
                              f"{record.result.get(key)!r}, the replay gives {value!r}", None)


def aec_over(env) -> bool:
    """Whether an AEC game is over: every agent left, terminated or truncated."""
    return all(env.terminations[a] or env.truncations[a] for a in env.agents)


def _replay_aec(record: GameRecord, env) -> Iterator[Any]:
    env.reset(seed=record.seed)
    yield env
    for index, step in enumerate(record.steps):
        where = f"step {index}"
        if aec_over(env):
            raise ReplayError(f"{where}: the game is already over, the record goes on", index)
        agent, action = step.get("agent"), step.get("action")
        if agent != env.agent_selection:
            raise ReplayError(f"{where}: recorded mover {agent!r}, but {env.agent_selection} "
                              "is to move", index)
        if not _is_int(action) or not 0 <= action < len(env.observe(agent)["action_mask"]):
            raise ReplayError(f"{where}: action {action!r} is not an action number", index)
        if not env.observe(agent)["action_mask"][action]:
            raise ReplayError(f"{where}: {agent}'s recorded action {action} is not legal here",
                              index)
        env.step(action)
        _check_rewards(where, index, step, env.rewards)
        yield env
    if not aec_over(env):
        raise ReplayError(f"the record ends after {len(record.steps)} steps, before the game "
                          "is over (truncated?)", len(record.steps))


def _replay_parallel(record: GameRecord, env,
                     decisions: RecordingDecisions | None) -> Iterator[Any]:
    env.reset(seed=record.seed)
    yield env
    for index, step in enumerate(record.steps):
        where = f"step {index} (day {index + 1})"
        if not env.agents:
            raise ReplayError(f"{where}: the game is already over, the record goes on", index)
        actions = step.get("actions")
        if not isinstance(actions, dict) or sorted(actions) != sorted(env.agents):
            raise ReplayError(f"{where}: recorded actions {actions!r:.120} are not one action "
                              f"for each of {env.agents}", index)
        try:
            for agent, action in actions.items():
                env.check_legal(agent, action)
        except ValueError as error:
            raise ReplayError(f"{where}: {error}", index) from None
        _, rewards, _, _, _ = env.step(actions)
        if decisions is not None:
            _check_decisions(where, index, step.get("decisions"), decisions.drain())
        _check_rewards(where, index, step, rewards)
        yield env
    if env.agents:
        raise ReplayError(f"the record ends after {len(record.steps)} days, before the game "
                          "is over (truncated?)", len(record.steps))


def _check_decisions(where: str, index: int, recorded: Any, made: list[list[Any]]) -> None:
    if recorded != made:
        recorded = recorded if isinstance(recorded, list) else []
        first = next((i for i, (a, b) in enumerate(zip(recorded, made, strict=False))
                      if a != b), min(len(recorded), len(made)))
        raise ReplayError(
            f"{where}: decision {first} differs: recorded {_at(recorded, first)!r}, the "
            f"engine decided {_at(made, first)!r}", index)


def _at(items: list, index: int) -> Any:
    return items[index] if index < len(items) else None


def _check_rewards(where: str, index: int, step: Mapping[str, Any],
                   rewards: Mapping[str, float]) -> None:
    recorded = step.get("rewards")
    if not isinstance(recorded, dict) or sorted(recorded) != sorted(rewards):
        raise ReplayError(f"{where}: recorded rewards {recorded!r:.120} do not name the agents "
                          f"{sorted(rewards)}", index)
    for agent, reward in rewards.items():
        value = recorded[agent]
        if (not isinstance(value, (int, float)) or isinstance(value, bool)
                or not math.isclose(value, reward, rel_tol=0, abs_tol=REWARD_TOLERANCE)):
            raise ReplayError(f"{where}: {agent}'s recorded reward {value!r} differs from the "
                              f"replay's {reward!r}", index)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
