import contextlib
from pathlib import Path

import pytest
import yaml


def load_yaml(path):
    """A YAML file's contents, as written (keys in their order)."""
    return yaml.safe_load(Path(path).read_text())


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


class Killed(Exception):
    """Stands for a kill right after a checkpoint was written."""


def _kill(*args):
    raise Killed


@contextlib.contextmanager
def killed_at_checkpoint(monkeypatch, number: int):
    """Inside the block, the trainer is killed right after the ``number``-th checkpoint any run
    writes before its end (where it goes on to start the games afresh); the block expects it."""
    from hunger_rl.training import train as train_module

    calls = []
    original = train_module._start_games_afresh

    def kill_at_the_number(*args):
        calls.append(1)
        if len(calls) == number:
            raise Killed
        return original(*args)

    with monkeypatch.context() as patch:
        patch.setattr(train_module, "_start_games_afresh", kill_at_the_number)
        with pytest.raises(Killed):
            yield


@pytest.fixture
def train_killed_and_resumed(monkeypatch):
    """``run(config)``: train ``config`` killed right after its first checkpoint before the end
    (where the trainer goes on to start the games afresh), then resume it from its run folder
    to the end."""
    from hunger_rl.training import train as train_module

    def run(config):
        with monkeypatch.context() as patch:
            patch.setattr(train_module, "_start_games_afresh", _kill)
            with pytest.raises(Killed):
                train_module.train(config, progress=False)
        return train_module.train(config, resume=config.out, progress=False)

    return run


def assert_same_weights(first, second):
    """Two policy (or checkpoint tensor) files hold bit-identical tensors."""
    from safetensors.torch import load_file

    first, second = load_file(str(first)), load_file(str(second))
    assert first.keys() == second.keys()
    for name, tensor in first.items():
        assert tensor.equal(second[name]), name
