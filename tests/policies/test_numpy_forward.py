"""A policy file plays in numpy (``policies.models.forward``) as its torch network does.

Every shipped agent's network, and every other kind of network training builds (with random
weights, so that no part starts at zero), scores thousands of positions of real games both
ways: the logits agree to float32 rounding, the masked argmax and the sampled actions (the
same Gumbel draws from the same seeded generator as the torch path took) are the same. Where
torch is loaded and faster (a large batch of a network without an endgame head), the policy
takes its torch copy. The
numpy network takes the torch network's weights by name and refuses any it has no place for,
so a layer added to a training network fails here. Playing a shipped agent, or a search it
guides, imports no torch.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from hunger_rl.envs import game_spec
from hunger_rl.envs.records import make_env
from hunger_rl.policies.learned import (
    TORCH_BATCH_ROWS,
    LearnedPolicy,
    PolicyMetadata,
    build_network,
    network_weights,
)
from hunger_rl.policies.models.encoders import make_encoder, state_scale
from hunger_rl.policies.models.networks import action_logits
from hunger_rl.policies.pretrained import catalogue
from hunger_rl.policies.registry import make_policy

# Scripted players whose games give the positions (quick ones: compiled, or random; Hungry's
# forecast took 17 s for 2,000 positions at 4 players, where random and greedy take 0.3 s and
# still reach the endgame in most of them).
PLAYERS = {"hungry": ("random", "greedy"), "hunger_show": ("random", "crowd")}
POSITIONS = 2000
# The argmax and sampled actions are checked on this many of the positions (the logits, which
# decide them, on all): each pass of act_vectors is a forward pass at the numpy path's batch
# size, seconds for the endgame networks.
ACTED_POSITIONS = 500
# float32 rounding of logits up to about 60 in size (measured: at most 2e-5 apart).
RTOL, ATOL = 1e-5, 5e-5


def positions(game: str, num_players: int, count: int, seed: int = 0,
              game_options: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``count`` encoder raw rows (``raw_input``) and masks of players to move, from games of
    ``PLAYERS``."""
    options = dict(game_options or {})
    encoder = make_encoder(game, num_players, options)
    rng = np.random.default_rng(seed)
    # The scripted players play the default decisions; the full-decision mode's, random.
    specs = ("random",) if options.get("decision_mode", "objects") != "objects" else PLAYERS[game]
    players = [make_policy(spec, game, num_players) for spec in specs]
    rows, masks = [], []

    def record(observation) -> int:
        rows.append(encoder.raw_input(observation))
        masks.append(observation["action_mask"].astype(bool))
        return players[rng.integers(len(players))].act(observation, rng)

    while len(rows) < count:
        env = make_env(game, num_players, options)
        if game_spec(game).native_api(options) == "parallel":  # HUNGER's days
            observations, _ = env.reset(seed=int(rng.integers(2**31)))
            while env.agents:
                actions = {agent: record(observations[agent]) for agent in env.agents}
                observations, *_ = env.step(actions)
            continue
        env.reset(seed=int(rng.integers(2**31)))
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            env.step(record(env.observe(agent)))
    return np.array(rows[:count]), np.array(masks[:count])


def torch_logits(network, inputs: np.ndarray) -> np.ndarray:
    return action_logits(network, torch.as_tensor(inputs)).numpy()


def torch_sampled(logits: np.ndarray, masks: np.ndarray, temperature: float,
                  seed: int) -> np.ndarray:
    """The torch path's sampling: Gumbel-max over the masked logits / T, one Gumbel draw per
    (row, action) from the game's generator."""
    masked = np.where(masks, logits, -np.inf)
    rng = np.random.default_rng(seed)
    return (masked / temperature + rng.gumbel(size=masked.shape)).argmax(axis=1)


