"""Policy specs: the strings every command accepts to name a policy.

``random``, ``greedy``, ``expert``; for Hungry also ``forecast`` (the expert's valuation,
approximated and compiled), ``search`` or ``search:N`` (determinized Monte Carlo search with N
playouts per move, 200 by default), ``search:Bplays`` (the same search with a budget of B simulated
plays per move: B // L playouts when L plays are left in the game), ``search:N:SPEC`` (the same
search guided by the network of the policy spec SPEC: a trained checkpoint or ``pretrained:NAME``;
``search:Bplays:SPEC`` likewise) and ``search:N:D:SPEC`` (also using that network's value once D
plays followed each candidate), ``search:N:beliefs`` (the other seats modelled as the expert once
the deck is empty; ``search:N:beliefs:SPEC`` with a network), ``search:N:solve`` (at 2 players,
the endgame solved exactly once the deck is empty; ``search:N:solve:SPEC``); for HUNGER: The Show
also ``crowd``
(the argmax of the crowd values, the expert's valuation with one round of replies); for both
``ismcts`` or ``ismcts:N`` (OpenSpiel's information-set MCTS, N simulations per move, 100 by
default; the ``openspiel`` extra); for HUNGER also ``smmcts`` or ``smmcts:N`` (simultaneous-move
MCTS, decoupled UCT over the day's joint picks, N simulations per move, 100 by default),
``smmcts:N:SPEC`` (the same search, SPEC's network biasing the searcher's own picks) and
``smmcts:N:rm`` / ``smmcts:N:rm:SPEC`` (selecting by regret matching, playing its mixed average
strategy);
``pretrained:NAME``, a trained agent shipped with the package (``policies.pretrained``; some search
at play time, and ``pretrained:NAME:network`` is the network alone); or the path of a trained
checkpoint. A trained network's way of playing can be chosen: ``argmax:SPEC`` plays its masked
argmax, ``sample:SPEC`` samples from its softmax, ``sample:T:SPEC`` from its softmax at temperature
T (a decimal such as ``0.5``; the logits are divided by T), each draw from the game's seeded
generator (``policies.learned``). A policy from outside the suite: ``python:package.module:name``,
a class with the policy interface or a function of an observation, and ``sb3:PATH``, a
Stable-Baselines3 PPO or sb3-contrib MaskablePPO model file trained on the game's Gymnasium view
(``policies.external``; ``sample:sb3:PATH`` samples from its distribution).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hunger_rl.engines.validation import typed_count
from hunger_rl.envs import game_spec
from hunger_rl.policies.base import Policy
from hunger_rl.policies.mixture import MIX, MixturePolicy, read_mixture

DEFAULT_SEARCH_SIMULATIONS = 200
DEFAULT_ISMCTS_SIMULATIONS = 100
DEFAULT_SMMCTS_SIMULATIONS = 100
CHECKPOINT_SUFFIXES = (".safetensors", ".zip", ".pt", ".pth", ".ckpt")
# ``argmax:SPEC``, ``sample:SPEC``, ``sample:T:SPEC``: how a trained network plays.
ARGMAX, SAMPLE = "argmax", "sample"
# ``python:MODULE:NAME`` and ``sb3:PATH``: policies from outside the suite
# (``policies.external``).
PYTHON, SB3 = "python", "sb3"
DEFAULT_SAMPLE_TEMPERATURE = 1.0
DECIMAL = re.compile(r"[0-9]+(\.[0-9]+)?")  # ASCII digits only: str.isdigit takes '²'


@dataclass(frozen=True)
class ScriptedPolicy:
    """A scripted policy of a game's table: its class as ``"module:Class"`` (imported when
    first asked for), if the spec takes ``NAME:N``, the keyword N is passed as, and if it also
    takes a budget of simulated plays, ``NAME:B`` and the class's ``PLAYS_SUFFIX``
    (``search:9600plays``), the keyword B is passed as.

    What the policy can do beyond that, declared here so that no code asks which game it is:
    ``guided`` builds the forms ``NAME:N:...`` (a search guided by a network, say) from
    ``(entry, spec, argument, game, num_players)``, ``argument`` being what follows
    ``NAME:``; ``forms`` lists those forms, each ``(form, description)``, after the table in
    ``describe_specs``; ``shipped_search`` says a shipped agent's ``search``
    (``policies.pretrained``) plays this policy, with the agent's network as its guide."""

    target: str
    description: str
    count_keyword: str | None = None
    default_count: int | None = None
    plays_keyword: str | None = None
    guided: Callable[[ScriptedPolicy, str, str, str, int], Policy] | None = None
    forms: tuple[tuple[str, str], ...] = ()
    shipped_search: bool = False

    def make(self, spec: str, argument: str) -> Policy:
        policy_class = self.policy_class(spec)
        if self.count_keyword is None:
            return policy_class()
        budget = self.budget(spec, argument)
        try:
            return policy_class(**budget)
        except ValueError as error:
            raise ValueError(f"in {spec!r}, {error}") from error

    def budget(self, spec: str, argument: str) -> dict[str, int]:
        """The keyword argument that the N of ``NAME:N`` (or the B of ``NAME:Bplays``) is."""
        if self.plays_keyword:
            suffix = self.policy_class(spec).PLAYS_SUFFIX
            if argument.endswith(suffix):
                return {self.plays_keyword: _plays(spec, argument, suffix)}
        return {self.count_keyword: _count(spec, argument, self.default_count)}

    def policy_class(self, spec: str) -> type:
        """The class, its module imported on first use; ``spec`` names it in errors."""
        module, _, name = self.target.partition(":")
        try:
            return getattr(importlib.import_module(module), name)
        except ImportError as error:  # an optional extra it needs is not installed
            raise ValueError(f"policy spec {spec!r} cannot be loaded: {error} "
                             f"({self.description})") from error


