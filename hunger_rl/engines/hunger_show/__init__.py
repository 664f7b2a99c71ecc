"""HUNGER: The Show: rules (`engine`), tokens, decision objects, observations, batched engine.

The player counts are declared here, without the engine, so that the game registry
(``envs.GAMES``) and the help texts read them at no import cost; everything else takes them
from here (``ShowConfig``'s check, the env, the batched engine, the OpenSpiel game). The other
options' defaults are ``ShowConfig``'s (``engine.OPTION_DEFAULTS``).
"""

MIN_PLAYERS, MAX_PLAYERS = 2, 6  # S1
DEFAULT_PLAYERS = 4  # the env's, the OpenSpiel game's and the commands' default player count
