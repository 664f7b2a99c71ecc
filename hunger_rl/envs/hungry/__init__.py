"""Hungry: the rules engine (``engine``), the PettingZoo environment (``env``) and renderers."""
