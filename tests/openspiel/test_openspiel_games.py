"""python_hungry and python_hunger_show as OpenSpiel sees them: their types, OpenSpiel's own
random-simulation checks, chance, clones, serialisation, determinisation, and clear errors for
bad parameters and illegal actions."""

from __future__ import annotations

import base64
import json
import os
import pickle
import re
import shlex

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

import hunger_rl.openspiel  # noqa: E402,F401 - registers the games
from hunger_rl.engines.hungry.engine import NUM_CARD_TYPES  # noqa: E402
from hunger_rl.engines.validation import IllegalActionError, InvalidValueError  # noqa: E402
from hunger_rl.openspiel.states import StateTextError, UnsupportedCallError  # noqa: E402

GameType = pyspiel.GameType


def random_play(state, rng: np.random.Generator, steps: int) -> None:
    """Up to ``steps`` random moves (chance by its probabilities, a joint action a day)."""
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p)))
                                 if state.legal_actions(p) else pyspiel.INVALID_ACTION
                                 for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))


def test_load_game_builds_both_games_with_their_types():
    hungry = pyspiel.load_game("python_hungry(players=3)")
    assert hungry.num_players() == 3 and hungry.num_distinct_actions() == 50
    kind = hungry.get_type()
    assert (kind.dynamics, kind.chance_mode, kind.information, kind.utility,
            kind.reward_model) == (GameType.Dynamics.SEQUENTIAL,
                                   GameType.ChanceMode.EXPLICIT_STOCHASTIC,
                                   GameType.Information.IMPERFECT_INFORMATION,
                                   GameType.Utility.ZERO_SUM, GameType.RewardModel.TERMINAL)
    assert hungry.min_utility() == -0.5 and hungry.max_utility() == 1.0
    show = pyspiel.load_game("python_hunger_show(players=5,events=hard,characters=True)")
    assert show.num_players() == 5 and show.num_distinct_actions() == 20
    kind = show.get_type()
    assert (kind.dynamics, kind.chance_mode, kind.reward_model) == (
        GameType.Dynamics.SIMULTANEOUS, GameType.ChanceMode.SAMPLED_STOCHASTIC,
        GameType.RewardModel.REWARDS)
    # 5 players: Campsite, Beach, Jungle and Mountains are all in play (S1).
    assert show.new_initial_state().legal_actions(4) == list(range(20))
    assert pyspiel.load_game("python_hunger_show(players=2)").new_initial_state(
    ).legal_actions(0) == list(range(10))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hungry_passes_openspiel_random_simulation_checks(players):
    game = pyspiel.load_game(f"python_hungry(players={players},first_player=random)")
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 4, 6])
def test_hunger_show_passes_openspiel_random_simulation_checks(players):
    # OpenSpiel serialises a sampled-stochastic game with its RNG state, which a Python game
    # cannot give it; states serialise on their own (below).
    game = pyspiel.load_game(f"python_hunger_show(players={players},characters=True)")
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_hungry_chance_turns_cards_by_their_copies_left():
    state = pyspiel.load_game("python_hungry(players=2)").new_initial_state()
    assert state.chance_outcomes() == [(card, 2 / 50) for card in range(NUM_CARD_TYPES)]
    state.apply_action(7)  # the first removed card
    outcomes = dict(state.chance_outcomes())
    assert outcomes[7] == 1 / 49 and outcomes[0] == 2 / 49
    assert sum(outcomes.values()) == pytest.approx(1)
    random_state = pyspiel.load_game("python_hungry(players=4,first_player=random)")
    assert random_state.new_initial_state().chance_outcomes() == [(s, 0.25) for s in range(4)]


def test_hungry_deal_then_draws_follow_the_engine():
    """After the deal the first player moves; before each play while the deck lasts, chance
    turns the card the mover then draws."""
    state = pyspiel.load_game("python_hungry(players=2,first_player=player_1)").new_initial_state()
    deal = [0, 0] + [1, 1, 2, 2, 3, 3, 4, 4] + [5, 5, 6, 6, 7, 7, 8, 8]
    for card in deal:
        state.apply_action(card)
    assert state.is_chance_node()  # the top card for player_1's first turn
    state.apply_action(24)
    assert state.current_player() == 1
    assert state.legal_actions() == [10, 11, 12, 13, 14, 15, 16, 17]
    state.apply_action(10)  # player_1 plays a card of type 5 to its home and draws type 24
    assert state.observation_tensor(1)[5] == 1 and state.observation_tensor(1)[24] == 1
    assert state.current_player() == pyspiel.PlayerId.CHANCE