def _guided_hungry_search(search: ScriptedPolicy, spec: str, argument: str, game: str,
                          num_players: int) -> Policy:
    """``search:N:SPEC``, ``search:Bplays:SPEC`` or ``search:N:D:SPEC``, with the options
    ``beliefs`` and ``solve`` before SPEC (``search:N:beliefs``, ``search:N:solve:SPEC``, ...):
    Hungry's search (the entry ``search``) guided by SPEC's network, modelling the other seats,
    or solving the 2-player endgame."""
    simulations, _, rest = argument.partition(":")
    policy_class = search.policy_class(spec)
    options = {}
    for word, keyword in ((policy_class.BELIEFS, "beliefs"), (policy_class.SOLVE, "solve")):
        first, colon, after_word = rest.partition(":")
        if first != word:
            continue
        if colon and not after_word:
            raise ValueError(f"in {spec!r}, a network's policy spec must follow "
                             f"search:N:{word}: (or drop the last ':')")
        options[keyword] = True
        rest = after_word
    if not simulations:
        raise ValueError(f"in {spec!r}, the number of playouts N must come before "
                         f"{'the network' if rest else ' and '.join(map(repr, options))}")
    if options.get("solve") and num_players != 2:
        raise ValueError(f"in {spec!r}, {policy_class.SOLVE} solves the 2-player endgame; "
                         f"this game has {num_players} players")
    budget = search.budget(spec, simulations)
    if options and not rest:
        return _scripted_search(spec, search, budget, **options)
    cutoff, _, guide_spec = rest.partition(":")
    if not (typed_count(cutoff) is not None and guide_spec):
        cutoff, guide_spec = None, rest
    if not guide_spec:
        raise ValueError(f"in {spec!r}, a network's policy spec must follow search:N: "
                         "(search:N:SPEC or search:N:D:SPEC)")
    from hunger_rl.policies.pretrained import NETWORK, PREFIX

    # A shipped agent that searches (pretrained:NAME) guides by its network: a search is no prior.
    network_spec = guide_spec
    if guide_spec.startswith(PREFIX) and guide_spec.count(":") == 1:
        network_spec += ":" + NETWORK
    guide = _guiding_network(spec, guide_spec, network_spec, game, num_players)
    if cutoff is not None and not guide.predicts_win_share:
        raise ValueError(f"in {spec!r}, the cut-off {cutoff} needs a network whose value head "
                         f"was fitted to win shares (expert iteration fits one); {guide_spec!r} "
                         f"has none: use search:{simulations}:{guide_spec}")
    return _scripted_search(spec, search, budget, guide=guide,
                            cutoff=None if cutoff is None else int(cutoff), **options)


