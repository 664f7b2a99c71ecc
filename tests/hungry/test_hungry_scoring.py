"""Hand-computed scoring: every clause of rulings H6-H9, plus R1 rewards."""

import pytest

from hunger_rl.engines.hungry.engine import resort_places, score_resorts
from hunger_rl.engines.rewards import r1_rewards

RED, BLUE = 0, 1


def counts(num_players, **at):
    """resort_counts with entries like home1=(p0, p1, ...) or hotel_red=(...)."""
    names = ["home1", "home2", "home3", "home4", "home5"]
    names += ["hotel_red", "hotel_blue", "hotel_green", "hotel_yellow", "hotel_purple"]
    table = [[0] * 10 for _ in range(num_players)]
    for name, per_player in at.items():
        for player, n in enumerate(per_player):
            table[player][names.index(name)] = n
    return table


@pytest.mark.parametrize(
    ("resort_counts", "expected"),
    [
        ([3, 1], (0, 1)),  # plain majority and runner-up
        ([2, 2], (None, None)),  # two players tie for first: nobody scores (2 players)
        ([3, 3, 2, 1], (2, 3)),  # tie for first elevates the third and the fourth
        ([3, 3, 3, 1], (3, None)),  # three tied: the fourth takes first
        ([3, 3, 2, 2], (None, None)),  # every count tied
        ([4, 2, 2, 1], (0, 3)),  # tie for second: the next untied player takes the token
        ([2, 0, 0], (0, None)),  # zero-tourist players never place
        ([0, 0, 0, 0], (None, None)),
        ([0, 1, 0], (1, None)),
        ([1, 0, 1, 0], (None, None)),  # zero counts never break a tie into second place
        ([5, 5, 1, 3], (3, 2)),
    ],
)
def test_places(resort_counts, expected):
    assert resort_places(resort_counts) == expected


@pytest.mark.parametrize(
    ("resort_counts", "expected"),
    [
        ([4, 2, 2, 1], (0, None)),  # tie right below first voids the token
        ([3, 3, 2, 1], (2, 3)),  # ties above first place are unaffected
        ([4, 3, 1, 1], (0, 1)),
    ],
)
def test_places_tied_second_void(resort_counts, expected):
    assert resort_places(resort_counts, tied_second="void") == expected


def test_points_for_homes_hotels_and_seconds():
    # p0 wins the 4-star home and the red hotel; p1 is second at both and wins the 2-star home.
    score = score_resorts(counts(2, home4=(3, 1), hotel_red=(2, 1), home2=(0, 1)))
    p0, p1 = score.players
    assert p0.home_tiles == (4,) and p0.hotel_tiles == (RED,) and p0.total == 4 + 5
    assert p1.home_tiles == (2,) and p1.second_places == 2 and p1.total == 2 + 1 + 1
    assert p0.bonus == p1.bonus == 0
    assert score.winners == (0,)


def test_bonus_goes_to_first_to_reach_two_homes_even_if_another_ends_with_more():
    # p0 takes homes 1 and 2 (second home reached at the 2-star home); p1 takes 3, 4 and 5.
    score = score_resorts(
        counts(2, home1=(1, 0), home2=(2, 1), home3=(0, 1), home4=(0, 2), home5=(1, 2))
    )
    p0, p1 = score.players
    assert p0.home_tiles == (1, 2) and p0.bonus == 5
    assert p1.home_tiles == (3, 4, 5) and p1.bonus == 0
    assert p0.total == 1 + 2 + 5 + 1  # second at home 5 (no tourist at home 4: no place)
    assert p1.total == 3 + 4 + 5 + 1  # second at home 2
    assert score.winners == (1,)


def test_bonus_follows_star_order_not_tile_value():
    # p1 holds homes 1 and 5; p0 holds homes 3 and 4. p0 reaches two homes at the 4-star home,
    # p1 only at the 5-star home, so p0 gets the bonus.
    score = score_resorts(counts(2, home1=(0, 1), home3=(1, 0), home4=(1, 0), home5=(0, 1)))
    assert score.players[0].bonus == 5 and score.players[1].bonus == 0


def test_no_bonus_when_nobody_holds_two_homes():
    score = score_resorts(
        counts(3, home1=(1, 0, 0), home2=(0, 1, 0), home3=(0, 0, 1), home4=(2, 2, 0))
    )
    assert [p.bonus for p in score.players] == [0, 0, 0]
    assert [p.home_tiles for p in score.players] == [(1,), (2,), (3,)]


def test_tied_home_does_not_count_toward_bonus():
    score = score_resorts(counts(2, home1=(1, 0), home2=(2, 2), home3=(1, 1)))
    assert score.players[0].home_tiles == (1,) and score.players[0].bonus == 0


def test_tie_on_total_goes_to_lowest_star_home():
    # p0: home 1 (1) + red hotel (5) = 6; p1: home 5 (5) + second at the red hotel (1) = 6.
    score = score_resorts(counts(2, home1=(1, 0), home5=(0, 1), hotel_red=(2, 1)))
    assert score.totals == (6, 6)
    assert score.winners == (0,)


def test_tied_player_with_a_home_beats_tied_players_without():
    # p0: home 4 (4) + second at red (1) = 5; p1: red hotel (5), no home.
    score = score_resorts(counts(2, home4=(1, 0), hotel_red=(1, 2)))
    assert score.totals == (5, 5)
    assert score.winners == (0,)


def test_shared_draw_when_no_tied_player_holds_a_home():
    # p0 and p1 each win one hotel; p2 only a second place.
    score = score_resorts(counts(3, hotel_red=(2, 0, 1), hotel_blue=(0, 2, 0)))
    assert score.totals == (5, 5, 1)
    assert score.winners == (0, 1)
    assert r1_rewards(3, score.winners) == pytest.approx([0.25, 0.25, -0.5])


def test_lower_total_never_wins_through_the_tie_break():
    score = score_resorts(counts(2, home1=(1, 0), hotel_red=(0, 1)))
    assert score.totals == (1, 5)
    assert score.winners == (1,)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_r1_rewards(num_players):
    sole = r1_rewards(num_players, [0])
    assert sole[0] == pytest.approx(1.0)
    assert sum(sole) == pytest.approx(0.0)
    assert sole[1:] == pytest.approx([-1.0 / (num_players - 1)] * (num_players - 1))
    everyone = r1_rewards(num_players, list(range(num_players)))
    assert everyone == pytest.approx([0.0] * num_players)
