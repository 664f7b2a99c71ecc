"""``state()`` and ``state_space`` of both games: every field against the engine, the bounds,
PettingZoo's own state checks, and that a hidden value reaches the state but no observation."""

import numpy as np
import pytest
from pettingzoo.test.state_test import state_test

from hunger_rl.engines.hunger_show.observation import OWN_COLUMNS, observation_tables
from hunger_rl.engines.hunger_show.tokens import (
    CAN,
    CAN_VALUES,
    CHARACTERS,
    END,
    EVENT_CARD_NAMES,
    RAFT,
    SUPPLY,
)
from hunger_rl.engines.hungry.engine import COPIES_PER_TYPE, NUM_CARD_TYPES
from hunger_rl.engines.validation import NotResetError
from hunger_rl.envs import hunger_show_v0, hungry_v0

HUNGRY_PLAYERS = [2, 3, 4]
SHOW_PLAYERS = [2, 3, 4, 5, 6]
SHOW_STATE_FIELDS = [
    "holdings", "token_counts", "alive", "leader", "playing_order", "last_choices",
    "known_values", "character", "day", "piles", "coconuts_left", "events_left", "last_event",
    "pile_contents", "coconut_stack", "event_deck", "end_position", "out",
]


def random_legal(mask, rng):
    return int(rng.choice(np.flatnonzero(mask)))


# -- Hungry -----------------------------------------------------------------------------------


def expected_hungry_state(game):
    """Each field of the Hungry state, computed from the engine's own records."""
    n = game.num_players
    to_move = np.zeros(n)
    if not game.is_over:
        to_move[game.current_player] = 1
    return {
        "hands": game.hands.ravel(),
        "placed": game.placed.ravel(),
        "hand_sizes": game.hands.sum(axis=1),
        "deck_size": [len(game.deck)],
        "deck": [game.deck.count(card) for card in range(NUM_CARD_TYPES)],
        "removed": [game.removed.count(card) for card in range(NUM_CARD_TYPES)],
        "scores": game.score().totals,
        "to_move": to_move,
    }


@pytest.mark.parametrize("num_players", HUNGRY_PLAYERS)
def test_hungry_state_fields_match_the_engine(num_players):
    env = hungry_v0.raw_env(num_players=num_players, first_player="random")
    layout = env.state_layout
    assert list(layout) == ["hands", "placed", "hand_sizes", "deck_size", "deck", "removed",
                            "scores", "to_move"]
    rng = np.random.default_rng(num_players)
    for seed in range(12):
        env.reset(seed=seed)
        while True:
            state = env.state()
            assert state.dtype == np.float32 and env.state_space.contains(state)
            for name, expected in expected_hungry_state(env.game).items():
                np.testing.assert_array_equal(state[layout[name]], expected, err_msg=name)
            # Every card is in exactly one place: a hand, the board, the deck or the box.
            per_type = (state[layout["hands"]].reshape(num_players, -1).sum(axis=0)
                        + state[layout["placed"]].reshape(num_players, -1, 2).sum(axis=(0, 2))
                        + state[layout["deck"]] + state[layout["removed"]])
            assert (per_type == COPIES_PER_TYPE).all()
            if env.game.is_over:
                break
            env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))


def test_hungry_opponent_hand_changes_the_state_but_not_the_other_observations():
    env = hungry_v0.raw_env(num_players=3)
    env.reset(seed=5)
    before_state = env.state()
    before = {agent: env.observe(agent)["observation"] for agent in env.agents}
    game = env.game
    # Swap a card of player_1's hand with a deck card of another type.
    held = int(np.flatnonzero(game.hands[1])[0])
    position = next(i for i, card in enumerate(game.deck) if card != held)
    drawn = game.deck[position]
    data = game.to_dict()
    data["hands"][1][held] -= 1
    data["hands"][1][drawn] += 1
    data["deck"][position] = held
    env.game = type(game).from_dict(data)
    after_state = env.state()
    layout = env.state_layout
    changed = {name for name, part in layout.items()
               if not np.array_equal(before_state[part], after_state[part])}
    assert changed == {"hands", "deck"}
    for agent in ("player_0", "player_2"):
        np.testing.assert_array_equal(env.observe(agent)["observation"], before[agent])
    assert not np.array_equal(env.observe("player_1")["observation"], before["player_1"])


