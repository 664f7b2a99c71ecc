"""Hungry: the rules (`engine`), observation layout, public view (`view`), batched engine.

The player counts are declared here, without the engine, so that the game registry
(``envs.GAMES``) and the help texts read them at no import cost; everything else takes them
from here (the rules' check, the env, the batched engine, the OpenSpiel game). The other
options' defaults are ``engine.OPTION_DEFAULTS``.
"""

MIN_PLAYERS, MAX_PLAYERS = 2, 4  # H2
DEFAULT_PLAYERS = 2  # the env's, the OpenSpiel game's and the commands' default player count
