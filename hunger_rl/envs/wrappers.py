"""PettingZoo's standard AEC wrappers, raising this package's documented error types."""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import OrderEnforcingWrapper, TerminateIllegalWrapper

from hunger_rl.envs.validation import IllegalActionError, NotResetError, check_action, describe


class OrderEnforcer(OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` whose ``step`` and ``observe`` before ``reset`` raise
    ``NotResetError`` (a ``RuntimeError``) instead of a bare ``AssertionError``, and whose
    ``step`` after every agent left raises ``IllegalActionError`` (the environment cards'
    promise) where PettingZoo's only warns and ignores it."""

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise NotResetError("call reset() before step()")
        if not self.agents:
            raise IllegalActionError("the game is over and every agent has left; call reset() "
                                     "to start a new game")
        super().step(action)

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            raise NotResetError("call reset() before observe()")
        return super().observe(agent)


class TerminateIllegal(TerminateIllegalWrapper):
    """``TerminateIllegalWrapper``: a masked action ends the game with ``illegal_reward`` for
    the offender, while an action that is no action at all (not an exact integer, or outside
    the action space) raises ``ActionTypeError`` / ``IllegalActionError`` and changes nothing,
    as it does without the wrapper; so does an action for an agent that has finished."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.agents and (self.terminations[agent] or self.truncations[agent]):
            if action is not None:
                raise IllegalActionError(f"{agent} has finished; a finished agent must be "
                                         f"stepped with None, got {describe(action)}")
        elif self.agents:
            action = check_action(action, self.action_space(agent).n, agent)
        super().step(action)
