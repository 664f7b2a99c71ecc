"""Flat determinized Monte Carlo search for Hungry, with compiled forecast playouts.

A *simulation* is one playout: deal the cards the searching player has not seen at random,
consistently with its view (the other hands, the deck and the two removed cards), make one
candidate play, and play the game to its end with every seat following the forecast policy of
:mod:`hunger_rl.engines.hungry.batched` (the expert's valuation, approximated so that it
compiles; from the mover's own hand and the public table only), so that the playouts model
opponents that play like the expert. (One-step greedy playouts, which repeat the expert's choice
in about one move in five where the forecast repeats three in four, measured weaker at 4
players.) ``search:N``
makes N playouts per move: a few fewer when N does not split evenly over the candidates, never
more (and none with N = 1, which plays the expert's choice). ``search:Bplays`` counts the budget
in simulated plays instead: a playout makes every play left in the game (the candidate and the
rest), so a move with L plays left makes B // L playouts. A game's first play, whose playouts
run longest, gets B // TOTAL_PLAYS, as ``search:N`` with N = B // TOTAL_PLAYS does, and every
later move more for about the same time: many more in the endgame, where search's edge over the
expert lies (docs/experiments/endgame_head.md, "Why the endgame").

Hungry hides most of the cards, so the search stays flat: a deep tree over sampled deals would
fuse strategies across deals that the player cannot tell apart. Instead:

1. Candidates: the expert's ``CANDIDATES`` best plays (its position values), so the budget goes
   to plays a strong player would consider.
2. Successive halving: the budget is split over rounds; each round plays every surviving
   candidate on the same fresh deals with the same playout random streams (common random
   numbers, so the comparison between candidates is not drowned by the luck of the deal), then
   keeps the better half by mean win share.
3. Reward: the searcher's win share (H9), 1 for a sole win and 1/k in a k-way draw. (Adding a
   small score-margin term measured weaker against the expert at 2 and at 4 players.)
4. Choice: the surviving candidate of best mean win share, ties going to the expert's order.

``search:N:SPEC`` (:class:`SearchHungryPolicy` with a ``guide``) lets a trained network guide the
same search, as Gumbel AlphaZero's root search does (Danihelka et al., "Policy improvement by
planning with Gumbel", ICLR 2022), rather than by PUCT, whose visit counts need far more than a
few hundred playouts to improve on the prior: the network's logits (centred so that the best
legal play has 0) rank the candidates first, the expert's order only among equal logits; every
halving and the final choice rank by ``logit + sigma(mean win share)``, with
``sigma(q) = (C_VISIT + most playouts of a candidate) * C_SCALE * q``. With
``search:N:D:SPEC`` the network's value (its win-share estimate, trained by expert iteration)
replaces the rest of each playout once D plays have been made after the candidate and the
searcher is to move. With equal logits and no cut-off every ranking is plain search's, so
plain search is this search with a uniform prior: the same code, the same random draws, the
same move. ``explore`` (expert iteration's games) adds Gumbel noise to the logits, and
:attr:`SearchHungryPolicy.last_search` keeps the statistics of the last move, from which
:meth:`SearchStatistics.improved_policy` gives the training target.

``search:N:beliefs`` (:class:`SearchHungryPolicy` with ``beliefs=True``; also with a budget of
plays or a guide, ``search:Bplays:beliefs:SPEC``) models the other seats as the expert once the
deck is empty: its playouts from then on field the compiled expert in their seats, and once an
opponent has played with the deck empty its deals are drawn from the uniform deal weighted by
the likelihood of the opponents' plays since then, under a softmax of the expert's play values
(:func:`hunger_rl.policies.hungry_beliefs.posterior_deals`: ``BELIEF_CHAINS`` Metropolis chains,
which make ``BELIEF_STEPS`` card swaps each move, going on from the last move's deals, and from
which every round of the search draws its deals).
Against experts, the hidden cards and the expert's playouts together are worth far more than
either alone (docs/experiments/search_4p.md, "What better beliefs would buy the 4-player
search"). The policy records those plays from its successive views, so it must see each of
its moves of a game (``reset`` between games; a view that does not follow from the last starts
the record again). While the deck lasts, and without ``beliefs``, the search is the same, draw
for draw.

``search:N:solve`` (``solve=True``; with ``beliefs`` or a guide too, ``search:N:solve:SPEC``)
plays the 2-player endgame exactly once the deck is empty
(:mod:`hunger_rl.policies.hungry_endgame`): every hand the other seat may hold, each position
solved by alpha-beta, the search's play kept unless another wins strictly more over those hands
or the solving runs past its budget of positions. Before the deck is empty it is the same
search, draw for draw.

The playouts run on the batched engine's rules (:mod:`hunger_rl.engines.hungry.batched`): every
(deal, candidate) pair is one row in that engine's layout, loaded here from the view, and played
to the end in compiled code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from hunger_rl.engines.compiled import jit, jit_allocating
from hunger_rl.engines.hungry.batched import (
    BONUS_HOLDER,
    COUNTS,
    CURRENT,
    DECK_POS,
    FIRST,
    HAND_SIZES,
    HANDS,
    NO_PLAYER,
    NUM_PLAYS,
    ORDER,
    PLACED,
    PLAYED,
    ROW_SIZE,
    SECOND,
    TOTALS,
    best_total_and_winner,
    observation_size,
    play,
    update_resort,
    write_observation,
)
from hunger_rl.engines.hungry.engine import (
    DECK_SIZE,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_RESORTS,
    TOTAL_PLAYS,
)
from hunger_rl.engines.hungry.view import HungryView
from hunger_rl.policies.base import Observation, Policy, legal_actions
from hunger_rl.policies.hungry import ExpertHungryPolicy, Outlook, view_of
from hunger_rl.policies.hungry_batched import (
    POLICY_CODES,
    forecast_action,
    forecast_scratch,
    policy_action,
)
from hunger_rl.policies.hungry_beliefs import PlayRecord, posterior_deals
from hunger_rl.policies.hungry_endgame import EndgameSolver


class SearchGuide(Protocol):
    """What guides a search: a trained network (``policies.learned.LearnedPolicy``)."""

    name: str

    def logits(self, observations: list[np.ndarray]) -> np.ndarray:
        """(B, NUM_ACTIONS) unmasked action logits of raw observation vectors."""

    def win_shares(self, observations: np.ndarray) -> np.ndarray:
        """(B,) the observer's expected win share from its raw observation vectors."""


