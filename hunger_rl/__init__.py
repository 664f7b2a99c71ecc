"""hunger-rl: multi-agent RL environments for Hungry and HUNGER: The Show."""

__version__ = "0.1.0"

from hunger_rl.training.interop import register_gymnasium_envs  # noqa: E402

register_gymnasium_envs()
