"""What both OpenSpiel games share about their states: the serialised form, and the calls they
refuse.

OpenSpiel serialises a Python game's state as its history and a pickle of the object's
attributes, and ``Game.deserialize_state`` unpickles whatever text it is given, so a crafted
string runs any code. Both games' ``state.serialize()`` and ``game.deserialize_state(text)``
override that with data: a JSON object naming the game, the moves from the initial state and
what they do not say (``state_text``), which ``read_state_text`` reads and checks; the state
is then rebuilt by replaying the moves, each checked by the rules engine. Anything else (a
pickle included) is refused with a :class:`StateTextError`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from hunger_rl.engines.validation import InvalidValueError, describe, is_integer

# The version of the serialised form, written into it: a later form can still read this one.
STATE_VERSION = 1
# How OpenSpiel's own form of a Python game's state starts (then ``move_number=``, then
# ``__dict__=`` and the pickle).
OPENSPIEL_FORM = "history="


class StateTextError(InvalidValueError):
    """Text that is not a serialised state of the game, or whose moves the game refuses."""


class UnsupportedCallError(NotImplementedError):
    """An OpenSpiel call the game does not support (OpenSpiel's own answer is "Tried to call
    pure virtual function")."""


def state_text(game: str, fields: dict[str, Any]) -> str:
    """The serialised form of a state of ``game``: ``fields`` (JSON data) with its name and
    the form's version."""
    return json.dumps({"game": game, "version": STATE_VERSION, **fields},
                      separators=(",", ":"))


def read_state_text(text: Any, game: str, fields: Sequence[str]) -> dict[str, Any]:
    """The ``fields`` of ``text``, a serialised state of ``game`` (``state_text``), or a
    :class:`StateTextError` saying why it is not one."""
    expected = f"{game}: a serialised state is the JSON that state.serialize() writes"
    if not isinstance(text, str):
        raise StateTextError(f"{expected}, got {describe(text)}")
    if text.startswith(OPENSPIEL_FORM):
        raise StateTextError(f"{expected}; this is OpenSpiel's own form, whose pickle it does "
                             "not read: unpickling runs whatever code the text holds")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise StateTextError(f"{expected}; this is not JSON ({error})") from None
    if not isinstance(data, dict):
        raise StateTextError(f"{expected}; this JSON is {describe(data)}")
    if data.get("game") != game:
        raise StateTextError(f"{expected}; this one's game is {describe(data.get('game'))}")
    if data.get("version") != STATE_VERSION:
        raise StateTextError(f"{expected}; its version is {describe(data.get('version'))}, "
                             f"this one reads version {STATE_VERSION}")
    keys = {"game", "version", *fields}
    if set(data) != keys:
        missing, unknown = sorted(keys - set(data)), sorted(set(data) - keys)
        raise StateTextError(f"{expected}; missing {missing}, unknown {unknown}")
    return {name: data[name] for name in fields}


def moves_of(value: Any, game: str, name: str = "history") -> list[int]:
    """``value`` as a list of moves (OpenSpiel actions: integers, ``INVALID_ACTION`` = -1 for
    an eliminated player's entry), or a :class:`StateTextError`."""
    if not isinstance(value, list) or not all(
            is_integer(move) and -1 <= move < 2**31 for move in value):
        raise StateTextError(f"{game}: a serialised state's {name} must be a list of actions "
                             f"(integers from -1), got {describe(value)}")
    return value


def refused_move(game: str, index: int, error: Exception) -> StateTextError:
    """The error for a serialised state whose move ``index`` the game refuses."""
    return StateTextError(f"{game}: a serialised state's move {index} cannot be played: "
                          f"{error}")


def unsupported(game: str, call: str, instead: str) -> UnsupportedCallError:
    """The error for an OpenSpiel call ``game`` does not support."""
    return UnsupportedCallError(f"{game} does not support {call}: {instead}")


class MeanFieldRefusals:
    """Mixed into both games' states: OpenSpiel's mean-field calls, which neither supports,
    refused with an error naming the game."""

    def distribution_support(self):
        raise unsupported(self.get_game().get_type().short_name, "distribution_support()",
                          "it is not a mean-field game")

    def update_distribution(self, distribution):
        raise unsupported(self.get_game().get_type().short_name, "update_distribution()",
                          "it is not a mean-field game")
