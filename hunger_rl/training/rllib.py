"""Ray RLlib backend of ``hunger-rl train`` (``backend: rllib``): self-play PPO on one machine
or a Ray cluster, with the SB3 backend's artefacts.

Design, top to bottom:

- Environments go through RLlib's own PettingZoo wrappers: ``PettingZooEnv`` around Hungry's
  AEC env, ``ParallelPettingZooEnv`` around HUNGER's Parallel env. Between the game and that
  wrapper sits an observation adapter (:class:`AECObservationAdapter`,
  :class:`ParallelObservationAdapter`) that renames the keys to the ones RLlib's action-masking
  modules read (``observations``, and ``action_mask`` as float32), and counts every action it
  forwards to the game and every one the mask forbids (the counts reach the results as
  ``actions_sent`` and ``masked_actions_sent``; a masked action also makes the game raise).
- The learner is :class:`MaskedPPOModule`: RLlib's default PPO actor-critic MLP fed the
  observation divided by :func:`observation_scale` (the SB3 backend's scaling, without its
  derived features), with forbidden actions' logits pushed to the float minimum, so
  that they are never sampled.
- Seats: every episode, :class:`EpisodeLineup` (the policy mapping function) draws one seat for
  the shared learner module and, for every other seat, an entry of ``opponents.weights``: ``self``
  is a frozen snapshot module (``snapshot_<k>``, one of ``max_snapshots`` slots, all holding
  the initial network at the start; every ``snapshot_every`` training iterations the learner is
  copied into the next slot, oldest first), anything else is a :class:`ScriptedModule` wrapping
  our :class:`Policy` for that spec. Scripted modules exist once per (spec, seat), and each env
  runner steps one game, so a scripted policy that remembers the game (HUNGER's expert) only ever
  sees one player of one game; it is reset at every episode start.
- Evaluation is our own: the learner's weights are converted into the SB3 backend's policy file
  (same network layout, see :func:`sb3_policy_weights`), then played by
  :func:`hunger_rl.training.outputs.evaluate_policy`; the table, the learning curve and the
  policy file are written exactly as the SB3 backend writes them.

Steps (``total_steps``, ``evaluation.every_steps``) count the learner module's decisions. Ray's
address comes from ``rllib.address``: null starts a local instance for the run, ``auto`` or
``HOST:PORT`` joins a running cluster (every node needs ``hunger-rl[rllib]`` installed).
"""

from __future__ import annotations

import dataclasses
import json
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from pettingzoo.utils import BaseParallelWrapper, BaseWrapper
from tqdm import tqdm

try:
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig as RLlibPPOConfig
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv
    from ray.rllib.utils.numpy import convert_to_numpy
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    from ray.tune.registry import register_env
except ImportError as error:
    raise ImportError(
        "the rllib backend needs Ray RLlib: pip install 'hunger-rl[rllib]'") from error

from hunger_rl.envs import game_spec
from hunger_rl.policies.learned import (
    POLICY_FILE,
    LearnedPolicy,
    PolicyMetadata,
    save_policy,
    write_atomically,
)
from hunger_rl.policies.models.encoders import observation_scale
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.config import SELF_PLAY, TrainConfig
from hunger_rl.training.outputs import (
    evaluate_policy,
    final_evaluation,
    format_table,
    policy_metadata,
    prepare_output,
    write_learning_curve,
    write_table,
)
from hunger_rl.training.ray_cluster import check_ray_address
from hunger_rl.training.single_agent import make_game_env

ENV_NAME = "hunger_rl"
LEARNER = "learner"
# Seeds of the scripted opponents' modules lie this far apart (a prime), one per baseline and
# seat.
MODULE_SEED_SPACING = 7919
# Where each tensor of RLlib's PPO module goes in the SB3 policy network (``learned.py``).
RLLIB_TO_SB3_PREFIXES = {
    "encoder.actor_encoder.net.mlp.": "mlp_extractor.policy_net.",
    "encoder.critic_encoder.net.mlp.": "mlp_extractor.value_net.",
    "pi.net.mlp.0.": "action_net.",
    "vf.net.mlp.0.": "value_net.",
}


# -- environments -----------------------------------------------------------------------------


