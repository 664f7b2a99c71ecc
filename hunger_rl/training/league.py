"""The batched HUNGER engine's opponent league: scripted players, trained networks, snapshots.

The members are the scripted kinds named in ``opponents.weights`` (compiled inside the batch,
``policies.hunger_show_batched``), the trained networks named there by their policy specs (a
policy file, ``pretrained:NAME``, ``sample:T:SPEC``: frozen, playing as that spec plays, so an
exploiter of a learned policy trains at the batched engine's speed) and, for the weight of
``self``, the ``max_snapshots`` most recent frozen snapshots of the learner, as in the reference
env's pool (``training.selfplay``): the trainer adds one at the start and one every
``opponents.snapshot_every`` PPO updates, and ``self`` is left out of the draw while there is
none. Snapshots sample from their action distribution, as the reference pool's do.

Prioritised fictitious self-play (``opponents.pfsp_exponent`` e > 0): each member is drawn with
its weight (a snapshot's: the weight of ``self`` shared equally) times ``(1 - p) ** e``, where
``p`` is the learner's recorded result against it; e = 0 draws by the weights alone. A result is
pairwise, from the learner's episode and the member's seat: 1 when the learner ranks above the
seat, 0.5 level, 0 below, ranked by win share (0 for both while the show goes on after the
learner's elimination), then by who stayed longer in the show (:func:`pairwise_results`).
``p`` counts each member's results with a memory of about ``RESULT_MEMORY`` results (older ones
fade geometrically) plus half a game as a prior, so a member not met yet has ``p`` = 0.5. Only
a league with e > 0 records results (they serve nothing else, and cost the default path time).

The seats of trained networks (named ones and snapshots) are answered by batched inference: each
step, the observations of the seats one network plays are gathered and go through it in one
forward pass (:meth:`LearnedPolicy.act_vectors`, the very code a loaded policy plays with), its
samples drawn from the env's seeded generator.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from hunger_rl.engines.hunger_show import DEFAULT_PLAYERS
from hunger_rl.envs import GAMES
from hunger_rl.policies.hunger_show_batched import LEARNER, POLICY_KINDS
from hunger_rl.policies.learned import LearnedPolicy, PolicyMetadata
from hunger_rl.policies.registry import make_policy, mixture_members
from hunger_rl.training.games import SELF_PLAY

# Each member's record forgets with a memory of about this many results, so that ``p`` follows
# a learner that improves.
RESULT_MEMORY = 500
_FADE = 1.0 - 1.0 / RESULT_MEMORY
NO_MEMBER = -1  # the learner's seat


class League:
    """Who plays the opponent seats of a batch of shows, drawn per seat for every show.

    The env's ``members[b, p]`` is the member playing seat p of show b: ``i < len(named)`` the
    member ``named[i]`` of ``opponents.weights`` (a compiled kind, or a trained network's spec),
    larger numbers a snapshot (numbers are never reused), ``NO_MEMBER`` the learner's seat.
    """

    def __init__(self, weights: Mapping[str, float], pfsp_exponent: float = 0.0,
                 max_snapshots: int = 8, snapshot_metadata: PolicyMetadata | None = None,
                 num_players: int = DEFAULT_PLAYERS):
        if sum(weights.values()) <= 0 or min(weights.values()) < 0:
            raise ValueError(f"opponent weights must be >= 0 with a positive sum, got "
                             f"{dict(weights)}")
        if pfsp_exponent < 0:
            raise ValueError(f"pfsp_exponent must be >= 0, got {pfsp_exponent}")
        weights = league_members(weights)
        self.named = [member for member in weights if member != SELF_PLAY]
        self.named_weights = np.array([weights[k] for k in self.named], float)
        self.self_weight = float(weights.get(SELF_PLAY, 0.0))
        self.pfsp_exponent = float(pfsp_exponent)
        self.snapshot_metadata = snapshot_metadata
        self.pool: deque[int] = deque(maxlen=max_snapshots)  # member numbers, oldest first
        # The trained networks by member number: the named ones for good; snapshots that left
        # the pool keep playing the shows they sit in until those end.
        self.policies: dict[int, LearnedPolicy] = {
            number: batched_network(member, num_players)
            for number, member in enumerate(self.named) if member not in POLICY_KINDS}
        self._next_snapshot = len(self.named)
        # Per member: (faded sum of results, faded count of results).
        self.records: dict[int, list[float]] = {}
        # The compiled kind of each named member (LEARNER, left alone by the compiled players,
        # for a network's), then LEARNER for every other seat.
        self._kind_table = np.array(
            [*(POLICY_KINDS.index(k) if k in POLICY_KINDS else LEARNER for k in self.named),
             LEARNER], np.int64)
        # ``candidates()`` until the pool or the records change.
        self._candidates: tuple[np.ndarray, np.ndarray] | None = None

    # -- the pool ---------------------------------------------------------------------------

    def add_snapshot(self, weights: Mapping[str, np.ndarray]) -> None:
        """Freeze a copy of the learner into the pool; the oldest leaves a full pool."""
        if self.snapshot_metadata is None:
            raise ValueError("the league cannot build snapshots without their snapshot_metadata "
                             "(batched_vec_env_from_config sets it when opponents.weights has "
                             "'self')")
        number = self._next_snapshot
        self._next_snapshot += 1
        self.policies[number] = LearnedPolicy.from_weights(
            self.snapshot_metadata, weights, temperature=1.0, name=SELF_PLAY)
        self.pool.append(number)
        self._candidates = None

    # -- drawing ----------------------------------------------------------------------------

    def candidates(self) -> tuple[np.ndarray, np.ndarray]:
        """The members that can be drawn now and their probabilities."""
        if self._candidates is None:
            self._candidates = self._weighed_candidates()
        return self._candidates

    def _weighed_candidates(self) -> tuple[np.ndarray, np.ndarray]:
        members = np.arange(len(self.named) + len(self.pool), dtype=np.int64)
        members[len(self.named):] = list(self.pool)
        weights = self.named_weights
        if self.pool:
            weights = np.concatenate(
                (weights, np.full(len(self.pool), self.self_weight / len(self.pool))))
        if self.pfsp_exponent:
            weights = weights * (1.0 - self.win_rates(members)) ** self.pfsp_exponent
        if not weights.sum() > 0:  # only with self alone and an empty pool
            raise ValueError("no opponent to draw: the weight is all on 'self' and the pool "
                             "holds no snapshot yet")
        return members, weights / weights.sum()

    def draw(self, rng: np.random.Generator, shows: int, num_players: int) -> np.ndarray:
        """(shows, num_players) member numbers, every seat drawn independently."""
        members, chances = self.candidates()
        return members[rng.choice(len(members), p=chances, size=(shows, num_players))]

    def compiled_kinds(self, members: np.ndarray) -> np.ndarray:
        """The compiled players' kind codes of ``members``; ``LEARNER`` (left alone) for the
        learner's seats and the trained networks' seats."""
        named = (members >= 0) & (members < len(self.named))
        return self._kind_table[np.where(named, members, len(self.named))]

    def forget_retired(self, members: np.ndarray) -> None:
        """Drop the snapshots that left the pool and no show still seats."""
        seated = set(np.unique(members[members >= len(self.named)]).tolist())
        for number in [n for n in self.policies
                       if n >= len(self.named) and n not in self.pool and n not in seated]:
            del self.policies[number]
            self.records.pop(number, None)

    # -- acting -----------------------------------------------------------------------------

    def act_networks(self, members: np.ndarray, observations: np.ndarray, masks: np.ndarray,
                     actions: np.ndarray, rng: np.random.Generator) -> None:
        """Write into ``actions[b, p]`` the action of every seat of a trained network (named or
        snapshot) that has one to make: one forward pass per network over all the seats it
        plays."""
        # The compiled players leave exactly these seats and the learner's alone.
        seated = ((self.compiled_kinds(members) == LEARNER) & (members != NO_MEMBER)
                  & masks.any(axis=2))
        shows, seats = np.nonzero(seated)
        if not shows.size:
            return
        numbers = members[shows, seats]
        for number in np.unique(numbers).tolist():
            mine = numbers == number
            rows, columns = shows[mine], seats[mine]
            actions[rows, columns] = self.policies[number].act_vectors(
                observations[rows, columns], masks[rows, columns].astype(bool), rng)

    # -- results ----------------------------------------------------------------------------

    def record(self, members: np.ndarray, results: np.ndarray) -> None:
        """Add the learner's results (1 beat, 0.5 equal, 0 beaten) against ``members``, in
        order."""
        for member, result in zip(members.tolist(), results.tolist(), strict=True):
            entry = self.records.setdefault(member, [0.0, 0.0])
            entry[0] = entry[0] * _FADE + result
            entry[1] = entry[1] * _FADE + 1.0
        self._candidates = None

    def win_rates(self, members: np.ndarray) -> np.ndarray:
        """The learner's recorded result against each of ``members``, with half a game of
        prior: 0.5 for a member not met yet."""
        rates = np.empty(len(members))
        for i, member in enumerate(members.tolist()):
            total, count = self.records.get(member, (0.0, 0.0))
            rates[i] = (total + 0.5) / (count + 1.0)
        return rates

    def state(self) -> dict[str, Any]:
        """The records, for a checkpoint: named members by name (under ``scripted``, the key
        from before trained networks could be named), snapshots by their place in the pool
        (oldest first, as the checkpoint stores the snapshots)."""
        return {"scripted": {member: list(self.records.get(i, [0.0, 0.0]))
                             for i, member in enumerate(self.named)},
                "snapshots": [list(self.records.get(n, [0.0, 0.0])) for n in self.pool]}

    def restore(self, state: Mapping[str, Any]) -> None:
        """Take back the records of :meth:`state` (after the snapshots were added again)."""
        snapshots = list(state.get("snapshots", []))
        if len(snapshots) != len(self.pool):
            raise ValueError(f"league records for {len(snapshots)} snapshots, the pool holds "
                             f"{len(self.pool)}")
        self.records = {}
        for i, member in enumerate(self.named):
            if member in state.get("scripted", {}):
                self.records[i] = [float(v) for v in state["scripted"][member]]
        for number, entry in zip(self.pool, snapshots, strict=True):
            self.records[number] = [float(v) for v in entry]
        self._candidates = None


def league_members(weights: Mapping[str, float]) -> dict[str, float]:
    """``weights`` with every mixture (``mix:PATH``) replaced by its members, each weighed by
    the mixture's weight times its share of the mixture: a seat drawn per show from these plays
    what a seat of the mixture would (one member a show)."""
    members: dict[str, float] = {}
    for spec, weight in weights.items():
        mixture = mixture_members(spec)
        parts = [(spec, 1.0)] if mixture is None else mixture
        total = sum(share for _, share in parts)
        for member, share in parts:
            members[member] = members.get(member, 0.0) + weight * share / total
    return members


def check_seatable(specs: Iterable[str], num_players: int) -> None:
    """Every spec is one the league seats at ``num_players``: a compiled kind, ``self``, a
    trained network, or a mixture of those; else a ``ValueError`` naming the first that is
    not."""
    for member in league_members(dict.fromkeys(specs, 1.0)):
        if member not in (*POLICY_KINDS, SELF_PLAY):
            batched_network(member, num_players)


def batched_network(spec: str, num_players: int) -> LearnedPolicy:
    """The trained network of policy spec ``spec`` as a frozen league member at
    ``num_players``, playing as the spec plays (its argmax, or sampling at its temperature); a
    ``ValueError`` naming the spec when it is neither one of the compiled kinds nor a network
    that plays the default-mode observation."""
    playable = [*POLICY_KINDS, SELF_PLAY]
    try:
        policy = make_policy(spec, "hunger_show", num_players)
    except ValueError as error:
        raise ValueError(f"the batched HUNGER engine plays {playable} or a trained network, not "
                         f"{spec!r}: {error}") from error
    if not isinstance(policy, LearnedPolicy):
        raise ValueError(f"the batched HUNGER engine plays {playable} or a trained network, not "
                         f"{spec!r} (which the reference env plays: env.batched: false)")
    if GAMES["hunger_show"].full_decisions(policy.metadata.game_options):
        raise ValueError(f"{spec!r} plays HUNGER's full-decision mode; the batched engine plays "
                         "the default decisions only")
    return policy


def pairwise_results(learner_shares: np.ndarray, seat_shares: np.ndarray,
                     seat_stays: np.ndarray) -> np.ndarray:
    """The learner's result against each opponent seat, all arrays of one entry per (episode,
    seat): by win share first, then by how long each stayed (``seat_stays``: 0 the seat left
    before the learner's last day, 1 on that day, 2 it plays on in a show that goes on; the
    learner itself stayed 1)."""
    order = np.sign(learner_shares - seat_shares)
    order = np.where(order == 0, np.sign(1 - seat_stays), order)
    return order * 0.5 + 0.5
