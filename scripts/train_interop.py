"""Short trainings of Hungry 2p with TorchRL and with Tianshou, each through its own PettingZoo
recipe, then the win share of the learned policy against `random` (seats alternating, 95%
Wilson interval) and a bar figure.

    python scripts/train_interop.py --out runs/interop          # both libraries (minutes)
    python scripts/train_interop.py --library tianshou --games 100 --eval-games 100

Each library's network is saved as `OUT/LIBRARY.safetensors`, which the spec
`python:train_interop:PlayScorerPolicy:OUT/LIBRARY.safetensors` plays wherever the suite takes a
policy (with `scripts` on the Python path: `PYTHONPATH=scripts hunger-rl benchmark ...`).

Needs the `interop` extra. The learner is player_0 of a game whose first player is drawn at
random, so it learns both seats; the other seat plays uniformly random legal cards. Both train
on Hungry's "score" reward (the zero-sum score margin, terminal) and use the same network,
`PlayScorer`: one small MLP shared by all plays, each scored from public counts of its resorts.

- TorchRL: `PettingZooWrapper(hungry_v0.env(...), use_mask=True)` and a `Collector`;
  the learner is a `ProbabilisticActor` with a `MaskedCategorical`, the opponent the same
  with constant logits (uniform over its legal actions). Update: PPO's clipped objective on
  each game's return less the score margin already on the table, with a learned value for the
  rest (a game is one episode, 24 decisions each).
- Tianshou: its tic-tac-toe recipe: `PettingZooEnv`, a `DQN` learner against
  `MARLRandomDiscreteMaskedOffPolicyAlgorithm` in a `MultiAgentOffPolicyAlgorithm`, an
  off-policy trainer; the return horizon spans a whole game (`TIANSHOU_HORIZON`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from hunger_rl.arena.evaluation import wilson_interval
from hunger_rl.engines.hungry.engine import ACTION_RESORT, NUM_ACTIONS, NUM_RESORTS, TOTAL_PLAYS
from hunger_rl.engines.hungry.observation import SCORE_SCALE, observation_layout
from hunger_rl.envs import hungry_v0
from hunger_rl.policies.hungry import RESORT_CARDS
from hunger_rl.policies.models.encoders import ACTION_TO_RESORT

LEARNER = "player_0"
PLAYS = TOTAL_PLAYS
TRAINING_REWARD = "score"
PPO_EPOCHS = 8
PPO_MINIBATCH = 64
PPO_CLIP = 0.2
TIANSHOU_EPSILON = 0.1
# Rewards are terminal and turns alternate in Tianshou's buffer: a horizon as long as a game
# makes every target the game's own outcome (Monte Carlo). A short odd one bootstraps on the
# opponent's observation; even 2 (the learner's next turn) fell to 0.23 against random in a
# 160-game trial, against 0.72 for the whole game.
TIANSHOU_HORIZON = TOTAL_PLAYS
TIANSHOU_UPDATES_PER_STEP = 1.0


class PlayScorer(torch.nn.Module):
    """The learner's network: one small MLP shared by all 50 plays scores each play from the
    public counts of its resort (the own tourists, the most any other seat has there, the own
    hand's and the unseen cards that fit it), the same for the other resort of its card, the
    resort itself (one-hot) and the cards left in the deck; a value head reads the mean hidden
    vector. All inputs are fixed sums over the observation vector, so any library can feed it.

    A plain MLP on the raw 157 numbers must first discover these sums: the project's own
    MaskablePPO run needed 500k steps for 0.745 against random (docs/experiments/hungry_2p.md), far
    beyond a short run; sharing the weights across plays makes every decision train all 50 scores.
    """

    HIDDEN = 64
    # Counts of a few cards; this brings them near unit size.
    COUNT_SCALE = 5.0

    def __init__(self, num_players: int = 2):
        super().__init__()
        self.layout = observation_layout(num_players)
        self.num_players = num_players
        self.register_buffer("to_resort", torch.tensor(ACTION_TO_RESORT, dtype=torch.float32))
        self.register_buffer("fits", torch.tensor(RESORT_CARDS.T, dtype=torch.float32))
        resort = torch.tensor(ACTION_RESORT)
        self.register_buffer("resort", resort)
        self.register_buffer("other_resort", resort[torch.arange(NUM_ACTIONS) ^ 1])
        self.register_buffer("resort_one_hot", torch.eye(NUM_RESORTS)[resort])
        inputs = 2 * 4 + NUM_RESORTS + 1
        self.body = torch.nn.Sequential(
            torch.nn.Linear(inputs, self.HIDDEN), torch.nn.Tanh(),
            torch.nn.Linear(self.HIDDEN, self.HIDDEN), torch.nn.Tanh())
        self.score_head = torch.nn.Linear(self.HIDDEN, 1)
        self.value_head = torch.nn.Linear(self.HIDDEN, 1)

    def hidden(self, observation) -> torch.Tensor:
        observation = torch.as_tensor(observation, dtype=torch.float32)
        batch, layout = observation.shape[:-1], self.layout
        placed = observation[..., layout["placed"]].unflatten(-1, (self.num_players, NUM_ACTIONS))
        tourists = placed @ self.to_resort  # (..., seat, resort), seat 0 the observer
        per_resort = torch.stack([
            tourists[..., 0, :], tourists[..., 1:, :].amax(-2),
            observation[..., layout["hand"]] @ self.fits,
            observation[..., layout["unseen"]] @ self.fits], -1) / self.COUNT_SCALE
        deck = observation[..., layout["deck_size"]] / TOTAL_PLAYS
        inputs = torch.cat([
            per_resort[..., self.resort, :], per_resort[..., self.other_resort, :],
            self.resort_one_hot.expand(*batch, -1, -1),
            deck[..., None, :].expand(*batch, NUM_ACTIONS, 1)], -1)
        return self.body(inputs)

    def forward(self, observation) -> torch.Tensor:
        """The 50 play scores: logits for PPO, Q-values for DQN."""
        return self.score_head(self.hidden(observation)).squeeze(-1)

    def scores_and_value(self, observation) -> tuple[torch.Tensor, torch.Tensor]:
        hidden = self.hidden(observation)
        return self.score_head(hidden).squeeze(-1), self.value_head(hidden.mean(-2)).squeeze(-1)


def score_margin(observation: torch.Tensor, num_players: int = 2) -> torch.Tensor:
    """The "score" reward the observer would get if the game ended now: its public total minus
    the others' mean, over SCORE_SCALE (the observation's ``scores``, seat 0 the observer)."""
    scores = observation[..., observation_layout(num_players)["scores"]]
    others = (scores.sum(-1) - scores[..., 0]) / (num_players - 1)
    return (scores[..., 0] - others) / SCORE_SCALE


def save_network(network: PlayScorer, path: Path) -> None:
    """The network's tensors as safetensors (its constant buffers included, as they load)."""
    save_file({name: tensor.contiguous() for name, tensor in network.state_dict().items()},
              path)


