"""Trained agents shipped with the package: policy files and their catalogue, agents.json."""
