"""Full-decision mode of HUNGER: The Show: every S19 choice as a sequence of single actions.

In this mode the engine stops at each choice and waits for the chooser's action
(``ShowGame.start_day`` / ``ShowGame.choose``). One decision object call of S19 becomes one or
more *steps*, each a ``PendingChoice`` with its legal actions, in the order the rules resolve
them (S7). One action encoding covers the daily pick and every step:

=========  =======  ===================================================================
actions    count    meaning
=========  =======  ===================================================================
0-19       20       daily pick ``5 * location + act`` (as in the default mode)
20-35      16       a token of a class whose value the chooser knows: can 1-4, fruit 2-3,
                    chicken 1/2/4, rope 1-2, log 1-2, coconut 0-2 (``TOKEN_CLASSES``)
36-40      5        a token whose value the chooser does not know, by category: fruit,
                    chicken, raft, can, coconut (one of them at random, seeded)
41-45      5        a player by seat relative to the chooser: 1 = its left neighbour, ...
46, 47     2        a rejected draw goes to the bottom / the top of its pile
=========  =======  ===================================================================

Step kinds (``STEP_KINDS``) and the S19 choice they make:

- ``take``: a thief sharing loot, a guard taking from a caught thief, a rat-plague remover,
  Arnold choosing a gift, and each token a Campsite thief steals: one token of those offered.
- ``steal_from``: a free Campsite thief names the victim of its next token (S12), then takes
  it (``take``); a lone thief does this twice, so it robs one player of 2 or two of 1 each.
- ``pick_thief`` / ``pick_guard``: one of two caught thieves / guards (a seat).
- ``gift``: the token a giver hands over.
- ``supper``: one food token at a time until the meal is worth at least 4; only tokens that
  still allow a meal with no superfluous token are legal (S15).
- ``reject`` then ``reject_place``: which drawn token a specialist returns, and where (S20).
- ``ninja_hide``: a caught Ninja hides 2 of its tokens (fewer if it holds fewer), one a step.

Among tokens of one class the engine hands over the first offered (for supper and the Ninja, the
lowest token id), which is what the S19 rules pick there, so an agent that answers every step
as ``rule_action`` says plays exactly the default game. No pettingzoo or torch import here.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hunger_rl.engines.hunger_show.decisions import (
    DefaultDecisions,
    campsite_victims,
    take_preference,
)
from hunger_rl.engines.hunger_show.tokens import (
    ACTION_NAMES,
    CAN,
    CATEGORY_NAMES,
    CHICKEN,
    COCONUT,
    FRUIT,
    LOCATION_NAMES,
    LOG,
    NUM_ACTIONS,
    NUM_LOCATIONS,
    RAFT,
    ROPE,
    token_spec,
)

if TYPE_CHECKING:
    from hunger_rl.engines.hunger_show.engine import Ask, ShowGame

# Token classes a chooser tells apart when it knows the value: (category, raft kind, value).
TOKEN_CLASSES = (
    [(CAN, -1, v) for v in (1, 2, 3, 4)] + [(FRUIT, -1, v) for v in (2, 3)]
    + [(CHICKEN, -1, v) for v in (1, 2, 4)] + [(RAFT, ROPE, v) for v in (1, 2)]
    + [(RAFT, LOG, v) for v in (1, 2)] + [(COCONUT, -1, v) for v in (0, 1, 2)]
)
# Categories of the classes whose value the chooser does not know.
UNKNOWN_CLASSES = (FRUIT, CHICKEN, RAFT, CAN, COCONUT)
NUM_TOKEN_CLASSES = len(TOKEN_CLASSES) + len(UNKNOWN_CLASSES)  # 21

NUM_PICKS = NUM_ACTIONS * NUM_LOCATIONS  # 20
TOKEN_BASE = NUM_PICKS  # 20
SEAT_BASE = TOKEN_BASE + NUM_TOKEN_CLASSES  # 41
NUM_SEAT_ACTIONS = 5  # seats 1..5 to the chooser's left
PLACE_BASE = SEAT_BASE + NUM_SEAT_ACTIONS  # 46: bottom, 47: top
NUM_FULL_ACTIONS = PLACE_BASE + 2  # 48

STEP_KINDS = ("pick", "take", "steal_from", "pick_thief", "pick_guard", "gift", "supper",
              "reject", "reject_place", "ninja_hide")
TOKEN_STEPS = frozenset({"take", "gift", "supper", "reject", "ninja_hide"})
SUPPER_COST = 4  # S15

_CLASS_INDEX = {key: i for i, key in enumerate(TOKEN_CLASSES)}


def token_class(game: ShowGame, chooser: int, token: int) -> int:
    """The class (0-20) under which ``chooser`` sees ``token``: by value where it remembers
    it (S18), else by category only."""
    category = game.category[token]
    if game.known[token] >> chooser & 1:
        return _CLASS_INDEX[(category, game.raft_kind[token], game.value[token])]
    return len(TOKEN_CLASSES) + UNKNOWN_CLASSES.index(category)


def seat_action(chooser: int, seat: int, num_players: int) -> int:
    """The action naming ``seat``: its distance to the chooser's left."""
    return SEAT_BASE + (seat - chooser) % num_players - 1


