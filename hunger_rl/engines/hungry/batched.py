"""Batched Hungry: B games of the same player count held in arrays, stepped with one call.

The rules are those of :mod:`hunger_rl.engines.hungry.engine` (H1-H9), re-implemented as compiled
per-game loops (numba) so that a whole batch steps without a Python call per game. Observations,
action masks, action encoding and rewards are exactly those of ``hungry_v0``; a differential test
replays the batch's games through the reference engine and environment.

One call of :meth:`BatchedHungry.step` plays one action in every game (B agent-steps), then, for
the player now to move in each game, writes its observation and action mask. A game that ends in
that step reports its rewards, final totals and winners, and is dealt again at once (auto-reset),
so the observation returned for it is the first one of its next game.

Seeds. ``reset(seeds=[s_0, ..., s_{B-1}])`` deals game i exactly as ``hungry_v0`` does after
``reset(seed=s_i)`` (so as ``HungryState.new_game(N, np.random.default_rng(s_i))`` with the
default first player, and with the same seeded first player when ``first_player="random"``).
The games that follow in slot i come from the slot's own stream: game ``e`` (e = 1, 2, ...) of
slot i is dealt by :func:`stream_deck` ``(s_i, e)``, a counter-based shuffle (SplitMix64 keyed by
the slot seed and the game number), because a NumPy ``Generator`` per auto-reset would cost more
than the games themselves. A slot's sequence of deals depends only on its seed, never on the other
slots or on the actions. ``reset(seed=s)`` spreads one seed into the slots' seeds as both batched
engines do (their contract: docs/architecture.md).

Layout. Every small field of one game lives in one int8 row of ``BatchedHungry.games`` (offsets
below, sized for 4 players whatever the player count), so the compiled code touches one
contiguous block per game and passes one array around; the slot seeds and deal streams are
separate arrays.

Public API. Besides :class:`BatchedHungry`, the row offsets and the compiled rules
(:func:`play`, :func:`update_resort`, :func:`score_game`, :func:`write_observation`, ...) are
public: the compiled policies (``policies.hungry_batched``), the search's playouts
(``policies.hungry_search``) and the learner loop (``training.batched_learner``) run on the same
rows without a Python call per game.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hunger_rl.engines.compiled import (
    MAX_SEED,
    at,
    jit,
    jit_inline,
    r1_reward,
    random_below,
    reset_seeds,
    splitmix_key,
)
from hunger_rl.engines.hungry import DEFAULT_PLAYERS
from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    COPIES_PER_TYPE,
    DECK_SIZE,
    FULL_DECK,
    HAND_SIZE,
    HOTEL_POINTS,
    MAX_PLAYERS,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_RESORTS,
    NUM_STARS,
    OPTION_DEFAULTS,
    RANDOM_FIRST_PLAYER,
    REMOVED_CARDS,
    SECOND_PLACE_POINTS,
    TIED_SECOND_RULES,
    TOTAL_PLAYS,
    TWO_HOMES_BONUS,
    HungryState,
    check_num_players,
    describe_action,
)
from hunger_rl.engines.hungry.observation import REWARD_MODES, SCORE_SCALE, observation_layout
from hunger_rl.engines.validation import (
    IllegalActionError,
    InvalidValueError,
    NotResetError,
    check_action_array,
    check_choice,
    check_int,
)

NO_PLAYER = -1
_REWARD_CODES = {"win": 0, "score": 1}
# The resort each action sends its tourist to, as an array compiled code can index.
RESORT_OF_ACTION = np.array(ACTION_RESORT, dtype=np.int64)
_FULL_DECK = np.array(FULL_DECK, dtype=np.int8)

# Offsets into a game's int8 row. Every count fits: at most 2 cards per type, 48 plays, and a
# total of at most 55.
HANDS = 0  # [player * 25 + card type]: cards in hand
PLACED = HANDS + MAX_PLAYERS * NUM_CARD_TYPES  # [player * 50 + action]: tourists placed
PLAYED = PLACED + MAX_PLAYERS * NUM_ACTIONS  # [card type]: cards placed by anyone
COUNTS = PLAYED + NUM_CARD_TYPES  # [player * 10 + resort]: tourists at a resort
FIRST = COUNTS + MAX_PLAYERS * NUM_RESORTS  # [resort]: first place, or NO_PLAYER
SECOND = FIRST + NUM_RESORTS  # [resort]: second place, or NO_PLAYER
TOTALS = SECOND + NUM_RESORTS  # [player]: total if the game ended now
HAND_SIZES = TOTALS + MAX_PLAYERS  # [player]
ORDER = HAND_SIZES + MAX_PLAYERS  # [50]: the deal, 2 removed, the hands, then the deck
DECK_POS = ORDER + DECK_SIZE  # index in ORDER of the next card to draw
CURRENT = DECK_POS + 1  # player to move
NUM_PLAYS = CURRENT + 1
BONUS_HOLDER = NUM_PLAYS + 1  # holder of the two-homes bonus so far (H8), or NO_PLAYER
ROW_SIZE = BONUS_HOLDER + 1


class StepOutputs(NamedTuple):
    """What a step (or reset) reports; the arrays are reused (overwritten) by the next step.

    The batched engines' contract (docs/architecture.md): ``observations[b]`` and
    ``action_masks[b]`` are those of the player to move in game b, ``to_move[b]`` that player (in
    a game that ended in this step: of its next game, dealt at once). ``rewards[b, p]``: seat p's
    reward for this step (terminal: zero unless the game ended). ``terminated[b, p]``: seat p left
    game b in this step (all seats at once, when the game ends); ``done[b]``: game b ended in this
    step. Where ``done``: ``winners``, ``final_totals`` and, for the seat given as final observer
    to :meth:`BatchedHungry.step_games`, ``final_observations[b]`` (its last observation).
    """

    observations: np.ndarray
    action_masks: np.ndarray
    to_move: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    done: np.ndarray
    final_observations: np.ndarray
    winners: np.ndarray
    final_totals: np.ndarray


# -- deals ----------------------------------------------------------------------------------------


@jit
def _shuffle_deal(g, b, deal_rng, seed, game_number, num_players, random_first):
    """Write deal ``game_number`` of ``seed``'s stream into game b's order; return the first player.

    The first player (when random) is drawn before the shuffle, as in ``hungry_v0``; the shuffle
    is Fisher-Yates from the last position down.
    """
    deal_rng[b] = splitmix_key(seed, game_number)
    first = 0
    if random_first:
        first = random_below(deal_rng, b, num_players)
    for i in range(DECK_SIZE):
        g[b, ORDER + i] = _FULL_DECK[i]
    for i in range(DECK_SIZE - 1, 0, -1):
        j = random_below(deal_rng, b, i + 1)
        card = g[b, ORDER + i]
        g[b, ORDER + i] = g[b, ORDER + j]
        g[b, ORDER + j] = card
    return first


def stream_deck(
    seed: int, game_number: int, num_players: int = DEFAULT_PLAYERS, random_first: bool = False
) -> tuple[list[int], int]:
    """Deal ``game_number`` of the auto-reset stream of a slot seeded ``seed``.

    Returns ``(order, first_player)``: the 50 card types top first (pass ``order`` as ``deck=``
    to :meth:`HungryState.new_game` to replay the game in the reference engine) and the first
    player (0 unless ``random_first``).
    """
    row = np.zeros((1, ROW_SIZE), np.int8)
    deal_rng = np.zeros(1, np.uint64)
    first = _shuffle_deal(
        row, 0, deal_rng, np.uint64(seed % 2**64), game_number, num_players, random_first
    )
    return row[0, ORDER : ORDER + DECK_SIZE].astype(int).tolist(), int(first)


# -- rules ----------------------------------------------------------------------------------------


@jit
def _resort_points(resort):
    return resort + 1 if resort < NUM_STARS else HOTEL_POINTS


@jit
def update_resort(g, b, resort, num_players, void_tied_second):
    """Recompute one resort's places (H6) and move the points they are worth (H7, H8).

    Places as :func:`engine.resort_places`; totals stay equal to :func:`engine.totals_from_places`
    by taking the old places' points off and giving the new ones, and moving the two-homes bonus
    when a home changes hands.
    """
    counts = g[b, COUNTS : COUNTS + num_players * NUM_RESORTS]
    first = NO_PLAYER
    second = NO_PLAYER
    above = 127  # walk the distinct counts strictly below this one, high to low
    while True:
        count = 0
        holder = NO_PLAYER
        holders = 0
        for p in range(num_players):
            c = counts[at(p * NUM_RESORTS + resort)]
            if c < above:
                if c > count:
                    count = c
                    holder = p
                    holders = 1
                elif c == count:
                    holders += 1
        if count == 0:
            break
        if holders == 1:
            if first == NO_PLAYER:
                first = holder
            else:
                second = holder
                break
        elif first != NO_PLAYER and void_tied_second:
            break
        above = count
    old_first = g[b, FIRST + resort]
    old_second = g[b, SECOND + resort]
    if old_second != second:
        if old_second != NO_PLAYER:
            g[b, TOTALS + old_second] -= SECOND_PLACE_POINTS
        if second != NO_PLAYER:
            g[b, TOTALS + second] += SECOND_PLACE_POINTS
        g[b, SECOND + resort] = second
    if old_first != first:
        points = _resort_points(resort)
        if old_first != NO_PLAYER:
            g[b, TOTALS + old_first] -= points
        if first != NO_PLAYER:
            g[b, TOTALS + first] += points
        g[b, FIRST + resort] = first
        if resort < NUM_STARS:
            _update_bonus(g, b)


@jit
def _update_bonus(g, b):
    """Give the bonus to the first player, homes scored 1 to 5 stars, to hold two homes (H8)."""
    holder = NO_PLAYER
    for resort in range(1, NUM_STARS):
        owner = g[b, FIRST + resort]
        if owner == NO_PLAYER:
            continue
        for lower in range(resort):
            if g[b, FIRST + lower] == owner:
                holder = owner
                break
        if holder != NO_PLAYER:
            break
    old = g[b, BONUS_HOLDER]
    if old != holder:
        if old != NO_PLAYER:
            g[b, TOTALS + old] -= TWO_HOMES_BONUS
        if holder != NO_PLAYER:
            g[b, TOTALS + holder] += TWO_HOMES_BONUS
        g[b, BONUS_HOLDER] = holder


@jit
def _deal(g, b, num_players, first_player):
    """Start game b from its order: 2 removed, 8 dealt per seat in seat order (H2)."""
    for i in range(ORDER):  # everything but the order is cleared
        g[b, i] = 0
    for i in range(ORDER + DECK_SIZE, ROW_SIZE):
        g[b, i] = 0
    for i in range(NUM_RESORTS):
        g[b, FIRST + i] = NO_PLAYER
        g[b, SECOND + i] = NO_PLAYER
    g[b, BONUS_HOLDER] = NO_PLAYER
    position = REMOVED_CARDS
    for p in range(num_players):
        g[b, HAND_SIZES + p] = HAND_SIZE
        for _ in range(HAND_SIZE):
            g[b, HANDS + p * NUM_CARD_TYPES + g[b, ORDER + position]] += 1
            position += 1
    g[b, DECK_POS] = position
    g[b, CURRENT] = first_player


@jit
def deal_next_game(g, b, seeds, game_number, deal_rng, num_players, random_first):
    """Deal game b's next game from its slot's stream (module docstring)."""
    game_number[b] += 1
    first = _shuffle_deal(g, b, deal_rng, np.uint64(seeds[b]), game_number[b], num_players,
                          random_first)
    _deal(g, b, num_players, first)


@jit_inline
def play(g, b, action, num_players, void_tied_second):
    """The player to move in game b plays ``action``, then draws while the deck lasts (H4).
    The row is indexed unsigned (``at``) and the next player found by a compare, not ``%``."""
    game = g[b]
    player = np.int64(game[CURRENT])
    card = action >> 1
    hand = HANDS + player * NUM_CARD_TYPES
    game[at(hand + card)] -= 1
    game[at(PLACED + player * NUM_ACTIONS + action)] += 1
    game[at(PLAYED + card)] += 1
    resort = RESORT_OF_ACTION[at(action)]
    game[at(COUNTS + player * NUM_RESORTS + resort)] += 1
    update_resort(g, b, resort, num_players, void_tied_second)
    position = np.int64(game[DECK_POS])
    if position < DECK_SIZE:
        game[at(hand + game[at(ORDER + position)])] += 1
        game[DECK_POS] = position + 1
    else:
        game[at(HAND_SIZES + player)] -= 1
    game[NUM_PLAYS] += 1
    game[CURRENT] = player + 1 if player + 1 < num_players else 0


@jit
def best_total_and_winner(g, b, num_players):
    """The best total of row b and its sole winner (H9), or NO_PLAYER for a shared draw.

    Among the players with the best total, the holder of the lowest-star home wins alone
    (each home has one owner); if none of them holds a home, they all share the draw.
    """
    best = g[b, TOTALS]
    for p in range(1, num_players):
        best = max(best, g[b, TOTALS + p])
    for resort in range(NUM_STARS):
        owner = g[b, FIRST + resort]
        if owner != NO_PLAYER and g[b, TOTALS + owner] == best:
            return best, owner
    return best, NO_PLAYER


@jit
def score_game(g, b, num_players, reward_code, rewards_out, totals_out, winners_out):
    """Final totals, winners (H9) and rewards (R1, or score margin) into row b of each output."""
    best, winner = best_total_and_winner(g, b, num_players)
    num_winners = 0
    total_sum = 0
    for p in range(num_players):
        total = g[b, TOTALS + p]
        won = p == winner if winner != NO_PLAYER else total == best
        winners_out[b, p] = won
        num_winners += won
        totals_out[b, p] = total
        total_sum += total
    for p in range(num_players):
        if reward_code == 0:
            share = 1.0 / num_winners if winners_out[b, p] else 0.0
            rewards_out[b, p] = r1_reward(num_players, share)
        else:
            others = (total_sum - g[b, TOTALS + p]) / (num_players - 1)
            rewards_out[b, p] = (g[b, TOTALS + p] - others) / SCORE_SCALE


@jit_inline
def write_observation(g, b, observer, num_players, out, row):
    """``hungry_v0``'s observation of ``observer`` in game b, written into ``out[row]``.

    Slices in ``observation_layout`` order: hand, placed by relative seat, hand sizes, deck
    size, unseen copies, totals, to-move one-hot (all zero once the game is over). Copies go
    through slices indexed from 0, which numba compiles to vector code (indices that might be
    negative would need a wraparound check each); the single values are indexed through
    :func:`~hunger_rl.engines.compiled.at` for the same reason.
    """
    game = g[b]
    obs = out[row]
    hand = game[HANDS + observer * NUM_CARD_TYPES : HANDS + (observer + 1) * NUM_CARD_TYPES]
    for t in range(NUM_CARD_TYPES):
        obs[t] = hand[t]
    # Placed by relative seat: seats observer..N-1, then 0..observer-1, two blocks of the row.
    offset = NUM_CARD_TYPES
    own_block = (num_players - observer) * NUM_ACTIONS
    source = game[PLACED + observer * NUM_ACTIONS : PLACED + num_players * NUM_ACTIONS]
    target = obs[offset : offset + own_block]
    for a in range(own_block):
        target[a] = source[a]
    offset += own_block
    source = game[PLACED : PLACED + observer * NUM_ACTIONS]
    target = obs[offset : offset + observer * NUM_ACTIONS]
    for a in range(observer * NUM_ACTIONS):
        target[a] = source[a]
    offset += observer * NUM_ACTIONS
    for k in range(num_players):
        obs[at(offset + k)] = game[at(HAND_SIZES + _seat_after(observer, k, num_players))]
    offset += num_players
    obs[at(offset)] = DECK_SIZE - game[DECK_POS]
    offset += 1
    played = game[PLAYED : PLAYED + NUM_CARD_TYPES]
    unseen = obs[offset : offset + NUM_CARD_TYPES]
    for t in range(NUM_CARD_TYPES):
        unseen[t] = COPIES_PER_TYPE - hand[t] - played[t]
    offset += NUM_CARD_TYPES
    for k in range(num_players):
        obs[at(offset + k)] = game[at(TOTALS + _seat_after(observer, k, num_players))]
    offset += num_players
    for k in range(num_players):
        obs[at(offset + k)] = 0.0
    if game[NUM_PLAYS] < TOTAL_PLAYS:
        mover = np.int64(game[CURRENT])
        obs[at(offset + _seat_after(mover, num_players - observer, num_players))] = 1.0


@jit_inline
def _seat_after(seat, k, num_players):
    """The seat ``k`` places after ``seat`` (0 <= k <= N, so one subtraction suffices)."""
    seat = seat + k
    return seat - num_players if seat >= num_players else seat


@jit_inline
def mover_hand_start(g, b):
    """Where the 25 card counts of the player to move in game b start in its row (an offset:
    a ``jit`` function returns no view)."""
    return HANDS + np.int64(g[b, CURRENT]) * NUM_CARD_TYPES


@jit_inline
def write_mask(g, b, out):
    """Legal actions of the player to move in game b: both destinations of each held card type."""
    start = mover_hand_start(g, b)
    hand = g[b, start : start + NUM_CARD_TYPES]
    pairs = out[b].view(np.uint16)  # a type's two actions in one store (0x0101: any byte order)
    for t in range(NUM_CARD_TYPES):
        pairs[t] = (hand[t] > 0) * 0x0101


@jit
def first_illegal(g, games, actions):
    """Index into ``games`` of the first action its game's mover may not play, else -1."""
    for i in range(games.shape[0]):
        b = games[i]
        action = actions[i]
        if action < 0 or action >= NUM_ACTIONS:
            return i
        if g[b, HANDS + np.int64(g[b, CURRENT]) * NUM_CARD_TYPES + (action >> 1)] == 0:
            return i
    return -1


