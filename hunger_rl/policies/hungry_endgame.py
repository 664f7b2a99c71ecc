"""Exact play of the 2-player Hungry endgame, once the deck is empty.

With two players and the deck empty, the only cards a player has not seen are the other hand and
the two removed cards (H2, H5): the other hand is one of at most C(10, 2) = 45 splits of the
unseen cards, each as likely as the number of ways its removed pair can be drawn from the unseen
copies. Given a split the rest of the game is one of perfect information, short (at most 16
plays) and zero-sum, so it is solved exactly: alpha-beta over the win share (H9; a shared draw
is half a win), with a transposition table, since plays of different orders reach the same
table. The move played is the one of best win share averaged over the splits by their weights
(perfect-information Monte Carlo over every determinization, not a sample of them), the
preferred move (the search's) wherever no other is strictly better.

Two facts make it small. Where a card goes matters only through the resort counts, so a
position is the two hands and the counts (the key of the table, Zobrist-hashed), whatever the
order of the plays that led to it. And the result takes only the counts: with two players a tie
for first place leaves nobody at that resort (H6), so the tied-second option cannot matter.

The averaged choice treats each split as if the player could see it (strategy fusion), so it is
not a solution of the game with hidden hands; it is the flat search's own method made exact. It
measured stronger than the shipped agent's search over the same endgames
(docs/experiments/exact_endgame.md).

The work a move takes grows about tenfold with every two plays left; a move's solving stops at a
budget of positions (``NODE_BUDGET``, counted, so that a seed replays a game whatever the
machine's speed), and the caller plays its own move instead. The table belongs to one game
(``new_game``), so that a game's moves never depend on the games before it.
"""

from __future__ import annotations

import numpy as np

from hunger_rl.engines.compiled import jit, jit_allocating
from hunger_rl.engines.hungry.engine import (
    HOTEL_POINTS,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_RESORTS,
    NUM_STARS,
    REMOVED_CARDS,
    SECOND_PLACE_POINTS,
    TWO_HOMES_BONUS,
)
from hunger_rl.engines.hungry.view import HungryView

PLAYERS = 2
# Positions a move may visit before its solving gives up: about 35 ms of one core.
NODE_BUDGET = 250_000
TABLE_BITS = 20
ABORTED = -100
# Win shares in halves: what the solver's integer values count.
LOSS, DRAW, WIN = 0, 1, 2
# Most tourists of one seat at one resort: the 10 cards of a colour, or of a star value.
MOST_AT_RESORT = 10
_ZOBRIST = np.random.default_rng(20261208)
# Keys of one tourist more of seat p at resort r over c, one card less of type t in p's hand
# of c copies (c = 1, 2), and of the other seat to move.
COUNT_KEYS = _ZOBRIST.integers(1, 2**63 - 1, size=(PLAYERS, NUM_RESORTS, MOST_AT_RESORT + 1),
                               dtype=np.int64)
HAND_KEYS = _ZOBRIST.integers(1, 2**63 - 1, size=(PLAYERS, NUM_CARD_TYPES, 3), dtype=np.int64)
SIDE_KEY = np.int64(_ZOBRIST.integers(1, 2**63 - 1, dtype=np.int64))
# The stack frame of one position in the solver's loop (``_solve``): its window, key, mover,
# plays left, the play being searched and what it changed, and the best value so far.
(F_ALPHA, F_BETA, F_ALPHA0, F_BETA0, F_HASH, F_MOVER, F_LEFT, F_NEXT, F_FIRST, F_ACTION,
 F_RESORT, F_HAND_BEFORE, F_COUNT_BEFORE, F_BEST, F_BEST_ACTION, FRAME) = range(16)
# The most plays left once the deck is empty (two hands of 8), and the root.
MAX_DEPTH = 2 * 8 + 2


