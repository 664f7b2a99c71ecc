"""End-to-end training on a tiny config: artefacts, policy loading, resume, bad checkpoints."""

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from conftest import assert_same_weights, load_yaml
from safetensors.torch import load_file

from hunger_rl.cli import main
from hunger_rl.policies.learned import load_policy, read_metadata
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.config import config_from_dict, load_config
from hunger_rl.training.outputs import learning_curve_figure
from hunger_rl.training.recipes import train_recipe
from hunger_rl.training.train import train

TINY = Path(__file__).with_name("tiny_hungry.yaml")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One tiny run through the command line (512 steps, two checkpoints)."""
    out = tmp_path_factory.mktemp("tiny")
    assert main(["train", str(TINY), "--out", str(out), "--no-progress"]) == 0
    return out


def test_training_writes_every_artefact(trained):
    for name in ("policy.safetensors", "policy.json", "config.yaml", "evaluation.csv",
                 "evaluation.json", "learning_curve.csv", "learning_curve.png"):
        assert (trained / name).is_file(), name
    assert list((trained / "tensorboard").rglob("events.out.tfevents.*"))
    checkpoints = sorted(p.name for p in (trained / "checkpoints").iterdir())
    assert checkpoints == ["step_000000256", "step_000000512"]
    for name in ("policy.safetensors", "optimizer.safetensors", "snapshots.safetensors",
                 "state.json"):
        assert (trained / "checkpoints" / "step_000000512" / name).is_file(), name
    summary = json.loads((trained / "evaluation.json").read_text())
    assert summary["steps"] == 512
    # PPO's pace leaves out the start-up, the evaluations and the checkpoints.
    assert summary["ppo_steps_per_second"] > summary["steps"] / summary["train_seconds"]
    assert [row["opponent"] for row in summary["rows"]] == ["random", "greedy"]
    for row in summary["rows"]:
        assert 0 <= row["ci_low"] <= row["win_share"] <= row["ci_high"] <= 1
    curve = (trained / "learning_curve.csv").read_text().splitlines()
    assert curve[0] == "steps,opponent,games,win_share,ci_low,ci_high"
    assert {line.split(",")[0] for line in curve[1:]} == {"256", "512"}


def test_saved_policy_is_a_policy_spec(trained):
    path = str(trained / "policy.safetensors")
    policy = make_policy(path, "hungry", 2)
    assert read_metadata(path).steps == 512
    from hunger_rl.envs.hungry_v0 import raw_env

    game_env = raw_env(num_players=2)
    game_env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not game_env.game.is_over:
        observation = game_env.observe(game_env.agent_selection)
        action = policy.act(observation, rng)
        assert observation["action_mask"][action]
        game_env.step(action)


def test_policy_for_another_game_or_player_count_is_refused(trained):
    with pytest.raises(ValueError, match="hungry with 2 players, not for hungry with 3"):
        load_policy(trained / "policy.safetensors", game="hungry", num_players=3)
    with pytest.raises(ValueError, match="not for hunger_show"):
        load_policy(trained, game="hunger_show", num_players=2)


def test_corrupt_policy_file_is_a_clear_error(trained, tmp_path):
    corrupt = tmp_path / "policy.safetensors"
    corrupt.write_bytes((trained / "policy.safetensors").read_bytes()[:200])
    with pytest.raises(ValueError, match="not a readable policy file"):
        load_policy(corrupt, game="hungry", num_players=2)
    not_a_policy = tmp_path / "notes.safetensors"
    not_a_policy.write_text("hello")
    with pytest.raises(ValueError, match="not a readable policy file"):
        load_policy(not_a_policy, game="hungry", num_players=2)


def test_resume_continues_the_step_count(trained, tmp_path):
    config = load_config(TINY).replace(out=str(tmp_path), total_steps=768)
    table = train(config, resume=trained / "checkpoints" / "step_000000256", progress=False)
    summary = json.loads((tmp_path / "evaluation.json").read_text())
    assert summary["steps"] == 768
    assert len(table) == 2
    # The history before the checkpoint is kept; the run resumed at 256, not at 0.
    state = json.loads((tmp_path / "checkpoints" / "step_000000768" / "state.json").read_text())
    assert [entry["steps"] for entry in state["history"]][:2] == [256, 256]
    assert not (tmp_path / "checkpoints" / "step_000000256").exists()


def test_resume_from_a_run_folder_takes_its_newest_complete_checkpoint(trained, tmp_path,
                                                                      capsys):
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    newest = run / "checkpoints" / "step_000000512"
    (newest / "state.json").write_text((newest / "state.json").read_text()[:100])
    config = load_config(TINY).replace(out=str(run), total_steps=768)
    train(config, resume=run, progress=False)
    out = capsys.readouterr().out
    assert f"resume: skipping {newest}: corrupt" in out
    assert f"resume: from {run / 'checkpoints' / 'step_000000256'}" in out
    state = json.loads((run / "checkpoints" / "step_000000768" / "state.json").read_text())
    assert [entry["steps"] for entry in state["history"]][:2] == [256, 256]


def test_resume_from_a_mismatched_checkpoint_is_refused(trained, tmp_path):
    config = load_config(TINY).replace(out=str(tmp_path), num_players=3)
    with pytest.raises(ValueError, match="num_players is 2 there, 3 here"):
        train(config, resume=trained / "checkpoints" / "step_000000512", progress=False)


def test_resume_from_a_corrupt_checkpoint_is_refused(trained, tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    source = trained / "checkpoints" / "step_000000512"
    for item in source.iterdir():
        (broken / item.name).write_bytes(item.read_bytes())
    (broken / "optimizer.safetensors").write_bytes(b"\x00" * 10)
    config = load_config(TINY).replace(out=str(tmp_path / "out"))
    with pytest.raises(ValueError, match="is corrupt"):
        train(config, resume=broken, progress=False)
    with pytest.raises(ValueError, match="not a training checkpoint"):
        train(config, resume=tmp_path, progress=False)


def test_a_one_point_learning_curve_shows_its_point_and_interval():
    history = [{"steps": 4096, "opponent": "expert", "games": 200, "win_share": 0.6,
                "ci_low": 0.5, "ci_high": 0.7}]
    axes = learning_curve_figure(history).axes[0]
    (line,) = axes.lines[:1]
    assert line.get_xydata().tolist() == [[4096, 0.6]]
    low, high = axes.get_xlim()
    assert low <= 0 < 4096 < high
    (bars,) = axes.collections  # the error bar of the interval
    np.testing.assert_allclose(bars.get_segments()[0], [[4096, 0.5], [4096, 0.7]])


# Subprocess envs cost a few interpreter starts: that variant runs with the slow checks.
@pytest.mark.parametrize("vec_env", ["dummy", pytest.param("subprocess", marks=pytest.mark.slow)])
def test_the_same_config_and_seed_train_the_same_policy(trained, tmp_path, vec_env):
    """A second run of the tiny config (its games in ``vec_env``) without the evaluation the
    first made in this process halfway, which loaded a policy there, trains bit-identical
    weights and scores them the same (docs/architecture.md, Reproducibility)."""
    config = load_config(TINY)
    config = config.replace(
        out=str(tmp_path / "again"),
        env=dataclasses.replace(config.env, vec_env=vec_env),
        evaluation=dataclasses.replace(config.evaluation, every_steps=config.total_steps))
    train(config, progress=False)
    first = load_file(str(trained / "policy.safetensors"))
    second = load_file(str(tmp_path / "again" / "policy.safetensors"))
    assert first.keys() == second.keys()
    for name, tensor in first.items():
        assert torch.equal(tensor, second[name]), name
    rows = [json.loads((out / "evaluation.json").read_text())["rows"]
            for out in (trained, tmp_path / "again")]
    assert rows[0] == rows[1]


def test_a_run_killed_after_a_checkpoint_resumes_as_the_uninterrupted_run(
        trained, tmp_path, train_killed_and_resumed):
    """After each checkpoint the trainer reseeds and deals afresh as a resume from it does, so
    the run killed there and resumed trains the uninterrupted run's weights."""
    config = load_config(TINY).replace(out=str(tmp_path / "killed"))
    train_killed_and_resumed(config)
    assert_same_weights(trained / "policy.safetensors",
                        tmp_path / "killed" / "policy.safetensors")