def _scripted_search(spec: str, search: ScriptedPolicy, budget: dict[str, int],
                     **options) -> Policy:
    """Hungry's search with ``budget`` and ``options``; its errors name ``spec``."""
    try:
        return search.policy_class(spec)(**budget, **options)
    except ValueError as error:
        raise ValueError(f"in {spec!r}, {error}") from error


def _guided_smmcts(entry: ScriptedPolicy, spec: str, argument: str, game: str,
                   num_players: int) -> Policy:
    """``smmcts:N:SPEC``: HUNGER's search (the entry ``smmcts``) with SPEC's network as the
    prior of its own picks; ``smmcts:N:rm`` and ``smmcts:N:rm:SPEC``: the same searches by
    regret matching."""
    simulations, _, guide_spec = argument.partition(":")
    if not simulations:
        raise ValueError(f"in {spec!r}, the number of simulations N must come before the "
                         "network (smmcts:N:SPEC)")
    count = _count(spec, simulations, entry.default_count)
    search = entry.policy_class(spec)
    word, _, after_word = guide_spec.partition(":")
    selection = "ucb"
    if word == search.REGRET_MATCHING:
        selection, guide_spec = "regret", after_word
        if not guide_spec:  # smmcts:N:rm, unguided
            return search(count, selection=selection)
    cutoff, _, rest = guide_spec.partition(":")
    if typed_count(cutoff) is not None and rest:
        raise ValueError(f"in {spec!r}, smmcts takes no cut-off: its network is a prior only "
                         f"(smmcts:{count}:SPEC)")
    guide = _guiding_network(spec, guide_spec, guide_spec, game, num_players)
    # Through the table: the search's module reads this one's defaults.
    return search(count, guide=guide, selection=selection)


def _trained_network(spec: str, network_spec: str, game: str, num_players: int, *,
                     named: str, attribute: str, not_one: str) -> Policy:
    """The trained network ``network_spec`` inside the spec ``spec``, which must have
    ``attribute``: a load error is re-raised after ``in spec, named:``, a policy without the
    attribute is the error ``in spec, not_one``."""
    try:
        policy = make_policy(network_spec, game, num_players)
    except ValueError as error:
        raise ValueError(f"in {spec!r}, {named}: {error}") from error
    if not hasattr(policy, attribute):
        raise ValueError(f"in {spec!r}, {not_one}")
    return policy


def _guiding_network(spec: str, guide_spec: str, network_spec: str, game: str,
                     num_players: int) -> Policy:
    """The trained network that ``guide_spec`` names to guide the search spec ``spec``, loaded
    as ``network_spec`` (a searching shipped agent's network alone)."""
    return _trained_network(
        spec, network_spec, game, num_players, named=f"the network {guide_spec!r}",
        attribute="logits", not_one=f"{guide_spec!r} is not a trained network (a checkpoint or "
        "pretrained:NAME), so it cannot guide the search")


_HUNGRY_SEARCH_FORMS = (
    ("search:Bplays", "the search with a budget of B simulated plays a move: B // L playouts "
     "with L plays left in the game, far more in the endgame"),
    ("search:N:SPEC", "the search guided by the trained network SPEC (a checkpoint or "
     "pretrained:NAME): its logits choose and weigh the candidates; N may be Bplays"),
    ("search:N:D:SPEC", "the same, and the network's value once D plays followed a candidate "
     "(a network trained by expert iteration)"),
    ("search:N:beliefs", "the search dealing the hidden cards by how well they explain the "
     "opponents' plays since the deck emptied; N may be Bplays, and a network may follow "
     "(search:N:beliefs:SPEC)"),
    ("search:N:solve", "at 2 players, the search with the endgame solved exactly once the deck "
     "is empty (every hand the other seat may hold); after beliefs if both, and a network may "
     "follow (search:N:solve:SPEC)"),
)
_SMMCTS_FORMS = (
    ("smmcts:N:SPEC", "the search with the trained network SPEC (a checkpoint or "
     "pretrained:NAME) as the prior of its own picks"),
    ("smmcts:N:rm", "the search by regret matching, playing a pick drawn from its average "
     "strategy (a mixed strategy); smmcts:N:rm:SPEC with a network's prior"),
)
_RANDOM = ScriptedPolicy("hunger_rl.policies.base:RandomPolicy",
                         "uniformly random over the legal actions")
