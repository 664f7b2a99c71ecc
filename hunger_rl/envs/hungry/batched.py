"""Batched Hungry: B games of the same player count held in arrays, stepped with one call.

The rules are those of :mod:`hunger_rl.envs.hungry.engine` (H1-H9), re-implemented as compiled
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
slots or on the actions.

Layout. Every small field of one game lives in one int8 row of ``BatchedHungry.games`` (offsets
below, sized for 4 players whatever the player count), so the compiled code touches one
contiguous block per game and passes one array around; the deal streams are separate uint64
arrays. Policies for the batch (uniformly random, greedy, and the expert-like forecast) are
compiled alike, so that opponents inside a batched training environment cost little next to the
learner's network.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from hunger_rl.envs.hungry.engine import (
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
    REMOVED_CARDS,
    SECOND_PLACE_POINTS,
    TIED_SECOND_RULES,
    TOTAL_PLAYS,
    TWO_HOMES_BONUS,
    HungryState,
    IllegalActionError,
    card_colour,
    card_stars,
    check_num_players,
    describe_action,
)
from hunger_rl.envs.hungry.observation import REWARD_MODES, SCORE_SCALE, observation_layout

NO_PLAYER = -1
POLICY_KINDS = ("random", "greedy", "forecast")
_REWARD_CODES = {"win": 0, "score": 1}
_POLICY_CODES = {"random": 0, "greedy": 1, "forecast": 2}
_ACTION_RESORT = np.array(ACTION_RESORT, dtype=np.int64)
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

_jit = numba.njit(cache=True, nogil=True)


class StepOutputs(NamedTuple):
    """What one step reports; the arrays are reused (overwritten) by the next step.

    ``observations[b]`` and ``action_masks[b]`` are those of the player to move in game b (its
    next game if the step ended one), ``to_move[b]`` that player. ``rewards[b, p]`` is seat p's
    terminal reward, zero unless ``terminated[b]``; ``final_totals`` and ``winners`` are filled
    only where ``terminated``.
    """

    observations: np.ndarray
    action_masks: np.ndarray
    to_move: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    final_totals: np.ndarray
    winners: np.ndarray


# -- random numbers -------------------------------------------------------------------------------

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)


@_jit
def _splitmix_finish(z):
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return z ^ (z >> np.uint64(31))


@_jit
def _below(rng_state, slot, n):
    """A random integer in 0..n-1 from ``rng_state[slot]`` (SplitMix64), advancing it.

    Multiply-shift on the top 32 bits: the bias is below 2**-26 for the n <= 50 used here.
    """
    rng_state[slot] += _GOLDEN
    high = _splitmix_finish(rng_state[slot]) >> np.uint64(32)
    return np.int64((high * np.uint64(n)) >> np.uint64(32))


@_jit
def _stream_key(seed, game_number):
    return _splitmix_finish(_splitmix_finish(seed + _GOLDEN) + np.uint64(game_number))


@_jit
def _shuffle_deal(g, b, deal_rng, seed, game_number, num_players, random_first):
    """Write deal ``game_number`` of ``seed``'s stream into game b's order; return the first player.

    The first player (when random) is drawn before the shuffle, as in ``hungry_v0``; the shuffle
    is Fisher-Yates from the last position down.
    """
    deal_rng[b] = _stream_key(seed, game_number)
    first = 0
    if random_first:
        first = _below(deal_rng, b, num_players)
    for i in range(DECK_SIZE):
        g[b, ORDER + i] = _FULL_DECK[i]
    for i in range(DECK_SIZE - 1, 0, -1):
        j = _below(deal_rng, b, i + 1)
        card = g[b, ORDER + i]
        g[b, ORDER + i] = g[b, ORDER + j]
        g[b, ORDER + j] = card
    return first


def stream_deck(
    seed: int, game_number: int, num_players: int = 2, random_first: bool = False
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


@_jit
def _resort_points(resort):
    return resort + 1 if resort < NUM_STARS else HOTEL_POINTS


@_jit
def _update_resort(g, b, resort, num_players, void_tied_second):
    """Recompute one resort's places (H6) and move the points they are worth (H7, H8).

    Places as :func:`engine.resort_places`; totals stay equal to :func:`engine.totals_from_places`
    by taking the old places' points off and giving the new ones, and moving the two-homes bonus
    when a home changes hands.
    """
    first = NO_PLAYER
    second = NO_PLAYER
    above = 127  # walk the distinct counts strictly below this one, high to low
    while True:
        count = 0
        holder = NO_PLAYER
        holders = 0
        for p in range(num_players):
            c = g[b, COUNTS + p * NUM_RESORTS + resort]
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


@_jit
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


@_jit
def _deal(g, b, num_players, first_player):
    """Start game b from its order: 2 removed, 8 dealt per seat in seat order (H2)."""
    order = g[b, ORDER : ORDER + DECK_SIZE].copy()
    g[b, :] = 0
    g[b, ORDER : ORDER + DECK_SIZE] = order
    for i in range(NUM_RESORTS):
        g[b, FIRST + i] = NO_PLAYER
        g[b, SECOND + i] = NO_PLAYER
    g[b, BONUS_HOLDER] = NO_PLAYER
    position = REMOVED_CARDS
    for p in range(num_players):
        g[b, HAND_SIZES + p] = HAND_SIZE
        for _ in range(HAND_SIZE):
            g[b, HANDS + p * NUM_CARD_TYPES + order[position]] += 1
            position += 1
    g[b, DECK_POS] = position
    g[b, CURRENT] = first_player


@_jit
def _deal_next_game(g, b, stream_seed, game_number, deal_rng, num_players, random_first):
    game_number[b] += 1
    first = _shuffle_deal(g, b, deal_rng, stream_seed[b], game_number[b], num_players, random_first)
    _deal(g, b, num_players, first)


@_jit
def _play(g, b, action, num_players, void_tied_second):
    """The player to move in game b plays ``action``, then draws while the deck lasts (H4)."""
    player = np.int64(g[b, CURRENT])
    card = action >> 1
    hand = HANDS + player * NUM_CARD_TYPES
    g[b, hand + card] -= 1
    g[b, PLACED + player * NUM_ACTIONS + action] += 1
    g[b, PLAYED + card] += 1
    resort = _ACTION_RESORT[action]
    g[b, COUNTS + player * NUM_RESORTS + resort] += 1
    _update_resort(g, b, resort, num_players, void_tied_second)
    position = np.int64(g[b, DECK_POS])
    if position < DECK_SIZE:
        g[b, hand + g[b, ORDER + position]] += 1
        g[b, DECK_POS] = position + 1
    else:
        g[b, HAND_SIZES + player] -= 1
    g[b, NUM_PLAYS] += 1
    g[b, CURRENT] = (player + 1) % num_players


@_jit
def _best_total_and_winner(g, b, num_players):
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


@_jit
def _score_game(g, b, num_players, reward_code, rewards_out, totals_out, winners_out):
    """Final totals, winners (H9) and rewards (R1, or score margin) into row b of each output."""
    best, winner = _best_total_and_winner(g, b, num_players)
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
            rewards_out[b, p] = num_players / (num_players - 1) * (share - 1.0 / num_players)
        else:
            others = (total_sum - g[b, TOTALS + p]) / (num_players - 1)
            rewards_out[b, p] = (g[b, TOTALS + p] - others) / SCORE_SCALE


@_jit
def _write_observation(g, b, observer, num_players, out, row):
    """``hungry_v0``'s observation of ``observer`` in game b, written into ``out[row]``.

    Slices in ``observation_layout`` order: hand, placed by relative seat, hand sizes, deck
    size, unseen copies, totals, to-move one-hot (all zero once the game is over). Copies go
    through slices indexed from 0, which numba compiles to vector code (indices that might be
    negative would need a wraparound check each).
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
        obs[offset + k] = game[HAND_SIZES + _seat_after(observer, k, num_players)]
    offset += num_players
    obs[offset] = DECK_SIZE - game[DECK_POS]
    offset += 1
    played = game[PLAYED : PLAYED + NUM_CARD_TYPES]
    unseen = obs[offset : offset + NUM_CARD_TYPES]
    for t in range(NUM_CARD_TYPES):
        unseen[t] = COPIES_PER_TYPE - hand[t] - played[t]
    offset += NUM_CARD_TYPES
    for k in range(num_players):
        obs[offset + k] = game[TOTALS + _seat_after(observer, k, num_players)]
    offset += num_players
    for k in range(num_players):
        obs[offset + k] = 0.0
    if game[NUM_PLAYS] < TOTAL_PLAYS:
        obs[offset + _seat_after(game[CURRENT], num_players - observer, num_players)] = 1.0


