"""hungry_v0 against PettingZoo's own checks, plus its options, errors and information rules."""

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from hunger_rl.engines.hungry.engine import FULL_DECK, HungryState, IllegalActionError
from hunger_rl.engines.validation import InvalidInputError
from hunger_rl.envs import hungry_v0

PLAYER_COUNTS = [2, 3, 4]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_api(num_players):
    api_test(hungry_v0.env(num_players=num_players), num_cycles=200)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed(num_players):
    seed_test(lambda **kw: hungry_v0.env(num_players=num_players, **kw), num_cycles=100)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_render(num_players, capsys):
    render_test(lambda **kw: hungry_v0.env(num_players=num_players, **kw))


def test_ansi_and_rgb_show_the_table():
    env = hungry_v0.env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "home 1*" in text and "purple hotel" in text and "deck 24" in text
    assert "player_0 to move" in text
    picture = hungry_v0.env(num_players=3, render_mode="rgb_array")
    picture.reset(seed=0)
    image = picture.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[0] > 100 and image.shape[1] > 200


@pytest.mark.parametrize("bad", [1, 5, 0])
def test_player_count_outside_2_to_4_is_refused(bad):
    with pytest.raises(ValueError, match="2 to 4 players"):
        hungry_v0.env(num_players=bad)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"reward": "points"}, "reward must be one of"),
        ({"first_player": "player_7"}, "first_player must be"),
        ({"tied_second": "maybe"}, "tied_second must be one of"),
        ({"render_mode": "video"}, "render_mode must be one of"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of"),
    ],
)
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        hungry_v0.env(**kwargs)


def test_action_helpers():
    purple_three = hungry_v0.card_type(4, 3)
    assert purple_three == 22
    assert hungry_v0.encode_action(purple_three, 1) == 45
    assert hungry_v0.decode_action(45) == (22, 1)
    assert hungry_v0.describe_action(45) == "purple-3 -> purple hotel"
    assert hungry_v0.describe_action(44) == "purple-3 -> home 3*"
    for action in range(50):
        assert hungry_v0.encode_action(*hungry_v0.decode_action(action)) == action
    with pytest.raises(ValueError):
        hungry_v0.decode_action(50)
    with pytest.raises(ValueError):
        hungry_v0.card_type(5, 1)


def sorted_deck():
    return list(FULL_DECK)


def test_deck_option_deals_from_the_top():
    env = hungry_v0.raw_env(num_players=2)
    env.reset(options={"deck": sorted_deck()})
    game = env.game
    assert game.removed == [0, 0]
    assert np.flatnonzero(game.hands[0]).tolist() == [1, 2, 3, 4]
    assert np.flatnonzero(game.hands[1]).tolist() == [5, 6, 7, 8]
    assert game.deck[:4] == [9, 9, 10, 10] and len(game.deck) == 32


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (list(FULL_DECK)[:-1], "exactly 50 cards"),
        (list(FULL_DECK)[:-1] + [0], "wrong counts"),
        (list(FULL_DECK)[:-1] + [25], "outside 0..24"),
        (list(FULL_DECK)[:-1] + [3.0], "integer card types"),
        ("red", r'options\["deck"\]: expected a list of card types, got str'),
    ],
)
def test_bad_deck_is_refused(deck, message):
    env = hungry_v0.raw_env(num_players=2)
    with pytest.raises(InvalidInputError, match=message):
        env.reset(options={"deck": deck})


def test_unknown_reset_option_warns():
    env = hungry_v0.raw_env()
    with pytest.warns(UserWarning, match="unknown reset options"):
        env.reset(options={"decks": []})


def test_same_seed_same_deal_and_different_seed_different_deal():
    first, second, third = (hungry_v0.raw_env(num_players=4) for _ in range(3))
    first.reset(seed=11)
    second.reset(seed=11)
    third.reset(seed=12)
    assert first.game.to_dict() == second.game.to_dict()
    assert first.game.to_dict() != third.game.to_dict()


def test_random_first_player_is_seeded_and_varies():
    starters = set()
    for seed in range(20):
        a, b = hungry_v0.raw_env(first_player="random"), hungry_v0.raw_env(first_player="random")
        a.reset(seed=seed)
        b.reset(seed=seed)
        assert a.agent_selection == b.agent_selection
        starters.add(a.agent_selection)
    assert starters == {"player_0", "player_1"}