@jit
def _step_games(g, games, actions, final_observers, streams, rules, out):
    """Play ``actions[i]`` in game ``games[i]``; finish, re-deal and observe as :meth:`step`.

    ``streams``: (seeds, game_number, deal_rng); ``rules``: (seats, void_tied_second,
    reward_code, random_first); ``out``: the arrays of the :class:`StepOutputs`, as a plain
    tuple (numba types a named tuple argument in Python, a microsecond a call)."""
    seeds, game_number, deal_rng = streams
    seats, void_tied_second, reward_code, random_first = rules
    num_players = len(seats)  # a constant of the compiled code: its loops over seats unroll
    (observations, masks, to_move, rewards, terminated, done, final_observations, winners,
     final_totals) = out
    for i in range(games.shape[0]):
        b = games[i]
        play(g, b, actions[i], num_players, void_tied_second)
        ended = g[b, NUM_PLAYS] == TOTAL_PLAYS
        done[b] = ended
        for p in range(num_players):
            terminated[b, p] = ended
        if ended:
            score_game(g, b, num_players, reward_code, rewards, final_totals, winners)
            if final_observers.shape[0] > 0:
                write_observation(g, b, final_observers[b], num_players, final_observations,
                                  b)
            deal_next_game(g, b, seeds, game_number, deal_rng, num_players, random_first)
        else:
            for p in range(num_players):
                rewards[b, p] = 0.0
        mover = np.int64(g[b, CURRENT])
        to_move[b] = mover
        write_observation(g, b, mover, num_players, observations, b)
        write_mask(g, b, masks)


