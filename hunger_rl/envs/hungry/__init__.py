"""Hungry's PettingZoo environment (`env`) and renderer (`render`)."""
