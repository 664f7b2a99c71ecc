"""Hungry as an OpenSpiel game, ``python_hungry``, on the rules engine of ``envs.hungry``.

Sequential, imperfect information, explicit chance: the chance nodes are the shuffle, turned
one card at a time. First (with ``first_player="random"``) the first player; then the deal, in
the engine's order (the 2 removed cards, then 8 cards to each seat in seat order); then, before
each play while the deck is not empty, the top card of the deck, which the mover draws after its
play (H4). The card stays hidden until it is drawn, so turning it before the play tells nobody
anything. A chance outcome is a card type (0-24), with probability its copies left over the
cards left.

Observations and legal actions are those of ``hungry_v0`` (the same vector, the same mask);
``returns`` are the R1 rewards. The information state string is the player's whole history
(its cards as they came to it and every play), the observation string its current view.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from hunger_rl.engines.hungry import DEFAULT_PLAYERS, MAX_PLAYERS, MIN_PLAYERS
from hunger_rl.engines.hungry.engine import (
    COPIES_PER_TYPE,
    DECK_SIZE,
    HAND_SIZE,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    OPTION_DEFAULTS,
    RANDOM_FIRST_PLAYER,
    REMOVED_CARDS,
    TIED_SECOND_RULES,
    TOTAL_PLAYS,
    HungryState,
    card_name,
    describe_action,
)
from hunger_rl.engines.hungry.observation import observation_index, observation_layout
from hunger_rl.engines.hungry.view import HungryView
from hunger_rl.engines.rewards import r1_rewards
from hunger_rl.engines.validation import IllegalActionError, InvalidInputError, InvalidValueError
from hunger_rl.openspiel.sampling import sampler_rng
from hunger_rl.openspiel.states import (
    MeanFieldRefusals,
    moves_of,
    read_state_text,
    refused_move,
    state_text,
    unsupported,
)

SHORT_NAME = "python_hungry"
# The player count and the game's options, with the engine's defaults (``OPTION_DEFAULTS``).
DEFAULT_PARAMETERS = {"players": DEFAULT_PLAYERS, **OPTION_DEFAULTS}
# What a serialised state holds besides the game's name (``openspiel.states``).
STATE_FIELDS = ("history",)
# Every card of the 50 is a chance outcome once (removed, dealt or drawn), and the first
# player one more.
MAX_CHANCE_NODES = DECK_SIZE + 1

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Hungry (hunger-rl)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMETERS,
)


class HungryGame(pyspiel.Game):
    """``python_hungry(players=2..4, first_player=player_0|...|random, tied_second=next|void)``.

    The parameters are those of ``hungry_v0``'s constructor of the same meaning (``players``
    is its ``num_players``); a bad value raises ``InvalidValueError`` naming it. (OpenSpiel
    itself refuses unknown names and values of the wrong type.)
    """

    def __init__(self, params=None):
        params = {**DEFAULT_PARAMETERS, **(params or {})}
        num_players = params["players"]
        if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise_parameter(f"Hungry is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got "
                            f"players={num_players}")
        seats = [f"player_{seat}" for seat in range(num_players)]
        if params["first_player"] not in (*seats, RANDOM_FIRST_PLAYER):
            raise_parameter(f"first_player must be one of {[*seats, RANDOM_FIRST_PLAYER]}, got "
                            f"{params['first_player']!r}")
        self.first_player = (RANDOM_FIRST_PLAYER if params["first_player"] == RANDOM_FIRST_PLAYER
                             else seats.index(params["first_player"]))
        if params["tied_second"] not in TIED_SECOND_RULES:
            raise_parameter(f"tied_second must be one of {TIED_SECOND_RULES}, got "
                            f"{params['tied_second']!r}")
        self.tied_second = params["tied_second"]
        self.observation_indices = [observation_index(num_players, p)
                                    for p in range(num_players)]
        self.observation_layout = observation_layout(num_players)
        loser = r1_rewards(num_players, [0])[1]
        super().__init__(GAME_TYPE, pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARD_TYPES,
            num_players=num_players,
            min_utility=loser,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=TOTAL_PLAYS,
        ), params)

    def new_initial_state(self, *_):
        return HungryOpenSpielState(self)

    def deserialize_state(self, text):
        """The state that ``state.serialize()`` wrote as ``text``: its moves (chance outcomes
        and plays) replayed from the initial state, each checked by the rules. Anything else,
        OpenSpiel's own pickled form included, raises ``StateTextError``."""
        history = moves_of(read_state_text(text, SHORT_NAME, STATE_FIELDS)["history"],
                           SHORT_NAME)
        state = self.new_initial_state()
        for index, move in enumerate(history):
            try:
                state.apply_action(move)
            except InvalidInputError as error:
                raise refused_move(SHORT_NAME, index, error) from None
        return state

    def max_chance_nodes_in_history(self):
        return MAX_CHANCE_NODES

    def make_py_observer(self, iig_obs_type=None, params=None):
        # As OpenSpiel's Python games: the observation unless perfect recall is asked for.
        perfect_recall = bool(getattr(iig_obs_type, "perfect_recall", False))
        return HungryObserver(self, perfect_recall=perfect_recall, params=params)