def action_seat(chooser: int, action: int, num_players: int) -> int:
    return (chooser + action - SEAT_BASE + 1) % num_players


@dataclass
class PendingChoice:
    """One step the engine waits for: who decides, what kind of step, the legal actions, and
    what the chooser needs to decide (the tokens on offer, those chosen so far in this choice,
    how much is still due, the other player concerned)."""

    kind: str
    player: int
    legal: tuple[int, ...]
    offered: tuple[int, ...] = ()  # token ids on offer (a token step)
    chosen: tuple[int, ...] = ()  # tokens chosen earlier in this choice
    remaining: int = 0  # tokens still to steal or hide, food value still due at supper
    counterpart: int | None = None  # the player robbed, taken from or given to
    context: dict[str, Any] = field(default_factory=dict)  # what rule_action needs


Steps = Generator[PendingChoice, int, Any]


def decision_steps(game: ShowGame, ask: Ask) -> Steps:
    """The steps of one S19 choice; returns the answer its decision object would give."""
    return STEP_BUILDERS[ask.method](game, ask.player, *ask.args)


def _token_step(game: ShowGame, kind: str, player: int, offered: Sequence[int],
                **details: Any) -> Generator[PendingChoice, int, int]:
    """One token out of ``offered``, chosen by its class as the chooser sees it."""
    classes = [token_class(game, player, t) for t in offered]
    legal_classes = details.pop("legal_classes", classes)
    legal = tuple(sorted({TOKEN_BASE + c for c in legal_classes}))
    action = yield PendingChoice(kind, player, legal, tuple(offered), **details)
    chosen_class = action - TOKEN_BASE
    alike = [t for t, c in zip(offered, classes, strict=True) if c == chosen_class]
    if chosen_class >= len(TOKEN_CLASSES):
        return alike[game.rng.randrange(len(alike))]  # indistinguishable: seeded random
    return alike[0]


def _single_owner(game: ShowGame, tokens: Sequence[int]) -> int | None:
    owners = {p for p, holding in enumerate(game.holdings) if any(t in holding for t in tokens)}
    return owners.pop() if len(owners) == 1 else None


def _take(game: ShowGame, taker: int, candidates: Sequence[int]) -> Steps:
    return (yield from _token_step(game, "take", taker, candidates,
                                   counterpart=_single_owner(game, candidates)))


def _campsite_theft(game: ShowGame, thief: int, amount: int) -> Steps:
    n = game.num_players
    left = {p: list(game.holdings[p]) for p in game.living() if p != thief}
    due = min(amount, sum(len(h) for h in left.values()))
    stolen: list[int] = []
    while len(stolen) < due:
        seats = [p for p, holding in left.items() if holding]
        action = yield PendingChoice(
            "steal_from", thief, tuple(sorted(seat_action(thief, p, n) for p in seats)),
            chosen=tuple(stolen), remaining=due - len(stolen), context={"left": left})
        victim = action_seat(thief, action, n)
        token = yield from _token_step(game, "take", thief, left[victim], chosen=tuple(stolen),
                                       remaining=due - len(stolen), counterpart=victim)
        left[victim].remove(token)
        stolen.append(token)
    return stolen


def _pick_seat(kind: str, game: ShowGame, player: int, seats: Sequence[int],
               **details: Any) -> Steps:
    n = game.num_players
    action = yield PendingChoice(kind, player, tuple(sorted(seat_action(player, s, n)
                                                            for s in seats)), **details)
    return action_seat(player, action, n)


def _pick_thief(game: ShowGame, guard: int, guards: Sequence[int], thieves: Sequence[int],
                takeable: dict[int, list[int]]) -> Steps:
    return (yield from _pick_seat("pick_thief", game, guard, thieves,
                                  context={"guards": guards, "thieves": thieves,
                                           "takeable": takeable}))


def _pick_guard(game: ShowGame, giver: int, guards: Sequence[int]) -> Steps:
    return (yield from _pick_seat("pick_guard", game, giver, guards,
                                  context={"guards": guards}))


def _gift(game: ShowGame, giver: int, guard: int) -> Steps:
    return (yield from _token_step(game, "gift", giver, game.holdings[giver], counterpart=guard))


def meal_is_valid(values: Sequence[int]) -> bool:
    """Worth at least 4 with no superfluous token (S15)."""
    return bool(values) and sum(values) >= SUPPER_COST and sum(values) - min(values) < SUPPER_COST


def _meal_possible(chosen: list[int], spare: list[int]) -> bool:
    """Whether ``chosen`` values, still short of 4, can grow into a valid meal from ``spare``."""
    if sum(chosen) >= SUPPER_COST:
        return meal_is_valid(chosen)
    return any(_meal_possible(chosen + [v], spare[:i] + spare[i + 1:])
               for i, v in enumerate(spare) if v and v not in spare[:i])