def test_evaluation_reads_a_rewritten_policy_file(trained, tmp_path):
    """A run rewrites policy.safetensors before each evaluation; an evaluation in this
    process plays the file as it is now, not a policy cached from the last one."""
    from hunger_rl.arena.evaluation import evaluate

    def outcomes(path):
        result = evaluate("hungry", 2, [str(path), "greedy"], games=16, seed=5, progress=False)
        return [(record.win_shares, record.scores) for record in result.records]

    earlier = trained / "checkpoints" / "step_000000256" / "policy.safetensors"
    path = tmp_path / "policy.safetensors"
    shutil.copy(trained / "policy.safetensors", path)
    final = outcomes(path)
    shutil.copy(earlier, path)
    assert outcomes(path) == outcomes(earlier) != final


def test_a_gained_mlp_trains_keeps_its_gain_and_refuses_another_on_resume(tmp_path):
    """``network.action_value_gain`` reaches the trained policy file, which plays with it, and a
    checkpoint of one gain does not resume a run of another."""
    from hunger_rl.training.config import config_from_dict

    raw = {"game": "hungry", "num_players": 2, "seed": 1, "total_steps": 128,
           "checkpoint_every_steps": 128, "out": str(tmp_path / "gained"),
           "env": {"n_envs": 2, "batched": True}, "ppo": {"n_steps": 32, "batch_size": 64},
           "network": {"hidden": [16, 16], "action_value_gain": 10},
           "opponents": {"weights": {"greedy": 1.0}},
           "evaluation": {"every_steps": 128, "games": 2, "opponents": ["random"],
                          "final_games": 2}}
    config = config_from_dict(raw)
    train(config, progress=False)
    assert read_metadata(tmp_path / "gained" / "policy.safetensors").action_value_gain == 10.0
    gained = load_policy(tmp_path / "gained", "hungry", 2).torch_network()
    assert gained.features_extractor.gains.max() == 10.0
    other = config.replace(out=str(tmp_path / "other"),
                           network=dataclasses.replace(config.network, action_value_gain=1.0))
    with pytest.raises(ValueError, match="action_value_gain is 10.0 there, 1.0 here"):
        train(other, resume=tmp_path / "gained" / "checkpoints" / "step_000000128",
              progress=False)


