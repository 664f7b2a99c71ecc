"""The endgame head and its fit: positions, playout values, the head's inputs, the fit, the
config rules, a tiny run, a policy file round trip."""

import json

import numpy as np
import pytest
import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from hunger_rl.engines.hungry.engine import HAND_SIZE, NUM_ACTIONS, TOTAL_PLAYS, action_resort
from hunger_rl.engines.hungry.observation import observation_layout
from hunger_rl.engines.hungry.view import HungryView
from hunger_rl.policies.hungry import RESORT_CARDS
from hunger_rl.policies.hungry_batched import (
    CARD_HOME,
    CARD_HOTEL,
    forecast_values_of_observations,
)
from hunger_rl.policies.learned import (
    FORMAT,
    METADATA_KEY,
    PolicyMetadata,
    build_network,
    load_policy,
    save_policy,
)
from hunger_rl.policies.models.encoders import make_encoder
from hunger_rl.policies.models.hungry_endgame import (
    CARD_INPUT_SIZE,
    DEFAULT_HIDDEN,
    INPUT_SIZE,
)
from hunger_rl.policies.models.networks import action_logits
from hunger_rl.training.config import config_from_dict
from hunger_rl.training.endgame import (
    EndgamePositions,
    endgame_positions,
    fit_endgame_head,
    play_values,
)
from hunger_rl.training.positions import encode_positions, game_positions
from hunger_rl.training.train import make_model, make_vec_env, train

ENDGAME = {"positions": 160, "deals": 2, "epochs": 1, "workers": 1}


def scorer_with_head(players=2, hidden=(32, 32), endgame_hidden=DEFAULT_HIDDEN,
                     endgame_model="plays"):
    encoder = make_encoder("hungry", players)
    metadata = PolicyMetadata("hungry", players, encoder.size, NUM_ACTIONS, list(hidden), "tanh",
                              features=True, action_scorer=True, endgame_head=True,
                              endgame_hidden=list(endgame_hidden), endgame_model=endgame_model)
    return build_network(metadata), metadata, encoder


def perturbed_head(endgame_model, endgame_hidden, noise):
    """An endgame head whose weights are its initial ones plus Gaussian ``noise``, and the
    encoder of its inputs."""
    network, _, encoder = scorer_with_head(endgame_hidden=endgame_hidden,
                                           endgame_model=endgame_model)
    head = network.mlp_extractor.endgame
    with torch.no_grad():
        for parameter in head.parameters():
            parameter.add_(noise * torch.randn_like(parameter))
    return head, encoder


@pytest.mark.parametrize("players", [2, 3, 4])
def test_endgame_positions_are_every_turn_after_the_last_draw(players):
    positions = endgame_positions(players, 3 * HAND_SIZE * players, seed=1)
    deck = observation_layout(players)["deck_size"].start
    assert (positions.observations[:, deck] == 0).all()
    np.testing.assert_array_equal(positions.games,
                                  np.repeat(np.arange(3), HAND_SIZE * players))
    hands = positions.observations[:, observation_layout(players)["hand"]]
    # Turn by turn the players' hands run down: the first position has a full hand, the last one
    # card; a player can play each of its cards to its home or its hotel.
    assert hands[0].sum() == HAND_SIZE and hands[HAND_SIZE * players - 1].sum() == 1
    np.testing.assert_array_equal(positions.masks, np.repeat(hands > 0, 2, axis=1))