@_jit
def _seat_after(seat, k, num_players):
    """The seat ``k`` places after ``seat`` (0 <= k <= N, so one subtraction suffices)."""
    seat = seat + k
    return seat - num_players if seat >= num_players else seat


@_jit
def _mover_hand(g, b):
    """The 25 card counts of the player to move in game b (a view)."""
    hand = HANDS + np.int64(g[b, CURRENT]) * NUM_CARD_TYPES
    return g[b, hand : hand + NUM_CARD_TYPES]


@_jit
def _write_mask(g, b, out):
    """Legal actions of the player to move in game b: both destinations of each held card type."""
    hand = _mover_hand(g, b)
    mask = out[b]
    for t in range(NUM_CARD_TYPES):
        held = hand[t] > 0
        mask[2 * t] = held
        mask[2 * t + 1] = held


@_jit
def _first_illegal(g, games, actions):
    """Index into ``games`` of the first action its game's mover may not play, else -1."""
    for i in range(games.shape[0]):
        b = games[i]
        action = actions[i]
        if action < 0 or action >= NUM_ACTIONS:
            return i
        if g[b, HANDS + np.int64(g[b, CURRENT]) * NUM_CARD_TYPES + (action >> 1)] == 0:
            return i
    return -1


@_jit
def _step_games(
    g,
    games,
    actions,
    stream_seed,
    game_number,
    deal_rng,
    num_players,
    void_tied_second,
    reward_code,
    random_first,
    observations,
    masks,
    to_move,
    rewards,
    terminated,
    final_totals,
    winners,
    final_observers,
    final_observations,
):
    """Play ``actions[i]`` in game ``games[i]``; finish, re-deal and observe as :meth:`step`."""
    for i in range(games.shape[0]):
        b = games[i]
        _play(g, b, actions[i], num_players, void_tied_second)
        if g[b, NUM_PLAYS] == TOTAL_PLAYS:
            terminated[b] = True
            _score_game(g, b, num_players, reward_code, rewards, final_totals, winners)
            if final_observers.shape[0] > 0:
                _write_observation(g, b, final_observers[b], num_players, final_observations, b)
            _deal_next_game(g, b, stream_seed, game_number, deal_rng, num_players, random_first)
        else:
            terminated[b] = False
            for p in range(num_players):
                rewards[b, p] = 0.0
        mover = g[b, CURRENT]
        to_move[b] = mover
        _write_observation(g, b, mover, num_players, observations, b)
        _write_mask(g, b, masks)


