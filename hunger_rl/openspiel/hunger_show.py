"""HUNGER: The Show as an OpenSpiel game, ``python_hunger_show``, on the rules engine of
``envs.hunger_show``.

Simultaneous moves: each day is one simultaneous node where every living player picks a
(location, action) (S6), as ``hunger_show_v0``'s Parallel env. With ``turn_based=true`` the
living players pick one at a time in seat order, each pick hidden from the others until the
last one resolves the day: OpenSpiel's turn-based transform of the same game, with the
resampling that ISMCTS needs (the transform has none). An eliminated player has no legal
action; its entry in the joint action is ``pyspiel.INVALID_ACTION`` (what OpenSpiel's
``evaluate_bots`` sends) or 0 (what ``State.apply_actions`` documents), and it is ignored.

Chance is sampled, not explicit: the deal of the piles, the coconut stack, the event deck, the
Leader and the characters, and the seeded random picks of the default choices (S19) all come
from the engine's RNG inside a day's resolution, whose outcomes cannot be enumerated as chance
nodes. ``seed=s`` deals every game from seed ``s`` (a fixed deal, so that a solver sees one
deterministic game; ``hunger_show_v0``'s ``reset(seed=s)`` deals the same game); ``seed=-1``
(the default) deals each new game at random.

Observations and masks are those of the Parallel env; rewards are R1's: a player eliminated
early is paid when it leaves (``rewards``), the others at the end, so ``returns`` sum to zero.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import asdict

import numpy as np
import pyspiel

from hunger_rl.engines.hunger_show.engine import ShowConfig, ShowGame, day_log_text
from hunger_rl.engines.hunger_show.observation import (
    KNOWN_FIELDS,
    NUM_CHOICES,
    OWN_COLUMNS,
    PUBLIC_CATEGORIES,
    observation_buffer,
    observation_layout,
    observation_tables,
)
from hunger_rl.engines.hunger_show.tokens import (
    ACTION_NAMES,
    CALM,
    CAN,
    CATEGORY_NAMES,
    CHARACTERS,
    CHICKEN,
    COCONUT,
    END,
    EVENT_CARD_NAMES,
    FRUIT,
    LOCATION_NAMES,
    LOG,
    NUM_ACTIONS,
    RAFT,
    ROPE,
    UNPLEASANT_CARDS,
    token_table,
)
from hunger_rl.engines.rewards import r1_reward
from hunger_rl.engines.validation import IllegalActionError, InvalidValueError
from hunger_rl.openspiel.sampling import sampler_rng

SHORT_NAME = "python_hunger_show"
MIN_PLAYERS, MAX_PLAYERS = 2, 6
# ``unpleasant=-1`` takes the preset's count (``ShowConfig(unpleasant=None)``).
DEFAULT_PARAMETERS = {"players": 4, "events": "standard", "deck_size": 10, "unpleasant": -1,
                      "end_window": 4, "characters": False, "seed": -1, "turn_based": False}
# What an eliminated player may send in a joint action.
NO_ACTIONS = (pyspiel.INVALID_ACTION, 0)

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="HUNGER: The Show (hunger-rl)",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMETERS,
)
# ``turn_based=True``: the same game with the day's picks made one at a time, in seat order,
# each hidden from the others until the day resolves, for the sequential-only tools (ISMCTS).
TURN_BASED_TYPE = pyspiel.GameType(**{
    **{name: getattr(GAME_TYPE, name) for name in (
        "short_name", "long_name", "chance_mode", "information", "utility", "reward_model",
        "max_num_players", "min_num_players", "provides_information_state_string",
        "provides_information_state_tensor", "provides_observation_string",
        "provides_observation_tensor", "parameter_specification")},
    "dynamics": pyspiel.GameType.Dynamics.SEQUENTIAL,
})


def action_name(action: int) -> str:
    location, act = divmod(action, NUM_ACTIONS)
    return f"{ACTION_NAMES[act]}@{LOCATION_NAMES[location]}"


class HungerShowGame(pyspiel.Game):
    """``python_hunger_show(players=2..6, events, deck_size, unpleasant, end_window,
    characters, seed, turn_based)``: the options of ``hunger_show_v0`` of the same names
    (``players`` is its ``num_players``; ``unpleasant=-1`` its ``None``), the deal's ``seed``
    and the turn-based form. Decision objects cannot be parameters: every S19 choice follows
    the default rules. A bad value raises ``InvalidValueError`` naming it."""

    def __init__(self, params=None):
        params = {**DEFAULT_PARAMETERS, **(params or {})}
        if not MIN_PLAYERS <= params["players"] <= MAX_PLAYERS:
            raise InvalidValueError(f"{SHORT_NAME}: players must be {MIN_PLAYERS} to "
                                    f"{MAX_PLAYERS} (S1), got {params['players']}")
        unpleasant = None if params["unpleasant"] == -1 else params["unpleasant"]
        try:
            self.config = ShowConfig(params["players"], params["events"], params["deck_size"],
                                     unpleasant, params["end_window"], params["characters"])
        except InvalidValueError as error:
            raise InvalidValueError(f"{SHORT_NAME}: {error}") from None
        if params["seed"] < -1:
            raise InvalidValueError(f"{SHORT_NAME}: seed must be -1 (a fresh deal per game) or "
                                    f"a seed >= 0, got {params['seed']}")
        self.seed = params["seed"]
        self._seeds = random.Random()
        num_players = self.config.num_players
        self.tables = observation_tables(num_players)
        self.observation_layout = observation_layout(num_players)
        self.legal = list(range(NUM_ACTIONS * self.config.num_locations))
        self.turn_based = params["turn_based"]
        days = self.config.deck_size + 1  # a day draws one event; the End card is the last
        super().__init__(TURN_BASED_TYPE if self.turn_based else GAME_TYPE, pyspiel.GameInfo(
            num_distinct_actions=NUM_CHOICES,
            max_chance_outcomes=0,
            num_players=num_players,
            min_utility=r1_reward(num_players, 0.0),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=days * num_players if self.turn_based else days,
        ), params)

    def new_initial_state(self, *_):
        return HungerShowState(self)

    def deal_seed(self) -> int:
        """The seed of a new game's deal: the ``seed`` parameter, or a fresh one."""
        return self.seed if self.seed >= 0 else self._seeds.getrandbits(63)

    def make_py_observer(self, iig_obs_type=None, params=None):
        # As OpenSpiel's Python games: the observation unless perfect recall is asked for.
        perfect_recall = bool(getattr(iig_obs_type, "perfect_recall", False))
        return HungerShowObserver(self, perfect_recall=perfect_recall, params=params)