def adapted_observation_space(space: spaces.Dict) -> spaces.Dict:
    """The game's ``{observation, action_mask}`` space in the keys RLlib's masking reads."""
    mask = space["action_mask"]
    return spaces.Dict({"observations": space["observation"],
                        "action_mask": spaces.Box(0.0, 1.0, mask.shape, np.float32)})


def adapt_observation(observation: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {"observations": observation["observation"],
            "action_mask": observation["action_mask"].astype(np.float32)}


class MaskAudit:
    """Counts the actions forwarded to the game, and those its mask forbade."""

    def __init__(self) -> None:
        self.actions_sent = 0
        self.masked_actions_sent = 0

    def record(self, mask: np.ndarray, action: int) -> None:
        self.actions_sent += 1
        if not mask[int(action)]:
            self.masked_actions_sent += 1

    def take(self) -> tuple[int, int]:
        """The counts since the last call; they start again from zero."""
        counts = self.actions_sent, self.masked_actions_sent
        self.actions_sent = self.masked_actions_sent = 0
        return counts


class AECObservationAdapter(BaseWrapper):
    """Hungry's AEC env with RLlib's observation keys and a mask audit."""

    def __init__(self, env):
        super().__init__(env)
        self.mask_audit = MaskAudit()

    def observation_space(self, agent):
        return adapted_observation_space(self.env.observation_space(agent))

    def observe(self, agent):
        observation = self.env.observe(agent)
        return None if observation is None else adapt_observation(observation)

    def step(self, action):
        # ``None`` is the step PettingZoo asks of an agent that is already done.
        if action is not None:
            mask = self.env.observe(self.env.agent_selection)["action_mask"]
            self.mask_audit.record(mask, action)
        self.env.step(action)


class ParallelObservationAdapter(BaseParallelWrapper):
    """HUNGER's Parallel env with RLlib's observation keys and a mask audit."""

    def __init__(self, env):
        super().__init__(env)
        self.mask_audit = MaskAudit()
        self._masks: dict[str, np.ndarray] = {}

    def observation_space(self, agent):
        return adapted_observation_space(self.env.observation_space(agent))

    def reset(self, seed=None, options=None):
        observations, infos = self.env.reset(seed=seed, options=options)
        return self._adapt(observations), infos

    def step(self, actions):
        for agent, action in actions.items():
            self.mask_audit.record(self._masks[agent], action)
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return self._adapt(observations), rewards, terminations, truncations, infos

    def _adapt(self, observations):
        self._masks = {agent: o["action_mask"] for agent, o in observations.items()}
        return {agent: adapt_observation(o) for agent, o in observations.items()}


def make_rllib_env(env_config: dict[str, Any]):
    """The RLlib multi-agent env of ``env_config`` (``game``, ``num_players``,
    ``game_options``): the game, the observation adapter, RLlib's PettingZoo wrapper."""
    game = env_config["game"]
    game_env = make_game_env(game, env_config["num_players"], env_config.get("game_options"))
    if game_spec(game).api == "parallel":
        return ParallelPettingZooEnv(ParallelObservationAdapter(game_env))
    return PettingZooEnv(AECObservationAdapter(game_env))


def observation_adapter(multi_agent_env) -> AECObservationAdapter | ParallelObservationAdapter:
    """The adapter inside one of RLlib's PettingZoo wrappers built by :func:`make_rllib_env`."""
    if isinstance(multi_agent_env, PettingZooEnv):
        return multi_agent_env.env
    return multi_agent_env.par_env


# -- modules ----------------------------------------------------------------------------------


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO actor-critic on the scaled observation, with masked logits.

    ``model_config`` holds RLlib's network keys plus ``game`` and ``num_players``, which fix the
    observation scale; the network layout is the SB3 policy's, so that the weights export.
    """

    def __init__(self, *, observation_space: spaces.Dict, **kwargs):
        # The networks are built for the observation vector alone; the module keeps the adapted
        # space (with the mask) as its own, which is what the env runners feed it.
        self.adapted_observation_space = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self.adapted_observation_space
        scale = observation_scale(self.model_config["game"], self.model_config["num_players"])
        # Not persistent: it is fixed by the game, and stays out of the exported weights.
        self.register_buffer("observation_scale", torch.tensor(scale), persistent=False)

    def _forward_inference(self, batch, **kwargs):
        batch, mask = self._unpack(batch)
        return self._masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch, **kwargs):
        batch, mask = self._unpack(batch)
        return self._masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        batch, mask = self._unpack(batch)
        return self._masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            batch, _ = self._unpack(batch)
        return super().compute_values(batch, embeddings)

    def _unpack(self, batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
        """A copy of ``batch`` whose observation is the scaled vector, and the mask."""
        observation = batch[Columns.OBS]
        scaled = observation["observations"] / self.observation_scale
        return {**batch, Columns.OBS: scaled}, observation["action_mask"]

    @staticmethod
    def _masked(outputs: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
        # log(0) clamped to the float minimum rather than -inf: a masked action gets zero
        # probability without turning the entropy into NaN.
        outputs[Columns.ACTION_DIST_INPUTS] = (
            outputs[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN))
        return outputs


class ScriptedModule(RLModule):
    """A policy spec (``random``, ``greedy``, ``expert``, ``search:N``, a policy file) playing
    one seat; never trained. ``model_config``: ``spec``, ``game``, ``num_players``,
    ``game_options`` and ``seed``."""

    def setup(self):
        config = self.model_config
        self.policy = make_policy(config["spec"], config["game"], config["num_players"])
        self.game_info = game_spec(config["game"])
        # Scripted players read the game's public view, which depends on its options.
        self.game_options = config["game_options"]
        self.rng = np.random.default_rng(config["seed"])

    def reset_game(self) -> None:
        self.policy.reset()

    def _forward(self, batch, **kwargs):
        observations = convert_to_numpy(batch[Columns.OBS])
        actions = []
        for vector, mask in zip(observations["observations"], observations["action_mask"],
                                strict=True):
            observation = {"observation": vector, "action_mask": mask.astype(np.int8)}
            view = self.game_info.view_of(observation, self.game_options)
            actions.append(self.policy.act(observation, self.rng, view))
        return {Columns.ACTIONS: np.array(actions, dtype=np.int64)}

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError("scripted opponents are not trained; keep them out of "
                                  "policies_to_train")


def snapshot_module_id(slot: int) -> str:
    return f"snapshot_{slot}"


def baseline_module_id(spec_index: int, seat: int) -> str:
    return f"baseline_{spec_index}_seat_{seat}"


@dataclasses.dataclass(frozen=True)
class EpisodeLineup:
    """RLlib's policy mapping function: who plays each seat of an episode.

    The lineup is drawn from a generator seeded by the episode's id and the run's seed, so every
    agent of an episode, asked separately, lands in the same lineup.
    """

    num_players: int
    specs: tuple[str, ...]
    weights: tuple[float, ...]
    num_snapshots: int
    seed: int

    def __call__(self, agent_id: str, episode, **kwargs) -> str:
        return self.lineup(episode.id_)[int(agent_id.rsplit("_", 1)[1])]

    def lineup(self, episode_id: str) -> list[str]:
        rng = np.random.default_rng([zlib.crc32(episode_id.encode()), self.seed])
        learner_seat = int(rng.integers(self.num_players))
        probabilities = np.array(self.weights) / sum(self.weights)
        modules = []
        for seat in range(self.num_players):
            if seat == learner_seat:
                modules.append(LEARNER)
                continue
            index = int(rng.choice(len(self.specs), p=probabilities))
            modules.append(snapshot_module_id(int(rng.integers(self.num_snapshots)))
                           if self.specs[index] == SELF_PLAY
                           else baseline_module_id(index, seat))
        return modules


class SelfPlayCallbacks(RLlibCallback):
    """Resets the scripted players for each game; reports the env runner's mask audit."""

    def on_episode_start(self, *, rl_module, **kwargs) -> None:
        for module in rl_module.values():
            if isinstance(module, ScriptedModule):
                module.reset_game()

    def on_sample_end(self, *, env_runner, metrics_logger, **kwargs) -> None:
        # Once per sample, over every game, finished or not, so that no action goes uncounted.
        for env in env_runner.env.envs:
            sent, masked = observation_adapter(env.unwrapped).mask_audit.take()
            metrics_logger.log_value("actions_sent", sent, reduce="lifetime_sum")
            metrics_logger.log_value("masked_actions_sent", masked, reduce="lifetime_sum")


# -- algorithm --------------------------------------------------------------------------------


def game_spaces(config: TrainConfig) -> tuple[spaces.Dict, spaces.Discrete]:
    """The game's per-agent observation (``observation``, ``action_mask``) and action spaces."""
    game_env = make_game_env(config.game, config.num_players, config.game_options)
    agent = game_env.possible_agents[0]
    return game_env.observation_space(agent), game_env.action_space(agent)


def module_specs(config: TrainConfig) -> dict[str, RLModuleSpec]:
    """The learner, the snapshot slots and one scripted module per (spec, seat)."""
    raw_observation_space, action_space = game_spaces(config)
    observation_space = adapted_observation_space(raw_observation_space)
    network = {"fcnet_hiddens": list(config.network.hidden),
               "fcnet_activation": config.network.activation,
               "head_fcnet_hiddens": [], "vf_share_layers": False,
               "game": config.game, "num_players": config.num_players}
    learned = RLModuleSpec(module_class=MaskedPPOModule, observation_space=observation_space,
                           action_space=action_space, model_config=network)
    specs = {LEARNER: learned}
    specs.update({snapshot_module_id(slot): learned
                  for slot in range(config.opponents.max_snapshots)})
    for index, spec in enumerate(config.opponents.weights):
        if spec == SELF_PLAY:
            continue
        for seat in range(config.num_players):
            specs[baseline_module_id(index, seat)] = RLModuleSpec(
                module_class=ScriptedModule, observation_space=observation_space,
                action_space=action_space,
                model_config={"spec": spec, "game": config.game,
                              "num_players": config.num_players,
                              "game_options": dict(config.game_options),
                              "seed": config.seed + MODULE_SEED_SPACING
                              * (index * config.num_players + seat)})
    return specs


def algorithm_config(config: TrainConfig) -> RLlibPPOConfig:
    """RLlib's PPO config for a training config; the PPO keys are the SB3 backend's."""
    specs = module_specs(config)
    weights = config.opponents.weights
    lineup = EpisodeLineup(config.num_players, tuple(weights), tuple(weights.values()),
                           config.opponents.max_snapshots, config.seed)
    ppo = config.ppo
    return (
        RLlibPPOConfig()
        .environment(ENV_NAME, env_config={"game": config.game,
                                           "num_players": config.num_players,
                                           "game_options": dict(config.game_options)},
                     # RLlib's checker steps unmasked random actions, which our games refuse.
                     disable_env_checking=True)
        .env_runners(num_env_runners=config.rllib.num_env_runners,
                     # One game per runner: see ScriptedModule's memory in the module notes.
                     num_envs_per_env_runner=1)
        .learners(num_learners=config.rllib.num_learners)
        .multi_agent(policies=set(specs), policy_mapping_fn=lineup,
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(lr=ppo.learning_rate, gamma=ppo.gamma, lambda_=ppo.gae_lambda,
                  clip_param=ppo.clip_range, entropy_coeff=ppo.ent_coef,
                  vf_loss_coeff=ppo.vf_coef, grad_clip=ppo.max_grad_norm,
                  num_epochs=ppo.n_epochs, use_kl_loss=False,
                  train_batch_size_per_learner=config.rllib.train_batch_size,
                  minibatch_size=config.rllib.minibatch_size)
        .callbacks(SelfPlayCallbacks)
        .debugging(seed=config.seed, log_level="ERROR")
    )


def learner_state(algorithm) -> dict[str, Any]:
    """The learner module's full state (actor and critic) from the learner group."""
    component = f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{LEARNER}"
    state = algorithm.learner_group.get_state(components=component)
    return state[COMPONENT_LEARNER][COMPONENT_RL_MODULE][LEARNER]


def freeze_snapshot(algorithm, slot: int) -> None:
    """Copy the learner into snapshot slot ``slot``.

    The copy goes into the learner group, because after every iteration RLlib pushes the
    learner group's weights of every module that played (snapshots included) to the env
    runners; and straight to the env runners, which would otherwise play the old snapshot
    until that push.
    """
    snapshot = snapshot_module_id(slot)
    state = learner_state(algorithm)
    algorithm.learner_group.set_state(
        {COMPONENT_LEARNER: {COMPONENT_RL_MODULE: {snapshot: state}}})

    def copy(env_runner) -> None:
        if env_runner.module is not None:
            env_runner.module[snapshot].set_state(state)

    algorithm.env_runner_group.foreach_env_runner(copy, local_env_runner=True)


def sb3_policy_weights(rllib_state: dict[str, Any]) -> dict[str, np.ndarray]:
    """The learner's tensors under the names of the SB3 policy network (``learned.py``)."""
    weights = {}
    for name, value in rllib_state.items():
        for prefix, target in RLLIB_TO_SB3_PREFIXES.items():
            if name.startswith(prefix):
                weights[target + name[len(prefix):]] = np.asarray(convert_to_numpy(value))
    return weights


def exported_policy_metadata(config: TrainConfig) -> PolicyMetadata:
    """The policy file's metadata: the SB3 backend's, with the scaled observation as input
    (the module does not compute the SB3 backend's derived features)."""
    raw_observation_space, action_space = game_spaces(config)
    return dataclasses.replace(
        policy_metadata(config, raw_observation_space["observation"], action_space),
        features=False)


def export_policy(algorithm, metadata: PolicyMetadata, path: Path) -> Path:
    """Write the learner as a policy file that ``load_policy`` (and so ``evaluate``) reads."""
    policy = LearnedPolicy.from_weights(metadata, sb3_policy_weights(learner_state(algorithm)))
    return save_policy(path, policy.torch_network(), metadata)


# -- training ---------------------------------------------------------------------------------


def train_rllib(config: TrainConfig, progress: bool = True) -> list[dict[str, Any]]:
    """Train as ``config`` says on Ray RLlib; return the final evaluation table."""
    started = time.perf_counter()
    check_ray_address(config.rllib.address, "rllib.address")
    out = prepare_output(config)
    metadata = exported_policy_metadata(config)

    own_ray = not ray.is_initialized()
    if own_ray:
        # "local": a fresh instance even where `ray start` runs one (or left its address behind).
        ray.init(address=config.rllib.address or "local", include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    register_env(ENV_NAME, make_rllib_env)
    algorithm = algorithm_config(config).build_algo()
    try:
        for slot in range(config.opponents.max_snapshots):
            freeze_snapshot(algorithm, slot)  # the initial network fills every slot
        steps, iterations, env_steps, audit = 0, 0, 0, {}
        history: list[dict[str, Any]] = []
        next_evaluation = config.evaluation.every_steps
        with tqdm(total=config.total_steps, unit="step", disable=not progress,
                  desc=f"train {config.game} {config.num_players}p (rllib)",
                  dynamic_ncols=True) as bar:
            while steps < config.total_steps:
                result = algorithm.train()
                iterations += 1
                runners = result["env_runners"]
                new_steps = int(runners["num_module_steps_sampled_lifetime"][LEARNER])
                bar.update(new_steps - steps)
                steps = new_steps
                env_steps = int(runners["num_env_steps_sampled_lifetime"])
                audit = {key: int(runners.get(key, 0))
                         for key in ("actions_sent", "masked_actions_sent")}
                if iterations % config.opponents.snapshot_every == 0:
                    slot = iterations // config.opponents.snapshot_every
                    freeze_snapshot(algorithm, slot % config.opponents.max_snapshots)
                if steps < config.total_steps and steps >= next_evaluation:
                    path = export_policy(algorithm, dataclasses.replace(metadata, steps=steps),
                                         out / POLICY_FILE)
                    rows = evaluate_policy(config, path, config.evaluation.games,
                                           seed=config.seed + steps)
                    history += [{"steps": steps, **row} for row in rows]
                    write_learning_curve(history, out)
                    next_evaluation = (steps // config.evaluation.every_steps + 1) \
                        * config.evaluation.every_steps
        final_metadata = dataclasses.replace(metadata, steps=steps)
        policy_path = export_policy(algorithm, final_metadata, out / POLICY_FILE)
    finally:
        algorithm.stop()
        if own_ray:
            ray.shutdown()
    write_atomically(out / "policy.json", json.dumps(final_metadata.as_file_fields(), indent=1))
    train_seconds = time.perf_counter() - started
    table = final_evaluation(config, policy_path, progress)
    write_table(table, out, {"steps": steps, "train_seconds": round(train_seconds, 1),
                             "policy": str(policy_path), "backend": "rllib",
                             "iterations": iterations, "env_steps": env_steps, **audit})
    write_learning_curve(history + [{"steps": steps, **row} for row in table], out)
    print(format_table(table, config, steps, train_seconds))
    return table