_GREEDY = "one-step greedy: the action with the best immediate gain"
_EXPERT = "hand-written expected-value player, the strongest quick scripted baseline"
_ISMCTS = ("OpenSpiel's information-set MCTS bot, N simulations per move "
           f"({DEFAULT_ISMCTS_SIMULATIONS} by default; slow; needs the openspiel extra)")
# Each game's scripted policies, by the name a spec gives them (games of ``envs.GAMES``).
POLICY_TABLES: dict[str, dict[str, ScriptedPolicy]] = {
    "hungry": {
        "random": _RANDOM,
        "greedy": ScriptedPolicy("hunger_rl.policies.hungry:GreedyHungryPolicy", _GREEDY),
        "expert": ScriptedPolicy("hunger_rl.policies.hungry:ExpertHungryPolicy", _EXPERT),
        "forecast": ScriptedPolicy("hunger_rl.policies.hungry:ForecastHungryPolicy",
                                   "the expert's valuation, approximated and compiled (fast)"),
        "search": ScriptedPolicy("hunger_rl.policies.hungry_search:SearchHungryPolicy",
                                 "determinized Monte Carlo search, N playouts per move "
                                 f"({DEFAULT_SEARCH_SIMULATIONS} by default; slow)",
                                 count_keyword="simulations",
                                 default_count=DEFAULT_SEARCH_SIMULATIONS,
                                 plays_keyword="plays", guided=_guided_hungry_search,
                                 forms=_HUNGRY_SEARCH_FORMS, shipped_search=True),
        "ismcts": ScriptedPolicy("hunger_rl.policies.ismcts:ISMCTSHungryPolicy", _ISMCTS,
                                 count_keyword="simulations",
                                 default_count=DEFAULT_ISMCTS_SIMULATIONS),
    },
    "hunger_show": {
        "random": _RANDOM,
        "greedy": ScriptedPolicy("hunger_rl.policies.hunger_show:GreedyShowPolicy", _GREEDY),
        "expert": ScriptedPolicy("hunger_rl.policies.hunger_show:ExpertShowPolicy", _EXPERT),
        "crowd": ScriptedPolicy("hunger_rl.policies.hunger_show:CrowdShowPolicy",
                                "the argmax of the crowd values (the expert's valuation, one "
                                "round of replies)"),
        "ismcts": ScriptedPolicy("hunger_rl.policies.ismcts:ISMCTSShowPolicy", _ISMCTS,
                                 count_keyword="simulations",
                                 default_count=DEFAULT_ISMCTS_SIMULATIONS),
        "smmcts": ScriptedPolicy("hunger_rl.policies.hunger_show_search:SMMCTSShowPolicy",
                                 "simultaneous-move MCTS (decoupled UCT over the day's joint "
                                 "picks), N simulations per move "
                                 f"({DEFAULT_SMMCTS_SIMULATIONS} by default)",
                                 count_keyword="simulations",
                                 default_count=DEFAULT_SMMCTS_SIMULATIONS,
                                 guided=_guided_smmcts, forms=_SMMCTS_FORMS),
    },
}


def policy_specs(game: str) -> list[str]:
    """The scripted policy names valid for ``game`` (a checkpoint path is valid too)."""
    return list(_table(game))


def spec_names(game: str) -> list[str]:
    """The scripted policy specs of ``game`` as a user writes them (``search:N``)."""
    return [name + (":N" if entry.count_keyword else "") for name, entry in _table(game).items()]


