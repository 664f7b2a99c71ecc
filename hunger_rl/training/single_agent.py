"""Single-agent Gymnasium views of the games, for MaskablePPO.

One seat learns; every other seat is played inside ``step()`` by an opponent policy, so an
episode is one whole game from the learner's point of view:

- Observation: the learner's flat observation vector through the game's encoder
  (``encoders.make_encoder``: scaled, plus derived public features); ``action_masks()`` returns
  its legal actions as booleans (MaskablePPO reads them through it, also via
  ``VecEnv.env_method``).
- Reward: the learner's own reward from the game (R1 by default), never another seat's; with
  terminal rewards it arrives on the last step.
- Seats: the learner's seat rotates every episode (seat = offset + episode index mod N, the
  offset drawn when the env is seeded), so it learns every position in the turn order.
- Opponents: before each game every other seat draws a policy from ``opponents`` (an object
  with ``draw(rng, slot) -> (label, Policy)``, e.g. the self-play ``OpponentPool``); by default
  all seats play uniformly at random. In Hungry, opponents also get the mover's public view.
- HUNGER eliminations: a learner eliminated at supper ends its episode at once with the R1
  reward it receives on leaving; the days the others would still play are cut, since nothing
  in them can change the learner's reward.

- Privileged critic (``privileged_state=True``): the observation is followed by the game's
  ``state()`` (the whole game, hidden cards included, divided by ``encoders.state_scale``), for
  a network whose value head reads it and whose policy head does not
  (``models.networks.PrivilegedCriticPolicy``).

- Illegal actions: MaskablePPO never plays one. ``illegal_action="terminate"`` (default, as
  PettingZoo's ``TerminateIllegalWrapper``) ends the episode with -1 and
  ``info["illegal_action"]``, which lets generic tools (the env checkers) step with unmasked
  samples; ``"raise"`` raises ``ValueError`` instead.

The terminal ``info`` holds ``win_share`` (1 sole win, 1/k shared, 0 otherwise),
``learner_seat`` and ``opponents`` (the labels of the opponents, by seat after the learner).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from hunger_rl.engines import hunger_show, hungry
from hunger_rl.engines.validation import ILLEGAL_ACTION_MODES, check_choice
from hunger_rl.envs import game_spec
from hunger_rl.policies.base import Policy, RandomPolicy
from hunger_rl.policies.models.encoders import make_encoder, state_scale
from hunger_rl.training.games import training_game

# Hungry's score margin shaping counts in tens of points, the scale of its "score" reward.
MARGIN_SCALE = 10.0


class OpponentSource(Protocol):
    def draw(self, rng: np.random.Generator, slot: int) -> tuple[str, Policy]:
        """A (label, policy) for opponent slot ``slot`` (0 = first seat after the learner)."""


class UniformRandomOpponents:
    def draw(self, rng: np.random.Generator, slot: int) -> tuple[str, Policy]:
        return "random", RandomPolicy()


class MaskedDiscrete(gym.spaces.Discrete):
    """``Discrete(n)`` whose unmasked ``sample()`` draws a currently legal action.

    Generic tools (Gymnasium's and SB3's env checkers, random rollouts) sample without a mask;
    with this space they step the game legally. ``mask`` is the env's live mask array.
    """

    def __init__(self, mask: np.ndarray):
        super().__init__(len(mask))
        self.mask = mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        if mask is None and probability is None and self.mask.any():
            mask = self.mask.astype(np.int8)
        return super().sample(mask=mask, probability=probability)


def make_game_env(game: str, num_players: int, game_options: dict[str, Any] | None = None):
    """The game's native PettingZoo env: Hungry's AEC ``raw_env``, HUNGER's ``parallel_env``
    (its AEC ``raw_env`` in the full-decision mode)."""
    return game_spec(game).make_env(num_players, **dict(game_options or {}))


class SingleAgentEnv(gym.Env, ABC):
    """Common part of both games' views: spaces, seat rotation, opponents, masks."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, num_players: int, game_options: dict[str, Any] | None = None,
                 opponents: OpponentSource | None = None, illegal_action: str = "terminate",
                 privileged_state: bool = False):
        check_choice(illegal_action, "illegal_action", ILLEGAL_ACTION_MODES)
        self.illegal_action = illegal_action
        self.game_name = game
        self.num_players = num_players
        self.game_info = game_spec(game)
        self.game_options = dict(game_options or {})
        self.game_env = make_game_env(game, num_players, game_options)
        self.opponents = opponents if opponents is not None else UniformRandomOpponents()
        agent = self.game_env.possible_agents[0]
        self._encode = make_encoder(game, num_players, game_options)
        self._state_scale = state_scale(game, num_players) if privileged_state else None
        size = self._encode.size + (0 if self._state_scale is None else self._state_scale.size)
        # Encoded values stay within +-100 (HUNGER's Box bound of 1000, divided by 10); the
        # scaled state within +-1.
        self.observation_space = gym.spaces.Box(-100.0, 100.0, (size,), np.float32)
        # Updated in place every step, so that the action space below can sample from it.
        self._mask = np.zeros(int(self.game_env.action_space(agent).n), dtype=bool)
        self.action_space = MaskedDiscrete(self._mask)
        self._seat_offset = 0
        self._episode = 0
        self.learner = agent
        self.opponent_policies: dict[str, Policy] = {}
        self.opponent_labels: list[str] = []

    # -- gymnasium ------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._seat_offset = int(self.np_random.integers(self.num_players))
            self._episode = 0
        agents = self.game_env.possible_agents
        seat = (self._seat_offset + self._episode) % self.num_players
        self._episode += 1
        self.learner = agents[seat]
        self.opponent_policies, self.opponent_labels = {}, []
        for slot in range(1, self.num_players):
            label, policy = self.opponents.draw(self.np_random, slot - 1)
            policy.reset()
            self.opponent_policies[agents[(seat + slot) % self.num_players]] = policy
            self.opponent_labels.append(label)
        self._start_game(int(self.np_random.integers(2**31)), options)
        return self._network_input(), {"learner_seat": seat}

    def step(self, action):
        action = int(action)
        if not self._mask[action]:
            return self._illegal(action)
        reward, terminated, win_share = self._play(action)
        info: dict[str, Any] = {}
        if terminated:
            info = {"win_share": win_share, "opponents": list(self.opponent_labels),
                    "learner_seat": self.game_env.possible_agents.index(self.learner)}
        return self._network_input(), reward, terminated, False, info

    def _illegal(self, action: int):
        legal = np.flatnonzero(self._mask).tolist()
        if self.illegal_action == "raise" or not legal:
            raise ValueError(f"action {action} is masked for {self.learner}; legal: {legal}")
        # As PettingZoo's TerminateIllegalWrapper: the offender's game ends with -1.
        self._mask[:] = False
        return self._network_input(), -1.0, True, False, {"illegal_action": action}

    def _network_input(self) -> np.ndarray:
        """The learner's encoded observation, followed by the scaled state for a privileged
        critic."""
        observation = self._learner_observation()
        if self._state_scale is None:
            return observation
        return np.concatenate((observation, self.game_env.state() / self._state_scale))

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions, as MaskablePPO expects them."""
        return self._mask.copy()

    def add_snapshot(self, weights: dict[str, np.ndarray]) -> None:
        """Hand a frozen copy of the learner to the opponent pool (called via ``env_method``)."""
        self.opponents.add_snapshot(weights)

    # -- per game -----------------------------------------------------------------------------

    def _opponent_action(self, agent: str, observation: dict[str, np.ndarray]) -> int:
        view = self._public_view(observation)
        return self.opponent_policies[agent].act(observation, self.np_random, view)

    def _public_view(self, observation: dict[str, np.ndarray]) -> Any:
        """The game's public view for scripted opponents, where the game has one."""
        return self.game_info.view_of(observation, self.game_options)


    @abstractmethod
    def _start_game(self, seed: int, options: dict | None) -> None:
        """Deal a game and play the opponents up to the learner's first decision."""

    @abstractmethod
    def _play(self, action: int) -> tuple[float, bool, float]:
        """Play the learner's action and the opponents' replies: (reward, over, win share)."""

    @abstractmethod
    def _learner_observation(self) -> np.ndarray:
        """The learner's encoded observation; also refreshes ``self._mask``."""