@jit
def _observe_movers(g, num_players, observations, masks, to_move):
    for b in range(g.shape[0]):
        mover = np.int64(g[b, CURRENT])
        to_move[b] = mover
        write_observation(g, b, mover, num_players, observations, b)
        write_mask(g, b, masks)


@jit
def _observe_seats(g, observers, num_players, out):
    for b in range(g.shape[0]):
        write_observation(g, b, observers[b], num_players, out, b)


# -- Python interface -----------------------------------------------------------------------------


def observation_size(num_players: int) -> int:
    return observation_layout(num_players)["to_move"].stop


class BatchedHungry:
    """``batch_size`` games of Hungry for ``num_players`` players, stepped together.

    Options as ``hungry_v0.raw_env``: ``reward`` ("win": R1, or "score"), ``first_player``
    ("player_0" or "random"), ``tied_second`` ("next" or "void"). Call :meth:`reset` first.
    The batched engines' contract: docs/architecture.md.
    """

    def __init__(self, num_players: int, batch_size: int, *, reward: str = "win",
                 first_player: str = OPTION_DEFAULTS["first_player"],
                 tied_second: str = OPTION_DEFAULTS["tied_second"]):
        self.num_players = n = check_num_players(num_players)
        self.batch_size = b = check_int(batch_size, "batch_size", low=1)
        check_choice(reward, "reward", REWARD_MODES)
        check_choice(first_player, "first_player",
                     (OPTION_DEFAULTS["first_player"], RANDOM_FIRST_PLAYER))
        check_choice(tied_second, "tied_second", TIED_SECOND_RULES)
        self.reward_mode = reward
        self.random_first = first_player == RANDOM_FIRST_PLAYER
        self.tied_second = tied_second
        self.void_tied_second = tied_second == "void"
        self.reward_code = _REWARD_CODES[reward]
        self.observation_size = observation_size(n)
        self.games = np.zeros((b, ROW_SIZE), np.int8)
        self.seeds = np.zeros(b, np.int64)
        self.game_number = np.zeros(b, np.int64)
        self.deal_rng = np.zeros(b, np.uint64)
        # What the compiled steps take: the slots' deal streams (module docstring) and the rules.
        self.streams = (self.seeds, self.game_number, self.deal_rng)
        # ``seats``, one item per player, makes the player count a compile-time constant of
        # the step (one compilation per count), as the batched HUNGER engine's.
        self.rules = (tuple(range(n)), self.void_tied_second, np.int64(self.reward_code),
                      self.random_first)
        self.all_games = np.arange(b, dtype=np.int64)
        self._no_observers = np.zeros(0, np.int64)
        self.outputs = StepOutputs(
            observations=np.zeros((b, self.observation_size), np.float32),
            action_masks=np.zeros((b, NUM_ACTIONS), np.int8),
            to_move=np.zeros(b, np.int8),
            rewards=np.zeros((b, n), np.float32),
            terminated=np.zeros((b, n), np.bool_),
            done=np.zeros(b, np.bool_),
            final_observations=np.zeros((b, self.observation_size), np.float32),
            winners=np.zeros((b, n), np.bool_),
            final_totals=np.zeros((b, n), np.int8),
        )
        self._output_arrays = tuple(self.outputs)
        self._reset_called = False

    # -- views of the state (numpy, for inspection and tests) ---------------------------------

    @property
    def hands(self) -> np.ndarray:
        """(B, N, 25) cards in hand per player and card type (a view)."""
        block = self.games[:, HANDS : HANDS + MAX_PLAYERS * NUM_CARD_TYPES]
        return block.reshape(self.batch_size, MAX_PLAYERS, NUM_CARD_TYPES)[:, : self.num_players]

    @property
    def placed(self) -> np.ndarray:
        """(B, N, 50) tourists placed per player and action (a view)."""
        block = self.games[:, PLACED : PLACED + MAX_PLAYERS * NUM_ACTIONS]
        return block.reshape(self.batch_size, MAX_PLAYERS, NUM_ACTIONS)[:, : self.num_players]

    @property
    def totals(self) -> np.ndarray:
        """(B, N) each player's total if the game ended now (a view)."""
        return self.games[:, TOTALS : TOTALS + self.num_players]

    @property
    def current_player(self) -> np.ndarray:
        return self.games[:, CURRENT]

    @property
    def num_plays(self) -> np.ndarray:
        return self.games[:, NUM_PLAYS]

    def deck_order(self, game: int) -> list[int]:
        """The 50-card order game ``game`` was dealt from, top first (removed, hands, deck)."""
        return self.games[game, ORDER : ORDER + DECK_SIZE].astype(int).tolist()

    # -- episodes -----------------------------------------------------------------------------

    def reset(self, seed: int | None = None, seeds=None) -> StepOutputs:
        """Deal every game: game b as ``hungry_v0`` after ``reset(seed=seeds[b])``.

        ``seeds``: one per game, in 0 .. MAX_SEED; or else ``seed`` spread into one per game
        (:func:`~hunger_rl.engines.compiled.spread_seeds`; fresh entropy when None), not both.
        Each slot's later games come from its stream (module docstring).
        """
        for b, game_seed in enumerate(reset_seeds(seed, seeds, self.batch_size).tolist()):
            self.deal(b, game_seed)
        out = self.outputs
        out.rewards[:] = 0
        out.terminated[:] = False
        out.done[:] = False
        _observe_movers(
            self.games, self.num_players, out.observations, out.action_masks, out.to_move
        )
        self._reset_called = True
        return out

    def deal(self, game: int, seed: int) -> None:
        """Deal game ``game`` as ``hungry_v0`` after ``reset(seed=seed)``; restart its stream.

        Only the state changes; the outputs are refreshed by the next step or reset.
        """
        game = check_int(game, "game", low=0, high=self.batch_size - 1)
        seed = check_int(seed, "seed", low=0, high=MAX_SEED)
        rng = np.random.default_rng(seed)
        first = int(rng.integers(self.num_players)) if self.random_first else 0
        dealt = HungryState.new_game(self.num_players, rng=rng, first_player=first)
        # The engine keeps hands as counts; any order inside a seat's 8 cards deals the same hand.
        hand_cards = [np.repeat(np.arange(NUM_CARD_TYPES), row) for row in dealt.hands]
        order = np.concatenate([dealt.removed, *hand_cards, dealt.deck])
        self.games[game, ORDER : ORDER + DECK_SIZE] = order
        self.seeds[game] = seed
        self.game_number[game] = 0
        _deal(self.games, game, self.num_players, first)

    # -- stepping -----------------------------------------------------------------------------

    def step(self, actions) -> StepOutputs:
        """Play ``actions[b]`` in every game b (B agent-steps); auto-reset finished games.
        Raises :class:`IllegalActionError`, changing nothing, if any action is not legal."""
        return self._step_checked_games(self.all_games, actions, self._no_observers)

    def step_games(self, games, actions, final_observers=None) -> StepOutputs:
        """Play ``actions[i]`` in game ``games[i]`` only; other games' output rows are stale.

        With ``final_observers`` (one seat per game of the batch), a game that ends writes the
        last observation of that seat into ``final_observations[b]`` before it is dealt again.
        Raises :class:`IllegalActionError`, changing nothing, if any action is not legal.
        """
        games = self.check_games(games)
        if final_observers is None:
            final_observers = self._no_observers
        else:
            final_observers = np.asarray(final_observers)
            if (final_observers.shape != (self.batch_size,) or final_observers.dtype.kind
                    not in "iu" or final_observers.min() < 0
                    or final_observers.max() >= self.num_players):
                raise InvalidValueError(f"final_observers must be one seat (0.."
                                        f"{self.num_players - 1}) per game of the batch")
            final_observers = final_observers.astype(np.int64, copy=False)
        return self._step_checked_games(games, actions, final_observers)

    def _step_checked_games(self, games, actions, final_observers) -> StepOutputs:
        """:meth:`step_games` once ``games`` and ``final_observers`` are known to be valid."""
        if not self._reset_called:
            raise NotResetError("call reset() before step()")
        actions = check_action_array(actions, games.shape)
        bad = first_illegal(self.games, games, actions)
        if bad >= 0:
            game, action = int(games[bad]), int(actions[bad])
            legal = np.flatnonzero(self.legal_masks()[game]).tolist()
            what = describe_action(action) if 0 <= action < NUM_ACTIONS else "out of range"
            raise IllegalActionError(
                f"game {game}: player {int(self.current_player[game])} cannot play action "
                f"{action} ({what}); legal: {legal}"
            )
        _step_games(self.games, games, actions, final_observers, self.streams, self.rules,
                    self._output_arrays)
        return self.outputs

    def check_games(self, games) -> np.ndarray:
        """``games`` as int64 indices of games of the batch, else InvalidValueError."""
        games = np.asarray(games)
        if games.ndim != 1 or games.dtype.kind not in "iu":
            raise InvalidValueError(f"games must be a 1-d array of game indices, got shape "
                                    f"{games.shape} dtype {games.dtype}")
        if games.size and (games.min() < 0 or games.max() >= self.batch_size):
            raise InvalidValueError(f"games must be in 0..{self.batch_size - 1}")
        return games.astype(np.int64, copy=False)

    # -- queries ------------------------------------------------------------------------------

    def legal_masks(self) -> np.ndarray:
        """Fresh (B, 50) int8 masks of the players to move."""
        held = self.hands[self.all_games, self.current_player] > 0
        masks = np.zeros((self.batch_size, NUM_ACTIONS), np.int8)
        masks[:, 0::2] = held
        masks[:, 1::2] = held
        return masks

    def observe(self, observers) -> np.ndarray:
        """Fresh (B, D) observations: game b as seen by seat ``observers[b]``."""
        observers = np.asarray(observers, dtype=np.int64)
        out = np.zeros((self.batch_size, self.observation_size), np.float32)
        _observe_seats(self.games, observers, self.num_players, out)
        return out