def make_policy(spec: str, game: str, num_players: int) -> Policy:
    """The policy named by ``spec`` for ``game`` with ``num_players`` players."""
    table = _table(game)
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"a policy spec must be a non-empty string, got {spec!r}")
    name, _, argument = spec.partition(":")
    if name in (ARGMAX, SAMPLE):
        return _play_mode(spec, name, argument, game, num_players)
    if name == MIX:
        return _mixture(spec, Path(argument), game, num_players)
    if name in (PYTHON, SB3):
        from hunger_rl.policies.external import python_policy, sb3_policy

        load = python_policy if name == PYTHON else sb3_policy
        return load(spec, argument, game, num_players)
    entry = table.get(name)
    if entry is not None and entry.guided is not None and ":" in argument:
        return entry.guided(entry, spec, argument, game, num_players)
    if entry is not None and (entry.count_keyword or not argument):
        return entry.make(spec, argument)
    if name == "pretrained" and argument:
        from hunger_rl.policies.pretrained import load_pretrained

        search = next((entry for entry in table.values() if entry.shipped_search), None)
        return load_pretrained(argument, game, num_players, search_policy=search)
    if _looks_like_path(spec):
        return _load_checkpoint(spec, game, num_players)
    raise ValueError(f"unknown policy spec {spec!r} for {game}; {_valid_specs_text(game)}")


def mixture_members(spec: str) -> list[tuple[str, float]] | None:
    """The (spec, weight) members of a mixture spec ``mix:PATH``; None for any other spec."""
    name, _, argument = spec.partition(":")
    return read_mixture(argument) if name == MIX else None


def _mixture(spec: str, path: Path, game: str, num_players: int) -> Policy:
    """The mixed strategy of the mixture file ``path``, named ``spec``; every member is built
    (and its error named) before anything plays."""
    members = read_mixture(path)
    policies = []
    for member, _ in members:
        if mixture_members(member) is not None:
            raise ValueError(f"{spec!r}: member {member!r} is a mixture itself; list its "
                             "members instead")
        try:
            policies.append(make_policy(member, game, num_players))
        except (OSError, ValueError) as error:
            raise ValueError(f"{spec!r}: member {member!r}: {error}") from error
    return MixturePolicy(policies, [weight for _, weight in members], name=spec)


def describe_specs(game: str, num_players: int) -> list[tuple[str, str]]:
    """Every policy spec for ``game`` with ``num_players``, each with a one-line description."""
    from hunger_rl.policies.pretrained import NETWORK, PREFIX, catalogue, pretrained_names

    table = _table(game)
    rows = [(name + (":N" if entry.count_keyword else ""), entry.description)
            for name, entry in table.items()]
    rows += [form for entry in table.values() for form in entry.forms]
    for name in pretrained_names(game, num_players):
        rows.append((PREFIX + name, catalogue()[name]["description"]))
        if "search" in catalogue()[name]:
            rows.append((f"{PREFIX}{name}:{NETWORK}", f"the network of {PREFIX}{name} alone, "
                         "without its search (fast)"))
    rows.append(("PATH", "a policy trained by `hunger-rl train` (its folder or policy file)"))
    rows += [(f"{ARGMAX}:SPEC", "the trained network SPEC (a checkpoint or pretrained:NAME "
              "without a search) playing its argmax"),
             (f"{SAMPLE}:SPEC", "the same network sampling from its softmax, reproducibly by "
              f"the game's seed; {SAMPLE}:T:SPEC at temperature T (logits / T)"),
             (f"{MIX}:PATH", "a mixed strategy: one member of the mixture file PATH (policy "
              "specs or files with weights), drawn by weight at each game's first move"),
             (f"{PYTHON}:MODULE:NAME", "your own policy: a class with the policy interface "
              "(act(observation, rng, view)) or such a function, imported from MODULE; "
              "MODULE:NAME:TEXT gives the class TEXT as its first argument"),
             (f"{SB3}:PATH", "a Stable-Baselines3 PPO or sb3-contrib MaskablePPO model file "
              "trained on the game's Gymnasium view, playing its masked argmax (the train "
              "extra)")]
    return rows