class HungerShowState(pyspiel.State):
    """One show: the engine's ``ShowGame``, dealt from ``deal_seed`` when first needed
    (OpenSpiel makes a new state each time it asks a tensor's shape, and each clone starts from
    one), the last day's event card, the rewards of the last day and their sums, and what the
    players saw: every day's public log (``day_logs``) and the observation buffer at the start
    and after each day (``buffers``, every seat's observation in one, see
    ``observation_buffer``)."""

    def __init__(self, game: HungerShowGame):
        super().__init__(game)
        self.deal_seed = game.deal_seed()
        self._show: ShowGame | None = None
        self.last_event: str | None = None
        n = game.num_players()
        self.day_rewards = [0.0] * n
        self.total_rewards = [0.0] * n
        self.day_logs: list[str] = []
        self.buffers: list[np.ndarray] = []
        # Turn-based: the day's picks so far (None: not yet, or eliminated).
        self.picks: list[int | None] = [None] * n

    @property
    def show(self) -> ShowGame:
        if self._show is None:
            self._deal()
        return self._show

    def seen(self) -> list[np.ndarray]:
        """``buffers``, the show dealt first if it is not yet."""
        if self._show is None:
            self._deal()
        return self.buffers

    def _deal(self) -> None:
        self._show = ShowGame(self.get_game().config, seed=self.deal_seed)
        self.buffers.append(self._observe())

    def _observe(self) -> np.ndarray:
        return observation_buffer(self._show, self.get_game().tables, self.last_event)

    def current_player(self):
        show = self.show
        if show.done:
            return pyspiel.PlayerId.TERMINAL
        if not self.get_game().turn_based:
            return pyspiel.PlayerId.SIMULTANEOUS
        return next(seat for seat, pick in enumerate(self.picks)
                    if pick is None and show.alive[seat])

    def _legal_actions(self, player):
        show = self.show
        if show.done or not show.alive[player]:
            return []
        return list(self.get_game().legal)

    def _apply_action(self, action):
        """Turn-based: the current player's pick; the last living player's plays the day."""
        if not self.get_game().turn_based:
            raise IllegalActionError("python_hunger_show has no chance or turn-based nodes; a "
                                     "day takes one joint action (apply_actions), or load it "
                                     "with turn_based=true")
        if self.show.done:
            raise IllegalActionError("the show is over; no more picks can be made")
        player = self.current_player()
        if action not in self.get_game().legal:
            raise IllegalActionError(f"player_{player}: action {action} is not legal; legal "
                                     f"actions are {self.get_game().legal}")
        picks = list(self.picks)
        picks[player] = action
        if any(pick is None and alive for pick, alive in zip(picks, self.show.alive,
                                                             strict=True)):
            self.picks = picks
            self.day_rewards = [0.0] * len(picks)
            return
        self._apply_actions([pyspiel.INVALID_ACTION if pick is None else pick for pick in picks])
        self.picks = [None] * len(picks)  # only once the day is played: an error changes nothing

    def _apply_actions(self, actions):
        show = self.show
        game = self.get_game()
        n = game.num_players()
        if len(actions) != n:
            raise IllegalActionError(f"a joint action holds {n} actions, got {len(actions)}")
        choices: list[tuple[int, int] | None] = [None] * n
        for seat, action in enumerate(actions):
            if not show.alive[seat]:
                if action not in NO_ACTIONS:
                    raise IllegalActionError(
                        f"player_{seat} is eliminated: its entry must be "
                        f"pyspiel.INVALID_ACTION or 0, got {action}")
                continue
            if action not in game.legal:
                raise IllegalActionError(
                    f"player_{seat}: action {action} is not legal; legal actions are "
                    f"0..{len(game.legal) - 1} (the locations in play with {n} players)")
            choices[seat] = divmod(action, NUM_ACTIONS)
        players = [seat for seat in range(n) if show.alive[seat]]
        log = show.play_day(choices)  # atomic (S21j): an error changes nothing
        self.last_event = log["event"]
        shares = {p: 1.0 / len(show.winners) for p in show.winners} if show.done else {}
        self.day_rewards = [0.0] * n
        for seat in players:
            if show.done or not show.alive[seat]:  # R1: the eliminated are paid on leaving
                self.day_rewards[seat] = r1_reward(n, shares.get(seat, 0.0))
                self.total_rewards[seat] += self.day_rewards[seat]
        self.day_logs.append(day_log_text(log))
        self.buffers.append(self._observe())

    def is_terminal(self):
        return self.show.done

    def rewards(self):
        return list(self.day_rewards)

    def returns(self):
        return list(self.total_rewards)

    def _action_to_string(self, player, action):
        return action_name(action)

    def __str__(self):
        show = self.show
        return (f"day {show.day}, leader player_{show.leader}, alive {show.alive}, "
                f"events left {len(show.deck)}, last event {self.last_event}")

    # -- determinisation ----------------------------------------------------------------------

    def resample_from_infostate(self, player, probability_sampler):
        """A state ``player`` cannot tell from this one, drawn at random: see
        ``resampled_show``."""
        rng = sampler_rng(probability_sampler)
        other = self.clone()
        other._show = resampled_show(self.show, player, rng)
        # What everybody sees now is of the new show; the players' memories of earlier days
        # stay (``player``'s are true of both shows).
        other.buffers[-1] = other._observe()
        # Turn-based: the picks others made today are hidden from ``player``.
        legal = self.get_game().legal
        other.picks = [pick if pick is None or seat == player else int(rng.choice(legal))
                       for seat, pick in enumerate(self.picks)]
        return other


