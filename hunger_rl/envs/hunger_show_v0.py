"""# HUNGER: The Show (``hunger_show_v0``)

| | |
|---|---|
| Import | `from hunger_rl.envs import hunger_show_v0` |
| API | Parallel (simultaneous): `hunger_show_v0.parallel_env(**kwargs)`; AEC view `env(**kwargs)` |
| Agents | `player_0` .. `player_{N-1}`, N = 2-6 (S1) |
| Actions | `Discrete(20)` |
| Observation | `Dict(observation=Box(-1, 1000, (L,)), action_mask=Box(0, 1, (20,), int8))` |
| Episode | until The End of the Show, nobody surviving supper, or one survivor (S16) |
| Reward | R1 win share by default, or `"shaped"` |

Every day all living players pick a location and an action at once; the engine resolves the
day (rulings S6-S16, read as S21a-h) and every other choice is made by a per-player decision
object (S19; the Ninja per S21i). A day is atomic (S21j).

## Actions
`action = 5 * location + act` with locations 0 campsite, 1 beach, 2 jungle, 3 mountains and
acts 0 fruit, 1 chicken, 2 raft, 3 thief, 4 guard (`encode_action` / `decode_action`). The
mask allows every pair whose location is in play (S6): 10 actions with 2 players, 15 with 3-4,
20 with 5-6. Gathering at the Campsite is a legal rest. Eliminated and finished agents get an
all-zero mask.

## Observation
`observation_layout(N)` (also `env.observation_layout`) names the slices. Per-player blocks
start with the observer and go round to its left (seat s, s+1, ... mod N).

| slice | size | content |
|---|---|---|
| `own_cans` | 4 | own cans of value 1, 2, 3, 4 (any colour) |
| `own_fruit` | 2 | own fruit of value 2, 3 |
| `own_chicken` | 3 | own chicken of value 1, 2, 4 |
| `own_rope` | 2 | own rope tokens of 1, 2 units |
| `own_log` | 2 | own log tokens of 1, 2 units |
| `own_coconuts` | 3 | own coconuts of value 0, 1, 2 |
| `own_raft_units` | 2 | own rope units, log units |
| `token_counts` | 5N | each player's token count: fruit, chicken, raft, can, coconut |
| `alive` | N | 1 if the player is still in the show |
| `leader` | N | one-hot of the Leader |
| `playing_order` | N | position in the playing order (0 = Leader), -1 if eliminated |
| `day` | 1 | days played so far |
| `piles` | 9 | tokens left: beach, jungle, mountains x fruit, chicken, raft |
| `coconuts_left` | 1 | coconut stack size |
| `events_left` | 1 | event cards left in the deck (The End of the Show included) |
| `last_event` | 10 | one-hot of yesterday's event card (`EVENT_CARD_NAMES`) |
| `last_choices` | 9N | each player's pick yesterday: one-hot location (4), act (5); or zeros |
| `known_values` | 11(N-1) | per other player, its tokens whose value the observer remembers (*) |
| `character` | 7 | one-hot: no character, then `CHARACTERS` order (S20) |

The observation is float32. (*) Per other player, over the tokens it holds whose value the
observer remembers (S18): the count of fruit, chicken, raft, can, coconut; the value sums of
fruit, chicken, rope units, log units, can, coconut.

## State
`state()` is the whole show as a float32 vector by absolute seat (seat s is `player_s`),
hidden tokens included, for a critic that may see everything (`state_space`, a Box;
`env.state_layout` or `hunger_rl.engines.hunger_show.observation.state_layout(N)` names the
slices). The Parallel env, its AEC view and the full-decision env give the same vector. First
every seat's observation blocks, each once (an observation is a gather of this part):

| slice | size | content |
|---|---|---|
| `holdings` | 18N | per seat, `own_cans` .. `own_coconuts` (16), `own_raft_units` (2) |
| `token_counts` | 5N | as in the observation, by absolute seat |
| `alive`, `leader`, `playing_order` | N each | as in the observation |
| `last_choices` | 9N | as in the observation |
| `known_values` | 11N² | per observer, per holder: `known_values`' 11 fields (0 if same) |
| `character` | 7N | per seat, one-hot as `character` |
| `day` .. `last_event` | 22 | `day`, `piles`, `coconuts_left`, `events_left`, `last_event` |

then what nobody sees:

| slice | size | content |
|---|---|---|
| `pile_contents` | 27 | per location (beach, jungle, mountains) its tokens by class (*) |
| `coconut_stack` | 3 | the stack's coconuts of value 0, 1, 2 |
| `event_deck` | 10 | cards left per `EVENT_CARD_NAMES` |
| `end_position` | 1 | The End of the Show's place in the deck, 1 = tomorrow; 0 if absent |
| `out` | 16 | the box (unused, eaten, removed tokens) by the classes of `holdings` |

(*) fruit 2, 3, chicken 1, 2, 4, rope 1, 2, log 1, 2. Left out: the order of the piles, the
stack and the deck (but for the End), token ids and can colours, the RNG, the decision objects
and a pending full-decision choice.

## Arguments
`parallel_env(num_players=4, events="standard", deck_size=10, unpleasant=None, end_window=4,
characters=False, decisions=None, reward="r1", render_mode=None, illegal_action="raise",
action_mask="observation", eliminated="leave")`
- `num_players`: 2-6. `events`: preset "calm" (k=0), "standard" (k=4), "hard" (k=8);
  `deck_size` (10), `unpleasant` (k, None takes the preset), `end_window` (4) (S4).
- `characters`: True deals S20 characters.
- `decisions`: per-player decision objects, a map from agent name (or seat) or a list, default
  `DefaultDecisions` (S19).
- `reward`: "r1" or "shaped" (below).
- `render_mode`: "ansi" (text), "rgb_array" (that text drawn as an HxWx3 uint8 image) or
  "human" (prints the text).
- `illegal_action`: "raise" (default, see Errors) or "terminate": a masked action of a live
  agent ends the game at once with -1 for each offender and 0 for every other agent, nothing
  played (as PettingZoo's `TerminateIllegalWrapper`, which `env(illegal_action="terminate")`
  puts on the AEC view).
- `action_mask`: "observation" (the Dict above) or "info": the observation is the `Box` alone
  and every agent's `info["action_mask"]` holds its mask.
- `eliminated`: "leave" (PettingZoo's convention, see Episode) or "stay" (see Elimination
  mode "stay"). The Parallel env's default is "leave"; the AEC view's (`env()`, `raw_env()`)
  is "stay", what the turn-based libraries the view exists for need as they are: Tianshou's
  `PettingZooEnv` ends the episode when the agent to move has terminated, TorchRL's AEC path
  samples every agent's turn from its mask, and SuperSuit's vector envs need a constant set
  of agents; with "leave" the first would stop at the first elimination with returns that do
  not sum to zero, the second would fail on an empty mask.
- Counts must be exact integers (NumPy integers are accepted) and `characters` a bool;
  nothing is rounded or converted.

## Rewards
"r1": R1 only. A player eliminated while the show goes on gets `-1/(N-1)` on the step it
leaves; when the show ends every agent of that step gets `N/(N-1) * (w - 1/N)` with w its win
share. Rewards of a game sum to zero. "shaped": R1 plus `0.1 * (d - mean d)` each step, d
being an agent's change in raft sets that day and the mean taken over that step's agents (the
sum stays zero).

## AEC view
`env()` (eliminated players stay by default, see Arguments) is PettingZoo's `parallel_to_aec`
form of the Parallel env: turns in seat order, the day played at the last agent's step, each
action checked as it arrives. PettingZoo's `aec_to_parallel(env(...))` gives back the Parallel
env itself, with the view's options, its speed and its attributes. `env.unwrapped` is the
view's turn state (`ShowAECState`); its Parallel env's attributes (`game`, `winners`...) read
through.

## Episode
An eliminated player leaves `agents` on the step it starves, with `terminated=True`; later
action dicts may still hold an action for it: it is ignored, as PettingZoo's conversion
wrappers ignore extra keys (in the AEC view it is stepped with None, as usual). The show
ends (all agents terminated, none truncated) on The End of the Show (A), when nobody survives
supper (B) or one player survives (C) (S16).

## Elimination mode "stay"
An eliminated player stays in `agents` (`terminated=False`) until the show ends, when every
agent terminates at once. Its observation is the ordinary one from its seat (its own tokens
empty, `alive` 0 at its seat); its reward is 0 after the `-1/(N-1)` of the step it starves;
its mask allows only `NOOP_ACTION` (0), which the env ignores, so a masked distribution is
never empty. Any other action of an eliminated player is a masked action. Once the show is over
every mask is that no-op too. Live players and rewards are exactly as in "leave".

## Full-decision mode (`decision_mode="agents"`)
`hunger_show_v0.env(num_players=N, decision_mode="agents")` (also `raw_env`) makes every
S19 choice a step of the agent concerned (the default `decision_mode="objects"` keeps the
decision objects above, and everything in this card outside this section). It is a native AEC
env (`ShowFullDecisionEnv`):

- Each day the living agents pick in seat order; the picks stay with the env until the last
  one is in, and no observation shows a pick of the day before the day resolves, so the picks
  stay simultaneous. Then the engine resolves the day (`ShowGame.start_day` / `choose`) and
  stops at every choice, which becomes a step of the agent concerned, in the order the rules
  resolve them (S7). Agents that have nothing to decide get an all-zero mask.
- There is no Parallel form: after the picks each step belongs to one agent and depends on the
  steps before it, so a Parallel step would carry one action and N-1 placeholders;
  `parallel_env(decision_mode="agents")` raises and says so.
- Action space `Discrete(48)` (`hunger_rl.engines.hunger_show.full_decisions`; `describe_action`
  names an action): 0-19 the daily pick `5 * location + act`; 20-35 a token of a class whose
  value the chooser knows (can 1-4, fruit 2-3, chicken 1/2/4, rope 1-2, log 1-2, coconut 0-2);
  36-40 a token whose value it does not know, by category (fruit, chicken, raft, can, coconut;
  the engine draws one of those at random, seeded); 41-45 a player by seat relative to the
  chooser (41 = its left neighbour); 46 / 47 a rejected draw to the bottom / top of its pile.
- Steps (`STEP_KINDS`): `take` (a thief's share of the loot, a guard's take from a caught
  thief, a rat-plague removal, Arnold's pick of a gift, each token a Campsite thief steals),
  `steal_from` (the victim of a free Campsite thief's next token: a lone thief names a victim
  twice, so it robs one player of 2 or two of 1), `pick_thief`, `pick_guard`, `gift`,
  `supper` (one food token at a time until the meal is worth at least 4; the mask allows only
  tokens that can still end in a meal with no superfluous token), `reject` then
  `reject_place` (Eagle eye, Raptor, Sweet) and `ninja_hide` (2 tokens, one a step).
- Observation `{"observation", "action_mask" (48,), "rule_action" (48,)}`; the vector is the
  default one followed by the pending step (`full_observation_layout(N)`):
  `decision_kind` (10, one-hot of `STEP_KINDS`, "pick" for the daily pick),
  `offered` (21, the tokens on offer by class as the chooser sees them: the thief's loot or
  victim's tokens, the guard's catch, its own food at supper), `chosen` (21, tokens chosen
  earlier in this choice, e.g. eaten so far), `remaining` (1: tokens still to steal or hide,
  food value still due at supper), `counterpart` (N, one-hot by relative seat of the player
  robbed, taken from or given to; slot 0 when none). `rule_action` is the one-hot of the
  action the S19 rules take in this step (zero at the pick); it reads only what the chooser
  knows. Choosing it at every step replays the default-mode game exactly.
- Rewards, terminations and infos as in the default mode, given when the day ends; an
  eliminated agent is then stepped with None, as usual in AEC. `decisions` must be None.

## Infos
Every step, every agent's info has the same keys with scalar values, so that libraries that
batch infos can stack them: `day` (days played) and `win_share` (0 until the end, then 1 for
a sole winner, 1/k in a k-way draw), plus `action_mask` with `action_mask="info"`. The
details are env attributes (on the Parallel env; the AEC view reads them through):
`last_log`, the last day's public log (choices, token movements `(category, from, to,
reason)`, event, supper payments, eliminations, end); `winners` (names, [] before the end);
`ranking_keys`: per ranked player (raft sets, leftover raft units, food value) (S17);
`game`, the engine. With the rules' decisions, the R1 reward and no reset options, a show is
played by compiled code with the same outcomes until `game` or `last_log` is first read: the
engine then replays it up to that day and plays the rest.

## Reset options
`reset(seed=..., options={...})`, all keys optional (a key set to None counts as absent);
players are `"player_i"` or seat ints, each named once; `seed` is None or an integer >= 0:
- `leader`: the first Leader.
- `piles`: `{"beach": {"fruit": [3, 3], "chicken": [4], "raft": ["rope2", "log1"]}, ...}`,
  tokens top first; the listed tokens lie on top, the rest of the pile is dealt at random.
- `coconuts`: coconut values top first, on top of the shuffled rest of the stack.
- `event_deck`: the whole deck top first, card names in `EVENT_CARD_NAMES` (e.g.
  "typhoon-1", "rat_plague-2", "calm", "end"); a deck that runs out ends the show.
- `characters`: `{"player_0": "ninja", ...}` or a list, needs `characters=True`.
- `holdings`: `{"player_0": ["can4", "fruit3", "rope2", "coconut1"], ...}` replaces that
  player's starting cans (cans come from its own colour).

Tokens come from the physical supply: asking for more than exists is refused. Lists must be
lists (a string is not read letter by letter) and maps must be dicts. The options are checked
as a whole before anything changes; errors name the key path and what was expected, e.g.
`options["holdings"]["player_0"]: expected a list of token names, got str 'can4'`. Unknown
keys are ignored with a warning.

## Errors
Every refusal raises a subclass of `hunger_rl.engines.validation.InvalidInputError` before
anything changes: the game, its RNG and the RNG that seeds unseeded resets are exactly as
before, in both APIs, and the game goes on.
- `IllegalActionError` (a `ValueError`): `step` with a masked action (unless
  `illegal_action="terminate"`) or an out-of-range action, a missing action for a living
  agent, an unknown agent name, a non-None action for an agent that has left (AEC view), or a
  step after the end. `ActionTypeError` (also a `TypeError`) when an action is not an exact
  integer (`int`, NumPy integer or 0-d integer array; floats, bools, None, strings, `Decimal`
  ... are refused) or `step` of the Parallel env gets no dict.
- `InvalidTypeError` / `InvalidValueError` (`TypeError` / `ValueError`): constructor
  arguments, reset options and seeds, `observe` of an unknown agent. `RuleError` is the
  engine's `InvalidValueError`.
- `DecisionError` (a `RuleError`): a decision object answered with a choice the rules do not
  allow, or raised; the day is undone (S21j).
- `NotResetError` (a `RuntimeError`): `step`, `observe` or `render` before `reset`.

## Version history
- `hunger_show_v0`: first release (rulings S1-S21, R1). Within v0 came exact argument types,
  atomic days (S21j), the Ninja of S21i, and the `illegal_action`, `action_mask` and
  `eliminated` options with infos of fixed keys (the day log, winners and ranking keys moved
  from the infos to env attributes); then the AEC view's default `eliminated="stay"`, its
  `aec_to_parallel` giving back the Parallel env, `IllegalActionError` for a step after
  the end through `env()` (PettingZoo's wrapper only warned), and `state()` / `state_space`
  (the whole show, hidden tokens included).
"""

