"""The network modules of learned policies, beyond SB3's own MLP: the action scorer, its
full-decision form and the privileged critic.

Training builds them through :func:`policy_class_and_kwargs` (and ``policies.learned``'s
``build_network``, for a policy file's weights); play never does: a policy file plays through
the numpy forward pass of the same networks, ``forward``, which reads these modules' weights by
their names.
"""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor

from hunger_rl.policies.models.forward import (
    ACTION_SCORER,
    FULL_DECISIONS,
    MLP,
    PRIVILEGED_CRITIC,
    SCORER_CONTEXT,
    SCORER_HIDDEN,
    NetworkShape,
    network_layout,
    value_gains,
)
from hunger_rl.policies.models.hungry_endgame import CardGridHead, endgame_head

ACTIVATION_FUNCTIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def policy_class_and_kwargs(shape: NetworkShape, encoder: Any) -> tuple[type, dict[str, Any]]:
    """The network class for a policy of ``shape`` over ``encoder``'s inputs and the arguments
    it needs beyond SB3's own (``net_arch``, ``activation_fn``: :func:`mlp_kwargs`): those of
    ``forward.network_layout``, the numpy forward pass's layout of the same network."""
    return torch_policy_class(*network_layout(shape, encoder))


def mlp_kwargs(shape: NetworkShape) -> dict[str, Any]:
    """SB3's own arguments of a policy of ``shape``: the MLPs' widths and activation."""
    return {"net_arch": list(shape.hidden),
            "activation_fn": ACTIVATION_FUNCTIONS[shape.activation]}


def torch_policy_class(kind: str, settings: dict[str, Any]) -> tuple[type, dict[str, Any]]:
    """The torch class of a ``forward.network_layout`` kind, and its arguments from the
    layout's settings."""
    arguments = dict(settings)
    if "value_gain" in arguments:
        arguments["features_extractor_class"] = ActionValueGain
        arguments["features_extractor_kwargs"] = arguments.pop("value_gain")
    return POLICY_CLASSES[kind], arguments


class ActionValueGain(BaseFeaturesExtractor):
    """A plain MLP's input with each action's value (the first of its per-action features:
    Hungry's forecast value relative to the best legal play, HUNGER's crowd value) multiplied
    by ``gain``, the rest as it is.

    The encoders give those values in tens of points (Hungry) so that an action scorer's
    ``PRIOR_WEIGHT`` turns them into logits; a plain MLP has to grow that weight itself, and in
    Hungry the best two plays' values differ by 0.017 in the median position, so the weights
    that tell them apart are slow to learn from PPO's noisy steps (docs/experiments/
    ppo_fixed_opponent.md). The gain is a constant, not a parameter: the policy file keeps
    it in its metadata."""

    def __init__(self, observation_space: spaces.Box, values: tuple[int, int, int],
                 gain: float):
        size = int(observation_space.shape[0])
        super().__init__(observation_space, size)
        self.register_buffer("gains", torch.as_tensor(value_gains(size, values, gain)),
                             persistent=False)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations.flatten(start_dim=1) * self.gains


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

    CONTEXT = SCORER_CONTEXT  # size of the state summary each action's score sees
    HIDDEN = SCORER_HIDDEN

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
        self.endgame = None if endgame is None else endgame_head(
            endgame["model"], endgame["num_players"], endgame["observation_scale"],
            action_features, action_feature_size, endgame["hidden"])

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        latent = self.mlp.forward_actor(features)
        if self.endgame is None:
            return torch.cat((latent, self._corrected_priors(features, latent)), dim=1)
        # Each row runs only the head whose scores it takes.
        empty = self.endgame.deck_empty(features)[:, 0]
        drawing = ~empty
        scores = features.new_zeros(len(features), self.num_actions)
        scores[drawing] = self._corrected_priors(features[drawing], latent[drawing])
        scores[empty] = self.endgame(features[empty])
        return torch.cat((latent, scores), dim=1)

    def _corrected_priors(self, features: torch.Tensor, latent: torch.Tensor) -> torch.Tensor:
        """(B, actions) each action's prior value plus the scorer's correction."""
        actions = features[:, self.start : self.stop].reshape(
            -1, self.num_actions, self.per_action)
        context = self.context(latent)[:, None, :].expand(-1, self.num_actions, -1)
        corrections = self.scorer(torch.cat((actions, context), dim=2))[:, :, 0]
        return actions[:, :, 0] + corrections

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
        size = self.mlp_extractor.num_actions
        if size != self.action_net.out_features:
            raise ValueError(f"features of {size} actions for {self.action_net.out_features}")
        start_scores_at_prior(self.action_net.weight, self.mlp_extractor, self.PRIOR_WEIGHT)
        if self.ortho_init and isinstance(self.mlp_extractor.endgame, CardGridHead):
            self.mlp_extractor.endgame.reset_parameters()
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


