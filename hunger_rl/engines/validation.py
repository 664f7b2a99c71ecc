"""Error types and input checks shared by every game's engine and environments.

Every refusal of bad input (an action, an action dict, reset options, constructor arguments, a
decision object's answer) raises a subclass of :class:`InvalidInputError` before anything has
changed, so a caller can catch one type and carry on with the game as it was. Each subclass is
also the matching built-in error (``ValueError``, ``TypeError``, ``RuntimeError``), so code that
catches those keeps working. No RL library is imported here: the rules engines use it too.
"""

from __future__ import annotations

import reprlib
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np


class InvalidInputError(Exception):
    """Bad input refused by a game or an environment; nothing has changed."""


class InvalidValueError(InvalidInputError, ValueError):
    """An input of an accepted type whose value is not allowed."""


class InvalidTypeError(InvalidInputError, TypeError):
    """An input of a type that is not accepted."""


class NotResetError(InvalidInputError, RuntimeError):
    """An environment used before its first ``reset()``."""


class IllegalActionError(InvalidValueError):
    """An action or action dict that the game refuses in its current state: out of range,
    masked, for a finished or unknown agent, missing, or sent after the end."""


class ActionTypeError(IllegalActionError, TypeError):
    """An action that is not an integer (a float, a bool, a string, None, ...)."""


_short = reprlib.Repr()
_short.maxstring = 40
_short.maxother = 40
_short.maxlist = _short.maxtuple = _short.maxdict = _short.maxset = 6
_short.maxlevel = 2


def describe(value: Any) -> str:
    """A bounded description of a value for error messages, e.g. ``str 'can4'``."""
    with np.errstate(all="ignore"):  # reprlib sorts sets and dict keys: NumPy may compare
        return f"{type(value).__name__} {_short.repr(value)}"


def key_path(root: str, *keys: Any) -> str:
    """``options["holdings"]["player_0"]`` style path naming where a bad value sits."""
    return root + "".join(f'["{k}"]' if isinstance(k, str) else f"[{_short.repr(k)}]"
                          for k in keys)


def is_integer(value: Any) -> bool:
    """Whether ``value`` is an exact integer: ``int`` or a NumPy integer, never a bool."""
    return type(value) is int or (isinstance(value, int | np.integer)
                                  and not isinstance(value, bool))


def check_int(value: Any, name: str, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` if it is an exact integer within [low, high], else a clear error.

    Floats, bools, strings and other number types are refused rather than converted.
    """
    if not is_integer(value):
        raise InvalidTypeError(f"{name}: expected an integer, got {describe(value)}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = (f"{low} to {high}" if low is not None and high is not None
                  else f"at least {low}" if low is not None else f"at most {high}")
        raise InvalidValueError(f"{name}: expected an integer {bounds}, got {value}")
    return value


# More digits than any count, seed or seat a user writes; ``int`` refuses over 4,300.
MAX_TYPED_DIGITS = 30


def typed_count(text: str) -> int | None:
    """The number ``text`` writes in ASCII digits (at most ``MAX_TYPED_DIGITS``), else None.
    What a user types (a policy spec's N, a command-line number, a seat in a URL, a menu
    choice) is read strictly: ``str.isdigit`` also passes '²', which ``int`` then refuses, and
    ``int`` reads other scripts' digits ('٠' is 0), signs, spaces and underscores."""
    if text.isascii() and text.isdigit() and len(text) <= MAX_TYPED_DIGITS:
        return int(text)
    return None


def check_bool(value: Any, name: str) -> bool:
    """``value`` as a ``bool`` if it is one (NumPy's included); strings and numbers refused."""
    if not isinstance(value, bool | np.bool_):
        raise InvalidTypeError(f"{name}: expected True or False, got {describe(value)}")
    return bool(value)


def check_choice(value: Any, name: str, choices: Sequence[str | None]) -> Any:
    """``value`` if it is one of ``choices`` (strings, or None where listed)."""
    if (value is None and None in choices) or (isinstance(value, str) and value in choices):
        return value
    raise InvalidValueError(f"{name} must be one of {list(choices)}, got {describe(value)}")


# What an environment does with an illegal action: refuse it (raise, nothing changes) or end the
# game for the player who sent it.
ILLEGAL_ACTION_MODES = ("raise", "terminate")


# NumPy's legacy seeding (``np.random.seed``, ``RandomState``: SB3's ``set_random_seed``,
# OpenSpiel's bots) takes seeds below this; the envs' own generators take any seed >= 0.
LEGACY_NUMPY_SEED_LIMIT = 2**32


def check_seed(seed: Any) -> int | None:
    """A ``reset`` seed: None or a non-negative exact integer, of any size (Python's
    ``random.Random`` and NumPy's ``default_rng`` take any)."""
    return None if seed is None else check_int(seed, "seed", low=0)


def check_list(value: Any, path: str, what: str) -> list:
    """``value`` as a list if it is a list or tuple; a string or a map is not read as one."""
    if not isinstance(value, list | tuple):
        raise InvalidTypeError(f"{path}: expected a list of {what}, got {describe(value)}")
    return list(value)


def check_mapping(value: Any, path: str, what: str) -> Mapping:
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"{path}: expected a dict of {what}, got {describe(value)}")
    return value


def split_options(options: Any, known: Iterable[str]) -> dict[str, Any]:
    """The known keys of ``reset`` options; unknown keys are dropped with a warning (PettingZoo's
    api_test resets with made-up options). ``options`` must be None or a dict."""
    if options is None:
        return {}
    check_mapping(options, "options", "reset options")
    known = tuple(known)
    unknown = [key for key in options if key not in known]
    if unknown:
        names = sorted(_short.repr(key) for key in unknown)
        warnings.warn(f"ignoring unknown reset options [{', '.join(names)}]; known: "
                      f"{list(known)}", stacklevel=3)
    return {key: value for key, value in options.items() if key in known}


def check_action_array(actions: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``actions`` as an int64 array of ``shape`` (a batch's actions): integers only, else
    ActionTypeError; another shape, IllegalActionError. Their legality is the game's to check."""
    array = np.asarray(actions)
    if array.dtype.kind not in "iu":
        raise ActionTypeError(f"actions must be ints of shape {shape}, got shape {array.shape} "
                              f"dtype {array.dtype}")
    if array.shape != shape:
        raise IllegalActionError(f"actions must be ints of shape {shape}, got shape "
                                 f"{array.shape} dtype {array.dtype}")
    return array.astype(np.int64, copy=False)


def check_action(action: Any, num_actions: int, agent: str | None = None) -> int:
    """``action`` as an ``int`` in 0..num_actions-1, or ActionTypeError / IllegalActionError.

    Accepted: ``int``, NumPy integers and 0-d integer arrays. Refused: bools, floats (even
    whole ones), strings, None and every other type: nothing is rounded or converted.
    """
    if type(action) is int and 0 <= action < num_actions:
        return action
    prefix = f"{agent}: " if agent is not None else ""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if not is_integer(action):
        raise ActionTypeError(f"{prefix}an action must be an integer in 0..{num_actions - 1}, "
                              f"got {describe(action)}")
    if not 0 <= action < num_actions:
        raise IllegalActionError(f"{prefix}action {action} is outside the action space "
                                 f"0..{num_actions - 1}")
    return int(action)
