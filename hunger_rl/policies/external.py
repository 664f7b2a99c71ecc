"""Policies from outside the suite, as specs: ``python:MODULE:NAME`` and ``sb3:PATH``.

``python:package.module:name`` imports ``package.module`` (from the Python path, in every worker
process too: a spec is rebuilt from its text there) and plays its attribute ``name``:

- a class with the suite's policy interface (``policies.base.Policy``: ``act(observation, rng,
  view) -> action``, and ``reset()`` between games if it has one), made once per seat; its
  constructor gets ``game=`` and ``num_players=`` if it takes them (and may refuse them with a
  ``ValueError``);
- or a function ``name(observation, rng, view) -> action`` (the arguments of ``Policy.act``).

``python:package.module:name:TEXT`` gives a class's constructor ``TEXT`` as its first argument
(everything after the name, colons included: say, the file of the weights it plays), so one
class plays every checkpoint a user's own trainer wrote.

Either may say what it plays with the attributes ``game`` (a game's name) and ``num_players``
(a count, or a collection of counts); a spec whose object names another game or player count is
refused before any game. ``sb3:PATH`` plays a Stable-Baselines3 ``PPO`` or sb3-contrib
``MaskablePPO`` model file (``model.save(PATH)``) trained on the Gymnasium view of the game
(``hunger_rl/Hungry-v0``, ``hunger_rl/HungerShow-v0``: the encoded observation of
``encoders.make_encoder``, the action mask of ``action_masks()``): loaded by the library's own
``load`` (the train extra), refused if its observation or action space is not the view's for
the game and player count. It plays the masked argmax of its action distribution (a PPO model's
too, which was trained without the mask), or samples from it as ``sample:sb3:PATH`` or
``sample:T:sb3:PATH``, drawing from the game's generator as a policy file does.

Every action such a policy returns is checked against the mask: an action that is not a legal
action number stops the game with a ``ValueError`` naming the spec, the action and the legal
ones (docs/agents.md, "Your own policy").
"""

from __future__ import annotations

import importlib
import inspect
import json
import operator
import zipfile
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import numpy as np

from hunger_rl.envs import game_spec
from hunger_rl.policies.base import Observation, Policy
from hunger_rl.policies.models.encoders import make_encoder

PYTHON, SB3 = "python", "sb3"
# The module of sb3-contrib's maskable policies: a model file whose policy class comes from it
# is a MaskablePPO model, any other a PPO one.
MASKABLE_POLICIES = "sb3_contrib.common.maskable"


def checked_action(spec: str, action: Any, mask: np.ndarray) -> int:
    """``action`` as an int if it is a legal action number under ``mask``, else a
    ``ValueError`` naming ``spec``, what it returned and the legal actions."""
    legal = np.flatnonzero(mask)
    try:
        if isinstance(action, bool | np.bool_):
            raise TypeError("a bool")
        number = operator.index(action)
    except TypeError:
        raise ValueError(f"policy {spec!r} returned {action!r}, which is not an action number; "
                         f"legal here: {legal.tolist()}") from None
    if not (0 <= number < len(mask) and mask[number]):
        raise ValueError(f"policy {spec!r} returned action {number}, which is illegal here; "
                         f"legal: {legal.tolist()}")
    return number


class CheckedPolicy(Policy):
    """A policy from outside the suite (``act``, an object's method or a function), named by
    its spec, every action it returns checked by :func:`checked_action`."""

    def __init__(self, spec: str, act: Callable[..., Any], reset: Callable[[], Any] | None = None):
        self.name = spec
        self._act = act
        self._reset = reset

    def reset(self) -> None:
        if self._reset is not None:
            self._reset()

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        return checked_action(self.name, self._act(observation, rng, view),
                              observation["action_mask"])


