"""Every choice other than the daily pick (ruling S19), made by a per-player decision object.

The engine asks the decision object of the player who makes a choice. ``DefaultDecisions``
implements the binding default rules of S19; a caller may subclass it and override any method
(scenario tests script the rulebook's example this way, and a later full-decision mode can plug
an agent in here). Every method receives the live ``ShowGame`` as ``game``: read it, never
change it. Seeded random tie-breaks use ``game.rng`` so that games stay reproducible. The engine
checks every answer before it uses it; an answer the rules do not allow raises ``DecisionError``
and the whole day is undone (S21j).

Token ids are engine handles; read a token with ``game.category[t]``, ``game.value[t]``,
``game.raft_kind[t]`` (``game.food[t]``: its worth at supper, 0 for raft) and ask
``game.knows(player, t)`` whether a player remembers its value.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING

from hunger_rl.engines.hunger_show.tokens import (
    CAN,
    CHICKEN,
    COCONUT,
    FRUIT,
    RAFT,
    token_table,
)

if TYPE_CHECKING:
    from hunger_rl.engines.hunger_show.engine import ShowGame

# S19: takers prefer raft, then chicken, fruit, can, coconut.
TAKE_ORDER = (RAFT, CHICKEN, FRUIT, CAN, COCONUT)
# S19: a giver parts first with the cheapest food; at equal value coconut, fruit, chicken, can.
GIFT_FOOD_RANK = {COCONUT: 0, FRUIT: 1, CHICKEN: 2, CAN: 3}
# S19: supper prefers paying with cans, then coconuts, fruit, chicken.
SUPPER_RANK = {CAN: 0, COCONUT: 1, FRUIT: 2, CHICKEN: 3}
# Value patterns of a supper with no superfluous token (removing any token leaves less than 4),
# by least overpay, then fewest tokens, then (remaining ties) the larger highest token.
SUPPER_PATTERNS = ((4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1), (3, 2), (3, 3))
# Each pattern as ((overpay, token count), ((value, how many), ...)).
SUPPER_PLANS = tuple(
    ((sum(p) - 4, len(p)), tuple((v, p.count(v)) for v in sorted(set(p), reverse=True)))
    for p in SUPPER_PATTERNS
)

# A supper candidate is sorted as the int (its SUPPER_RANK << TOKEN_BITS) + its id: by rank,
# then id, without a key function. Ids stay below 2 ** TOKEN_BITS with the most players, 6 (S1).
TOKEN_BITS = len(token_table(6)[0]).bit_length()
TOKEN_MASK = (1 << TOKEN_BITS) - 1
# Per category, its SUPPER_RANK in a sort key's high bits (read for food only, raft gets 0).
SUPPER_RANK_KEY = tuple(SUPPER_RANK.get(category, 0) << TOKEN_BITS
                        for category in range(max(SUPPER_RANK) + 1))


def raft_sets_and_units(game: ShowGame, tokens: Sequence[int]) -> tuple[int, int]:
    """(raft sets, leftover raft units) of a group of tokens (S17)."""
    units = [0, 0]
    for token in tokens:
        if game.category[token] == RAFT:
            units[game.raft_kind[token]] += game.value[token]
    sets = min(units)
    return sets, units[0] + units[1] - 2 * sets


def take_preference(game: ShowGame, taker: int,
                    candidates: Sequence[int]) -> tuple[int | None, list[int]]:
    """What the S19 taker prefers among ``candidates``: (the token it takes, []) when it
    remembers the value of its pick, else (None, the indistinguishable tokens it picks one of
    at random). By category raft, chicken, fruit, can, coconut; inside it the highest value the
    taker remembers."""
    category_of, bit = game.category, 1 << taker
    for category in TAKE_ORDER:
        in_category = [t for t in candidates if category_of[t] == category]
        if not in_category:
            continue
        known = [t for t in in_category if game.known[t] & bit]
        if known:
            return max(known, key=game.value.__getitem__), []
        return None, in_category
    raise ValueError("take() called without candidates")


def campsite_victims(game: ShowGame, thief: int) -> list[int]:
    """Living players other than a Campsite thief, in the order S19 robs them: most raft
    tokens, then most tokens, then playing order."""
    position = game.order_position()
    return sorted((p for p in game.living() if p != thief),
                  key=lambda p: (-game.count_category(p, RAFT), -len(game.holdings[p]),
                                 position[p]))


class DefaultDecisions:
    """The default rules of S19. Subclass and override a method to script one choice."""

    def take(self, game: ShowGame, taker: int, candidates: Sequence[int]) -> int:
        """Pick one of ``candidates`` (another player's tokens, or a location's loot) to take.

        Used by thieves sharing loot, guards taking from a thief, rat plague and Arnold. By
        category raft, chicken, fruit, can, coconut; inside it the highest value the taker
        remembers, else a seeded random one.
        """
        token, alike = take_preference(game, taker, candidates)
        return token if token is not None else alike[game.rng.randrange(len(alike))]

    def campsite_theft(self, game: ShowGame, thief: int, amount: int) -> list[int]:
        """Tokens a free Campsite thief steals (S12): up to ``amount`` tokens of other players.

        Robs the living player with the most raft tokens (ties: most tokens, then playing
        order); when that player runs out, goes on to the next one by the same order.
        """
        stolen: list[int] = []
        for victim in campsite_victims(game, thief):
            candidates = list(game.holdings[victim])
            while candidates and len(stolen) < amount:
                token = self.take(game, thief, candidates)
                stolen.append(token)
                candidates.remove(token)
            if len(stolen) == amount:
                break
        return stolen

    def pick_thief(self, game: ShowGame, guard: int, guards: Sequence[int],
                   thieves: Sequence[int], takeable: dict[int, list[int]]) -> int:
        """Which caught thief one of two guards takes from (S11, S19): the thief in the same
        position of playing order as the guard, or the other if that one has nothing left."""
        preferred = thieves[min(guards.index(guard), len(thieves) - 1)]
        if takeable[preferred]:
            return preferred
        return next((t for t in thieves if takeable[t]), preferred)

    def pick_guard(self, game: ShowGame, giver: int, guards: Sequence[int]) -> int:
        """Which of two guards receives this giver's gift: fewer tokens, then playing order."""
        return min(guards, key=lambda g: len(game.holdings[g]))

    def gift(self, game: ShowGame, giver: int, guard: int) -> int:
        """The token the giver hands to a guard: the one whose loss lowers its ranking key
        least. Food first, lowest value (at equal value coconut, fruit, chicken, can); then the
        raft token whose loss leaves the best (sets, leftover units) (S21e)."""
        holding = game.holdings[giver]
        food = [t for t in holding if game.category[t] != RAFT]
        if food:
            return min(food, key=lambda t: (game.value[t], GIFT_FOOD_RANK[game.category[t]]))
        return max(holding, key=lambda t: raft_sets_and_units(
            game, [o for o in holding if o != t]))

    def supper(self, game: ShowGame, player: int) -> list[int]:
        """Food tokens to eat (S15, S19): a set worth at least 4 with no superfluous token; the
        least overpay, then the fewest tokens, then the most cans, coconuts, fruit in turn; then
        (S21d) the values sorted high to low first lexicographically (3+1 before 2+2), then the
        lowest token ids. Called only when the player's food is worth at least 4."""
        category, value = game.category, game.value
        by_value: list[list[int]] = [[], [], [], [], []]  # sort keys of the food by value
        for key in sorted([SUPPER_RANK_KEY[category[t]] + t
                           for t in game.holdings[player] if value[t] and category[t] != RAFT]):
            by_value[value[key & TOKEN_MASK]].append(key)
        if by_value[4]:
            return [by_value[4][0] & TOKEN_MASK]  # a single 4 beats every other pattern
        counts = [len(keys) for keys in by_value]
        best_head, best_mix, best = None, None, None
        for head, needed in SUPPER_PLANS:
            if best_head is not None and head != best_head:
                break  # later patterns overpay more or use more tokens
            for v, n in needed:
                if counts[v] < n:
                    break
            else:
                chosen = [key for v, n in needed for key in by_value[v][:n]]
                mix = sorted([key >> TOKEN_BITS for key in chosen])
                if best is None or mix < best_mix:
                    best_head, best_mix, best = head, mix, chosen
        if best is None:
            raise ValueError(f"player {player} cannot pay for supper")
        return [key & TOKEN_MASK for key in best]

    def reject(self, game: ShowGame, player: int, drawn: Sequence[int]) -> tuple[int, bool]:
        """Eagle eye / Raptor / Sweet (S20): which drawn token goes back, and whether to the
        bottom (True) or the top of the pile. Rejects the token whose loss hurts least (raft:
        keep the most sets, then units; food: the lowest value), to the bottom. Called only when
        an extra token was drawn (S21f)."""
        if game.category[drawn[0]] == RAFT:
            holding = game.holdings[player]

            def kept_key(rejected: int) -> tuple[int, int]:
                kept = [t for t in drawn if t != rejected]
                sets, leftover = raft_sets_and_units(game, list(holding) + kept)
                return sets, 2 * sets + leftover

            return max(drawn, key=kept_key), True
        return min(drawn, key=game.value.__getitem__), True

    def ninja_hide(self, game: ShowGame, ninja: int) -> list[int]:
        """Up to 2 tokens a caught Ninja protects from the guards (S20, S21i): the 2 that
        maximise, for the hidden tokens alone, (raft sets, raft units, food value); ties go to
        the lowest token ids. From rope1, rope1, log1, log1 it hides a rope and a log."""
        holding = sorted(game.holdings[ninja])

        def hidden_key(hidden: tuple[int, ...]) -> tuple[int, int, int]:
            sets, leftover = raft_sets_and_units(game, hidden)
            return sets, 2 * sets + leftover, game.food_value(hidden)

        # combinations() of sorted ids come in lexicographic order and max() keeps the first
        # best, so ties go to the lowest ids.
        return list(max(combinations(holding, min(2, len(holding))), key=hidden_key))