def test_positions_against_the_expert_are_one_forecast_player_against_experts():
    # Game g's forecast player sits in seat g mod 2: replaying each mover's view through the
    # forecast (its seat) or the expert (the other seat) gives the play it made, wherever its
    # values had a single best play.
    observations, masks = game_positions(2, 4 * TOTAL_PLAYS, seed=3, opponent="expert")
    games, layout = 4, observation_layout(2)
    assert masks.shape == (TOTAL_PLAYS * games, NUM_ACTIONS)
    placed = observations[:, layout["placed"]].reshape(TOTAL_PLAYS, games, 2, NUM_ACTIONS)
    forecast = forecast_values_of_observations(observations, 2)
    expert = forecast_values_of_observations(observations, 2, exact=True)
    checked = 0
    for turn in range(TOTAL_PLAYS - 1):
        for game in range(games):
            row = turn * games + game
            # The mover's play: its placed tourists (its own block, the first) gain it by the
            # next turn, where the next mover sees them as the seat before it (the second).
            made = np.flatnonzero(placed[turn + 1, game, 1] - placed[turn, game, 0])
            # Seat 0 moves first (the default first_player), so seat turn mod 2 moves.
            values = forecast[row] if turn % 2 == game % 2 else expert[row]
            best = np.flatnonzero(values >= values.max() - 1e-9)
            if best.size == 1:
                np.testing.assert_array_equal(made, best, err_msg=f"turn {turn}, game {game}")
                checked += 1
    assert checked > 100
    with pytest.raises(ValueError, match="opponent must be one of"):
        game_positions(2, 100, seed=3, opponent="greedy")


def test_head_inputs_agree_with_the_view():
    positions = endgame_positions(2, 200, seed=2)
    network, _, encoder = scorer_with_head()
    head = network.mlp_extractor.endgame
    features = torch.as_tensor(encoder.batch(positions.observations))
    inputs, legal = head.play_inputs(features)
    inputs = inputs.numpy() * 5.0  # undo INPUT_SCALE
    np.testing.assert_array_equal(legal.numpy(), positions.masks)
    assert head.deck_empty(features).all()
    for row in range(0, 200, 17):
        view = HungryView.from_observation({"observation": positions.observations[row],
                                            "action_mask": positions.masks[row]})
        own_fit = RESORT_CARDS @ view.hand
        unseen_fit = RESORT_CARDS @ view.unseen
        for action in np.flatnonzero(positions.masks[row]):
            card, resort = action // 2, action_resort(action)
            mine = view.resort_counts[0, resort]
            other_best = view.resort_counts[1:, resort].max()
            play = inputs[row, action]
            np.testing.assert_allclose(
                play[[6, 7, 9, 10]], [mine, other_best, own_fit[resort], unseen_fit[resort]],
                atol=1e-4)
            np.testing.assert_allclose(play[0], mine - other_best - unseen_fit[resort],
                                       atol=1e-4)
            assert play[3] == float(mine - other_best - unseen_fit[resort] > 0)
            np.testing.assert_allclose(play[28], view.hand[card], atol=1e-4)  # copies in hand


