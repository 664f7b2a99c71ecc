"""The action-scorer network: it starts as its prior's player (Hungry's forecast, HUNGER's crowd
values), trains, and round-trips a file."""

import numpy as np
import pytest
import torch

from hunger_rl.engines.hungry.batched import BatchedHungry
from hunger_rl.envs import hunger_show_v0
from hunger_rl.policies import hunger_show
from hunger_rl.policies.hungry_batched import BatchedPolicy
from hunger_rl.policies.learned import (
    LearnedPolicy,
    PolicyMetadata,
    build_network,
    load_policy,
    network_weights,
)
from hunger_rl.policies.models.encoders import (
    HUNGRY_FEATURE_SCALE,
    SHOW_VALUE_SCALE,
    make_encoder,
)
from hunger_rl.policies.models.networks import ActionScorerPolicy
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.train import make_model, make_vec_env, train

SCORER_RUN = {
    "game": "hungry", "num_players": 2, "seed": 5, "total_steps": 512,
    "checkpoint_every_steps": 512, "torch_threads": 1,
    "env": {"n_envs": 8, "batched": True},
    "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 2},
    "network": {"hidden": [32, 32], "action_scorer": True},
    "opponents": {"weights": {"forecast": 0.5, "greedy": 0.5}},
    "evaluation": {"every_steps": 512, "games": 4, "opponents": ["forecast"],
                   "final_games": 4},
}


def positions(num_players=2, games=32, moves=20):
    """Observations of the movers along random games."""
    batch = BatchedHungry(num_players, games)
    out = batch.reset(seed=11)
    moves_policy = BatchedPolicy("random", games, seed=2)
    seen = []
    for _ in range(moves):
        seen.append((out.observations.copy(), out.action_masks.astype(bool)))
        out = batch.step(moves_policy.act(batch))
    return seen


def test_an_untrained_scorer_plays_the_forecast_choice():
    """The corrections start at zero and the MLP's share of the logits is tiny, so the logits
    are the prior weight times the forecast values (in tens of points, relative to the best)."""
    metadata = PolicyMetadata("hungry", 2, make_encoder("hungry", 2).size, 50, [64, 64], "tanh",
                              features=True, action_scorer=True)
    network = build_network(metadata)
    network.ortho_init = True
    network._build(lambda _: 0.0)  # the training initialisation
    policy = LearnedPolicy.from_weights(metadata, network_weights(network))
    encoder = make_encoder("hungry", 2)
    for observations, masks in positions():
        logits = policy.logits(list(observations))
        prior = encoder.batch(observations)[:, encoder.action_features].reshape(
            len(observations), 50, -1)[:, :, 0]
        np.testing.assert_allclose(
            np.where(masks, logits, 0), np.where(masks, ActionScorerPolicy.PRIOR_WEIGHT * prior, 0),
            atol=0.1)
        chosen = np.where(masks, logits, -np.inf).argmax(axis=1)
        # The chosen play's forecast value is within 0.05 points of the best.
        assert (prior[np.arange(len(chosen)), chosen] * HUNGRY_FEATURE_SCALE > -0.05).all()


def test_scorer_run_trains_and_its_file_plays_the_same(tmp_path):
    config = config_from_dict({**SCORER_RUN, "out": str(tmp_path)})
    train(config, progress=False)
    policy = load_policy(tmp_path / "policy.safetensors", "hungry", 2)
    assert policy.metadata.action_scorer
    assert isinstance(policy.torch_network(), ActionScorerPolicy)
    observations, masks = positions()[5]
    again = load_policy(tmp_path, "hungry", 2)
    np.testing.assert_array_equal(policy.logits(list(observations)),
                                  again.logits(list(observations)))
    # Training moved the scorer away from its zero start.
    last = policy.torch_network().mlp_extractor.scorer[-1]
    assert torch.count_nonzero(last.weight) > 0


SHOW_SCORER_RUN = {
    "game": "hunger_show", "num_players": 4, "seed": 2, "total_steps": 256,
    "checkpoint_every_steps": 256, "torch_threads": 1, "env": {"n_envs": 2},
    "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 2},
    "network": {"hidden": [32, 32], "action_scorer": True},
    "opponents": {"weights": {"expert": 0.5, "self": 0.5}},
    "evaluation": {"every_steps": 256, "games": 4, "opponents": ["greedy"], "final_games": 4},
}


def show_positions(num_players=4, games=6):
    """Living players' observations along games of random picks."""
    seen = []
    for seed in range(games):
        game_env = hunger_show_v0.parallel_env(num_players=num_players)
        observations, _ = game_env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while game_env.agents:
            seen += [observations[agent]["observation"] for agent in game_env.agents]
            observations, *_ = game_env.step({
                agent: int(rng.choice(np.flatnonzero(observations[agent]["action_mask"])))
                for agent in game_env.agents})
    return np.array(seen)