class PlayScorerPolicy:
    """A saved ``PlayScorer`` (``OUT/LIBRARY.safetensors``) with the suite's policy interface,
    playing its legal play of highest score: ``python:train_interop:PlayScorerPolicy:PATH``."""

    game = "hungry"
    num_players = 2

    def __init__(self, path: str):
        self.network = PlayScorer()
        self.network.load_state_dict(load_file(path))
        self._act = greedy_player(self.network)

    def act(self, observation, rng, view=None) -> int:
        return self._act(observation["observation"], observation["action_mask"])


def greedy_player(network: torch.nn.Module):
    """``act(observation, mask)``: the legal play of highest score."""

    @torch.no_grad()
    def act(observation, mask):
        scores = network(torch.as_tensor(observation)[None])[0]
        scores[torch.as_tensor(mask) == 0] = -torch.inf
        return int(scores.argmax())

    return act


def play_against_random(act, games: int, seed: int) -> float:
    """Win share of ``act(observation, mask) -> action`` against uniform random, seats
    alternating game by game."""
    rng = np.random.default_rng(seed)
    env = hungry_v0.raw_env(num_players=2)
    total = 0.0
    for game in range(games):
        env.reset(seed=seed + game)
        learner = env.possible_agents[game % 2]
        while not env.game.is_over:
            agent = env.agent_selection
            observation = env.observe(agent)
            mask = observation["action_mask"]
            if agent == learner:
                action = act(observation["observation"], mask)
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
        total += env.infos[learner]["win_share"]
    return total / games