def raise_parameter(message: str) -> None:
    raise InvalidValueError(f"{SHORT_NAME}: {message}")


class HungryOpenSpielState(MeanFieldRefusals, pyspiel.State):
    """One game of ``python_hungry``: the chance outcomes so far, then the engine's state.

    ``dealt``: the deal so far (removed cards first, then each seat's 8), until the engine's
    ``HungryState`` exists; ``received[p]``: the cards ``p`` has been given, in order (its 8,
    then its draws); ``top_turned``: whether the deck's top card for the current turn has come
    out of chance (the engine then holds it at the front of its deck).
    """

    def __init__(self, game: HungryGame):
        super().__init__(game)
        self.first = None if game.first_player == RANDOM_FIRST_PLAYER else game.first_player
        self.dealt: list[int] = []
        self.engine: HungryState | None = None
        self.received: list[list[int]] = [[] for _ in range(game.num_players())]
        self.top_turned = False

    # -- the game's flow ----------------------------------------------------------------------

    def current_player(self):
        engine = self.engine
        if engine is None:
            return pyspiel.PlayerId.CHANCE
        if engine.is_over:
            return pyspiel.PlayerId.TERMINAL
        if engine.deck and not self.top_turned:
            return pyspiel.PlayerId.CHANCE
        return engine.current_player

    def _legal_actions(self, player):
        return self.engine.legal_actions(player)

    def chance_outcomes(self):
        if self.first is None:
            n = self.get_game().num_players()
            return [(seat, 1.0 / n) for seat in range(n)]
        counts = self._chance_pool().tolist()
        total = sum(counts)
        return [(card, count / total) for card, count in enumerate(counts) if count]

    def _chance_pool(self) -> np.ndarray:
        """Copies of each card type that chance may turn next."""
        if self.engine is None:
            return COPIES_PER_TYPE - np.bincount(self.dealt, minlength=NUM_CARD_TYPES)
        return np.bincount(self.engine.deck, minlength=NUM_CARD_TYPES)

    def _apply_action(self, action):
        if self.is_chance_node():
            self._apply_chance(action)
            return
        engine = self.engine
        player = engine.current_player
        drawn = engine.deck[0] if engine.deck else None
        engine.apply_action(action)  # raises IllegalActionError, changing nothing
        if drawn is not None:
            self.received[player].append(drawn)
        self.top_turned = False

    def _apply_actions(self, actions):
        raise unsupported(SHORT_NAME, "apply_actions()", "it is turn-based: one player (or "
                          "chance) moves at a time, by apply_action(action)")

    def _apply_chance(self, outcome: int) -> None:
        if self.first is None:
            n = self.get_game().num_players()
            if not 0 <= outcome < n:
                raise IllegalActionError(f"the first player is a seat 0..{n - 1}, got {outcome}")
            self.first = int(outcome)
            return
        pool = self._chance_pool()
        if not 0 <= outcome < NUM_CARD_TYPES or pool[outcome] == 0:
            left = [card_name(c) for c in np.flatnonzero(pool)]
            raise IllegalActionError(f"chance cannot turn card type {outcome}: the cards left "
                                     f"are {left}")
        if self.engine is None:
            self._deal(int(outcome))
            return
        deck = self.engine.deck
        deck.insert(0, deck.pop(deck.index(outcome)))  # the turned card goes on top
        self.top_turned = True

    def _deal(self, card: int) -> None:
        dealt = self.dealt
        dealt.append(card)
        seat = (len(dealt) - REMOVED_CARDS - 1) // HAND_SIZE
        if seat >= 0:
            self.received[seat].append(card)
        game = self.get_game()
        n = game.num_players()
        if len(dealt) < REMOVED_CARDS + n * HAND_SIZE:
            return
        # The deal is complete: the engine takes over, with the rest of the cards as its deck
        # (their order comes out of chance one card at a time).
        rest = np.repeat(np.arange(NUM_CARD_TYPES), self._chance_pool()).tolist()
        hands = np.zeros((n, NUM_CARD_TYPES), dtype=np.int64)
        for player, cards in enumerate(self.received):
            np.add.at(hands[player], cards, 1)
        self.engine = HungryState(
            num_players=n,
            removed=dealt[:REMOVED_CARDS],
            deck=rest,
            hands=hands,
            placed=np.zeros((n, NUM_ACTIONS), dtype=np.int64),
            current_player=self.first,
            history=[],
            tied_second=game.tied_second,
        )

    def is_terminal(self):
        return self.engine is not None and self.engine.is_over

    def serialize(self):
        """The state as data (``openspiel.states``): every move from the initial state, which
        ``HungryGame.deserialize_state`` replays."""
        return state_text(SHORT_NAME, {"history": self.history()})

    def returns(self):
        n = self.get_game().num_players()
        if not self.is_terminal():
            return [0.0] * n
        return r1_rewards(n, self.engine.score().winners)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            if self.first is None:
                return f"first player_{action}"
            return f"card {card_name(action)}"
        return describe_action(action)

    def __str__(self):
        if self.engine is None:
            return f"first: {self.first}, dealt: {[card_name(c) for c in self.dealt]}"
        engine = self.engine
        plays = " ".join(str(a) for a in engine.history)
        return (f"first: {self.first}, plays: [{plays}], deck: {len(engine.deck)}, "
                f"hands: {engine.hands.tolist()}, totals: {engine.totals()}")

    # -- determinisation ----------------------------------------------------------------------

    def resample_from_infostate(self, player, probability_sampler):
        """A state ``player`` cannot tell from this one, drawn at random: the cards it has not
        seen (the other hands, the deck, the removed cards) dealt afresh, consistently with
        every play made (see ``world_like``)."""
        rng = sampler_rng(probability_sampler)
        if self.engine is None:
            return self._resample_deal(player, rng)
        return world_like(self, player, self.engine.history, self.received[player], rng)

    def _resample_deal(self, player: int, rng: np.random.Generator):
        """Before the deal completes: the cards dealt to the others and the removed cards are
        redrawn from those ``player`` has not seen."""
        own = set(self._own_deal_positions(player))
        pool = COPIES_PER_TYPE - np.bincount([self.dealt[i] for i in own],
                                             minlength=NUM_CARD_TYPES)
        hidden = rng.permutation(np.repeat(np.arange(NUM_CARD_TYPES), pool)).tolist()
        dealt = [card if i in own else hidden.pop() for i, card in enumerate(self.dealt)]
        state = self.get_game().new_initial_state()
        for outcome in self._first_outcomes() + dealt:
            state.apply_action(outcome)
        return state

    def _own_deal_positions(self, player: int) -> range:
        start = REMOVED_CARDS + HAND_SIZE * player
        return range(start, min(start + HAND_SIZE, len(self.dealt)))

    def _first_outcomes(self) -> list[int]:
        game = self.get_game()
        drawn = game.first_player == RANDOM_FIRST_PLAYER and self.first is not None
        return [self.first] if drawn else []


