"""# Hungry (``hungry_v0``)

| | |
|---|---|
| Import | `from hunger_rl.envs import hungry_v0` |
| API | AEC (turn-based) |
| Agents | `player_0` .. `player_{N-1}`, N = 2-4 |
| Actions | `Discrete(50)` |
| Observation | `Dict(observation=Box(float32, (51 + 53 N,)), action_mask=Box(0, 1, (50,), int8))` |
| Episode | exactly 48 plays (rulings H2, H4) |
| Reward | terminal only; R1 win share by default |

Each turn the player to move sends one tourist card from its hand to the card's holiday home
(its star count) or to the hotel of its colour, then draws while the deck lasts. After 48 plays
the ten resorts are scored by majority: a tie at any count voids that count and lets the next
player move up (H6); first place scores the home's stars or 5 at a hotel, second place 1 (H7); the
first player to hold two home tiles, scoring homes from 1 to 5 stars, gets 5 more (H8). Ties on
the total go to the tied player holding the lowest-star home, else they share a draw (H9).

## Actions
`action = 2 * card_type + destination`, with `card_type = 5 * colour + (stars - 1)`, colours in
the order red, blue, green, yellow, purple, and destination 0 = holiday home, 1 = hotel.
`encode_action`, `decode_action`, `card_type` and `describe_action` convert.
The mask marks both destinations of every card type in the mover's hand; a waiting agent's mask
is all zero.

## Observation
A float32 vector from the observer's seat: seat 0 is the observer, seat k is the player k turns
after it. `raw_env.observation_layout` (or `observation_layout(N)`) names the slices:

| slice | size | content |
|---|---|---|
| `hand` | 25 | the observer's cards per card type (0-2) |
| `placed` | 50 N | per seat, tourists placed per action index (card type x destination) |
| `hand_sizes` | N | cards in hand per seat |
| `deck_size` | 1 | cards left in the draw deck |
| `unseen` | 25 | per card type, copies not seen by the observer (other hands, deck, removed) |
| `scores` | N | each seat's total if the game ended now (public) |
| `to_move` | N | one-hot seat of the player to move (all zero at the end) |

Only public information and the observer's own hand are present (H5).

## State
`state()` is the whole game as a float32 vector by absolute seat (seat p is `player_p`),
hidden cards included, for a critic that may see everything (`state_space`, a Box;
`raw_env.state_layout` or `hunger_rl.engines.hungry.observation.state_layout(N)` names the
slices). No policy may read it: it holds the other hands.

| slice | size | content |
|---|---|---|
| `hands` | 25 N | per seat, its cards per card type |
| `placed` | 50 N | per seat, tourists placed per action index |
| `hand_sizes` | N | cards in hand per seat |
| `deck_size` | 1 | cards left in the draw deck |
| `deck` | 25 | per card type, its copies in the draw deck |
| `removed` | 25 | per card type, its copies among the two cards removed unseen |
| `scores` | N | each seat's total if the game ended now |
| `to_move` | N | one-hot seat of the player to move (all zero at the end) |

Left out: the order of the deck (which card comes when), the order of past plays and the
`tied_second` rule.

## Arguments
`env(num_players=2, render_mode=None, reward="win", first_player="player_0",
tied_second="next", illegal_action="raise", action_mask="observation")`
- `reward`: `"win"` is R1: `N/(N-1) * (w - 1/N)` with win share w (1 sole win, 1/k in a k-way
  draw), so a sole win is +1 and rewards sum to zero. `"score"`: (own total - mean of the other
  players' totals) / 10, also zero-sum.
- `first_player`: `"player_0"` (H3) or any agent name, or `"random"` (seeded by `reset`).
- `tied_second`: `"next"` (H6) or `"void"` (a tie right below first place gives no token).
- `illegal_action`: `"raise"` raises `IllegalActionError` naming the action and the legal ones,
  with the game unchanged; `"terminate"` ends the game with -1 for the offender
  (PettingZoo's `TerminateIllegalWrapper`).
- `render_mode`: `"ansi"` (text table), `"rgb_array"` (the same table as an image), `"human"`.
- `action_mask`: `"observation"` (the Dict above) or `"info"`: the observation is the flat
  `Box` alone and every agent's `info["action_mask"]` holds its mask (AgileRL, SuperSuit's
  Box-only wrappers).

`reset(seed=None, options=None)`: `options={"deck": [...]}` fixes the full 50-card order as card
types, top first; the first two are removed unseen, then 8 are dealt to each player in seat order.
`seed` is None or an integer >= 0; unknown option keys are ignored with a warning.

## Errors
Every refusal raises a subclass of `hunger_rl.engines.validation.InvalidInputError` before anything
changes (the game and the env's RNG are as before): `IllegalActionError` (a `ValueError`) for a
masked or out-of-range action, an action for a finished agent or a step after the end;
`ActionTypeError` (also a `TypeError`) for an action that is not an exact integer (`int`, NumPy
integer or 0-d integer array); `InvalidTypeError` / `InvalidValueError` for constructor
arguments, reset options and seeds, and `observe` of an unknown agent; `NotResetError` (a
`RuntimeError`) for `step`, `observe` or `render` before `reset`.

## Infos
At every step every agent's `info` has the same keys with scalar values, so that libraries that
batch infos (Tianshou's replay buffer, vector envs) can stack them: `score` (its total as if the
game ended now; the final total at the end) and `win_share` (0 until the end, then 1 for a sole
win, 1/k in a k-way draw), plus `action_mask` with `action_mask="info"`. The details live on
the unwrapped env: `winners` (agent names, several in a shared draw; [] before the end),
`totals` (per agent: its total), `breakdown` (per agent: home tiles, hotel tiles, second
places, bonus, total) and `game`.

## Version history
- `hungry_v0`: first release (rulings H1-H9, R1). Within v0 came exact argument types, the
  `action_mask` option and infos of fixed keys (winners and the breakdown moved from the final
  infos to env attributes), then `IllegalActionError` for a step after the end through `env()`
  (PettingZoo's wrapper only warned), and `state()` / `state_space` (the whole game, hidden
  cards included).
"""

