"""One game between a human seat and policies, for the play server and the terminal mode.

The human sees only its own observation (``state(seat)``) and may play only a legal action of
its own seat (``move``); everything else raises :class:`PlayError` with the game unchanged.
Opponents move by their policies as soon as it is their turn; the finished game is saved as a
record (``hunger_rl.envs.records``).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from hunger_rl.arena.commands import output_folder
from hunger_rl.engines.validation import describe, is_integer
from hunger_rl.envs import game_spec
from hunger_rl.envs.records import Recorder, aec_over, make_env, write_records
from hunger_rl.policies.registry import make_policy
from hunger_rl.ui.games import game_ui, snapshot

HUMAN = "human"


class PlayError(ValueError):
    """A request the game refuses: another seat, an illegal move, a move after the end."""


class NotYourSeatError(PlayError):
    """A request for a seat of the game that the policies play."""


class PlaySession:
    """A game of ``game`` for ``num_players`` with the human at ``seat``.

    ``opponents``: policy specs for the other seats in seat order, the last one filling the
    rest. Finished games are written to ``record_dir`` (one file per game). The game is stepped
    by its env's native API (``GameSpec.native_api``): in an AEC game one agent moves at a time,
    in a Parallel game every agent still in the game moves at once.
    """

    def __init__(self, game: str, num_players: int, seat: int, opponents: list[str],
                 seed: int = 0, record_dir: str | Path = "played_games",
                 options: dict[str, Any] | None = None):
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
            raise ValueError(f"--seat must be a seat of the {num_players}-player game: 0 to "
                             f"{num_players - 1}, got {seat!r}")
        if not opponents:
            raise ValueError("name at least one opponent policy")
        if len(opponents) > num_players - 1:
            raise ValueError(f"{len(opponents)} opponents for {num_players - 1} other seats")
        others = list(opponents) + [opponents[-1]] * (num_players - 1 - len(opponents))
        self.specs = others[:seat] + [HUMAN] + others[seat:]
        self.policies = [None if spec == HUMAN else make_policy(spec, game, num_players)
                         for spec in self.specs]
        self.game, self.num_players, self.seat, self.seed = game, num_players, seat, seed
        sequence = np.random.SeedSequence(seed)
        self.rngs = [np.random.default_rng(s) for s in sequence.spawn(num_players)]
        # An unusable folder fails now, not after the game.
        self.record_dir = output_folder("--record-dir", str(record_dir))
        self.record_dir.mkdir(parents=True, exist_ok=True)
        self.record_path: Path | None = None
        self.lock = threading.Lock()
        self.recent: list[str] = []  # the policies' moves since the human's last one
        self.recorder = Recorder(game, num_players, options, seed, self.specs)
        self.spec = game_spec(game)
        self.env_options = self.recorder.record.options
        self.aec = self.spec.native_api(self.env_options) == "aec"
        self.ui = game_ui(game)
        self.env = make_env(game, num_players, self.recorder.env_options())
        self.agent = self.env.possible_agents[seat]
        if self.aec:
            self.env.reset(seed=seed)
        else:
            self.observations, _ = self.env.reset(seed=seed)
        for policy in self.policies:
            if policy is not None:
                policy.reset()
        self._advance()

    # ------------------------------------------------------------------ queries
    @property
    def done(self) -> bool:
        return aec_over(self.env) if self.aec else not self.env.agents

    def human_to_move(self) -> bool:
        if self.done:
            return False
        if self.aec:
            return self.env.agent_selection == self.agent
        return self.agent in self.env.agents

    def legal_actions(self) -> list[int]:
        if not self.human_to_move():
            return []
        return np.flatnonzero(self.env.observe(self.agent)["action_mask"]).tolist()

    def state(self, seat: int) -> dict[str, Any]:
        """What the human at ``seat`` sees now, and its legal moves."""
        with self.lock:
            self._check_seat(seat)
            return {
                "game": self.game,
                "seat": self.seat,
                "players": self.specs,
                "snapshot": snapshot(self.game, self.env, viewer=self.seat),
                "legal": [{"action": a, "label": self.ui.action_label(a)}
                          for a in self.legal_actions()],
                "recent": list(self.recent),
                "done": self.done,
                "result": self.recorder.record.result if self.done else None,
                "record": str(self.record_path) if self.record_path else None,
            }

    # ------------------------------------------------------------------ moves
    def move(self, seat: Any, action: Any) -> dict[str, Any]:
        """Play ``action`` for the human at ``seat``; the opponents answer. The new state."""
        with self.lock:
            self._check_seat(seat)
            if self.done:
                raise PlayError("the game is over; start a new one")
            legal = self.legal_actions()
            if isinstance(action, bool) or not isinstance(action, int) or action not in legal:
                labels = ", ".join(f"{a} ({self.ui.action_label(a)})" for a in legal)
                raise PlayError(f"action {action!r} is not a legal move for {self.agent}; legal: "
                                f"{labels}")
            self.recent = []
            if self.aec:
                self._aec_step(action)
            else:
                self._parallel_step(action)
            self._advance()
        return self.state(seat)

    def _check_seat(self, seat: Any) -> None:
        if not is_integer(seat):
            raise PlayError(f"the seat must be an integer, got {describe(seat)}")
        if not 0 <= seat < self.num_players:
            raise PlayError(f"there is no seat {seat} in this {self.num_players}-player game: "
                            f"its seats are 0 to {self.num_players - 1}")
        if seat != self.seat:
            raise NotYourSeatError(f"seat {seat} is not yours: you play seat {self.seat} "
                                   f"({self.agent}); the policies play the other seats")

    def _aec_step(self, action: int) -> None:
        agent = self.env.agent_selection
        self.env.step(action)
        self.recorder.aec_step(agent, action, self.env.rewards)
        if agent != self.agent:
            self.recent.append(f"{agent} ({self.specs[self.env.possible_agents.index(agent)]}) "
                               f"played {self.ui.action_label(action)}")

    def _parallel_step(self, human_action: int | None) -> None:
        actions = {}
        for agent in self.env.agents:
            seat = self.env.possible_agents.index(agent)
            if seat == self.seat:
                actions[agent] = human_action
            else:
                actions[agent] = self._policy_action(seat, self.observations[agent])
        self.observations, rewards, *_ = self.env.step(actions)
        self.recorder.parallel_step(actions, rewards)

    def _advance(self) -> None:
        """The policies move until the human is to move or the game is over."""
        while not self.done and not self.human_to_move():
            if self.aec:
                agent = self.env.agent_selection
                seat = self.env.possible_agents.index(agent)
                self._aec_step(self._policy_action(seat, self.env.observe(agent)))
            else:
                self._parallel_step(None)  # the human has left: the game goes on without it
        if self.done and self.record_path is None:
            self._save()

    def _policy_action(self, seat: int, observation: Any) -> int:
        view = self.spec.view_of(observation, self.env_options)
        return int(self.policies[seat].act(observation, self.rngs[seat], view))

    def _save(self) -> None:
        record = self.recorder.finish(self.env)
        stem, number = f"{self.game}_{self.num_players}p_seed{self.seed}", 0
        while (path := self.record_dir / f"{stem}_{number}.jsonl").exists():
            number += 1
        write_records(path, [record])
        self.record_path = path