@jit
def final_result(counts):
    """Seat 0's result in halves (WIN, DRAW or LOSS) when the game ends with ``counts[p, r]``
    tourists of seat p at resort r (H6-H9, 2 players)."""
    total0 = 0
    total1 = 0
    homes0 = 0  # the homes each seat takes first place at, as bits
    homes1 = 0
    for resort in range(NUM_RESORTS):
        c0 = counts[0, resort]
        c1 = counts[1, resort]
        points = resort + 1 if resort < NUM_STARS else HOTEL_POINTS
        if c0 > c1:
            total0 += points
            total1 += SECOND_PLACE_POINTS if c1 > 0 else 0
            if resort < NUM_STARS:
                homes0 |= 1 << resort
        elif c1 > c0:
            total1 += points
            total0 += SECOND_PLACE_POINTS if c0 > 0 else 0
            if resort < NUM_STARS:
                homes1 |= 1 << resort
    # H8: homes are scored from 1 star up, so the bonus goes to the seat whose second home has
    # fewer stars.
    second0 = homes0 & (homes0 - 1)
    second1 = homes1 & (homes1 - 1)
    if second0 or second1:
        low0 = second0 & -second0 if second0 else 1 << NUM_STARS
        low1 = second1 & -second1 if second1 else 1 << NUM_STARS
        if low0 < low1:
            total0 += TWO_HOMES_BONUS
        else:
            total1 += TWO_HOMES_BONUS
    if total0 != total1:
        return WIN if total0 > total1 else LOSS
    homes = homes0 | homes1  # H9: the lowest home breaks the tie
    if homes:
        return WIN if homes0 & (homes & -homes) else LOSS
    return DRAW


@jit
def position_key(counts, hands, mover):
    """The Zobrist key of a position (the counts, both hands and the seat to move)."""
    key = np.int64(0)
    for p in range(PLAYERS):
        for resort in range(NUM_RESORTS):
            for c in range(counts[p, resort]):
                key ^= COUNT_KEYS[p, resort, c]
        for card in range(NUM_CARD_TYPES):
            for c in range(hands[p, card]):
                key ^= HAND_KEYS[p, card, c + 1]
    if mover == 1:
        key ^= SIDE_KEY
    return key


@jit
def _resort_of(action):
    card = action >> 1
    return card % NUM_STARS if (action & 1) == 0 else NUM_STARS + card // NUM_STARS


@jit
def _next_action(hands, mover, first, after):
    """The next play of ``mover`` to search after ``after`` (-2: none yet): the table's play
    ``first`` (if any), then every other play in action order; -1 when none is left."""
    if after == -2:
        if first >= 0:
            return first
        start = 0
    else:
        start = 0 if after == first else after + 1
    for action in range(start, NUM_ACTIONS):
        if action != first and hands[mover, action >> 1] > 0:
            return action
    return -1