def test_bad_parameters_get_clear_errors():
    cases = [
        ("python_hungry(players=5)", InvalidValueError, "2 to 4 players, got players=5"),
        ("python_hungry(first_player=player_3)", InvalidValueError, "first_player must be"),
        ("python_hungry(tied_second=maybe)", InvalidValueError, "tied_second must be one of"),
        ("python_hunger_show(players=7)", InvalidValueError, "show: players must be 2 to 6"),
        ("python_hunger_show(events=nasty)", InvalidValueError, "events must be one of"),
        ("python_hunger_show(events=calm,deck_size=30)", InvalidValueError, "Calm day cards"),
        ("python_hunger_show(seed=-3)", InvalidValueError, "seed must be -1"),
    ]
    for spec, error, message in cases:
        with pytest.raises(error, match=message):
            pyspiel.load_game(spec)
    # OpenSpiel itself refuses unknown names and wrong types, naming the parameter.
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        pyspiel.load_game("python_hungry(colour=1)")
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter players"):
        pyspiel.load_game("python_hunger_show(players=four)")
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter players"):
        pyspiel.load_game("python_hungry", {"players": 2.0})


def test_illegal_actions_get_clear_errors_and_change_nothing():
    rng = np.random.default_rng(0)
    state = pyspiel.load_game("python_hungry(players=2)").new_initial_state()
    with pytest.raises(IllegalActionError, match="chance cannot turn card type 30"):
        state.apply_action(30)
    random_play(state, rng, 30)
    while state.is_chance_node():
        random_play(state, rng, 1)
    before, history = state.observation_tensor(0), state.history()
    illegal = next(a for a in range(50) if a not in state.legal_actions())
    with pytest.raises(IllegalActionError, match=f"cannot play action {illegal}"):
        state.apply_action(illegal)
    assert state.observation_tensor(0) == before and state.history() == history

    show = pyspiel.load_game("python_hunger_show(players=2)").new_initial_state()
    with pytest.raises(IllegalActionError, match="action 10 is not legal"):
        show.apply_actions([0, 10])  # the Jungle is not in play with 2 players
    with pytest.raises(IllegalActionError, match="a joint action holds 2 actions"):
        show.apply_actions([0, 1, 2])
    assert show.history() == [] and show.show.day == 0


def test_an_eliminated_player_is_absent_from_the_joint_action():
    game = pyspiel.load_game("python_hunger_show(players=3,events=hard,seed=1)")
    rng = np.random.default_rng(1)
    for _ in range(50):
        state = game.new_initial_state()
        while not state.is_terminal():
            out = [p for p in range(3) if not state.show.alive[p]]
            if out:
                break
            random_play(state, rng, 1)
        if out and not state.is_terminal():
            break
    else:
        pytest.fail("no 3-player show kept going after an elimination")
    gone = out[0]
    assert state.legal_actions(gone) == []
    joint = [0 if p != gone else 3 for p in range(3)]
    with pytest.raises(IllegalActionError, match=f"player_{gone} is eliminated"):
        state.apply_actions(joint)
    # R1: the eliminated player was paid -1/(N-1) when it left, and is paid nothing more.
    assert state.returns()[gone] == -0.5
    joint[gone] = pyspiel.INVALID_ACTION
    state.apply_actions(joint)
    assert state.returns()[gone] == -0.5


@pytest.mark.parametrize("spec", ["python_hungry(players=3)", "python_hunger_show(players=4)"])
def test_clones_are_independent_and_states_serialise(spec):
    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    random_play(state, np.random.default_rng(2), 60)
    clone = state.clone()
    restored = game.deserialize_state(state.serialize())
    for copy in (clone, restored):
        assert copy.history() == state.history()
        assert copy.observation_tensor(1) == state.observation_tensor(1)
        assert copy.information_state_string(0) == state.information_state_string(0)
    # Playing on from the copies with the same moves gives the same games.
    random_play(state, np.random.default_rng(3), 500)
    random_play(restored, np.random.default_rng(3), 500)
    random_play(clone, np.random.default_rng(3), 500)
    assert state.returns() == restored.returns() == clone.returns()
    assert state.history() == restored.history() == clone.history()


