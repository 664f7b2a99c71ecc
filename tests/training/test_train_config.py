"""The config validator: shipped configs load; each kind of mistake names its key."""

from pathlib import Path

import pytest
import yaml

from hunger_rl.training.config import config_from_dict, load_config

CONFIGS = sorted((Path(__file__).parents[2] / "hunger_rl" / "configs").glob("*.yaml"))
MINIMAL = {"game": "hungry", "num_players": 2}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    config = load_config(path)
    # A variant adds a prefix or suffix: rllib_hungry_2p, hungry_2p_reference.
    assert f"{config.game}_{config.num_players}p" in path.stem


def test_shipped_configs_cover_every_supported_setting():
    assert {p.stem for p in CONFIGS} >= {
        "hungry_2p", "hungry_3p", "hungry_4p",
        "hunger_show_2p", "hunger_show_4p", "hunger_show_6p"}


def test_defaults_fill_missing_sections():
    config = config_from_dict(MINIMAL)
    assert config.ppo.gamma == 1.0 and config.env.batched is False


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"ppo": {"learning_rate": "fast"}},
         "ppo.learning_rate must be a number, a positive number, got 'fast'"),
        ({"ppo": {"learnig_rate": 0.1}}, "unknown key ppo.learnig_rate"),
        ({"epochs": 3}, "unknown key epochs"),
        ({"env": {"n_envs": 0}}, "env.n_envs must be a positive number, got 0"),
        ({"env": {"n_envs": 2.5}}, "env.n_envs must be an integer"),
        ({"env": {"vec_env": "threads"}}, "env.vec_env must be one of"),
        ({"env": {"batched": "yes"}}, "env.batched must be true or false"),
        ({"ppo": {"gamma": 1.5}}, "ppo.gamma must be a number in [0, 1]"),
        ({"network": {"hidden": []}}, "network.hidden must be a non-empty list"),
        ({"network": {"hidden": [64, "wide"]}}, "network.hidden must be a list of an integer"),
        ({"network": {"activation": "gelu"}}, "network.activation must be one of"),
        ({"network": 5}, "network must be a mapping"),
        ({"opponents": {"weights": {"random": -1}}}, "opponents.weights must be"),
        ({"opponents": {"weights": {"wizard": 1}}}, "opponents.weights: unknown opponent"),
        ({"evaluation": {"opponents": ["expert", "oracle"]}},
         "evaluation.opponents: unknown opponent 'oracle'"),
        ({"game": "chess"}, "game must be one of"),
        ({"num_players": 7}, "game_options or num_players rejected by hungry"),
        ({"game_options": {"reward": "gold"}}, "game_options or num_players rejected"),
        ({"ppo": {"batch_size": 300}}, "ppo.batch_size (300) must divide"),
    ],
)
def test_bad_values_name_their_key(changes, message):
    raw = {**MINIMAL, **changes}
    with pytest.raises(ValueError) as error:
        config_from_dict(raw)
    assert message in str(error.value)


def test_missing_required_key():
    with pytest.raises(ValueError, match="missing key num_players"):
        config_from_dict({"game": "hungry"})


def test_bad_files(tmp_path):
    not_yaml = tmp_path / "broken.yaml"
    not_yaml.write_text("game: [hungry\n")
    with pytest.raises(ValueError, match="broken.yaml is not valid YAML"):
        load_config(not_yaml)
    a_list = tmp_path / "list.yaml"
    a_list.write_text(yaml.safe_dump(["game", "hungry"]))
    with pytest.raises(ValueError, match="the config must be a mapping"):
        load_config(a_list)
    with pytest.raises(ValueError, match="cannot read config"):
        load_config(tmp_path / "missing.yaml")
    wrong_key = tmp_path / "wrong.yaml"
    wrong_key.write_text(yaml.safe_dump({**MINIMAL, "ppo": {"lr": 1}}))
    with pytest.raises(ValueError, match=r"wrong.yaml: unknown key ppo.lr; known keys: \["):
        load_config(wrong_key)
