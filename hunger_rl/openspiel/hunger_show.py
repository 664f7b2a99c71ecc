"""HUNGER: The Show as an OpenSpiel game, ``python_hunger_show``, on the rules engine of
``engines.hunger_show``.

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

import random
from typing import Any

import numpy as np
import pyspiel

from hunger_rl.engines.hunger_show import DEFAULT_PLAYERS, MAX_PLAYERS, MIN_PLAYERS
from hunger_rl.engines.hunger_show.determinisation import (
    players_of,
    resampled_show,
    show_from_observation,
)
from hunger_rl.engines.hunger_show.engine import (
    OPTION_DEFAULTS,
    ShowConfig,
    ShowGame,
    day_log_text,
)
from hunger_rl.engines.hunger_show.observation import (
    NUM_CHOICES,
    observation_buffer,
    observation_layout,
    observation_tables,
)
from hunger_rl.engines.hunger_show.tokens import (
    ACTION_NAMES,
    EVENT_CARD_NAMES,
    LOCATION_NAMES,
    NUM_ACTIONS,
)
from hunger_rl.engines.rewards import r1_leaving_reward, r1_reward
from hunger_rl.engines.validation import (
    IllegalActionError,
    InvalidInputError,
    InvalidValueError,
    describe,
    is_integer,
)
from hunger_rl.openspiel.sampling import sampler_rng
from hunger_rl.openspiel.states import (
    MeanFieldRefusals,
    StateTextError,
    moves_of,
    read_state_text,
    refused_move,
    state_text,
    unsupported,
)

SHORT_NAME = "python_hunger_show"
# ``unpleasant=-1`` takes the preset's count (``ShowConfig(unpleasant=None)``): an OpenSpiel
# parameter cannot be None.
PRESET_UNPLEASANT = -1
# The show's options with ``ShowConfig``'s defaults (``OPTION_DEFAULTS``), then the game's own.
DEFAULT_PARAMETERS = {
    "players": DEFAULT_PLAYERS,
    **{name: PRESET_UNPLEASANT if value is None else value
       for name, value in OPTION_DEFAULTS.items()},
    "seed": -1, "turn_based": False,
}
# What a serialised state holds besides the game's name (``openspiel.states``).
STATE_FIELDS = ("deal_seed", "history", "show", "picks", "last_event")
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
        options = {name: params[name] for name in OPTION_DEFAULTS}
        if options["unpleasant"] == PRESET_UNPLEASANT:
            options["unpleasant"] = None
        try:
            self.config = ShowConfig(params["players"], **options)
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

    def deserialize_state(self, text):
        """The state that ``state.serialize()`` wrote as ``text``: dealt from its deal seed, its
        days (or picks) replayed, each checked by the rules; then the engine's show it holds,
        which differs from the replayed one in a resampled state (``resample_from_infostate``,
        ``state_from_observation``), if it is a show of this game at the same point. Anything
        else, OpenSpiel's own pickled form included, raises ``StateTextError``."""
        data = read_state_text(text, SHORT_NAME, STATE_FIELDS)
        state = self.new_initial_state()
        if not is_integer(data["deal_seed"]) or not 0 <= data["deal_seed"] < 2**63:
            raise StateTextError(f"{SHORT_NAME}: a serialised state's deal_seed must be an "
                                 f"integer from 0 to 2**63 - 1, got "
                                 f"{describe(data['deal_seed'])}")
        state.deal_seed = data["deal_seed"]
        history = moves_of(data["history"], SHORT_NAME)
        width = 1 if self.turn_based else self.num_players()
        for index in range(0, len(history), width):
            try:
                if self.turn_based:
                    state.apply_action(history[index])
                else:
                    state.apply_actions(history[index : index + width])
            except InvalidInputError as error:
                raise refused_move(SHORT_NAME, index, error) from None
        state._show = self._saved_show(data["show"], state.show)
        state.picks = self._saved_picks(data["picks"], state.picks)
        if data["last_event"] is not None and data["last_event"] not in EVENT_CARD_NAMES:
            raise StateTextError(f"{SHORT_NAME}: a serialised state's last_event must be an "
                                 f"event card's name or null, got {describe(data['last_event'])}")
        state.last_event = data["last_event"]
        state.buffers[-1] = state._observe()
        return state

    def _saved_show(self, data: Any, replayed: ShowGame) -> ShowGame:
        """The show of a serialised state, if it is one of this game's at ``replayed``'s point:
        the same options, day, living players and end, every token in exactly one place."""
        try:
            show = ShowGame.from_dict(data)
            consistent = show.to_dict() == data  # nothing of the wrong type was converted
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as error:
            raise StateTextError(f"{SHORT_NAME}: a serialised state's show is not one "
                                 f"({type(error).__name__}: {error})") from None
        places = [*show.coconuts, *show.out, *(t for held in show.holdings for t in held),
                  *(t for location in show.piles for pile in location for t in pile)]
        point = ("config", "day", "alive", "done")
        if (not consistent or sorted(places) != list(range(len(show.category)))
                or any(getattr(show, name) != getattr(replayed, name) for name in point)):
            raise StateTextError(f"{SHORT_NAME}: a serialised state's show is not a show of "
                                 f"this game after its history (its options, day, living "
                                 f"players and end must be the replayed show's, every token in "
                                 f"one place)")
        return show

    def _saved_picks(self, picks: Any, replayed: list[int | None]) -> list[int | None]:
        """The day's picks so far of a serialised (turn-based) state: the same players as
        ``replayed``'s have picked (a resampled state redraws the others' picks)."""
        if (not isinstance(picks, list) or len(picks) != len(replayed)
                or any((pick is None) != (was is None) or (
                        pick is not None and (not is_integer(pick) or pick not in self.legal))
                       for pick, was in zip(picks, replayed, strict=False))):
            raise StateTextError(f"{SHORT_NAME}: a serialised state's picks must be a legal "
                                 f"pick for each player who has picked today and null for the "
                                 f"others, got {describe(picks)}")
        return picks

    def deal_seed(self) -> int:
        """The seed of a new game's deal: the ``seed`` parameter, or a fresh one."""
        return self.seed if self.seed >= 0 else self._seeds.getrandbits(63)

    def make_py_observer(self, iig_obs_type=None, params=None):
        # As OpenSpiel's Python games: the observation unless perfect recall is asked for.
        perfect_recall = bool(getattr(iig_obs_type, "perfect_recall", False))
        return HungerShowObserver(self, perfect_recall=perfect_recall, params=params)


class HungerShowState(MeanFieldRefusals, pyspiel.State):
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
        self.day_rewards = [0.0] * n
        winners = show.winners
        for seat in players:
            if show.done or not show.alive[seat]:  # R1: paid as it leaves
                self.day_rewards[seat] = r1_leaving_reward(n, seat in winners, len(winners))
                self.total_rewards[seat] += self.day_rewards[seat]
        self.day_logs.append(day_log_text(log))
        self.buffers.append(self._observe())

    def is_terminal(self):
        return self.show.done

    def chance_outcomes(self):
        raise unsupported(SHORT_NAME, "chance_outcomes()", "its chance is sampled: the deal "
                          "and the default choices' draws come from the engine's seeded RNG, "
                          "and no state is a chance node")

    def serialize(self):
        """The state as data (``openspiel.states``): the deal seed and every move, which
        ``HungerShowGame.deserialize_state`` replays, the engine's show (``to_dict``, its RNG
        included), the day's picks so far and the last event."""
        return state_text(SHORT_NAME, {
            "deal_seed": self.deal_seed, "history": self.history(),
            "show": self.show.to_dict(), "picks": self.picks, "last_event": self.last_event})

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


