"""The shipped agents: each loads by its spec and plays legal moves; the set stays small."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from hunger_rl.cli import main
from hunger_rl.configs import config_names
from hunger_rl.envs.records import make_env
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


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_agent_loads_by_spec_and_plays_legal_moves(name):
    game, players = EXPECTED[name]
    policy = make_policy(f"pretrained:{name}", game, players)
    assert isinstance(policy, LearnedPolicy) and policy.name == f"pretrained:{name}"
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


def test_a_wrong_player_count_or_name_is_a_clear_error():
    with pytest.raises(ValueError, match=r"pretrained:hungry_2p plays hungry with 2 players, not "
                                         r"hungry with 3; for that: pretrained:hungry_3p"):
        make_policy("pretrained:hungry_2p", "hungry", 3)
    with pytest.raises(ValueError, match="unknown pretrained agent 'chess'; shipped: "):
        make_policy("pretrained:chess", "hungry", 2)
    with pytest.raises(ValueError, match="for that: none"):
        make_policy("pretrained:hunger_show_4p", "hunger_show", 3)


def test_policies_command_lists_every_spec(capsys):
    assert main(["policies", "--game", "hunger_show", "--players", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    specs = [line.split()[0] for line in lines]
    assert specs == ["random", "greedy", "expert", "crowd", "ismcts:N", "smmcts:N", "smmcts:N:SPEC",
                     "pretrained:hunger_show_4p", "PATH"]
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)
    assert [s for s, _ in describe_specs("hungry", 3)][-2:] == ["pretrained:hungry_3p", "PATH"]
    assert "search:N" in [s for s, _ in describe_specs("hungry", 2)]
