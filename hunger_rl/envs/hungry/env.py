"""PettingZoo AEC environment over the Hungry rules engine (see ``hunger_rl.envs.hungry_v0``)."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from hunger_rl.engines.hungry import DEFAULT_PLAYERS
from hunger_rl.engines.hungry.engine import (
    NUM_ACTIONS,
    OPTION_DEFAULTS,
    RANDOM_FIRST_PLAYER,
    TIED_SECOND_RULES,
    HungryState,
    check_num_players,
    validate_deck,
)
from hunger_rl.engines.hungry.observation import (
    REWARD_MODES,
    SCORE_SCALE,
    observation_high,
    observation_index,
    observation_layout,
    state_high,
    state_layout,
    state_vector,
)
from hunger_rl.engines.rewards import r1_rewards, win_shares
from hunger_rl.engines.validation import (
    IllegalActionError,
    InvalidValueError,
    NotResetError,
    check_action,
    check_choice,
    check_seed,
    key_path,
    split_options,
)
from hunger_rl.envs.hungry import render

# The observation's dtype, as a dtype object: ``astype`` then skips converting the type.
FLOAT32 = np.dtype(np.float32)
# Where the legal actions travel: in a Dict observation (PettingZoo's classic envs) or in
# ``info["action_mask"]`` beside a flat Box observation (AgileRL, SuperSuit's Box-only wrappers).
ACTION_MASK_MODES = ("observation", "info")
RESET_OPTIONS = ("deck",)


class HungryEnv(AECEnv):
    """Hungry for 2-4 players as a PettingZoo AEC environment (``hungry_v0.raw_env``). See
    ``hungry_v0`` for the card."""

    metadata = {
        "render_modes": ["ansi", "rgb_array", "human"],
        "name": "hungry_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int = DEFAULT_PLAYERS,
        render_mode: str | None = None,
        reward: str = "win",
        first_player: str = OPTION_DEFAULTS["first_player"],
        tied_second: str = OPTION_DEFAULTS["tied_second"],
        action_mask: str = "observation",
    ):
        super().__init__()
        num_players = check_num_players(num_players)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        check_choice(reward, "reward", REWARD_MODES)
        check_choice(first_player, "first_player", [RANDOM_FIRST_PLAYER, *self.possible_agents])
        check_choice(tied_second, "tied_second", TIED_SECOND_RULES)
        check_choice(render_mode, "render_mode", [*self.metadata["render_modes"], None])
        check_choice(action_mask, "action_mask", ACTION_MASK_MODES)
        self.action_mask_in = action_mask
        self.num_players = num_players
        self.render_mode = render_mode
        self.reward_mode = reward
        self.first_player = first_player
        self.tied_second = tied_second
        self.observation_layout = observation_layout(num_players)
        self._agent_index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._observation_indices = [observation_index(num_players, p) for p in range(num_players)]
        high = observation_high(num_players)
        observation_space = spaces.Box(0, high, dtype=np.float32)
        if action_mask == "observation":
            observation_space = spaces.Dict(
                {
                    "observation": observation_space,
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                }
            )
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_layout = state_layout(num_players)
        self.state_space = spaces.Box(0, state_high(num_players), dtype=np.float32)
        self._rng = np.random.default_rng()
        self.game: HungryState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -- episode ------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game. ``options={"deck": [...]}`` fixes the 50-card order, top first.

        Bad options or a bad seed raise before anything changes, the env's RNG included.
        """
        seed = check_seed(seed)
        options = split_options(options, RESET_OPTIONS)
        deck = options.get("deck")
        if deck is not None:
            deck = validate_deck(deck, key_path("options", "deck"))
        rng = self._rng if seed is None else np.random.default_rng(seed)
        if self.first_player == RANDOM_FIRST_PLAYER:
            first = int(rng.integers(self.num_players))
        else:
            first = self.possible_agents.index(self.first_player)
        self.game = HungryState.new_game(
            self.num_players,
            rng=rng,
            deck=deck,
            first_player=first,
            tied_second=self.tied_second,
        )
        self._rng = rng
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.agent_selection = self.agents[first]
        self._info_totals: list[int] | None = None
        self._update_infos()

    def step(self, action: object) -> None:
        if self.game is None:
            raise NotResetError("call reset() before step()")
        if not self.agents:
            raise IllegalActionError("the game is over and every agent has left; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(
                    f"{agent} has finished; a finished agent must be stepped with None, "
                    f"got {action!r}"
                )
            self._was_dead_step(action)
            return
        action = check_action(action, NUM_ACTIONS, agent)
        try:
            self.game.apply_action(action)
        except IllegalActionError as error:
            raise IllegalActionError(f"{agent}: {error}") from None
        self._cumulative_rewards[agent] = 0.0
        winners = None
        if self.game.is_over:
            winners = self._finish()
            self._accumulate_rewards()
        # Before the end every reward is zero, so there is nothing to accumulate.
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._update_infos(winners)
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> tuple[int, ...]:
        """The final rewards and terminations; returns the winners' seats."""
        score = self.game.score()
        if self.reward_mode == "win":
            rewards = r1_rewards(self.num_players, score.winners)
        else:
            totals = score.totals
            n = self.num_players
            rewards = [(t - (sum(totals) - t) / (n - 1)) / SCORE_SCALE for t in totals]
        for player, agent in enumerate(self.possible_agents):
            self.rewards[agent] = rewards[player]
            self.terminations[agent] = True
        return score.winners

    def _update_infos(self, winners: tuple[int, ...] | None = None) -> None:
        """Every step, every agent: the same keys with scalar (or fixed-length) values, so that
        libraries that batch infos (Tianshou's replay buffer, vector envs) can stack them.
        ``winners`` once the game is over. Infos that would be rebuilt with the same values
        (the scores unchanged, no mask in them) are kept, as PettingZoo's classic envs keep
        theirs: a quarter to a third of the plays of random games change no score."""
        game = self.game
        totals = game.totals()
        if winners is None and self.action_mask_in == "observation" and (
                totals == self._info_totals):
            return
        self._info_totals = totals
        shares = (win_shares(self.num_players, winners) if winners is not None
                  else [0.0] * self.num_players)
        self.infos = infos = {}
        for player, agent in enumerate(self.possible_agents):  # a loop: no comprehension frame
            infos[agent] = {"score": totals[player], "win_share": shares[player]}
        if self.action_mask_in == "info":
            for player, info in enumerate(self.infos.values()):
                info["action_mask"] = game.legal_mask(player)

    @property
    def winners(self) -> list[str]:
        """The winners' names once the game is over (several in a shared draw), else []."""
        if self.game is None or not self.game.is_over:
            return []
        return [self.possible_agents[p] for p in self.game.score().winners]

    @property
    def totals(self) -> dict[str, int]:
        """Per agent, its total score as if the game ended now (the final total at the end)."""
        return dict(zip(self.possible_agents, self.game.totals(), strict=True))

    @property
    def breakdown(self) -> dict[str, dict[str, int]]:
        """Per agent: home tiles, hotel tiles, second places, bonus, total, as if it ended now."""
        score = self.game.score()
        return {self.possible_agents[p]: s.as_dict() for p, s in enumerate(score.players)}

    # -- observations -------------------------------------------------------------------------

    def observe(self, agent: str) -> dict[str, np.ndarray] | np.ndarray:
        game = self.game
        if game is None:
            raise NotResetError("call reset() before observe()")
        player = self._agent_index.get(agent) if isinstance(agent, str) else None
        if player is None:
            raise InvalidValueError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        observation = game.table[self._observation_indices[player]].astype(FLOAT32)
        if self.action_mask_in == "info":
            return observation
        return {"observation": observation, "action_mask": game.legal_mask(player)}

    def state(self) -> np.ndarray:
        """The whole game by absolute seat, hidden cards included (``state_layout``)."""
        if self.game is None:
            raise NotResetError("call reset() before state()")
        return state_vector(self.game)

    # -- rendering ----------------------------------------------------------------------------

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.game is None:
            raise NotResetError("call reset() before render()")
        text = render.ansi_table(self.game, self.possible_agents)
        if self.render_mode == "ansi":
            return text
        if self.render_mode == "rgb_array":
            return render.rgb_table(self.game, self.possible_agents)
        print(text)
        return None

    def close(self) -> None:
        pass

