"""The network modules of learned policies, beyond SB3's own MLP: the action scorer and the
privileged critic.

Inference (``policies.learned``) and training build them through :func:`policy_class_and_kwargs`.
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor

from hunger_rl.policies.models.hungry_endgame import EndgameHead

ACTIVATION_FUNCTIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def policy_class_and_kwargs(action_scorer: bool, encoder: Any, endgame_head: bool = False,
                            critic_state_size: int = 0) -> tuple[type, dict[str, Any]]:
    """The network class for a policy (with or without the action scorer and its endgame head,
    or a privileged critic reading ``critic_state_size`` numbers of state after the encoded
    observation) and the arguments it needs beyond SB3's own."""
    if endgame_head and not action_scorer:
        raise ValueError("an endgame head belongs to an action scorer")
    if critic_state_size:
        if action_scorer:
            raise ValueError("a privileged critic goes with the plain MLP, not an action scorer")
        return PrivilegedCriticPolicy, {"critic_state_size": critic_state_size}
    if not action_scorer:
        return MaskableActorCriticPolicy, {}
    if not hasattr(encoder, "action_features"):
        raise ValueError("an action scorer needs an encoder with per-action features (derived "
                         "features)")
    block = encoder.action_features
    kwargs = {"action_features": (block.start, block.stop),
              "action_feature_size": encoder.action_feature_size}
    if endgame_head:
        kwargs["endgame"] = {"num_players": encoder.num_players,
                             "observation_scale": encoder.observation_scale}
    return ActionScorerPolicy, kwargs


