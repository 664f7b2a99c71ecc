"""The shipped agents: each loads by its spec and plays legal moves, the searching ones as their
search; the set stays small."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from hunger_rl.cli import main
from hunger_rl.configs import config_names
from hunger_rl.envs.records import make_env
from hunger_rl.policies import pretrained
from hunger_rl.policies.hungry_search import SearchHungryPolicy
from hunger_rl.policies.learned import LearnedPolicy
from hunger_rl.policies.pretrained import catalogue
from hunger_rl.policies.registry import describe_specs, make_policy

EXPECTED = {"hungry_2p": ("hungry", 2), "hungry_3p": ("hungry", 3), "hungry_4p": ("hungry", 4),
            "hunger_show_2p": ("hunger_show", 2), "hunger_show_4p": ("hunger_show", 4),
            "hunger_show_6p": ("hunger_show", 6)}


def test_one_agent_per_supported_configuration():
    assert {name: (e["game"], e["num_players"]) for name, e in catalogue().items()} == EXPECTED
    folder = Path(str(resources.files("hunger_rl.pretrained")))
    total = sum(path.stat().st_size for path in folder.iterdir() if path.is_file())
    assert total < 20 * 2**20
    for entry in catalogue().values():
        assert entry["config"] in config_names()  # a shipped config reproduces it
        assert entry["description"] and "\n" not in entry["description"]


SEARCHING = sorted(name for name, entry in catalogue().items() if "search" in entry)


def test_the_hungry_agents_search_and_the_others_do_not():
    assert SEARCHING == ["hungry_2p", "hungry_3p", "hungry_4p"]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_agent_loads_by_spec_and_plays_legal_moves(name):
    game, players = EXPECTED[name]
    if name not in SEARCHING:
        policy = make_policy(f"pretrained:{name}", game, players)
        assert isinstance(policy, LearnedPolicy) and policy.name == f"pretrained:{name}"
    # The network alone, for every agent (a whole game of the searching ones' search, every
    # seat searching, would take seconds: the next test checks its moves).
    policy = make_policy(f"pretrained:{name}:network", game, players)
    assert isinstance(policy, LearnedPolicy)
    rng = np.random.default_rng(0)
    env = make_env(game, players, {})
    if game == "hungry":
        env.reset(seed=1)
        while not env.game.is_over:
            observation = env.observe(env.agent_selection)
            action = policy.act(observation, rng)
            assert observation["action_mask"][action]
            env.step(action)
        return
    observations, _ = env.reset(seed=1)
    while env.agents:
        actions = {a: policy.act(observations[a], rng) for a in env.agents}
        assert all(observations[a]["action_mask"][act] for a, act in actions.items())
        observations, *_ = env.step(actions)


@pytest.mark.parametrize("name", SEARCHING)
def test_a_searching_agent_plays_its_search(name):
    game, players = EXPECTED[name]
    search = catalogue()[name]["search"]
    agent = make_policy(f"pretrained:{name}", game, players)
    assert isinstance(agent, SearchHungryPolicy) and agent.name == f"pretrained:{name}"
    assert (agent.simulations, agent.plays, agent.cutoff) == (
        search.get("simulations"), search.get("plays"), search.get("cutoff"))
    network = make_policy(f"pretrained:{name}:network", game, players)
    env = make_env(game, players, {})
    env.reset(seed=3)
    budget = search.get("simulations") or f"{search['plays']}plays"
    assert (agent.record is not None) == search.get("beliefs", False)
    if search.get("beliefs", False):
        budget += ":beliefs"
    if search.get("guided", True):
        assert isinstance(agent.guide, LearnedPolicy)
        vector = env.observe(env.agent_selection)["observation"]
        assert np.array_equal(agent.guide.logits([vector]), network.logits([vector]))
        spelled_out = f"search:{budget}:pretrained:{name}:network"
    else:
        assert agent.guide is None
        spelled_out = f"search:{budget}"
    # Move for move the spec that says the same search in full, on the same random draws.
    spelled_out = make_policy(spelled_out, game, players)
    agent_rng, spelled_rng = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(3 * players):  # the first plays: the longest playouts, the dearest moves
        observation = env.observe(env.agent_selection)
        move = agent.act(observation, agent_rng)
        assert move == spelled_out.act(observation, spelled_rng)
        assert observation["action_mask"][move]
        env.step(move)


def test_an_unguided_search_in_the_catalogue_plays_without_the_network(monkeypatch):
    entry = {**catalogue()["hungry_2p"], "search": {"plays": 960, "guided": False}}
    monkeypatch.setattr(pretrained, "catalogue", lambda: {**catalogue(), "hungry_2p": entry})
    agent = make_policy("pretrained:hungry_2p", "hungry", 2)
    assert isinstance(agent, SearchHungryPolicy) and agent.guide is None
    assert (agent.plays, agent.simulations, agent.name) == (960, None, "pretrained:hungry_2p")
    assert isinstance(make_policy("pretrained:hungry_2p:network", "hungry", 2), LearnedPolicy)
    # Its network still guides a search that names the agent.
    guided = make_policy("search:8:pretrained:hungry_2p", "hungry", 2)
    assert guided.guide.name == "pretrained:hungry_2p:network"
    env = make_env("hungry", 2, {})
    env.reset(seed=4)
    observation = env.observe(env.agent_selection)
    plain = make_policy("search:960plays", "hungry", 2)
    for seed in range(3):
        assert (agent.act(observation, np.random.default_rng(seed))
                == plain.act(observation, np.random.default_rng(seed)))


def test_a_guided_search_on_a_searching_agent_is_guided_by_its_network():
    search = make_policy("search:8:pretrained:hungry_2p", "hungry", 2)
    assert isinstance(search.guide, LearnedPolicy)
    assert search.guide.name == "pretrained:hungry_2p:network"


@pytest.mark.parametrize(("search", "problem"), [
    ({"simulations": 16, "cutoff": 2}, "a cut-off needs a value head fitted to win shares"),
    ({"playouts": 16}, "search must be {'simulations': N} or {'plays': B}, with 'cutoff': D"),
    ([16], "search must be"),
    ({"simulations": 16, "plays": 960}, "search must be {'simulations': N} or {'plays': B}"),
    ({"plays": 960, "guided": "no"}, "search's 'guided' must be true or false, got 'no'"),
    ({"plays": 960, "guided": 0}, "search's 'guided' must be true or false, got 0"),
    ({"plays": 960, "beliefs": "yes"}, "search's 'beliefs' must be true or false, got 'yes'"),
    ({"simulations": 16, "cutoff": 2, "guided": False}, "a cut-off .* needs a guided search"),
    ({"plays": 40}, "a budget of plays must be at least 48"),
])
def test_a_bad_search_in_the_catalogue_is_a_clear_error(monkeypatch, search, problem):
    entries = {**catalogue(), "hungry_2p": {**catalogue()["hungry_2p"], "search": search}}
    monkeypatch.setattr(pretrained, "catalogue", lambda: entries)
    with pytest.raises(ValueError, match=f"agents.json, agent 'hungry_2p': {problem}"):
        make_policy("pretrained:hungry_2p", "hungry", 2)
    # The network alone does not read the search.
    assert isinstance(make_policy("pretrained:hungry_2p:network", "hungry", 2), LearnedPolicy)


def test_a_search_for_a_game_without_one_is_a_clear_error(monkeypatch):
    # Without its temperature, which an agent that searches may not have (a check of its own).
    show = {**{key: value for key, value in catalogue()["hunger_show_2p"].items()
               if key != "temperature"}, "search": {"simulations": 16}}
    monkeypatch.setattr(pretrained, "catalogue", lambda: {**catalogue(), "hunger_show_2p": show})
    with pytest.raises(ValueError, match="agent 'hunger_show_2p': no search of hunger_show "
                                         "plays a shipped agent"):
        make_policy("pretrained:hunger_show_2p", "hunger_show", 2)


def test_a_wrong_player_count_or_name_is_a_clear_error():
    with pytest.raises(ValueError, match=r"pretrained:hungry_2p plays hungry with 2 players, not "
                                         r"hungry with 3; for that: pretrained:hungry_3p"):
        make_policy("pretrained:hungry_2p", "hungry", 3)
    with pytest.raises(ValueError, match="unknown pretrained agent 'chess'; shipped: "):
        make_policy("pretrained:chess", "hungry", 2)
    with pytest.raises(ValueError, match="for that: none"):
        make_policy("pretrained:hunger_show_4p", "hunger_show", 3)
    with pytest.raises(ValueError, match=r"pretrained:hungry_2p:value: unknown part 'value' after "
                                         r"the agent's name; .* pretrained:hungry_2p:network its "
                                         r"network alone"):
        make_policy("pretrained:hungry_2p:value", "hungry", 2)


def test_policies_command_lists_every_spec(capsys):
    assert main(["policies", "--game", "hunger_show", "--players", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    specs = [line.split()[0] for line in lines]
    assert specs == ["random", "greedy", "expert", "crowd", "ismcts:N", "smmcts:N", "smmcts:N:SPEC",
                     "smmcts:N:rm",
                     "pretrained:hunger_show_4p", "PATH", "argmax:SPEC", "sample:SPEC",
                     "mix:PATH", "python:MODULE:NAME", "sb3:PATH"]
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)
    assert [s for s, _ in describe_specs("hungry", 3)][-8:] == [
        "pretrained:hungry_3p", "pretrained:hungry_3p:network", "PATH", "argmax:SPEC",
        "sample:SPEC", "mix:PATH", "python:MODULE:NAME", "sb3:PATH"]
    assert "search:N" in [s for s, _ in describe_specs("hungry", 2)]