@jit
def _solve(counts, hands, mover, left, alpha, beta, key, keys, lows, highs, moves, nodes,
           stack):
    """The value in halves, for seat 0, of the position (``mover`` to play, ``left`` plays to
    the end), fail-soft within (``alpha``, ``beta``); ABORTED once ``nodes[0]`` passes
    ``nodes[1]``. An explicit stack (``stack[depth, F_*]``) rather than recursion, which numba
    cannot cache. ``counts`` and ``hands`` come back as they went in."""
    mask = keys.size - 1
    depth = 0
    frame = stack[0]
    frame[F_ALPHA], frame[F_BETA], frame[F_HASH] = alpha, beta, key
    frame[F_MOVER], frame[F_LEFT] = mover, left
    entering = True
    value = 0
    while True:
        frame = stack[depth]
        if entering:
            nodes[0] += 1
            if nodes[0] > nodes[1]:
                for d in range(depth - 1, -1, -1):  # undo the plays on the way down
                    f = stack[d]
                    hands[f[F_MOVER], f[F_ACTION] >> 1] = f[F_HAND_BEFORE]
                    counts[f[F_MOVER], f[F_RESORT]] = f[F_COUNT_BEFORE]
                return ABORTED
            entering = False
            if frame[F_LEFT] == 0:
                value = final_result(counts)
                returning = True
            else:
                returning = False
                slot = frame[F_HASH] & mask
                frame[F_ALPHA0], frame[F_BETA0] = frame[F_ALPHA], frame[F_BETA]
                frame[F_FIRST] = -1
                if keys[slot] == frame[F_HASH]:
                    low, high = lows[slot], highs[slot]
                    if low >= frame[F_BETA]:
                        value, returning = low, True
                    elif high <= frame[F_ALPHA]:
                        value, returning = high, True
                    else:
                        frame[F_ALPHA] = max(frame[F_ALPHA], low)
                        frame[F_BETA] = min(frame[F_BETA], high)
                        if frame[F_ALPHA] >= frame[F_BETA]:
                            value, returning = low, True
                        frame[F_FIRST] = moves[slot]
                frame[F_BEST] = -1 if frame[F_MOVER] == 0 else 3
                frame[F_BEST_ACTION] = -1
                frame[F_NEXT] = -2
        else:
            returning = False
            # A child's value came back: undo its play and take the value in.
            p = frame[F_MOVER]
            hands[p, frame[F_ACTION] >> 1] = frame[F_HAND_BEFORE]
            counts[p, frame[F_RESORT]] = frame[F_COUNT_BEFORE]
            if p == 0:
                if value > frame[F_BEST]:
                    frame[F_BEST], frame[F_BEST_ACTION] = value, frame[F_ACTION]
                frame[F_ALPHA] = max(frame[F_ALPHA], frame[F_BEST])
            else:
                if value < frame[F_BEST]:
                    frame[F_BEST], frame[F_BEST_ACTION] = value, frame[F_ACTION]
                frame[F_BETA] = min(frame[F_BETA], frame[F_BEST])
        if not returning:
            action = -1
            if frame[F_ALPHA] < frame[F_BETA]:
                action = _next_action(hands, frame[F_MOVER], frame[F_FIRST], frame[F_NEXT])
            if action >= 0:
                frame[F_NEXT] = action
                p = frame[F_MOVER]
                resort = _resort_of(action)
                before_hand = hands[p, action >> 1]
                before_count = counts[p, resort]
                frame[F_ACTION], frame[F_RESORT] = action, resort
                frame[F_HAND_BEFORE], frame[F_COUNT_BEFORE] = before_hand, before_count
                hands[p, action >> 1] = before_hand - 1
                counts[p, resort] = before_count + 1
                child = stack[depth + 1]
                child[F_ALPHA], child[F_BETA] = frame[F_ALPHA], frame[F_BETA]
                child[F_HASH] = (frame[F_HASH] ^ HAND_KEYS[p, action >> 1, before_hand]
                                 ^ COUNT_KEYS[p, resort, before_count] ^ SIDE_KEY)
                child[F_MOVER], child[F_LEFT] = 1 - p, frame[F_LEFT] - 1
                depth += 1
                entering = True
                continue
            # Every play searched, or a cut-off: store the bound the value is and return it.
            value = frame[F_BEST]
            slot = frame[F_HASH] & mask
            if keys[slot] != frame[F_HASH]:
                keys[slot], lows[slot], highs[slot] = frame[F_HASH], LOSS, WIN
            moves[slot] = frame[F_BEST_ACTION]
            if value <= frame[F_ALPHA0]:
                highs[slot] = min(highs[slot], value)
            elif value >= frame[F_BETA0]:
                lows[slot] = max(lows[slot], value)
            else:
                lows[slot], highs[slot] = value, value
        if depth == 0:
            return value
        depth -= 1


@jit
def _play_value(counts, hands, left, action, key, keys, lows, highs, moves, nodes, stack):
    """Seat 0's exact value in halves of playing ``action`` now (two null-window probes), or
    ABORTED."""
    card = action >> 1
    resort = _resort_of(action)
    before_hand = hands[0, card]
    before_count = counts[0, resort]
    hands[0, card] = before_hand - 1
    counts[0, resort] = before_count + 1
    child = key ^ HAND_KEYS[0, card, before_hand] ^ COUNT_KEYS[0, resort, before_count] ^ SIDE_KEY
    value = _solve(counts, hands, 1, left - 1, LOSS, DRAW, child, keys, lows, highs, moves,
                   nodes, stack)
    if value != ABORTED:
        if value >= DRAW:
            value = _solve(counts, hands, 1, left - 1, DRAW, WIN, child, keys, lows, highs,
                           moves, nodes, stack)
            if value != ABORTED:
                value = WIN if value >= WIN else DRAW
        else:
            value = LOSS
    hands[0, card] = before_hand
    counts[0, resort] = before_count
    return value


