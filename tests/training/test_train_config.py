"""The config validator: shipped configs load; each kind of mistake names its key."""

import dataclasses
import typing
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hunger_rl.training.config import (
    EXCERPT_CHARS,
    MESSAGE_CHARS,
    TrainConfig,
    config_from_dict,
    config_reference,
    excerpt,
    load_config,
)

CONFIGS = sorted((Path(__file__).parents[2] / "hunger_rl" / "configs").glob("*.yaml"))
MINIMAL = {"game": "hungry", "num_players": 2}
TINY = Path(__file__).with_name("tiny_hungry.yaml")


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_are_valid(path):
    config = load_config(path)
    if path.stem.startswith("exploit_"):  # an exploiter recipe serves every player count
        assert path.stem == f"exploit_{config.game}"
        return
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
         "ppo.learning_rate must be a number in (0, 1], got 'fast'"),
        ({"ppo": {"learnig_rate": 0.1}}, "unknown key ppo.learnig_rate"),
        ({"epochs": 3}, "unknown key epochs"),
        ({"env": {"n_envs": 0}}, "env.n_envs must be an integer in [1, 4096], got 0"),
        ({"env": {"n_envs": 2.5}}, "env.n_envs must be an integer"),
        ({"env": {"vec_env": "threads"}}, "env.vec_env must be one of"),
        ({"env": {"batched": "yes"}}, "env.batched must be true or false"),
        ({"ppo": {"gamma": 1.5}}, "ppo.gamma must be a number in [0, 1]"),
        ({"network": {"hidden": []}}, "network.hidden must be a list of 1 to 16 integers"),
        ({"network": {"hidden": [64, "wide"]}}, "network.hidden must be a list of 1 to 16 int"),
        ({"network": {"hidden": [64, 0]}}, "network.hidden[1] must be in [1, 4096], got 0"),
        ({"network": {"activation": "gelu"}}, "network.activation must be one of"),
        ({"network": 5}, "network must be a mapping"),
        ({"opponents": {"weights": {"random": -1}}},
         "opponents.weights['random'] must be in [0, 1000000], got -1"),
        ({"opponents": {"weights": {"random": 0}}}, "opponents.weights must have a positive sum"),
        # Defect 7: upper bounds, each naming its key.
        ({"seed": 2**32}, "seed must be an integer in [0, 2147483647], got 4294967296"),
        ({"env": {"n_envs": 10**7}}, "env.n_envs must be an integer in [1, 4096], got 10000000"),
        ({"opponents": {"weights": {"random": 1e308, "greedy": 1e308}}},
         "opponents.weights['random'] must be in [0, 1000000], got 1e+308"),
        ({"total_steps": 10**10}, "total_steps must be an integer in [1, 1000000000]"),
        ({"ppo": {"learning_rate": float("nan")}}, "ppo.learning_rate must be a number in"),
        ({"evaluation": {"workers": 10**6}}, "evaluation.workers must be an integer in [1, 256]"),
        ({"opponents": {"weights": {"wizard": 1}}}, "opponents.weights: unknown opponent"),
        ({"evaluation": {"opponents": ["expert", "oracle"]}},
         "evaluation.opponents: unknown opponent 'oracle'"),
        ({"game": "chess"}, "game must be one of"),
        ({"num_players": 7}, "game_options or num_players rejected by hungry"),
        ({"game_options": {"reward": "gold"}}, "game_options or num_players rejected"),
        ({"ppo": {"batch_size": 300}}, "ppo.batch_size (300) must divide"),
        ({"ppo": {"target_kl": 0}}, "ppo.target_kl must be a number or null in (0, 10], got 0"),
        ({"ppo": {"target_kl": "small"}}, "ppo.target_kl must be a number or null"),
        ({"ppo": {"target_kl": 0.01}, "backend": "rllib"},
         "ppo.target_kl applies to the sb3 backend only"),
        ({"ppo": {"learning_rate_schedule": "cosine"}},
         "ppo.learning_rate_schedule must be one of ['constant', 'linear'], got 'cosine'"),
        ({"ppo": {"learning_rate_schedule": "linear"}, "backend": "rllib"},
         "ppo.learning_rate_schedule applies to the sb3 backend only"),
        ({"network": {"action_value_gain": 0}},
         "network.action_value_gain must be a number in [0.001, 1000], got 0"),
        ({"network": {"action_value_gain": 10, "action_scorer": True}},
         "network.action_value_gain goes with the plain MLP (an action scorer reads the values "
         "with its own weight)"),
        ({"network": {"action_value_gain": 10}, "backend": "rllib"},
         "network.action_value_gain applies to the sb3 backend only"),
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