def resampled_show(show: ShowGame, player: int, rng: np.random.Generator) -> ShowGame:
    """A copy of ``show`` with what ``player`` does not know drawn afresh: the tokens whose
    value it does not remember trade places at random with the others of their category (and,
    for cans, colour) wherever they lie (piles, the coconut stack, holdings, the box), each place
    keeping who remembers the value found there; the event cards still in the deck are
    shuffled, the End card within its window (S4); the RNG of the default choices is reseeded.
    Counts, categories and every value ``player`` remembers stay. (Choices the default rules
    made from hidden values earlier are not conditioned on: a determinisation, not a draw from
    the exact posterior.)"""
    copy = show.clone()
    containers = [*copy.holdings, *(pile for loc in copy.piles for pile in loc), copy.coconuts,
                  copy.out]
    groups: dict[tuple[int, int], list[tuple[list[int], int]]] = {}
    for container in containers:
        for index, token in enumerate(container):
            if not show.known[token] >> player & 1:
                key = (show.category[token], show.colour[token])
                groups.setdefault(key, []).append((container, index))
    for places in groups.values():
        tokens = [container[index] for container, index in places]
        for (container, index), token in zip(places, rng.permutation(tokens).tolist(),
                                             strict=True):
            copy.known[token] = show.known[container[index]]
            container[index] = token
    copy.deck = shuffled_deck(copy, rng)
    copy.rng = random.Random(int(rng.integers(2**63)))
    return copy


