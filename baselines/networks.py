"""What a baseline model is: its game's network and defaults, its config.

Each game's module declares how a policy reads its actions and its board
network's trunk, its dense network's features extractor, and how it trains
(``TOOLS["training"]``, :class:`TrainingDefaults`, :func:`training_defaults`);
:func:`model_config` starts every saved model's config (name, game, options,
network) and :func:`new_policy` builds the untrained
``MaskableActorCriticPolicy`` of a config, what training starts from and
:func:`boardenvs.baselines.load` fills with a model's weights.

Two kinds of network: ``"extractor": "board"`` (:mod:`.boardnet`, the
default where the game declares how a policy reads its actions: every
action's logit read off the cells it names) and the dense ones (a features
extractor of :mod:`.extractors`, then ``net_arch`` layers and a linear head
over every action: Tryasina's tracks, and the models trained before).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from boardenvs.errors import first_line, shorten


@dataclass(frozen=True)
class TrainingDefaults:
    """How :mod:`boardenvs.baselines.train` trains a policy for a game by
    default: the dense network's features extractor (``"cnn"`` on board
    planes, ``"mlp"``) and its options, the budget in steps of a run by
    steps, for ``--shaping`` the size of a typical difference of the game's
    heuristic (None: no shaping); the board network's action layout
    (``actions``, see :mod:`.boardnet`; None: the dense network) and trunk
    options (``board``); and the time-bounded route's PPO settings
    (``ppo``: :data:`PPO_DEFAULTS` overridden), opponents (``opponents``:
    shares of named opponents, the rest self-play), budget in minutes and
    warm start (games of ``greedy``'s decisions fitted first).  A game's
    module sets them in ``TOOLS["training"]`` (:func:`boardenvs.registry.tool_settings`);
    a game without that entry has no baseline."""

    extractor: str = "mlp"
    extractor_kwargs: dict = field(default_factory=dict)
    steps: int = 300_000
    shaping_scale: float | None = None
    # the board network (boardnet): how the policy reads the actions (a function of the game, None: no board
    # network) and the trunk's options
    actions: object = None
    board: dict = field(default_factory=dict)
    # the time-bounded route (train --minutes): PPO's settings and the opponents' shares (the rest self-play)
    ppo: dict = field(default_factory=dict)
    opponents: dict = field(default_factory=dict)
    minutes: float = 10.0
    warm_start: int = 0  # games of greedy's decisions fitted before PPO (0: none)
    shaping: float = 0.0  # the --shaping of the time-bounded route


# PPO's settings unless a game's TOOLS["training"]["ppo"] says otherwise (what reached strength fastest on 2 cores:
# benchmarks/time_to_strength.py)
PPO_DEFAULTS = {
    "num_envs": 64,
    "n_steps": 128,
    "batch_size": 1024,
    "n_epochs": 5,
    "learning_rate": 5e-4,
    "ent_coef": 0.01,
    "gamma": 0.99,
    "gae_lambda": 0.95,
}
BOARD = "board"  # the board network's name in a model's config ("extractor")
BOARD_OPTIONS = {"channels": 32, "layers": 3}  # its trunk's defaults (hex: the game's board)


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
    """``quess_v0``; ``hex_quoridor_v1_4p`` for a player count other than 2."""
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


# the bounds of a saved model's network (a model's .json is read before anything is built)
MAX_LAYERS = 16  # hidden layers of net_arch, convolutions of an extractor
MAX_WIDTH = 4096  # units of a hidden layer, channels, features
MAX_PARAMETERS = 20_000_000  # the whole policy (the committed models have 0.1M-0.6M)
# extractor options that are sizes (BoardCNN, HexPathsCNN, TrackMLP): ints in 1..their bound
SIZE_OPTIONS = {
    "hidden": MAX_WIDTH,
    "features_dim": MAX_WIDTH,
    "channels": MAX_WIDTH,
    "layers": MAX_LAYERS,
    "pieces": 64,
    "scale_steps": 1_000_000,
}
FLAG_OPTIONS = ("hex", "around", "paths")  # True or False
BOARD_OPTION_NAMES = {"channels", "layers", "hex", "paths"}  # what a board network's config may set
NETWORK_FIELDS = ("env_id", "options", "extractor", "extractor_kwargs", "net_arch")  # what builds the network


def check_extractor_kwargs(kwargs) -> dict:
    """``kwargs`` as extractor options (a dict with str keys; sizes ints in
    1..their bound (:data:`SIZE_OPTIONS`), ``hex`` / ``around`` bools,
    ``split`` a short list of plane numbers; ValueError naming the first one
    that is not), sizes as plain ints."""
    from boardenvs.spec import is_int

    if not isinstance(kwargs, dict) or not all(isinstance(k, str) for k in kwargs):
        raise ValueError(f"extractor options must be a dict, got {shorten(repr(kwargs))}")
    for key, top in SIZE_OPTIONS.items():
        if key in kwargs and not (is_int(kwargs[key]) and kwargs[key] >= 1):
            raise ValueError(f"extractor option {key!r} must be an int >= 1, got {shorten(repr(kwargs[key]))}")
        if key in kwargs and kwargs[key] > top:
            raise ValueError(f"extractor option {key!r} must be at most {top:_}, got {shorten(repr(kwargs[key]))}")
    for key in FLAG_OPTIONS:
        if key in kwargs and not isinstance(kwargs[key], bool):
            raise ValueError(f"extractor option {key!r} must be true or false, got {shorten(repr(kwargs[key]))}")
    split = kwargs.get("split", ())
    if not (isinstance(split, (list, tuple)) and len(split) <= 64 and all(is_int(k) and 0 <= k < 1024 for k in split)):
        raise ValueError(
            f"extractor option 'split' must be a list of at most 64 plane numbers, got {shorten(repr(split))}"
        )
    return {k: int(v) if k in SIZE_OPTIONS else v for k, v in kwargs.items()}


def check_config(config) -> int:
    """Check the fields of a model's config that build its network, before
    anything is built (a model's .json is a user's file):
    ``env_id`` a registered game, ``options`` its options, ``extractor``
    one of the extractors and ``extractor_kwargs`` options it takes
    (:func:`check_extractor_kwargs`), ``net_arch`` at most
    :data:`MAX_LAYERS` hidden layers of 1..:data:`MAX_WIDTH` units, and the
    whole policy at most :data:`MAX_PARAMETERS` parameters (counted, not
    built: :func:`parameter_count`).  ValueError naming the field otherwise.
    Returns the parameter count."""
    from boardenvs.registry import make_game, registered_ids
    from boardenvs.spec import is_int

    from .extractors import EXTRACTORS, option_names

    if not isinstance(config, dict):
        raise ValueError(f"a model's config is a JSON object, got {type(config).__name__}")
    missing = [k for k in NETWORK_FIELDS if k not in config]
    if missing:
        raise ValueError(f"the config has no {missing[0]!r} (a model's config holds {', '.join(NETWORK_FIELDS)})")
    env_id, options, extractor, kwargs, net_arch = (config[k] for k in NETWORK_FIELDS)
    if not isinstance(env_id, str) or env_id not in registered_ids():
        raise ValueError(f"env_id {shorten(repr(env_id))} is no registered game ({', '.join(registered_ids())})")
    if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
        raise ValueError(f"options must be a dict of game options, got {shorten(repr(options))}")
    try:
        info = make_game(env_id, **options).info
    except (TypeError, ValueError) as exc:
        raise ValueError(f"options {shorten(repr(options))}: {first_line(exc)}") from None
    if extractor == BOARD:
        return _check_board(env_id, options, kwargs, net_arch)
    if not isinstance(extractor, str) or extractor not in EXTRACTORS:
        raise ValueError(f"extractor {shorten(repr(extractor))} is none of {', '.join([*EXTRACTORS, BOARD])}")
    kwargs = check_extractor_kwargs(kwargs)
    unknown = sorted(set(kwargs) - option_names(EXTRACTORS[extractor]))
    if unknown:
        raise ValueError(
            f"extractor options {shorten(repr(kwargs))}: {EXTRACTORS[extractor].__name__} takes no "
            f"{shorten(repr(unknown[0]))} (it takes {', '.join(sorted(option_names(EXTRACTORS[extractor])))})"
        )
    if not (
        isinstance(net_arch, list)
        and len(net_arch) <= MAX_LAYERS
        and all(is_int(n) and 1 <= n <= MAX_WIDTH for n in net_arch)
    ):
        raise ValueError(
            f"net_arch must be a list of at most {MAX_LAYERS} layer sizes in 1..{MAX_WIDTH}, got "
            f"{shorten(repr(net_arch))}"
        )
    count = parameter_count(extractor, kwargs, net_arch, tuple(info.obs_low.shape), info.num_actions)
    if count > MAX_PARAMETERS:
        raise ValueError(
            f"the network has {count:_} parameters, more than {MAX_PARAMETERS:_} (extractor {extractor} "
            f"{kwargs}, net_arch {shorten(repr(net_arch))})"
        )
    return count


def _check_board(env_id: str, options: dict, kwargs, net_arch) -> int:
    """:func:`check_config` for a board network: the game declares its
    actions' layout, the trunk's options are channels, layers and hex, no
    ``net_arch``; returns the parameter count."""
    from boardenvs.registry import make_game

    from .boardnet import action_layout, board_parameters

    game = make_game(env_id, **options)
    layout = action_layout(game)
    if layout is None:
        raise ValueError(f"extractor 'board': {env_id} declares no action layout (TOOLS['training']['actions'])")
    kwargs = check_extractor_kwargs(kwargs)
    unknown = sorted(set(kwargs) - BOARD_OPTION_NAMES)
    if unknown:
        raise ValueError(
            f"extractor options {shorten(repr(kwargs))}: the board network takes no {unknown[0]!r} "
            f"(it takes {', '.join(sorted(BOARD_OPTION_NAMES))})"
        )
    if net_arch != []:
        raise ValueError(
            f"net_arch must be [] for the board network (its heads read the cells), got {shorten(repr(net_arch))}"
        )
    trunk = {**BOARD_OPTIONS, **kwargs}
    try:
        count = board_parameters(
            tuple(game.info.obs_low.shape), layout, trunk["channels"], trunk["layers"], bool(trunk.get("paths"))
        )
    except ValueError as exc:
        raise ValueError(f"extractor options {shorten(repr(kwargs))}: {exc}") from None
    if count > MAX_PARAMETERS:
        raise ValueError(f"the network has {count:_} parameters, more than {MAX_PARAMETERS:_} (board {kwargs})")
    return count


def parameter_count(extractor: str, kwargs: dict, net_arch: list, obs_shape: tuple, num_actions: int) -> int:
    """The number of parameters of the policy :func:`new_policy` builds
    (the extractor shared by the policy and value heads, then ``net_arch``
    for each head, the action and value layers), by arithmetic: nothing is
    allocated.  ValueError if the extractor cannot read observations of
    ``obs_shape``."""
    import math

    def linear(n_in, n_out):
        return n_in * n_out + n_out

    fd = kwargs.get("features_dim", 128)
    if extractor == "mlp":
        hidden = kwargs.get("hidden", 256)
        features = linear(math.prod(obs_shape), hidden) + linear(hidden, fd)
    else:
        if len(obs_shape) != 3:
            raise ValueError(
                f"extractor {extractor!r} reads (H, W, C) board planes, the game's observations are {obs_shape}"
            )
        h, w, c = obs_shape
        seats = 0
        if extractor == "hexpaths":
            if (c - 7) % 5 or c < 17:
                raise ValueError(f"extractor 'hexpaths' reads Hex Quoridor's (H, W, 5n + 7) planes, got {obs_shape}")
            seats = (c - 7) // 5
        channels, layers = kwargs.get("channels", 32), kwargs.get("layers", 3)
        pieces = len(kwargs.get("split", ())) * kwargs.get("pieces", 2)
        c_in = c + pieces + 8 * seats
        views = pieces * (2 * h - 1) * (2 * w - 1) * c_in if kwargs.get("around") else 0
        convs = linear(9 * c_in, channels) + (layers - 1) * linear(9 * channels, channels)
        features = convs + linear(channels * h * w + views + seats, fd)
    heads, last = 0, fd
    for units in net_arch:
        heads, last = heads + linear(last, units), units
    return features + 2 * heads + linear(last, num_actions) + linear(last, 1)


def same_game(env_id: str, options: dict, other_id: str, other_options: dict) -> bool:
    """Whether two (id, options) make the same game, defaults filled in
    (``{}`` and ``{"num_players": 2}`` are the same Hex Quoridor)."""
    from boardenvs.registry import make_game

    return env_id == other_id and make_game(env_id, **options).options == make_game(other_id, **other_options).options


def model_config(env_id: str, players: int | None, network: str | None = None) -> dict:
    """What every saved model's config starts with: its name, game, options
    and network (the game's declared :func:`training_defaults`): the board
    network where the game declares its actions' layout, else (or with
    ``network="dense"``) the dense one."""
    defaults = training_defaults(env_id)
    if network not in (None, BOARD, "dense"):
        raise ValueError(f"network must be 'board' or 'dense', got {network!r}")
    config = {"name": model_name(env_id, players), "env_id": env_id, "options": game_options(env_id, players)}
    if network == BOARD and defaults.actions is None:
        raise ValueError(f"{env_id} declares no action layout for the board network: use the dense one")
    if defaults.actions is not None and network != "dense":
        trunk = {**BOARD_OPTIONS, "hex": bool(defaults.extractor_kwargs.get("hex")), **defaults.board}
        config |= {"extractor": BOARD, "extractor_kwargs": trunk, "net_arch": []}
    else:
        config |= {
            "extractor": defaults.extractor,
            "extractor_kwargs": dict(defaults.extractor_kwargs),
            "net_arch": [128],
        }
    return config | {"algorithm": "sb3_contrib.MaskablePPO"}


def policy_class(config: dict):
    """The SB3 policy class of a config: :class:`.boardnet.BoardPolicy` for
    the board network, :class:`.policies.DensePolicy` (sb3-contrib's
    ``MaskableActorCriticPolicy``) else."""
    if config["extractor"] == BOARD:
        from .boardnet import BoardPolicy

        return BoardPolicy
    from .policies import DensePolicy

    return DensePolicy


def policy_kwargs(config: dict) -> dict:
    """The keywords that build a config's policy (with :func:`policy_class`)."""
    from .extractors import EXTRACTORS

    if config["extractor"] == BOARD:
        from boardenvs.registry import make_game

        from .boardnet import BoardTrunk, action_layout, trunk_pieces

        layout = action_layout(make_game(config["env_id"], **config["options"]))
        trunk = {**BOARD_OPTIONS, **config["extractor_kwargs"], "pieces": trunk_pieces(layout)}
        return {"features_extractor_class": BoardTrunk, "features_extractor_kwargs": trunk, "layout": layout}
    return {
        "features_extractor_class": EXTRACTORS[config["extractor"]],
        "features_extractor_kwargs": dict(config["extractor_kwargs"]),
        "net_arch": {"pi": list(config["net_arch"]), "vf": list(config["net_arch"])},
    }


def new_policy(config: dict):
    """The (untrained) ``MaskableActorCriticPolicy`` of a model's config:
    the game's spaces, the config's network (checked first,
    :func:`check_config`: ValueError naming the field; or naming the
    extractor options if the network cannot be built from them)."""
    check_config(config)
    from gymnasium import spaces

    from boardenvs.registry import make_game

    info = make_game(config["env_id"], **config["options"]).info
    obs_space = spaces.Box(info.obs_low, info.obs_high, info.obs_low.shape, "int8")
    try:
        return policy_class(config)(
            obs_space, spaces.Discrete(info.num_actions), lambda _: 0.0, **policy_kwargs(config)
        )
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
