""":class:`CompiledShow`, one show of the default decisions stepped by the batched engine's
compiled day, for ``hunger_show_v0``'s default path; the reference game is rebuilt from it on
demand by replaying its days (:meth:`CompiledShow.replay`).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from hunger_rl.engines.compiled import MAX_SEED, jit_allocating
from hunger_rl.engines.hunger_show.batched.day import play_day
from hunger_rl.engines.hunger_show.batched.deal import deal_seeded
from hunger_rl.engines.hunger_show.batched.layout import (
    ALIVE,
    LEADER,
    MAX_PLAYERS,
    MAX_TOKENS,
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
    mt_seed_many,
)
from hunger_rl.engines.hunger_show.engine import ShowConfig, ShowGame, seats_from
from hunger_rl.engines.hunger_show.observation import NUM_CHOICES, legal_mask, observation_tables
from hunger_rl.engines.hunger_show.tokens import NUM_ACTIONS


@jit_allocating
def _deal_show(g, mt, seed, seats, locs, options, legal, observations, masks):
    """``ShowGame(config, seed)`` dealt into ``g[0]`` and observed into ``observations[0]``."""
    seeds = np.empty(1, np.int64)
    seeds[0] = seed
    mt_seed_many(mt, np.zeros(1, np.int64), 1, seeds, np.empty(SEED_SCRATCH_SIZE, np.uint32))
    deal_seeded(g, mt, 0, len(seats), locs, options, np.empty(MAX_TOKENS, np.int64),
                np.empty(MAX_TOKENS, np.int64))
    observe(g, 0, seats, legal, np.empty(SCRATCH_SIZE, np.int64), observations, masks)


@jit_allocating
def _observe_show(g, seats, legal, observations, masks):
    observe(g, 0, seats, legal, np.empty(SCRATCH_SIZE, np.int64), observations, masks)


@jit_allocating
def _play_show_day(g, mt, actions, seats, locs, legal, keys, winners, observations, masks):
    """One day of show ``g[0]`` (``actions``: each living seat's, 5 * location + act), then its
    observations; returns (end condition or -1, the living seats as bits, the winners as
    bits)."""
    n = len(seats)
    condition = play_day(g[0], mt, 0, actions, n, locs, keys, winners,
                         np.empty(MAX_PLAYERS, np.int64), np.empty(WORK_SIZE, np.int64),
                         np.empty(SPARE_SIZE, np.int64), np.empty(TOKENS_SIZE, np.int64))
    observe(g, 0, seats, legal, np.empty(SCRATCH_SIZE, np.int64), observations, masks)
    alive_bits = 0
    winner_bits = 0
    for seat in range(n):
        if g[0, ALIVE + seat]:
            alive_bits |= 1 << seat
        if winners[seat]:
            winner_bits |= 1 << seat
    return condition, alive_bits, winner_bits


@lru_cache(maxsize=8)
def _seat_tables(num_players: int) -> tuple[tuple[tuple[bool, ...], ...],
                                            tuple[tuple[int, ...], ...]]:
    """Per bit set of seats: each seat's flag, and the seats in order."""
    sets = range(1 << num_players)
    return (tuple(tuple(bool(bits >> s & 1) for s in range(num_players)) for bits in sets),
            tuple(tuple(s for s in range(num_players) if bits >> s & 1) for bits in sets))


class CompiledShow:
    """One show with the default decisions (S19), dealt and played by the compiled code of the
    batched engine at one show per call: ``ShowGame(config, seed)`` and its ``play_day``, draw
    for draw (``tests/envs/test_hunger_show_compiled.py``).

    It keeps what ``hunger_show_v0`` reads after every day, with the meanings of the
    ``ShowGame`` attributes of the same names: ``alive`` (per seat), ``done``, ``day``,
    ``winners`` (seats) and ``final_keys``. Anything more (the day's log, the token places)
    comes from the reference game that :meth:`replay` rebuilds from the seed and the days'
    picks.
    """

    def __init__(self, config: ShowConfig):
        n = config.num_players
        self.config = config
        self.seats = tuple(range(n))  # its length is the player count of the compiled code
        self.num_locations = np.int64(config.num_locations)
        self.options = np.array([config.characters, config.deck_size, config.unpleasant,
                                 config.end_window], np.int64)
        self.legal = legal_mask(n)
        self.observation_size = observation_tables(n).observation_size
        self.games = np.zeros((1, ROW_SIZE), np.int16)
        self.mt = np.zeros((1, MT_ROW_SIZE), np.uint32)
        self.actions = np.zeros(n, np.int64)
        self.keys = np.zeros((n, 3), np.int64)
        self.winner_flags = np.zeros(n, np.bool_)
        self.masks = np.zeros((1, n, NUM_CHOICES), np.int8)  # unread: the env has its own
        self._alive_by_bits, self._seats_by_bits = _seat_tables(n)
        self.seed: int | None = None
        self.picks: list[list[tuple[int, int] | None]] = []
        self.alive: tuple[bool, ...] = ()
        self.done = False
        self.day = 0
        self.winners: tuple[int, ...] = ()

    @staticmethod
    def takes_seed(seed: int) -> bool:
        """Whether :meth:`deal` takes ``seed`` (the compiled generator's seeds: 0..MAX_SEED)."""
        return seed <= MAX_SEED

    def deal(self, seed: int) -> np.ndarray:
        """Deal the show of ``ShowGame(config, seed)``; return every seat's observation, a row
        per seat (a new array)."""
        observations = np.empty((1, len(self.seats), self.observation_size), np.float32)
        _deal_show(self.games, self.mt, np.int64(seed), self.seats, self.num_locations,
                   self.options, self.legal, observations, self.masks)
        self.seed = seed
        self.picks = []
        self.alive = self._alive_by_bits[-1]
        self.done = False
        self.day = 0
        self.winners = ()
        return observations[0]

    def play_day(self, picks: list[tuple[int, int] | None]) -> np.ndarray:
        """``ShowGame.play_checked_day(picks)`` for picks checked as it requires; return every
        seat's observation after the day, a row per seat (a new array)."""
        actions = self.actions
        for seat, pick in enumerate(picks):
            if pick is not None:
                actions[seat] = NUM_ACTIONS * pick[0] + pick[1]
        observations = np.empty((1, len(self.seats), self.observation_size), np.float32)
        condition, alive, winners = _play_show_day(
            self.games, self.mt, actions, self.seats, self.num_locations, self.legal,
            self.keys, self.winner_flags, observations, self.masks)
        self.picks.append(picks)
        self.day += 1
        self.alive = self._alive_by_bits[alive]
        if condition >= 0:
            self.done = True
            self.winners = self._seats_by_bits[winners]
        return observations[0]

    @property
    def final_keys(self) -> dict[int, tuple[int, int, int]]:
        """``ShowGame.final_keys``: once the show is over, each ranked seat's ranking key, in
        the playing order of the last day (empty before)."""
        if not self.done:
            return {}
        keys = self.keys.tolist()
        return {seat: tuple(keys[seat])
                for seat in seats_from(int(self.games[0, LEADER]), len(self.seats))
                if keys[seat][0] >= 0}

    def observe(self) -> np.ndarray:
        """Every seat's observation now, a row per seat (a new array)."""
        observations = np.empty((1, len(self.seats), self.observation_size), np.float32)
        _observe_show(self.games, self.seats, self.legal, observations, self.masks)
        return observations[0]

    def replay(self) -> tuple[ShowGame, dict[str, Any] | None]:
        """The reference game of this show, replayed from its seed, and its last day's log
        (None before the first day)."""
        game = ShowGame(self.config, seed=self.seed)
        log = None
        for picks in self.picks:
            log = game.play_checked_day(list(picks))
        return game, log
