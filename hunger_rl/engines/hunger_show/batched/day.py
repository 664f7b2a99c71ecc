"""A day of a show (S6-S16): the Campsite, the other locations, the event, supper,
eliminations and the end conditions, from each living seat's action.
"""

from __future__ import annotations

import numpy as np

from hunger_rl.engines.compiled import at, jit
from hunger_rl.engines.hunger_show.batched.decisions import gift, ninja_hide, supper, take
from hunger_rl.engines.hunger_show.batched.holdings import (
    append,
    holding,
    playing_order,
    ranking_key,
    remove,
    rope_log,
    sets_units,
    transfer,
)
from hunger_rl.engines.hunger_show.batched.layout import (
    ALIVE,
    ARNOLD,
    CAMPSITE_GIVERS,
    CAMPSITE_GUARDS,
    CAMPSITE_THIEVES,
    CARD_PILE,
    CARD_RAT,
    CARD_SIZE,
    CATEGORY,
    CHARACTER,
    CONNOISSEUR,
    DAY,
    DECK,
    DECK_N,
    DONE,
    END_CARD,
    GUARD,
    HOLD,
    HOLD_N,
    KNOWN,
    LAST_ACT,
    LAST_EVENT,
    LAST_LOC,
    LEADER,
    LOCATION_DRAWN,
    LOCATION_GIVERS,
    LOCATION_GROUPS,
    LOCATION_GUARDS,
    LOCATION_LOOT,
    LOCATION_OWNERS,
    LOCATION_PRESENT,
    LOCATION_REMAINING,
    LOCATION_THIEVES,
    LOG,
    MAX_PLAYERS,
    MAX_TOKENS,
    NINJA,
    PILE,
    PILE_MAX,
    PILE_N,
    RAFT,
    RAFT_KIND,
    ROPE,
    SPARE_HIDDEN,
    SPECIALTY,
    STACK,
    STACK_N,
    THEFT_KEYS,
    THEFT_OWNERS,
    THEFT_STOLEN,
    THEFT_VICTIMS,
    THIEF,
    VALUE,
)
from hunger_rl.engines.hunger_show.tokens import NUM_ACTIONS