def shuffled_deck(show: ShowGame, rng: np.random.Generator) -> list[str]:
    """The event cards left, reordered at random; the End card (if still there) goes to a
    random position among the last ``end_window`` of the full deck that are still to come."""
    config = show.config
    cards = [c for c in show.deck if c != END]  # top at the end of the list
    cards = [cards[i] for i in rng.permutation(len(cards))]
    if END in show.deck:
        # Positions counted from the bottom of the deck: the End card lies among the bottom
        # min(end_window, deck_size + 1) cards of the full deck.
        window = min(config.end_window, config.deck_size + 1, len(show.deck))
        cards.insert(int(rng.integers(window)), END)
    return cards


class HungerShowObserver:
    """OpenSpiel's observer of ``python_hunger_show``: the tensor is ``hunger_show_v0``'s
    observation vector (its ``observation_layout``, as ``dict``); the string is, with perfect
    recall (the information state), what the player saw: its first observation, then each
    day's public log and its observation after it; else its current observation."""

    def __init__(self, game: HungerShowGame, perfect_recall: bool, params=None):
        if params:
            raise ValueError(f"{SHORT_NAME} observers take no parameters, got {params}")
        self.game = game
        self.perfect_recall = perfect_recall
        layout = game.observation_layout
        self.tensor = np.zeros(game.tables.observation_size, np.float32)
        self.dict = {name: self.tensor[part] for name, part in layout.items()}

    def set_from(self, state: HungerShowState, player: int) -> None:
        self.tensor[:] = state.seen()[-1][self.game.tables.gather[player]]

    def string_from(self, state: HungerShowState, player: int) -> str:
        gather = self.game.tables.gather[player]
        buffers = state.seen()
        if not self.perfect_recall:
            return f"player_{player} {self._text(buffers[-1][gather])}"
        lines = [f"player_{player}", self._text(buffers[0][gather])]
        for log, buffer in zip(state.day_logs, buffers[1:], strict=True):
            lines += [log, self._text(buffer[gather])]
        if state.picks[player] is not None:  # turn-based: its own pick today
            lines.append(f"picked {action_name(state.picks[player])}")
        return "\n".join(lines)

    def _text(self, observation: np.ndarray) -> str:
        layout = self.game.observation_layout
        return " ".join(f"{name}:" + " ".join(f"{v:g}" for v in observation[part].tolist())
                        for name, part in layout.items())


pyspiel.register_game(GAME_TYPE, HungerShowGame)