# -- TorchRL ---------------------------------------------------------------------------------

def train_torchrl(games: int, seed: int, games_per_batch: int = 16,
                  learning_rate: float = 1e-3) -> PlayScorer:
    from tensordict.nn import TensorDictModule, TensorDictSequential
    from torchrl.collectors import Collector
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.modules import MaskedCategorical, ProbabilisticActor

    torch.manual_seed(seed)
    env = PettingZooWrapper(hungry_v0.env(num_players=2, first_player="random",
                                          reward=TRAINING_REWARD), use_mask=True, seed=seed)
    actions = env.full_action_spec[LEARNER, "action"].space.n
    network = PlayScorer()
    optimizer = torch.optim.Adam(network.parameters(), lr=learning_rate)

    def actor(group, module):
        # A Dict observation arrives as (group, "observation", "observation") beside the mask.
        return ProbabilisticActor(
            TensorDictModule(module, in_keys=[(group, "observation", "observation")],
                             out_keys=[(group, "logits")]),
            in_keys={"logits": (group, "logits"), "mask": (group, "action_mask")},
            out_keys=[(group, "action")], distribution_class=MaskedCategorical)

    uniform = actor("player_1", lambda observation: torch.zeros(*observation.shape[:-1], actions))
    policy = TensorDictSequential(actor(LEARNER, network), uniform)
    collector = Collector(env, policy, frames_per_batch=PLAYS * games_per_batch,
                          total_frames=PLAYS * games)
    for batch in collector:
        done = batch["next", "done"].squeeze(-1)
        assert done.sum() == games_per_batch and done.view(-1, PLAYS)[:, -1].all()
        # Each game's return for the learner (its terminal reward), on all its decisions.
        returns = batch["next", LEARNER, "reward"].reshape(games_per_batch, PLAYS).sum(1)
        moving = batch[LEARNER, "mask"].reshape(-1)
        game_of_step = torch.arange(len(batch)) // PLAYS
        observation = batch[LEARNER, "observation", "observation"].reshape(len(batch), -1)
        observation = observation[moving]
        mask = batch[LEARNER, "action_mask"].reshape(len(batch), -1)[moving]
        action = batch[LEARNER, "action"].reshape(-1)[moving]
        # What is left to win: the return less the margin already on the table (a baseline
        # that depends on the state only); the value head learns the rest.
        target = returns[game_of_step[moving]] - score_margin(observation)
        with torch.no_grad():
            old_log_prob = MaskedCategorical(logits=network(observation),
                                             mask=mask).log_prob(action)
        for _ in range(PPO_EPOCHS):
            for rows in torch.randperm(len(action)).split(PPO_MINIBATCH):
                logits, value = network.scores_and_value(observation[rows])
                distribution = MaskedCategorical(logits=logits, mask=mask[rows])
                advantage = (target[rows] - value).detach()
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                ratio = (distribution.log_prob(action[rows]) - old_log_prob[rows]).exp()
                surrogate = torch.min(ratio * advantage,
                                      ratio.clamp(1 - PPO_CLIP, 1 + PPO_CLIP) * advantage)
                loss = (-surrogate.mean() + 0.5 * (target[rows] - value).pow(2).mean()
                        - 0.01 * distribution.entropy().mean())
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
    collector.shutdown()
    return network


# -- Tianshou --------------------------------------------------------------------------------