from __future__ import annotations

import random
import sys
from typing import Any, TextIO

from pettingzoo import AECEnv

from hunger_rl.engines.hunger_show import DEFAULT_PLAYERS
from hunger_rl.engines.hunger_show.decisions import DefaultDecisions
from hunger_rl.engines.hunger_show.engine import ShowConfig, ShowGame, day_log_text
from hunger_rl.engines.hunger_show.full_decisions import describe_action
from hunger_rl.engines.hunger_show.observation import (
    action_name,
    decode_action,
    encode_action,
    full_observation_layout,
    legal_mask,
    observation_layout,
)
from hunger_rl.engines.hunger_show.tokens import CHARACTERS, EVENT_CARD_NAMES
from hunger_rl.engines.validation import IllegalActionError, check_choice
from hunger_rl.envs.hunger_show.env import (
    AEC_ELIMINATED_DEFAULT,
    ILLEGAL_ACTION_MODES,
    NOOP_ACTION,
    ShowAECState,
    ShowAECView,
    ShowParallelEnv,
)
from hunger_rl.envs.hunger_show.full_env import ShowFullDecisionEnv
from hunger_rl.envs.wrappers import OrderEnforcer, TerminateIllegal

__all__ = [
    "CHARACTERS", "EVENT_CARD_NAMES", "NOOP_ACTION", "DefaultDecisions", "IllegalActionError",
    "ShowAECState", "ShowAECView", "ShowConfig", "ShowFullDecisionEnv", "ShowGame",
    "ShowParallelEnv", "action_name", "day_log_text", "decode_action", "demo", "describe_action",
    "encode_action", "env", "full_observation_layout", "legal_mask", "observation_layout",
    "parallel_env", "raw_env",
]


