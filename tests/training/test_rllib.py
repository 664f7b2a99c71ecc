"""The Ray RLlib backend: observation adapters, masked module, export, config, end-to-end runs.

The tests that need Ray skip cleanly without the ``rllib`` extra; the end-to-end runs train each
game for two iterations on a local Ray instance with 2 env runners. Each start of Ray costs many
seconds of both cores, so the end-to-end runs and the snapshot check are ``slow``
(``make test-rllib`` runs the whole file); the default suite keeps the checks that start no
Ray instance (adapters, masked module export, lineup, config).
"""

import importlib.util
import json
import sys

import numpy as np
import pytest
import yaml

from hunger_rl.cli import main
from hunger_rl.training.config import config_from_dict

needs_ray = pytest.mark.skipif(importlib.util.find_spec("ray") is None,
                               reason="needs the rllib extra: pip install 'hunger-rl[rllib]'")

TINY = {
    "seed": 3,
    "total_steps": 400,
    "network": {"hidden": [32, 32]},
    "ppo": {"n_epochs": 2},
    "opponents": {"snapshot_every": 1, "max_snapshots": 2},
    "evaluation": {"every_steps": 200, "games": 4, "opponents": ["random"], "final_games": 8,
                   "workers": 1},
    "backend": "rllib",
    "rllib": {"num_env_runners": 2, "train_batch_size": 400, "minibatch_size": 200},
}
GAMES = {
    "hungry": {"game": "hungry", "num_players": 2,
               "opponents": {"weights": {"self": 0.5, "random": 0.3, "greedy": 0.2}}},
    "hunger_show": {"game": "hunger_show", "num_players": 4,
                    "opponents": {"weights": {"self": 0.4, "random": 0.2, "greedy": 0.2,
                                              "expert": 0.2}}},
}


def tiny_config(game: str, out) -> dict:
    config = {**TINY, **GAMES[game], "out": str(out)}
    config["opponents"] = {**TINY["opponents"], **GAMES[game]["opponents"]}
    return config


# -- config ------------------------------------------------------------------------------------


def test_rllib_section_defaults_and_values():
    config = config_from_dict({"game": "hungry", "num_players": 2})
    assert config.backend == "sb3"
    assert config.rllib.address is None and config.rllib.num_env_runners == 2
    config = config_from_dict({"game": "hungry", "num_players": 2, "backend": "rllib",
                               "rllib": {"address": "auto", "num_env_runners": 0}})
    assert (config.rllib.address, config.rllib.num_env_runners) == ("auto", 0)


@pytest.mark.parametrize(("changes", "message"), [
    ({"backend": "tensorflow"}, "backend must be one of"),
    ({"rllib": {"workers": 2}}, "unknown key rllib.workers"),
    ({"rllib": {"address": 6379}}, "rllib.address must be a string or null"),
    ({"rllib": {"num_env_runners": -1}}, "rllib.num_env_runners must be"),
    ({"rllib": {"train_batch_size": 0}}, "rllib.train_batch_size must be"),
    ({"backend": "rllib", "rllib": {"train_batch_size": 100, "minibatch_size": 200}},
     "rllib.minibatch_size (200) must not exceed rllib.train_batch_size (100)"),
])
def test_rllib_section_errors_name_the_key(changes, message):
    with pytest.raises(ValueError) as error:
        config_from_dict({"game": "hungry", "num_players": 2, **changes})
    assert message in str(error.value)


def test_missing_extra_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    monkeypatch.delitem(sys.modules, "hunger_rl.training.rllib", raising=False)
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(tiny_config("hungry", tmp_path / "out")))
    assert main(["train", str(path), "--no-progress"]) == 2
    assert "pip install 'hunger-rl[rllib]'" in capsys.readouterr().err


# -- adapters, lineup, module ------------------------------------------------------------------


@needs_ray
def test_aec_adapter_renames_keys_and_counts_masked_actions():
    from hunger_rl.envs.hungry_v0 import IllegalActionError
    from hunger_rl.training.rllib import make_rllib_env, observation_adapter

    env = make_rllib_env({"game": "hungry", "num_players": 2, "game_options": {}})
    observations, _ = env.reset(seed=0)
    (agent, observation), = observations.items()
    assert set(observation) == {"observations", "action_mask"}
    assert observation["action_mask"].dtype == np.float32
    assert env.observation_space[agent].contains(observation)
    audit = observation_adapter(env).mask_audit
    legal = int(np.flatnonzero(observation["action_mask"])[0])
    next_observations, *_ = env.step({agent: legal})
    assert (audit.actions_sent, audit.masked_actions_sent) == (1, 0)
    (mover, observation), = next_observations.items()
    masked = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):  # the game refuses it; the audit saw it first
        env.step({mover: masked})
    assert audit.take() == (2, 1)
    assert audit.take() == (0, 0)


@needs_ray
def test_parallel_adapter_renames_keys_and_counts_masked_actions():
    from hunger_rl.envs.hunger_show_v0 import IllegalActionError
    from hunger_rl.training.rllib import make_rllib_env, observation_adapter

    env = make_rllib_env({"game": "hunger_show", "num_players": 4, "game_options": {}})
    observations, _ = env.reset(seed=0)
    assert len(observations) == 4
    for agent, observation in observations.items():
        assert set(observation) == {"observations", "action_mask"}
        assert env.observation_space[agent].contains(observation)
    audit = observation_adapter(env).mask_audit
    legal = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}
    env.step(legal)
    assert audit.take() == (4, 0)
    masked = np.flatnonzero(observations["player_0"]["action_mask"] == 0)
    with pytest.raises(IllegalActionError):  # the game refuses it; the audit saw it first
        env.step({**legal, "player_0": int(masked[0])})
    assert audit.take() == (4, 1)