def _play_mode(spec: str, mode: str, argument: str, game: str, num_players: int) -> Policy:
    """``argmax:SPEC``, ``sample:SPEC`` or ``sample:T:SPEC``: the trained network SPEC playing
    its argmax or sampling at temperature T."""
    temperature, network_spec = 0.0, argument
    if mode == SAMPLE:
        head, colon, rest = argument.partition(":")
        if colon and DECIMAL.fullmatch(head):
            temperature, network_spec = float(head), rest
            if not temperature:
                raise ValueError(f"in {spec!r}, a sampling temperature must be above 0 "
                                 f"({ARGMAX}:{rest} plays the argmax)")
        else:
            temperature = DEFAULT_SAMPLE_TEMPERATURE
    if not network_spec:
        raise ValueError(f"in {spec!r}, a trained network's policy spec must follow {mode}: "
                         f"({ARGMAX}:SPEC, {SAMPLE}:SPEC or {SAMPLE}:T:SPEC)")
    policy = _trained_network(
        spec, network_spec, game, num_players, named=repr(network_spec), attribute="temperature",
        not_one=f"{network_spec!r} is not a trained network (a checkpoint, or pretrained:NAME of "
        "an agent that does not search: pretrained:NAME:network for one that does), so it has "
        "no distribution to play")
    from hunger_rl.policies.learned import checked_temperature

    try:
        policy.temperature = checked_temperature(temperature)
    except ValueError as error:
        raise ValueError(f"in {spec!r}, {error}") from error
    policy.name = spec
    return policy


# The largest budgets a spec may give a move: N of ``NAME:N`` (playouts or simulations; the
# bound of expert_iteration.simulations too) and B of ``search:Bplays``, whose last play makes B
# playouts, each a row of the batched engine (about 450 bytes) held at once.
MAX_SPEC_COUNT = 100_000
MAX_SPEC_PLAYS = 1_000_000


def _count(spec: str, argument: str, default: int) -> int:
    """N of ``NAME:N``, in ASCII digits, 1 to ``MAX_SPEC_COUNT``."""
    if not argument:
        return default
    count = typed_count(argument)
    if count is None or not 1 <= count <= MAX_SPEC_COUNT:
        raise ValueError(f"in {spec!r}, the number after ':' must be a positive integer in "
                         f"ASCII digits, at most {MAX_SPEC_COUNT:,}")
    return count


def _plays(spec: str, argument: str, suffix: str) -> int:
    """B of ``NAME:B`` + ``suffix`` (``search:9600plays``), in ASCII digits, 1 to
    ``MAX_SPEC_PLAYS``."""
    budget = typed_count(argument.removesuffix(suffix))
    if budget is None or not 1 <= budget <= MAX_SPEC_PLAYS:
        raise ValueError(f"in {spec!r}, the budget before {suffix!r} must be a positive "
                         f"integer of simulated plays in ASCII digits, at most "
                         f"{MAX_SPEC_PLAYS:,}")
    return budget


def _looks_like_path(spec: str) -> bool:
    return os.path.exists(spec) or os.sep in spec or spec.endswith(CHECKPOINT_SUFFIXES)


def _load_checkpoint(path: str, game: str, num_players: int) -> Policy:
    if not os.path.exists(path):
        raise ValueError(f"no checkpoint at {path!r}; {_valid_specs_text(game)}")
    from hunger_rl.policies.learned import load_policy

    return load_policy(path, game=game, num_players=num_players)


def _valid_specs_text(game: str) -> str:
    return (f"valid specs: {', '.join(spec_names(game))}, pretrained:NAME (see `hunger-rl "
            f"policies`), {PYTHON}:MODULE:NAME, {SB3}:PATH, or the path of a checkpoint")


def _table(game: str) -> dict[str, ScriptedPolicy]:
    game_spec(game)  # a clear error for an unknown game
    if game not in POLICY_TABLES:
        raise ValueError(f"no policies are registered for game {game!r}")
    return POLICY_TABLES[game]
