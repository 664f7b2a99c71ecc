"""What the SB3 ``VecEnv`` of every batched engine shares: one object for the whole batch.

``training.batched_vec_env`` (Hungry) and ``training.batched_show_vec_env`` (HUNGER) build on
:class:`WholeBatchVecEnv`.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv


class WholeBatchVecEnv(VecEnv):
    """What the batched VecEnvs share: attributes and methods belong to the whole batch, not to
    sub-environments, except ``action_masks``, which ``env_method`` hands out per game."""

    @abstractmethod
    def action_masks(self) -> np.ndarray:
        """(num_envs, actions) booleans: the learners' legal actions."""

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(self, attr_name)] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._indices(indices)]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)
