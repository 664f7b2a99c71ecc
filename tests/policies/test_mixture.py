"""``mix:PATH``: a mixture file's members and their errors, one member drawn per game by weight
and played to the game's end, reproducibly by seed, and the batched league seating a mixture as
its members."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from hunger_rl.arena.evaluation import evaluate
from hunger_rl.envs.hunger_show_v0 import parallel_env
from hunger_rl.policies.base import Policy
from hunger_rl.policies.mixture import MixturePolicy, read_mixture, write_mixture
from hunger_rl.policies.registry import make_policy
from hunger_rl.training.league import League, league_members


def test_members_are_specs_or_files_beside_the_mixture_file(tmp_path):
    (tmp_path / "agents").mkdir()
    path = write_mixture(tmp_path / "agents" / "mix.json", [
        {"spec": "expert", "weight": 1},
        {"file": "e1.safetensors", "weight": 2.5},
        {"file": "../e2.safetensors", "weight": 0.5, "temperature": 0.7}])
    assert read_mixture(path) == [
        ("expert", 1.0),
        (f"argmax:{tmp_path / 'agents' / 'e1.safetensors'}", 2.5),
        (f"sample:0.7:{tmp_path / 'agents' / '../e2.safetensors'}", 0.5)]


@pytest.mark.parametrize(("document", "message"), [
    ("not json", r"mix.json: cannot be read as JSON"),
    ({"members": []}, r"mix.json: needs \{\"members\": \[...\]\} with at least one member"),
    ({"members": [{"spec": "expert", "weight": -1}]},
     r"mix.json, member 0: weight must be a number >= 0, got -1"),
    ({"members": [{"spec": "expert", "weight": 0}]}, r"mix.json: the members' weights sum to 0"),
    ({"members": [{"spec": "expert", "file": "a", "weight": 1}]},
     r"member 0: give exactly one of 'spec' and 'file'"),
    ({"members": [{"spec": "expert", "weight": 1, "temperature": 1}]},
     r"member 0: a temperature goes with a 'file'"),
    ({"members": [{"spec": "expert", "weight": 1}, {"file": "a", "weight": 1,
                                                     "temperature": "hot"}]},
     r"member 1: temperature must be a number >= 0, got 'hot'"),
    ({"members": [{"spec": "expert", "weight": 1, "seat": 2}]},
     r"member 0: a member is an object of \['file', 'spec', 'temperature', 'weight'\]"),
])
def test_a_malformed_mixture_file_is_an_error_naming_the_file_and_member(tmp_path, document,
                                                                        message):
    path = tmp_path / "mix.json"
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    with pytest.raises(ValueError, match=message):
        make_policy(f"mix:{path}", "hunger_show", 2)


def test_a_member_that_does_not_load_is_named_and_a_mixture_of_mixtures_refused(tmp_path):
    inner = write_mixture(tmp_path / "inner.json", [{"spec": "crowd", "weight": 1}])
    bad = write_mixture(tmp_path / "bad.json", [{"spec": "crowd", "weight": 1},
                                                {"spec": "forecast", "weight": 1}])
    with pytest.raises(ValueError, match=r"member 'forecast': unknown policy spec 'forecast'"):
        make_policy(f"mix:{bad}", "hunger_show", 2)
    nested = write_mixture(tmp_path / "nested.json", [{"spec": f"mix:{inner}", "weight": 1}])
    with pytest.raises(ValueError, match=r"is a mixture itself; list its members instead"):
        make_policy(f"mix:{nested}", "hunger_show", 2)


class Marked(Policy):
    """Plays a legal action and records, per game, that it was the one playing."""

    def __init__(self, mark: str, log: list[str]):
        self.mark, self.log = mark, log

    def act(self, observation, rng, view=None):
        self.log.append(self.mark)
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[rng.integers(legal.size)])


def play(policy: Policy, seed: int) -> None:
    env = parallel_env(num_players=2)
    observations, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    policy.reset()
    while env.agents:
        actions = {agent: int(np.flatnonzero(observations[agent]["action_mask"])[0])
                   for agent in env.agents}
        first = env.agents[0]
        actions[first] = policy.act(observations[first], rng)
        observations, *_ = env.step(actions)


def test_one_member_plays_each_game_drawn_by_weight():
    log: list[str] = []
    mixture = MixturePolicy([Marked("a", log), Marked("b", log), Marked("never", log)],
                            [1.0, 3.0, 0.0])
    games = Counter()
    for seed in range(800):
        log.clear()
        play(mixture, seed)
        assert len(set(log)) == 1  # the member drawn at the first move plays to the end
        games[log[0]] += 1
    # 800 games at 1/4: a binomial's 4.5 standard deviations either side.
    assert abs(games["a"] - 200) <= 4.5 * np.sqrt(800 * 0.25 * 0.75)
    assert games["a"] + games["b"] == 800


def test_a_mixture_spec_plays_reproducibly_by_seed(tmp_path):
    half = write_mixture(tmp_path / "half.json", [{"spec": "expert", "weight": 1},
                                                  {"spec": "random", "weight": 1}])
    first, again = (evaluate("hunger_show", 2, [f"mix:{half}", "crowd"], games=40, seed=4,
                             progress=False) for _ in range(2))
    assert first.rows == again.rows
    other = evaluate("hunger_show", 2, [f"mix:{half}", "crowd"], games=40, seed=5,
                     progress=False)
    assert [r.win_shares for r in other.records] != [r.win_shares for r in first.records]


def test_the_league_seats_a_mixture_as_its_members_with_their_share(tmp_path):
    path = write_mixture(tmp_path / "mix.json", [{"spec": "expert", "weight": 1},
                                                 {"spec": "greedy", "weight": 3}])
    weights = league_members({f"mix:{path}": 2.0, "crowd": 1.0, "greedy": 0.5})
    assert weights == {"expert": 0.5, "greedy": 2.0, "crowd": 1.0}
    league = League({f"mix:{path}": 2.0, "crowd": 1.0}, num_players=2)
    members, chances = league.candidates()
    assert [league.named[m] for m in members] == ["expert", "greedy", "crowd"]
    np.testing.assert_allclose(chances, [1 / 6, 3 / 6, 2 / 6])
