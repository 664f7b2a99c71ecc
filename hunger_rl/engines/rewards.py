"""Terminal rewards shared by both games (ruling R1), and HUNGER's payout of a day.

``r1_reward`` and ``r1_leaving_reward`` are also compiled from this source for the batched
engines (``engines.compiled``), so the envs, the OpenSpiel games and the batched engines pay
from one definition.
"""

from __future__ import annotations

from collections.abc import Sequence


def win_shares(num_players: int, winners: Sequence[int]) -> list[float]:
    """Each player's share of the win: 1 for a sole winner, 1/k in a k-way draw, else 0."""
    if not winners:
        raise ValueError("a finished game has at least one winner")
    share = 1.0 / len(winners)
    shares = [0.0] * num_players
    for player in winners:
        shares[player] = share
    return shares


def r1_reward(num_players: int, win_share: float) -> float:
    """R1: ``N/(N-1) * (w - 1/N)``, so that rewards sum to zero and a sole win is +1."""
    return num_players / (num_players - 1) * (win_share - 1.0 / num_players)


def r1_leaving_reward(num_players: int, won: bool, num_winners: int) -> float:
    """R1 in HUNGER, paid to a seat as it leaves the show (nothing while it plays on): at the
    end by its win share, ``1 / num_winners`` for one of the ``num_winners`` winners, else 0;
    eliminated before the end, a share of 0 (``won`` False)."""
    return r1_reward(num_players, 1.0 / num_winners if won else 0.0)


def r1_rewards(num_players: int, winners: Sequence[int]) -> list[float]:
    """R1 rewards of every player given the indices of the winners."""
    return [r1_reward(num_players, w) for w in win_shares(num_players, winners)]
