"""``hunger-rl train CONFIG``: self-play MaskablePPO from a config file.

The trainer reads top to bottom in :func:`train`: build the vectorised single-agent games and
the model (or restore them from a checkpoint), then alternate PPO learning with seat-rotated
evaluations against the baselines and checkpoints, and finish with the final evaluation table,
the learning curve and the policy file. Output folder (``config.out``):

- ``policy.safetensors`` (+ ``policy.json``, its metadata): the final policy, a policy spec
  for ``hunger-rl evaluate`` and ``hunger-rl tournament``;
- ``checkpoints/step_<steps>/``: resumable checkpoints (see ``checkpoint.py``); after saving
  one mid-run the trainer reseeds and redeals the games as a resume from it does, so that a
  run killed and resumed from it trains exactly what the uninterrupted run trains;
- ``evaluation.csv`` / ``evaluation.json``: the final table, win share vs each baseline with
  its 95% interval (the JSON also gives the training time and PPO's steps per second);
  ``learning_curve.csv`` / ``learning_curve.png``: the periodic evaluations;
- ``tensorboard/``: SB3's training scalars plus ``eval/win_share_vs_<opponent>``;
- ``config.yaml``: the config the run used.

A run starts from an untrained network, from the weights of ``network.start``, or from the
policy that the config ``network.start_recipe`` trains first into ``OUT/start``
(``training.recipes`` trains that chain and passes its policy in as ``start``).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.utils import LinearSchedule
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv
from tqdm import tqdm

from hunger_rl.policies.learned import (
    POLICY_FILE,
    PolicyMetadata,
    choose_actions,
    network_weights,
    save_policy,
    write_atomically,
)
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.models.networks import (
    ActionScorerPolicy,
    FullDecisionPolicy,
    mlp_kwargs,
    policy_class_and_kwargs,
)
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.checkpoint import (
    TrainingState,
    checkpoint_folder,
    has_checkpoint,
    load_checkpoint,
    save_checkpoint,
)
from hunger_rl.training.config import SELF_PLAY, TrainConfig
from hunger_rl.training.endgame import endgame_positions, fit_endgame_head, play_values
from hunger_rl.training.games import training_game
from hunger_rl.training.outputs import (
    evaluate_policy,
    final_evaluation,
    format_table,
    policy_metadata,
    prepare_output,
    write_learning_curve,
    write_table,
)
from hunger_rl.training.positions import encode_positions
from hunger_rl.training.selfplay import OpponentPool
from hunger_rl.training.single_agent import make_single_agent_env


def train(config: TrainConfig, resume: str | Path | None = None, progress: bool = True,
          start: str | None = None) -> list[dict[str, Any]]:
    """Train as ``config`` says (continuing ``resume``, a checkpoint or a run folder, if
    given), from the weights of the policy ``start`` where given (the policy its
    ``network.start_recipe`` trained), else of ``network.start``; return the final table."""
    started = time.perf_counter()
    if config.network.start_recipe is not None and start is None:
        raise ValueError(f"network.start_recipe {config.network.start_recipe!r}: train it "
                         "first (training.recipes.train_recipe) and pass its policy as start")
    start = config.network.start if start is None else start
    out = prepare_output(config)

    # 1. Games: one learning seat per env, opponents from each env's self-play pool (or, with
    # env.batched, the compiled opponents of the batched engine and, for HUNGER, its league).
    vec_env = make_vec_env(config)
    metadata = policy_metadata(config, vec_env.observation_space, vec_env.action_space)
    model = make_model(config, vec_env, tensorboard_log=str(out / "tensorboard"))

    # 2. Start fresh (after the endgame fit, if any, the network is the first snapshot) or
    # restore a checkpoint.
    if resume is None:
        if start is not None:
            start_from(model.policy, config, start)
        if config.endgame.positions:
            fit_endgame_start(config, model.policy, out, progress)
        state = TrainingState(snapshots=[network_weights(model.policy)])
    else:
        state = load_checkpoint(resume, model.policy, model.policy.optimizer, metadata)
        model.num_timesteps = state.steps
        model.set_random_seed(config.seed + state.steps)
    if config.ppo.magnet_coef:  # the start, or the checkpoint resumed from
        model.refresh_magnet()
    if _plays_snapshots(config):
        for weights in state.snapshots:
            vec_env.env_method("add_snapshot", weights)
    if _has_league(config) and state.league:
        vec_env.env_method("restore_league", state.league)

    # 3. Learn in chunks that end at the next evaluation or checkpoint.
    snapshots = SnapshotCallback(config, state)
    next_evaluation = _next_multiple(model.num_timesteps, config.evaluation.every_steps)
    next_checkpoint = _next_multiple(model.num_timesteps, config.checkpoint_every_steps)
    first_step, learn_seconds = model.num_timesteps, 0.0
    with tqdm(total=config.total_steps, initial=model.num_timesteps, unit="step",
              desc=f"train {config.game} {config.num_players}p", disable=not progress,
              dynamic_ncols=True) as bar:
        while model.num_timesteps < config.total_steps:
            stop = min(next_evaluation, next_checkpoint, config.total_steps)
            # Learning stops at the first whole rollout past ``stop``.
            began = time.perf_counter()
            model.learn(stop - model.num_timesteps, reset_num_timesteps=False,
                        callback=[snapshots, ProgressCallback(bar)], tb_log_name="ppo")
            learn_seconds += time.perf_counter() - began
            state.steps = model.num_timesteps
            if state.steps >= config.total_steps:
                break  # the final evaluation and checkpoint follow
            if state.steps >= next_evaluation:
                policy_path = save_policy(out / POLICY_FILE, model.policy,
                                          _with_steps(metadata, state.steps))
                rows = evaluate_policy(config, policy_path, config.evaluation.games,
                                       seed=config.seed + state.steps)
                state.history += [{"steps": state.steps, **row} for row in rows]
                _log_evaluation(model, rows)
                write_learning_curve(state.history, out)
                next_evaluation = _next_multiple(state.steps, config.evaluation.every_steps)
            if state.steps >= next_checkpoint:
                _save_checkpoint(out, model, metadata, state, config)
                if config.ppo.magnet_coef:
                    model.refresh_magnet()
                _start_games_afresh(model, config, state.steps)
                next_checkpoint = _next_multiple(state.steps, config.checkpoint_every_steps)
    vec_env.close()

    # 4. Final artefacts: policy, checkpoint, evaluation table, learning curve.
    policy_path = save_policy(out / POLICY_FILE, model.policy, _with_steps(metadata, state.steps))
    write_atomically(out / "policy.json",
                     json.dumps(_with_steps(metadata, state.steps).as_file_fields(), indent=1))
    _save_checkpoint(out, model, metadata, state, config)
    train_seconds = time.perf_counter() - started
    table = final_evaluation(config, policy_path, progress)
    # PPO's own pace: steps learnt in this run per second in model.learn (rollouts and updates,
    # not start-up, evaluations or checkpoints).
    ppo_steps_per_second = (state.steps - first_step) / learn_seconds if learn_seconds else 0.0
    write_table(table, out, {"steps": state.steps, "train_seconds": round(train_seconds, 1),
                             "ppo_steps_per_second": round(ppo_steps_per_second, 1),
                             "policy": str(policy_path)})
    write_learning_curve(state.history + [{"steps": state.steps, **row} for row in table], out)
    print(format_table(table, config, state.steps, train_seconds))
    return table


def make_model(config: TrainConfig, vec_env: VecEnv,
               tensorboard_log: str | None = None) -> ScaledGroupsPPO:
    """A fresh MaskablePPO learner of the config's network on ``vec_env``."""
    shape = config.network_shape()
    policy_class, policy_kwargs = policy_class_and_kwargs(
        shape, make_encoder(config.game, config.num_players, config.game_options))
    ppo = dataclasses.asdict(config.ppo)
    scorer_lr_scale = ppo.pop("scorer_lr_scale")
    critic_warmup_steps = ppo.pop("critic_warmup_steps")
    group_baseline = ppo.pop("group_baseline")
    branch_advantages = ppo.pop("branch_advantages")
    branch_from_play = ppo.pop("branch_from_play")
    ent_coef_final = ppo.pop("ent_coef_final")
    magnet_coef = ppo.pop("magnet_coef")
    if policy_class is ActionScorerPolicy:
        policy_kwargs["scorer_lr_scale"] = scorer_lr_scale
    ppo["learning_rate"] = learning_rate_schedule(config)
    del ppo["learning_rate_schedule"]
    return ScaledGroupsPPO(
        policy_class, vec_env, run_steps=config.total_steps, seed=config.seed, verbose=0,
        tensorboard_log=tensorboard_log,
        policy_kwargs={**mlp_kwargs(shape), **policy_kwargs},
        critic_warmup_steps=critic_warmup_steps, group_baseline=group_baseline,
        branch_advantages=branch_advantages, branch_from_play=branch_from_play,
        ent_coef_final=ent_coef_final, magnet_coef=magnet_coef, **ppo)


