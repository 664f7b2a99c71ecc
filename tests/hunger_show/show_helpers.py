"""Builders shared by the hunger_show engine tests."""

from __future__ import annotations

from hunger_rl.engines.hunger_show.engine import ShowConfig, ShowGame
from hunger_rl.engines.hunger_show.tokens import CAMPSITE, CHARACTERS, FRUIT


def make_game(num_players, holdings=None, piles=None, coconuts=(2, 1, 0, 1, 1, 2),
              deck=("end",), leader=0, characters=None, decisions=None):
    """A game with a fixed Leader and deck; every player holds one can of 1 unless told."""
    holdings = {p: ["can1"] for p in range(num_players)} | dict(holdings or {})
    setup = {"leader": leader, "holdings": holdings, "piles": piles or {},
             "coconuts": list(coconuts), "event_deck": list(deck)}
    if characters:
        setup["characters"] = characters
    config = ShowConfig(num_players, characters=bool(characters))
    return ShowGame(config, seed=0, setup=setup, decisions=decisions)


def play(game, choices):
    """Play one day; players not in ``choices`` rest at the Campsite."""
    everyone = [choices.get(p, (CAMPSITE, FRUIT)) if game.alive[p] else None
                for p in range(game.num_players)]
    return game.play_day(everyone)


def held(game, seat):
    return sorted(game.describe_token(t) for t in game.holdings[seat])


def shrink_pile(game, loc, kind, keep):
    """Move all but the top ``keep`` tokens of a pile out of the game."""
    pile = game.piles[loc][kind]
    cut = len(pile) - keep
    game.out.extend(pile[:cut])
    del pile[:cut]


def characters_for(num_players, **given):
    """A different character per seat: ``p1="ninja"`` gives seat 1 the Ninja, the others the
    spare ones."""
    dealt = {int(seat[1:]): name for seat, name in given.items()}
    spare = [name for name in CHARACTERS if name not in dealt.values()]
    return [dealt.get(p) or spare.pop() for p in range(num_players)]