@jit
def _location_act(choice):
    """(location, act) of a choice 5 * location + act, divided unsigned (a choice is never
    negative): no floor correction for negative dividends, and both known non-negative."""
    unsigned = np.uint64(choice)
    return (np.int64(unsigned // np.uint64(NUM_ACTIONS)),
            np.int64(unsigned % np.uint64(NUM_ACTIONS)))


@jit
def _draw_coconuts(row, players, count_players, each):
    for i in range(count_players):
        p = players[i]
        count = each + (row[CHARACTER + p] == CONNOISSEUR)
        for _ in range(min(count, row[STACK_N])):
            row[STACK_N] -= 1
            token = np.int64(row[STACK + row[STACK_N]])
            append(row, p, token)
            row[KNOWN + token] |= 1 << p


@jit
def _gather(row, loc, kind, player, quota, drawn):
    """Draw up to ``quota`` tokens (a specialist one more, then returns one to the bottom:
    S20, S21f) into ``drawn``; returns how many were kept."""
    base = PILE + (loc * 3 + kind) * PILE_MAX
    size_at = PILE_N + loc * 3 + kind
    extra = SPECIALTY[row[CHARACTER + player]] == kind if row[CHARACTER + player] >= 0 else False
    count = min(quota + extra, row[size_at])
    for i in range(count):
        row[size_at] -= 1
        drawn[i] = row[base + row[size_at]]
        row[KNOWN + drawn[i]] |= 1 << player
    if count > quota:
        rejected = drawn[0]
        if CATEGORY[drawn[0]] == RAFT:  # the units of holding and draw without drawn[i]
            rope, log = rope_log(row, HOLD + player * MAX_TOKENS,
                                  np.int64(row[HOLD_N + player]), np.int64(-1))
            for i in range(count):
                rope += ROPE[drawn[i]]
                log += LOG[drawn[i]]
            best_sets, best_units = -1, -1
            for i in range(count):
                if RAFT_KIND[drawn[i]] == 0:
                    sets, left = sets_units(rope - VALUE[drawn[i]], log)
                else:
                    sets, left = sets_units(rope, log - VALUE[drawn[i]])
                if sets > best_sets or (sets == best_sets and 2 * sets + left > best_units):
                    rejected, best_sets, best_units = drawn[i], sets, 2 * sets + left
        else:
            for i in range(1, count):
                if VALUE[drawn[i]] < VALUE[rejected]:
                    rejected = drawn[i]
        kept = 0
        for i in range(count):
            if drawn[i] != rejected:
                drawn[kept] = drawn[i]
                kept += 1
        for i in range(row[size_at], 0, -1):
            row[base + i] = row[base + i - 1]
        row[base] = rejected
        row[size_at] += 1
        count = kept
    for i in range(count):
        append(row, player, drawn[i])
    return count


@jit
def _catch(row, mt, b, guards, num_guards, thieves, num_thieves, spare, tokens):
    """Guards take from caught thieves (S11); a Ninja hides 2 tokens first (S20, S21i).
    Scratch: ``spare`` holds the candidates, then the hidden tokens (from MAX_TOKENS)."""
    hidden = SPARE_HIDDEN
    num_hidden = np.int64(0)
    for t in range(num_thieves):
        if row[CHARACTER + thieves[t]] == NINJA:
            num_hidden += ninja_hide(row, thieves[t], spare, hidden + num_hidden, tokens)
    candidates = spare
    if num_guards == 1:
        for t in range(num_thieves):
            for _ in range(2 if num_thieves == 1 else 1):
                count = _takeable(row, thieves[t], hidden, num_hidden, candidates)
                if count:
                    token = take(row, mt, b, guards[0], candidates, count)
                    transfer(row, token, thieves[t], guards[0])
        return
    for position in range(num_guards):
        guard = guards[position]
        thief = thieves[0]
        if num_thieves == 2:  # pick_thief: the thief in the guard's position, else one with loot
            thief = thieves[min(position, 1)]
            if not _takeable(row, thief, hidden, num_hidden, candidates):
                for t in range(2):
                    if _takeable(row, thieves[t], hidden, num_hidden, candidates):
                        thief = thieves[t]
                        break
        count = _takeable(row, thief, hidden, num_hidden, candidates)
        if count:
            token = take(row, mt, b, guard, candidates, count)
            transfer(row, token, thief, guard)


@jit
def _takeable(row, thief, hidden, num_hidden, out):
    """The thief's tokens not hidden (``out[hidden:hidden + num_hidden]``) into ``out``."""
    count = 0
    base = HOLD + thief * MAX_TOKENS
    for i in range(row[HOLD_N + thief]):
        token = row[base + i]
        shown = True
        for h in range(hidden, hidden + num_hidden):
            if out[h] == token:
                shown = False
        if shown:
            out[count] = token
            count += 1
    return count


@jit
def _gifts(row, mt, b, givers, num_givers, guards, num_guards, tokens):
    """Each giver hands one token to a guard (S11, S12); Arnold picks it (S20)."""
    for i in range(num_givers):
        giver = givers[i]
        if row[HOLD_N + giver] == 0:
            continue
        guard = guards[0]
        if num_guards == 2 and row[HOLD_N + guards[1]] < row[HOLD_N + guards[0]]:
            guard = guards[1]  # pick_guard: fewer tokens, then playing order
        if row[CHARACTER + guard] == ARNOLD:
            count = holding(row, giver, tokens)
            token = take(row, mt, b, guard, tokens, count)
        else:
            token = gift(row, giver)
        transfer(row, token, giver, guard)


@jit
def _campsite_theft(row, mt, b, thief, amount, order, count_order, spare, tokens):
    """``DefaultDecisions.campsite_theft``: rob the living player with the most raft tokens
    (then most tokens, then playing order), then the next; no coconuts (S12, S21b)."""
    count = 0
    for position in range(count_order):
        p = order[position]
        if p == thief:
            continue
        rafts = 0
        base = HOLD + p * MAX_TOKENS
        held = np.int64(row[at(HOLD_N + p)])
        for i in range(held):
            rafts += CATEGORY[at(row[at(base + i)])] == RAFT
        key = -rafts * 1000000 - held * 100 + position  # distinct keys
        j = count
        while j > 0 and spare[at(THEFT_KEYS + j - 1)] > key:  # insertion sort by key
            spare[at(THEFT_KEYS + j)] = spare[at(THEFT_KEYS + j - 1)]
            spare[at(THEFT_VICTIMS + j)] = spare[at(THEFT_VICTIMS + j - 1)]
            j -= 1
        spare[at(THEFT_KEYS + j)] = key
        spare[at(THEFT_VICTIMS + j)] = p
        count += 1
    num_stolen = 0
    candidates = tokens
    for v in range(count):
        victim = spare[at(THEFT_VICTIMS + v)]
        left = holding(row, victim, candidates)
        while left and num_stolen < amount:
            token = take(row, mt, b, thief, candidates, left)
            spare[at(THEFT_STOLEN + num_stolen)] = token
            spare[at(THEFT_OWNERS + num_stolen)] = victim
            num_stolen += 1
            i = 0
            while candidates[at(i)] != token:
                i += 1
            for j in range(i, left - 1):
                candidates[at(j)] = candidates[at(j + 1)]
            left -= 1
        if num_stolen == amount:
            break
    for i in range(num_stolen):
        transfer(row, spare[at(THEFT_STOLEN + i)], spare[at(THEFT_OWNERS + i)], thief)


@jit
def _resolve_campsite(row, mt, b, order, count_order, choices, work, spare, tokens):
    thieves = work[CAMPSITE_THIEVES:CAMPSITE_THIEVES + MAX_PLAYERS]
    guards = work[CAMPSITE_GUARDS:CAMPSITE_GUARDS + MAX_PLAYERS]
    num_thieves = np.int64(0)
    num_guards = np.int64(0)
    for i in range(count_order):
        p = order[i]
        choice = choices[at(p)]
        if choice == THIEF:  # Campsite is location 0: action = act
            thieves[at(num_thieves)] = p
            num_thieves += 1
        elif choice == GUARD:
            guards[at(num_guards)] = p
            num_guards += 1
    if num_thieves > 2:  # S8: 3+ cancel each other
        num_thieves = np.int64(0)
    if num_guards > 2:
        num_guards = np.int64(0)
    if num_thieves and num_guards:
        _catch(row, mt, b, guards, num_guards, thieves, num_thieves, spare, tokens)
        givers = work[CAMPSITE_GIVERS:CAMPSITE_GIVERS + MAX_PLAYERS]
        num_givers = np.int64(0)
        for i in range(count_order):
            p = order[i]
            involved = False
            for t in range(num_thieves):
                involved |= thieves[t] == p
            for t in range(num_guards):
                involved |= guards[t] == p
            if not involved:
                givers[at(num_givers)] = p
                num_givers += 1
        _gifts(row, mt, b, givers, num_givers, guards, num_guards, tokens)
    elif num_thieves:
        for t in range(num_thieves):
            _campsite_theft(row, mt, b, thieves[t], 2 if num_thieves == 1 else 1, order,
                            count_order, spare, tokens)
    elif num_guards:
        _draw_coconuts(row, guards, num_guards, 2 if num_guards == 1 else 1)


@jit
def resolve_location(row, mt, b, loc, order, count_order, choices, work, spare, tokens):
    """One location's day (S7-S11); ``work``: scratch of WORK_SIZE ints."""
    here = 0
    for i in range(count_order):
        here += _location_act(choices[at(order[i])])[0] == loc
    if not here:
        return
    # work's blocks by offset, not as array views: the layout's LOCATION_ offsets
    for act in range(NUM_ACTIONS):
        work[LOCATION_GROUPS + act] = 0
    for seat in range(MAX_PLAYERS):
        work[LOCATION_PRESENT + seat] = 0
    for i in range(count_order):
        location, act = _location_act(choices[at(order[i])])
        if location == loc:
            work[at(LOCATION_GROUPS + act)] += 1
    num_loot = 0
    drawn = work[LOCATION_DRAWN:LOCATION_THIEVES]
    for i in range(count_order):  # S7: gatherers draw in playing order
        p = order[i]
        location, kind = _location_act(choices[at(p)])
        if location != loc:
            continue
        gatherers = work[at(LOCATION_GROUPS + kind)]
        if kind >= THIEF or not 1 <= gatherers <= 2:
            continue
        kept = _gather(row, loc, kind, p, 2 if gatherers == 1 else 1, drawn)
        for j in range(kept):
            work[at(LOCATION_LOOT + num_loot)] = drawn[j]
            work[at(LOCATION_OWNERS + num_loot)] = p
            num_loot += 1
            work[at(LOCATION_PRESENT + p)] = 1
    here_thieves, here_guards = work[LOCATION_GROUPS + THIEF], work[LOCATION_GROUPS + GUARD]
    num_thieves = here_thieves if here_thieves <= 2 else np.int64(0)
    num_guards = here_guards if here_guards <= 2 else np.int64(0)
    if not num_thieves and not num_guards:
        return
    thieves = work[LOCATION_THIEVES:LOCATION_GUARDS]
    guards = work[LOCATION_GUARDS:LOCATION_GIVERS]
    t = 0
    d = 0
    for i in range(count_order):
        p = order[i]
        choice = choices[at(p)]
        if choice == loc * NUM_ACTIONS + THIEF and t < num_thieves:
            thieves[at(t)] = p
            t += 1
        if choice == loc * NUM_ACTIONS + GUARD and d < num_guards:
            guards[at(d)] = p
            d += 1
    if num_thieves and num_guards:
        _catch(row, mt, b, guards, num_guards, thieves, num_thieves, spare, tokens)
        givers = work[LOCATION_GIVERS:LOCATION_GIVERS + MAX_PLAYERS]
        num_givers = np.int64(0)
        for i in range(count_order):
            if work[at(LOCATION_PRESENT + order[i])]:
                givers[at(num_givers)] = order[i]
                num_givers += 1
        _gifts(row, mt, b, givers, num_givers, guards, num_guards, tokens)
    elif num_thieves:
        if not num_loot:
            _draw_coconuts(row, thieves, num_thieves, 2 if num_thieves == 1 else 1)  # S10
            return
        remaining = work[LOCATION_REMAINING:LOCATION_REMAINING + MAX_TOKENS]
        left = np.int64(0)
        for i in range(count_order):
            p = order[i]
            base = HOLD + p * MAX_TOKENS
            for j in range(row[at(HOLD_N + p)]):
                token = row[at(base + j)]
                for k in range(num_loot):
                    if work[at(LOCATION_LOOT + k)] == token:
                        remaining[at(left)] = token
                        left += 1
        turn = 0
        while left:  # S10: one thief takes all, two pick alternately
            thief = thieves[turn % num_thieves]
            token = remaining[0] if num_thieves == 1 else take(row, mt, b, thief, remaining,
                                                                 left)
            i = 0
            while remaining[at(i)] != token:
                i += 1
            for j in range(i, left - 1):
                remaining[at(j)] = remaining[at(j + 1)]
            left -= 1
            k = 0
            while work[at(LOCATION_LOOT + k)] != token:
                k += 1
            transfer(row, token, work[at(LOCATION_OWNERS + k)], thief)
            turn += 1
    elif num_guards:
        _draw_coconuts(row, guards, num_guards, 2 if num_guards == 1 else 1)  # S11


@jit
def _event(row, mt, b, order, count_order, locs, tokens):
    if row[DECK_N] == 0:
        return END_CARD  # S14, S21c: an empty deck ends the show
    row[DECK_N] -= 1
    card = row[at(DECK + row[DECK_N])]
    size = CARD_SIZE[at(card)]
    kind = CARD_PILE[at(card)]
    if kind >= 0:
        for loc in range(1, locs):
            pile_size = at(PILE_N + loc * 3 + kind)
            row[pile_size] -= min(size, row[pile_size])
    elif CARD_RAT[at(card)]:
        for i in range(count_order):
            remover = order[i]
            victim = order[at((i + 1) % count_order)]
            for _ in range(size):
                if row[at(HOLD_N + victim)] == 0:
                    break
                count = holding(row, victim, tokens)
                token = take(row, mt, b, remover, tokens, count)
                row[at(KNOWN + token)] |= 1 << remover  # S21g
                remove(row, victim, token)
    return card


@jit
def _finish_keys(row, seat, keys_out):
    sets, left, food = ranking_key(row, seat)
    keys_out[seat, 0] = sets
    keys_out[seat, 1] = left
    keys_out[seat, 2] = food


@jit
def play_day(row, mt, b, choices, n, locs, keys_out, winners_out, order, work, spare, tokens):
    """One day (S6-S16) from each living seat's action (5 * location + act). Returns the end
    condition (0, 1, 2 for A, B, C) or -1 while the show goes on; ``keys_out`` and
    ``winners_out`` get the final ranking keys (-1 rows for seats without one) and winners.
    Scratch (int64): ``order`` MAX_PLAYERS, ``work`` WORK_SIZE, ``spare`` SPARE_SIZE,
    ``tokens`` MAX_TOKENS + 4."""
    row[DAY] += 1
    count_order = playing_order(row, n, order)
    for seat in range(n):
        if row[ALIVE + seat]:
            row[LAST_LOC + seat], row[LAST_ACT + seat] = _location_act(choices[seat])
        else:
            row[LAST_LOC + seat] = -1
            row[LAST_ACT + seat] = -1
    _resolve_campsite(row, mt, b, order, count_order, choices, work, spare, tokens)  # S7
    for loc in range(1, locs):
        resolve_location(row, mt, b, loc, order, count_order, choices, work, spare, tokens)
    card = _event(row, mt, b, order, count_order, locs, tokens)
    row[LAST_EVENT] = card
    keys_out[:] = -1
    winners_out[:] = False
    condition = -1
    if card == END_CARD:
        for i in range(count_order):
            _finish_keys(row, order[i], keys_out)
        condition = 0
    else:
        starving = spare  # flags by seat
        starving[:MAX_PLAYERS] = 0
        meal = tokens
        everyone = (1 << n) - 1
        for i in range(count_order):
            p = order[i]
            eaten = supper(row, p, meal)
            if not eaten:
                starving[at(p)] = 1
                continue
            for j in range(eaten):
                row[at(KNOWN + meal[j])] = everyone  # S18, S21h
                remove(row, p, meal[j])
        survivors = 0
        for i in range(count_order):
            p = order[i]
            if starving[at(p)]:
                _finish_keys(row, p, keys_out)  # before their holdings go (end B)
                row[at(ALIVE + p)] = 0
                row[at(HOLD_N + p)] = 0
            else:
                survivors += 1
        if survivors == 0:
            condition = 1
        else:
            keys_out[:] = -1
            if survivors == 1:
                condition = 2
                for i in range(count_order):
                    if not starving[at(order[i])]:
                        _finish_keys(row, order[i], keys_out)
            else:
                for i in range(1, n + 1):
                    seat = (row[LEADER] + i) % n
                    if row[at(ALIVE + seat)]:
                        row[LEADER] = seat
                        break
    if condition >= 0:
        row[DONE] = 1
        best = (-1, -1, -1)
        for seat in range(n):
            key = (keys_out[seat, 0], keys_out[seat, 1], keys_out[seat, 2])
            if keys_out[seat, 0] >= 0 and key > best:
                best = key
        for seat in range(n):
            winners_out[seat] = (keys_out[seat, 0] >= 0 and keys_out[seat, 0] == best[0]
                                 and keys_out[seat, 1] == best[1]
                                 and keys_out[seat, 2] == best[2])
    return condition