def test_the_entropy_bonus_falls_on_its_line_and_a_resumed_model_continues_it():
    """ppo.ent_coef_final: each update's bonus lies on the line from ent_coef at step 0 to the
    final value at total_steps (four rollouts of 128 steps here), by the learner's steps, so a
    model rebuilt at a later step count picks up the line where it was."""
    from hunger_rl.training.config import config_from_dict
    from hunger_rl.training.train import make_model, make_vec_env

    config = config_from_dict({
        "game": "hungry", "num_players": 2, "seed": 5, "total_steps": 512, "torch_threads": 1,
        "env": {"n_envs": 4, "batched": True}, "opponents": {"weights": {"expert": 1.0}},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "ent_coef": 0.2,
                "ent_coef_final": 0.04}})
    model = make_model(config, make_vec_env(config))
    bonuses = []
    for _ in range(3):
        model.learn(total_timesteps=128, reset_num_timesteps=False)
        bonuses.append(model.ent_coef)
    # The update after 128, 256 and 384 steps: 0.2 - 0.16 x (steps / 512).
    assert bonuses == pytest.approx([0.16, 0.12, 0.08])
    resumed = make_model(config, make_vec_env(config))
    resumed.num_timesteps = 384
    resumed.learn(total_timesteps=128, reset_num_timesteps=False)
    assert resumed.ent_coef == pytest.approx(0.04)
    constant = make_model(dataclasses.replace(
        config, ppo=dataclasses.replace(config.ppo, ent_coef_final=None)), make_vec_env(config))
    constant.learn(total_timesteps=128)
    assert constant.ent_coef == 0.2