def python_policy(spec: str, argument: str, game: str, num_players: int) -> Policy:
    """The policy of ``python:MODULE:NAME[:TEXT]`` (``argument`` is ``MODULE:NAME[:TEXT]``) for
    ``game`` with ``num_players``; a ``ValueError`` naming ``spec`` when it cannot be imported
    or does not fit."""
    module_name, _, rest = argument.partition(":")
    name, given, text = rest.partition(":")
    if not module_name or not name or (given and not text):
        raise ValueError(f"{spec!r}: a Python policy is python:package.module:name, the "
                         "module then the name of a class or a function in it (and "
                         ":TEXT, the class's first argument)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"{spec!r}: cannot import {module_name!r}: {error}") from error
    try:
        target = getattr(module, name)
    except AttributeError:
        raise ValueError(f"{spec!r}: module {module_name!r} has no {name!r}") from None
    if inspect.isclass(target):
        instance = _instance(spec, target, game, num_players, (text,) if given else ())
        _check_fit(spec, instance, game, num_players)
        act = getattr(instance, "act", None)
        if not callable(act):
            raise ValueError(f"{spec!r}: class {name} has no act(observation, rng, view) "
                             "method, the suite's policy interface (policies.base.Policy)")
        _check_arguments(spec, act, f"{name}.act")
        reset = getattr(instance, "reset", None)
        return CheckedPolicy(spec, act, reset if callable(reset) else None)
    if not callable(target):
        raise ValueError(f"{spec!r}: {name} is a {type(target).__name__}, neither a class with "
                         "the suite's policy interface nor a function")
    if given:
        raise ValueError(f"{spec!r}: {name} is a function; only a class takes an argument "
                         f"(:{text})")
    _check_fit(spec, target, game, num_players)
    _check_arguments(spec, target, name)
    return CheckedPolicy(spec, target)


def _instance(spec: str, policy_class: type, game: str, num_players: int,
              arguments: tuple[str, ...]) -> Any:
    """An instance of a user's policy class: given ``arguments`` (the spec's text after the
    class's name, if any), and ``game`` and ``num_players`` if its constructor takes them."""
    try:
        parameters = inspect.signature(policy_class).parameters
    except (TypeError, ValueError):  # a class whose signature Python cannot read
        parameters = {}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    keywords = {key: value for key, value in (("game", game), ("num_players", num_players))
                if takes_any or key in parameters}
    try:
        return policy_class(*arguments, **keywords)
    except (TypeError, ValueError, OSError) as error:
        raise ValueError(f"{spec!r}: {policy_class.__name__}("
                         f"{_arguments_text(arguments, keywords)}) failed: {error}") from error


def _arguments_text(arguments: tuple[str, ...], keywords: dict[str, Any]) -> str:
    return ", ".join([*map(repr, arguments),
                      *(f"{key}={value!r}" for key, value in keywords.items())])


def _check_fit(spec: str, target: Any, game: str, num_players: int) -> None:
    """Refuse an object whose ``game`` or ``num_players`` attribute says it plays another game
    or player count."""
    declared_game = getattr(target, "game", None)
    if declared_game is not None and declared_game != game:
        raise ValueError(f"{spec!r} plays {declared_game!r}, not {game!r}")
    declared = getattr(target, "num_players", None)
    if declared is None:
        return
    counts = declared if isinstance(declared, Collection) else [declared]
    if num_players not in counts:
        raise ValueError(f"{spec!r} plays with {sorted(counts)} players, not {num_players}")


def _check_arguments(spec: str, function: Callable[..., Any], name: str) -> None:
    """Refuse a function that cannot be called as ``Policy.act`` is."""
    try:
        inspect.signature(function).bind(None, None, None)
    except TypeError:
        raise ValueError(f"{spec!r}: {name} must take (observation, rng, view), the arguments "
                         "of Policy.act") from None
    except ValueError:  # a builtin without a readable signature: called as it is
        pass


class SB3Policy(Policy):
    """A Stable-Baselines3 (PPO) or sb3-contrib (MaskablePPO) model trained on the game's
    Gymnasium view, playing its masked argmax, or at ``temperature`` T > 0 sampling from its
    masked distribution (logits / T) with the game's generator. Its ``logits`` can guide a
    search (``search:N:sb3:PATH``); its value head was not fitted to win shares, so it gives no
    search a cut-off."""

    predicts_win_share = False

    def __init__(self, spec: str, model: Any, game: str, num_players: int):
        self.name = spec
        self.temperature = 0.0
        self._encode = make_encoder(game, num_players)
        self._policy = model.policy
        self._policy.set_training_mode(False)

    def logits(self, observations: list[np.ndarray] | np.ndarray) -> np.ndarray:
        """The model's action logits (log-probabilities, unmasked) for a batch of raw
        observation vectors."""
        import torch

        inputs = torch.as_tensor(self._encode.batch(np.stack(observations)),
                                 device=self._policy.device)
        with torch.no_grad():
            distribution = self._policy.get_distribution(inputs).distribution
        return distribution.logits.cpu().numpy()

    def act(self, observation: Observation, rng: np.random.Generator, view: Any = None) -> int:
        from hunger_rl.policies.learned import choose_actions

        mask = np.asarray(observation["action_mask"]).astype(bool)
        logits = self.logits([self._encode.raw_input(observation)])
        return int(choose_actions(logits, mask[None], self.temperature, rng)[0])


def sb3_policy(spec: str, path: str, game: str, num_players: int) -> SB3Policy:
    """The model file of ``sb3:PATH`` for ``game`` with ``num_players``; a ``ValueError`` naming
    ``spec`` when it is missing, not a PPO or MaskablePPO file, or trained on another view."""
    if not path:
        raise ValueError(f"{spec!r}: the path of a model file must follow sb3: (sb3:PATH.zip)")
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"{spec!r}: no model file at {path!r}")
    maskable = _is_maskable(spec, file)
    try:
        if maskable:
            from sb3_contrib import MaskablePPO as algorithm
        else:
            from stable_baselines3 import PPO as algorithm
    except ImportError as error:
        raise ValueError(f"{spec!r} needs the train extra (pip install 'hunger-rl[train]'): "
                         f"{error}") from error
    try:
        model = algorithm.load(str(file), device="cpu")
    except Exception as error:  # the library's own errors for a file it cannot read
        raise ValueError(f"{spec!r}: {algorithm.__name__}.load failed: "
                         f"{type(error).__name__}: {error}") from error
    _check_spaces(spec, model, game, num_players)
    return SB3Policy(spec, model, game, num_players)