def test_hungry_game_and_state_serialise_together():
    game = pyspiel.load_game("python_hungry(players=2,tied_second=void)")
    state = game.new_initial_state()
    random_play(state, np.random.default_rng(4), 40)
    game2, state2 = pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, state))
    assert str(game2) == str(game) and state2.history() == state.history()
    assert state2.engine.to_dict() == state.engine.to_dict()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_hungry_resampling_keeps_what_the_player_knows(players):
    game = pyspiel.load_game(f"python_hungry(players={players},first_player=random)")
    state = game.new_initial_state()
    random_play(state, np.random.default_rng(players), 20 + 15 * players)
    assert not state.is_terminal()
    while state.is_chance_node():
        random_play(state, np.random.default_rng(0), 1)
    player = state.current_player()
    other = (player + 1) % players
    sampler = pyspiel.UniformProbabilitySampler(players, 0.0, 1.0)
    hands = set()
    for _ in range(20):
        world = state.resample_from_infostate(player, sampler)
        assert world.information_state_string(player) == state.information_state_string(player)
        assert world.observation_tensor(player) == state.observation_tensor(player)
        assert world.legal_actions() == state.legal_actions()
        # The plays (not the chance outcomes) are the same, in the same order.
        assert world.engine.history == state.engine.history
        assert world.engine.hand_sizes.tolist() == state.engine.hand_sizes.tolist()
        hands.add(tuple(world.engine.hands[other]))
    assert len(hands) > 1  # the other hands are drawn afresh


def test_hunger_show_resampling_keeps_what_the_player_knows():
    game = pyspiel.load_game("python_hunger_show(players=4,seed=0)")
    state = game.new_initial_state()
    random_play(state, np.random.default_rng(5), 3)
    assert not state.is_terminal()
    sampler = pyspiel.UniformProbabilitySampler(0, 0.0, 1.0)
    others = set()
    for _ in range(10):
        world = state.resample_from_infostate(2, sampler)
        assert world.information_state_string(2) == state.information_state_string(2)
        assert world.observation_tensor(2) == state.observation_tensor(2)
        assert sorted(world.show.deck) == sorted(state.show.deck)
        others.add(tuple(world.show.piles[1][0]))
    assert len(others) > 1  # the Beach's fruit pile is redrawn


def test_turn_based_show_plays_the_same_days_as_the_simultaneous_one():
    """``turn_based=true``: the picks one at a time in seat order, the day resolved after the
    last living player's; the same seed and picks give the same show."""
    rng = np.random.default_rng(6)
    for seed in range(5):
        simultaneous = pyspiel.load_game(f"python_hunger_show(players=3,seed={seed})")
        turn_based = pyspiel.load_game(f"python_hunger_show(players=3,seed={seed},"
                                       "turn_based=true)")
        assert turn_based.get_type().dynamics == GameType.Dynamics.SEQUENTIAL
        joint, sequential = simultaneous.new_initial_state(), turn_based.new_initial_state()
        while not joint.is_terminal():
            picks = [int(rng.integers(15)) if joint.legal_actions(p) else pyspiel.INVALID_ACTION
                     for p in range(3)]
            joint.apply_actions(picks)
            for player, pick in enumerate(picks):
                if pick != pyspiel.INVALID_ACTION:
                    assert sequential.current_player() == player
                    sequential.apply_action(pick)
            assert sequential.observation_tensor(1) == joint.observation_tensor(1)
        assert sequential.is_terminal() and sequential.returns() == joint.returns()


def test_turn_based_picks_stay_hidden_until_the_day_resolves():
    game = pyspiel.load_game("python_hunger_show(players=3,turn_based=true)")
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)
    state = game.new_initial_state()
    before = state.information_state_string(1)
    state.apply_action(7)  # player_0 picks
    assert state.current_player() == 1
    assert state.information_state_string(1) == before
    assert state.information_state_string(0).endswith("picked raft@beach")
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    picks = {state.resample_from_infostate(1, sampler).picks[0] for _ in range(10)}
    assert len(picks) > 1  # player_1 does not know player_0's pick
    assert {state.resample_from_infostate(0, sampler).picks[0] for _ in range(5)} == {7}
    random_play(state, np.random.default_rng(0), 200)
    with pytest.raises(IllegalActionError, match="the show is over"):
        state.apply_action(0)


def crafted_state_text(command: str) -> str:
    """OpenSpiel's form of a Python game's state, its attributes a pickle that runs
    ``command`` when unpickled (``pickle.loads``, which OpenSpiel's own deserialisation calls)."""

    class RunsACommand:
        def __reduce__(self):
            return os.system, (command,)

    payload = base64.b64encode(pickle.dumps({"engine": RunsACommand()})).decode()
    return f"history=\nmove_number=0\n__dict__={payload}"


