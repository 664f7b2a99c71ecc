"""The command line as a new user meets it: help texts, shipped configs, the base install."""

import subprocess
import sys
import textwrap

import pytest

from hunger_rl.cli import build_parser, main
from hunger_rl.configs import config_names, config_path, resolve_config
from hunger_rl.envs import GAMES, player_counts_text
from hunger_rl.policies.registry import spec_names

# Run in a fresh interpreter where the train extra's modules cannot be imported, as after a
# plain `pip install hunger-rl`.
WITHOUT_TRAIN_EXTRA = textwrap.dedent("""
    import sys
    from importlib.abc import MetaPathFinder

    BLOCKED = {"torch", "yaml", "stable_baselines3", "sb3_contrib", "matplotlib", "safetensors",
               "tensorboard", "ray"}

    class NotInstalled(MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NotInstalled())
    from hunger_rl.cli import main
    print("exit", main(sys.argv[1:]))
""")


def run_without_train_extra(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_TRAIN_EXTRA, *args],
                          capture_output=True, text=True, timeout=300)


def test_help_describes_the_tool_and_every_policy_spec(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "Hungry and" in text and "The ``hunger-rl`` command" not in text
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for game in ("hungry", "hunger_show"):
        for spec in spec_names(game):
            assert spec in text
    assert "crowd" in text and "search:N" in text


def test_configs_are_listed_and_usable_by_name_or_path(capsys, tmp_path):
    assert main(["configs"]) == 0
    listed = capsys.readouterr().out
    assert {"hungry_2p", "hunger_show_4p", "rllib_hungry_2p"} <= set(config_names())
    for name in config_names():
        assert name in listed
    assert resolve_config("hungry_2p") == config_path("hungry_2p.yaml")
    own = tmp_path / "mine.yaml"
    own.write_text("game: hungry\nnum_players: 2\n")
    assert resolve_config(str(own)) == own
    assert main(["train", "no_such_config"]) == 2
    assert "no config named 'no_such_config'" in capsys.readouterr().err


def test_demo_takes_the_game_s_usual_player_count(capsys):
    assert main(["demo", "hunger_show", "--seed", "3"]) == 0
    assert "player_3" in capsys.readouterr().out  # 4 players by default
    assert build_parser().parse_args(["demo", "hungry"]).players is None


def test_scripted_matches_run_on_the_base_install():
    """evaluate, tournament, demo and configs need none of the train extra's modules (importing
    one would fail in this interpreter)."""
    for args in (["evaluate", "--game", "hungry", "--policies", "expert", "random",
                  "--games", "4", "--workers", "1", "--no-progress"],
                 ["tournament", "--game", "hunger_show", "--players", "3", "--policies",
                  "random", "greedy", "--games", "6", "--workers", "1", "--no-progress"],
                 ["demo", "hungry"], ["configs"]):
        done = run_without_train_extra(*args)
        assert done.stdout.rstrip().endswith("exit 0"), (args, done.stderr[-2000:])


def test_a_missing_extra_is_one_line_naming_the_install():
    done = run_without_train_extra("train", "hungry_2p")
    assert done.stdout.strip() == "exit 2"
    assert done.stderr.strip().splitlines() == [
        "hunger-rl: error: `hunger-rl train` needs the train extra (no module 'yaml'): "
        "pip install 'hunger-rl[train]'"]


@pytest.mark.parametrize("name", sorted(GAMES))
def test_game_specs_match_their_environments(name):
    """The registry's facts are the environments' own: player counts, API, default count."""
    spec = GAMES[name]
    for players in (spec.min_players, spec.max_players, spec.default_players):
        game_env = spec.make_env(players)
        assert len(game_env.possible_agents) == players
        assert hasattr(game_env, "agent_iter") == (spec.api == "aec")
    for players in (spec.min_players - 1, spec.max_players + 1):
        with pytest.raises(ValueError):
            spec.make_env(players)
    assert f"{name} {spec.min_players}-{spec.max_players}" in player_counts_text()