class HungrySingleAgentEnv(SingleAgentEnv):
    """Hungry (AEC, turn-based): opponents move in turn order until the learner is to move.

    ``margin_shaping`` w > 0 adds potential-based shaping: each step also pays w times the
    change of the learner's public score margin (own total minus the best other total, in
    tens of points, as if the game ended now). Over a game the shaping sums to w times the
    final margin, so it rewards winning by more while giving credit to the play that earned it.
    """

    def __init__(self, num_players: int = hungry.DEFAULT_PLAYERS,
                 game_options: dict[str, Any] | None = None,
                 opponents: OpponentSource | None = None, illegal_action: str = "terminate",
                 margin_shaping: float = 0.0, privileged_state: bool = False):
        super().__init__("hungry", num_players, game_options, opponents, illegal_action,
                         privileged_state)
        self.margin_shaping = margin_shaping
        self._margin = 0.0

    def _start_game(self, seed: int, options: dict | None) -> None:
        self.game_env.reset(seed=seed, options=options)
        self._play_opponents()
        self._margin = self._score_margin()

    def _score_margin(self) -> float:
        totals = self.game_env.game.totals()  # public: every placed card is (H5)
        seat = self.game_env.possible_agents.index(self.learner)
        best_other = max(t for i, t in enumerate(totals) if i != seat)
        return (totals[seat] - best_other) / MARGIN_SCALE

    def _play_opponents(self) -> None:
        game_env = self.game_env
        while not game_env.game.is_over and game_env.agent_selection != self.learner:
            agent = game_env.agent_selection
            game_env.step(self._opponent_action(agent, game_env.observe(agent)))

    def _play(self, action: int) -> tuple[float, bool, float]:
        game_env = self.game_env
        game_env.step(action)
        self._play_opponents()
        shaping = 0.0
        if self.margin_shaping:
            margin, self._margin = self._margin, self._score_margin()
            shaping = self.margin_shaping * (self._margin - margin)
        if not game_env.game.is_over:
            return shaping, False, 0.0
        # Every reward of Hungry is terminal; the learner's own entry, not the last mover's.
        win_share = game_env.infos[self.learner]["win_share"]
        return float(game_env.rewards[self.learner]) + shaping, True, win_share

    def _learner_observation(self) -> np.ndarray:
        observation = self.game_env.observe(self.learner)
        # Hungry still shows the mover's mask once the game is over; nobody may move then.
        self._mask[:] = observation["action_mask"] if not self.game_env.game.is_over else False
        return self._encode(observation["observation"])


