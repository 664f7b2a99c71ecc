"""Mixed play: ``sample:T:SPEC`` draws from the network's softmax at temperature T, reproducibly
by the game's seed; ``argmax:SPEC`` plays the masked argmax; a shipped agent's catalogue
temperature is how it plays by default; bad specs are errors naming the spec."""

import numpy as np
import pytest
import torch

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.envs import hunger_show_v0
from hunger_rl.policies import pretrained
from hunger_rl.policies.learned import PolicyMetadata, build_network, save_policy
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.registry import make_policy


@pytest.fixture(scope="module")
def show_policy(tmp_path_factory):
    """A HUNGER 2p action scorer with random weights, spread enough that its softmax is far
    from both one-hot and uniform."""
    encoder = make_encoder("hunger_show", 2, {}, True)
    metadata = PolicyMetadata(game="hunger_show", num_players=2,
                              observation_size=encoder.size, num_actions=encoder.num_actions,
                              hidden=[16, 16], activation="tanh", features=True,
                              action_scorer=True)
    torch.manual_seed(0)
    network = build_network(metadata)
    with torch.no_grad():
        for parameter in network.parameters():
            parameter.normal_(0.0, 0.3)
    return save_policy(tmp_path_factory.mktemp("show") / "policy.safetensors", network, metadata)


def first_observation(num_players=2, seed=0):
    env = hunger_show_v0.parallel_env(num_players=num_players)
    observations, _ = env.reset(seed=seed)
    return observations[env.agents[0]]


@pytest.mark.parametrize("temperature", [0.5, 1.0, 2.0])
def test_sampled_actions_follow_the_softmax_of_the_logits_over_t(show_policy, temperature):
    policy = make_policy(f"sample:{temperature}:{show_policy}", "hunger_show", 2)
    assert policy.temperature == temperature
    observation = first_observation()
    mask = observation["action_mask"].astype(bool)
    logits = policy.logits([observation["observation"]])[0][mask] / temperature
    expected = np.exp(logits - logits.max())
    expected /= expected.sum()
    draws = 40_000
    actions = policy.act_vectors(np.repeat(observation["observation"][None], draws, axis=0),
                                 np.repeat(mask[None], draws, axis=0),
                                 np.random.default_rng(1))
    assert mask[actions].all()
    legal = np.flatnonzero(mask)
    shares = np.array([(actions == a).mean() for a in legal])
    # 40,000 draws: each share within about 4 standard errors of its probability.
    np.testing.assert_allclose(shares, expected, atol=4 * np.sqrt(0.25 / draws))
    assert 0.05 < expected.max() < 0.95  # neither argmax nor uniform play in disguise


def test_argmax_plays_the_masked_argmax_and_sample_alone_is_temperature_one(show_policy):
    argmax = make_policy(f"argmax:{show_policy}", "hunger_show", 2)
    observation = first_observation()
    logits = argmax.logits([observation["observation"]])[0]
    best = np.flatnonzero(observation["action_mask"])[
        np.argmax(logits[observation["action_mask"].astype(bool)])]
    rng = np.random.default_rng(0)
    assert {argmax.act(observation, rng) for _ in range(50)} == {best}
    assert make_policy(f"sample:{show_policy}", "hunger_show", 2).temperature == 1.0
    assert make_policy(str(show_policy), "hunger_show", 2).temperature == 0.0


def test_sampled_play_replays_by_seed_and_differs_from_argmax(show_policy):
    def table(spec, seed):
        """Every game's win shares and scores, game by game."""
        result = evaluate("hunger_show", 2, [spec, "crowd"], games=40, seed=seed,
                          progress=False)
        return [(record.win_shares, record.scores) for record in result.records]

    sampled = table(f"sample:{show_policy}", 3)
    assert table(f"sample:{show_policy}", 3) == sampled
    assert table(f"argmax:{show_policy}", 3) != sampled
    assert table(f"sample:{show_policy}", 4) != sampled


def test_a_catalogue_temperature_is_how_the_shipped_agent_plays(monkeypatch):
    entry = dict(pretrained.catalogue()["hunger_show_2p"], temperature=0.75)
    monkeypatch.setitem(pretrained.catalogue(), "hunger_show_2p", entry)
    assert make_policy("pretrained:hunger_show_2p", "hunger_show", 2).temperature == 0.75
    assert make_policy("argmax:pretrained:hunger_show_2p", "hunger_show", 2).temperature == 0.0
    # The network alone plays its argmax.
    assert make_policy("pretrained:hunger_show_2p:network", "hunger_show", 2).temperature == 0.0
    monkeypatch.setitem(pretrained.catalogue(), "hunger_show_2p", dict(entry, temperature=-1))
    with pytest.raises(ValueError, match=r"agents.json, agent 'hunger_show_2p': a policy's "
                                         r"temperature must be a number in \[0, 100\]"):
        make_policy("pretrained:hunger_show_2p", "hunger_show", 2)


@pytest.mark.parametrize(("spec", "message"), [
    ("sample:0:{path}", r"in 'sample:0:.*', a sampling temperature must be above 0 "
                        r"\(argmax:.* plays the argmax\)"),
    ("sample:250:{path}", r"in 'sample:250:.*', a policy's temperature must be a number in "
                          r"\[0, 100\] \(0 plays the argmax\), got 250.0"),
    ("sample:crowd", r"in 'sample:crowd', 'crowd' is not a trained network"),
    ("argmax:", r"in 'argmax:', a trained network's policy spec must follow argmax:"),
    ("sample:1.5:", r"in 'sample:1.5:', a trained network's policy spec must follow sample:"),
    # Only ASCII digits make a temperature: the rest is taken as the network's spec.
    ("sample:²:crowd", r"in 'sample:²:crowd', '²:crowd': unknown policy spec"),
])
def test_bad_play_mode_specs_are_errors_naming_the_spec(show_policy, spec, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec.format(path=show_policy), "hunger_show", 2)


def test_a_searching_agent_has_no_distribution_to_sample():
    with pytest.raises(ValueError, match=r"'pretrained:hungry_2p' is not a trained network .*"
                                         r"pretrained:NAME:network for one that does"):
        make_policy("sample:pretrained:hungry_2p", "hungry", 2)
    assert make_policy("sample:pretrained:hungry_2p:network", "hungry", 2).temperature == 1.0