@jit_allocating
def _best_play(counts, own_hand, other_hands, weights, left, candidates, salt, keys, lows,
               highs, moves, nodes):
    """The candidate of best weighted win share over the other hands (module docstring), or
    -1 when the budget ran out. A candidate is dropped as soon as even winning every split left
    cannot take it past the best so far."""
    stack = np.zeros((MAX_DEPTH, FRAME), np.int64)
    hands = np.zeros((PLAYERS, NUM_CARD_TYPES), np.int64)
    hands[0, :] = own_hand
    best = -1.0
    best_action = -1
    for j in range(candidates.size):
        action = candidates[j]
        total = 0.0
        rest = 1.0
        dropped = False
        for i in range(other_hands.shape[0]):
            hands[1, :] = other_hands[i]
            key = position_key(counts, hands, 0) ^ salt
            value = _play_value(counts, hands, left, action, key, keys, lows, highs, moves,
                                nodes, stack)
            if value == ABORTED:
                return -1
            total += weights[i] * value / WIN
            rest -= weights[i]
            if total + rest <= best + 1e-12:
                dropped = True
                break
        if not dropped and total > best + 1e-12:
            best = total
            best_action = action
    return best_action


def other_hands(view: HungryView) -> tuple[np.ndarray, np.ndarray]:
    """Every hand the other seat may hold once the deck is empty (2 players), one per row,
    and its chance: the unseen copies less a removed pair, as likely as the ways to draw that
    pair from them."""
    if view.num_players != PLAYERS or view.deck_size:
        raise ValueError(f"the endgame is solved at {PLAYERS} players once the deck is empty, "
                         f"not at {view.num_players} players with {view.deck_size} cards left")
    unseen = np.asarray(view.unseen, dtype=np.int64)
    types = np.flatnonzero(unseen)
    hands, ways = [], []
    for i, first in enumerate(types):
        for second in types[i:]:
            removed = np.zeros(NUM_CARD_TYPES, np.int64)
            removed[first] += 1
            removed[second] += 1
            if np.any(removed > unseen):
                continue
            count = (unseen[first] * (unseen[first] - 1) // 2 if first == second
                     else unseen[first] * unseen[second])
            hands.append(unseen - removed)
            ways.append(count)
    if sum(unseen) != view.hand_sizes[1] + REMOVED_CARDS:
        raise ValueError(f"{sum(unseen)} unseen cards cannot be the other hand of "
                         f"{view.hand_sizes[1]} and the {REMOVED_CARDS} removed")
    ways = np.asarray(ways, dtype=np.float64)
    order = np.argsort(-ways, kind="stable")  # the likeliest first: drops come sooner
    return np.asarray(hands, dtype=np.int64)[order], ways[order] / ways.sum()


class EndgameSolver:
    """The exact endgame of one seat: :meth:`best_play` per move, :meth:`new_game` between
    games (the transposition table keeps positions of the current game only)."""

    def __init__(self, node_budget: int = NODE_BUDGET, table_bits: int = TABLE_BITS):
        if node_budget < 1:
            raise ValueError(f"node_budget must be at least 1, got {node_budget}")
        size = 1 << table_bits
        self.keys = np.zeros(size, np.int64)
        self.lows = np.zeros(size, np.int64)
        self.highs = np.zeros(size, np.int64)
        self.moves = np.zeros(size, np.int64)
        self.node_budget = node_budget
        self.games = 0
        self.nodes = np.zeros(2, np.int64)

    def new_game(self) -> None:
        # A fresh salt per game makes every stored key of earlier games a miss.
        self.games += 1

    def best_play(self, view: HungryView, preferred: int) -> int | None:
        """The play of best win share averaged over the other hands, ``preferred`` unless
        another is strictly better; None when the budget ran out first."""
        hands, weights = other_hands(view)
        legal = np.flatnonzero(np.repeat(view.hand > 0, 2))
        if preferred not in legal:
            raise ValueError(f"the preferred play {preferred} is not a legal play {legal}")
        candidates = np.concatenate(([preferred], legal[legal != preferred])).astype(np.int64)
        self.nodes[:] = (0, self.node_budget)
        salt = np.int64(self.games * 0x5851F42D4C957F2D & (2**63 - 1))
        counts = np.ascontiguousarray(view.resort_counts, dtype=np.int64).copy()
        left = int(view.hand.sum() + view.hand_sizes[1])
        action = _best_play(counts, np.asarray(view.hand, dtype=np.int64), hands, weights,
                            np.int64(left), candidates, salt, self.keys, self.lows, self.highs,
                            self.moves, self.nodes)
        return None if action < 0 else int(action)