def world_like(state: HungryOpenSpielState, player: int, plays: list[int],
               own_received: list[int], rng: np.random.Generator) -> HungryOpenSpielState:
    """A fresh state of ``state``'s game at its position, which ``player`` cannot tell from
    it: every play so far (``plays``, in order) and ``player``'s cards in the order they came
    (``own_received``) as in ``state``; the cards ``player`` has not seen dealt afresh (see
    ``replayed_world``)."""
    game = state.get_game()
    observation = state.engine.table[game.observation_indices[player]]
    view = HungryView.from_observation(observation, game.tied_second)
    return replayed_world(game, view, player, state.first, plays, own_received,
                          state.top_turned, rng)


def replayed_world(game: HungryGame, view: HungryView, player: int, first: int,
                   plays: list[int], own_received: list[int], top_turned: bool,
                   rng: np.random.Generator) -> HungryOpenSpielState:
    """A state of ``game`` that ``player``, whose view is ``view``, reaches by ``plays`` (every
    play so far, in order, the first by seat ``first``) with its cards coming to it in the
    order ``own_received``. The cards it has not seen (the other hands, the removed cards, the
    deck) are drawn by ``HungryView.sample_state``; each other seat's cards came to it as its
    plays, in order, then its hand, a history consistent with every play it made. With
    ``top_turned`` the current turn's top card is turned, a random one of the deck. The
    history is replayed from a new state, so that it is a history of the game."""
    n = game.num_players()
    sample = view.sample_state(rng)
    received = [list(own_received) if seat == player else [] for seat in range(n)]
    for relative in range(1, n):
        seat = (player + relative) % n
        hand = rng.permutation(np.repeat(np.arange(NUM_CARD_TYPES), sample.hands[relative]))
        seat_plays = [a // 2 for a in plays[(seat - first) % n :: n]]
        received[seat] = seat_plays + hand.tolist()
    deal = list(sample.removed)
    for seat in range(n):
        deal += received[seat][:HAND_SIZE]
    world = game.new_initial_state()
    first_outcome = [first] if game.first_player == RANDOM_FIRST_PLAYER else []
    for outcome in first_outcome + deal:
        world.apply_action(outcome)
    drawn = [HAND_SIZE] * n
    for action in plays:
        mover = world.engine.current_player
        if world.is_chance_node():
            world.apply_action(received[mover][drawn[mover]])
            drawn[mover] += 1
        world.apply_action(action)
    if top_turned:
        world.apply_action(int(rng.choice(world.engine.deck)))
    return world


class HungryObserver:
    """OpenSpiel's observer of ``python_hungry``: the tensor is ``hungry_v0``'s observation
    vector (its ``observation_layout``, as ``dict``); the string is the player's history with
    perfect recall (the information state), else its current view."""

    def __init__(self, game: HungryGame, perfect_recall: bool, params=None):
        if params:
            raise ValueError(f"{SHORT_NAME} observers take no parameters, got {params}")
        self.game = game
        self.perfect_recall = perfect_recall
        layout = game.observation_layout
        self.tensor = np.zeros(next(reversed(layout.values())).stop, np.float32)
        self.dict = {name: self.tensor[part] for name, part in layout.items()}

    def set_from(self, state: HungryOpenSpielState, player: int) -> None:
        if state.engine is None:
            # During the deal: only the cards dealt to the player so far.
            self.tensor.fill(0)
            np.add.at(self.dict["hand"], state.received[player], 1)
            return
        self.tensor[:] = state.engine.table[self.game.observation_indices[player]]

    def string_from(self, state: HungryOpenSpielState, player: int) -> str:
        if self.perfect_recall:
            plays = " ".join(str(a) for a in state.engine.history) if state.engine else ""
            received = " ".join(str(c) for c in state.received[player])
            return f"p{player} first:{state.first} cards:[{received}] plays:[{plays}]"
        self.set_from(state, player)
        parts = [f"p{player}"]
        for name, values in self.dict.items():
            parts.append(f"{name}:" + " ".join(str(int(v)) for v in values))
        return " ".join(parts)


pyspiel.register_game(GAME_TYPE, HungryGame)