def _magnet_rollout(magnet_coef: float):
    """One rollout of a tiny HUNGER learner (seed 5) whose magnet is its start moved by fixed
    noise, and the model that collected it."""
    from hunger_rl.training.config import config_from_dict
    from hunger_rl.training.train import make_model, make_vec_env

    config = config_from_dict({
        "game": "hunger_show", "num_players": 2, "seed": 5, "total_steps": 256,
        "torch_threads": 1, "env": {"n_envs": 8, "batched": True},
        "opponents": {"weights": {"expert": 1.0}},
        "network": {"hidden": [32, 32], "action_scorer": False},
        "ppo": {"n_steps": 16, "batch_size": 64, "n_epochs": 1, "gae_lambda": 0.9,
                "magnet_coef": magnet_coef}})
    model = make_model(config, make_vec_env(config))
    model.refresh_magnet()
    noise = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for parameter in model.magnet.parameters():
            parameter.add_(0.3 * torch.randn(parameter.shape, generator=noise))
    model._setup_learn(128, None)
    model.collect_rollouts(model.env, model._init_callback(None), model.rollout_buffer, 16)
    return model, model.rollout_buffer


def test_the_magnet_charges_each_reward_its_log_ratio_and_the_advantages_follow():
    """ppo.magnet_coef: the same rollout (the penalty changes no action) with each reward less
    the coefficient times log pi(a|s) - log magnet(a|s), the magnet's log-probabilities
    computed here from its masked distribution, and GAE's advantages recomputed by hand from
    the new rewards and the critic's values."""
    _, plain = _magnet_rollout(0.0)
    model, pulled = _magnet_rollout(0.5)
    np.testing.assert_array_equal(pulled.actions, plain.actions)
    np.testing.assert_array_equal(pulled.log_probs, plain.log_probs)
    steps, envs = pulled.rewards.shape
    with torch.no_grad():
        _, magnet_log_probs, _ = model.magnet.evaluate_actions(
            torch.as_tensor(pulled.observations.reshape(steps * envs, -1)),
            torch.as_tensor(pulled.actions.reshape(-1)),
            action_masks=pulled.action_masks.reshape(steps * envs, -1))
    log_ratios = pulled.log_probs - magnet_log_probs.numpy().reshape(steps, envs)
    assert np.abs(log_ratios).max() > 0.01  # the magnet is not the policy
    np.testing.assert_allclose(pulled.rewards, plain.rewards - 0.5 * log_ratios, atol=1e-6)
    with torch.no_grad():
        last_values = model.policy.predict_values(torch.as_tensor(model._last_obs)).numpy()[:, 0]
    advantages, running = np.zeros((steps, envs)), np.zeros(envs)
    for step in reversed(range(steps)):
        if step == steps - 1:
            follows, next_values = 1.0 - model._last_episode_starts, last_values
        else:
            follows, next_values = 1.0 - pulled.episode_starts[step + 1], pulled.values[step + 1]
        delta = pulled.rewards[step] + follows * next_values - pulled.values[step]
        running = delta + 0.9 * follows * running
        advantages[step] = running
    np.testing.assert_allclose(pulled.advantages, advantages, atol=1e-5)
    np.testing.assert_allclose(pulled.returns, advantages + pulled.values, atol=1e-5)


