"""PettingZoo environments of HUNGER: The Show: the native Parallel env and its AEC view.

The layout of the observation vector and every option are documented in the environment card,
the docstring of ``hunger_rl.envs.hunger_show_v0``.
"""

from __future__ import annotations

import functools
import random
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.conversions import parallel_to_aec_wrapper

from hunger_rl.engines.hunger_show import DEFAULT_PLAYERS
from hunger_rl.engines.hunger_show.batched.show import CompiledShow
from hunger_rl.engines.hunger_show.engine import (
    PLAYER_LABELS,
    SETUP_KEYS,
    ShowConfig,
    ShowGame,
)
from hunger_rl.engines.hunger_show.observation import (
    NUM_CHOICES,
    OBSERVATION_HIGH,
    REWARD_MODES,
    SHAPING_WEIGHT,
    action_name,
    legal_mask,
    observation_buffer,
    observation_layout,
    observation_tables,
    state_bounds,
    state_layout,
    state_vector,
)
from hunger_rl.engines.hunger_show.tokens import (
    LOCATION_NAMES,
    NUM_ACTIONS,
)
from hunger_rl.engines.rewards import r1_leaving_reward
from hunger_rl.engines.validation import (
    ILLEGAL_ACTION_MODES,
    ActionTypeError,
    IllegalActionError,
    InvalidValueError,
    NotResetError,
    check_action,
    check_choice,
    check_seed,
    describe,
    split_options,
)
from hunger_rl.envs.hunger_show.render import render_text
from hunger_rl.envs.rendering import text_to_rgb

# Where the legal actions travel: in a Dict observation (PettingZoo's classic envs) or in
# ``info["action_mask"]`` beside a flat Box observation (AgileRL, SuperSuit's Box-only wrappers).
ACTION_MASK_MODES = ("observation", "info")
# "leave": PettingZoo's convention, an eliminated player leaves ``agents``. "stay": it stays
# until the show ends, for libraries that need a constant set of agents.
ELIMINATED_MODES = ("leave", "stay")
# The AEC view keeps eliminated players by default: turn-based libraries end the episode when
# the agent to move terminates (Tianshou's PettingZooEnv) or sample every agent's turn from its
# mask (TorchRL), so a player that left would cut the show short or leave an empty mask.
AEC_ELIMINATED_DEFAULT = "stay"
# With eliminated="stay", the only legal action of an eliminated player; the env ignores it.
NOOP_ACTION = 0
DECISION_MODES = ("objects", "agents")
# Column of each seat's character in its block of the observation (0: none).


