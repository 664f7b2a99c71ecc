"""Round-robin tournament: OpenSkill ratings and a pairwise win-share matrix.

The schedule cycles through every seat arrangement: with M policies and N seats, all ordered
choices of N distinct policies when M >= N, else all ordered N-tuples that hold every policy at
least once. Each cycle visits the arrangements in a fresh seeded order, so every arrangement is
played equally often (up to one unfinished cycle) and no seat favours any policy.
"""

from __future__ import annotations

import csv
import itertools
import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hunger_rl.arena.evaluation import score_value, wilson_interval
from hunger_rl.arena.matches import GameRecord, play_games

# Width of a pairwise matrix cell: a share as 0.000 with room to spare.
CELL_WIDTH = 8


def arrangements(policies: Sequence[str], num_players: int) -> list[tuple[str, ...]]:
    """Every seat arrangement of the tournament (see the module docstring)."""
    if len(policies) >= num_players:
        return list(itertools.permutations(policies, num_players))
    return [
        seats
        for seats in itertools.product(policies, repeat=num_players)
        if set(seats) == set(policies)
    ]


def tournament_schedule(
    policies: Sequence[str], num_players: int, games: int, seed: int
) -> list[tuple[str, ...]]:
    every = arrangements(policies, num_players)
    rng = np.random.default_rng(np.random.SeedSequence([seed, len(every)]))
    schedule: list[tuple[str, ...]] = []
    while len(schedule) < games:
        schedule.extend(every[i] for i in rng.permutation(len(every)))
    return schedule[:games]


def finishing_ranks(record: GameRecord) -> list[int]:
    """0 for the winners, then by score (equal scores share a rank): OpenSkill's ``ranks``."""
    keys = [
        (record.win_shares[s], score_value(record.scores[s]), record.scores[s] is not None)
        for s in range(len(record.seats))
    ]
    return [sum(other > key for other in keys) for key in keys]