def _is_maskable(spec: str, file: Path) -> bool:
    """Whether a model file holds a MaskablePPO model (else PPO), from the policy class it names
    (read from its JSON, without unpickling anything)."""
    try:
        with zipfile.ZipFile(file) as archive:
            data = json.loads(archive.read("data"))
        module = data["policy_class"]["__module__"]
    except (zipfile.BadZipFile, KeyError, TypeError, ValueError, OSError) as error:
        raise ValueError(f"{spec!r}: {file} is not a Stable-Baselines3 model file "
                         f"(model.save's zip): {error}") from error
    return str(module).startswith(MASKABLE_POLICIES)


def _check_spaces(spec: str, model: Any, game: str, num_players: int) -> None:
    """The model's spaces are those of the game's Gymnasium view at ``num_players``."""
    size = make_encoder(game, num_players).size
    game_env = game_spec(game).make_env(num_players)
    actions = int(game_env.action_space(game_env.possible_agents[0]).n)
    found_shape = getattr(model.observation_space, "shape", None)
    found_actions = getattr(model.action_space, "n", None)
    if found_shape != (size,) or found_actions != actions:
        raise ValueError(
            f"{spec!r} was trained on observations of shape {found_shape} and "
            f"{found_actions} actions; {game_spec(game).gymnasium_id} with "
            f"num_players={num_players} gives shape ({size},) and {actions} actions (a model "
            "for another game or player count?)")
