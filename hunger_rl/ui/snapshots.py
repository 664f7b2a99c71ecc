"""JSON snapshots of a game for the browser: everything a page draws, computed in Python.

``snapshot(game, env, viewer)`` describes the environment's current state. With ``viewer=None``
everything is revealed (a replay); with a seat it holds only what that player may know: for
Hungry its own hand and the public table (H5), for HUNGER: The Show the public counts and the
values of the tokens it remembers (S18); hidden values are ``null``.
"""

from __future__ import annotations

from typing import Any

from hunger_rl.envs.hunger_show.tokens import (
    CATEGORY_NAMES,
    LOCATION_NAMES,
    PILE_SIZES,
    RAFT,
    RAFT_KIND_NAMES,
)
from hunger_rl.envs.hungry.engine import (
    ACTION_RESORT,
    COLOURS,
    NUM_ACTIONS,
    NUM_RESORTS,
    card_name,
    describe_action,
    resort_name,
)
from hunger_rl.records import plain_json


def snapshot(game: str, env, viewer: int | None = None) -> dict[str, Any]:
    """The state of ``env`` (a ``hungry_v0`` raw env or a ``hunger_show_v0`` Parallel env)."""
    return hungry_snapshot(env, viewer) if game == "hungry" else show_snapshot(env, viewer)


def hungry_snapshot(env, viewer: int | None = None) -> dict[str, Any]:
    state = env.game
    n = state.num_players
    placed = state.placed.tolist()
    resorts = []
    for resort in range(NUM_RESORTS):
        cards = [[] for _ in range(n)]
        for player in range(n):
            for action in range(NUM_ACTIONS):
                if ACTION_RESORT[action] == resort:
                    cards[player] += [card_name(action // 2)] * placed[player][action]
        first, second = state.places[resort]
        resorts.append({"name": resort_name(resort), "cards": cards, "first": first,
                        "second": second})
    hands = []
    for player in range(n):
        if viewer is None or viewer == player:
            hands.append([card_name(t) for t, c in enumerate(state.hands[player].tolist())
                          for _ in range(c)])
        else:
            hands.append(None)
    history = state.history
    last = None
    if history:
        last = {"player": (state.current_player - 1) % n, "action": describe_action(history[-1])}
    score = state.score()
    return {
        "game": "hungry",
        "players": list(env.possible_agents),
        "play": len(history),
        "to_move": None if state.is_over else state.current_player,
        "last": last,
        "resorts": resorts,
        "hands": hands,
        "hand_sizes": state.hand_sizes.tolist(),
        "deck": len(state.deck),
        "removed": [card_name(c) for c in state.removed] if viewer is None else None,
        "scores": state.totals(),
        "winners": list(score.winners) if state.is_over else None,
        "colours": list(COLOURS),
    }


def _token(game, token: int, viewer: int | None) -> dict[str, Any]:
    category = game.category[token]
    kind = (RAFT_KIND_NAMES[game.raft_kind[token]] if category == RAFT
            else CATEGORY_NAMES[category])
    shown = viewer is None or game.knows(viewer, token)
    # ``known``: the seats that remember the value, as bits; for the replay's per-player views.
    return {"kind": kind, "value": game.value[token] if shown else None,
            "known": game.known[token] if viewer is None else None}


def show_snapshot(env, viewer: int | None = None) -> dict[str, Any]:
    game = env.game
    n = game.num_players
    locations = []
    for loc in range(1, game.config.num_locations):
        piles = []
        for kind in range(3):
            pile = game.piles[loc][kind]
            piles.append({"kind": CATEGORY_NAMES[kind], "size": PILE_SIZES[kind],
                          # Piles lie face down: their values are for the replay only.
                          "tokens": [_token(game, t, None)["value"] for t in reversed(pile)]
                          if viewer is None else None,
                          "count": len(pile)})
        locations.append({"name": LOCATION_NAMES[loc], "piles": piles})
    players = []
    for seat in range(n):
        holding = sorted(game.holdings[seat], key=lambda t: (game.category[t], t))
        counts = {name: 0 for name in CATEGORY_NAMES}
        for token in holding:
            counts[CATEGORY_NAMES[game.category[token]]] += 1
        key = game.ranking_key(seat) if game.alive[seat] else None
        players.append({
            "name": env.possible_agents[seat],
            "alive": game.alive[seat],
            "character": game.characters[seat],
            "tokens": [_token(game, t, viewer) for t in holding],
            "counts": counts,
            "ranking_key": list(key) if key and (viewer is None or viewer == seat) else None,
        })
    log = env.last_log
    return {
        "game": "hunger_show",
        "day": game.day,
        "leader": game.leader,
        "order": game.playing_order(),
        "locations": locations,
        "coconuts": len(game.coconuts),
        "events_left": len(game.deck),
        "players": players,
        "log": plain_json(log) if log is not None else None,
        "done": game.done,
        "winners": list(game.winners) if game.done else None,
        "ranking": ({env.possible_agents[p]: list(k) for p, k in sorted(game.final_keys.items())}
                    if game.done else None),
    }