@_jit
def _observe_movers(g, num_players, observations, masks, to_move):
    for b in range(g.shape[0]):
        to_move[b] = g[b, CURRENT]
        _write_observation(g, b, g[b, CURRENT], num_players, observations, b)
        _write_mask(g, b, masks)


@_jit
def _observe_seats(g, observers, num_players, out):
    for b in range(g.shape[0]):
        _write_observation(g, b, observers[b], num_players, out, b)


# -- compiled policies ----------------------------------------------------------------------------


@_jit
def _random_action(g, b, rng_state):
    """A uniformly random legal action of the mover in game b.

    Picks one of the 2 x (held card types) legal actions; the held type is found without
    branches, which mispredict on random hands.
    """
    hand = _mover_hand(g, b)
    kinds = 0
    for t in range(NUM_CARD_TYPES):
        kinds += hand[t] > 0
    pick = _below(rng_state, b, 2 * kinds)
    target = pick >> 1
    chosen = 0
    seen = 0
    for t in range(NUM_CARD_TYPES):
        held = hand[t] > 0
        chosen += t * (held and seen == target)
        seen += held
    return 2 * chosen + (pick & 1)


@_jit
def _keep_best(value, action, best_value, best_action, ties, tolerance, rng_state, b):
    """One step of a single pass for the best action, ties (within ``tolerance``) broken
    uniformly at random: returns the new (best value, best action, number tied)."""
    if value > best_value + tolerance:
        return value, action, 1
    if value >= best_value - tolerance:
        ties += 1
        if _below(rng_state, b, ties) == 0:
            best_action = action
    return best_value, best_action, ties


@_jit
def _greedy_action(g, b, num_players, void_tied_second, rng_state):
    """The mover's legal action with the best margin after it, ties broken uniformly at random.

    Margin: the mover's total minus the best other total, both as if the game ended right after
    the play (one-step lookahead on the current places; the card drawn is ignored). Each
    candidate is tried on the game's own row and undone.
    """
    player = np.int64(g[b, CURRENT])
    hand = HANDS + player * NUM_CARD_TYPES
    saved_totals = np.empty(MAX_PLAYERS, np.int8)
    best_margin = -1000
    best_action = -1
    ties = 0
    for action in range(NUM_ACTIONS):
        if g[b, hand + (action >> 1)] == 0:
            continue
        resort = _ACTION_RESORT[action]
        first = g[b, FIRST + resort]
        second = g[b, SECOND + resort]
        bonus_holder = g[b, BONUS_HOLDER]
        for p in range(num_players):
            saved_totals[p] = g[b, TOTALS + p]
        count = COUNTS + player * NUM_RESORTS + resort
        g[b, count] += 1
        _update_resort(g, b, resort, num_players, void_tied_second)
        margin = -1000
        for p in range(num_players):
            if p != player:
                margin = max(margin, -np.int64(g[b, TOTALS + p]))
        margin += g[b, TOTALS + player]
        g[b, count] -= 1
        g[b, FIRST + resort] = first
        g[b, SECOND + resort] = second
        g[b, BONUS_HOLDER] = bonus_holder
        for p in range(num_players):
            g[b, TOTALS + p] = saved_totals[p]
        best_margin, best_action, ties = _keep_best(
            margin, action, best_margin, best_action, ties, 0, rng_state, b
        )
    return best_action


# -- the forecast policy --------------------------------------------------------------------------
#
# The expert's valuation (``policies.hungry.ExpertHungryPolicy``) at a greedy player's cost: its
# exact count distributions replaced by a normal approximation, so that it runs compiled, as the
# search's playout policy, as a training opponent inside the batch, and as input features.
#
# * Forecast. Each seat's final count at a resort has mean ``count + p_s n`` and variance
#   ``n p_s (1 - p_s)``, where n is the number of unseen cards (from the mover's view) that fit
#   the resort and ``p_s`` half the chance that one of them is played by seat s (its remaining
#   plays over the unseen cards; the mover counts only its future draws). The mover's own fitting
#   cards add 1/2 each to its mean and 1/4 to its variance, as the expert's 1/2 destination chance.
# * Places. Seat s beats seat t strictly with the normal chance of ``X_s - X_t >= 1`` (so ties
#   score nothing: tie denial, H6). First place: beating every other seat (taken as independent)
#   and placing at all (a count of at least 1); second place: beating all but one.
# * Value. As the expert: the mover's expected points (first places, second-place tokens, the
#   two-home bonus from the homes' first-place chances in star order, H8, and the small premium
#   for low-star homes, H9) minus the mean of the others'. It plays the best value after its play.

# First-place points of each resort: the home's stars, or a hotel's 5 (H7).
FIRST_POINTS = np.array([s + 1 for s in range(NUM_STARS)] + [HOTEL_POINTS] * NUM_STARS, float)
# The two resorts a card type fits: its holiday home (stars) and its hotel (colour).
_CARD_HOME = np.array([card_stars(t) - 1 for t in range(NUM_CARD_TYPES)], dtype=np.int64)
_CARD_HOTEL = np.array([NUM_STARS + card_colour(t) for t in range(NUM_CARD_TYPES)], np.int64)
# The expert's parameters (``policies.hungry.ExpertHungryPolicy`` reads them from here): own
# hand cards go to each of their resorts with chance 1/2, so do unseen cards an opponent will
# hold; a low-star home is worth this much per star below 6 for the H9 tie-break.
OWN_DESTINATION_CHANCE = 0.5
OPPONENT_DESTINATION_CHANCE = 0.5
TIE_BREAK_WEIGHT = 0.05
# Keeps the spread of a settled count difference positive, so that it reads as certain.
_MIN_VARIANCE = 0.01
_LOG_OWN_MISS = math.log(1.0 - OWN_DESTINATION_CHANCE)
_LOGISTIC_SCALE = 1.702
# Values this close count as equal, broken at random (as the expert's pick).
_TIE = 1e-9


