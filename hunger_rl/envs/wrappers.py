"""PettingZoo's standard AEC wrappers, raising this package's documented error types."""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.wrappers import OrderEnforcingWrapper, TerminateIllegalWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from hunger_rl.engines.validation import IllegalActionError, NotResetError, check_action, describe


def _after_reset(name: str) -> property:
    """An attribute of the wrapped env that ``OrderEnforcingWrapper`` hides before ``reset``,
    read directly: PettingZoo forwards it through two ``__getattr__`` calls, each after a failed
    lookup, and a turn reads several."""

    def read(wrapper: OrderEnforcer) -> Any:
        if not wrapper._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(wrapper.env, name)

    return property(read)


class OrderEnforcer(OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` whose ``step`` and ``observe`` before ``reset`` raise
    ``NotResetError`` (a ``RuntimeError``) instead of a bare ``AssertionError``, whose ``step``
    after every agent left raises ``IllegalActionError`` (the environment cards' promise) where
    PettingZoo's only warns and ignores it, and whose turn state (``agents``,
    ``agent_selection``, ``last()``...) reads straight from the wrapped env."""

    agents = _after_reset("agents")
    agent_selection = _after_reset("agent_selection")
    rewards = _after_reset("rewards")
    terminations = _after_reset("terminations")
    truncations = _after_reset("truncations")
    infos = _after_reset("infos")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            return super().last(observe)  # raises as PettingZoo's wrapper does
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise NotResetError("call reset() before step()")
        if not self.env.agents:
            raise IllegalActionError("the game is over and every agent has left; call reset() "
                                     "to start a new game")
        self._has_updated = True  # what OrderEnforcingWrapper.step does, two frames fewer
        self.env.step(action)

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            raise NotResetError("call reset() before observe()")
        return super().observe(agent)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            return super().agent_iter(max_iter)  # raises as PettingZoo's wrapper does
        return TurnIterable(self, max_iter)


class TurnIterable(AECOrderEnforcingIterable):
    """What ``OrderEnforcer.agent_iter()`` returns: PettingZoo's, iterating a ``TurnIterator``."""

    def __iter__(self) -> TurnIterator:
        return TurnIterator(self.env, self.max_iter)


class TurnIterator(AECOrderEnforcingIterator):
    """PettingZoo's iterator of ``agent_iter()`` with the same checks, reading the turn state
    straight from the wrapped env: there is one since ``agent_iter`` refuses to start before
    ``reset``, and a turn would otherwise read it through two properties of the wrapper."""

    def __next__(self) -> str:
        enforcer = self.env
        wrapped = enforcer.env
        if not wrapped.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert enforcer._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        enforcer._has_updated = False
        return wrapped.agent_selection


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
