""":class:`BatchedShow`, the batch driver (reset, step, restart), and its compiled loops
over the shows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from hunger_rl.engines.compiled import (
    jit,
    jit_allocating,
    prefetch_for_write,
    r1_leaving_reward,
    reset_seeds,
)
from hunger_rl.engines.hunger_show.batched.day import play_day
from hunger_rl.engines.hunger_show.batched.deal import deal_seeded, slot_seed
from hunger_rl.engines.hunger_show.batched.holdings import ranking_key
from hunger_rl.engines.hunger_show.batched.layout import (
    ALIVE,
    DAY,
    HOLD,
    HOLD_N,
    MAX_PLAYERS,
    MAX_TOKENS,
    RAFT_SETS,
    ROW_SIZE,
    SCRATCH_SIZE,
    SPARE_SIZE,
    TOKENS_SIZE,
    WORK_SIZE,
)
from hunger_rl.engines.hunger_show.batched.observe import observe
from hunger_rl.engines.hunger_show.batched.twister import (
    MT_ROW_SIZE,
    SEED_SCRATCH_SIZE,
    mt_position,
    mt_seed_many,
)
from hunger_rl.engines.hunger_show.engine import ShowConfig
from hunger_rl.engines.hunger_show.observation import (
    NUM_CHOICES,
    REWARD_MODES,
    SHAPING_WEIGHT,
    legal_mask,
    observation_tables,
)
from hunger_rl.engines.hunger_show.tokens import NUM_ACTIONS
from hunger_rl.engines.validation import (
    IllegalActionError,
    InvalidValueError,
    NotResetError,
    check_action_array,
    check_choice,
    check_int,
)


class StepOutputs(NamedTuple):
    """What a step (or reset) reports; the arrays are reused (overwritten) by the next step.

    The batched engines' contract (docs/architecture.md): ``observations[b, p]`` and
    ``action_masks[b, p]`` are seat p's current ones (in a show that ended in this step: those
    of its next show, dealt at once). ``rewards[b, p]``: seat p's reward for this step
    (``hunger_show_v0``'s). ``terminated[b, p]``: seat p left show b in this step (eliminated,
    or the show ended while it played); ``done[b]``: show b ended in this step. Where ``done``:
    ``final_observations`` / ``final_masks`` (every seat's last ones of the ended show),
    ``winners``, ``end_condition`` (index into ``END_CONDITIONS``), ``ranking_keys`` (-1 rows
    for seats without a final key) and ``days``.
    """

    observations: np.ndarray
    action_masks: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    done: np.ndarray
    final_observations: np.ndarray
    final_masks: np.ndarray
    winners: np.ndarray
    end_condition: np.ndarray
    ranking_keys: np.ndarray
    days: np.ndarray


@jit_allocating
def _reset_all(g, mt, seeds, rules, observations, masks):
    """Seed and deal every show, then observe it. ``rules``: see :attr:`BatchedShow.rules`."""
    seats, locs, options, legal, _ = rules
    n = len(seats)
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    pool = np.empty(MAX_TOKENS, np.int64)
    cards = np.empty(MAX_TOKENS, np.int64)
    mt_seed_many(mt, np.arange(len(g)), len(g), seeds, np.empty(SEED_SCRATCH_SIZE, np.uint32))
    for b in range(len(g)):
        deal_seeded(g, mt, b, n, locs, options, pool, cards)
        observe(g, b, seats, legal, scratch, observations, masks)


@jit_allocating
def _step_all(g, mt, actions, rules, streams, out, prefetch_ahead):
    """Allocates the scratch of :func:`_step_shows`, which runs without reference counts (in
    a function that keeps them, each view of a row costs two runtime calls)."""
    scratch = (np.empty(SCRATCH_SIZE, np.int64),  # an observation's
               np.zeros(MAX_PLAYERS, np.bool_),  # who was alive before the day
               np.zeros(MAX_PLAYERS),  # the raft sets' changes (shaped reward)
               np.empty(MAX_PLAYERS, np.int64),  # the playing order
               np.empty(WORK_SIZE, np.int64),  # the day's: work, spare, tokens (layout)
               np.empty(SPARE_SIZE, np.int64),
               np.empty(TOKENS_SIZE, np.int64),
               np.empty(len(g), np.int64),  # the shows that ended, and their next seeds
               np.empty(len(g), np.int64),
               np.empty(SEED_SCRATCH_SIZE, np.uint32))  # seeding's lanes
    _step_shows(g, mt, actions, rules, streams, out, scratch, prefetch_ahead)


# Large batches wait for memory: from PREFETCH_FROM shows (about 7 KB each with their
# observations, so past the L3 cache), the step asks for the state of the show PREFETCH_AHEAD
# places on while it plays the current one. Below that, even the unused branch cost 1% of the
# step, so the step receives ``prefetch_ahead``, a tuple: ``(PREFETCH_AHEAD,)`` or empty, and
# its length, a compile-time constant, leaves the smaller batches' code without it.
PREFETCH_FROM = 2048
PREFETCH_AHEAD = 4
_ROW_BYTES = ROW_SIZE * 2
_MT_ROW_BYTES = MT_ROW_SIZE * 4


@jit
def _prefetch_show(g, mt, b, n):
    """The cache lines show b's day will use: the start of each seat's holding, everything
    from the holdings' sizes to the row's end, and the Twister's next words."""
    start = b * _ROW_BYTES
    for seat in range(n):
        prefetch_for_write(g, start + (HOLD + seat * MAX_TOKENS) * 2)
        prefetch_for_write(g, start + (HOLD + seat * MAX_TOKENS) * 2 + 64)
    for offset in range(HOLD_N * 2, _ROW_BYTES + 64, 64):
        prefetch_for_write(g, start + offset)
    prefetch_for_write(mt, b * _MT_ROW_BYTES + mt_position(mt, b)[0] * 4)


@jit
def _step_shows(g, mt, actions, rules, streams, out, scratch, prefetch_ahead):
    """One day of every show, then the next shows of those that ended, seeded and dealt.
    ``rules``: see :attr:`BatchedShow.rules`; ``streams``: the slots' seeds and shows played;
    ``out``: the arrays of the :class:`StepOutputs`, as a plain tuple (numba types a named
    tuple argument in Python, a microsecond a call); ``scratch``: from :func:`_step_all`."""
    seats, locs, options, legal, shaped = rules
    seeds, shows_played = streams
    (observe_scratch, was_alive, changes, order, work, spare, tokens, ended_shows, ended_seeds,
     seed_lanes) = scratch
    (observations, masks, rewards, terminated, done, final_observations, final_masks, winners,
     end_condition, ranking_keys, days) = out
    n = len(seats)
    num_ended = np.int64(0)
    for b in range(len(g)):
        if len(prefetch_ahead) and b + prefetch_ahead[0] < len(g):
            _prefetch_show(g, mt, b + prefetch_ahead[0], n)
        row = g[b]
        for seat in range(n):
            was_alive[seat] = row[ALIVE + seat] == 1
        condition = play_day(row, mt, b, actions[b], n, locs, ranking_keys[b], winners[b],
                             order, work, spare, tokens)
        ended = condition >= 0
        done[b] = ended
        rewards[b] = 0.0
        num_winners = np.int64(0)
        if ended:
            num_winners = np.sum(winners[b, :n])
        for seat in range(n):
            terminated[b, seat] = was_alive[seat] and (ended or not row[ALIVE + seat])
            if terminated[b, seat]:  # R1: paid as it leaves
                rewards[b, seat] = r1_leaving_reward(n, ended and winners[b, seat],
                                                     num_winners)
        if shaped:
            total = 0.0
            acting = 0
            changes[:] = 0.0
            for seat in range(n):
                if was_alive[seat]:
                    sets = ranking_key(row, seat)[0] if row[ALIVE + seat] else 0
                    changes[seat] = sets - row[RAFT_SETS + seat]
                    row[RAFT_SETS + seat] = sets
                    total += changes[seat]
                    acting += 1
            for seat in range(n):
                if was_alive[seat]:
                    rewards[b, seat] += SHAPING_WEIGHT * (changes[seat] - total / acting)
        if ended:
            end_condition[b] = condition
            days[b] = row[DAY]
            observe(g, b, seats, legal, observe_scratch, final_observations, final_masks)
            shows_played[b] += 1
            ended_shows[num_ended] = b
            ended_seeds[num_ended] = slot_seed(seeds[b], shows_played[b])
            num_ended += 1
        else:
            observe(g, b, seats, legal, observe_scratch, observations, masks)
    # The next shows of the ended ones, seeded together (interleaved chains), then dealt.
    mt_seed_many(mt, ended_shows, num_ended, ended_seeds, seed_lanes)
    for k in range(num_ended):
        b = ended_shows[k]
        deal_seeded(g, mt, b, n, locs, options, spare, tokens)
        observe(g, b, seats, legal, observe_scratch, observations, masks)


@jit_allocating
def _restart(g, mt, shows, rules, streams, observations, masks):
    seats, locs, options, legal, _ = rules
    seeds, shows_played = streams
    n = len(seats)
    scratch = np.empty(SCRATCH_SIZE, np.int64)
    pool = np.empty(MAX_TOKENS, np.int64)
    cards = np.empty(MAX_TOKENS, np.int64)
    lanes = np.empty(SEED_SCRATCH_SIZE, np.uint32)
    seed = np.empty(1, np.int64)
    for k in range(len(shows)):  # one at a time: a show listed twice is dealt twice in turn
        b = shows[k]
        shows_played[b] += 1
        seed[0] = slot_seed(seeds[b], shows_played[b])
        mt_seed_many(mt, shows[k:k + 1], 1, seed, lanes)
        deal_seeded(g, mt, b, n, locs, options, pool, cards)
        observe(g, b, seats, legal, scratch, observations, masks)


@jit
def _first_illegal(g, actions, num_legal):
    """(show, seat) of the first living seat whose action is outside 0 .. num_legal - 1, or
    (-1, -1)."""
    for b in range(actions.shape[0]):
        for seat in range(actions.shape[1]):
            if g[b, ALIVE + seat] and not 0 <= actions[b, seat] < num_legal:
                return b, seat
    return -1, -1


def observation_size(num_players: int) -> int:
    return observation_tables(num_players).observation_size


class BatchedShow:
    """``batch_size`` shows of HUNGER: The Show with the options of ``hunger_show_v0``.

    Every show runs with the default decisions (S19/S21); ``decisions`` other than None raise,
    as the batch cannot call decision objects. Call :meth:`reset` first; :meth:`step` takes one
    action per seat and show (``actions[b, p]``: ``5 * location + act``; the value for a seat
    that has left is ignored). The compiled code is specialised to the player count: the first
    batch of each count compiles (or loads from numba's cache) its own entry points.
    """

    def __init__(self, num_players: int, batch_size: int, *, events: str = ShowConfig.events,
                 deck_size: int = ShowConfig.deck_size,
                 unpleasant: int | None = ShowConfig.unpleasant,
                 end_window: int = ShowConfig.end_window,
                 characters: bool = ShowConfig.characters, decisions=None, reward: str = "r1",
                 decision_mode: str = "objects"):
        if decisions is not None:
            raise InvalidValueError("BatchedShow plays the default decisions (S19) only; "
                                    "custom decision objects need hunger_show_v0")
        if decision_mode != "objects":
            raise InvalidValueError(f"BatchedShow supports decision_mode='objects' only, got "
                                    f"{decision_mode!r}; the full-decision mode runs on "
                                    "hunger_show_v0")
        check_choice(reward, "reward", REWARD_MODES)
        batch_size = check_int(batch_size, "batch_size", low=1)
        self.config = config = ShowConfig(num_players, events, deck_size, unpleasant,
                                          end_window, characters)
        self.num_players = n = config.num_players
        self.batch_size = batch = batch_size
        self.reward_mode = reward
        self.num_locations = config.num_locations
        self.num_legal = NUM_ACTIONS * config.num_locations
        self.options = np.array([config.characters, config.deck_size, config.unpleasant,
                                 config.end_window], np.int64)
        self.seats = tuple(range(n))  # its length is the player count of the compiled code
        self.prefetch_ahead = (PREFETCH_AHEAD,) if batch >= PREFETCH_FROM else ()
        self.legal = legal_mask(n)
        size = observation_tables(n).observation_size
        self.observation_size = size
        self.games = np.zeros((batch, ROW_SIZE), np.int16)
        self.mt = np.zeros((batch, MT_ROW_SIZE), np.uint32)
        self.seeds = np.zeros(batch, np.int64)
        self.shows_played = np.zeros(batch, np.int64)
        # What the compiled loops take: the options (``seats``' length is the player count of
        # the compiled code) and the slots' seed streams.
        self.rules = (self.seats, np.int64(self.num_locations), self.options, self.legal,
                      reward == "shaped")
        self.streams = (self.seeds, self.shows_played)
        self.outputs = StepOutputs(
            observations=np.zeros((batch, n, size), np.float32),
            action_masks=np.zeros((batch, n, NUM_CHOICES), np.int8),
            rewards=np.zeros((batch, n), np.float64),
            terminated=np.zeros((batch, n), np.bool_),
            done=np.zeros(batch, np.bool_),
            final_observations=np.zeros((batch, n, size), np.float32),
            final_masks=np.zeros((batch, n, NUM_CHOICES), np.int8),
            winners=np.zeros((batch, n), np.bool_),
            end_condition=np.full(batch, -1, np.int64),
            ranking_keys=np.full((batch, n, 3), -1, np.int64),
            days=np.zeros(batch, np.int64),
        )
        self._output_arrays = tuple(self.outputs)
        self._reset_called = False

    def reset(self, seed: int | None = None, seeds=None) -> StepOutputs:
        """Deal every show: show b as ``hunger_show_v0`` after ``reset(seed=seeds[b])``.

        ``seeds``: one per show, in 0 .. MAX_SEED; or else ``seed`` spread into one per show
        (:func:`~hunger_rl.engines.compiled.spread_seeds`; fresh entropy when None), not both.
        """
        self.seeds[:] = reset_seeds(seed, seeds, self.batch_size)
        self.shows_played[:] = 0
        out = self.outputs
        _reset_all(self.games, self.mt, self.seeds, self.rules, out.observations,
                   out.action_masks)
        out.done[:] = False
        out.terminated[:] = False
        out.rewards[:] = 0.0
        self._reset_called = True
        return out

    @property
    def alive(self) -> np.ndarray:
        return self.games[:, ALIVE:ALIVE + self.num_players].astype(bool)

    def check_actions(self, actions) -> np.ndarray:
        """``actions`` as an int64 (B, N) array, or IllegalActionError naming the first show
        and seat whose living player has an action outside 0 .. 5 * locations - 1."""
        actions = check_action_array(actions, (self.batch_size, self.num_players))
        show, seat = _first_illegal(self.games, actions, self.num_legal)
        if show >= 0:
            raise IllegalActionError(
                f"show {show}, player_{seat}: action {int(actions[show, seat])} is not legal; "
                f"legal actions are 0..{self.num_legal - 1}")
        return actions

    def restart(self, shows) -> StepOutputs:
        """Abandon the running shows ``shows`` (say, once a learner was eliminated) and deal
        each slot's next show from its seed stream, as if it had ended; only their
        ``observations`` and ``action_masks`` change."""
        if not self._reset_called:
            raise NotResetError("call reset() before restart()")
        shows = np.asarray(shows).reshape(-1)
        if shows.dtype.kind not in "iu" or (shows.size and (
                shows.min() < 0 or shows.max() >= self.batch_size)):
            raise InvalidValueError(f"shows must be ints in 0..{self.batch_size - 1}")
        _restart(self.games, self.mt, shows.astype(np.int64), self.rules, self.streams,
                 self.outputs.observations, self.outputs.action_masks)
        return self.outputs

    def step(self, actions) -> StepOutputs:
        """Play one day in every show. Nothing changes if an action is refused."""
        if not self._reset_called:
            raise NotResetError("call reset() before step()")
        actions = self.check_actions(actions)
        _step_all(self.games, self.mt, actions, self.rules, self.streams, self._output_arrays,
                  self.prefetch_ahead)
        return self.outputs