def test_show_features_are_the_crowd_values_of_the_observation():
    """Each legal action's prior is its crowd value minus the best, over SHOW_VALUE_SCALE, next
    to the others' pick chances behind it; the last number is the best value."""
    encoder = make_encoder("hunger_show", 4)
    actions = np.arange(15)  # Campsite, Beach and Jungle at 4 players
    for vector in show_positions()[::7]:
        view = hunger_show.ShowView.from_observation({"observation": vector})
        values, crowd = hunger_show.crowd_values(
            view, actions, hunger_show.recent_habits(view, actions), reply_rounds=1)
        encoded = encoder(vector)
        per_action = encoded[encoder.action_features].reshape(20, 5)
        np.testing.assert_allclose(per_action[:15, 0], (values - values.max()) / SHOW_VALUE_SCALE,
                                   atol=1e-6)
        np.testing.assert_allclose(per_action[:15, 1], crowd.nobody[:15], atol=1e-6)
        np.testing.assert_allclose(per_action[:15, 2], crowd.exactly_one[:15], atol=1e-6)
        np.testing.assert_allclose(per_action[:15, 3], crowd.thief_risk[actions // 5], atol=1e-6)
        np.testing.assert_allclose(per_action[:15, 4], crowd.guard_risk[actions // 5], atol=1e-6)
        assert not per_action[15:].any()  # the Mountains are not in play
        assert encoded[-1] == pytest.approx(values.max() / SHOW_VALUE_SCALE, abs=1e-6)
        np.testing.assert_array_equal(encoded[: vector.size], vector / 10.0)


def test_recent_habits_read_yesterdays_picks():
    game_env = hunger_show_v0.parallel_env(num_players=3)
    game_env.reset(seed=4)
    picks = {"player_0": 7, "player_1": 13, "player_2": 3}  # beach raft, jungle thief, camp thief
    observations, *_ = game_env.step(picks)
    view = hunger_show.ShowView.from_observation(observations["player_1"])
    actions = np.arange(15)
    habits = hunger_show.recent_habits(view, actions)
    # Seats relative to player_1: player_2 is seat 1, player_0 seat 2; the observer's row is 0.
    assert not habits[0].any()
    for seat, pick in ((1, 3), (2, 7)):
        expected = np.full(15, hunger_show.PRIOR_PICKS / 15)
        expected[pick] += 1.0
        np.testing.assert_allclose(habits[seat, :15], expected / expected.sum())


def test_an_untrained_show_scorer_samples_as_the_expert_would():
    """PRIOR_WEIGHT over SHOW_VALUE_SCALE is the expert's temperature: the untrained logits are
    the crowd values (food points) divided by it."""
    assert pytest.approx(
        1 / hunger_show.TEMPERATURE) == ActionScorerPolicy.PRIOR_WEIGHT / SHOW_VALUE_SCALE
    encoder = make_encoder("hunger_show", 4)
    metadata = PolicyMetadata("hunger_show", 4, encoder.size, 20, [64, 64], "tanh",
                              features=True, action_scorer=True)
    network = build_network(metadata)
    network.ortho_init = True
    network._build(lambda _: 0.0)
    vectors = show_positions(games=2)
    logits = LearnedPolicy.from_weights(metadata, network_weights(network)).logits(list(vectors))
    prior = encoder.batch(vectors)[:, encoder.action_features].reshape(len(vectors), 20, 5)
    np.testing.assert_allclose(logits[:, :15], prior[:, :15, 0] * SHOW_VALUE_SCALE
                               / hunger_show.TEMPERATURE, atol=0.1)


def test_show_scorer_run_trains_and_its_file_plays_the_same(tmp_path):
    config = config_from_dict({**SHOW_SCORER_RUN, "out": str(tmp_path)})
    train(config, progress=False)
    policy = load_policy(tmp_path, "hunger_show", 4)
    assert isinstance(policy.torch_network(), ActionScorerPolicy)
    observations = list(show_positions(games=1))
    np.testing.assert_array_equal(policy.logits(observations),
                                  load_policy(tmp_path, "hunger_show", 4).logits(observations))
    assert torch.count_nonzero(policy.torch_network().mlp_extractor.scorer[-1].weight) > 0


def test_scorer_and_head_are_refused_where_they_do_not_apply():
    with pytest.raises(ValueError, match="network.action_scorer applies to the sb3 and "
                                         "expert_iteration backends"):
        config_from_dict({**SCORER_RUN, "backend": "rllib"})
    with pytest.raises(ValueError, match="network.endgame_head applies to hungry only"):
        config_from_dict({"game": "hunger_show", "num_players": 4,
                          "network": {"action_scorer": True, "endgame_head": True}})


def test_scorer_lr_scale_slows_only_the_layers_behind_the_scores():
    """ppo.scorer_lr_scale: after an update the scorer, its context and the endgame head moved
    at the scaled rate (Adam's first step moves each weight by about the rate, so their largest
    change is about 1/40 of the others'); the optimizer still holds the parameters in the
    network's own order, as a checkpoint's optimizer state indexes them."""
    config = config_from_dict({
        **SCORER_RUN, "network": {"hidden": [16], "action_scorer": True, "endgame_head": True},
        "env": {"n_envs": 4, "batched": True},
        "ppo": {"n_steps": 32, "batch_size": 128, "n_epochs": 1, "learning_rate": 1e-3,
                "scorer_lr_scale": 0.025}})
    model = make_model(config, make_vec_env(config))
    groups = model.policy.optimizer.param_groups
    assert [id(p) for group in groups for p in group["params"]] == \
        [id(p) for p in model.policy.parameters()]
    extractor = model.policy.mlp_extractor
    behind_scores = {id(p) for module in (extractor.context, extractor.scorer, extractor.endgame)
                     for p in module.parameters()}
    before = {name: p.detach().clone() for name, p in model.policy.named_parameters()}
    model.learn(total_timesteps=4 * 32)
    steps = {name: (p.detach() - before[name]).abs().max().item()
             for name, p in model.policy.named_parameters()}
    scaled = [steps[n] for n, p in model.policy.named_parameters() if id(p) in behind_scores]
    plain = [steps[n] for n, p in model.policy.named_parameters() if id(p) not in behind_scores]
    assert max(scaled) < 1.5 * 0.025 * 1e-3 < 1e-3 / 1.5 < max(plain)
    assert sorted({group["lr"] for group in groups}) == [0.025 * 1e-3, 1e-3]


def test_scorer_lr_scale_needs_the_action_scorer():
    with pytest.raises(ValueError, match="ppo.scorer_lr_scale applies to network.action_scorer"):
        config_from_dict({"game": "hungry", "num_players": 2, "ppo": {"scorer_lr_scale": 0.5}})
    with pytest.raises(ValueError, match=r"ppo.scorer_lr_scale must be a number in \(0, 1\]"):
        config_from_dict({"game": "hungry", "num_players": 2, "ppo": {"scorer_lr_scale": 0}})


@pytest.mark.parametrize("network", [{"hidden": [16], "action_scorer": True, "endgame_head": True},
                                     {"hidden": [16]}])
def test_critic_warmup_trains_the_value_alone_then_everything(network):
    """ppo.critic_warmup_steps: the updates of the first 256 steps (two rollouts of 128) leave
    every parameter behind the logits as it was, and the logits with it, while the value
    network learns; the third update moves the policy too."""
    config = config_from_dict({
        **SCORER_RUN, "total_steps": 1024, "network": network,
        "env": {"n_envs": 4, "batched": True},
        "ppo": {"n_steps": 32, "batch_size": 128, "n_epochs": 2, "learning_rate": 1e-3,
                "critic_warmup_steps": 256}})
    model = make_model(config, make_vec_env(config))
    value = {"value_net.weight", "value_net.bias"} | {
        name for name, _ in model.policy.named_parameters() if ".value_net." in name}
    before = {name: p.detach().clone() for name, p in model.policy.named_parameters()}
    observations = torch.as_tensor(model.env.reset())
    logits = model.policy.get_distribution(observations).distribution.logits.detach()

    def moved() -> set[str]:
        return {name for name, p in model.policy.named_parameters()
                if not torch.equal(p.detach(), before[name])}

    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256 and moved() == value
    assert torch.equal(model.policy.get_distribution(observations).distribution.logits, logits)
    model.learn(total_timesteps=128, reset_num_timesteps=False)
    assert moved() == set(before)


def test_critic_warmup_is_refused_where_it_leaves_no_policy_step():
    with pytest.raises(ValueError, match=r"ppo.critic_warmup_steps \(1000\) leaves the policy "
                                         r"no step of total_steps \(1000\)"):
        config_from_dict({"game": "hungry", "num_players": 2, "total_steps": 1000,
                          "ppo": {"critic_warmup_steps": 1000}})
    with pytest.raises(ValueError, match="ppo.critic_warmup_steps must be"):
        config_from_dict({"game": "hungry", "num_players": 2, "ppo": {"critic_warmup_steps": -1}})
