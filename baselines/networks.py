"""What a baseline model is: its game's network and defaults, its config.

Each game's module declares its features extractor and its options and the
default training budget (``TOOLS["training"]``, :class:`TrainingDefaults`,
:func:`training_defaults`); :func:`model_config` starts every saved model's
config (name, game, options, network) and :func:`new_policy` builds the
untrained ``MaskableActorCriticPolicy`` of a config, what training starts
from and :func:`boardenvs.baselines.load` fills with a model's weights.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class TrainingDefaults:
    """How :mod:`boardenvs.baselines.train` trains a policy for a game by
    default: the features extractor (``"cnn"`` on board planes, ``"mlp"``)
    and its options, the budget in steps, and for ``--shaping`` the size of a
    typical difference of the game's heuristic (None: no shaping).  A game's
    module sets them in ``TOOLS["training"]`` (:func:`boardenvs.registry.tool_settings`);
    a game without that entry has no baseline."""

    extractor: str = "mlp"
    extractor_kwargs: dict = field(default_factory=dict)
    steps: int = 300_000
    shaping_scale: float | None = None


def _declared(env_id: str) -> TrainingDefaults | None:
    from boardenvs.registry import tool_settings

    settings = tool_settings(env_id, "training")
    if settings is None:
        return None
    try:
        return TrainingDefaults(**settings)
    except TypeError as exc:
        raise TypeError(f"TOOLS['training'] of {env_id}: {exc}") from None


def trainable_ids() -> list[str]:
    """The registered games that declare how a baseline trains on them
    (``TOOLS["training"]``: the features extractor and its options, the
    default budget, the heuristic's scale for ``--shaping``).  Each committed
    model's .json records the budget and hyperparameters it was actually
    trained with (some runs were continued with --init)."""
    from boardenvs.registry import registered_ids

    return [env_id for env_id in registered_ids() if _declared(env_id) is not None]


def training_defaults(env_id: str) -> TrainingDefaults:
    """The game's :class:`TrainingDefaults` (ValueError naming the games that
    have some, for another id)."""
    if env_id not in trainable_ids():
        raise ValueError(f"unknown game {env_id!r}: one of {', '.join(trainable_ids())}")
    return _declared(env_id)


def model_name(env_id: str, players: int | None = None) -> str:
    """``quess_v0``; ``hex_quoridor_v0_4p`` for a player count other than 2."""
    return env_id if players in (None, 2) else f"{env_id}_{players}p"


def game_options(env_id: str, players: int | None) -> dict:
    """The options of ``env_id`` for ``players`` (its declared player counts)."""
    if players is None:
        return {}
    from boardenvs.registry import game_class

    counts = game_class(env_id).player_counts()
    if players not in counts:
        raise ValueError(f"{env_id} is played by {', '.join(map(str, counts))} players, got --players {players}")
    return {"num_players": players} if len(counts) > 1 else {}


# extractor options that are sizes (BoardCNN, TrackMLP): ints >= 1
SIZE_OPTIONS = ("hidden", "features_dim", "channels", "layers", "pieces")


def check_extractor_kwargs(kwargs) -> dict:
    """``kwargs`` as extractor options (a dict, sizes ints >= 1; ValueError
    naming the first one that is not), sizes as plain ints."""
    from boardenvs.spec import is_int

    if not isinstance(kwargs, dict):
        raise ValueError(f"extractor options must be a dict, got {kwargs!r}")
    for key in SIZE_OPTIONS:
        if key in kwargs and not (is_int(kwargs[key]) and kwargs[key] >= 1):
            raise ValueError(f"extractor option {key!r} must be an int >= 1, got {kwargs[key]!r}")
    return {k: int(v) if k in SIZE_OPTIONS else v for k, v in kwargs.items()}


def same_game(env_id: str, options: dict, other_id: str, other_options: dict) -> bool:
    """Whether two (id, options) make the same game, defaults filled in
    (``{}`` and ``{"num_players": 2}`` are the same Hex Quoridor)."""
    from boardenvs.registry import make_game

    return env_id == other_id and make_game(env_id, **options).options == make_game(other_id, **other_options).options


def model_config(env_id: str, players: int | None) -> dict:
    """What every saved model's config starts with: its name, game, options
    and network (the game's declared :func:`training_defaults`)."""
    defaults = training_defaults(env_id)
    return {
        "name": model_name(env_id, players), "env_id": env_id, "options": game_options(env_id, players),
        "extractor": defaults.extractor, "extractor_kwargs": dict(defaults.extractor_kwargs), "net_arch": [128],
        "algorithm": "sb3_contrib.MaskablePPO",
    }  # fmt: skip


def policy_kwargs(config: dict) -> dict:
    from .extractors import EXTRACTORS

    return {
        "features_extractor_class": EXTRACTORS[config["extractor"]],
        "features_extractor_kwargs": dict(config["extractor_kwargs"]),
        "net_arch": {"pi": list(config["net_arch"]), "vf": list(config["net_arch"])},
    }


def new_policy(config: dict):
    """The (untrained) ``MaskableActorCriticPolicy`` of a model's config:
    the game's spaces, the config's network (ValueError naming the
    extractor options if the network cannot be built from them)."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from boardenvs.registry import make_game

    info = make_game(config["env_id"], **config["options"]).info
    obs_space = spaces.Box(info.obs_low, info.obs_high, info.obs_low.shape, "int8")
    try:
        return MaskableActorCriticPolicy(obs_space, spaces.Discrete(info.num_actions), lambda _: 0.0, **policy_kwargs(config))
    except (TypeError, ValueError, RuntimeError, AssertionError) as exc:  # an extractor option the network cannot take
        raise ValueError(f"extractor options {config['extractor_kwargs']}: {exc}") from None


def policy_value(policy, obs, masks):
    """``(log_probs, values)`` of an SB3 ``MaskableActorCriticPolicy`` on
    ``obs`` (a float tensor in the policy's observation shape): the policy's
    log-probabilities masked by ``masks`` (bool, True legal) and the value
    head's output, from one pass through the network (distillation's fit,
    the guided search's evaluation)."""
    import torch

    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    logits = policy.action_net(latent_pi).masked_fill(~masks, -1e8)  # sb3-contrib's masking value
    return torch.log_softmax(logits, dim=1), policy.value_net(latent_vf).flatten()