class ShowActionSpace(spaces.Discrete):
    """``Discrete(20)`` whose unmasked ``sample()`` draws only actions legal for its agent now
    (``legal()``: its action mask).

    Generic tools that sample without a mask (PettingZoo's seed and state tests, quick random
    play) thus never hit a location that is not in play, nor anything but the no-op for a player
    that stays after its elimination; ``contains`` is unchanged.
    """

    def __init__(self, legal: Callable[[], np.ndarray]):
        super().__init__(NUM_CHOICES)
        self.legal = legal

    def sample(self, mask: np.ndarray | None = None,
               probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            mask = self.legal()
        return super().sample(mask=mask, probability=probability)


class ShowParallelEnv(ParallelEnv):
    """HUNGER: The Show as a PettingZoo Parallel env; see ``hunger_rl.envs.hunger_show_v0``."""

    metadata = {"name": "hunger_show_v0", "render_modes": ["human", "ansi", "rgb_array"],
                "is_parallelizable": True}

    def __init__(self, num_players: int = DEFAULT_PLAYERS, events: str = ShowConfig.events,
                 deck_size: int = ShowConfig.deck_size,
                 unpleasant: int | None = ShowConfig.unpleasant,
                 end_window: int = ShowConfig.end_window,
                 characters: bool = ShowConfig.characters,
                 decisions: Any = None, reward: str = "r1", render_mode: str | None = None,
                 illegal_action: str = "raise", action_mask: str = "observation",
                 eliminated: str = "leave", decision_mode: str = "objects"):
        check_choice(decision_mode, "decision_mode", DECISION_MODES)
        if decision_mode == "agents":
            raise InvalidValueError(
                "decision_mode='agents' has no Parallel form: after the simultaneous picks "
                "each choice is one agent's step; use hunger_show_v0.env(decision_mode="
                "'agents') (AEC)")
        self.config = ShowConfig(num_players, events, deck_size, unpleasant, end_window,
                                 characters)
        num_players = self.config.num_players
        check_choice(reward, "reward", REWARD_MODES)
        check_choice(render_mode, "render_mode", [*self.metadata["render_modes"], None])
        check_choice(illegal_action, "illegal_action", ILLEGAL_ACTION_MODES)
        check_choice(action_mask, "action_mask", ACTION_MASK_MODES)
        check_choice(eliminated, "eliminated", ELIMINATED_MODES)
        self.illegal_action = illegal_action
        self.action_mask_in = action_mask
        self.eliminated = eliminated
        self.reward_mode = reward
        self.render_mode = render_mode
        self.decisions = decisions
        ShowGame(self.config, seed=0, decisions=decisions)  # fail early on bad decisions
        self.possible_agents = list(PLAYER_LABELS[:num_players])
        self.agent_seats = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_layout = observation_layout(num_players)
        size = next(reversed(self.observation_layout.values())).stop
        self._observation_size = size
        self.state_layout = state_layout(num_players)
        self.state_space = spaces.Box(*state_bounds(num_players), dtype=np.float32)
        self._observation_space = spaces.Box(-1.0, OBSERVATION_HIGH, (size,), np.float32)
        if action_mask == "observation":
            self._observation_space = spaces.Dict({
                "observation": self._observation_space,
                "action_mask": spaces.Box(0, 1, (NUM_CHOICES,), np.int8),
            })
        self._mask = legal_mask(num_players)
        self._action_spaces = {agent: ShowActionSpace(functools.partial(self._sample_mask, agent))
                               for agent in self.possible_agents}
        # The mask of a player that may not act: all zero, or the single no-op when it stays.
        self._out_mask = np.zeros(NUM_CHOICES, dtype=np.int8)
        if eliminated == "stay":
            self._out_mask[NOOP_ACTION] = 1
        self._legal, self._out_legal = self._mask.tolist(), self._out_mask.tolist()  # for step
        self._seed_rng = random.Random()
        self._tables = observation_tables(num_players)
        self._gather = np.stack(self._tables.gather)
        # The default path (the rules' decisions, the R1 reward, a seed and no setup) plays each
        # show on the compiled day until something reads ``game`` or ``last_log``: then the
        # reference game is replayed to that day and plays the rest of the show (``_show``: the
        # compiled show while it is the one played, else None).
        self._compiled = (CompiledShow(self.config) if decisions is None and reward == "r1"
                          else None)
        self._show: CompiledShow | None = None
        self._rows: np.ndarray | None = None  # the compiled show's observations, a row per seat
        self._game: ShowGame | None = None
        self._last_log: dict[str, Any] | None = None
        self.agents: list[str] = []

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> ShowActionSpace:
        space = self._action_spaces.get(agent) if isinstance(agent, str) else None
        if space is None:
            raise InvalidValueError(f"unknown agent {describe(agent)}; agents are "
                                    f"{self.possible_agents}")
        return space

    def _sample_mask(self, agent: str) -> np.ndarray:
        """What an unmasked sample of ``agent``'s action space draws from: its mask, or before
        the first reset the locations of the game."""
        return self._agent_mask(agent) if self.started else self._mask

    # ------------------------------------------------------------------ the show
    @property
    def started(self) -> bool:
        """Whether a show was dealt (``reset``)."""
        return self._show is not None or self._game is not None

    @property
    def game(self) -> ShowGame | None:
        """The show's ``ShowGame`` (None before the first reset). A show on the compiled day is
        replayed on it here, and goes on there."""
        if self._show is not None:
            self._hand_over()
        return self._game

    @game.setter
    def game(self, game: ShowGame) -> None:
        """Play on from another game (a copy edited by a test or a search, say)."""
        self._show = self._rows = None
        self._game = game

    @property
    def last_log(self) -> dict[str, Any] | None:
        """The public log of the last day played (``ShowGame.play_day``), None before it."""
        if self._show is not None:
            self._hand_over()
        return self._last_log

    def _hand_over(self) -> None:
        """Replay the compiled show on ``ShowGame``, which plays the rest of it."""
        self._game, self._last_log = self._show.replay()
        self._last_event = None if self._last_log is None else self._last_log["event"]
        self._show = self._rows = None

    def _played(self) -> CompiledShow | ShowGame:
        """What the env reads after a day, ``alive``, ``done``, ``day``, ``winners`` and
        ``final_keys``, from the show as it is played: compiled or ``ShowGame``."""
        return self._show if self._show is not None else self._game

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None):
        """Start a game. Bad options or a bad seed raise before anything changes, the RNG that
        seeds unseeded resets included."""
        seed = check_seed(seed)
        setup = split_options(options, SETUP_KEYS)
        if seed is None:  # the next seed of the env's own stream, taken back if reset fails
            seed_rng, before = self._seed_rng, self._seed_rng.getstate()
            seed = seed_rng.getrandbits(63)
        else:
            seed_rng, before = random.Random(seed), None
        compiled = self._compiled
        if compiled is not None and not setup and compiled.takes_seed(seed):
            self._rows = compiled.deal(seed)
            self._show, self._game = compiled, None
        else:
            try:
                game = ShowGame(self.config, seed=seed, setup=setup, decisions=self.decisions)
            except BaseException:
                if before is not None:
                    seed_rng.setstate(before)
                raise
            self._show = self._rows = None
            self._game = game
        self._seed_rng = seed_rng
        self.agents = list(self.possible_agents)
        self._last_log = None
        self._last_event = None
        self._raft_sets = [0] * self.config.num_players
        observations = self._observe_all(self.agents)
        return observations, self._infos(self.agents, observations)

    # ------------------------------------------------------------------ step
    def check_actions(self, actions: Mapping[str, Any]) -> dict[str, int]:
        """Validate a whole action dict; return the actions of ``agents`` as ints.

        Raises before any change for a missing or unknown agent or an action of the wrong type
        or range. Actions for agents that already left are ignored, as PettingZoo's conversion
        wrappers do with extra keys. Masked actions are checked by ``step``.
        """
        if not self.started:
            raise NotResetError("call reset() before step()")
        if not isinstance(actions, Mapping):
            raise ActionTypeError(f"step() takes a dict from agent name to action, got "
                                  f"{describe(actions)}")
        if not self.agents:
            raise IllegalActionError("the show is over; call reset() to start a new game")
        unknown = [a for a in actions if not (isinstance(a, str) and a in self.agent_seats)]
        if unknown:
            raise IllegalActionError(f"unknown agent(s) {describe(unknown)}; agents are "
                                     f"{self.possible_agents}")
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise IllegalActionError(f"no action for living agent(s) {missing}")
        return {agent: check_action(actions[agent], NUM_CHOICES, agent) for agent in self.agents}

    def _check_action(self, agent: str, action: Any) -> int:
        """``action`` as an int in the action space (mask unchecked): ``ActionTypeError``
        unless an exact integer, ``IllegalActionError`` if out of range."""
        return check_action(action, NUM_CHOICES, agent)

    def _masked_action_error(self, agent: str, value: int) -> IllegalActionError:
        if not self._played().alive[self.agent_seats[agent]]:
            return IllegalActionError(
                f"{agent}: action {value} is masked: {agent} is eliminated and its only legal "
                f"action is the no-op {NOOP_ACTION}")
        legal = NUM_ACTIONS * self.config.num_locations
        return IllegalActionError(
            f"{agent}: action {value} ({action_name(value)}) is masked: the "
            f"{LOCATION_NAMES[value // NUM_ACTIONS]} is not in play with "
            f"{self.config.num_players} players; legal actions are 0..{legal - 1} "
            f"({', '.join(LOCATION_NAMES[:self.config.num_locations])})")

    def check_legal(self, agent: str, action: Any) -> None:
        """Raise unless ``action`` is legal for ``agent`` right now."""
        value = self._check_action(agent, action)
        if not self._agent_mask(agent)[value]:
            raise self._masked_action_error(agent, value)

    def step(self, actions: Mapping[str, Any]):
        values = self.check_actions(actions)
        # The game is under way here (check_actions), so an agent's mask is its seat's.
        played = self._played()
        alive, seats = played.alive, self.agent_seats
        masked = [agent for agent, value in values.items()
                  if not (self._legal if alive[seats[agent]] else self._out_legal)[value]]
        if masked:
            if self.illegal_action == "raise":
                raise self._masked_action_error(masked[0], values[masked[0]])
            return self._terminate_illegal(masked)
        acting = self.agents
        players = [a for a in acting if alive[seats[a]]]
        choices: list[tuple[int, int] | None] = [None] * self.config.num_players
        for agent in players:
            choices[seats[agent]] = divmod(values[agent], NUM_ACTIONS)
        if played is self._show:
            self._rows = played.play_day(choices)
            rewards, terminations = self._outcome(acting, players)
        else:
            # Atomic (S21j): a DecisionError changes nothing. The picks were checked above.
            log = played.play_checked_day(choices)
            rewards, terminations = self.day_outcome(acting, log, players)
        self.agents = [] if played.done else [a for a in acting if not terminations[a]]
        observations = self._observe_all(acting)
        truncations = dict.fromkeys(acting, False)
        return observations, rewards, terminations, truncations, self._infos(acting, observations)

    def day_outcome(self, acting: list[str], log: dict[str, Any],
                    players: list[str] | None = None
                    ) -> tuple[dict[str, float], dict[str, bool]]:
        """Rewards and terminations of the agents of a step whose day was just resolved;
        ``players`` are those of them that played it (default: all)."""
        self._last_log = log
        self._last_event = log["event"]
        return self._outcome(acting, acting if players is None else players)

    def _outcome(self, acting: list[str], players: list[str]
                 ) -> tuple[dict[str, float], dict[str, bool]]:
        """Rewards and terminations of the agents of a step whose day was just resolved, from
        the show as it is played."""
        game = self._played()
        seats = self.agent_seats
        n = self.config.num_players
        rewards = dict.fromkeys(acting, 0.0)
        # R1: each seat is paid as it leaves, every one still playing at the end.
        if game.done:
            winners = game.winners
            for agent in players:
                rewards[agent] = r1_leaving_reward(n, seats[agent] in winners, len(winners))
        else:
            alive = game.alive
            for agent in players:
                if not alive[seats[agent]]:
                    rewards[agent] = r1_leaving_reward(n, False, 0)
        if self.reward_mode == "shaped":
            self._shape(players, rewards)
        if self.eliminated == "stay":
            terminations = dict.fromkeys(acting, game.done)
        else:
            terminations = {a: game.done or not game.alive[seats[a]] for a in acting}
        return rewards, terminations

    def _terminate_illegal(self, offenders: list[str]):
        """``illegal_action="terminate"``, as PettingZoo's ``TerminateIllegalWrapper``: the game
        ends at once, each offender gets -1 and every other agent 0; nothing is played."""
        acting = self.agents
        self.agents = []
        rewards = {a: -1.0 if a in offenders else 0.0 for a in acting}
        observations = self._observe_all(acting)
        return (observations, rewards, dict.fromkeys(acting, True), dict.fromkeys(acting, False),
                self._infos(acting, observations))

    def _win_shares(self) -> dict[int, float]:
        """Seat -> win share once the show is over (empty before and after an illegal end)."""
        game = self._played()
        if not game.done:
            return {}
        return {p: 1.0 / len(game.winners) for p in game.winners}

    def _infos(self, agents: list[str], observations: dict[str, Any] | None = None
               ) -> dict[str, dict]:
        """Every step, every agent: the same keys with scalar values, so that libraries that
        batch infos (Tianshou's replay buffer, vector envs) can stack them; ``last_log``,
        ``winners`` and ``game`` hold the details. With ``action_mask="info"`` the masks move
        from ``observations`` (required then) into the infos."""
        shares = self._win_shares()
        day = self._played().day
        infos = {}
        for agent in agents:
            info = {"day": day, "win_share": shares.get(self.agent_seats[agent], 0.0)}
            if self.action_mask_in == "info":
                info["action_mask"] = observations[agent]["action_mask"]
            infos[agent] = info
        if self.action_mask_in == "info":
            for agent in agents:
                observations[agent] = observations[agent]["observation"]
        return infos

    @property
    def winners(self) -> list[str]:
        """The winners' names once the show is over (several in a draw), else []."""
        return [PLAYER_LABELS[p] for p in self._played().winners] if self.started else []

    @property
    def ranking_keys(self) -> dict[str, tuple[int, int, int]]:
        """At the end, each ranked player's (raft sets, leftover raft units, food value) (S17)."""
        if not self.started:
            return {}
        return {PLAYER_LABELS[p]: key for p, key in self._played().final_keys.items()}

    def _shape(self, acting: list[str], rewards: dict[str, float]) -> None:
        """Shaped mode: R1 plus SHAPING_WEIGHT x (own change in raft sets minus the mean change
        among this step's agents), so that every step's rewards still sum to zero."""
        game = self.game
        changes = {}
        for agent in acting:
            seat = self.agent_seats[agent]
            sets = game.ranking_key(seat)[0] if game.alive[seat] else 0
            changes[agent] = sets - self._raft_sets[seat]
            self._raft_sets[seat] = sets
        mean = sum(changes.values()) / len(changes)
        for agent in acting:
            rewards[agent] += SHAPING_WEIGHT * (changes[agent] - mean)

    # ------------------------------------------------------------------ observations
    def _observe_all(self, agents: list[str]) -> dict[str, dict[str, np.ndarray]]:
        game = self._played()
        if game is self._show:  # the compiled day's, given out once
            rows, self._rows = self._rows, None
            if rows is None:
                rows = game.observe()
        else:  # every seat's observation at once: one gather of the flat buffer, a row per seat
            rows = observation_buffer(game, self._tables, self._last_event)[self._gather]
        seats, alive = self.agent_seats, game.alive
        live = bool(self.agents) and not game.done  # as _agent_mask, once for all seats
        return {agent: {"observation": rows[seats[agent]],
                        "action_mask": (self._mask if live and alive[seats[agent]]
                                        else self._out_mask).copy()}
                for agent in agents}

    def _agent_mask(self, agent: str) -> np.ndarray:
        game = self._played()
        if self.agents and not game.done and game.alive[self.agent_seats[agent]]:
            return self._mask
        return self._out_mask

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        """The current observation of one agent (also after it left the game)."""
        self._check_agent(agent, "observe")
        observation = self._observe_all([agent])[agent]
        return observation if self.action_mask_in == "observation" else observation["observation"]

    def _check_agent(self, agent: Any, caller: str) -> None:
        if not self.started:
            raise NotResetError(f"call reset() before {caller}()")
        if not (isinstance(agent, str) and agent in self.agent_seats):
            raise InvalidValueError(f"unknown agent {describe(agent)}; agents are "
                                    f"{self.possible_agents}")

    def action_mask(self, agent: str) -> np.ndarray:
        return self._agent_mask(agent).copy()

    def state(self) -> np.ndarray:
        """The whole show by absolute seat, hidden tokens included (``state_layout``)."""
        if self.game is None:
            raise NotResetError("call reset() before state()")
        return state_vector(self.game, self._last_event)

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            warnings.warn("render() called without a render_mode", stacklevel=2)
            return None
        if self.game is None:
            raise NotResetError("call reset() before render()")
        text = render_text(self.game, self.last_log)
        if self.render_mode == "human":
            print(text)
            return None
        return text if self.render_mode == "ansi" else text_to_rgb(text)

    def close(self) -> None:
        pass


