"""One game between a human seat and policies, for the play server and the terminal mode.

The human sees only its own observation (``state(seat)``) and may play only a legal action of
its own seat (``move``); everything else raises :class:`PlayError` with the game unchanged.
Opponents move by their policies as soon as it is their turn; the finished game is saved as a
record (``hunger_rl.records``).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from hunger_rl.policies.registry import make_policy
from hunger_rl.records import Recorder, make_env, write_records
from hunger_rl.ui.snapshots import snapshot

HUMAN = "human"


class PlayError(ValueError):
    """A request the game refuses: another seat, an illegal move, a move after the end."""


def action_label(game: str, action: int) -> str:
    if game == "hungry":
        from hunger_rl.envs.hungry.engine import describe_action

        return describe_action(action)
    from hunger_rl.envs.hunger_show.env import decode_action
    from hunger_rl.envs.hunger_show.tokens import ACTION_NAMES, LOCATION_NAMES

    location, act = decode_action(action)
    return f"{ACTION_NAMES[act]} at the {LOCATION_NAMES[location]}"


class PlaySession:
    """A game of ``game`` for ``num_players`` with the human at ``seat``.

    ``opponents``: policy specs for the other seats in seat order, the last one filling the
    rest. Finished games are written to ``record_dir`` (one file per game).
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
        self.record_dir = Path(record_dir)
        try:  # an unusable folder fails now, not after the game
            self.record_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise ValueError(f"cannot write records to {str(record_dir)!r}: {error}") from None
        self.record_path: Path | None = None
        self.lock = threading.Lock()
        self.recent: list[str] = []  # the policies' moves since the human's last one
        self.recorder = Recorder(game, num_players, options, seed, self.specs)
        self.env = make_env(game, num_players, self.recorder.env_options())
        self.agent = self.env.possible_agents[seat]
        if game == "hungry":
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
        return self.env.game.is_over if self.game == "hungry" else not self.env.agents

    def human_to_move(self) -> bool:
        if self.done:
            return False
        if self.game == "hungry":
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
                "legal": [{"action": a, "label": action_label(self.game, a)}
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
                labels = ", ".join(f"{a} ({action_label(self.game, a)})" for a in legal)
                raise PlayError(f"action {action!r} is not a legal move for {self.agent}; legal: "
                                f"{labels}")
            self.recent = []
            if self.game == "hungry":
                self._aec_step(action)
            else:
                self._show_day(action)
            self._advance()
        return self.state(seat)

    def _check_seat(self, seat: Any) -> None:
        if seat != self.seat:
            raise PlayError(f"seat {seat!r} is not yours: you play seat {self.seat} "
                            f"({self.agent}); the policies play the other seats")

    def _aec_step(self, action: int) -> None:
        agent = self.env.agent_selection
        self.env.step(action)
        self.recorder.aec_step(agent, action, self.env.rewards)
        if agent != self.agent:
            self.recent.append(f"{agent} ({self.specs[self.env.possible_agents.index(agent)]}) "
                               f"played {action_label(self.game, action)}")

    def _show_day(self, human_action: int | None) -> None:
        actions = {}
        for agent in self.env.agents:
            seat = self.env.agent_seats[agent]
            if seat == self.seat:
                actions[agent] = human_action
            else:
                actions[agent] = int(self.policies[seat].act(self.observations[agent],
                                                             self.rngs[seat]))
        self.observations, rewards, *_ = self.env.step(actions)
        self.recorder.parallel_step(actions, rewards)

    def _advance(self) -> None:
        """The policies move until the human is to move or the game is over."""
        from hunger_rl.envs.hungry.view import public_view

        while not self.done and not self.human_to_move():
            if self.game == "hungry":
                agent = self.env.agent_selection
                seat = self.env.possible_agents.index(agent)
                action = self.policies[seat].act(self.env.observe(agent), self.rngs[seat],
                                                 public_view(self.env, agent))
                self._aec_step(int(action))
            else:
                self._show_day(None)  # the human was eliminated: the show goes on without it
        if self.done and self.record_path is None:
            self._save()

    def _save(self) -> None:
        record = self.recorder.finish(self.env)
        stem, number = f"{self.game}_{self.num_players}p_seed{self.seed}", 0
        while (path := self.record_dir / f"{stem}_{number}.jsonl").exists():
            number += 1
        write_records(path, [record])
        self.record_path = path
