"""Hungry in the viewer, the play server and the terminal mode (its ``UI_GAMES`` entry)."""

from __future__ import annotations

from typing import Any

from hunger_rl.engines.hungry.engine import (
    ACTION_RESORT,
    COLOURS,
    NUM_ACTIONS,
    NUM_RESORTS,
    card_name,
    describe_action,
    resort_name,
)


def snapshot(env, viewer: int | None = None) -> dict[str, Any]:
    """The state of a ``hungry_v0`` raw env; a viewer sees its own hand and the public table
    (H5)."""
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


def step_label(step: dict[str, Any], env) -> str:
    """What a recorded play did (``env`` is the game just after it)."""
    return f"{step['agent']} plays {describe_action(step['action'])}"


def board_text(snap: dict[str, Any], seat: int) -> str:
    """What the player at ``seat`` sees in ``snap`` (its own snapshot), as text."""
    lines = [f"Play {snap['play']} of 48, deck {snap['deck']}. Scores: "
             + ", ".join(f"{name} {score}" for name, score
                         in zip(snap["players"], snap["scores"], strict=True))]
    for resort in snap["resorts"]:
        counts = " ".join(f"{len(cards)}" for cards in resort["cards"])
        lines.append(f"  {resort['name']:<14} tourists by player: {counts}")
    lines.append("Your hand: " + " ".join(snap["hands"][seat] or []))
    if snap["last"]:
        lines.append(f"Last: player_{snap['last']['player']} played {snap['last']['action']}")
    return "\n".join(lines)