@pytest.mark.parametrize("num_players", [2, 4])
def test_hungry_pettingzoo_state_test(num_players):
    # The state test samples unmasked actions: the first illegal one ends the game.
    state_test(hungry_v0.env(num_players=num_players, illegal_action="terminate"),
               hungry_v0.env(num_players=num_players), num_cycles=60)


def test_hungry_state_before_reset_is_refused():
    with pytest.raises(NotResetError, match="reset"):
        hungry_v0.raw_env().state()


# -- HUNGER: The Show -------------------------------------------------------------------------


def token_class(game, token):
    """The ``OWN_COLUMNS`` column of a token (cans by value, whatever their colour)."""
    category, value = game.category[token], game.value[token]
    kind = game.raft_kind[token] if category == RAFT else -1
    return OWN_COLUMNS.index((category, kind, value))


def class_counts(game, tokens):
    counts = np.zeros(len(OWN_COLUMNS))
    for token in tokens:
        counts[token_class(game, token)] += 1
    return counts


def expected_show_state(env):
    """Each field of the HUNGER state, computed from the engine's own records."""
    game, n = env.game, env.config.num_players
    public = (0, 1, 2, 3, 4)  # fruit, chicken, raft, can, coconut: the category ids
    holdings, token_counts, known_values = [], [], []
    for seat in range(n):
        tokens = game.holdings[seat]
        units = [sum(game.value[t] for t in tokens
                     if game.category[t] == RAFT and game.raft_kind[t] == kind)
                 for kind in (0, 1)]
        holdings += [*class_counts(game, tokens), *units]
        token_counts += [sum(game.category[t] == c for t in tokens) for c in public]
    for observer in range(n):
        for holder in range(n):
            seen = [t for t in game.holdings[holder]
                    if holder != observer and game.knows(observer, t)]

            def value_sum(category, kind=-1, seen=seen):
                return sum(game.value[t] for t in seen if game.category[t] == category
                           and (kind < 0 or game.raft_kind[t] == kind))

            known_values += [sum(game.category[t] == c for t in seen) for c in public]
            known_values += [value_sum(0), value_sum(1), value_sum(RAFT, 0), value_sum(RAFT, 1),
                             value_sum(CAN), value_sum(4)]
    order = [-1] * n
    for position, seat in enumerate(game.playing_order()):
        order[seat] = position
    choices = np.zeros((n, 9))
    for seat, choice in enumerate(game.last_choices):
        if choice is not None:
            choices[seat, choice[0]] = choices[seat, 4 + choice[1]] = 1
    characters = np.zeros((n, 1 + len(CHARACTERS)))
    for seat, name in enumerate(game.characters):
        characters[seat, 0 if name is None else 1 + CHARACTERS.index(name)] = 1
    last_event = np.zeros(len(EVENT_CARD_NAMES))
    if env.last_log is not None:
        last_event[EVENT_CARD_NAMES.index(env.last_log["event"])] = 1
    pile_contents = np.concatenate([class_counts(game, [t for pile in game.piles[loc]
                                                        for t in pile])[4:13]
                                    for loc in (1, 2, 3)])
    deck = game.deck  # top last
    return {
        "holdings": holdings,
        "token_counts": token_counts,
        "alive": [float(a) for a in game.alive],
        "leader": np.eye(n)[game.leader],
        "playing_order": order,
        "last_choices": choices.ravel(),
        "known_values": known_values,
        "character": characters.ravel(),
        "day": [game.day],
        "piles": [len(game.piles[loc][kind]) for loc in (1, 2, 3) for kind in range(3)],
        "coconuts_left": [len(game.coconuts)],
        "events_left": [len(deck)],
        "last_event": last_event,
        "pile_contents": pile_contents,
        "coconut_stack": class_counts(game, game.coconuts)[13:],
        "event_deck": [deck.count(card) for card in EVENT_CARD_NAMES],
        "end_position": [len(deck) - deck.index(END) if END in deck else 0],
        "out": class_counts(game, game.out),
    }


def supply_by_class(num_players):
    copies = {(c, k, v): count for c, k, v, count in SUPPLY}
    copies |= {(CAN, -1, v): CAN_VALUES.count(v) * num_players for v in set(CAN_VALUES)}
    return np.array([copies[column] for column in OWN_COLUMNS])