@needs_ray
def test_lineup_puts_one_learner_per_episode_and_is_stable():
    from hunger_rl.training.rllib import LEARNER, EpisodeLineup

    lineup = EpisodeLineup(num_players=4, specs=("self", "random", "expert"),
                           weights=(0.5, 0.25, 0.25), num_snapshots=3, seed=0)
    seen = set()
    for episode in range(200):
        modules = lineup.lineup(f"episode-{episode}")
        assert modules == lineup.lineup(f"episode-{episode}")
        assert modules.count(LEARNER) == 1
        for seat, module in enumerate(modules):
            assert module in (LEARNER, "snapshot_0", "snapshot_1", "snapshot_2",
                              f"baseline_1_seat_{seat}", f"baseline_2_seat_{seat}")
        seen.update(modules)
        seen.add(("learner seat", modules.index(LEARNER)))
    assert {("learner seat", s) for s in range(4)} <= seen
    assert {"snapshot_0", "snapshot_1", "snapshot_2"} <= seen


@needs_ray
@pytest.mark.parametrize(("game", "num_players"), [("hungry", 2), ("hunger_show", 4)])
def test_masked_module_exports_to_the_same_policy(game, num_players):
    """The exported SB3 policy computes the module's logits; masked actions get none."""
    import torch
    from ray.rllib.core.columns import Columns

    from hunger_rl.policies.learned import LearnedPolicy
    from hunger_rl.training.rllib import (
        LEARNER,
        exported_policy_metadata,
        make_rllib_env,
        module_specs,
        sb3_policy_weights,
    )

    config = config_from_dict(tiny_config(game, "unused"))
    module = module_specs(config)[LEARNER].build()
    env = make_rllib_env({"game": game, "num_players": num_players, "game_options": {}})
    observations, _ = env.reset(seed=1)
    observation = next(iter(observations.values()))
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in observation.items()}}
    logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].detach().numpy()
    legal = observation["action_mask"].astype(bool)
    assert (logits[~legal] < -1e30).all()

    policy = LearnedPolicy.from_weights(exported_policy_metadata(config),
                                        sb3_policy_weights(module.state_dict()))
    exported = policy.logits([observation["observations"]])[0]
    np.testing.assert_allclose(exported[legal], logits[legal], rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module")
def local_ray():
    import ray
    from ray.tune.registry import register_env

    from hunger_rl.training.rllib import ENV_NAME, make_rllib_env

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    register_env(ENV_NAME, make_rllib_env)
    yield
    ray.shutdown()


@needs_ray
@pytest.mark.slow
def test_frozen_snapshots_survive_training_and_weight_syncs(local_ray):
    """A slot keeps the learner as frozen, while RLlib pushes weights after each iteration."""
    from hunger_rl.training.rllib import (
        LEARNER,
        algorithm_config,
        freeze_snapshot,
        learner_state,
    )

    def actor_weights(state):
        return {k: np.asarray(v) for k, v in state.items()
                if k.startswith(("encoder.actor_encoder", "pi.net"))}

    def on_runners(module_id):
        return algorithm.env_runner_group.foreach_env_runner(
            lambda runner: actor_weights(runner.module[module_id].get_state()),
            local_env_runner=False)

    def same(a, b):
        return all(np.array_equal(a[k], b[k]) for k in b)

    config = config_from_dict(tiny_config("hungry", "unused"))
    algorithm = algorithm_config(config).build_algo()
    try:
        freeze_snapshot(algorithm, 0)
        frozen = actor_weights(learner_state(algorithm))
        algorithm.train()
        assert all(same(weights, frozen) for weights in on_runners("snapshot_0"))
        assert not any(same(weights, frozen) for weights in on_runners(LEARNER))
        freeze_snapshot(algorithm, 1)
        latest = actor_weights(learner_state(algorithm))
        assert all(same(weights, latest) for weights in on_runners("snapshot_1"))
        assert all(same(weights, frozen) for weights in on_runners("snapshot_0"))
    finally:
        algorithm.stop()


# -- end to end --------------------------------------------------------------------------------


@needs_ray
@pytest.mark.slow
@pytest.mark.parametrize("game", ["hungry", "hunger_show"])
def test_rllib_training_respects_masks_and_writes_an_evaluable_policy(game, tmp_path):
    out = tmp_path / "run"
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(tiny_config(game, out)))
    assert main(["train", str(path), "--no-progress"]) == 0

    for name in ("policy.safetensors", "policy.json", "config.yaml", "evaluation.csv",
                 "evaluation.json", "learning_curve.csv", "learning_curve.png"):
        assert (out / name).is_file(), name
    summary = json.loads((out / "evaluation.json").read_text())
    assert summary["backend"] == "rllib" and summary["iterations"] >= 1
    assert summary["steps"] >= TINY["total_steps"]
    # Every action the env runners sent went through the audit, and none was masked.
    assert summary["masked_actions_sent"] == 0
    assert summary["actions_sent"] >= summary["env_steps"] > 0
    if game == "hungry":  # turn-based: one action per env step
        assert summary["actions_sent"] == summary["env_steps"]
    assert [row["opponent"] for row in summary["rows"]] == ["random"]

    num_players = GAMES[game]["num_players"]
    assert main(["evaluate", "--game", game, "--players", str(num_players), "--policies",
                 str(out / "policy.safetensors"), "random", "--games", "8", "--workers", "1",
                 "--no-progress"]) == 0