def learning_rate_schedule(config: TrainConfig) -> float | LinearSchedule:
    """``ppo.learning_rate_schedule`` as SB3 takes it: a constant, or the rate as a function
    of the progress remaining (1 at step 0, 0 at ``total_steps``)."""
    if config.ppo.learning_rate_schedule == "linear":
        return LinearSchedule(config.ppo.learning_rate, 0.0, end_fraction=1.0)
    return config.ppo.learning_rate


# Observations per forward pass when the learner scores whole rollouts' worth of positions.
LOGIT_CHUNK = 4096


class ScaledGroupsPPO(MaskablePPO):
    """MaskablePPO for a run of ``run_steps`` learner steps whose optimizer groups may scale
    the learning rate: SB3 sets every group to the schedule's rate before each update, then a
    group's ``lr_scale`` (if any) multiplies it (``ppo.scorer_lr_scale``). Until
    ``critic_warmup_steps`` steps are done, an update trains the value network alone
    (``ppo.critic_warmup_steps``). With ``group_baseline`` K >= 2 (the env's slots in deal groups
    of K, ``ppo.group_baseline``), every advantage is the leave-one-out difference of returns
    within its group (:func:`leave_one_out_advantages`); the critic still learns the returns.
    With ``branch_advantages`` every advantage comes from two branches of its own decision on
    the same deal (:meth:`branched_advantages`, ``ppo.branch_advantages``), for the decisions
    made once ``branch_from_play`` plays of their game are made (``ppo.branch_from_play``).
    With ``ent_coef_final`` the entropy bonus of each update lies on the line from ``ent_coef``
    at step 0 to it at ``run_steps`` (``ppo.ent_coef_final``). With ``magnet_coef`` each
    reward pays for the learner's distance from its magnet (:meth:`pull_toward_magnet`,
    ``ppo.magnet_coef``), which the trainer sets with :meth:`refresh_magnet`."""

    def __init__(self, *args: Any, run_steps: int, critic_warmup_steps: int = 0,
                 group_baseline: int = 0, branch_advantages: bool = False,
                 branch_from_play: int = 0, ent_coef_final: float | None = None,
                 magnet_coef: float = 0.0, **kwargs: Any):
        self.run_steps = run_steps
        self.critic_warmup_steps = critic_warmup_steps
        self.group_baseline = group_baseline
        self.branch_advantages = branch_advantages
        self.branch_from_play = branch_from_play
        self.ent_coef_final = ent_coef_final
        self.magnet_coef = magnet_coef
        super().__init__(*args, **kwargs)
        self.ent_coef_start = self.ent_coef
        self.magnet: Any = None

    def collect_rollouts(self, env: VecEnv, callback: BaseCallback, rollout_buffer: Any,
                         n_rollout_steps: int, use_masking: bool = True) -> bool:
        if self.branch_advantages:
            env.record_decisions()
        complete = super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps,
                                            use_masking)
        if complete and self.magnet_coef:
            self.pull_toward_magnet(rollout_buffer)
        if complete and self.branch_advantages:
            rollout_buffer.advantages = self.branched_advantages(env, rollout_buffer)
        if complete and self.group_baseline:
            check_whole_group_games(rollout_buffer.episode_starts, self._last_episode_starts,
                                    self.group_baseline)
            # With gamma = lambda = 1 and whole games, SB3's returns are the returns to go.
            rollout_buffer.advantages = leave_one_out_advantages(rollout_buffer.returns,
                                                                 self.group_baseline)
        return complete

    def branched_advantages(self, env: VecEnv, rollout_buffer: Any) -> np.ndarray:
        """(steps, envs) advantages of the rollout's decisions, each from two branches of the
        decision on its own deal: the outcome of the action played minus that of a second
        action drawn from the same policy, both played on to the end of the game by the
        policy's argmax against the game's opponents with their random streams of the moment
        (the env's ``branch_returns``). The deal's cards and the opponents' draws are the
        same in both, so only the two actions (and what the argmax makes of them) tell the
        outcomes apart; the second draw is independent of the first, so the difference is an
        unbiased estimate of the action's advantage over the policy's average action, under
        the argmax continuation that every evaluation plays. Where both draws agree it is 0,
        with no branch played, and so it is for the decisions made before ``branch_from_play``
        plays of their game. The second draws are seeded by the run's seed and step count, so
        a resumed run draws what the uninterrupted one drew."""
        steps, envs = rollout_buffer.advantages.shape
        observations = rollout_buffer.observations.reshape(steps * envs, -1)
        masks = rollout_buffer.action_masks.reshape(steps * envs, -1).astype(bool)
        taken = rollout_buffer.actions.reshape(steps * envs).astype(np.int64)
        rng = np.random.default_rng([self.seed or 0, self.num_timesteps])
        others = choose_actions(self._logits(observations), masks, 1.0, rng)
        late = env.recorded_plays().reshape(-1) >= self.branch_from_play
        differ = np.flatnonzero((others != taken) & late)
        at_step, in_game = np.divmod(differ, envs)
        outcomes = env.branch_returns(
            np.tile(at_step, 2), np.tile(in_game, 2),
            np.concatenate([taken[differ], others[differ]]),
            lambda branch_observations, branch_masks: choose_actions(
                self._logits(branch_observations), branch_masks.astype(bool), 0.0, rng))
        advantages = np.zeros(steps * envs, np.float32)
        advantages[differ] = outcomes[: differ.size] - outcomes[differ.size:]
        self.logger.record("train/branch_advantage_nonzero",
                           np.count_nonzero(advantages) / advantages.size)
        return advantages.reshape(steps, envs)

    def refresh_magnet(self) -> None:
        """The magnet becomes a frozen copy of the learner as it is now."""
        if self.magnet is None:
            self.magnet = copy.deepcopy(self.policy)
            self.magnet.set_training_mode(False)
            self.magnet.requires_grad_(False)
        self.magnet.load_state_dict(self.policy.state_dict())

    def pull_toward_magnet(self, rollout_buffer: Any) -> None:
        """Regularised Nash dynamics' reward transform (Perolat et al., 2021; DeepNash): each
        reward less ``magnet_coef`` times log(pi(a|s) / magnet(a|s)) of the action taken, pi
        the policy that chose it, then the returns and advantages again from the new rewards.
        In expectation a step pays ``magnet_coef`` times the KL from the policy to the magnet:
        the learner best-responds in a game regularised toward the magnet, and as the magnet
        follows the learner the regularised game's equilibrium moves toward the game's own."""
        if self.magnet is None:
            raise RuntimeError("ppo.magnet_coef: refresh_magnet() sets the magnet before the "
                               "first rollout")
        steps, envs = rollout_buffer.rewards.shape
        magnet_log_probs = self._log_probs(
            self.magnet, rollout_buffer.observations.reshape(steps * envs, -1),
            rollout_buffer.action_masks.reshape(steps * envs, -1),
            rollout_buffer.actions.reshape(steps * envs))
        log_ratios = rollout_buffer.log_probs - magnet_log_probs.reshape(steps, envs)
        rollout_buffer.rewards -= self.magnet_coef * log_ratios
        self.logger.record("train/magnet_kl", float(log_ratios.mean()))
        with torch.no_grad():
            last_values = self.policy.predict_values(
                torch.as_tensor(self._last_obs, device=self.device))
        rollout_buffer.compute_returns_and_advantage(last_values=last_values,
                                                     dones=self._last_episode_starts)

    def _log_probs(self, network: Any, observations: np.ndarray, masks: np.ndarray,
                   actions: np.ndarray) -> np.ndarray:
        """``network``'s masked log-probabilities of ``actions`` at a batch of encoded
        observations."""
        return self._in_chunks(lambda rows: network.get_distribution(
            torch.as_tensor(observations[rows], device=self.device),
            action_masks=masks[rows]).log_prob(torch.as_tensor(actions[rows], device=self.device)),
            len(observations))

    def _logits(self, observations: np.ndarray) -> np.ndarray:
        """The policy's unmasked action logits of a batch of encoded observations."""
        return self._in_chunks(lambda rows: self.policy.get_distribution(
            torch.as_tensor(observations[rows], device=self.device)).distribution.logits,
            len(observations))

    @staticmethod
    def _in_chunks(score: Any, rows: int) -> np.ndarray:
        """``score(slice)`` over ``rows`` rows, LOGIT_CHUNK at a time without gradients, the
        results joined as one array."""
        with torch.no_grad():
            return torch.cat([score(slice(start, start + LOGIT_CHUNK)).cpu()
                              for start in range(0, rows, LOGIT_CHUNK)]).numpy()

    def _update_current_progress_remaining(self, num_timesteps: int,
                                           total_timesteps: int) -> None:
        # SB3 measures progress to the end of the current learn() call, which the trainer
        # makes once per evaluation or checkpoint (and afresh after a resume); a schedule runs
        # over the whole run instead.
        super()._update_current_progress_remaining(num_timesteps, self.run_steps)

    def _update_learning_rate(self, optimizers: Any) -> None:
        super()._update_learning_rate(optimizers)
        for group in self.policy.optimizer.param_groups:
            group["lr"] *= group.get("lr_scale", 1.0)

    def train(self) -> None:
        if self.critic_warmup_steps:
            # Frozen parameters get no gradient, and Adam leaves a parameter without one as it
            # is.
            warming_up = self.num_timesteps <= self.critic_warmup_steps
            for parameter in logit_parameters(self.policy):
                parameter.requires_grad_(not warming_up)
        if self.ent_coef_final is not None:
            done = min(self.num_timesteps / self.run_steps, 1.0)
            self.ent_coef = self.ent_coef_start + (self.ent_coef_final - self.ent_coef_start) * done
        super().train()