@pytest.mark.parametrize("num_players", SHOW_PLAYERS)
def test_show_state_fields_match_the_engine(num_players):
    rng = np.random.default_rng(num_players)
    for seed in range(6):
        env = hunger_show_v0.parallel_env(num_players=num_players, characters=seed % 2 == 1,
                                          events="hard" if seed % 3 == 2 else "standard")
        layout = env.state_layout
        assert list(layout) == SHOW_STATE_FIELDS
        observations, _ = env.reset(seed=seed)
        while True:
            state = env.state()
            assert state.dtype == np.float32 and env.state_space.contains(state)
            for name, expected in expected_show_state(env).items():
                np.testing.assert_array_equal(state[layout[name]], expected, err_msg=name)
            # Every token is in exactly one place: a holding, a pile, the stack or the box.
            holdings = state[layout["holdings"]].reshape(num_players, -1)[:, :len(OWN_COLUMNS)]
            everywhere = holdings.sum(axis=0) + state[layout["out"]]
            everywhere[4:13] += state[layout["pile_contents"]].reshape(3, 9).sum(axis=0)
            everywhere[13:] += state[layout["coconut_stack"]]
            np.testing.assert_array_equal(everywhere, supply_by_class(num_players))
            # Each observation is the state's first part, seen from the observer's seat.
            gather = observation_tables(num_players).gather
            for agent, observation in observations.items():
                np.testing.assert_array_equal(observation["observation"],
                                              state[gather[env.agent_seats[agent]]])
            if not env.agents:
                break
            actions = {agent: random_legal(observations[agent]["action_mask"], rng)
                       for agent in env.agents}
            observations, *_ = env.step(actions)
            observations = {a: o for a, o in observations.items() if a in env.agents}


def test_show_pile_contents_change_the_state_but_no_observation():
    env = hunger_show_v0.parallel_env(num_players=4)
    env.reset(seed=2)
    before_state = env.state()
    before = {agent: env.observe(agent)["observation"] for agent in env.agents}
    game = env.game
    # Swap a fruit of the beach pile for a fruit of the other value in the box (4 players
    # leave the mountains' fruit out): nobody has seen either.
    pile = game.piles[1][0]
    inside = pile[0]
    outside = next(t for t in game.out
                   if game.category[t] == 0 and game.value[t] != game.value[inside])
    pile[0] = outside
    game.out[game.out.index(outside)] = inside
    after_state = env.state()
    changed = {name for name, part in env.state_layout.items()
               if not np.array_equal(before_state[part], after_state[part])}
    assert changed == {"pile_contents", "out"}
    for agent in env.agents:
        np.testing.assert_array_equal(env.observe(agent)["observation"], before[agent])


def test_show_end_position_counts_from_the_top():
    env = hunger_show_v0.parallel_env(num_players=3)
    env.reset(seed=0, options={"event_deck": ["calm", "typhoon-1", "end", "calm"]})
    state = env.state()
    layout = env.state_layout
    assert state[layout["end_position"]][0] == 3
    assert state[layout["events_left"]][0] == 4
    event_deck = dict(zip(EVENT_CARD_NAMES, state[layout["event_deck"]], strict=True))
    assert {card: count for card, count in event_deck.items() if count} == {
        "calm": 2, "typhoon-1": 1, "end": 1}


@pytest.mark.parametrize("num_players", [2, 5])
def test_show_pettingzoo_state_test(num_players):
    state_test(hunger_show_v0.env(num_players=num_players),
               hunger_show_v0.parallel_env(num_players=num_players), num_cycles=60)
    # The full-decision env samples unmasked actions: the first illegal one ends the game.
    state_test(hunger_show_v0.env(num_players=num_players, decision_mode="agents",
                                  illegal_action="terminate"),
               hunger_show_v0.parallel_env(num_players=num_players), num_cycles=60)


def test_show_views_share_the_parallel_state():
    view = hunger_show_v0.raw_env(num_players=3)
    full = hunger_show_v0.raw_env(num_players=3, decision_mode="agents")
    for env in (view, full):
        with pytest.raises(NotResetError, match="reset"):
            env.state()
        env.reset(seed=4)
    parallel = hunger_show_v0.parallel_env(num_players=3)
    parallel.reset(seed=4)
    np.testing.assert_array_equal(view.state(), parallel.state())
    np.testing.assert_array_equal(full.state(), parallel.state())
    assert view.state_space == full.state_space == parallel.state_space
