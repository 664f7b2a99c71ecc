"""The schema's declarations: every shipped config loads to the values recorded for it, and
what each key needs (``Rule.backends``, ``Rule.needs``) names keys, backends and game features
that exist, and makes the validator's errors."""

import dataclasses
import json
import typing
from pathlib import Path

import pytest

from hunger_rl.configs import resolve_config
from hunger_rl.training.config import (
    BACKENDS,
    MODE_NAMES,
    TrainConfig,
    config_from_dict,
    load_config,
)
from hunger_rl.training.games import TrainingGame
from hunger_rl.training.recipes import start_chain

CONFIGS = sorted((Path(__file__).parents[2] / "hunger_rl" / "configs").glob("*.yaml"))
# Each shipped config's to_dict(), recorded when the schema's checks became declarations
# (regenerate it only for a deliberate change of a shipped config or a default).
RECORDED = json.loads(Path(__file__).with_name("shipped_configs.json").read_text())


def test_every_shipped_config_is_recorded():
    assert sorted(RECORDED) == [path.name for path in CONFIGS]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_configs_load_to_the_recorded_values(path):
    assert load_config(path).to_dict() == RECORDED[path.name]


def rules(cls=TrainConfig, prefix=""):
    """(key path, type, rule) of every key and section of the schema."""
    hints = typing.get_type_hints(cls)
    for spec in dataclasses.fields(cls):
        yield f"{prefix}{spec.name}", hints[spec.name], spec.metadata["rule"]
        if dataclasses.is_dataclass(hints[spec.name]):
            yield from rules(hints[spec.name], f"{prefix}{spec.name}.")


KEYS = {path: kind for path, kind, _ in rules()}
FEATURES = {f.name for f in dataclasses.fields(TrainingGame) if f.type in (bool, "bool")}


@pytest.mark.parametrize(("path", "rule"), [(path, rule) for path, _, rule in rules()
                                            if rule.backends or rule.needs])
def test_declarations_name_what_exists(path, rule):
    assert set(rule.backends) <= set(BACKENDS)
    for need in rule.needs:
        assert need.key is None or (need.key in KEYS and need.key != path)
        assert need.mode is None or need.mode in MODE_NAMES
        assert need.feature is None or need.feature in FEATURES
        assert need.key or need.mode or need.feature


MINIMAL = {"game": "hungry", "num_players": 2, "evaluation": {"opponents": ["random"]}}


@pytest.mark.parametrize(("changes", "message"), [
    # Made from Rule.backends (and its note).
    ({"backend": "rllib", "network": {"start": "pretrained:hungry_2p:network"}},
     "network.start applies to the sb3 and exploiter_league backends only (expert_iteration "
     "has expert_iteration.start)"),
    ({"backend": "rllib", "opponents": {"pfsp_exponent": 1}},
     "opponents.pfsp_exponent applies to the sb3 backend only"),
    # Made from Rule.needs: another key's value, a mode, a game feature.
    ({"network": {"endgame_head": True}}, "network.endgame_head needs network.action_scorer: true"),
    ({"game": "hunger_show", "num_players": 4, "env": {"margin_shaping": 1}},
     "env.margin_shaping applies to hungry only; HUNGER: The Show has its own game_options: "
     "{reward: shaped}"),
    ({"game": "hunger_show", "num_players": 4, "backend": "expert_iteration",
      "expert_iteration": {"cutoff": 2}},
     "expert_iteration.cutoff applies to hungry only: the hunger_show search takes its network "
     "as a prior; set it to null"),
    ({"game": "hunger_show", "num_players": 4, "game_options": {"decision_mode": "agents"},
      "network": {"action_scorer": True}, "ppo": {"scorer_lr_scale": 0.5}},
     "ppo.scorer_lr_scale applies to a default-mode action scorer only"),
])
def test_errors_are_made_from_the_declarations(changes, message):
    with pytest.raises(ValueError) as error:
        config_from_dict({**MINIMAL, **changes})
    assert str(error.value) == message


def test_a_section_read_by_other_backends_is_not_checked():
    """The rllib backend ignores env, so env's needs are not checked there; the sb3 backend
    ignores the expert_iteration section."""
    config_from_dict({**MINIMAL, "game": "hunger_show", "num_players": 4, "backend": "rllib",
                      "env": {"margin_shaping": 1}})
    config_from_dict({**MINIMAL, "game": "hunger_show", "num_players": 4,
                      "expert_iteration": {"cutoff": 2}})


def test_the_exploiter_league_reads_the_sb3_backends_keys():
    """Its main agent is an sb3 run of the config (``TRAINS_AS``)."""
    league = {"game": "hunger_show", "num_players": 4, "backend": "exploiter_league",
              "env": {"batched": True}, "opponents": {"weights": {"crowd": 1},
                                                      "pfsp_exponent": 1},
              "evaluation": {"opponents": ["random"]}}
    config = config_from_dict({**league, "ppo": {"target_kl": 0.02}})
    assert config.ppo.target_kl == 0.02
    with pytest.raises(ValueError, match=r"ppo.critic_warmup_steps \(100000\) leaves the "
                                         r"policy no step of exploiter_league.main_steps"):
        config_from_dict({**league, "ppo": {"critic_warmup_steps": 100_000}})


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_every_shipped_start_recipe_chain_resolves_and_fits(path):
    """Each link a shipped config's start recipes name is a shipped config that trains its
    game, player count and network (checked without training)."""
    config = load_config(path)
    chain = start_chain(config, resolve_config)
    for link in chain:
        assert (link.game, link.num_players) == (config.game, config.num_players)
    if path.stem == "magnet_league_200k_hunger_show_4p":
        assert [Path(link.out).relative_to(config.out).as_posix() for link in chain] == [
            "start/start/start/start", "start/start/start", "start/start", "start"]