def start_scores_at_prior(weight: torch.Tensor, extractor: ActionScorerExtractor,
                          prior_weight: float) -> None:
    """Start an action scorer as a soft player of its prior: the rows of the action head's
    ``weight`` that belong to the scored actions read each action's score ``prior_weight``
    times, and the scorer's last layer, its correction, starts at zero."""
    hidden, size = extractor.mlp.latent_dim_pi, extractor.num_actions
    with torch.no_grad():
        weight[:size, hidden : hidden + size] = prior_weight * torch.eye(size)
        last = extractor.scorer[-1]
        last.weight.zero_()
        last.bias.zero_()


class FullDecisionExtractor(torch.nn.Module):
    """The full-decision mode's extractor: a default-mode action scorer for the daily picks
    and a plain MLP for every later choice, side by side.

    ``picks`` (an :class:`ActionScorerExtractor`) reads the default-mode encoding of the
    position, which lies inside the full one (``default_input``, column ranges), so it is a
    default-mode network's extractor as it is: its weights load from one
    (:meth:`FullDecisionPolicy.start_from_default_decisions`), and so does the value, which
    is that network's. ``decisions`` reads the whole full-decision encoding. The actor latent
    is the picks' latent and scores, the decisions' latent, then the ``rule_action`` one-hot of
    the later choices (``rule_actions``, column range), which the action head reads with the
    rule prior's weight.
    """

    def __init__(self, features_dim: int, net_arch: list[int], activation_fn: type,
                 device: Any, default_input: tuple[tuple[int, int], ...],
                 action_features: tuple[int, int], action_feature_size: int,
                 rule_actions: tuple[int, int]):
        super().__init__()
        self.default_input = [tuple(columns) for columns in default_input]
        default_size = sum(stop - start for start, stop in self.default_input)
        self.picks = ActionScorerExtractor(default_size, net_arch, activation_fn, device,
                                           action_features, action_feature_size)
        layers: list[torch.nn.Module] = []
        width = features_dim
        for hidden in net_arch:
            layers += [torch.nn.Linear(width, hidden), activation_fn()]
            width = hidden
        self.decisions = torch.nn.Sequential(*layers)
        self.rule_start, self.rule_stop = rule_actions
        # The daily picks come first among the actions; the rule one-hot covers the later
        # choices only (it is zero on the picks).
        self.num_picks = self.picks.num_actions
        self.latent_dim_pi = (self.picks.latent_dim_pi + width
                              + self.rule_stop - self.rule_start - self.num_picks)
        self.latent_dim_vf = self.picks.latent_dim_vf

    def _default_features(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([features[:, start:stop] for start, stop in self.default_input], dim=1)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        rule = features[:, self.rule_start + self.num_picks : self.rule_stop]
        return torch.cat((self.picks.forward_actor(self._default_features(features)),
                          self.decisions(features), rule), dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.picks.forward_critic(self._default_features(features))


class FullDecisionPolicy(MaskableActorCriticPolicy):
    """A masked actor-critic for the full-decision mode (:class:`FullDecisionExtractor`) whose
    logits start as the default decisions': the daily picks' as a default-mode
    :class:`ActionScorerPolicy` (``PRIOR_WEIGHT`` times the crowd values, or a default-mode
    network's own logits once its weights are loaded), every later choice's as ``rule_prior``
    on the S19 rule's choice and 0 on the others, corrected by the decisions MLP through rows
    of the action head that start at zero. With ``rule_prior`` > 0 its argmax at the start is
    the S19 rule's choice at every later step, so the untrained policy plays the default
    decisions exactly, and PPO learns where to depart from them."""

    PRIOR_WEIGHT = ActionScorerPolicy.PRIOR_WEIGHT

    def __init__(self, *args: Any, default_input: tuple[tuple[int, int], ...],
                 action_features: tuple[int, int], action_feature_size: int,
                 rule_actions: tuple[int, int], rule_prior: float, **kwargs: Any):
        self.extractor_settings = {"default_input": default_input,
                                   "action_features": tuple(action_features),
                                   "action_feature_size": action_feature_size,
                                   "rule_actions": tuple(rule_actions)}
        self.rule_prior = rule_prior
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = FullDecisionExtractor(
            self.features_dim, self.net_arch, self.activation_fn, self.device,
            **self.extractor_settings)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        extractor = self.mlp_extractor
        picks, num_picks = extractor.picks, extractor.num_picks
        pick_latent = picks.latent_dim_pi
        with torch.no_grad():
            weight = self.action_net.weight
            # Picks read only the picks' latent and scores; later choices only the decisions'
            # latent (through zeros at the start) and the rule one-hot.
            weight[:num_picks, pick_latent:] = 0.0
            weight[num_picks:] = 0.0
            self.action_net.bias.zero_()
            rule_columns = weight.shape[1] - (weight.shape[0] - num_picks)
            weight[num_picks:, rule_columns:] = self.rule_prior * torch.eye(
                weight.shape[0] - num_picks)
        start_scores_at_prior(self.action_net.weight, picks, self.PRIOR_WEIGHT)

    def start_from_default_decisions(self, weights: dict[str, torch.Tensor]) -> None:
        """Load a default-mode :class:`ActionScorerPolicy`'s weights (same ``net_arch``) into
        the daily picks' scorer, their rows of the action head, and the value; the later
        choices keep their start. A clear error if the weights do not fit."""
        extractor, picks = "mlp_extractor.", "mlp_extractor.picks."
        own = self.state_dict()
        mapped = {}
        for name, tensor in weights.items():
            own_name = (picks + name[len(extractor):] if name.startswith(extractor)
                        else name if name.startswith(("value_net.", "action_net.")) else None)
            if own_name not in own:
                raise ValueError(f"the default-decision network's {name} has no place in a "
                                 "full-decision network")
            mapped[own_name] = tensor
        missing = sorted(name for name in own if name.startswith(picks) and name not in mapped)
        if missing:
            raise ValueError(f"the default-decision network lacks {missing[:3]}")
        num_picks = self.mlp_extractor.num_picks
        targets = {}
        for name, tensor in mapped.items():
            target = own[name]
            if name.startswith("action_net."):  # the daily picks' rows
                target = (target[:num_picks, : tensor.shape[-1]] if target.dim() == 2
                          else target[:num_picks])
            if target.shape != tensor.shape:
                raise ValueError(f"the default-decision network's {name} has shape "
                                 f"{tuple(tensor.shape)}, this network's {tuple(target.shape)}")
            targets[name] = target
        # Checked whole before any copy, so that a misfit leaves the network as it was.
        with torch.no_grad():
            for name, target in targets.items():
                target.copy_(mapped[name])


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


# The torch class of each kind of ``forward.network_layout``.
POLICY_CLASSES = {MLP: MaskableActorCriticPolicy, PRIVILEGED_CRITIC: PrivilegedCriticPolicy,
                  ACTION_SCORER: ActionScorerPolicy, FULL_DECISIONS: FullDecisionPolicy}