import sys
from typing import Any, TextIO

import numpy as np
from pettingzoo import AECEnv

from hunger_rl.engines.hungry import DEFAULT_PLAYERS
from hunger_rl.engines.hungry.engine import (
    COLOURS,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    HungryState,
    IllegalActionError,
    card_colour,
    card_name,
    card_stars,
    card_type,
    decode_action,
    describe_action,
    encode_action,
)
from hunger_rl.engines.hungry.observation import observation_layout
from hunger_rl.engines.validation import ILLEGAL_ACTION_MODES, check_choice
from hunger_rl.envs.hungry.env import HungryEnv
from hunger_rl.envs.wrappers import OrderEnforcer, TerminateIllegal

__all__ = [
    "COLOURS",
    "NUM_ACTIONS",
    "NUM_CARD_TYPES",
    "HungryEnv",
    "HungryState",
    "IllegalActionError",
    "card_colour",
    "card_name",
    "card_stars",
    "card_type",
    "decode_action",
    "demo",
    "describe_action",
    "encode_action",
    "env",
    "observation_layout",
    "raw_env",
]


def raw_env(**kwargs: Any) -> HungryEnv:
    """The native AEC env, unwrapped (the options of the card)."""
    return HungryEnv(**kwargs)


def env(illegal_action: str = "raise", **kwargs: Any) -> AECEnv:
    """``raw_env`` in PettingZoo's standard wrappers.

    ``OrderEnforcingWrapper`` always (as ``OrderEnforcer``, raising ``NotResetError`` before
    ``reset``). ``AssertOutOfBoundsWrapper`` is left out: ``raw_env``
    already rejects a wrong type or range with an error that names the action.
    ``illegal_action="raise"`` (default) raises :class:`IllegalActionError` on a masked action,
    leaving the game unchanged; ``"terminate"`` follows PettingZoo's ``TerminateIllegalWrapper``:
    the game ends, the offender gets -1 and everybody else 0 (an action of the wrong type or
    range still raises).
    """
    check_choice(illegal_action, "illegal_action", ILLEGAL_ACTION_MODES)
    wrapped: AECEnv = raw_env(**kwargs)
    if illegal_action == "terminate":
        wrapped = TerminateIllegal(wrapped, illegal_reward=-1)
    return OrderEnforcer(wrapped)


def demo(num_players: int = DEFAULT_PLAYERS, seed: int = 0, out: TextIO | None = None) -> None:
    """Print one game of uniformly random legal plays, turn by turn, then the final table."""
    out = out if out is not None else sys.stdout
    game_env = raw_env(num_players=num_players, render_mode="ansi")
    game_env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    print(game_env.render(), file=out)
    for agent in game_env.agent_iter():
        observation, _, termination, truncation, _ = game_env.last()
        if termination or truncation:
            game_env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        print(f"{agent}: {describe_action(action)}", file=out)
        game_env.step(action)
    print(game_env.render(), file=out)