def departed_agent_step(view: AECEnv, started: bool, action: Any) -> bool:
    """The checks every step of a HUNGER AEC env starts with: the game was reset (``started``)
    and some agent is still in it, and an agent that has left is stepped with None. True when
    this step is such an agent's, for the caller to remove it."""
    if not started:
        raise NotResetError("call reset() before step()")
    if not view.agents:
        raise IllegalActionError("the show is over and every agent has left; call reset()")
    agent = view.agent_selection
    if not (view.terminations[agent] or view.truncations[agent]):
        return False
    if action is not None:
        raise IllegalActionError(f"{agent} has left the game; step it with None, got "
                                 f"{describe(action)}")
    return True


def _view_state(name: str) -> property:
    """An attribute of the AEC view's turn state, read and written through its unwrapped env."""
    return property(lambda unwrapped: getattr(unwrapped.view, name),
                    lambda unwrapped, value: setattr(unwrapped.view, name, value))


class ShowAECView(parallel_to_aec_wrapper):
    """The AEC view of the Parallel env: PettingZoo's own ``parallel_to_aec_wrapper``, checking
    each action as it arrives.

    Being that wrapper under ``OrderEnforcer``, ``env()`` converts back with PettingZoo's
    ``aec_to_parallel`` to the Parallel env itself, not to a generic wrapper of the view. Its
    ``unwrapped`` env is a ``ShowAECState``. Public attributes of the Parallel env (``game``,
    ``last_log``, ``winners``...) read through.
    """

    env: ShowParallelEnv

    def __init__(self, parallel: ShowParallelEnv):
        super().__init__(parallel)
        self._unwrapped = ShowAECState(self)

    @property
    def unwrapped(self) -> ShowAECState:
        return self._unwrapped

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "env":
            raise AttributeError(name)
        return getattr(self.env, name)

    def step(self, action: Any) -> None:
        if departed_agent_step(self, self.env.started, action):
            super().step(None)
            return
        agent = self.agent_selection
        if self.env.illegal_action == "raise":
            self.env.check_legal(agent, action)
        else:  # a masked action ends the game when the day is played
            self.env._check_action(agent, action)
        pending = self._actions.get(agent)
        try:
            super().step(action)
        except BaseException:
            self._actions[agent] = pending  # the day did not happen: the agent acts again
            raise

    def observe(self, agent: str) -> Any:
        """The observation of the last step; for an agent that left before it, the current
        one (all-zero mask)."""
        self.env._check_agent(agent, "observe")
        observations = self._observations
        if agent in observations:
            return observations[agent]
        return self.env.observe(agent)


