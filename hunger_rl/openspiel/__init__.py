"""Both games as OpenSpiel games: importing this package registers ``python_hungry`` and
``python_hunger_show`` with ``pyspiel`` (the ``openspiel`` extra: ``pip install
'hunger-rl[openspiel]'``). See docs/openspiel.md."""

try:
    import pyspiel  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise ImportError("hunger_rl.openspiel needs OpenSpiel: pip install 'hunger-rl[openspiel]'"
                      ) from error

from hunger_rl.openspiel import (
    hunger_show,  # noqa: E402,F401 - registers python_hunger_show
    hungry,  # noqa: E402,F401 - registers python_hungry
)