def write(tmp_path, text, name="config.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def alias_bomb(levels=9):
    """The classic "billion laughs": each level lists nine aliases of the one before."""
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return lines


@pytest.mark.parametrize("where", ["seed", "game_options"])
def test_an_alias_bomb_fails_fast_with_a_short_message(tmp_path, where):
    bomb = alias_bomb()
    if where == "seed":
        text = "\n".join(["game: hungry", "num_players: 2", "x:", *("  " + b for b in bomb),
                          "seed: *l8", ""])
    else:
        text = "\n".join(["game: hungry", "num_players: 2", "game_options:",
                          *("  " + b for b in bomb), ""])
    assert len(text.encode()) < 500  # 9**9 values once the aliases are expanded
    with pytest.raises(ValueError, match="holds more than 10000 values") as error:
        load_config(write(tmp_path, text))
    assert len(str(error.value)) < 200


def test_a_bad_value_shows_a_bounded_excerpt():
    bomb = ["lol"] * 9
    for _ in range(9):
        bomb = [bomb] * 9
    assert len(excerpt(bomb)) <= EXCERPT_CHARS
    huge = ["x" * 1000] * 1000
    with pytest.raises(ValueError, match="seed must be an integer") as error:
        config_from_dict({**MINIMAL, "seed": huge})
    assert len(str(error.value)) < 60 + EXCERPT_CHARS
    with pytest.raises(ValueError, match="seed must be an integer") as error:
        config_from_dict({**MINIMAL, "seed": 10**3000})
    assert len(str(error.value)) < 60 + EXCERPT_CHARS
    with pytest.raises(ValueError, match="game_options or num_players rejected") as error:
        config_from_dict({**MINIMAL, "game_options": {"x" * 5000: 1}})
    assert len(str(error.value)) < 60 + MESSAGE_CHARS


@pytest.mark.parametrize("opener", ["[", "{a: "])
def test_deep_nesting_is_a_clear_error(tmp_path, opener):
    closer = "]" if opener == "[" else "}"
    text = f"game: hungry\nnum_players: 2\ngame_options: {{x: {opener * 1000}1{closer * 1000}}}\n"
    with pytest.raises(ValueError, match=r"nests deeper than 12 levels \(line 3\)"):
        load_config(write(tmp_path, text))
    deep = 1
    for _ in range(1000):
        deep = [deep]
    with pytest.raises(ValueError, match=r"nests deeper than 12 levels, at game_options.x\[0\]"):
        config_from_dict({**MINIMAL, "game_options": {"x": deep}})


def test_duplicate_keys_are_refused(tmp_path):
    with pytest.raises(ValueError, match="found duplicate key 'seed'"):
        load_config(write(tmp_path, "game: hungry\nnum_players: 2\nseed: 1\nseed: 2\n"))
    with pytest.raises(ValueError, match="found duplicate key 'n_envs'"):
        load_config(write(tmp_path, "game: hungry\nnum_players: 2\n"
                                    "env: {n_envs: 2, n_envs: 4}\n"))
    # A merge key's values may be overridden: that is what a merge is for.
    merged = load_config(write(tmp_path, "game: hungry\nnum_players: 2\n"
                                         "env: {<<: {n_envs: 2}, n_envs: 4}\n"))
    assert merged.env.n_envs == 4


def test_non_utf8_and_oversized_files_name_the_file(tmp_path):
    latin = tmp_path / "latin1.yaml"
    latin.write_bytes("game: hungry\nnum_players: 2\nout: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"config .*latin1.yaml is not UTF-8 text"):
        load_config(latin)
    big = write(tmp_path, "# " + "x" * (1 << 20) + "\n", "big.yaml")
    with pytest.raises(ValueError, match=r"config .*big.yaml is larger than 1048576 bytes"):
        load_config(big)


def test_an_integer_too_long_for_int_is_a_clear_error(tmp_path):
    path = write(tmp_path, "game: hungry\nnum_players: 2\nseed: " + "9" * 5000 + "\n")
    with pytest.raises(ValueError, match=r"config .*config.yaml: Exceeds the limit"):
        load_config(path)


def test_the_config_reference_is_generated_from_the_schema():
    """docs/config.md is the schema's own rendering: regenerate it with
    ``python -m hunger_rl.training.config > docs/config.md`` after a schema change."""
    reference = Path(__file__).parents[2] / "docs" / "config.md"
    assert reference.read_text() == config_reference()


def test_the_reference_shows_the_defaults_the_code_uses():
    defaults = config_from_dict(MINIMAL)
    reference = config_reference()
    assert f"| `total_steps` | `{defaults.total_steps}` |" in reference
    assert defaults.total_steps == 1_000_000
    assert f"| `ppo.learning_rate` | `{defaults.ppo.learning_rate}` | a number in (0, 1] |" \
        in reference


def schema_paths(cls=TrainConfig, prefix=()):
    """Every key path of the schema: ("ppo", "gamma"), ("seed",), ..."""
    for spec in dataclasses.fields(cls):
        kind = typing.get_type_hints(cls)[spec.name]
        if dataclasses.is_dataclass(kind):
            yield prefix + (spec.name,)
            yield from schema_paths(kind, prefix + (spec.name,))
        else:
            yield prefix + (spec.name,)


PATHS = sorted(schema_paths()) + [("wizard",), ("ppo", "lr")]
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats()
    | st.sampled_from(["random", "greedy", "self", "hungry", "tanh", "dummy", "x/y", "", "2"])
    | st.text(max_size=6), lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["random", "greedy", "self", "x"]) | st.text(max_size=4),
                      inner, max_size=3), max_leaves=8)


