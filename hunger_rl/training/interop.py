"""Glue for RL libraries: Gymnasium ids of the single-agent views, and the env options each
multi-agent library needs.

Gymnasium
---------
``import hunger_rl`` registers one id per game (``gymnasium.make("hunger_rl:hunger_rl/Hungry-v0")``
imports it for you)::

    gymnasium.make("hunger_rl/Hungry-v0", num_players=2, opponents="expert")
    gymnasium.make("hunger_rl/HungerShow-v0", num_players=4, opponents=["crowd", "random"])
    gymnasium.make_vec("hunger_rl/Hungry-v0", num_envs=8)

The env is the single-agent view of ``hunger_rl.training.single_agent`` (the learner's seat
rotates every episode; the other seats are played inside ``step``): ``opponents`` is a policy
spec (``hunger-rl policies``) for every other seat, or one spec per opponent slot (the seats
after the learner, in turn order). ``env.unwrapped.action_masks()`` returns the legal actions.

``make_vec`` without ``vectorization_mode`` builds a ``SyncVectorEnv`` with Gymnasium's
``SAME_STEP`` autoreset: the step that ends an episode already returns the next episode's first
observation (the last one is in ``info["final_obs"]``), so ``envs.call("action_masks")`` never
returns the all-zero mask of a finished game. With ``vectorization_mode="sync"`` or ``"async"``
Gymnasium's default ``NEXT_STEP`` autoreset applies: after an episode ends the mask is all zero
for one step, the step whose action the vector env ignores while it resets; pass
``vector_kwargs={"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}`` to avoid it.

Multi-agent libraries
---------------------
``MULTI_AGENT_OPTIONS`` lists the env options each library's own PettingZoo recipe needs;
``pettingzoo_env`` builds the env with them. ``agilerl_infos`` works around AgileRL 2.58's
check of grouped agents' masks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np

from hunger_rl.envs import game_spec, load_game

if TYPE_CHECKING:
    from hunger_rl.policies.base import Policy

# Env options per library (same for both games; Hungry has no eliminations, so ``eliminated``
# is HUNGER's only, and "stay" is already the default of HUNGER's AEC view: it is listed for
# HUNGER's Parallel env).
MULTI_AGENT_OPTIONS: dict[str, dict[str, str]] = {
    # PettingZooWrapper(use_mask=True, done_on_any=False) reads the mask from the observation
    # and sends an action for every possible agent; the env ignores those of agents that left.
    "torchrl": {},
    # PettingZooEnv wraps the AEC env and ends the episode when the agent to move terminates.
    "tianshou": {"eliminated": "stay"},
    # pettingzoo_env_to_vec_env_v1 needs a constant set of agents; Box observations make its
    # masks travel in the infos, as its Box-only wrappers (black_death_v3...) need.
    "supersuit": {"eliminated": "stay", "action_mask": "info"},
    # AgileRL reads masks from info["action_mask"] (and refuses them in the observation).
    "agilerl": {"eliminated": "stay", "action_mask": "info"},
}


def pettingzoo_env(game: str, library: str, parallel: bool | None = None, **kwargs: Any):
    """``game``'s PettingZoo env with the options ``library`` needs (``MULTI_AGENT_OPTIONS``).

    Hungry is AEC only. HUNGER is Parallel unless ``parallel=False`` (its AEC view); ``kwargs``
    go to the env and win over the library's options.
    """
    if library not in MULTI_AGENT_OPTIONS:
        raise ValueError(f"unknown library {library!r}; known: {sorted(MULTI_AGENT_OPTIONS)}")
    module = load_game(game)
    options = dict(MULTI_AGENT_OPTIONS[library])
    if game_spec(game).api == "aec":
        # A turn-based game: no Parallel env, and no player leaves before the end.
        options.pop("eliminated", None)
        if parallel:
            raise ValueError(f"{game} is turn-based: it has an AEC env only")
        return module.env(**{**options, **kwargs})
    options.update(kwargs)
    return module.parallel_env(**options) if parallel in (None, True) else module.env(**options)


def agilerl_infos(infos: dict[str, Any]) -> dict[str, Any]:
    """The infos of an ``action_mask="info"`` env, or of AgileRL's ``AsyncPettingZooVecEnv`` over
    such envs, for AgileRL 2.58's ``IPPO.get_action(obs, infos)``, with each mask as a flat list.

    IPPO groups agents by name prefix ("player") and checks the group's masks with
    ``None in masks``, which fails on numpy arrays, and it reads a mask only from a flat list of
    numbers. A vector env's ``(num_envs, n)`` mask goes row after row, the order in which IPPO
    lays out the group's observations. Entries that are not an agent's info (the vector env's
    ``_player_0`` flags of which envs hold that agent) pass unchanged.
    """
    converted: dict[str, Any] = {}
    for agent, info in infos.items():
        if not isinstance(info, dict):
            converted[agent] = info
            continue
        if "action_mask" not in info:
            raise ValueError(f"infos[{agent!r}] has no 'action_mask': AgileRL reads the masks from "
                           f"the infos; build the env with action_mask='info'")
        converted[agent] = {**info,
                            "action_mask": np.asarray(info["action_mask"]).ravel().tolist()}
    return converted


class SpecOpponents:
    """Opponents named by policy specs: one spec for every slot, or one spec per slot."""

    def __init__(self, game: str, num_players: int, opponents: str | Sequence[str]):
        specs = [opponents] * (num_players - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != num_players - 1:
            raise ValueError(f"opponents needs one spec or {num_players - 1} specs for "
                             f"{num_players} players, got {len(specs)}")
        from hunger_rl.policies.registry import make_policy

        self.labels = specs
        self.policies = [make_policy(spec, game, num_players) for spec in specs]

    def draw(self, rng: np.random.Generator, slot: int) -> tuple[str, Policy]:
        return self.labels[slot], self.policies[slot]


def make_single_agent(game: str, num_players: int | None = None,
                      opponents: str | Sequence[str] = "random", **kwargs: Any) -> gym.Env:
    """The single-agent view of ``game`` against ``opponents`` (policy specs); ``kwargs`` go to
    the view (``game_options``, ``illegal_action``, Hungry's ``margin_shaping``)."""
    from hunger_rl.training.single_agent import make_single_agent_env

    if num_players is None:
        num_players = game_spec(game).default_players
    source = SpecOpponents(game, num_players, opponents)
    return make_single_agent_env(game, num_players, opponents=source, **kwargs)


def make_hungry(**kwargs: Any) -> gym.Env:
    return make_single_agent("hungry", **kwargs)


def make_hunger_show(**kwargs: Any) -> gym.Env:
    return make_single_agent("hunger_show", **kwargs)


def make_vector(game: str, num_envs: int, **kwargs: Any) -> gym.vector.VectorEnv:
    """``num_envs`` single-agent views in a ``SyncVectorEnv`` with SAME_STEP autoreset."""
    return gym.vector.SyncVectorEnv(
        [lambda: make_single_agent(game, **kwargs) for _ in range(num_envs)],
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
    )


def make_hungry_vector(num_envs: int, **kwargs: Any) -> gym.vector.VectorEnv:
    return make_vector("hungry", num_envs, **kwargs)


def make_hunger_show_vector(num_envs: int, **kwargs: Any) -> gym.vector.VectorEnv:
    return make_vector("hunger_show", num_envs, **kwargs)


@dataclass(frozen=True)
class GymnasiumEnv:
    """A game's single-agent view under its Gymnasium id."""

    id: str
    # The functions ``gymnasium.make`` and ``gymnasium.make_vec`` call, registered by their
    # module-level name so that the env spec stays serialisable.
    make: Callable[..., gym.Env]
    make_vector: Callable[..., gym.vector.VectorEnv]


GYMNASIUM_ENVS: dict[str, GymnasiumEnv] = {
    "hungry": GymnasiumEnv(game_spec("hungry").gymnasium_id, make_hungry, make_hungry_vector),
    "hunger_show": GymnasiumEnv(game_spec("hunger_show").gymnasium_id, make_hunger_show,
                                make_hunger_show_vector),
}


def register_gymnasium_envs() -> None:
    """Register each game's ``GYMNASIUM_ENVS`` id (done by ``import hunger_rl``; registering
    twice is harmless)."""
    for env in GYMNASIUM_ENVS.values():
        if env.id in gym.registry:
            continue
        gym.register(env.id, entry_point=f"{__name__}:{env.make.__name__}",
                     vector_entry_point=f"{__name__}:{env.make_vector.__name__}")


def train_maskable_ppo_defaults(game: str, num_players: int, opponents: str | Sequence[str],
                                steps: int, seed: int, progress: bool = False):
    """sb3-contrib's ``MaskablePPO`` with every setting at its default (``"MlpPolicy"``) on
    ``game``'s registered Gymnasium view against ``opponents``, trained for ``steps`` learner
    steps from ``seed``: the library's own recipe as a user runs it. Returns the model (its
    ``save(PATH)`` file is the spec ``sb3:PATH``)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    class StepBar(BaseCallback):
        # SB3's own progress bar needs rich, which the suite does not install.
        def _on_training_start(self) -> None:
            self.bar = tqdm(total=steps, desc=f"MaskablePPO {game} {num_players}p", unit="step",
                            disable=not progress)

        def _on_step(self) -> bool:
            self.bar.update(self.training_env.num_envs)
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    env = gym.make(GYMNASIUM_ENVS[game].id, num_players=num_players, opponents=opponents)
    model = MaskablePPO("MlpPolicy", env, seed=seed, verbose=0)
    model.learn(steps, callback=StepBar())
    return model
