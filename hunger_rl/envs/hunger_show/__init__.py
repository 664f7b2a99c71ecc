"""HUNGER: The Show's PettingZoo environments (`env`, the full-decision `full_env`) and renderer."""
