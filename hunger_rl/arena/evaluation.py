"""Seat-rotated evaluation of policies against each other, with win-share intervals.

A lineup gives one policy spec per seat; with fewer specs than players the last one fills the
remaining seats (``expert random`` at 4 players is one expert against three random players).
Games cycle through the N cyclic shifts of the lineup, so every entry sits in every seat equally
often; the number of games is rounded up to a multiple of N for that.

``compare`` measures two policies against the same opponents on the same deals (common random
numbers): game i of each has the same deal, seats and opponents' draws, so the card luck that
drowns one policy's edge in two separate evaluations cancels in the per-game differences.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from hunger_rl.arena.matches import GameRecord, play_games

Z_95 = 1.959963984540054


def wilson_interval(successes: float, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional: shared draws)."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # The interval holds p exactly: at p = 0 or 1 rounding would leave it a hair outside.
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def expand_lineup(policies: Sequence[str], num_players: int) -> list[str]:
    """One spec per seat: the last spec fills the seats the lineup leaves open."""
    if not policies:
        raise ValueError("name at least one policy")
    if len(policies) > num_players:
        raise ValueError(
            f"{len(policies)} policies for {num_players} seats: give at most one per seat"
        )
    return list(policies) + [policies[-1]] * (num_players - len(policies))


def rotation_schedule(lineup: Sequence[str], games: int) -> list[tuple[str, ...]]:
    """Seats of each game: game i uses cyclic shift i mod N, so seat s holds lineup[(s-i) % N]."""
    n = len(lineup)
    return [tuple(lineup[(seat - i) % n] for seat in range(n)) for i in range(games)]


def score_value(score) -> float:
    """A seat's score as one number: the Hungry total, or the raft sets of a HUNGER ranking
    key (0 for a player eliminated before the ranking)."""
    if score is None:
        return 0.0
    return float(score[0]) if isinstance(score, tuple) else float(score)


@dataclass(frozen=True)
class PolicyRow:
    """Aggregate results of one policy spec over all the seats it held."""

    policy: str
    games: int  # seat-instances: a spec filling two seats of a game counts twice
    win_share: float
    ci_low: float
    ci_high: float
    mean_score: float
    per_seat_win_share: list[float | None]  # None for a seat the spec never held


@dataclass
class EvaluationResult:
    game: str
    num_players: int
    lineup: list[str]
    games: int
    requested_games: int
    seed: int
    rows: list[PolicyRow]
    score_label: str
    records: list[GameRecord] = field(repr=False, default_factory=list)

    @property
    def equal_share(self) -> float:
        return 1.0 / self.num_players

    def row(self, spec: str) -> PolicyRow:
        for row in self.rows:
            if row.policy == spec:
                return row
        raise KeyError(f"no row for policy {spec!r}; rows: {[r.policy for r in self.rows]}")

    def entry_share(self, position: int) -> tuple[float, float, float, int]:
        """Win share, 95% interval and games of the lineup's entry at ``position`` alone, by
        the seat it held in each game (seat ``(position + i) % N`` in game ``i``): unlike
        ``row``, it stays apart from other seats that hold the same spec."""
        if not self.records:
            raise ValueError("no games to measure")
        if not 0 <= position < self.num_players:
            raise ValueError(f"position {position} is not a seat of {self.num_players}")
        shares = [record.win_shares[(position + record.index) % self.num_players]
                  for record in self.records]
        low, high = wilson_interval(sum(shares), len(shares))
        return sum(shares) / len(shares), low, high, len(shares)

    def game_records(self) -> list:
        """The full record of every game (``hunger_rl.envs.records.GameRecord``), when evaluated
        with ``record=True``."""
        if not self.records or self.records[0].record is None:
            raise ValueError("these games were not recorded; evaluate with record=True")
        return [outcome.record for outcome in self.records]

    def write_records(self, path: str) -> None:
        """Write every game's record to ``path``, one JSON line per game."""
        from hunger_rl.envs.records import write_records

        write_records(path, self.game_records())

    def to_table(self) -> str:
        seats = [f"seat {s}" for s in range(self.num_players)]
        header = ["policy", "games", "win share", "95% CI", self.score_label, *seats]
        lines = [header]
        for r in self.rows:
            lines.append(
                [
                    r.policy,
                    str(r.games),
                    f"{r.win_share:.3f}",
                    f"[{r.ci_low:.3f}, {r.ci_high:.3f}]",
                    f"{r.mean_score:.2f}",
                    *["-" if w is None else f"{w:.3f}" for w in r.per_seat_win_share],
                ]
            )
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        rule = "  ".join("-" * w for w in widths)
        text = ["  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) for line in lines]
        title = (
            f"{self.game}, {self.num_players} players, {self.games} games "
            f"(seed {self.seed}; equal share {self.equal_share:.3f})"
        )
        if self.games != self.requested_games:
            title += f"; {self.requested_games} rounded up to a multiple of {self.num_players}"
        return "\n".join([title, text[0], rule, *text[1:]])

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "num_players": self.num_players,
            "lineup": self.lineup,
            "games": self.games,
            "requested_games": self.requested_games,
            "seed": self.seed,
            "score_label": self.score_label,
            "rows": [asdict(r) for r in self.rows],
        }

    def to_json(self, path: str) -> None:
        with open(path, "w") as out:
            json.dump(self.to_dict(), out, indent=2)

    def to_csv(self, path: str) -> None:
        seats = [f"seat_{s}_win_share" for s in range(self.num_players)]
        with open(path, "w", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(
                ["policy", "games", "win_share", "ci_low", "ci_high", "mean_score", *seats]
            )
            for r in self.rows:
                writer.writerow(
                    [r.policy, r.games, r.win_share, r.ci_low, r.ci_high, r.mean_score]
                    + ["" if w is None else w for w in r.per_seat_win_share]
                )

    def plot(self, path: str) -> None:
        """Win share with its 95% interval per policy, and the equal-share line."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        figure, axes = plt.subplots(figsize=(1.6 * len(self.rows) + 3, 4))
        shares = [r.win_share for r in self.rows]
        # Clipped at 0: at a share of exactly 0 or 1 rounding can put the bound a hair inside.
        errors = [
            [max(r.win_share - r.ci_low, 0.0) for r in self.rows],
            [max(r.ci_high - r.win_share, 0.0) for r in self.rows],
        ]
        axes.bar([r.policy for r in self.rows], shares, yerr=errors, capsize=6, color="tab:blue")
        axes.axhline(self.equal_share, color="grey", linestyle="--", label="equal share")
        axes.set_ylim(0, 1)
        axes.set_ylabel("win share (95% Wilson interval)")
        axes.set_title(f"{self.game}, {self.num_players} players, {self.games} games")
        axes.legend()
        figure.tight_layout()
        figure.savefig(path)
        plt.close(figure)


def evaluate(
    game: str,
    num_players: int,
    policies: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    env_kwargs: dict | None = None,
    progress: bool = True,
    record: bool = False,
) -> EvaluationResult:
    """Play ``games`` seat-rotated games of the lineup ``policies`` and aggregate per spec.

    With ``record`` every game's full record (``hunger_rl.envs.records``) is kept:
    ``result.game_records()`` lists them and ``result.write_records(path)`` saves them.
    """
    from hunger_rl.envs import game_spec

    game_info = game_spec(game)
    if isinstance(num_players, bool) or not isinstance(num_players, int) or num_players < 2:
        raise ValueError(f"num_players must be an integer of at least 2, got {num_players!r}")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    lineup = expand_lineup(list(policies), num_players)
    rounded = -(-games // num_players) * num_players
    records = play_games(
        game,
        num_players,
        rotation_schedule(lineup, rounded),
        seed=seed,
        workers=workers,
        env_kwargs=env_kwargs,
        progress=progress,
        description=f"evaluate {game}",
        record=record,
    )
    return EvaluationResult(
        game=game,
        num_players=num_players,
        lineup=lineup,
        games=rounded,
        requested_games=games,
        seed=seed,
        rows=aggregate(records, lineup, num_players),
        score_label=game_info.score_label,
        records=records,
    )


@dataclass(frozen=True)
class PairedComparison:
    """Two policies, each in the lineup's first position against the same opponents, on the
    same games: their win shares, and the mean of the per-game differences (candidate less
    baseline) with its 95% interval."""

    game: str
    num_players: int
    candidate: str
    baseline: str
    opponents: list[str]
    games: int
    seed: int
    candidate_share: float
    baseline_share: float
    difference: float
    ci_low: float
    ci_high: float
    differing_games: int  # games whose outcome for the compared seat differs

    def to_table(self) -> str:
        against = " ".join(self.opponents)
        return "\n".join([
            f"{self.game}, {self.num_players} players, {self.games} paired games against "
            f"{against} (seed {self.seed}; each game on the same deal for both)",
            f"{self.candidate}: {self.candidate_share:.3f}",
            f"{self.baseline}: {self.baseline_share:.3f}",
            f"difference: {self.difference:+.4f} [{self.ci_low:+.4f}, {self.ci_high:+.4f}] "
            f"(95%, paired; {self.differing_games} of {self.games} games differ)",
        ])

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self, path: str) -> None:
        with open(path, "w") as out:
            json.dump(self.to_dict(), out, indent=2)


def paired_difference(candidate: Sequence[float], baseline: Sequence[float],
                      z: float = Z_95) -> tuple[float, float, float]:
    """Mean of the per-game differences and its normal interval from their sample standard
    deviation (a win share's difference lies in [-1, 1], so the interval is cut there)."""
    if len(candidate) != len(baseline):
        raise ValueError(f"paired samples differ in length: {len(candidate)} and "
                         f"{len(baseline)}")
    if len(candidate) < 2:
        raise ValueError(f"a paired interval needs at least 2 games, got {len(candidate)}")
    differences = [a - b for a, b in zip(candidate, baseline, strict=True)]
    n = len(differences)
    mean = sum(differences) / n
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1)
    half = z * math.sqrt(variance / n)
    return mean, max(-1.0, mean - half), min(1.0, mean + half)


def compare(
    game: str,
    num_players: int,
    candidate: str,
    baseline: str,
    opponents: Sequence[str],
    games: int,
    seed: int = 0,
    workers: int = 1,
    progress: bool = True,
) -> PairedComparison:
    """``candidate`` and ``baseline`` each evaluated in the lineup ``[policy, *opponents]`` with
    the same seed: the same deals, seats and opponents' draws, game by game. Two identical
    policies give a difference of exactly 0."""
    if not opponents:
        raise ValueError("name at least one opponent to compare the two policies against")
    results = [evaluate(game, num_players, [policy, *opponents], games, seed=seed,
                        workers=workers, progress=progress) for policy in (candidate, baseline)]
    shares = [[record.win_shares[record.index % num_players] for record in result.records]
              for result in results]
    difference, low, high = paired_difference(*shares)
    return PairedComparison(
        game=game, num_players=num_players, candidate=candidate, baseline=baseline,
        opponents=results[0].lineup[1:], games=results[0].games, seed=seed,
        candidate_share=sum(shares[0]) / len(shares[0]),
        baseline_share=sum(shares[1]) / len(shares[1]),
        difference=difference, ci_low=low, ci_high=high,
        differing_games=sum(a != b for a, b in zip(*shares, strict=True)),
    )


def aggregate(records: Sequence[GameRecord], specs: Sequence[str], num_players: int):
    """One row per distinct spec, in order of first appearance in ``specs``."""
    rows = []
    for spec in dict.fromkeys(specs):
        shares, scores = [], []
        seat_shares: list[list[float]] = [[] for _ in range(num_players)]
        for record in records:
            for seat, seated in enumerate(record.seats):
                if seated == spec:
                    shares.append(record.win_shares[seat])
                    scores.append(score_value(record.scores[seat]))
                    seat_shares[seat].append(record.win_shares[seat])
        count = len(shares)
        low, high = wilson_interval(sum(shares), count)
        rows.append(
            PolicyRow(
                policy=spec,
                games=count,
                win_share=sum(shares) / count if count else 0.0,
                ci_low=low,
                ci_high=high,
                mean_score=sum(scores) / count if count else 0.0,
                per_seat_win_share=[sum(s) / len(s) if s else None for s in seat_shares],
            )
        )
    return rows