@_jit
def _beats(mean_a, var_a, mean_b, var_b):
    """Normal chance that a count of (mean_a, var_a) exceeds one of (mean_b, var_b) by >= 1."""
    z = (mean_a - mean_b - 0.5) / math.sqrt(var_a + var_b + _MIN_VARIANCE)
    # Logistic approximation of the normal distribution function (error below 0.01), several
    # times cheaper than erf in this innermost loop.
    return 1.0 / (1.0 + math.exp(-_LOGISTIC_SCALE * z))


@_jit
def _resort_forecast(
    g, b, resort, shift, num_players, mover, unseen_fit, own_fit, chances, work, out
):
    """``out[0]``, ``out[1]``: each seat's chance of first and of second place at one resort
    (H6, ties score nothing), the mover's count raised by ``shift`` (1: its play goes there) and
    its fitting hand cards lowered by ``abs(shift)`` (the card played leaves its hand)."""
    means = work[0]
    variances = work[1]
    scores_any = work[2]
    wins = work[3:]
    n = unseen_fit[resort]
    for s in range(num_players):
        count = g[b, COUNTS + s * NUM_RESORTS + resort]
        p = chances[s]
        means[s] = count + p * n
        variances[s] = n * p * (1.0 - p)
        fit = 0
        if s == mover:
            fit = own_fit[resort] - abs(shift)
            count += max(shift, 0)
            means[s] += max(shift, 0) + OWN_DESTINATION_CHANCE * fit
            variances[s] += OWN_DESTINATION_CHANCE * (1.0 - OWN_DESTINATION_CHANCE) * fit
        if count > 0:
            scores_any[s] = 1.0
        else:
            # Chance that none of its unseen or own fitting cards comes here.
            scores_any[s] = 1.0 - math.exp(n * math.log1p(-p) + fit * _LOG_OWN_MISS)
    for s in range(num_players):
        for t in range(s + 1, num_players):
            wins[s, t] = _beats(means[s], variances[s], means[t], variances[t])
            wins[t, s] = _beats(means[t], variances[t], means[s], variances[s])
    for s in range(num_players):
        all_beaten = 1.0
        one_above = 0.0
        for t in range(num_players):
            if t == s:
                continue
            all_beaten *= wins[s, t]
            others_beaten = 1.0
            for o in range(num_players):
                if o != s and o != t:
                    others_beaten *= wins[s, o]
            one_above += (1.0 - wins[s, t]) * others_beaten
        out[0, s] = scores_any[s] * all_beaten
        out[1, s] = scores_any[s] * one_above


@_jit
def _add_bonus(home_firsts, num_players, points, no_home, one_home):
    """Add each seat's two-home bonus (H8) from its chance of first place at each home: homes in
    star order, the first seat to reach two takes it. ``no_home``, ``one_home``: working rows."""
    no_home[:] = 1.0
    one_home[:] = 0.0
    not_given = 1.0
    for home in range(NUM_STARS):
        given = 0.0
        for s in range(num_players):
            taken = home_firsts[home, s]
            reach = not_given * one_home[s] * taken
            points[s] += TWO_HOMES_BONUS * reach
            given += reach
            one_home[s] = one_home[s] * (1.0 - taken) + no_home[s] * taken
            no_home[s] *= 1.0 - taken
        not_given = max(not_given - given, 0.0)


# Variants of a resort's forecast: as it stands, after the mover plays there, after the mover
# plays the card to its other resort.
_STANDING, _PLAYED_HERE, _PLAYED_ELSEWHERE = 0, 1, 2
_SHIFTS = (0, 1, -1)
# What :func:`forecast_values` reports per play besides its value, when asked: the parts the
# value is made of, from the mover's side ("here": the play's resort; "elsewhere": the card's
# other resort, which loses it as an option).
FORECAST_DETAILS = (
    "own points after",  # the mover's expected points (with the bonus) after the play
    "best other points after",  # the best other seat's
    "own first here after",  # the mover's chance of first place here after the play
    "own first here before",
    "best other first here after",
    "own second here after",
    "own first elsewhere change",  # its chance of first place elsewhere, after minus before
    "first-place points here",  # the resort's worth: stars of a home, 5 for a hotel
    "home here",  # 1 for a holiday home (the bonus and the tie-break count homes), 0 for a hotel
)


@_jit
def forecast_scratch():
    """Working arrays for :func:`forecast_values`, made once per batch of playouts so that the
    compiled loop allocates nothing per move."""
    return (
        np.empty((2, NUM_RESORTS), np.int64),  # unseen and own fitting cards per resort
        np.empty((3 + MAX_PLAYERS, MAX_PLAYERS)),  # one resort's forecast
        np.empty((3, NUM_RESORTS, 2, MAX_PLAYERS)),  # places (below)
        np.empty((5 + NUM_STARS, MAX_PLAYERS)),  # per seat: chances, points, bonus; homes' firsts
        np.empty(NUM_ACTIONS),  # each play's value
        np.empty((0, len(FORECAST_DETAILS))),  # no details
    )


