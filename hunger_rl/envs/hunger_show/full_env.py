"""The full-decision mode of ``hunger_show_v0`` (``decision_mode="agents"``), a native AEC env.

Each day the living agents pick in seat order without seeing each other's picks (the picks
stay with the env until the last one is in, so the day stays simultaneous); then the engine
resolves the day and every S19 choice is a step of the agent concerned, in the order the rules
resolve them (S7). Actions and steps are those of ``full_decisions``; the environment card
(``hunger_rl.envs.hunger_show_v0``) documents the observation.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from hunger_rl.engines.hunger_show.engine import PLAYER_LABELS
from hunger_rl.engines.hunger_show.full_decisions import (
    NUM_FULL_ACTIONS,
    STEP_KINDS,
    rule_action,
    token_class,
)
from hunger_rl.engines.hunger_show.observation import OBSERVATION_HIGH, full_observation_layout
from hunger_rl.engines.hunger_show.tokens import NUM_ACTIONS
from hunger_rl.engines.validation import (
    IllegalActionError,
    InvalidValueError,
    check_action,
    describe,
)
from hunger_rl.envs.hunger_show.env import ShowParallelEnv, departed_agent_step


class ShowFullDecisionEnv(AECEnv):
    """HUNGER: The Show with every choice an agent's step; see the environment card."""

    metadata = {"name": "hunger_show_v0", "render_modes": ["human", "ansi", "rgb_array"],
                "is_parallelizable": False}

    def __init__(self, decision_mode: str = "agents", decisions: Any = None, **kwargs: Any):
        if decision_mode != "agents":
            raise InvalidValueError(f"ShowFullDecisionEnv plays decision_mode='agents', got "
                                    f"{describe(decision_mode)}")
        if decisions is not None:
            raise InvalidValueError("decisions: in decision_mode='agents' the agents make every "
                                    "choice; pass decisions only with decision_mode='objects'")
        super().__init__()
        # The default-mode env deals the game and builds the common part of the observation.
        self.table = ShowParallelEnv(**kwargs)
        self.table._compiled = None  # the days are played here, on the table's ShowGame
        self.config = self.table.config
        self.render_mode = self.table.render_mode
        self.possible_agents = list(self.table.possible_agents)
        self.agent_seats = self.table.agent_seats
        self.observation_layout = full_observation_layout(self.config.num_players)
        size = next(reversed(self.observation_layout.values())).stop
        self._base_size = self.table._observation_size
        self.state_layout = self.table.state_layout
        self.state_space = self.table.state_space
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(-1.0, OBSERVATION_HIGH, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_FULL_ACTIONS,), np.int8),
            "rule_action": spaces.Box(0, 1, (NUM_FULL_ACTIONS,), np.int8),
        })
        self._action_space = spaces.Discrete(NUM_FULL_ACTIONS)
        self._pick_mask = np.zeros(NUM_FULL_ACTIONS, dtype=np.int8)
        self._pick_mask[:NUM_ACTIONS * self.config.num_locations] = 1
        self.game = None
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._action_space

    @property
    def last_log(self) -> dict[str, Any] | None:
        return self.table.last_log

    @property
    def winners(self) -> list[str]:
        return self.table.winners

    @property
    def ranking_keys(self) -> dict[str, tuple[int, int, int]]:
        return self.table.ranking_keys

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.table.reset(seed=seed, options=options)
        self.game = self.table.game
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._skip_agent_selection = None
        self._start_picks()

    def _start_picks(self) -> None:
        self._picks: dict[str, tuple[int, int]] = {}
        self._pickers = [a for a in self.agents if not self.terminations[a]]
        self.agent_selection = self._pickers[0]

    def step(self, action: Any) -> None:
        if departed_agent_step(self, self.game is not None, action):
            self._was_dead_step(None)
            return
        agent = self.agent_selection
        value = check_action(action, NUM_FULL_ACTIONS, agent)
        mask = self._mask(agent)
        if not mask[value]:
            raise IllegalActionError(f"{agent}: action {value} is masked; legal actions are "
                                     f"{np.flatnonzero(mask).tolist()}")
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        game = self.game
        if game.pending is None:
            self._picks[agent] = divmod(value, NUM_ACTIONS)
            if len(self._picks) < len(self._pickers):
                self.agent_selection = self._pickers[len(self._picks)]
                return
            choices = [self._picks.get(label) for label in PLAYER_LABELS[:game.num_players]]
            log = game.start_day(choices)
        else:
            log = game.choose(value)
        if log is None:
            self.agent_selection = PLAYER_LABELS[game.pending.player]
            return
        self._end_day(log)

    def _end_day(self, log: dict[str, Any]) -> None:
        acting = list(self._pickers)
        rewards, terminations = self.table.day_outcome(acting, log)
        infos = self.table._infos(acting)
        for agent in acting:
            self.rewards[agent] = rewards[agent]
            self.terminations[agent] = terminations[agent]
            self.infos[agent] = infos[agent]
        self._accumulate_rewards()
        if self.game.done:
            self.agent_selection = acting[0]
        else:
            self._start_picks()
        self._deads_step_first()

    # ------------------------------------------------------------------ observations
    def _mask(self, agent: str) -> np.ndarray:
        """The agent's legal actions: its pick while the day's picks are collected, the pending
        step's actions when the step is its own, none otherwise."""
        mask = np.zeros(NUM_FULL_ACTIONS, dtype=np.int8)
        if (self.game is None or self.game.done or agent != self.agent_selection
                or self.terminations.get(agent, True)):
            return mask
        pending = self.game.pending
        if pending is None:
            return self._pick_mask.copy()
        mask[list(pending.legal)] = 1
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        self.table._check_agent(agent, "observe")
        game = self.game
        seat = self.agent_seats[agent]
        vector = np.zeros(self._observation_space["observation"].shape, np.float32)
        vector[:self._base_size] = self.table._observe_all([agent])[agent]["observation"]
        layout = self.observation_layout
        mask = self._mask(agent)
        rule = np.zeros(NUM_FULL_ACTIONS, dtype=np.int8)
        pending = game.pending
        if pending is None or pending.player != seat or not mask.any():
            vector[layout["decision_kind"].start] = 1.0  # "pick" (or nothing to do)
        else:
            vector[layout["decision_kind"].start + STEP_KINDS.index(pending.kind)] = 1.0
            for token in pending.offered:
                vector[layout["offered"].start + token_class(game, seat, token)] += 1
            for token in pending.chosen:
                vector[layout["chosen"].start + token_class(game, seat, token)] += 1
            vector[layout["remaining"].start] = pending.remaining
            counterpart = pending.counterpart  # slot 0 (the chooser's own) stands for none
            relative = 0 if counterpart is None else (counterpart - seat) % self.config.num_players
            vector[layout["counterpart"].start + relative] = 1.0
            rule[rule_action(game, pending)] = 1
        return {"observation": vector, "action_mask": mask, "rule_action": rule}

    def action_mask(self, agent: str) -> np.ndarray:
        return self.observe(agent)["action_mask"]

    def state(self) -> np.ndarray:
        """The whole show, hidden tokens included, as the default mode's ``state()``: a pending
        choice is not part of it."""
        return self.table.state()

    def render(self) -> str | np.ndarray | None:
        return self.table.render()

    def close(self) -> None:
        self.table.close()