# Values a token of each category may have, and each raft type (kind, value).
CATEGORY_VALUES = {FRUIT: (2, 3), CHICKEN: (1, 2, 4), CAN: (1, 2, 3, 4), COCONUT: (0, 1, 2)}
RAFT_TYPES = ((ROPE, 1), (ROPE, 2), (LOG, 1), (LOG, 2))
# Fields of one holder's known-values block (``KNOWN_FIELDS``): counts by category in
# ``PUBLIC_CATEGORIES`` order, then the value sums of fruit, chicken, rope, log, can, coconut.
KNOWN_SUM_FIELD = {FRUIT: 5, CHICKEN: 6, CAN: 9, COCONUT: 10}
ROPE_SUM_FIELD, LOG_SUM_FIELD = 7, 8


def state_from_observation(observation: np.ndarray, rng: np.random.Generator,
                           turn_based: bool = True) -> HungerShowState:
    """A state of ``python_hunger_show`` (default options, characters if the observer has one)
    whose player 0 sees exactly ``observation``, a ``hunger_show_v0`` observation vector: a
    determinisation from one observation, seats counted from the observer. See
    ``show_from_observation``."""
    n = players_of(observation)
    layout = observation_layout(n)
    characters = bool(observation[layout["character"]][1:].any())
    game = pyspiel.load_game(SHORT_NAME, {"players": n, "characters": characters,
                                          "turn_based": turn_based})
    state = game.new_initial_state()
    events = observation[layout["last_event"]]
    state.last_event = EVENT_CARD_NAMES[int(events.argmax())] if events.any() else None
    state._show = show_from_observation(game.config, observation, rng)
    state.buffers = [state._observe()]
    return state