@dataclass(frozen=True)
class SearchStatistics:
    """One move's search: the legal plays, their centred logits, each play's playouts and
    mean win share (0 playouts: not searched)."""

    actions: np.ndarray
    logits: np.ndarray
    counts: np.ndarray
    means: np.ndarray

    def improved_policy(self) -> np.ndarray:
        """Gumbel AlphaZero's policy target over all NUM_ACTIONS plays (0 where illegal):
        softmax(logit + sigma(completed mean)), an unsearched play's mean completed by the
        playout-weighted mean of the searched ones (with none searched, the logits alone)."""
        searched = self.counts > 0
        if not searched.any():
            return self._softmax(self.logits)
        completed = np.where(searched, self.means,
                             np.average(self.means[searched], weights=self.counts[searched]))
        return self._softmax(self.logits + sigma_scale(self.counts.max()) * completed)

    def _softmax(self, scores: np.ndarray) -> np.ndarray:
        weights = np.exp(scores - scores.max())
        target = np.zeros(NUM_ACTIONS)
        target[self.actions] = weights / weights.sum()
        return target


# Gumbel AlphaZero's constants (the mctx library's defaults): sigma's offset in playouts and its
# scale per unit of win share.
C_VISIT = 50.0
C_SCALE = 0.1


def sigma_scale(most_playouts: int) -> float:
    """Logits per unit of mean win share when the most-searched play has ``most_playouts``."""
    return (C_VISIT + most_playouts) * C_SCALE