@dataclass
class TournamentResult:
    game: str
    num_players: int
    policies: list[str]
    games: int
    seed: int
    ratings: dict[str, dict[str, float]]  # mu, sigma, ordinal (mu - 3 sigma)
    win_share: dict[str, dict[str, float]]  # share, ci_low, ci_high, games
    pairwise: list[list[float | None]]  # [i][j]: share of shared games where i beat j

    def to_table(self) -> str:
        order = sorted(self.policies, key=lambda p: -self.ratings[p]["ordinal"])
        width = max(len(p) for p in self.policies)
        lines = [
            f"{self.game}, {self.num_players} players, {self.games} games (seed {self.seed})",
            f"{'policy'.ljust(width)}  {'mu':>6}  {'sigma':>5}  {'ordinal':>7}  "
            f"{'games':>5}  win share [95% CI]",
        ]
        for p in order:
            r, w = self.ratings[p], self.win_share[p]
            lines.append(
                f"{p.ljust(width)}  {r['mu']:6.2f}  {r['sigma']:5.2f}  {r['ordinal']:7.2f}  "
                f"{int(w['games']):5d}  {w['share']:.3f} [{w['ci_low']:.3f}, {w['ci_high']:.3f}]"
            )
        lines.append("")
        lines.append("pairwise: share of shared games where the row finished ahead of the column")
        column = max(CELL_WIDTH, width)  # whole names as column heads, never cut
        lines.append(" " * width + "  " + "  ".join(p.rjust(column) for p in self.policies))
        for i, p in enumerate(self.policies):
            cells = ["-".rjust(column) if v is None else f"{v:{column}.3f}"
                     for v in self.pairwise[i]]
            lines.append(p.ljust(width) + "  " + "  ".join(cells))
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "num_players": self.num_players,
            "policies": self.policies,
            "games": self.games,
            "seed": self.seed,
            "ratings": self.ratings,
            "win_share": self.win_share,
            "pairwise": self.pairwise,
        }

    def to_json(self, path: str) -> None:
        with open(path, "w") as out:
            json.dump(self.to_dict(), out, indent=2)

    def to_csv(self, path: str) -> None:
        with open(path, "w", newline="") as out:
            writer = csv.writer(out)
            header = ["policy", "mu", "sigma", "ordinal", "games", "win_share", "ci_low", "ci_high"]
            writer.writerow(header + [f"vs_{p}" for p in self.policies])
            for i, p in enumerate(self.policies):
                r, w = self.ratings[p], self.win_share[p]
                writer.writerow(
                    [p, r["mu"], r["sigma"], r["ordinal"], int(w["games"]), w["share"]]
                    + [w["ci_low"], w["ci_high"]]
                    + ["" if v is None else v for v in self.pairwise[i]]
                )

    def plot(self, path: str) -> None:
        """Ratings (mu with +-3 sigma bars) beside the pairwise win-share heat map."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        size = len(self.policies)
        figure, (bars, heat) = plt.subplots(1, 2, figsize=(6 + 1.4 * size, 4.5))
        mus = [self.ratings[p]["mu"] for p in self.policies]
        sigmas = [3 * self.ratings[p]["sigma"] for p in self.policies]
        bars.bar(self.policies, mus, yerr=sigmas, capsize=6, color="tab:blue")
        bars.set_ylabel("OpenSkill mu (bars: 3 sigma)")
        bars.set_title(f"{self.game}, {self.num_players} players, {self.games} games")
        matrix = np.array([[np.nan if v is None else v for v in row] for row in self.pairwise])
        image = heat.imshow(matrix, vmin=0, vmax=1, cmap="RdBu")
        heat.set_xticks(range(size), self.policies, rotation=45, ha="right")
        heat.set_yticks(range(size), self.policies)
        for i in range(size):
            for j in range(size):
                if not np.isnan(matrix[i, j]):
                    heat.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center")
        heat.set_title("row ahead of column")
        figure.colorbar(image, ax=heat)
        figure.tight_layout()
        figure.savefig(path)
        plt.close(figure)


def tournament(
    game: str,
    num_players: int,
    policies: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    env_kwargs: dict | None = None,
    progress: bool = True,
) -> TournamentResult:
    """Play ``games`` games over all seat arrangements of ``policies`` and rate them."""
    from openskill.models import PlackettLuce

    policies = list(dict.fromkeys(policies))
    if len(policies) < 2:
        raise ValueError("a tournament needs at least two different policies")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    schedule = tournament_schedule(policies, num_players, games, seed)
    records = play_games(
        game, num_players, schedule, seed, workers, env_kwargs, progress, f"tournament {game}"
    )
    model = PlackettLuce()
    ratings = {p: model.rating(name=p) for p in policies}
    index = {p: i for i, p in enumerate(policies)}
    ahead = np.zeros((len(policies), len(policies)))
    met = np.zeros((len(policies), len(policies)))
    shares = {p: [] for p in policies}
    for record in records:  # in schedule order, so the ratings do not depend on the workers
        ranks = finishing_ranks(record)
        teams = model.rate([[ratings[p]] for p in record.seats], ranks=ranks)
        # A policy in several seats of one game takes the mean of its seats' updates.
        updates: dict[str, list] = {}
        for spec, team in zip(record.seats, teams, strict=True):
            updates.setdefault(spec, []).append(team[0])
        for spec, rated in updates.items():
            ratings[spec] = model.rating(
                mu=float(np.mean([r.mu for r in rated])),
                sigma=float(np.mean([r.sigma for r in rated])),
                name=spec,
            )
        for seat, spec in enumerate(record.seats):
            shares[spec].append(record.win_shares[seat])
            for other_seat, other in enumerate(record.seats):
                if other == spec:
                    continue
                i, j = index[spec], index[other]
                met[i, j] += 1
                diff = ranks[other_seat] - ranks[seat]
                ahead[i, j] += 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
    size = len(policies)
    pairwise = [
        [None if i == j or not met[i, j] else float(ahead[i, j] / met[i, j]) for j in range(size)]
        for i in range(size)
    ]
    win_share = {}
    for p in policies:
        low, high = wilson_interval(sum(shares[p]), len(shares[p]))
        win_share[p] = {
            "share": sum(shares[p]) / len(shares[p]) if shares[p] else 0.0,
            "ci_low": low,
            "ci_high": high,
            "games": len(shares[p]),
        }
    return TournamentResult(
        game=game,
        num_players=num_players,
        policies=policies,
        games=len(records),
        seed=seed,
        ratings={
            p: {"mu": r.mu, "sigma": r.sigma, "ordinal": float(r.ordinal())}
            for p, r in ratings.items()
        },
        win_share=win_share,
        pairwise=pairwise,
    )