def players_of(observation: np.ndarray) -> int:
    sizes = {observation_tables(n).observation_size: n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
    if observation.size not in sizes:
        raise InvalidValueError(f"a vector of length {observation.size} is not a "
                                "hunger_show_v0 observation")
    return sizes[observation.size]


def show_from_observation(config: ShowConfig, observation: np.ndarray,
                          rng: np.random.Generator) -> ShowGame:
    """A show that the observer (seat 0) cannot tell from the one it observes: its own tokens
    as observed; each other holder's tokens by category as counted, those whose values the
    observer remembers drawn to match the remembered value sums, the others at random; the
    piles and the coconut stack at their sizes from the rest of the supply, the remainder out
    of the game; the event cards left drawn from the preset's deck, the End card within its
    window (S4); the characters the observer does not see dealt at random. Who remembers what
    beyond the observer: each holder its own tokens."""
    n = config.num_players
    layout = observation_layout(n)
    part = {name: observation[piece].astype(np.int64) for name, piece in layout.items()}
    categories, values, kinds, colours = token_table(n)
    pools: dict[tuple[int, int, int], list[int]] = {}
    for token in rng.permutation(len(categories)).tolist():
        # Cans by value, the others by type: a can's colour shows on the table but not in
        # observations, so any can of the value will do.
        key = (CAN, -1, values[token]) if categories[token] == CAN else (
            categories[token], kinds[token], values[token])
        pools.setdefault(key, []).append(token)
    holdings: list[list[int]] = [[] for _ in range(n)]
    known = [0] * len(categories)

    def take(key: tuple[int, int, int], holder: int | None, count: int = 1) -> list[int]:
        pool = pools.get(key, [])
        if len(pool) < count:
            raise ValueError(f"no token {key} left to deal: the observation is not of a show")
        taken, pools[key] = pool[:count], pool[count:]
        if holder is not None:
            holdings[holder] += taken
            for token in taken:
                known[token] |= 1 << holder
        return taken

    own = np.concatenate([part[name] for name in ("own_cans", "own_fruit", "own_chicken",
                                                  "own_rope", "own_log", "own_coconuts")])
    for (category, kind, value), count in zip(OWN_COLUMNS, own.tolist(), strict=True):
        take((category, -1 if category == CAN else kind, value), 0, count)
    counts = part["token_counts"].reshape(n, len(PUBLIC_CATEGORIES))
    remembered = part["known_values"].reshape(n - 1, KNOWN_FIELDS)
    unknown: list[tuple[int, int]] = []
    for holder in range(1, n):
        fields = remembered[holder - 1]
        for column, category in enumerate(PUBLIC_CATEGORIES):
            sure = int(fields[column])
            if category == RAFT:
                types = [(RAFT, kind, value) for kind, value in RAFT_TYPES]
                combos = [c for c in itertools.combinations_with_replacement(types, sure)
                          if sum(v for _, k, v in c if k == ROPE) == fields[ROPE_SUM_FIELD]
                          and sum(v for _, k, v in c if k == LOG) == fields[LOG_SUM_FIELD]]
            else:
                kind = -1
                combos = [tuple((category, kind, v) for v in c)
                          for c in itertools.combinations_with_replacement(
                              CATEGORY_VALUES[category], sure)
                          if sum(c) == fields[KNOWN_SUM_FIELD[category]]]
            combos = [c for c in combos if all(
                len(pools.get(key, [])) >= c.count(key) for key in set(c))]
            if not combos:
                raise ValueError(f"no tokens match what the observer remembers of seat "
                                 f"{holder}: the observation is not of a show")
            for key in combos[int(rng.integers(len(combos)))]:
                known[take(key, holder)[0]] |= 1  # the observer remembers it
            unknown += [(holder, category)] * (int(counts[holder, column]) - sure)
    for holder, category in unknown:
        take(random_key(pools, category, rng), holder)
    sizes = part["piles"].reshape(3, 3)
    piles: list[list[list[int]]] = [[[], [], []] for _ in range(4)]
    for location in range(1, config.num_locations):
        for kind in range(3):
            piles[location][kind] = [take(random_key(pools, kind, rng), None)[0]
                                     for _ in range(int(sizes[location - 1, kind]))]
    coconuts = [take(random_key(pools, COCONUT, rng), None)[0]
                for _ in range(int(part["coconuts_left"][0]))]
    out = sorted(token for pool in pools.values() for token in pool)
    choices = part["last_choices"].reshape(n, 9)
    character = part["character"]
    characters: list[str | None] = [None] * n
    if character[1:].any():
        characters[0] = CHARACTERS[int(character.argmax()) - 1]
        others = [c for c in CHARACTERS if c != characters[0]]
        characters[1:] = [others[i] for i in rng.permutation(len(others))[: n - 1]]
    return ShowGame.from_dict({
        "config": asdict(config),
        "rng": list(random.Random(int(rng.integers(2**63))).getstate()),
        "known": known,
        "alive": [bool(a) for a in part["alive"]],
        "day": int(part["day"][0]),
        "done": False,
        "end_condition": None,
        "winners": [],
        "final_keys": [],
        "last_choices": [(int(c[:4].argmax()), int(c[4:].argmax())) if c.any() else None
                         for c in choices],
        "leader": int(part["leader"].argmax()),
        "characters": characters,
        "holdings": holdings,
        "piles": piles,
        "coconuts": coconuts,
        "out": out,
        "deck": event_cards_left(config, int(part["events_left"][0]), rng),
    })


def random_key(pools: dict[tuple[int, int, int], list[int]], category: int,
               rng: np.random.Generator) -> tuple[int, int, int]:
    """The type of a token of ``category`` drawn at random from what is left (each token left
    equally likely: the draw indexes the tokens of the category, pool by pool)."""
    sizes = [(key, len(pool)) for key, pool in pools.items() if key[0] == category]
    total = sum(size for _, size in sizes)
    if not total:
        raise ValueError(f"no {CATEGORY_NAMES[category]} token left to deal: the observation "
                         "is not of a show")
    index = int(rng.integers(total))
    for key, size in sizes[:-1]:
        if index < size:
            return key
        index -= size
    return sizes[-1][0]


def event_cards_left(config: ShowConfig, left: int, rng: np.random.Generator) -> list[str]:
    """``left`` event cards, top at the end of the list: the End card among the bottom
    ``end_window`` (S4), the others drawn from a deck of ``config``'s preset."""
    if left == 0:
        return []
    unpleasant = [UNPLEASANT_CARDS[i] for i in rng.permutation(len(UNPLEASANT_CARDS))]
    cards = unpleasant[: config.unpleasant] + [CALM] * max(config.deck_size - config.unpleasant,
                                                            left)
    cards = [cards[i] for i in rng.permutation(len(cards))][: left - 1]
    cards.insert(int(rng.integers(min(config.end_window, left))), END)
    return cards