def test_card_inputs_agree_with_the_view():
    """The cards model's inputs of each card type: its copies in hand and unseen, its two
    plays' forecast values, then its home's and its hotel's tourists and fits."""
    positions = endgame_positions(2, 200, seed=2)
    network, _, encoder = scorer_with_head(endgame_hidden=(8, 8), endgame_model="cards")
    features = torch.as_tensor(encoder.batch(positions.observations))
    inputs = network.mlp_extractor.endgame.card_inputs(features).numpy()
    assert inputs.shape == (200, 25, CARD_INPUT_SIZE)
    forecast = forecast_values_of_observations(positions.observations, 2)
    for row in range(0, 200, 13):
        view = HungryView.from_observation({"observation": positions.observations[row],
                                            "action_mask": positions.masks[row]})
        own_fit, unseen_fit = RESORT_CARDS @ view.hand, RESORT_CARDS @ view.unseen
        for card in range(25):
            cell = inputs[row, card]
            np.testing.assert_allclose(cell[:2], [view.hand[card], view.unseen[card]], atol=1e-4)
            assert cell[4] == float(view.hand[card] > 0) and cell[5] == float(
                view.unseen[card] > 0)
            for play in (0, 1):  # its home play, then its hotel play
                if positions.masks[row, 2 * card + play]:
                    # Legal plays' values are relative to the best legal play (the encoder's).
                    best = forecast[row][positions.masks[row]].max()
                    np.testing.assert_allclose(
                        cell[2 + play] / 10, forecast[row, 2 * card + play] - best, atol=1e-4)
            for offset, resort in ((6, CARD_HOME[card]), (15, CARD_HOTEL[card])):
                assert resort == action_resort(2 * card + offset // 15)
                mine, other = view.resort_counts[0, resort], view.resort_counts[1, resort]
                np.testing.assert_allclose(
                    cell[offset : offset + 9] * 5.0,
                    [mine, other, mine - other, [1, 2, 3, 4, 5, 5, 5, 5, 5, 5][resort],
                     resort < 5, own_fit[resort], unseen_fit[resort],
                     mine - other - unseen_fit[resort], mine + own_fit[resort] - other],
                    atol=1e-4)


@pytest.mark.parametrize(("endgame_model", "endgame_hidden"),
                         [("plays", DEFAULT_HIDDEN), ("cards", (16, 16, 16))])
def test_heads_are_blind_to_which_colour_is_which(endgame_model, endgame_hidden):
    """The hotels differ only by colour, so renaming the colours is a symmetry of the game:
    with any weights, both endgame networks give a renamed position the renamed scores (for
    the cards model this checks the grid's wiring: which cards share a home, which a hotel)."""
    positions = endgame_positions(2, 96, seed=9)
    head, encoder = perturbed_head(endgame_model, endgame_hidden, 0.3)
    features = torch.as_tensor(encoder.batch(positions.observations))
    colours = np.array([3, 0, 4, 1, 2])
    cards = np.arange(25)
    renamed_card = colours[cards // 5] * 5 + cards % 5  # card type = colour * 5 + stars - 1
    renamed_action = (2 * renamed_card[:, None] + np.arange(2)).ravel()
    layout = observation_layout(2)
    renamed = features.clone()
    for seat in range(2):
        start = layout["placed"].start + seat * NUM_ACTIONS
        renamed[:, start + renamed_action] = features[:, start : start + NUM_ACTIONS]
    for block in ("hand", "unseen"):
        renamed[:, layout[block].start + renamed_card] = features[:, layout[block]]
    per_action, start = head.per_action, head.forecast
    forecast = features[:, start : start + NUM_ACTIONS * per_action].reshape(-1, NUM_ACTIONS,
                                                                          per_action)
    moved = forecast.clone()
    moved[:, renamed_action] = forecast
    renamed[:, start : start + NUM_ACTIONS * per_action] = moved.reshape(len(features), -1)
    with torch.no_grad():
        scores, renamed_scores = head(features), head(renamed)
    legal = torch.as_tensor(positions.masks)
    np.testing.assert_allclose(renamed_scores[:, renamed_action][legal], scores[legal],
                               rtol=1e-5, atol=1e-4)
    # Renaming the stars is no symmetry (the homes' points differ): the scores change.
    stars = np.array([1, 0, 2, 3, 4])
    swapped = features.clone()
    swapped_card = cards // 5 * 5 + stars[cards % 5]
    for block in ("hand", "unseen"):
        swapped[:, layout[block].start + swapped_card] = features[:, layout[block]]
    with torch.no_grad():
        assert not torch.allclose(head(swapped), scores, atol=1e-3)


def test_head_scores_only_rows_with_an_empty_deck():
    observations, _ = game_positions(2, 300, seed=3)
    network, _, encoder = scorer_with_head()
    features = torch.as_tensor(encoder.batch(observations))
    deck = observation_layout(2)["deck_size"].start
    np.testing.assert_array_equal(network.mlp_extractor.endgame.deck_empty(features)[:, 0],
                                  observations[:, deck] == 0)
    before = action_logits(network, features)
    with torch.no_grad():
        for parameter in network.mlp_extractor.endgame.parameters():
            parameter.add_(1.0)
    after = action_logits(network, features)
    changed = (before != after).any(dim=1).numpy()
    np.testing.assert_array_equal(changed, observations[:, deck] == 0)


def test_each_row_runs_only_the_head_it_takes_and_scores_as_both_would():
    """The actor runs the endgame head on the rows past the last draw and the corrected prior
    on the others; each row's latent is what computing both heads on every row and choosing
    gives, and a batch of one phase only (no row for the other head) works."""
    observations, _ = game_positions(2, 300, seed=3)
    network, _, encoder = scorer_with_head()
    extractor = network.mlp_extractor
    with torch.no_grad():
        for parameter in extractor.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
        features = torch.as_tensor(encoder.batch(observations))
        latent = extractor.mlp.forward_actor(features)
        both = torch.where(extractor.endgame.deck_empty(features), extractor.endgame(features),
                           extractor._corrected_priors(features, latent))
        np.testing.assert_allclose(extractor.forward_actor(features),
                                   torch.cat((latent, both), dim=1), rtol=0, atol=1e-5)
        empty = extractor.endgame.deck_empty(features)[:, 0]
        for rows in (empty, ~empty):
            np.testing.assert_allclose(extractor.forward_actor(features[rows]),
                                       extractor.forward_actor(features)[rows], rtol=0,
                                       atol=1e-5)


@pytest.mark.parametrize(("endgame_model", "endgame_hidden"),
                         [("plays", DEFAULT_HIDDEN), ("plays", (24, 12, 6)), ("cards", (16, 16))])
def test_legal_scores_are_the_heads_scores_of_the_legal_plays(endgame_model, endgame_hidden):
    """The fit's pass over the legal plays alone gives the full pass's scores there (and their
    gradients), 0 on the illegal plays."""
    positions = endgame_positions(2, 64, seed=4)
    head, encoder = perturbed_head(endgame_model, endgame_hidden, 0.1)
    features = torch.as_tensor(encoder.batch(positions.observations))
    legal = torch.as_tensor(positions.masks)
    gradients = []
    for scores in (head(features), head.legal_scores(features)):
        head.zero_grad()
        (scores * legal).square().sum().backward()
        gradients.append([p.grad.clone() for p in head.parameters()])
        if len(gradients) == 1:
            full = scores.detach()
    packed = scores.detach()
    np.testing.assert_allclose(packed[legal], full[legal], rtol=0, atol=1e-5)
    assert (packed[~legal] == 0).all() and (full[~legal] != 0).any()
    for dense, sparse in zip(*gradients, strict=True):
        np.testing.assert_allclose(sparse, dense, rtol=1e-4, atol=1e-5)


def test_encoded_positions_match_the_encoder_whatever_the_workers():
    observations, _ = game_positions(2, 200, seed=2)
    one = encode_positions(2, observations, None, workers=1, progress=False)
    two = encode_positions(2, observations, None, workers=2, progress=False)
    np.testing.assert_array_equal(one, two)
    direct = make_encoder("hungry", 2).batch(observations.astype(np.float32))
    np.testing.assert_allclose(one.astype(np.float32), direct, rtol=1e-3, atol=1e-3)


def test_play_values_are_legal_win_shares_whatever_the_workers():
    positions = endgame_positions(2, 520, seed=4)
    one = play_values(2, positions, deals=2, seed=5, workers=1, progress=False)
    two = play_values(2, positions, deals=2, seed=5, workers=2, progress=False)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_array_equal(np.isfinite(one), positions.masks)
    legal = one[positions.masks]
    assert ((legal >= 0) & (legal <= 1)).all()
    # The last play of a game decides nothing: both its plays of the one card are measured on
    # the same deals, so they differ only where the card changes the outcome.
    assert legal.std() > 0.1


@pytest.mark.parametrize(("endgame_model", "endgame_hidden"),
                         [("plays", DEFAULT_HIDDEN), ("cards", (32, 32))])
def test_fit_learns_which_plays_are_worth_more(endgame_model, endgame_hidden):
    # Values that reward sending the tourist to its home (even actions): after the fit the head
    # prefers homes wherever it can choose, and nothing but the head has changed.
    torch.manual_seed(0)
    positions = endgame_positions(2, 1600, seed=6)
    rigged = np.where(positions.masks, (np.arange(NUM_ACTIONS) % 2 == 0).astype(float), np.nan)
    network, _, encoder = scorer_with_head(endgame_hidden=endgame_hidden,
                                           endgame_model=endgame_model)
    inputs = encoder.batch(positions.observations)
    frozen = {k: v.clone() for k, v in network.state_dict().items() if ".endgame." not in k}

    def home_share():
        logits = action_logits(network, torch.as_tensor(inputs))
        masked = logits.masked_fill(~torch.as_tensor(positions.masks), -torch.inf)
        return float((masked.argmax(dim=1).numpy() % 2 == 0).mean())

    before = home_share()
    result = fit_endgame_head(network, inputs, positions, rigged, epochs=4, batch_size=64,
                              learning_rate=3e-3, seed=0, progress=False)
    assert result.positions == 1600 - 16 * 10  # games 9 (one in 10) held out
    assert len(result.training_losses) == len(result.held_out_regrets) == 4
    assert result.training_losses[-1] < result.training_losses[0]
    assert result.held_out_regrets[result.best_epoch] == min(result.held_out_regrets)
    assert result.held_out_regrets[result.best_epoch] < 0.05 < result.forecast_regret
    assert home_share() > max(0.95, before + 0.2)
    for key, value in network.state_dict().items():
        if key in frozen:
            assert torch.equal(value, frozen[key]), key


def test_linear_schedule_steps_the_learning_rate_down_each_epoch():
    positions = endgame_positions(2, 16 * 10, seed=6)
    values = np.where(positions.masks, (np.arange(NUM_ACTIONS) % 2 == 0).astype(float), np.nan)
    results = {}
    for schedule in ("constant", "linear"):
        torch.manual_seed(0)
        network, _, encoder = scorer_with_head()
        results[schedule] = fit_endgame_head(
            network, encoder.batch(positions.observations), positions, values, epochs=4,
            batch_size=64, learning_rate=2e-3, seed=0, progress=False,
            learning_rate_schedule=schedule)
    assert results["constant"].learning_rates == [2e-3] * 4
    assert results["linear"].learning_rates == pytest.approx([2e-3, 1.5e-3, 1e-3, 5e-4])
    # The same first epoch (the same step size and minibatches), different ones after it.
    assert results["linear"].training_losses[0] == results["constant"].training_losses[0]
    assert results["linear"].training_losses[1:] != results["constant"].training_losses[1:]


def test_fit_needs_held_out_games():
    positions = endgame_positions(2, 16 * 9, seed=7)
    network, _, encoder = scorer_with_head()
    values = np.where(positions.masks, 0.5, np.nan)
    with pytest.raises(ValueError, match="at least 10 games"):
        fit_endgame_head(network, encoder.batch(positions.observations), positions, values,
                         epochs=1, batch_size=64, learning_rate=1e-3, seed=0, progress=False)
    plain = build_network(PolicyMetadata("hungry", 2, encoder.size, NUM_ACTIONS, [8], "tanh",
                                         features=True, action_scorer=True))
    with pytest.raises(ValueError, match="no endgame head"):
        fit_endgame_head(plain, encoder.batch(positions.observations),
                         EndgamePositions(positions.observations, positions.masks,
                                          positions.games), values, 1, 64, 1e-3, 0, False)


def test_policy_file_keeps_the_head(tmp_path):
    network, metadata, encoder = scorer_with_head(hidden=(16,))
    with torch.no_grad():
        for parameter in network.mlp_extractor.endgame.parameters():
            parameter.normal_()
    path = save_policy(tmp_path / "policy.safetensors", network, metadata)
    loaded = load_policy(path, "hungry", 2)
    assert loaded.metadata.endgame_head
    positions = endgame_positions(2, 32, seed=8)
    assert_logits_close(
        loaded.logits(list(positions.observations)),
        action_logits(network, torch.as_tensor(encoder.batch(positions.observations))).numpy())


def test_policy_file_keeps_a_head_of_other_widths_and_depth(tmp_path):
    widths = [24, 12, 6]
    network, metadata, encoder = scorer_with_head(hidden=(16,), endgame_hidden=widths)
    with torch.no_grad():
        for parameter in network.mlp_extractor.endgame.parameters():
            parameter.normal_()
    path = save_policy(tmp_path / "policy.safetensors", network, metadata)
    loaded = load_policy(path, "hungry", 2)
    assert loaded.metadata.endgame_hidden == widths
    head = loaded.torch_network().mlp_extractor.endgame
    assert [tuple(layer.weight.shape) for layer in head.per_play[::2]] == [
        (24, INPUT_SIZE), (12, 24), (6, 12)]
    assert tuple(head.context.weight.shape) == (6, 6)
    assert [tuple(layer.weight.shape) for layer in head.score[::2]] == [(6, 12), (1, 6)]
    positions = endgame_positions(2, 32, seed=8)
    assert_logits_close(
        loaded.logits(list(positions.observations)),
        action_logits(network, torch.as_tensor(encoder.batch(positions.observations))).numpy())
    # Widths the file's tensors do not have are refused before a network is built.
    for other, message in (([128, 128, 128], r"endgame_hidden \[128, 128, 128\] makes "
                            r"mlp_extractor.endgame.per_play.0.weight of shape \(128, 31\); "
                            r"the file's is \(24, 31\)"),
                           ([24, 12], r"endgame_hidden \[24, 12\] has 2 layers, the file has "
                            r"more \(mlp_extractor.endgame.per_play.4.weight\)"),
                           ([24, 12, 6, 6], r"per_play.6.weight of shape \(6, 6\); the file's "
                            r"is None")):
        with pytest.raises(ValueError, match=message):
            load_policy(with_metadata(path, tmp_path / "bad.safetensors",
                                      {"endgame_hidden": other}), "hungry", 2)


def test_a_file_from_before_the_width_setting_loads_with_the_default_head(tmp_path):
    """Files written before ``endgame_hidden`` existed (the shipped agents') have no such key:
    they load with the head they were written with, 128 wide and two layers deep."""
    network, metadata, encoder = scorer_with_head(hidden=(16,))
    path = save_policy(tmp_path / "policy.safetensors", network, metadata)
    old = with_metadata(path, tmp_path / "old.safetensors", drop="endgame_hidden")
    with safe_open(str(old), framework="pt") as handle:
        assert "endgame_hidden" not in json.loads(handle.metadata()[METADATA_KEY])
    loaded = load_policy(old, "hungry", 2)
    assert loaded.metadata.endgame_hidden == [128, 128]
    assert tuple(loaded.torch_network().mlp_extractor.endgame.per_play[0].weight.shape) == (
        128, INPUT_SIZE)
    positions = endgame_positions(2, 32, seed=8)
    assert_logits_close(
        loaded.logits(list(positions.observations)),
        action_logits(network, torch.as_tensor(encoder.batch(positions.observations))).numpy())


def test_training_starts_the_cards_head_from_pytorchs_initialisation(tiny_scorer_config):
    """SB3 initialises the extractor's layers orthogonally with gain sqrt(2); the cards head's
    residual rounds would grow each card's vector round by round under it (its fit then starts
    from a loss ten times larger and ends worse), so training gives it PyTorch's default
    initialisation back: weights uniform within 1 / sqrt(fan in). The per-play head keeps
    SB3's."""
    def first_layers(model):
        config = config_from_dict({**tiny_scorer_config, "network": {
            **tiny_scorer_config["network"], "endgame_head": True, "endgame_model": model,
            "endgame_hidden": [64, 64]}})
        vec_env = make_vec_env(config)
        head = make_model(config, vec_env).policy.mlp_extractor.endgame
        vec_env.close()
        return [layer for layer in head.modules() if isinstance(layer, torch.nn.Linear)]

    for layer in first_layers("cards"):
        fan_in = layer.weight.shape[1]
        assert layer.weight.abs().max() <= fan_in ** -0.5
        np.testing.assert_allclose(layer.weight.std().item(), (3 * fan_in) ** -0.5, rtol=0.15)
    for layer in first_layers("plays")[:-1]:  # the last is the score, one row
        # Orthogonal rows of norm sqrt(2): the weights' mean square is 2 / fan in.
        rows = min(layer.weight.shape)
        np.testing.assert_allclose(layer.weight.square().sum().item(), 2 * rows, rtol=1e-4)


def test_policy_file_keeps_the_cards_head(tmp_path):
    network, metadata, encoder = scorer_with_head(hidden=(16,), endgame_hidden=(12, 12, 12),
                                                  endgame_model="cards")
    with torch.no_grad():
        for parameter in network.mlp_extractor.endgame.parameters():
            parameter.normal_()
    path = save_policy(tmp_path / "policy.safetensors", network, metadata)
    loaded = load_policy(path, "hungry", 2)
    assert loaded.metadata.endgame_model == "cards"
    head = loaded.torch_network().mlp_extractor.endgame
    assert tuple(head.embed[0].weight.shape) == (12, CARD_INPUT_SIZE)
    assert [tuple(layer[0].weight.shape) for layer in head.rounds] == [(12, 48)] * 3
    positions = endgame_positions(2, 32, seed=8)
    assert_logits_close(
        loaded.logits(list(positions.observations)),
        action_logits(network, torch.as_tensor(encoder.batch(positions.observations))).numpy())
    # Metadata that does not describe the file's head is refused before a network is built.
    for changes, message in (
            ({"endgame_model": "plays"}, r"endgame_model 'plays' with endgame_hidden \[12, 12, "
             r"12\] makes mlp_extractor.endgame.per_play.0.weight of shape \(12, 31\); the "
             r"file's is None"),
            ({"endgame_hidden": [12, 12]}, r"endgame_model 'cards' with endgame_hidden \[12, "
             r"12\] has 2 rounds, the file has more \(mlp_extractor.endgame.rounds.2.0.weight"),
            ({"endgame_hidden": [16, 16, 16]}, r"embed.0.weight of shape \(16, 24\); the "
             r"file's is \(12, 24\)"),
            ({"endgame_hidden": [12, 12, 6]}, "endgame_hidden must be equal widths for the "
             "cards endgame model"),
            ({"endgame_model": "graph"}, r"endgame_model must be one of \['cards', 'plays'\]"),
            ({"endgame_model": ["cards"]}, "endgame_model must be one of")):
        with pytest.raises(ValueError, match=message):
            load_policy(with_metadata(path, tmp_path / "bad.safetensors", changes), "hungry", 2)


def test_a_file_from_before_the_model_setting_loads_with_the_per_play_head(tmp_path):
    network, metadata, encoder = scorer_with_head(hidden=(16,))
    path = save_policy(tmp_path / "policy.safetensors", network, metadata)
    old = with_metadata(path, tmp_path / "old.safetensors", drop="endgame_model")
    loaded = load_policy(old, "hungry", 2)
    assert loaded.metadata.endgame_model == "plays"
    positions = endgame_positions(2, 32, seed=8)
    assert_logits_close(
        loaded.logits(list(positions.observations)),
        action_logits(network, torch.as_tensor(encoder.batch(positions.observations))).numpy())


def assert_logits_close(played, trained):
    """A loaded policy's logits (its numpy forward pass) are the torch network's up to float32
    rounding, relative to their size: these heads' weights are drawn at unit scale, so their
    logits run into the tens of thousands."""
    np.testing.assert_allclose(played, trained, rtol=1e-5,
                               atol=1e-5 * float(np.abs(trained).max()))


def with_metadata(source, target, changes=None, drop=None):
    """A copy of a policy file with some metadata fields changed or one dropped."""
    with safe_open(str(source), framework="pt") as handle:
        fields = json.loads(handle.metadata()[METADATA_KEY])
    fields.update(changes or {})
    fields.pop(drop, None)
    save_file(load_file(str(source)), str(target),
              metadata={"format": FORMAT, METADATA_KEY: json.dumps(fields)})
    return target


def test_tiny_run_with_the_endgame_fit_reports_it(tmp_path, tiny_scorer_config):
    config = {**tiny_scorer_config, "endgame": ENDGAME,
              "network": {**tiny_scorer_config["network"], "endgame_head": True,
                          "endgame_hidden": [16, 16, 16]}}
    train(config_from_dict({**config, "out": str(tmp_path)}), progress=False)
    report = json.loads((tmp_path / "endgame.json").read_text())
    assert report["positions"] == 160 - 16 and report["deals"] == 2
    assert report["best_epoch"] == 0 and len(report["held_out_regrets"]) == 1
    assert 0.0 <= report["forecast_regret"] <= 1.0
    loaded = load_policy(tmp_path / "policy.safetensors", "hungry", 2)
    assert loaded.metadata.endgame_head and loaded.metadata.endgame_hidden == [16, 16, 16]
    assert len(loaded.torch_network().mlp_extractor.endgame.per_play) == 6


def test_tiny_run_fits_a_cards_head(tmp_path, tiny_scorer_config):
    config = {**tiny_scorer_config, "endgame": ENDGAME,
              "network": {**tiny_scorer_config["network"], "endgame_head": True,
                          "endgame_model": "cards", "endgame_hidden": [8, 8]}}
    train(config_from_dict({**config, "out": str(tmp_path)}), progress=False)
    report = json.loads((tmp_path / "endgame.json").read_text())
    assert report["positions"] == 160 - 16 and len(report["held_out_regrets"]) == 1
    loaded = load_policy(tmp_path / "policy.safetensors", "hungry", 2)
    assert loaded.metadata.endgame_model == "cards" and loaded.metadata.endgame_hidden == [8, 8]
    assert len(loaded.torch_network().mlp_extractor.endgame.rounds) == 2


def test_endgame_config_rules(tiny_scorer_config):
    with_head = {**tiny_scorer_config,
                 "network": {**tiny_scorer_config["network"], "endgame_head": True}}
    with pytest.raises(ValueError, match="endgame_head needs network.action_scorer"):
        config_from_dict({**tiny_scorer_config, "network": {"endgame_head": True}})
    with pytest.raises(ValueError, match="set network.endgame_head: true"):
        config_from_dict({**tiny_scorer_config, "endgame": ENDGAME})
    with pytest.raises(ValueError, match="endgame.positions must be 0 or at least 160"):
        config_from_dict({**with_head, "endgame": {"positions": 159}})
    with pytest.raises(ValueError, match="endgame.deals must be"):
        config_from_dict({**with_head, "endgame": {**ENDGAME, "deals": 0}})
    with pytest.raises(ValueError, match="endgame.playout_opponent must be one of"):
        config_from_dict({**with_head, "endgame": {**ENDGAME, "playout_opponent": "greedy"}})
    with pytest.raises(ValueError, match="endgame_hidden sizes the endgame head: set "
                       "network.endgame_head: true"):
        config_from_dict({**tiny_scorer_config, "network": {
            **tiny_scorer_config["network"], "endgame_hidden": [64]}})
    with pytest.raises(ValueError, match="network.endgame_hidden must be"):
        config_from_dict({**with_head, "network": {**with_head["network"],
                                                   "endgame_hidden": []}})
    with pytest.raises(ValueError, match="endgame_model picks the endgame head's network: set "
                       "network.endgame_head: true"):
        config_from_dict({**tiny_scorer_config, "network": {
            **tiny_scorer_config["network"], "endgame_model": "cards"}})
    with pytest.raises(ValueError, match="network.endgame_model must be one of"):
        config_from_dict({**with_head, "network": {**with_head["network"],
                                                   "endgame_model": "graph"}})
    with pytest.raises(ValueError, match=r"the widths must be equal, got \[64, 32\]"):
        config_from_dict({**with_head, "network": {**with_head["network"],
                                                   "endgame_model": "cards",
                                                   "endgame_hidden": [64, 32]}})
    assert config_from_dict(with_head).endgame.positions == 0