def _supper(game: ShowGame, player: int) -> Steps:
    value = game.value
    food = sorted(t for t in game.holdings[player] if game.category[t] != RAFT and value[t])
    eaten: list[int] = []
    while sum(value[t] for t in eaten) < SUPPER_COST:
        offered = [t for t in food if t not in eaten]
        paid = [value[t] for t in eaten]
        spare = [value[t] for t in offered]
        legal = {token_class(game, player, t) for i, t in enumerate(offered)
                 if _meal_possible(paid + [spare[i]], spare[:i] + spare[i + 1:])}
        eaten.append((yield from _token_step(
            game, "supper", player, offered, chosen=tuple(eaten),
            remaining=SUPPER_COST - sum(paid), legal_classes=legal)))
    return eaten


def _reject(game: ShowGame, player: int, drawn: Sequence[int]) -> Steps:
    rejected = yield from _token_step(game, "reject", player, list(drawn))
    action = yield PendingChoice("reject_place", player, (PLACE_BASE, PLACE_BASE + 1),
                                 offered=tuple(drawn), chosen=(rejected,))
    return rejected, action == PLACE_BASE


def _ninja_hide(game: ShowGame, ninja: int) -> Steps:
    holding = sorted(game.holdings[ninja])
    hidden: list[int] = []
    for _ in range(min(2, len(holding))):
        hidden.append((yield from _token_step(
            game, "ninja_hide", ninja, [t for t in holding if t not in hidden],
            chosen=tuple(hidden), remaining=min(2, len(holding)) - len(hidden))))
    return hidden


STEP_BUILDERS = {
    "take": _take, "campsite_theft": _campsite_theft, "pick_thief": _pick_thief,
    "pick_guard": _pick_guard, "gift": _gift, "supper": _supper, "reject": _reject,
    "ninja_hide": _ninja_hide,
}

_RULES = DefaultDecisions()


def rule_action(game: ShowGame, pending: PendingChoice) -> int:
    """The action by which the S19 default rules (``DefaultDecisions``) answer this step.

    It reads only what the chooser knows, and draws nothing from the game's RNG: where the
    rule picks at random among tokens the chooser cannot tell apart, it names their class and
    the engine draws, exactly as the default rule would. At supper, once the tokens eaten so
    far are not all part of the S19 meal (the agent chose otherwise), it names the first legal
    token class.
    """
    player, kind = pending.player, pending.kind
    if kind == "take":
        token, alike = take_preference(game, player, pending.offered)
        return TOKEN_BASE + token_class(game, player, token if token is not None else alike[0])
    if kind == "steal_from":
        left = pending.context["left"]
        victim = next(p for p in campsite_victims(game, player) if left[p])
        return seat_action(player, victim, game.num_players)
    if kind == "pick_thief":
        context = pending.context
        seat = _RULES.pick_thief(game, player, context["guards"], context["thieves"],
                                 context["takeable"])
        return seat_action(player, seat, game.num_players)
    if kind == "pick_guard":
        seat = _RULES.pick_guard(game, player, pending.context["guards"])
        return seat_action(player, seat, game.num_players)
    if kind == "gift":
        token = _RULES.gift(game, player, pending.counterpart)
    elif kind == "supper":
        meal = _RULES.supper(game, player)
        if not set(pending.chosen) <= set(meal):
            return pending.legal[0]  # the meal so far left the S19 meal: the first legal token
        token = next(t for t in meal if t not in pending.chosen)
    elif kind == "reject":
        token = _RULES.reject(game, player, pending.offered)[0]
    elif kind == "reject_place":
        return PLACE_BASE  # S19: to the bottom
    elif kind == "ninja_hide":
        token = next(t for t in _RULES.ninja_hide(game, player) if t not in pending.chosen)
    else:
        raise ValueError(f"no rule for a step of kind {kind!r}")
    return TOKEN_BASE + token_class(game, player, token)


def describe_action(action: int) -> str:
    """A readable name of a full-decision action, e.g. ``thief@campsite``, ``can2``,
    ``raft?`` (a raft token of unknown value), ``seat+1`` (the left neighbour), ``bottom``."""
    if not 0 <= action < NUM_FULL_ACTIONS:
        raise ValueError(f"action {action} is outside 0..{NUM_FULL_ACTIONS - 1}")
    if action < TOKEN_BASE:
        location, act = divmod(action, NUM_ACTIONS)
        return f"{ACTION_NAMES[act]}@{LOCATION_NAMES[location]}"
    if action < SEAT_BASE:
        index = action - TOKEN_BASE
        if index < len(TOKEN_CLASSES):
            return token_spec(*TOKEN_CLASSES[index])
        return f"{CATEGORY_NAMES[UNKNOWN_CLASSES[index - len(TOKEN_CLASSES)]]}?"
    if action < PLACE_BASE:
        return f"seat+{action - SEAT_BASE + 1}"
    return "bottom" if action == PLACE_BASE else "top"
