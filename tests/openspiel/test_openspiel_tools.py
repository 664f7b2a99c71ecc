"""OpenSpiel's own tools on the games: its bots through ``evaluate_bots``, ``rl_environment``
with its DQN agents, CFR, exact best response and exploitability on a small HUNGER, sampling
CFR on Hungry, and alpha-rank over a table of the suite's baselines playing as OpenSpiel
bots."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

import hunger_rl.openspiel  # noqa: E402,F401 - registers the games
from hunger_rl.policies.ismcts import SeededISMCTSBot  # noqa: E402
from hunger_rl.policies.openspiel_bot import PolicyBot  # noqa: E402
from hunger_rl.policies.registry import make_policy  # noqa: E402

# One day, two players: the event deck holds only the End card, so the show ends after the
# first day's picks; a fixed seed makes the deal, and so the game, deterministic.
SMALL_SHOW = "python_hunger_show(players=2,events=calm,deck_size=0,seed=3)"


def test_evaluate_bots_plays_mcts_against_a_baseline_bot():
    """OpenSpiel's MCTS (which searches the true state: it sees the hidden cards) beats the
    random policy playing as a PolicyBot, in seat-rotated games."""
    from open_spiel.python.algorithms import evaluate_bots, mcts

    game = pyspiel.load_game("python_hungry(players=2)")
    rng = np.random.RandomState(0)
    wins = 0
    for index in range(4):
        seat = index % 2
        searcher = mcts.MCTSBot(game, 2.0, 40, mcts.RandomRolloutEvaluator(1, rng),
                                random_state=rng)
        baseline = PolicyBot(game, 1 - seat, make_policy("random", "hungry", 2), seed=index)
        bots = [searcher, baseline] if seat == 0 else [baseline, searcher]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
        wins += returns[seat] == 1.0
    assert wins >= 3


def test_evaluate_bots_plays_ismcts_on_hungry():
    """ISMCTS, which searches resampled states only (the bot asserts that each has the root's
    information state), against random: it wins most games."""
    from open_spiel.python.algorithms import evaluate_bots

    game = pyspiel.load_game("python_hungry(players=2)")
    rng = np.random.RandomState(1)
    wins = 0
    for index in range(6):
        seat = index % 2
        searcher = SeededISMCTSBot(game, 30, seed=index)
        baseline = PolicyBot(game, 1 - seat, make_policy("random", "hungry", 2), seed=index)
        bots = [searcher, baseline] if seat == 0 else [baseline, searcher]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        wins += returns[seat] == 1.0
    assert wins >= 4


def test_evaluate_bots_plays_ismcts_on_the_turn_based_show():
    """ISMCTS needs sequential moves: on ``turn_based=true`` it searches states resampled from
    what its player knows (hidden values, the deck, the others' picks of the day) and beats
    random in most 2-player shows."""
    from open_spiel.python.algorithms import evaluate_bots

    wins = 0
    for index in range(4):
        game = pyspiel.load_game(f"python_hunger_show(players=2,seed={index},turn_based=true)")
        seat = index % 2
        searcher = SeededISMCTSBot(game, 30, seed=index)
        baseline = PolicyBot(game, 1 - seat, make_policy("random", "hunger_show", 2), seed=index)
        bots = [searcher, baseline] if seat == 0 else [baseline, searcher]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots,
                                              np.random.RandomState(index))
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
        wins += returns[seat] == 1.0
    assert wins >= 3


def test_evaluate_bots_plays_the_simultaneous_show():
    """Simultaneous nodes: every living player's bot steps, the eliminated get
    INVALID_ACTION; the returns are R1's and sum to zero."""
    from open_spiel.python.algorithms import evaluate_bots

    game = pyspiel.load_game("python_hunger_show(players=4,events=hard,seed=7)")
    bots = [PolicyBot(game, p, make_policy(spec, "hunger_show", 4), seed=p)
            for p, spec in enumerate(["expert", "random", "crowd", "greedy"])]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots,
                                          np.random.RandomState(0))
    assert math.isclose(sum(returns), 0, abs_tol=1e-9)
    assert all(r in (-1 / 3, 1.0) or -1 / 3 < r < 1.0 for r in returns)
    assert max(returns) > 0


def test_rl_environment_trains_dqn_agents_on_hungry():
    """OpenSpiel's DQN agents learn from ``rl_environment``: what they store is what the game
    gave them (their observations, their legal actions, the R1 rewards)."""
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import dqn

    game = pyspiel.load_game("python_hungry(players=2)")
    env = rl_environment.Environment(game, seed=0)
    size = env.observation_spec()["info_state"][0]
    assert size == 25 + 2 * 50 + 2 + 1 + 25 + 2 + 2  # hungry_v0's observation, 2 players
    agents = [dqn.DQN(p, state_representation_size=size, num_actions=50,
                      hidden_layers_sizes=[32], replay_buffer_capacity=2000, batch_size=16,
                      min_buffer_size_to_learn=32, learn_every=8, epsilon_decay_duration=500)
              for p in range(2)]
    returns = [0.0, 0.0]
    for _ in range(4):
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            state = env.get_state
            assert time_step.observations["info_state"][player] == state.observation_tensor(
                player)
            assert time_step.observations["legal_actions"][player] == state.legal_actions()
            output = agents[player].step(time_step)
            time_step = env.step([output.action])
        for agent in agents:
            agent.step(time_step)
        assert sorted(time_step.rewards) in ([-1.0, 1.0], [0.0, 0.0])
        returns = [r + g for r, g in zip(returns, time_step.rewards, strict=True)]
    for player, agent in enumerate(agents):
        stored = agent.replay_buffer.experience
        count = len(agent.replay_buffer)
        assert count == 4 * 24  # 24 plays a game for each of 2 players
        assert stored.reward[:count].sum() == returns[player]
        assert stored.is_final_step[:count].sum() == 4
        assert math.isfinite(agent.loss)