class ShowSingleAgentEnv(SingleAgentEnv):
    """HUNGER: The Show (Parallel): each day the learner and the living opponents pick at once."""

    def __init__(self, num_players: int = hunger_show.DEFAULT_PLAYERS,
                 game_options: dict[str, Any] | None = None,
                 opponents: OpponentSource | None = None, illegal_action: str = "terminate",
                 privileged_state: bool = False):
        super().__init__("hunger_show", num_players, game_options, opponents, illegal_action,
                         privileged_state)

    def _start_game(self, seed: int, options: dict | None) -> None:
        self._observations, _ = self.game_env.reset(seed=seed, options=options)

    def _play(self, action: int) -> tuple[float, bool, float]:
        actions = {agent: self._opponent_action(agent, self._observations[agent])
                   for agent in self.game_env.agents if agent != self.learner}
        actions[self.learner] = action
        self._observations, rewards, terminations, _, infos = self.game_env.step(actions)
        if not terminations[self.learner]:
            return float(rewards[self.learner]), False, 0.0
        # Eliminated (or the show ended): the learner's episode ends here; see the module notes.
        return float(rewards[self.learner]), True, infos[self.learner]["win_share"]

    def _learner_observation(self) -> np.ndarray:
        observation = self._observations[self.learner]
        self._mask[:] = observation["action_mask"]
        return self._encode(observation["observation"])


class ShowFullDecisionSingleAgentEnv(SingleAgentEnv):
    """HUNGER: The Show in the full-decision mode (AEC): the learner makes its daily pick and
    every later choice of its own; the opponents play every other step."""

    def __init__(self, num_players: int = hunger_show.DEFAULT_PLAYERS,
                 game_options: dict[str, Any] | None = None,
                 opponents: OpponentSource | None = None, illegal_action: str = "terminate",
                 privileged_state: bool = False):
        super().__init__("hunger_show", num_players, game_options, opponents, illegal_action,
                         privileged_state)

    def _start_game(self, seed: int, options: dict | None) -> None:
        self.game_env.reset(seed=seed, options=options)
        self._play_opponents()

    def _play_opponents(self) -> None:
        """Step the others until the learner is to act or has left."""
        game_env = self.game_env
        while game_env.agents:
            agent = game_env.agent_selection
            observation, _, terminated, truncated, _ = game_env.last()
            if agent == self.learner:
                return
            if terminated or truncated:
                game_env.step(None)
            else:
                game_env.step(self._opponent_action(agent, observation))

    def _play(self, action: int) -> tuple[float, bool, float]:
        game_env = self.game_env
        game_env.step(action)
        self._play_opponents()
        # Rewards since the learner's last step, from days that ended on anyone's step.
        reward = float(game_env._cumulative_rewards[self.learner])
        if not game_env.terminations[self.learner]:
            return reward, False, 0.0
        winners = game_env.game.winners
        seat = game_env.possible_agents.index(self.learner)
        return reward, True, (1.0 / len(winners) if seat in winners else 0.0)

    def _learner_observation(self) -> np.ndarray:
        observation = self.game_env.observe(self.learner)
        self._mask[:] = observation["action_mask"]
        return self._encode(self._encode.raw_input(observation))  # rule_action included


def make_single_agent_env(game: str, num_players: int, game_options: dict[str, Any] | None = None,
                          opponents: OpponentSource | None = None,
                          **view_options: Any) -> SingleAgentEnv:
    """The single-agent view of ``game`` (``training.games``: by the native API of its env);
    ``view_options`` go to its class (e.g. ``illegal_action``, Hungry's ``margin_shaping``)."""
    api = game_spec(game).native_api(game_options or {})
    view = training_game(game).single_agent_view(api)
    return view(num_players, game_options, opponents, **view_options)