class ShowAECState(AECEnv):
    """The unwrapped env of the AEC view: the view's turn state (agents, rewards,
    terminations...) and its methods, in an env that is no conversion wrapper, as PettingZoo's
    ``api_test`` requires of ``unwrapped``. AEC wrappers that edit the unwrapped env
    (PettingZoo's ``TerminateIllegalWrapper``) thus edit the state the view plays from; other
    attributes read through to the view and its Parallel env (``game``, ``winners``...)."""

    agents = _view_state("agents")
    agent_selection = _view_state("agent_selection")
    rewards = _view_state("rewards")
    _cumulative_rewards = _view_state("_cumulative_rewards")
    terminations = _view_state("terminations")
    truncations = _view_state("truncations")
    infos = _view_state("infos")
    _skip_agent_selection = _view_state("_skip_agent_selection")

    def __init__(self, view: ShowAECView):
        super().__init__()
        self.view = view
        self.metadata = view.metadata
        self.possible_agents = view.possible_agents
        self.render_mode = view.render_mode

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name == "view":
            raise AttributeError(name)
        return getattr(self.view, name)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.view.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.view.action_space(agent)

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        self.view.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self.view.step(action)

    def observe(self, agent: str) -> Any:
        return self.view.observe(agent)

    def state(self) -> np.ndarray:
        return self.view.state()

    def render(self) -> str | np.ndarray | None:
        return self.view.render()

    def close(self) -> None:
        self.view.close()