def check_plays_alike(policy: LearnedPolicy, network, rows: np.ndarray, masks: np.ndarray):
    """The numpy network's logits, argmax and samples against the torch network's (in batches
    below ``TORCH_BATCH_ROWS``, which the policy answers in numpy)."""
    inputs = policy._encode.batch(rows)
    expected = torch_logits(network, inputs)
    np.testing.assert_allclose(policy.network.logits(inputs), expected, rtol=RTOL, atol=ATOL)
    for start in range(0, min(len(rows), ACTED_POSITIONS), TORCH_BATCH_ROWS - 1):
        batch = slice(start, start + TORCH_BATCH_ROWS - 1)
        policy.temperature = 0.0
        np.testing.assert_array_equal(
            policy.act_vectors(rows[batch], masks[batch], np.random.default_rng(0)),
            np.where(masks[batch], expected[batch], -np.inf).argmax(axis=1))
        for temperature, seed in ((1.0, start), (0.5, start + 1)):
            policy.temperature = temperature
            np.testing.assert_array_equal(
                policy.act_vectors(rows[batch], masks[batch], np.random.default_rng(seed)),
                torch_sampled(expected[batch], masks[batch], temperature, seed))


@pytest.mark.parametrize("name", sorted(catalogue()))
def test_every_shipped_agent_plays_as_its_torch_network(name):
    entry = catalogue()[name]
    game, num_players = entry["game"], entry["num_players"]
    policy = make_policy(f"pretrained:{name}:network", game, num_players)
    network = policy.torch_network()
    rows, masks = positions(game, num_players, POSITIONS)
    if game == "hungry":  # the endgame heads score the positions after the last draw
        assert policy.network.actor.endgame.inputs.deck_empty(policy._encode.batch(rows)).sum() \
            > 100
    check_plays_alike(policy, network, rows, masks)
    inputs = torch.as_tensor(policy._encode.batch(rows))
    with torch.no_grad():
        values = network.predict_values(inputs)[:, 0].numpy()
    np.testing.assert_allclose(policy.network.values(inputs.numpy()), values, rtol=RTOL,
                               atol=ATOL)


def test_a_large_batch_goes_through_torch_where_numpy_is_slower():
    """With torch loaded (as here), a batch of TORCH_BATCH_ROWS rows of a network without an
    endgame head is answered by its torch copy, exactly; an endgame-head network's stays in
    numpy, and so does a smaller batch."""
    rows, _ = positions("hunger_show", 4, TORCH_BATCH_ROWS)
    show = make_policy("pretrained:hunger_show_4p", "hunger_show", 4)
    inputs = show._encode.batch(rows)
    np.testing.assert_array_equal(show.logits(rows), torch_logits(show.torch_network(), inputs))
    np.testing.assert_array_equal(show.logits(rows[:-1]), show.network.logits(inputs[:-1]))
    rows, _ = positions("hungry", 2, TORCH_BATCH_ROWS)
    hungry = make_policy("pretrained:hungry_2p:network", "hungry", 2)
    np.testing.assert_array_equal(hungry.logits(rows),
                                  hungry.network.logits(hungry._encode.batch(rows)))


def hungry_metadata(**network) -> PolicyMetadata:
    return PolicyMetadata("hungry", 2, make_encoder("hungry", 2).size, 50, [32, 32], "tanh",
                          features=True, **network)


def show_metadata(num_players: int = 4, options: dict | None = None,
                  **network) -> PolicyMetadata:
    encoder = make_encoder("hunger_show", num_players, options)
    actions = 20 if not options else make_env("hunger_show", num_players, options).action_space(
        "player_0").n
    return PolicyMetadata("hunger_show", num_players, encoder.size, int(actions), [32, 32],
                          "relu", game_options=dict(options or {}), features=True, **network)


# Every kind of network training builds (``forward.network_layout``), by name.
NETWORKS = {
    "mlp": lambda: hungry_metadata(),
    "mlp_value_gain": lambda: hungry_metadata(action_value_gain=10.0),
    "privileged_critic": lambda: hungry_metadata(
        critic_state_size=state_scale("hungry", 2).size),
    "action_scorer": lambda: show_metadata(action_scorer=True),
    "endgame_plays": lambda: hungry_metadata(action_scorer=True, endgame_head=True,
                                             endgame_hidden=[24, 16]),
    "endgame_cards": lambda: hungry_metadata(action_scorer=True, endgame_head=True,
                                             endgame_model="cards", endgame_hidden=[16, 16]),
    "full_decisions": lambda: show_metadata(options={"decision_mode": "agents"},
                                            action_scorer=True, rule_prior=2.0),
}


