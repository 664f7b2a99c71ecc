"""Checks of the game parameters both OpenSpiel games share, and the bridge from OpenSpiel's
probability samplers to NumPy generators."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hunger_rl.envs.validation import InvalidTypeError, InvalidValueError, describe


def check_parameters(game: str, defaults: Mapping[str, Any],
                     params: Mapping[str, Any] | None) -> dict[str, Any]:
    """``params`` completed with ``defaults``; an unknown name or a value of another type than
    its default's raises an error naming the game and the parameter."""
    params = dict(params or {})
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise InvalidValueError(f"{game}: unknown parameter(s) {unknown}; its parameters are "
                                f"{sorted(defaults)}")
    checked = dict(defaults)
    for name, value in params.items():
        expected = type(defaults[name])
        if type(value) is not expected:
            raise InvalidTypeError(f"{game}: parameter {name} must be a {expected.__name__}, "
                                   f"got {describe(value)}")
        checked[name] = value
    return checked


def player_choice(value: str, num_players: int, other: str) -> int | str:
    """A seat from ``player_i`` (0 <= i < ``num_players``), or the word ``other``."""
    names = [f"player_{seat}" for seat in range(num_players)]
    if value == other:
        return other
    if value not in names:
        raise InvalidValueError(f"first_player must be one of {[*names, other]}, got {value!r}")
    return names.index(value)


def sampler_rng(probability_sampler: Any) -> np.random.Generator:
    """A NumPy generator seeded from OpenSpiel's sampler (a callable giving floats in [0, 1)),
    so that a seeded search resamples reproducibly."""
    return np.random.default_rng(int(probability_sampler() * 2**53))