class ActionScorerExtractor(torch.nn.Module):
    """SB3's MLP extractor plus a scorer shared by all actions.

    The scorer reads one action's features (the input block ``action_features``, the first of
    each action being its prior value) and a small summary of the whole input, and returns a
    correction to that prior value. The actor latent is the MLP's latent followed by each
    action's prior value plus correction, so the action head can score every action by its own
    features: what the scorer learns about one play carries over to every other play. With an
    endgame head, rows whose deck is empty take that head's scores instead of prior value plus
    correction.
    """

    CONTEXT = 16  # size of the state summary each action's score sees
    HIDDEN = 64

    def __init__(self, features_dim: int, net_arch: list[int], activation_fn: type,
                 device: Any, action_features: tuple[int, int], action_feature_size: int,
                 endgame: dict[str, Any] | None = None):
        super().__init__()
        self.mlp = MlpExtractor(features_dim, net_arch, activation_fn, device)
        self.start, self.stop = action_features
        self.per_action = action_feature_size
        self.num_actions = (self.stop - self.start) // self.per_action
        self.context = torch.nn.Linear(self.mlp.latent_dim_pi, self.CONTEXT)
        self.scorer = torch.nn.Sequential(
            torch.nn.Linear(self.per_action + self.CONTEXT, self.HIDDEN), activation_fn(),
            torch.nn.Linear(self.HIDDEN, self.HIDDEN), activation_fn(),
            torch.nn.Linear(self.HIDDEN, 1))
        self.latent_dim_pi = self.mlp.latent_dim_pi + self.num_actions
        self.latent_dim_vf = self.mlp.latent_dim_vf
        self.endgame = None if endgame is None else EndgameHead(
            endgame["num_players"], endgame["observation_scale"], action_features,
            action_feature_size)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        latent = self.mlp.forward_actor(features)
        actions = features[:, self.start : self.stop].reshape(
            -1, self.num_actions, self.per_action)
        context = self.context(latent)[:, None, :].expand(-1, self.num_actions, -1)
        corrections = self.scorer(torch.cat((actions, context), dim=2))[:, :, 0]
        scores = actions[:, :, 0] + corrections
        if self.endgame is not None:
            scores = torch.where(self.endgame.deck_empty(features), self.endgame(features),
                                 scores)
        return torch.cat((latent, scores), dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.mlp.forward_critic(features)


class ActionScorerPolicy(MaskableActorCriticPolicy):
    """A masked actor-critic whose logits start as ``PRIOR_WEIGHT`` times each action's prior
    value (Hungry: its forecast value; HUNGER: The Show: its crowd value), corrected by an
    :class:`ActionScorerExtractor` whose last layer starts at zero: training begins from a soft
    player of the prior and learns where to depart from it, instead of rediscovering what the
    prior already knows."""

    # Logit per unit of the prior value: the forecast's values are encoded in tens of points,
    # so 40 makes one point worth 4 in logits (a play one point worse is ~50x less likely);
    # HUNGER's crowd values are scaled to match (``encoders.SHOW_VALUE_SCALE``).
    PRIOR_WEIGHT = 40.0

    def __init__(self, *args: Any, action_features: tuple[int, int], action_feature_size: int,
                 endgame: dict[str, Any] | None = None, scorer_lr_scale: float = 1.0,
                 **kwargs: Any):
        self.action_features = tuple(action_features)
        self.action_feature_size = action_feature_size
        self.endgame_settings = endgame
        self.scorer_lr_scale = scorer_lr_scale
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = ActionScorerExtractor(
            self.features_dim, self.net_arch, self.activation_fn, self.device,
            self.action_features, self.action_feature_size, self.endgame_settings)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        hidden = self.mlp_extractor.mlp.latent_dim_pi
        size = self.mlp_extractor.num_actions
        if size != self.action_net.out_features:
            raise ValueError(f"features of {size} actions for {self.action_net.out_features}")
        with torch.no_grad():
            self.action_net.weight[:, hidden:] = self.PRIOR_WEIGHT * torch.eye(size)
            last = self.mlp_extractor.scorer[-1]
            last.weight.zero_()
            last.bias.zero_()
        if self.scorer_lr_scale != 1.0:
            self.optimizer = self.optimizer_class(
                self._scaled_parameter_groups(lr_schedule(1)), lr=lr_schedule(1),
                **self.optimizer_kwargs)

    def _scaled_parameter_groups(self, learning_rate: float) -> list[dict[str, Any]]:
        """The parameters in their own order, cut into runs: those that only reach the logits
        through the scores (the context, the scorer, the endgame head), which enter them
        ``PRIOR_WEIGHT`` times over, get ``lr_scale = scorer_lr_scale``, the others 1 (read by
        ``training.train.ScaledGroupsPPO``). Keeping the order keeps the optimizer state's
        indices those of a single group, so checkpoints load either way."""
        extractor = self.mlp_extractor
        scaled = {id(p) for module in (extractor.context, extractor.scorer, extractor.endgame)
                  if module is not None for p in module.parameters()}
        groups: list[dict[str, Any]] = []
        for parameter in self.parameters():
            scale = self.scorer_lr_scale if id(parameter) in scaled else 1.0
            if not groups or groups[-1]["lr_scale"] != scale:
                groups.append({"params": [], "lr_scale": scale, "lr": learning_rate * scale})
            groups[-1]["params"].append(parameter)
        return groups


class PrivilegedCriticExtractor(torch.nn.Module):
    """SB3's two MLPs, the critic's reading the whole input (the encoded observation, then the
    game's state) and the actor's only the observation: its first ``observation_size`` columns.

    The actor never sees the state, so a trained policy plays from the observation alone
    (inference may pass it alone); the critic, which only shapes training, may read every
    hidden card (PerfectDou's perfect-information distillation)."""

    def __init__(self, features_dim: int, net_arch: list[int], activation_fn: type,
                 device: Any, critic_state_size: int):
        super().__init__()
        self.observation_size = features_dim - critic_state_size
        # SB3's own layers and initialisation: the actor half of an extractor over the
        # observation, the critic half of one over the whole input.
        actor = MlpExtractor(self.observation_size, net_arch, activation_fn, device)
        critic = MlpExtractor(features_dim, net_arch, activation_fn, device)
        self.policy_net, self.value_net = actor.policy_net, critic.value_net
        self.latent_dim_pi, self.latent_dim_vf = actor.latent_dim_pi, critic.latent_dim_vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features[:, : self.observation_size])

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)


class PrivilegedCriticPolicy(MaskableActorCriticPolicy):
    """A masked actor-critic over an input of the encoded observation followed by
    ``critic_state_size`` numbers of the game's ``state()``, read by the critic only
    (:class:`PrivilegedCriticExtractor`)."""

    def __init__(self, *args: Any, critic_state_size: int, **kwargs: Any):
        self.critic_state_size = critic_state_size
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = PrivilegedCriticExtractor(
            self.features_dim, self.net_arch, self.activation_fn, self.device,
            self.critic_state_size)


def action_logits(network: MaskableActorCriticPolicy, inputs: torch.Tensor) -> torch.Tensor:
    """Unmasked action logits of a network for a batch of encoded inputs (no gradients)."""
    with torch.no_grad():
        latent = network.mlp_extractor.forward_actor(network.extract_features(inputs))
        return network.action_net(latent)