def parallel_env(**kwargs: Any) -> ShowParallelEnv:
    """The native Parallel env (the options of the card)."""
    return ShowParallelEnv(**kwargs)


def raw_env(**kwargs: Any) -> AECEnv:
    """The AEC env: the view of the Parallel env (``eliminated="stay"`` unless told otherwise,
    ``AEC_ELIMINATED_DEFAULT``), or with ``decision_mode="agents"`` the full-decision env."""
    if kwargs.get("decision_mode", "objects") == "agents":
        return ShowFullDecisionEnv(**kwargs)
    return ShowAECView(ShowParallelEnv(**{"eliminated": AEC_ELIMINATED_DEFAULT, **kwargs}))


def env(illegal_action: str = "raise", **kwargs: Any) -> OrderEnforcer:
    """The AEC view in PettingZoo's standard wrappers. ``illegal_action="terminate"`` adds
    ``TerminateIllegal`` (PettingZoo's ``TerminateIllegalWrapper``): a masked action ends the
    game at once with -1 for the offender and 0 for everybody else."""
    check_choice(illegal_action, "illegal_action", ILLEGAL_ACTION_MODES)
    view: AECEnv = raw_env(**kwargs)
    if illegal_action == "terminate":
        view = TerminateIllegal(view, illegal_reward=-1)
    return OrderEnforcer(view)


def demo(num_players: int = DEFAULT_PLAYERS, seed: int = 0, out: TextIO | None = None) -> None:
    """Print one game of uniformly random legal picks, day by day."""
    out = out or sys.stdout
    game_env = parallel_env(num_players=num_players, render_mode="ansi")
    observations, _ = game_env.reset(seed=seed)
    rng = random.Random(seed)
    print(game_env.render(), file=out)
    while game_env.agents:
        actions = {}
        for agent in game_env.agents:
            legal = observations[agent]["action_mask"].nonzero()[0]
            actions[agent] = int(legal[rng.randrange(len(legal))])
        observations, rewards, *_ = game_env.step(actions)
        print("", file=out)
        print(game_env.render(), file=out)
    print("", file=out)
    print("Rewards: " + ", ".join(f"{a} {r:+.2f}" for a, r in rewards.items()), file=out)