def train_tianshou(games: int, seed: int, envs: int = 8) -> PlayScorer:
    from tianshou.algorithm import (
        DQN,
        MARLRandomDiscreteMaskedOffPolicyAlgorithm,
        MultiAgentOffPolicyAlgorithm,
    )
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv
    from tianshou.trainer import OffPolicyTrainerParams

    def make_env():
        return PettingZooEnv(hungry_v0.env(num_players=2, first_player="random",
                                           reward=TRAINING_REWARD))

    np.random.seed(seed)
    torch.manual_seed(seed)
    env = make_env()
    network = TianshouModel(PlayScorer())
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=network, action_space=env.action_space,
                                       eps_training=TIANSHOU_EPSILON, eps_inference=0.0),
        optim=AdamOptimizerFactory(lr=1e-3), gamma=1.0, n_step_return_horizon=TIANSHOU_HORIZON)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[learner, MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)],
        env=env)
    train_envs = DummyVectorEnv([make_env for _ in range(envs)])
    test_envs = DummyVectorEnv([make_env for _ in range(2)])
    train_envs.seed(seed)
    test_envs.seed(seed + 1)
    train_collector = Collector(algorithm, train_envs, VectorReplayBuffer(20_000, envs),
                                exploration_noise=True)
    test_collector = Collector(algorithm, test_envs, exploration_noise=True)
    train_collector.reset()
    steps = PLAYS * games
    epochs = 5
    algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector, test_collector=test_collector, max_epochs=epochs,
        epoch_num_steps=steps // epochs, collection_step_num_env_steps=10 * envs,
        test_step_num_episodes=2, batch_size=64,
        update_step_num_gradient_steps_per_sample=TIANSHOU_UPDATES_PER_STEP,
        test_in_training=False,
        multi_agent_return_reduction=lambda returns: returns[:, 0], show_progress=False))
    return network.scorer


class TianshouModel(torch.nn.Module):
    """A network in Tianshou's model signature: ``(obs, state, info) -> (output, state)``."""

    def __init__(self, scorer: torch.nn.Module):
        super().__init__()
        self.scorer = scorer

    def forward(self, obs, state=None, info=None):
        return self.scorer(obs), state


TRAINERS = {"torchrl": train_torchrl, "tianshou": train_tianshou}


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results)
    shares = [results[n]["win_share"] for n in names]
    errors = [[s - results[n]["interval"][0] for n, s in zip(names, shares, strict=True)],
              [results[n]["interval"][1] - s for n, s in zip(names, shares, strict=True)]]
    figure, axes = plt.subplots(figsize=(5, 3.2))
    axes.bar(names, shares, yerr=errors, capsize=6, color=["#4c72b0", "#dd8452"][:len(names)])
    axes.axhline(0.5, color="grey", linestyle="--", linewidth=1, label="random vs random")
    axes.set_ylim(0, 1)
    axes.set_ylabel("win share vs random (95% Wilson)")
    axes.set_title("Hungry 2p: short trainings through each library")
    axes.legend(loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", choices=[*TRAINERS, "both"], default="both")
    parser.add_argument("--games", type=int, nargs="+", default=[480, 200],
                        help="training games, per library in the order torchrl, tianshou")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/interop"))
    args = parser.parse_args()
    # Small networks on a shared CPU: a second thread costs more than it gives.
    torch.set_num_threads(1)
    args.out.mkdir(parents=True, exist_ok=True)
    libraries = list(TRAINERS) if args.library == "both" else [args.library]
    results = {}
    games = dict(zip(libraries, args.games * len(libraries), strict=False))
    for library in libraries:
        start = time.perf_counter()
        network = TRAINERS[library](games[library], args.seed)
        seconds = time.perf_counter() - start
        save_network(network, args.out / f"{library}.safetensors")
        share = play_against_random(greedy_player(network), args.eval_games,
                                    seed=10_000 + args.seed)
        low, high = wilson_interval(share * args.eval_games, args.eval_games)
        results[library] = {"win_share": share, "interval": [low, high],
                            "training_games": games[library], "eval_games": args.eval_games,
                            "training_seconds": round(seconds, 1)}
        print(f"{library}: win share {share:.3f} [{low:.3f}, {high:.3f}] vs random over "
              f"{args.eval_games} games after {games[library]} training games ({seconds:.0f} s)")
    (args.out / "results.json").write_text(json.dumps(results, indent=2))
    plot(results, args.out / "interop_training.png")


if __name__ == "__main__":
    main()
