"""The bridge from OpenSpiel's probability samplers to NumPy generators, for both games'
``resample_from_infostate``."""

from __future__ import annotations

from typing import Any

import numpy as np


def sampler_rng(probability_sampler: Any) -> np.random.Generator:
    """A NumPy generator seeded from OpenSpiel's sampler (a callable giving floats in [0, 1)),
    so that a seeded search resamples reproducibly."""
    return np.random.default_rng(int(probability_sampler() * 2**53))
