"""hunger-rl: multi-agent RL environments for Hungry and HUNGER: The Show."""

__version__ = "0.1.0"
