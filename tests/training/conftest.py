import pytest


@pytest.fixture
def tiny_scorer_config():
    """A few hundred batched steps of the action-scorer learner, for warm-start runs."""
    return {"game": "hungry", "num_players": 2, "seed": 4, "total_steps": 256,
            "checkpoint_every_steps": 256, "env": {"n_envs": 8, "batched": True},
            "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
            "network": {"hidden": [32, 32], "action_scorer": True},
            "opponents": {"weights": {"forecast": 1.0}},
            "evaluation": {"every_steps": 256, "games": 4, "opponents": ["random"],
                           "final_games": 4}}