@_jit
def forecast_values(g, b, num_players, scratch, values, details):
    """``values[a]``: the forecast value (section docstring) of each legal play a of the mover
    in game b; ``-inf`` where a is not legal. ``details[a]``: the ``FORECAST_DETAILS`` of each
    legal play (zero where not legal), or nothing when ``details`` has no rows.
    ``scratch``: from :func:`forecast_scratch`."""
    fits, work, places, seats = scratch[:4]
    unseen_fit = fits[0]
    own_fit = fits[1]
    chances = seats[0]
    standing = seats[1]
    points = seats[2]
    no_home = seats[3]
    one_home = seats[4]
    home_firsts = seats[5:]
    mover = np.int64(g[b, CURRENT])
    hand = HANDS + mover * NUM_CARD_TYPES
    # Unseen from the mover's view: neither played nor in its hand.
    fits[:] = 0
    unseen_total = 0
    for t in range(NUM_CARD_TYPES):
        unseen = COPIES_PER_TYPE - g[b, PLAYED + t] - g[b, hand + t]
        unseen_total += unseen
        unseen_fit[_CARD_HOME[t]] += unseen
        unseen_fit[_CARD_HOTEL[t]] += unseen
        own_fit[_CARD_HOME[t]] += g[b, hand + t]
        own_fit[_CARD_HOTEL[t]] += g[b, hand + t]
    left = TOTAL_PLAYS - np.int64(g[b, NUM_PLAYS])
    for s in range(num_players):
        offset = (s - mover) % num_players
        remaining = max(0, (left - offset + num_players - 1) // num_players)
        if s == mover:
            remaining = max(remaining - np.int64(g[b, HAND_SIZES + s]), 0)
        chances[s] = OPPONENT_DESTINATION_CHANCE * remaining / max(unseen_total, 1)
    # places[variant, resort, first or second, seat]; the played variants only where needed.
    for r in range(NUM_RESORTS):
        _resort_forecast(
            g, b, r, 0, num_players, mover, unseen_fit, own_fit, chances, work, places[_STANDING, r]
        )
        if own_fit[r] > 0:
            for variant in (_PLAYED_HERE, _PLAYED_ELSEWHERE):
                _resort_forecast(
                    g,
                    b,
                    r,
                    _SHIFTS[variant],
                    num_players,
                    mover,
                    unseen_fit,
                    own_fit,
                    chances,
                    work,
                    places[variant, r],
                )
    # Points as the table stands, without the bonus; a play changes two resorts' shares.
    standing[:] = 0.0
    for r in range(NUM_RESORTS):
        for s in range(num_players):
            standing[s] += _forecast_resort_points(places[_STANDING, r], r, s)
    with_details = details.shape[0] > 0
    if with_details:
        details[:] = 0.0
    for action in range(NUM_ACTIONS):
        if g[b, hand + (action >> 1)] == 0:
            values[action] = -np.inf
            continue
        here = _ACTION_RESORT[action]
        elsewhere = _ACTION_RESORT[action ^ 1]
        for s in range(num_players):
            points[s] = (
                standing[s]
                + _forecast_resort_points(places[_PLAYED_HERE, here], here, s)
                - _forecast_resort_points(places[_STANDING, here], here, s)
                + _forecast_resort_points(places[_PLAYED_ELSEWHERE, elsewhere], elsewhere, s)
                - _forecast_resort_points(places[_STANDING, elsewhere], elsewhere, s)
            )
        for home in range(NUM_STARS):
            variant = _STANDING
            if home == here:
                variant = _PLAYED_HERE
            elif home == elsewhere:
                variant = _PLAYED_ELSEWHERE
            for s in range(num_players):
                home_firsts[home, s] = places[variant, home, 0, s]
        _add_bonus(home_firsts, num_players, points, no_home, one_home)
        others = 0.0
        best_other = -np.inf
        for s in range(num_players):
            if s != mover:
                others += points[s]
                best_other = max(best_other, points[s])
        values[action] = points[mover] - others / (num_players - 1)
        if with_details:
            played = places[_PLAYED_HERE, here]
            best_other_first = 0.0
            for s in range(num_players):
                if s != mover:
                    best_other_first = max(best_other_first, played[0, s])
            row = details[action]
            row[0] = points[mover]
            row[1] = best_other
            row[2] = played[0, mover]
            row[3] = places[_STANDING, here, 0, mover]
            row[4] = best_other_first
            row[5] = played[1, mover]
            row[6] = (places[_PLAYED_ELSEWHERE, elsewhere, 0, mover]
                      - places[_STANDING, elsewhere, 0, mover])
            row[7] = FIRST_POINTS[here]
            row[8] = here < NUM_STARS


@_jit
def forecast_action(g, b, num_players, rng_state, scratch):
    """The mover's play of best forecast value in game b; ties at random."""
    values = scratch[4]
    forecast_values(g, b, num_players, scratch, values, scratch[5])
    best_value = -np.inf
    best_action = -1
    ties = 0
    for action in range(NUM_ACTIONS):
        if values[action] != -np.inf:
            best_value, best_action, ties = _keep_best(
                values[action], action, best_value, best_action, ties, _TIE, rng_state, b
            )
    return best_action


@_jit
def _forecast_resort_points(chances, resort, seat):
    """A seat's expected points at one resort from its (first, second) chances there, with the
    low-star home premium (H9 tie-break)."""
    points = FIRST_POINTS[resort] * chances[0, seat] + chances[1, seat]
    if resort < NUM_STARS:
        points += TIE_BREAK_WEIGHT * (NUM_STARS - resort) * chances[0, seat]
    return points


@_jit
def _forecast_values_of_observations(
    observations, num_players, placed_start, sizes_start, out, details
):
    """Row i of ``out`` (and of ``details``, if it has rows): :func:`forecast_values` for the
    observer of ``observations[i]``, from a game row rebuilt out of what the observation shows
    (seat 0 is the observer)."""
    row = np.zeros((1, ROW_SIZE), np.int8)
    scratch = forecast_scratch()
    for i in range(observations.shape[0]):
        obs = observations[i]
        row[0, :] = 0
        plays = 0
        for s in range(num_players):
            for a in range(NUM_ACTIONS):
                placed = np.int64(obs[placed_start + s * NUM_ACTIONS + a])
                row[0, COUNTS + s * NUM_RESORTS + _ACTION_RESORT[a]] += placed
                row[0, PLAYED + (a >> 1)] += placed
                plays += placed
        for t in range(NUM_CARD_TYPES):
            row[0, HANDS + t] = np.int64(obs[t])
        row[0, HAND_SIZES] = np.int64(obs[sizes_start])
        row[0, NUM_PLAYS] = plays
        forecast_values(row, 0, num_players, scratch, out[i],
                        details[i] if details.shape[0] else scratch[5])


def forecast_values_of_observations(observations: np.ndarray, num_players: int,
                                    details: bool = False):
    """(B, 50) forecast values of each observer's legal plays (``-inf`` where not legal), from
    a batch of ``hungry_v0`` observation vectors: public information and the observer's hand.
    With ``details``, also their (B, 50, len(FORECAST_DETAILS)) parts, as a second result."""
    observations = np.ascontiguousarray(observations, dtype=np.float32)
    layout = observation_layout(num_players)
    b = observations.shape[0]
    out = np.empty((b, NUM_ACTIONS))
    parts = np.empty((b if details else 0, NUM_ACTIONS, len(FORECAST_DETAILS)))
    _forecast_values_of_observations(observations, num_players, layout["placed"].start,
                                     layout["hand_sizes"].start, out, parts)
    return (out, parts) if details else out


@_jit
def _policy_action(g, b, policy_code, num_players, void_tied_second, rng_state, scratch):
    """The action of the batch policy ``policy_code`` (``_POLICY_CODES``) in game b."""
    if policy_code == 0:
        return _random_action(g, b, rng_state)
    if policy_code == 1:
        return _greedy_action(g, b, num_players, void_tied_second, rng_state)
    return forecast_action(g, b, num_players, rng_state, scratch)


@_jit
def _policy_actions(g, games, policy_code, num_players, void_tied_second, rng_state, out):
    scratch = forecast_scratch()
    for i in range(games.shape[0]):
        out[i] = _policy_action(
            g, games[i], policy_code, num_players, void_tied_second, rng_state, scratch
        )


@_jit
def _learner_step(
    g,
    actions,
    learner_seats,
    stream_seed,
    game_number,
    deal_rng,
    policy_code,
    policy_rng,
    num_players,
    void_tied_second,
    reward_code,
    random_first,
    observations,
    masks,
    rewards,
    terminated,
    terminal_observations,
    seat_rewards,
    final_totals,
    winners,
):
    """Each game: the learner plays its action, then the opponents play until it is to move again.

    A negative action plays nothing (opponents only, as after a reset). A game that ends on the
    way records the learner's reward and its final observation, is dealt again, and the
    learner's seat moves one place on (``(seat + 1) % N``), so that a slot visits every seat in
    turn; the opponents then play up to the learner's first turn.
    """
    scratch = forecast_scratch()
    for b in range(actions.shape[0]):
        terminated[b] = False
        rewards[b] = 0.0
        action = actions[b]
        while True:
            if action >= 0:  # a negative action: start from the opponents' turns
                _play(g, b, action, num_players, void_tied_second)
            if g[b, NUM_PLAYS] == TOTAL_PLAYS:
                learner = learner_seats[b]
                terminated[b] = True
                _score_game(g, b, num_players, reward_code, seat_rewards, final_totals, winners)
                rewards[b] = seat_rewards[b, learner]
                _write_observation(g, b, learner, num_players, terminal_observations, b)
                _deal_next_game(g, b, stream_seed, game_number, deal_rng, num_players, random_first)
                learner_seats[b] = (learner + 1) % num_players
            if g[b, CURRENT] == learner_seats[b]:
                break
            action = _policy_action(
                g, b, policy_code, num_players, void_tied_second, policy_rng, scratch
            )
        _write_observation(g, b, learner_seats[b], num_players, observations, b)
        _write_mask(g, b, masks)


# -- Python interface -----------------------------------------------------------------------------


def observation_size(num_players: int) -> int:
    return observation_layout(num_players)["to_move"].stop


class BatchedHungry:
    """``num_games`` games of Hungry for ``num_players`` players, stepped together.

    Options as ``hungry_v0.raw_env``: ``reward`` ("win": R1, or "score"), ``first_player``
    ("player_0" or "random"), ``tied_second`` ("next" or "void"). Call :meth:`reset` first.
    """

    def __init__(
        self,
        num_games: int,
        num_players: int = 2,
        reward: str = "win",
        first_player: str = "player_0",
        tied_second: str = "next",
    ):
        check_num_players(num_players)
        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if first_player not in ("player_0", "random"):
            raise ValueError(f"first_player must be 'player_0' or 'random', got {first_player!r}")
        if tied_second not in TIED_SECOND_RULES:
            raise ValueError(f"tied_second must be one of {TIED_SECOND_RULES}, got {tied_second!r}")
        self.num_games = num_games
        self.num_players = num_players
        self.reward_mode = reward
        self.random_first = first_player == "random"
        self.tied_second = tied_second
        self.void_tied_second = tied_second == "void"
        self.reward_code = _REWARD_CODES[reward]
        b, n = num_games, num_players
        self.games = np.zeros((b, ROW_SIZE), np.int8)
        self.stream_seed = np.zeros(b, np.uint64)
        self.game_number = np.zeros(b, np.int64)
        self.deal_rng = np.zeros(b, np.uint64)
        self.all_games = np.arange(b, dtype=np.int64)
        self._no_observers = np.zeros(0, np.int64)
        self.final_observations = np.zeros((b, observation_size(n)), np.float32)
        self.outputs = StepOutputs(
            observations=np.zeros((b, observation_size(n)), np.float32),
            action_masks=np.zeros((b, NUM_ACTIONS), np.int8),
            to_move=np.zeros(b, np.int8),
            rewards=np.zeros((b, n), np.float32),
            terminated=np.zeros(b, np.bool_),
            final_totals=np.zeros((b, n), np.int8),
            winners=np.zeros((b, n), np.bool_),
        )

    # -- views of the state (numpy, for inspection and tests) ---------------------------------

    @property
    def hands(self) -> np.ndarray:
        """(B, N, 25) cards in hand per player and card type (a view)."""
        block = self.games[:, HANDS : HANDS + MAX_PLAYERS * NUM_CARD_TYPES]
        return block.reshape(self.num_games, MAX_PLAYERS, NUM_CARD_TYPES)[:, : self.num_players]

    @property
    def placed(self) -> np.ndarray:
        """(B, N, 50) tourists placed per player and action (a view)."""
        block = self.games[:, PLACED : PLACED + MAX_PLAYERS * NUM_ACTIONS]
        return block.reshape(self.num_games, MAX_PLAYERS, NUM_ACTIONS)[:, : self.num_players]

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
        """Deal every game: game i as ``hungry_v0`` after ``reset(seed=seeds[i])``.

        Without ``seeds``, they are drawn from ``seed`` (``SeedSequence(seed)``; fresh entropy
        when ``seed`` is None). Each slot's later games come from its stream (module docstring).
        """
        if seeds is None:
            seeds = np.random.SeedSequence(seed).generate_state(self.num_games, np.uint64)
        seeds = np.asarray(seeds)
        if seeds.shape != (self.num_games,):
            raise ValueError(f"seeds must hold one seed per game ({self.num_games})")
        for b, game_seed in enumerate(seeds.tolist()):
            self.deal(b, game_seed)
        out = self.outputs
        out.rewards[:] = 0
        out.terminated[:] = False
        _observe_movers(
            self.games, self.num_players, out.observations, out.action_masks, out.to_move
        )
        return out

    def deal(self, game: int, seed: int) -> None:
        """Deal game ``game`` as ``hungry_v0`` after ``reset(seed=seed)``; restart its stream.

        Only the state changes; the outputs are refreshed by the next step or reset.
        """
        rng = np.random.default_rng(seed)
        first = int(rng.integers(self.num_players)) if self.random_first else 0
        dealt = HungryState.new_game(self.num_players, rng=rng, first_player=first)
        # The engine keeps hands as counts; any order inside a seat's 8 cards deals the same hand.
        hand_cards = [np.repeat(np.arange(NUM_CARD_TYPES), row) for row in dealt.hands]
        order = np.concatenate([dealt.removed, *hand_cards, dealt.deck])
        self.games[game, ORDER : ORDER + DECK_SIZE] = order
        self.stream_seed[game] = np.uint64(seed % 2**64)
        self.game_number[game] = 0
        _deal(self.games, game, self.num_players, first)

    # -- stepping -----------------------------------------------------------------------------

    def step(self, actions) -> StepOutputs:
        """Play ``actions[b]`` in every game b (B agent-steps); auto-reset finished games."""
        return self.step_games(self.all_games, actions)

    def step_games(self, games, actions, final_observers=None) -> StepOutputs:
        """Play ``actions[i]`` in game ``games[i]`` only; other games' output rows are stale.

        With ``final_observers`` (one seat per game of the batch), a game that ends writes the
        last observation of that seat into ``final_observations[b]`` before it is dealt again.
        Raises :class:`IllegalActionError`, changing nothing, if any action is not legal.
        """
        games = np.asarray(games, dtype=np.int64)
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != games.shape:
            raise ValueError(f"expected {games.shape[0]} actions, got shape {actions.shape}")
        bad = _first_illegal(self.games, games, actions)
        if bad >= 0:
            game, action = int(games[bad]), int(actions[bad])
            legal = np.flatnonzero(self.legal_masks()[game]).tolist()
            what = describe_action(action) if 0 <= action < NUM_ACTIONS else "out of range"
            raise IllegalActionError(
                f"game {game}: player {int(self.current_player[game])} cannot play action "
                f"{action} ({what}); legal: {legal}"
            )
        out = self.outputs
        _step_games(
            self.games,
            games,
            actions,
            self.stream_seed,
            self.game_number,
            self.deal_rng,
            self.num_players,
            self.void_tied_second,
            self.reward_code,
            self.random_first,
            out.observations,
            out.action_masks,
            out.to_move,
            out.rewards,
            out.terminated,
            out.final_totals,
            out.winners,
            self._no_observers if final_observers is None else final_observers,
            self.final_observations,
        )
        return out

    # -- queries ------------------------------------------------------------------------------

    def legal_masks(self) -> np.ndarray:
        """Fresh (B, 50) int8 masks of the players to move."""
        held = self.hands[self.all_games, self.current_player] > 0
        masks = np.zeros((self.num_games, NUM_ACTIONS), np.int8)
        masks[:, 0::2] = held
        masks[:, 1::2] = held
        return masks

    def observe(self, observers) -> np.ndarray:
        """Fresh (B, D) observations: game b as seen by seat ``observers[b]``."""
        observers = np.asarray(observers, dtype=np.int64)
        out = np.zeros((self.num_games, observation_size(self.num_players)), np.float32)
        _observe_seats(self.games, observers, self.num_players, out)
        return out


class BatchedPolicy:
    """A compiled policy for the movers of a :class:`BatchedHungry`: "random", "greedy" or
    "forecast".

    "random" is uniform over the legal actions. "greedy" plays the legal action that leaves the
    mover the best margin (its total minus the best other total, both as if the game ended after
    the play), ties broken uniformly at random. "forecast" plays the best forecast value (the
    forecast policy section), ties broken uniformly at random. Each game slot has its own
    random stream, seeded from ``seed``, so a slot's choices do not depend on the other slots.
    """

    def __init__(self, kind: str, num_games: int, seed: int | None = None):
        if kind not in POLICY_KINDS:
            raise ValueError(f"batched policy must be one of {POLICY_KINDS}, got {kind!r}")
        self.kind = kind
        self.code = _POLICY_CODES[kind]
        self.rng_state = np.random.SeedSequence(seed).generate_state(num_games, np.uint64)
        self._actions = np.zeros(num_games, np.int64)

    def act(self, batch: BatchedHungry, games=None) -> np.ndarray:
        """Actions of the movers of ``games`` (default: all), in a reused int64 array."""
        games = batch.all_games if games is None else np.asarray(games, dtype=np.int64)
        out = self._actions[: games.shape[0]]
        _policy_actions(
            batch.games,
            games,
            self.code,
            batch.num_players,
            batch.void_tied_second,
            self.rng_state,
            out,
        )
        return out


def greedy_actions(batch: BatchedHungry, seed: int | None = 0) -> np.ndarray:
    """The greedy policy's action in every game of ``batch`` (see :class:`BatchedPolicy`)."""
    return BatchedPolicy("greedy", batch.num_games, seed).act(batch).copy()


class LearnerOutputs(NamedTuple):
    """What :func:`step_learners` reports per game; reused (overwritten) by the next call.

    ``observations``/``action_masks``: the learner's, now to move. ``rewards``: the learner's
    reward (non-zero only where ``terminated``), ``final_observations``: its last observation of
    the game that ended. ``seat_rewards``, ``final_totals``, ``winners``: every seat's, where
    ``terminated``.
    """

    observations: np.ndarray
    action_masks: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    final_observations: np.ndarray
    seat_rewards: np.ndarray
    final_totals: np.ndarray
    winners: np.ndarray

    @classmethod
    def empty(cls, num_games: int, num_players: int) -> LearnerOutputs:
        b, n, d = num_games, num_players, observation_size(num_players)
        return cls(
            observations=np.zeros((b, d), np.float32),
            action_masks=np.zeros((b, NUM_ACTIONS), np.int8),
            rewards=np.zeros(b, np.float32),
            terminated=np.zeros(b, np.bool_),
            final_observations=np.zeros((b, d), np.float32),
            seat_rewards=np.zeros((b, n), np.float32),
            final_totals=np.zeros((b, n), np.int8),
            winners=np.zeros((b, n), np.bool_),
        )


def play_to_learners(
    batch: BatchedHungry, learner_seats: np.ndarray, opponents: BatchedPolicy, out: LearnerOutputs
) -> LearnerOutputs:
    """After a reset: the opponents play every game up to its learner's first turn."""
    return _run_learner_step(batch, None, learner_seats, opponents, out)


def step_learners(
    batch: BatchedHungry,
    actions,
    learner_seats: np.ndarray,
    opponents: BatchedPolicy,
    out: LearnerOutputs,
) -> LearnerOutputs:
    """Every game's learner plays ``actions[b]``; ``opponents`` play until it is to move again.

    ``learner_seats`` (int64, one per game) is updated in place: when a game ends, its slot's
    learner moves one seat on, ``(seat + 1) % N``, for the next game. Raises
    :class:`IllegalActionError`, changing nothing, if a learner's action is not legal.
    """
    return _run_learner_step(batch, actions, learner_seats, opponents, out)


def _run_learner_step(batch, actions, learner_seats, opponents, out):
    if actions is None:
        actions = np.full(batch.num_games, -1, np.int64)
    else:
        actions = np.asarray(actions, dtype=np.int64)
        bad = _first_illegal(batch.games, batch.all_games, actions)
        if bad >= 0:
            raise IllegalActionError(
                f"game {bad}: the learner cannot play action {int(actions[bad])}; legal: "
                f"{np.flatnonzero(batch.legal_masks()[bad]).tolist()}"
            )
    _learner_step(
        batch.games,
        actions,
        learner_seats,
        batch.stream_seed,
        batch.game_number,
        batch.deal_rng,
        opponents.code,
        opponents.rng_state,
        batch.num_players,
        batch.void_tied_second,
        batch.reward_code,
        batch.random_first,
        out.observations,
        out.action_masks,
        out.rewards,
        out.terminated,
        out.final_observations,
        out.seat_rewards,
        out.final_totals,
        out.winners,
    )
    return out
