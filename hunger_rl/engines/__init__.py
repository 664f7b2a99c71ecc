"""The rules engines: the games' rules, observation layouts and batched engines.

Nothing here imports a framework (PettingZoo, Gymnasium, torch): only the standard library,
NumPy and numba, so that policies, search and the batched learners load the rules alone.
"""