def randomised(metadata: PolicyMetadata, seed: int = 0):
    """The torch network of ``metadata`` with every weight drawn at random (its training
    start zeroes some, such as the scorer's last layer)."""
    torch.manual_seed(seed)
    network = build_network(metadata)
    with torch.no_grad():
        for parameter in network.parameters():
            parameter.normal_(0.0, 0.5 / parameter.shape[-1] ** 0.5)
    return network


@pytest.mark.parametrize("kind", NETWORKS)
def test_every_kind_of_network_plays_as_in_torch(kind):
    metadata = NETWORKS[kind]()
    network = randomised(metadata)
    policy = LearnedPolicy.from_weights(metadata, network_weights(network))
    assert set(policy.network.weights) == set(network.state_dict())
    rows, masks = positions(metadata.game, metadata.num_players, 1000,
                            game_options=metadata.game_options)
    if metadata.critic_state_size:  # the actor reads the observation alone, the critic more
        inputs = policy._encode.batch(rows)
        state = np.random.default_rng(1).random((len(rows), metadata.critic_state_size))
        whole = np.concatenate((inputs, state), axis=1).astype(np.float32)
        check_plays_alike(policy, network, rows, masks)
        with torch.no_grad():
            values = network.predict_values(torch.as_tensor(whole))[:, 0].numpy()
        np.testing.assert_allclose(policy.network.values(whole), values, rtol=RTOL, atol=ATOL)
        return
    check_plays_alike(policy, network, rows, masks)


@pytest.mark.parametrize("kind", ["mlp", "endgame_cards", "full_decisions"])
def test_weights_the_numpy_network_does_not_read_are_refused(kind):
    """A layer that a training network gains (here bolted on) is a weight the numpy network has
    no place for; one it loses is a weight it lacks: both refused, named."""
    metadata = NETWORKS[kind]()
    network = randomised(metadata)
    network.mlp_extractor.extra = torch.nn.Linear(3, 3)
    with pytest.raises(ValueError, match=r"no place for: \['mlp_extractor.extra.bias', "
                                         r"'mlp_extractor.extra.weight'\]"):
        LearnedPolicy.from_weights(metadata, network_weights(network))
    weights = network_weights(randomised(metadata))
    del weights["action_net.bias"]
    with pytest.raises(ValueError, match="the weights lack action_net.bias"):
        LearnedPolicy.from_weights(metadata, weights)
    weights = network_weights(randomised(metadata))
    weights["value_net.weight"] = weights["value_net.weight"][:, :-1]
    with pytest.raises(ValueError, match=r"value_net has weight \(1, 31\)"):
        LearnedPolicy.from_weights(metadata, weights)


# Imports of torch (or the libraries built on it) are recorded and refused.
TORCH_BLOCKER = """
import sys

BLOCKED = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard"}
attempts = []


class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            attempts.append(name)
            raise ImportError(f"{name} is blocked")
        return None


sys.meta_path.insert(0, Blocker())
for name in BLOCKED:
    sys.modules.pop(name, None)
"""


def test_shipped_agents_and_their_searches_play_without_torch():
    script = TORCH_BLOCKER + textwrap.dedent("""
        from hunger_rl.arena.evaluation import evaluate

        for game, players, lineup in [
                ("hungry", 2, ["pretrained:hungry_2p", "expert"]),
                ("hungry", 3, ["search:8:pretrained:hungry_3p", "expert"]),
                ("hunger_show", 4, ["pretrained:hunger_show_4p", "expert"]),
                ("hunger_show", 2, ["smmcts:8:pretrained:hunger_show_2p", "expert"])]:
            result = evaluate(game, players, lineup, games=players, seed=0, workers=1,
                              progress=False)
            print(game, result.games)
        print("attempts", attempts)
        assert not attempts, attempts
        assert not {"torch", "sb3_contrib"} & set(sys.modules), sorted(sys.modules)
    """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               timeout=900)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.split() == ["hungry", "2", "hungry", "3", "hunger_show", "4",
                                        "hunger_show", "2", "attempts", "[]"]
