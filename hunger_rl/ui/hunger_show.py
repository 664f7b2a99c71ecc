"""HUNGER: The Show in the viewer, the play server and the terminal mode (its ``UI_GAMES``
entry)."""

from __future__ import annotations

from typing import Any

from hunger_rl.engines.hunger_show.observation import decode_action
from hunger_rl.engines.hunger_show.tokens import (
    ACTION_NAMES,
    CATEGORY_NAMES,
    LOCATION_NAMES,
    PILE_SIZES,
    RAFT,
    RAFT_KIND_NAMES,
)
from hunger_rl.envs.records import plain_json


def _token(game, token: int, viewer: int | None) -> dict[str, Any]:
    category = game.category[token]
    kind = (RAFT_KIND_NAMES[game.raft_kind[token]] if category == RAFT
            else CATEGORY_NAMES[category])
    shown = viewer is None or game.knows(viewer, token)
    # ``known``: the seats that remember the value, as bits; for the replay's per-player views.
    return {"kind": kind, "value": game.value[token] if shown else None,
            "known": game.known[token] if viewer is None else None}


def snapshot(env, viewer: int | None = None) -> dict[str, Any]:
    """The state of a ``hunger_show_v0`` Parallel env; a viewer sees the public counts and the
    values of the tokens it remembers (S18)."""
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


def action_label(action: int) -> str:
    location, act = decode_action(action)
    return f"{ACTION_NAMES[act]} at the {LOCATION_NAMES[location]}"


def step_label(step: dict[str, Any], env) -> str:
    """What a recorded day did (``env`` is the game just after it)."""
    log = env.last_log
    eliminated = f", {', '.join(log['eliminated'])} eliminated" if log["eliminated"] else ""
    return f"day {log['day']}: event {log['event']}{eliminated}"


def board_text(snap: dict[str, Any], seat: int) -> str:
    """What the player at ``seat`` sees in ``snap`` (its own snapshot), as text."""
    lines = [f"Day {snap['day']}, coconuts {snap['coconuts']}, "
             f"event cards left {snap['events_left']}"]
    for location in snap["locations"]:
        lines.append(f"  {location['name']:<10} " + ", ".join(
            f"{pile['kind']} {pile['count']}" for pile in location["piles"]))
    for player in snap["players"]:
        tokens = " ".join(f"{t['kind']}{'?' if t['value'] is None else t['value']}"
                          for t in player["tokens"])
        status = "" if player["alive"] else " (eliminated)"
        lines.append(f"  {player['name']}{status}: {tokens}")
    log = snap["log"]
    if log:
        lines.append(f"Day {log['day']}: " + ", ".join(
            f"{p} {pick[1]}@{pick[0]}" for p, pick in log["choices"].items())
            + f"; event {log['event']}")
        if log["eliminated"]:
            lines.append("Eliminated: " + ", ".join(log["eliminated"]))
    return "\n".join(lines)