def test_named_first_player():
    env = hungry_v0.raw_env(num_players=3, first_player="player_2")
    env.reset(seed=0)
    assert env.agent_selection == "player_2"
    assert env.game.current_player == 2


def test_illegal_action_raises_and_leaves_the_game_unchanged():
    env = hungry_v0.env(num_players=2)
    env.reset(options={"deck": sorted_deck()})
    before = env.unwrapped.game.to_dict()
    # player_0 holds red 2-5 (types 1-4) only; type 0 (red-1) is not in its hand.
    with pytest.raises(IllegalActionError, match=r"action 0 \(red-1 -> home 1\*\).*legal actions"):
        env.step(0)
    assert env.unwrapped.game.to_dict() == before
    assert env.agent_selection == "player_0"
    env.step(2)  # red-2 to its home: legal
    assert env.unwrapped.game.num_plays == 1


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (50, ValueError, "outside the action space"),
        (-1, ValueError, "outside the action space"),
        (2.0, TypeError, "must be an integer"),
        ("2", TypeError, "must be an integer"),
        (True, TypeError, "must be an integer"),
        (None, TypeError, "must be an integer"),
    ],
)
def test_wrong_action_type_or_range(action, error, message):
    env = hungry_v0.env(num_players=2)
    env.reset(seed=0)
    before = env.unwrapped.game.to_dict()
    with pytest.raises(error, match=message):
        env.step(action)
    assert env.unwrapped.game.to_dict() == before


def test_numpy_integer_actions_are_accepted():
    env = hungry_v0.env(num_players=2)
    env.reset(options={"deck": sorted_deck()})
    env.step(np.int64(2))
    env.step(np.array(11))
    assert env.unwrapped.game.history == [2, 11]


def test_step_after_the_end_and_finished_agents():
    env = hungry_v0.raw_env(num_players=2)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    while not env.game.is_over:
        env.step(int(rng.choice(env.game.legal_actions())))
    assert all(env.terminations.values())
    with pytest.raises(ValueError, match="must be stepped with None"):
        env.step(0)
    env.step(None)
    env.step(None)
    assert env.agents == []
    with pytest.raises(IllegalActionError, match="game is over"):
        env.step(None)


def test_final_infos_and_rewards():
    env = hungry_v0.env(num_players=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    final = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            final[agent] = (reward, info)
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert set(final) == {"player_0", "player_1", "player_2"}
    assert env.unwrapped.winners == [f"player_{p}" for p in env.unwrapped.game.score().winners]
    score = HungryState.from_dict(env.unwrapped.game.to_dict()).score()
    winners = [f"player_{p}" for p in score.winners]
    for agent, (reward, info) in final.items():
        player = int(agent[-1])
        share = 1 / len(winners) if agent in winners else 0.0
        assert info == {"score": score.players[player].total, "win_share": share}
        assert env.unwrapped.breakdown[agent] == score.players[player].as_dict()
        assert reward == pytest.approx(3 / 2 * (share - 1 / 3))


@pytest.mark.parametrize("action_mask", ["observation", "info"])
def test_infos_hold_the_scores_of_every_step(action_mask):
    # The env keeps infos whose scores did not change; they must still be every step's own.
    env = hungry_v0.raw_env(num_players=4, action_mask=action_mask)
    rng = np.random.default_rng(2)
    kept = 0
    for seed in range(6):
        env.reset(seed=seed)
        while not env.game.is_over:
            before = env.infos
            env.step(int(rng.choice(env.game.legal_actions())))
            kept += env.infos is before
            score = HungryState.from_dict(env.game.to_dict()).score()
            shares = ({p: 1 / len(score.winners) for p in score.winners} if env.game.is_over
                      else {})
            for player, agent in enumerate(env.possible_agents):
                info = dict(env.infos[agent])
                if action_mask == "info":
                    np.testing.assert_array_equal(info.pop("action_mask"),
                                                  env.game.legal_mask(player))
                assert info == {"score": score.players[player].total,
                                "win_share": shares.get(player, 0.0)}
    assert (kept > 0) == (action_mask == "observation")


def test_score_reward_mode_is_zero_sum_margin():
    env = hungry_v0.raw_env(num_players=3, reward="score")
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    while not env.game.is_over:
        env.step(int(rng.choice(env.game.legal_actions())))
    totals = env.game.score().totals
    for player, agent in enumerate(env.possible_agents):
        others = (sum(totals) - totals[player]) / 2
        assert env.rewards[agent] == pytest.approx((totals[player] - others) / 10)
    assert sum(env.rewards.values()) == pytest.approx(0.0)


def test_terminate_mode_follows_pettingzoo_convention():
    env = hungry_v0.env(num_players=3, illegal_action="terminate")
    env.reset(options={"deck": sorted_deck()})
    env.step(0)  # player_0 holds no red-1
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}


