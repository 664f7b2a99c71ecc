"""Any policy of the suite as an OpenSpiel bot, for OpenSpiel's ``evaluate_bots``, alpha-rank
tables and the like on ``python_hungry`` and ``python_hunger_show``. Needs the ``openspiel``
extra."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from hunger_rl.engines.hunger_show.observation import NUM_CHOICES as SHOW_ACTIONS
from hunger_rl.engines.hungry.engine import NUM_ACTIONS as HUNGRY_ACTIONS
from hunger_rl.envs import game_spec
from hunger_rl.policies.base import Policy

# Per OpenSpiel game, the suite's game and the env options its parameters stand for.
GAMES = {"python_hungry": ("hungry", ("tied_second",), HUNGRY_ACTIONS),
         "python_hunger_show": ("hunger_show", (), SHOW_ACTIONS)}


class PolicyBot(pyspiel.Bot):
    """``policy`` playing ``player`` in a game of ``python_hungry`` or ``python_hunger_show``:
    it reads the player's observation tensor (the PettingZoo env's vector) and legal actions,
    builds the view the game's scripted policies read (as matches do), and acts with its own
    generator seeded by ``seed``."""

    def __init__(self, game: pyspiel.Game, player: int, policy: Policy, seed: int = 0):
        pyspiel.Bot.__init__(self)
        short_name = game.get_type().short_name
        if short_name not in GAMES:
            raise ValueError(f"PolicyBot plays {sorted(GAMES)}, not {short_name}")
        name, options, self.num_actions = GAMES[short_name]
        self.spec = game_spec(name)
        parameters = game.get_parameters()
        self.env_kwargs = {option: parameters[option] for option in options}
        self.player = player
        self.policy = policy
        self.rng = np.random.default_rng(seed)

    def restart_at(self, state: Any) -> None:
        self.policy.reset()

    def inform_action(self, state: Any, player: int, action: int) -> None:
        """The policy reads each observation afresh: nothing to remember."""

    def step(self, state: Any) -> int:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        mask[state.legal_actions(self.player)] = 1
        observation = {"observation": np.array(state.observation_tensor(self.player),
                                               dtype=np.float32),
                       "action_mask": mask}
        view = self.spec.view_of(observation, self.env_kwargs)
        return int(self.policy.act(observation, self.rng, view))