@settings(max_examples=150, deadline=None)
@given(changes=st.lists(st.tuples(st.sampled_from(PATHS), VALUES), max_size=4))
def test_fuzzed_configs_load_or_are_a_value_error(changes):
    """Any values at any key paths of a valid config: it loads, or a ValueError names what is
    wrong (never another exception type)."""
    raw = yaml.safe_load(TINY.read_text())
    for path, value in changes:
        node = raw
        for key in path[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        node[path[-1]] = value
    try:
        config_from_dict(raw)
    except ValueError as error:
        assert str(error) and len(str(error)) < 1000


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_config_files_load_or_are_a_value_error(tmp_path, data):
    """A valid file with a random cut, splice or byte inserted: it loads, or a ValueError that
    names the file."""
    original = TINY.read_bytes()
    start = data.draw(st.integers(0, len(original)))
    end = data.draw(st.integers(start, len(original)))
    insert = data.draw(st.binary(max_size=8) | st.sampled_from(
        [b"&a ", b"*a", b"{", b"[", b": ", b"\n  ", b"!!python/name:os.system", b"\t", b"---\n",
         b"<<: ", b"!!binary AA==", b"2001-12-14"]))
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(original[:start] + insert + original[end:])
    try:
        load_config(path)
    except ValueError as error:
        assert str(path) in str(error)