def test_a_magnet_run_killed_after_a_checkpoint_resumes_as_the_uninterrupted_run(
        trained, tmp_path, train_killed_and_resumed):
    """The magnet is the learner at its last checkpoint, which a resume loads: the tiny run with
    a magnet, killed after its first checkpoint and resumed, trains the uninterrupted run's
    weights, and they differ from the run without one."""
    config = load_config(TINY)
    config = config.replace(ppo=dataclasses.replace(config.ppo, magnet_coef=0.5))
    train(config.replace(out=str(tmp_path / "whole")), progress=False)
    train_killed_and_resumed(config.replace(out=str(tmp_path / "killed")))
    assert_same_weights(tmp_path / "whole" / "policy.safetensors",
                        tmp_path / "killed" / "policy.safetensors")
    plain = load_file(str(trained / "policy.safetensors"))
    pulled = load_file(str(tmp_path / "whole" / "policy.safetensors"))
    assert any(not torch.equal(plain[name], pulled[name]) for name in plain)


def test_a_magnet_with_advantages_of_their_own_is_refused():
    with pytest.raises(ValueError, match="ppo.magnet_coef changes the rewards"):
        config_from_dict({"game": "hungry", "num_players": 2, "env": {"batched": True},
                          "opponents": {"weights": {"expert": 1.0}},
                          "ppo": {"magnet_coef": 0.1, "branch_advantages": True}})


def test_a_start_recipe_trains_the_start_first_and_the_run_continues_from_its_policy(
        trained, tmp_path):
    """``network.start_recipe`` trains its config into OUT/start (the tiny run's weights), then
    the run starts from that policy, as a run naming the policy in ``network.start`` does; a
    resume of a run stopped before its own first checkpoint begins the run, keeping the start."""
    raw = load_yaml(TINY)
    continued = {**raw, "total_steps": 256, "seed": 4}
    recipe = tmp_path / "continued.yaml"
    recipe.write_text(yaml.safe_dump({**continued, "network": {
        **raw["network"], "start_recipe": str(TINY)}}, sort_keys=False))
    out = tmp_path / "from_recipe"
    assert main(["train", str(recipe), "--out", str(out), "--no-progress"]) == 0
    assert_same_weights(trained / "policy.safetensors", out / "start" / "policy.safetensors")
    named = config_from_dict({**continued, "out": str(tmp_path / "named"), "network": {
        **raw["network"], "start": str(trained / "policy.safetensors")}})
    train(named, progress=False)
    assert_same_weights(out / "policy.safetensors", tmp_path / "named" / "policy.safetensors")
    for path in [out / "checkpoints", out / "policy.safetensors"]:
        shutil.rmtree(path) if path.is_dir() else path.unlink()
    assert main(["train", str(recipe), "--out", str(out), "--resume", str(out),
                 "--no-progress"]) == 0
    assert_same_weights(tmp_path / "named" / "policy.safetensors", out / "policy.safetensors")


def test_a_start_recipe_that_does_not_fit_or_beside_a_start_network_is_refused(
        trained, tmp_path):
    raw = load_yaml(TINY)
    wider = tmp_path / "wider.yaml"
    wider.write_text(TINY.read_text().replace("hidden: [32, 32]", "hidden: [64, 64]"))
    config = config_from_dict({**raw, "out": str(tmp_path / "out"), "network": {
        **raw["network"], "start_recipe": "wider"}})
    with pytest.raises(ValueError, match=r"network.start_recipe: wider.yaml trains hungry at 2 "
                                         r"players, network \[64, 64\]"):
        train_recipe(config, resolve=lambda name: wider, progress=False)
    with pytest.raises(ValueError, match=r"network.start_recipe: cannot read config wider"):
        train_recipe(config, progress=False)  # not a file, and no resolver of config names
    with pytest.raises(ValueError, match=r"network.start_recipe 'wider': train it first"):
        train(config, progress=False)
    assert not (tmp_path / "out").exists()  # nothing trained or written
    with pytest.raises(ValueError, match="network.start_recipe trains the start network, "
                                         "network.start names one"):
        config_from_dict({**raw, "network": {**raw["network"], "start_recipe": "wider",
                                             "start": str(trained / "policy.safetensors")}})