@pytest.mark.parametrize("spec", ["python_hungry", "python_hunger_show(players=3)"])
def test_a_crafted_state_string_is_refused_and_runs_nothing(spec, tmp_path):
    """Issue 50: ``deserialize_state`` unpickled the text, so this ran the command."""
    game = pyspiel.load_game(spec)
    ran = tmp_path / "ran"
    text = crafted_state_text(f"touch {shlex.quote(str(ran))}")
    with pytest.raises(StateTextError, match="OpenSpiel's own form, whose pickle it does not "
                                             "read"):
        game.deserialize_state(text)
    assert not ran.exists()
    # The same text without its prefix is no JSON either; and the payload does run a command
    # when unpickled, so the refusal above is what kept it from running.
    with pytest.raises(StateTextError, match="this is not JSON"):
        game.deserialize_state(text.split("__dict__=")[1])
    assert not ran.exists()
    pickle.loads(base64.b64decode(text.split("__dict__=")[1]))
    assert ran.exists()


@pytest.mark.parametrize(("spec", "edit", "message"), [
    ("python_hungry", lambda d: {**d, "game": "python_hunger_show"},
     "this one's game is str 'python_hunger_show'"),
    ("python_hungry", lambda d: {**d, "version": 2}, "its version is int 2"),
    ("python_hungry", lambda d: {**d, "history": d["history"] + [0, 0, 0]},
     "a serialised state's move 60 cannot be played"),
    ("python_hungry", lambda d: {**d, "history": [0.5]}, "must be a list of actions"),
    ("python_hungry", lambda d: {**d, "extra": 1}, "missing [], unknown ['extra']"),
    ("python_hunger_show(players=3)", lambda d: {**d, "deal_seed": -1},
     "deal_seed must be an integer from 0"),
    ("python_hunger_show(players=3)", lambda d: {**d, "history": d["history"] + [99, 0, 0]},
     "move 6 cannot be played: player_0: action 99 is not legal"),
    ("python_hunger_show(players=3)", lambda d: {**d, "show": {**d["show"], "day": 0}},
     "state's show is not a show of this game after its history"),
    ("python_hunger_show(players=3)", lambda d: {**d, "show": {"config": {}}},
     "state's show is not one"),
    ("python_hunger_show(players=3)", lambda d: {**d, "picks": [1, None, None]},
     "picks must be a legal pick for each player who has picked today"),
    ("python_hunger_show(players=3)", lambda d: {**d, "last_event": "Meteor"},
     "last_event must be an event card's name or null"),
])
def test_a_serialised_state_that_is_not_one_is_refused_naming_why(spec, edit, message):
    game = pyspiel.load_game(spec)
    state = game.new_initial_state()
    random_play(state, np.random.default_rng(8), 60 if "hungry" in spec else 2)
    data = json.loads(state.serialize())
    assert game.deserialize_state(json.dumps(data)).history() == state.history()
    with pytest.raises(StateTextError, match=re.escape(message)):
        game.deserialize_state(json.dumps(edit(data)))
    for text in ("", "[" * 100_000, 42):
        with pytest.raises(StateTextError, match="a serialised state is the JSON that"):
            game.deserialize_state(text)


def test_a_resampled_show_serialises_as_itself():
    """The show a resampled state holds is not its deal seed's: it is serialised with it."""
    game = pyspiel.load_game("python_hunger_show(players=3,turn_based=true)")
    state = game.new_initial_state()
    random_play(state, np.random.default_rng(9), 7)  # two days and a pick
    world = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))
    assert world.show.to_dict() != state.show.to_dict()
    restored = game.deserialize_state(world.serialize())
    assert restored.show.to_dict() == world.show.to_dict() and restored.picks == world.picks
    assert restored.information_state_string(1) == world.information_state_string(1)
    assert restored.observation_tensor(2) == world.observation_tensor(2)


@pytest.mark.parametrize(("spec", "call", "message"), [
    # Issue 50: OpenSpiel's "Tried to call pure virtual function".
    ("python_hungry", lambda s: s.apply_actions([0, 0]),
     "python_hungry does not support apply_actions(): it is turn-based"),
    ("python_hunger_show", lambda s: s.chance_outcomes(),
     "python_hunger_show does not support chance_outcomes(): its chance is sampled"),
    ("python_hungry", lambda s: s.distribution_support(),
     "python_hungry does not support distribution_support(): it is not a mean-field game"),
    ("python_hunger_show", lambda s: s.update_distribution([1.0]),
     "python_hunger_show does not support update_distribution()"),
])
def test_calls_the_games_do_not_support_get_an_error_of_ours(spec, call, message):
    state = pyspiel.load_game(spec).new_initial_state()
    with pytest.raises(UnsupportedCallError, match=re.escape(message)):
        call(state)
