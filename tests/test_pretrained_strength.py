"""scripts/pretrained_strength.py: the table's label of how an agent plays, and the cost per
move timing every pass on its own copy of the agent (a search that records the game must see
each move once)."""

from __future__ import annotations

import numpy as np
from scripts_under_test import load_script

pretrained_strength = load_script("pretrained_strength")


def test_search_labels():
    label = pretrained_strength.search_label
    assert label(None) == "network"
    assert label({"simulations": 300}) == "search:300"
    assert label({"plays": 7200, "guided": False}) == "plain search:7200plays"
    assert label({"plays": 4800, "guided": False, "beliefs": True}) == (
        "plain search:4800plays:beliefs")


class MoveRecorder:
    """Plays its first legal action; each act logs the moves this copy has seen so far."""

    log: list[list[bytes]] = []

    def __init__(self):
        self.seen: list[bytes] = []

    def act(self, observation, rng, view=None):
        self.seen.append(observation["observation"].tobytes())
        MoveRecorder.log.append(list(self.seen))
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_cost_per_move_times_each_pass_on_its_own_copy(monkeypatch):
    make_policy = pretrained_strength.make_policy
    monkeypatch.setattr(pretrained_strength, "make_policy", lambda spec, game, players: (
        MoveRecorder() if spec == "recorder" else make_policy(spec, game, players)))
    MoveRecorder.log = []
    cost = pretrained_strength.cost_per_move("recorder", 2, 1)
    # Two games of 24 moves each (the first warms up), every move timed PASSES times.
    assert cost["moves"] == 24
    assert len(MoveRecorder.log) == 2 * 24 * pretrained_strength.PASSES
    for history in MoveRecorder.log:
        assert len(set(history)) == len(history)  # no copy saw a move twice
    # The copy kept after each move goes on to the next: the histories grow a move at a time.
    lengths = [len(history) for history in MoveRecorder.log]
    assert lengths == [n for n in range(1, 49) for _ in range(pretrained_strength.PASSES)]