def test_rl_environment_steps_the_simultaneous_show():
    from open_spiel.python import rl_environment

    game = pyspiel.load_game("python_hunger_show(players=3,events=hard)")
    env = rl_environment.Environment(game, seed=0)
    assert env.num_actions_per_step == 3
    rng = np.random.default_rng(0)
    time_step, total = env.reset(), np.zeros(3)
    while not time_step.last():
        legal = time_step.observations["legal_actions"]
        time_step = env.step([int(rng.choice(actions)) if actions else pyspiel.INVALID_ACTION
                              for actions in legal])
        total += time_step.rewards
    assert total.tolist() == env.get_state.returns()
    assert math.isclose(total.sum(), 0, abs_tol=1e-9)


def one_day_payoffs(game) -> np.ndarray:
    """``payoffs[a, b]``: player 0's return when it picks ``a`` and player 1 picks ``b``."""
    payoffs = np.zeros((10, 10))
    for a, b in itertools.product(range(10), repeat=2):
        state = game.new_initial_state()
        state.apply_actions([a, b])
        assert state.is_terminal()
        payoffs[a, b] = state.returns()[0]
    return payoffs


def test_best_response_exploitability_and_cfr_on_a_one_day_show():
    """The small variant: exact best response against uniform play equals the best row of the
    payoff matrix, computed here game by game; CFR's average policy drives the exploitability
    (NashConv) far below uniform play's."""
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import best_response, cfr, exploitability

    game = pyspiel.load_game(SMALL_SHOW)
    turn_based = pyspiel.convert_to_turn_based(game)
    payoffs = one_day_payoffs(game)
    uniform = policy_lib.UniformRandomPolicy(turn_based)
    for player, matrix in ((0, payoffs), (1, -payoffs.T)):
        response = best_response.BestResponsePolicy(turn_based, player, uniform)
        assert response.value(turn_based.new_initial_state()) == pytest.approx(
            matrix.mean(axis=1).max())
    uniform_conv = exploitability.nash_conv(turn_based, uniform)
    assert uniform_conv == pytest.approx(payoffs.mean(axis=1).max()
                                         + (-payoffs.T).mean(axis=1).max())
    solver = cfr.CFRSolver(turn_based)
    for _ in range(30):
        solver.evaluate_and_update_policy()
    assert exploitability.nash_conv(turn_based, solver.average_policy()) < uniform_conv / 10


def test_outcome_sampling_mccfr_runs_on_full_hungry():
    """Too large for exact tools, Hungry takes OpenSpiel's sampling CFR: after some iterations
    its average policy is, at every decision of a game, a distribution over the legal actions
    (information states that share a key share their legal actions)."""
    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = pyspiel.load_game("python_hungry(players=2)")
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    for _ in range(20):
        solver.iteration()
    policy = solver.average_policy()
    state, rng = game.new_initial_state(), np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
            continue
        probabilities = policy.action_probabilities(state)
        assert sorted(probabilities) == state.legal_actions()
        assert sum(probabilities.values()) == pytest.approx(1)
        state.apply_action(max(probabilities, key=probabilities.get))


def test_alpharank_ranks_the_baselines():
    """A table of mean returns between random, greedy and expert (each pairing in both seats,
    through OpenSpiel's ``evaluate_bots``; a policy against itself scores 0 by symmetry):
    alpha-rank puts the most mass on expert and the least on random."""
    from open_spiel.python.algorithms import evaluate_bots
    from open_spiel.python.egt import alpharank

    game = pyspiel.load_game("python_hungry(players=2)")
    specs = ["random", "greedy", "expert"]
    table = np.zeros((3, 3))
    rng = np.random.RandomState(0)
    games = 10
    for i, j in itertools.combinations(range(3), 2):
        for index in range(games):
            seat = index % 2
            policies = [make_policy(specs[i], "hungry", 2), make_policy(specs[j], "hungry", 2)]
            if seat == 1:
                policies.reverse()
            bots = [PolicyBot(game, p, policy, seed=index) for p, policy in enumerate(policies)]
            returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
            table[i, j] += returns[seat] / games
        table[j, i] = -table[i, j]
    assert table[2, 0] > table[1, 0] > 0  # expert beats random by more than greedy does
    _, _, pi, _, _ = alpharank.compute([table], alpha=10)
    assert np.argmax(pi) == specs.index("expert") and np.argmin(pi) == specs.index("random")