class SearchHungryPolicy(Policy):
    """Flat Monte Carlo over the expert's best plays with ``simulations`` playouts per move (or
    a budget of ``plays`` simulated plays per move); with a ``guide``, over the network's best
    plays, ranked by its logits and the playouts, and with a ``cutoff`` its value after that
    many plays (module docstring)."""

    # How many of the expert's best plays compete for the budget.
    CANDIDATES = 4
    # Playouts per move when neither ``simulations`` nor ``plays`` is given.
    DEFAULT_SIMULATIONS = 200
    # ``search:Bplays``: a budget of B simulated plays a move.
    PLAYS_SUFFIX = "plays"
    # ``search:N:beliefs``: the other seats modelled as the expert once the deck is empty.
    BELIEFS = "beliefs"
    # ``search:N:solve``: the 2-player endgame played exactly once the deck is empty.
    SOLVE = "solve"
    # Belief deals: Metropolis chains a move (the deals each round draws from), card swaps per
    # chain and move (the chains go on from one move's deals to the next's), and the softmax
    # temperature (in points of the expert's values) of the opponents' modelled choices
    # (docs/experiments/search_4p.md, "What better beliefs would buy the 4-player search", "Belief
    # chains that go on from move to move").
    BELIEF_CHAINS = 32
    BELIEF_STEPS = 10
    BELIEF_TEMPERATURE = 0.1
    # The least mean log-likelihood per recorded play of the posterior deals at which the expert
    # stays the opponents' model: against experts about nine moves in ten are above it, against
    # search:200 about one in four (docs/experiments/search_4p.md,
    # "Metropolis deals with the expert's playouts").
    BELIEF_TRUST = -1.8

    def __init__(self, simulations: int | None = None, guide: SearchGuide | None = None,
                 cutoff: int | None = None, explore: bool = False, plays: int | None = None,
                 beliefs: bool = False, solve: bool = False):
        if plays is None:
            simulations = self.DEFAULT_SIMULATIONS if simulations is None else simulations
            if simulations < 1:
                raise ValueError(f"simulations must be at least 1, got {simulations}")
        elif simulations is not None:
            raise ValueError(f"a search's budget is playouts (simulations) or simulated plays "
                             f"(plays) a move, not both: got {simulations} and {plays}")
        elif plays < TOTAL_PLAYS:
            raise ValueError(f"a budget of plays must be at least {TOTAL_PLAYS}, one playout of "
                             f"a whole game, got {plays}")
        elif cutoff is not None:
            raise ValueError(f"a budget of plays counts playouts to the game's end, so it takes "
                             f"no cut-off (got {cutoff}): use a number of playouts with it")
        if cutoff is not None and (guide is None or cutoff < 0):
            raise ValueError(f"a cut-off needs a guide and at least 0 plays, got {cutoff} "
                             f"with guide {guide}")
        self.simulations = simulations
        self.plays = plays
        self.guide = guide
        self.cutoff = cutoff
        self.explore = explore
        # The opponents' plays since the deck emptied, for the belief deals (None: off).
        self.record = PlayRecord() if beliefs else None
        self.endgame = EndgameSolver() if solve else None
        self.last_search: SearchStatistics | None = None
        budget = f"{simulations}" if plays is None else f"{plays}{self.PLAYS_SUFFIX}"
        self.name = f"search:{budget}" + (f":{self.BELIEFS}" if beliefs else "") + (
            f":{self.SOLVE}" if solve else "") + (
            "" if guide is None else f"{'' if cutoff is None else f':{cutoff}'}:{guide.name}")

    def reset(self) -> None:
        if self.record is not None:
            self.record.reset()
        if self.endgame is not None:
            self.endgame.new_game()

    def playouts(self, view: HungryView) -> int:
        """The playouts of a move from ``view``: ``simulations``, or the budget of plays over
        the plays left in the game, each of which every playout makes."""
        if self.plays is None:
            return self.simulations
        return self.plays // (TOTAL_PLAYS - view.num_plays)

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        view = view_of(observation, view)
        if self.record is not None:
            self.record.observe(view)
        action = self._search(observation, rng, view)
        if self.endgame is not None and not view.deck_size:
            # The search's play stands where the solved one is no better, or the solving ran
            # past its budget.
            solved = self.endgame.best_play(view, action)
            action = action if solved is None else solved
        if self.record is not None:
            self.record.own_play(view, action)
        return action

    def _search(self, observation: Observation, rng: np.random.Generator,
                view: HungryView) -> int:
        actions = legal_actions(observation)
        values = Outlook(
            view,
            ExpertHungryPolicy.OWN_DESTINATION_CHANCE,
            ExpertHungryPolicy.OPPONENT_DESTINATION_CHANCE,
        ).values_after(actions, ExpertHungryPolicy.TIE_BREAK_WEIGHT)
        logits = self._centred_logits(observation, actions)
        ranks = logits + rng.gumbel(size=actions.size) if self.explore else logits
        # The guide's order, then the expert's, ties broken at random so that equal plays are
        # not biased by index.
        order = np.lexsort((rng.random(actions.size), -values, -ranks))
        simulations = self.playouts(view)
        chosen = order[: min(self.CANDIDATES, simulations)]
        candidates, ranks = actions[chosen], ranks[chosen]
        totals = np.zeros(candidates.size)
        counts = np.zeros(candidates.size, dtype=np.int64)
        alive = np.arange(candidates.size)
        rounds = math.ceil(math.log2(candidates.size)) if candidates.size > 1 else 0
        budget = simulations
        pool, opponent = self._opponent_model(view, rng) if rounds else (None, "forecast")
        for round_index in range(rounds):
            # What is left, split evenly over the remaining rounds; the search stops early when
            # what is left cannot give every surviving candidate a deal (never more than N).
            deals = budget // ((rounds - round_index) * alive.size)
            if deals == 0:
                if budget < alive.size:
                    break
                deals = 1
            rows = None if pool is None else pool[(rng.random(deals) * len(pool)).astype(int)]
            shares = playout_win_shares(view, candidates[alive], deals, rng, self.guide,
                                        self.cutoff, opponent, rows)
            budget -= shares.size
            totals[alive] += shares.sum(axis=0)
            counts[alive] += deals
            if round_index < rounds - 1:
                scores = _scores(ranks[alive], totals[alive], counts[alive], counts.max())
                # Stable sort: among equal scores the guide's, then the expert's order decides.
                keep = np.argsort(-scores, kind="stable")[: max(1, alive.size // 2)]
                alive = alive[np.sort(keep)]
        if self.explore or self.guide is not None:
            means = np.zeros(actions.size)
            searched = np.zeros(actions.size, dtype=np.int64)
            means[chosen] = np.divide(totals, counts, out=np.zeros_like(totals),
                                      where=counts > 0)
            searched[chosen] = counts
            self.last_search = SearchStatistics(actions, logits, searched, means)
        if counts.max() == 0:  # a single candidate, or N = 1: the guide's (or expert's) choice
            return int(candidates[0])
        scores = _scores(ranks[alive], totals[alive], counts[alive], counts.max())
        return int(candidates[alive[int(np.argmax(scores))]])

    def _opponent_model(self, view: HungryView,
                        rng: np.random.Generator) -> tuple[np.ndarray | None, str]:
        """The deals each round draws from (None: fresh uniform deals) and who plays the other
        seats in the playouts. With beliefs once the deck is empty, the expert: BELIEF_CHAINS
        deals from the posterior of the opponents' plays since then (none before the first),
        unless their mean log-likelihood per recorded play falls below BELIEF_TRUST, when the
        expert explains the opponents too badly to be their model; else the forecast."""
        if self.record is None or view.deck_size:
            return None, "forecast"
        if not self.record.decisions:
            return None, "expert"
        start = self.record.continued_chains(view, self.BELIEF_CHAINS, rng)
        rows, log_likelihoods = posterior_deals(
            load_deals(view, self.BELIEF_CHAINS, rng), view, self.record, rng,
            self.BELIEF_TEMPERATURE, self.BELIEF_STEPS, start)
        if log_likelihoods.mean() / len(self.record.decisions) < self.BELIEF_TRUST:
            return None, "forecast"
        return rows, "expert"

    def _centred_logits(self, observation: Observation, actions: np.ndarray) -> np.ndarray:
        """The guide's logits of the legal plays less their maximum (so the best is exactly 0);
        all 0 without a guide: a uniform prior."""
        if self.guide is None:
            return np.zeros(actions.size)
        logits = self.guide.logits([observation["observation"]])[0, actions].astype(np.float64)
        return logits - logits.max()


def _scores(ranks: np.ndarray, totals: np.ndarray, counts: np.ndarray,
            most_playouts: int) -> np.ndarray:
    """``rank + sigma(mean win share)`` of candidates that all have playouts."""
    return ranks + sigma_scale(most_playouts) * (totals / counts)


# Who plays the other seats in a playout: the forecast (the search's) or the compiled expert,
# its exact twin (the endgame head's labels against the expert, ``training.endgame``).
PLAYOUT_OPPONENTS = ("forecast", "expert")
_FORECAST_CODE = POLICY_CODES["forecast"]


def playout_win_shares(
    view: HungryView, candidates: np.ndarray, deals: int, rng: np.random.Generator,
    guide: SearchGuide | None = None, cutoff: int | None = None, opponent: str = "forecast",
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """``shares[d, c]``: the observer's win share after candidate c in sampled deal d; with a
    ``cutoff``, the ``guide``'s estimate of it once ``cutoff`` plays followed the candidate and
    the observer is to move (the real share where the game ended first). The observer's seat
    plays the forecast after the candidate, the other seats the ``opponent``
    (``PLAYOUT_OPPONENTS``). The deals are ``rows`` (``deals`` rows of :func:`load_deals`'s
    layout, which are played on) when given, else ``deals`` fresh uniform ones.

    Every candidate sees the same deals and the same playout random streams.
    """
    if opponent not in PLAYOUT_OPPONENTS:
        raise ValueError(f"playout opponent must be one of {PLAYOUT_OPPONENTS}, got {opponent!r}")
    if rows is None:
        rows = load_deals(view, deals, rng)
    elif rows.shape[0] != deals:
        raise ValueError(f"{deals} deals asked for, {rows.shape[0]} rows given")
    games = np.repeat(rows, candidates.size, axis=0)
    actions = np.tile(candidates.astype(np.int64), deals)
    streams = np.repeat(rng.integers(0, 2**63, size=deals, dtype=np.int64), candidates.size)
    streams = streams.astype(np.uint64)
    shares = np.empty(games.shape[0])
    void_tied_second = view.tied_second == "void"
    stop_after = NO_CUTOFF if cutoff is None else cutoff
    # Python acts on a signal (Ctrl-C, SIGTERM) only between compiled calls: rows in chunks.
    for start in range(0, games.shape[0], PLAYOUT_CHUNK):
        chunk = slice(start, start + PLAYOUT_CHUNK)
        _play_out(games[chunk], actions[chunk], streams[chunk], view.num_players,
                  void_tied_second, stop_after, POLICY_CODES[opponent], shares[chunk])
    if cutoff is not None:
        stopped = np.flatnonzero(games[:, NUM_PLAYS] < TOTAL_PLAYS)
        if stopped.size:
            observations = np.zeros((stopped.size, observation_size(view.num_players)),
                                    np.float32)
            _observe_seat_zero(games, stopped, view.num_players, observations)
            shares[stopped] = guide.win_shares(observations)
    return shares.reshape(deals, candidates.size)


def load_deals(view, deals: int, rng: np.random.Generator) -> np.ndarray:
    """``deals`` batched-engine rows, each a random completion of ``view`` (observer = seat 0).

    The unseen cards are shuffled per deal and dealt to the other seats' hands, then to the
    deck; whatever is left is the removed cards, which never come into play.
    """
    seats = view.num_players
    template = np.zeros(ROW_SIZE, np.int8)
    template[HANDS : HANDS + NUM_CARD_TYPES] = view.hand
    template[PLACED : PLACED + seats * NUM_ACTIONS] = view.placed.ravel()
    template[PLAYED : PLAYED + NUM_CARD_TYPES] = view.played
    template[COUNTS : COUNTS + seats * NUM_RESORTS] = view.resort_counts.ravel()
    template[HAND_SIZES : HAND_SIZES + seats] = view.hand_sizes
    template[DECK_POS] = DECK_SIZE - view.deck_size
    template[CURRENT] = view.to_move
    template[NUM_PLAYS] = view.num_plays
    games = np.repeat(template[None, :], deals, axis=0)
    unseen = np.repeat(np.arange(NUM_CARD_TYPES, dtype=np.int8), view.unseen)
    shuffled = rng.permuted(np.broadcast_to(unseen, (deals, unseen.size)), axis=1)
    start = 0
    for seat in range(1, seats):
        size = int(view.hand_sizes[seat])
        dealt = shuffled[:, start : start + size]
        np.add.at(hands_view(games, seat), (np.arange(deals)[:, None], dealt), 1)
        start += size
    # The deck sits at the end of the 50-card order, so the next draw is at DECK_POS.
    deck_start = ORDER + DECK_SIZE - view.deck_size
    games[:, deck_start : ORDER + DECK_SIZE] = shuffled[:, start : start + view.deck_size]
    _score_tables(games, seats, view.tied_second == "void")
    return games


def hands_view(games: np.ndarray, seat: int) -> np.ndarray:
    """(B, 25) view of one seat's hand in batched-engine rows."""
    start = HANDS + seat * NUM_CARD_TYPES
    return games[:, start : start + NUM_CARD_TYPES]


@jit
def _score_tables(games, num_players, void_tied_second):
    """Places, totals and bonus holder of each row from its resort counts (H6-H8)."""
    for b in range(games.shape[0]):
        for resort in range(NUM_RESORTS):
            games[b, FIRST + resort] = NO_PLAYER
            games[b, SECOND + resort] = NO_PLAYER
        for p in range(num_players):
            games[b, TOTALS + p] = 0
        games[b, BONUS_HOLDER] = NO_PLAYER
        for resort in range(NUM_RESORTS):
            update_resort(games, b, resort, num_players, void_tied_second)


# ``_play_out``'s cut-off when there is none: more plays than a game has.
NO_CUTOFF = TOTAL_PLAYS + 1
# Playouts per compiled call: a few tenths of a second at most between the points where Ctrl-C
# and SIGTERM can stop a search, and one call a round for the shipped budgets.
PLAYOUT_CHUNK = 1024


@jit_allocating
def _play_out(games, actions, streams, num_players, void_tied_second, cutoff, opponent_code,
              shares):
    """Row b plays ``actions[b]``, then seat 0 plays the forecast policy and the other seats
    the policy ``opponent_code`` (``hungry_batched.policy_action``'s) to the end, or until
    ``cutoff`` plays followed and seat 0 is to move; seat 0's win share in the rows that ended
    (the others are left for the guide's value)."""
    scratch = forecast_scratch()
    for b in range(games.shape[0]):
        play(games, b, actions[b], num_players, void_tied_second)
        made = 0
        while games[b, NUM_PLAYS] < TOTAL_PLAYS:
            if made >= cutoff and games[b, CURRENT] == 0:
                break
            if opponent_code == _FORECAST_CODE or games[b, CURRENT] == 0:
                action = forecast_action(games, b, num_players, streams, scratch)
            else:
                action = policy_action(games, b, opponent_code, num_players, void_tied_second,
                                       streams, scratch)
            play(games, b, action, num_players, void_tied_second)
            made += 1
        if games[b, NUM_PLAYS] == TOTAL_PLAYS:
            shares[b] = _observer_win_share(games, b, num_players)


@jit
def _observe_seat_zero(games, rows, num_players, out):
    """Seat 0's observation of each of ``rows`` into ``out``, row by row."""
    for i in range(rows.size):
        write_observation(games, rows[i], 0, num_players, out, i)


@jit
def _observer_win_share(games, b, num_players):
    """Seat 0's share of the win in finished row b (H9)."""
    best, winner = best_total_and_winner(games, b, num_players)
    if winner != NO_PLAYER:
        return 1.0 if winner == 0 else 0.0
    if games[b, TOTALS] != best:
        return 0.0
    tied = 0
    for p in range(num_players):
        tied += games[b, TOTALS + p] == best
    return 1.0 / tied