def leave_one_out_advantages(returns: np.ndarray, group_size: int) -> np.ndarray:
    """(steps, envs) advantages: each step's return minus the mean return of the other
    ``group_size - 1`` slots of its group (slots gK .. gK + K - 1) at the same step. The other
    copies played the same deal apart from this slot's own choices, so the baseline is free of
    the deal's luck and, drawn independently of them, leaves the policy gradient unbiased."""
    steps, envs = returns.shape
    grouped = returns.reshape(steps, envs // group_size, group_size)
    others = (grouped.sum(axis=2, keepdims=True) - grouped) / (group_size - 1)
    return (grouped - others).reshape(steps, envs).astype(returns.dtype)


def check_whole_group_games(episode_starts: np.ndarray, last_dones: np.ndarray,
                            group_size: int) -> None:
    """Refuse a rollout whose games are not whole, or whose copies of a deal fell out of step:
    the group baseline compares their returns step by step."""
    if not (episode_starts[0].all() and last_dones.all()):
        raise RuntimeError("ppo.group_baseline: a rollout did not start and end with whole games "
                           "in every slot")
    grouped = episode_starts.reshape(len(episode_starts), -1, group_size)
    if not (grouped == grouped[:, :, :1]).all():
        raise RuntimeError("ppo.group_baseline: the copies of a deal did not start their games "
                           "on the same steps")


def logit_parameters(network: Any) -> list[torch.nn.Parameter]:
    """The parameters that the action logits depend on (whatever the value also reads), found
    by differentiating the logits of one observation."""
    observation = torch.zeros((1, *network.observation_space.shape))
    parameters = list(network.parameters())
    with torch.enable_grad():
        was_required = [p.requires_grad for p in parameters]
        for parameter in parameters:
            parameter.requires_grad_(True)
        logits = network.get_distribution(observation).distribution.logits
        gradients = torch.autograd.grad(logits.sum(), parameters, allow_unused=True)
        for parameter, required in zip(parameters, was_required, strict=True):
            parameter.requires_grad_(required)
    return [p for p, g in zip(parameters, gradients, strict=True) if g is not None]


def start_from(network: Any, config: TrainConfig, start: str) -> None:
    """Load the weights of the policy ``start`` (``network.start``, checked by the config to
    fit, or the policy of ``network.start_recipe``) into the fresh network: all of them, or a
    default-mode scorer's into a full-decision network's daily picks and value."""
    weights = make_policy(start, config.game, config.num_players).torch_network().state_dict()
    try:
        if isinstance(network, FullDecisionPolicy):
            network.start_from_default_decisions(weights)
        else:
            network.load_state_dict(weights, strict=True)
    except (RuntimeError, ValueError) as error:
        raise ValueError(f"the start network {start} does not fit this network: "
                         f"{error}") from error


def train_or_read_back(config: TrainConfig, progress: bool) -> Path:
    """Train ``config`` (from its newest checkpoint, if it has one), unless its policy file
    says it finished; its run folder."""
    out = Path(config.out)
    if not (out / POLICY_FILE).is_file():
        train(config, resume=out if has_checkpoint(out) else None, progress=progress)
    return out


def fit_endgame_start(config: TrainConfig, policy: Any, out: Path, progress: bool) -> None:
    """Fit the network's endgame head to playout values of positions after the last draw
    (``training.endgame``); report to ``out/endgame.json``."""
    settings = config.endgame
    positions = endgame_positions(config.num_players, settings.positions, config.seed,
                                  config.game_options, settings.playout_opponent)
    values = play_values(config.num_players, positions, settings.deals, config.seed,
                         config.game_options, settings.workers, progress,
                         settings.playout_opponent)
    inputs = encode_positions(config.num_players, positions.observations, config.game_options,
                              settings.workers, progress)
    result = fit_endgame_head(policy, inputs, positions, values, settings.epochs,
                              settings.batch_size, settings.learning_rate, config.seed,
                              progress, settings.learning_rate_schedule)
    (out / "endgame.json").write_text(json.dumps({"deals": settings.deals,
                                                 "playout_opponent": settings.playout_opponent,
                                                 **dataclasses.asdict(result)},
                                                 indent=1))
    print(f"endgame head: fitted on {result.positions} positions, epoch "
          f"{result.best_epoch + 1} of {settings.epochs} kept; on held-out positions its plays "
          f"lose {result.held_out_regrets[result.best_epoch]:.3f} win share against the best "
          f"measured play, the forecast's {result.forecast_regret:.3f}")


# -- environments -----------------------------------------------------------------------------


def make_vec_env(config: TrainConfig) -> VecEnv:
    """``env.n_envs`` single-agent games: in this process or one process each, or (with
    ``env.batched``) all in one compiled batch."""
    if config.env.batched:
        encoder = make_encoder(config.game, config.num_players, config.game_options)
        return training_game(config.game).make_batched_vec_env(config, encoder)
    subprocess = config.env.vec_env == "subprocess"
    factories = [functools.partial(make_training_env, config, subprocess)
                 for _ in range(config.env.n_envs)]
    return SubprocVecEnv(factories) if subprocess else DummyVecEnv(factories)


def make_training_env(config: TrainConfig, in_worker: bool = False) -> Monitor:
    if in_worker:
        torch.set_num_threads(1)  # workers only run snapshot opponents, one game at a time
    view_options = ({"margin_shaping": config.env.margin_shaping}
                    if config.env.margin_shaping else {})
    if config.network.privileged_critic:
        view_options["privileged_state"] = True
    env = make_single_agent_env(config.game, config.num_players, config.game_options,
                                **view_options)
    # The pool needs the env's spaces to rebuild snapshots, hence set after construction.
    env.opponents = OpponentPool(
        config.game, config.num_players, config.opponents.weights,
        policy_metadata(config, env.observation_space, env.action_space),
        config.opponents.max_snapshots)
    return Monitor(env)


def _plays_snapshots(config: TrainConfig) -> bool:
    """Whether the envs hold a self-play pool to hand snapshots to: every reference env does;
    a batched env only in a league with ``self`` among its opponents (the config allows ``self``
    only where the game's batched env has a league)."""
    return not config.env.batched or SELF_PLAY in config.opponents.weights


def _has_league(config: TrainConfig) -> bool:
    """Whether the env holds a ``training.league.League`` whose records a checkpoint keeps."""
    return config.env.batched and training_game(config.game).league


def _start_games_afresh(model: MaskablePPO, config: TrainConfig, steps: int) -> None:
    """Reseed everything and have the next ``learn`` deal new games, exactly as a run resumed
    from the checkpoint at ``steps`` starts."""
    model.set_random_seed(config.seed + steps)
    model._last_obs = None  # SB3's _setup_learn resets the envs when it finds no observation


def _with_steps(metadata: PolicyMetadata, steps: int) -> PolicyMetadata:
    return dataclasses.replace(metadata, steps=steps)


# -- callbacks --------------------------------------------------------------------------------


class SnapshotCallback(BaseCallback):
    """Every ``opponents.snapshot_every`` PPO updates, freeze the learner into every pool."""

    def __init__(self, config: TrainConfig, state: TrainingState):
        super().__init__()
        self.every = config.opponents.snapshot_every
        self.to_envs = _plays_snapshots(config)
        self.max_snapshots = config.opponents.max_snapshots
        self.state = state

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        # Called once per collected rollout, i.e. once per PPO update that follows.
        self.state.updates += 1
        if self.state.updates % self.every == 0:
            weights = network_weights(self.model.policy)
            if self.to_envs:
                self.training_env.env_method("add_snapshot", weights)
            self.state.snapshots = (self.state.snapshots + [weights])[-self.max_snapshots:]


class ProgressCallback(BaseCallback):
    def __init__(self, bar: tqdm):
        super().__init__()
        self.bar = bar

    def _on_step(self) -> bool:
        self.bar.update(self.training_env.num_envs)
        return True


def _next_multiple(value: int, every: int) -> int:
    return (value // every + 1) * every


def _save_checkpoint(out: Path, model: MaskablePPO, metadata: PolicyMetadata,
                     state: TrainingState, config: TrainConfig) -> Path:
    if _has_league(config):
        state.league = model.get_env().env_method("league_state")[0]
    return save_checkpoint(checkpoint_folder(out, state.steps), model.policy,
                           model.policy.optimizer, _with_steps(metadata, state.steps), state,
                           config.to_dict())


# -- evaluation -------------------------------------------------------------------------------


def _log_evaluation(model: MaskablePPO, rows: list[dict[str, Any]]) -> None:
    for row in rows:
        model.logger.record(f"eval/win_share_vs_{row['opponent']}", row["win_share"])
    model.logger.dump(model.num_timesteps)