def test_observation_layout_from_the_observers_seat():
    env = hungry_v0.raw_env(num_players=3)
    env.reset(options={"deck": sorted_deck()})
    env.step(2)  # player_0: red-2 (type 1) to home 2
    env.step(11)  # player_1: blue-1 (type 5) to the blue hotel
    layout = env.observation_layout
    assert list(layout) == [
        "hand",
        "placed",
        "hand_sizes",
        "deck_size",
        "unseen",
        "scores",
        "to_move",
    ]
    assert layout["to_move"].stop == 51 + 53 * 3
    obs = env.observe("player_1")["observation"]
    placed = obs[layout["placed"]].reshape(3, 50)
    assert placed[0, 11] == 1 and placed[0].sum() == 1  # seat 0 is the observer
    assert placed[2, 2] == 1 and placed[2].sum() == 1  # player_0 is two seats after player_1
    assert obs[layout["hand_sizes"]].tolist() == [8, 8, 8]
    assert obs[layout["deck_size"]][0] == 24 - 2
    assert obs[layout["to_move"]].tolist() == [0, 1, 0]  # player_2 moves next
    # player_0 played home 2 (2 points), player_1 the blue hotel (5 points)
    assert obs[layout["scores"]].tolist() == [5, 0, 2]
    hand = obs[layout["hand"]]
    unseen = obs[layout["unseen"]]
    assert (hand + unseen + placed.reshape(3, 25, 2).sum(axis=(0, 2)) == 2).all()
    assert env.observe("player_1")["action_mask"].sum() == 0
    mask = env.observe("player_2")["action_mask"]
    assert mask.dtype == np.int8
    assert np.flatnonzero(mask).tolist() == env.game.legal_actions(2)


def test_observation_reveals_no_hidden_cards():
    """Two deals that differ only in another player's hand give player_0 the same view."""
    deck = sorted_deck()
    swapped = list(deck)
    # Exchange one card of player_1's hand (positions 10-17) with one of the draw deck (>= 26).
    swapped[10], swapped[40] = swapped[40], swapped[10]
    views = []
    for order in (deck, swapped):
        env = hungry_v0.raw_env(num_players=3)
        env.reset(options={"deck": order})
        views.append(env.observe("player_0"))
    assert np.array_equal(views[0]["observation"], views[1]["observation"])
    assert np.array_equal(views[0]["action_mask"], views[1]["action_mask"])


def test_state_round_trips_through_json_and_clones_independently():
    env = hungry_v0.raw_env(num_players=4)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(20):
        env.step(int(rng.choice(env.game.legal_actions())))
    data = json.loads(json.dumps(env.game.to_dict()))
    restored = HungryState.from_dict(data)
    assert restored.to_dict() == env.game.to_dict()
    assert restored.places == env.game.places
    clone = env.game.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert clone.num_plays == env.game.num_plays + 1
    assert restored.to_dict() == env.game.to_dict()


def test_corrupt_state_dict_is_refused():
    data = HungryState.new_game(2, np.random.default_rng(0)).to_dict()
    data["hands"][0][0] += 1
    with pytest.raises(ValueError, match="exactly twice"):
        HungryState.from_dict(data)
    with pytest.raises(ValueError, match="not a Hungry state"):
        HungryState.from_dict({"num_players": 2})


def test_demo_prints_a_whole_game(capsys):
    hungry_v0.demo(num_players=2, seed=0)
    out = capsys.readouterr().out
    assert out.count("->") == 48
    assert "game over" in out and ("winner:" in out or "shared draw:" in out)
