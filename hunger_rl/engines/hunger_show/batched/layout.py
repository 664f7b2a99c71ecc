"""Batched HUNGER's tables: tokens, characters and event cards as arrays compiled code
indexes, the layout of a show's row, and the named blocks of the day's scratch.

Every field of one show lives in one int16 row of ``BatchedShow.games`` (offsets below, sized
for 6 players); its Mersenne Twister state lives in a row of ``BatchedShow.mt`` (``twister``).
"""

from __future__ import annotations

import numpy as np

from hunger_rl.engines.hunger_show import MAX_PLAYERS
from hunger_rl.engines.hunger_show.tokens import (
    CHARACTERS,
    EVENT_CARD_NAMES,
    PILE_EVENTS,
    PILE_SIZES,
    RAT_PLAGUE,
    UNPLEASANT_CARDS,
    parse_card,
    token_table,
)

CATEGORY, VALUE, RAFT_KIND, _ = (np.array(t, np.int64) for t in token_table(MAX_PLAYERS))
MAX_TOKENS = len(CATEGORY)
FRUIT, CHICKEN, RAFT, CAN, COCONUT = range(5)
FOOD = np.where(CATEGORY != RAFT, VALUE, 0)  # by token: its food value, rope and log units
ROPE = np.where((CATEGORY == RAFT) & (RAFT_KIND == 0), VALUE, 0)
LOG = np.where((CATEGORY == RAFT) & (RAFT_KIND == 1), VALUE, 0)
THIEF, GUARD = 3, 4
CONNOISSEUR, EAGLE_EYE, RAPTOR, SWEET, ARNOLD, NINJA = range(6)
assert CHARACTERS[NINJA] == "ninja" and CHARACTERS[ARNOLD] == "arnold"
# The pile kind each drawing specialist works on (S20), by character index; -1 for none.
SPECIALTY = np.array([-1, RAFT, CHICKEN, FRUIT, -1, -1], np.int64)

CALM_CARD = EVENT_CARD_NAMES.index("calm")
END_CARD = EVENT_CARD_NAMES.index("end")
NO_EVENT = -1
UNPLEASANT = np.array([EVENT_CARD_NAMES.index(c) for c in UNPLEASANT_CARDS], np.int64)
CARD_PILE = np.array([PILE_EVENTS.get(parse_card(c)[0], -1) for c in EVENT_CARD_NAMES], np.int64)
CARD_SIZE = np.array([parse_card(c)[1] for c in EVENT_CARD_NAMES], np.int64)
CARD_RAT = np.array([parse_card(c)[0] == RAT_PLAGUE for c in EVENT_CARD_NAMES], np.bool_)
END_CONDITIONS = ("A", "B", "C")
DECK_MAX = len(UNPLEASANT_CARDS) + 10 + 1
PILE_MAX = max(PILE_SIZES)
NUM_COCONUTS = int(np.sum(CATEGORY == COCONUT))

# Offsets into a show's int16 row.
HOLD = 0  # [seat * MAX_TOKENS + i]: the seat's holding, in order
HOLD_N = HOLD + MAX_PLAYERS * MAX_TOKENS  # [seat]
PILE = HOLD_N + MAX_PLAYERS  # [(loc * 3 + kind) * PILE_MAX + i]: bottom first
PILE_N = PILE + 4 * 3 * PILE_MAX  # [loc * 3 + kind]
STACK = PILE_N + 4 * 3  # coconut stack, bottom first
STACK_N = STACK + NUM_COCONUTS
DECK = STACK_N + 1  # event cards, bottom first (top at DECK + DECK_N - 1)
DECK_N = DECK + DECK_MAX
KNOWN = DECK_N + 1  # [token]: bit p set when player p remembers its value (S18)
ALIVE = KNOWN + MAX_TOKENS  # [seat]
CHARACTER = ALIVE + MAX_PLAYERS  # [seat]: index into CHARACTERS, -1 when off
LAST_LOC = CHARACTER + MAX_PLAYERS  # [seat]: last (location, action), -1 before the first day
LAST_ACT = LAST_LOC + MAX_PLAYERS
RAFT_SETS = LAST_ACT + MAX_PLAYERS  # [seat]: raft sets at the last step (shaped reward)
LEADER = RAFT_SETS + MAX_PLAYERS
DAY = LEADER + 1
LAST_EVENT = DAY + 1
DONE = LAST_EVENT + 1
ROW_SIZE = DONE + 1
# The day's scratch: int64 arrays that batch._step_all allocates once per call, not per show, and
# the day's functions pass on: ``work``, ``spare`` and ``tokens`` (a copy of one holding, or a
# meal), in named blocks.
# Blocks of ``work`` in a location's day (day.resolve_location):
LOCATION_GROUPS = 0  # [act]: players here by act
LOCATION_LOOT = LOCATION_GROUPS + 8  # the tokens gathered here today (at most 2 kept each)
LOCATION_OWNERS = LOCATION_LOOT + 16  # [i]: who gathered loot i
LOCATION_PRESENT = LOCATION_OWNERS + 16  # [seat]: 1 where the seat gathered here
LOCATION_DRAWN = LOCATION_PRESENT + MAX_PLAYERS  # one gatherer's draw (a specialist's extra too)
LOCATION_THIEVES = LOCATION_DRAWN + 4  # the thieves here, in playing order (2 at most)
LOCATION_GUARDS = LOCATION_THIEVES + 2  # the guards here (2 at most)
LOCATION_GIVERS = LOCATION_GUARDS + 2  # [i]: who gives a guard a token
LOCATION_REMAINING = 64  # [i]: the loot not taken yet, after the blocks above
# ... and at the Campsite (day._resolve_campsite):
CAMPSITE_THIEVES = 0
CAMPSITE_GUARDS = MAX_PLAYERS
CAMPSITE_GIVERS = 2 * MAX_PLAYERS
WORK_SIZE = LOCATION_REMAINING + MAX_TOKENS
# Blocks of ``spare``: a catch's candidates from 0, then the tokens a Ninja hid (day._catch); a
# campsite theft's victims by sort key, their keys, the stolen tokens and their owners
# (day._campsite_theft); supper's flags by seat of who starves (day.play_day).
SPARE_HIDDEN = MAX_TOKENS
THEFT_VICTIMS = 0
THEFT_KEYS = MAX_PLAYERS
THEFT_STOLEN = 2 * MAX_PLAYERS
THEFT_OWNERS = 3 * MAX_PLAYERS
SPARE_SIZE = SPARE_HIDDEN + 4
TOKENS_SIZE = MAX_TOKENS + 4
assert LOCATION_GIVERS + MAX_PLAYERS <= LOCATION_REMAINING
# An observation's scratch (observe.observe): packed public counts and playing positions.
SCRATCH_SIZE = 2 * MAX_PLAYERS
