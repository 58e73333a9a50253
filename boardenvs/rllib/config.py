"""One call to a working RLlib config: ``ppo_config`` / ``appo_config`` and the env registration."""

from __future__ import annotations

import gymnasium
from ray.rllib.algorithms.ppo import PPOConfig
from ray.tune.registry import register_env

from ..league import League
from ..registry import game_class, gym_id_of, registered_ids
from ..spec import check_size
from .env import BoardMultiAgentEnv
from .league import LeagueCallback, LeagueMapping, RLlibSelfPlayCallback, self_play_league
from .module import module_spec
from .runner import BoardEnvRunner


def ppo_config(
    env_id: str,
    *,
    opponent="random",
    num_env_runners: int = 0,
    envs_per_runner: int = 64,
    seat="random",
    multi_agent: bool = False,
    snapshot_every: int = 2,
    env_runner: str = "boardenvs",
    **options,
) -> PPOConfig:
    """A ready ``PPOConfig`` for ``env_id`` (see the module docstring): the
    masked module, vectorised runners (``envs_per_runner`` games stepped per
    call by each of ``num_env_runners`` runners; 0: the driver samples), the
    opponent (a name, a saved model, or ``"self-play"``), the game's options.
    ``multi_agent=True``: the native multi-agent route, every seat an agent
    of :class:`BoardMultiAgentEnv`: all played by the one module being
    trained (``"main"``, parameter sharing), or with
    ``opponent="self-play"`` one seat per episode by ``"main"`` and the
    others by frozen snapshots added as modules (:class:`LeagueCallback`,
    RLlib's league tools).

    PPO's settings start from what trains these games (call
    ``.training(...)`` on the result to change them): a batch of 32 steps
    per game sampled (``train_batch_size_per_learner = 32 x runners x
    envs_per_runner``, at least 4096), minibatches of an eighth of it (at
    least 512), 4 epochs, ``lr=3e-4``; RLlib's own defaults (30 epochs over
    minibatches of 128) spend most of an iteration in the learner."""
    config = _setup(PPOConfig(), env_id, num_env_runners, envs_per_runner)
    batch = max(4096, 32 * max(num_env_runners, 1) * (1 if multi_agent else envs_per_runner))
    config = config.training(
        train_batch_size_per_learner=batch, minibatch_size=max(512, batch // 8), num_epochs=4, lr=3e-4
    )
    return _routes(
        config,
        env_id,
        opponent,
        num_env_runners,
        envs_per_runner,
        seat,
        multi_agent,
        snapshot_every,
        options,
        env_runner,
    )


def appo_config(
    env_id: str,
    *,
    algorithm: str = "APPO",
    opponent="random",
    num_env_runners: int = 1,
    envs_per_runner: int = 64,
    seat="random",
    multi_agent: bool = False,
    snapshot_every: int = 2,
    env_runner: str = "boardenvs",
    **options,
):
    """A ready ``APPOConfig`` (``algorithm="IMPALA"``: an ``IMPALAConfig``)
    for ``env_id``: what :func:`ppo_config` sets up (the masked module, with
    APPO's target network; the vectorised runners; the opponent or
    self-play; the native multi-agent route), for RLlib's asynchronous
    algorithms: the runners sample while the learner trains on what they
    sent (V-trace corrects for the policy lag), so adding runners adds
    samples without waiting for the slowest.  ``num_env_runners`` defaults
    to 1 (0 samples on the driver, one batch at a time).

    Their settings start from RLlib's own for each algorithm, with 512 steps
    per learner update and ``lr=1e-3`` (one gradient step per batch, so
    small batches: with 2048 and ``lr=3e-4`` neither learned Quess in 30
    iterations; with these both won over 90% against random); change them
    with ``.training(...)``.  Both run their learner as a remote actor by
    default (one CPU besides the runners': on 2 CPUs, one runner)."""
    from ray.rllib.algorithms.appo import APPOConfig
    from ray.rllib.algorithms.impala import IMPALAConfig

    kinds = {"APPO": APPOConfig, "IMPALA": IMPALAConfig}
    if algorithm not in kinds:
        raise ValueError(f"algorithm must be 'APPO' or 'IMPALA', got {algorithm!r}")
    config = _setup(kinds[algorithm](), env_id, num_env_runners, envs_per_runner)
    config = config.training(train_batch_size_per_learner=512, lr=1e-3)
    return _routes(
        config,
        env_id,
        opponent,
        num_env_runners,
        envs_per_runner,
        seat,
        multi_agent,
        snapshot_every,
        options,
        env_runner,
    )


def _setup(config, env_id: str, num_env_runners: int, envs_per_runner: int):
    """The checks and the settings every algorithm shares."""
    if env_id not in registered_ids():
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(registered_ids())}")
    check_size("num_env_runners", num_env_runners, 1024, low=0)
    check_size("envs_per_runner", envs_per_runner, 1 << 16)
    config = config.api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
    # a runner that dies (a killed process, a lost node) is restarted by Ray and synced with the learner's
    # weights; the iteration goes on with the healthy ones, and what the dead one held is not counted
    config = config.fault_tolerance(restart_failed_env_runners=True, ignore_env_runner_failures=False)
    return config.framework("torch")


def _routes(
    config,
    env_id,
    opponent,
    num_env_runners,
    envs_per_runner,
    seat,
    multi_agent,
    snapshot_every,
    options,
    env_runner="boardenvs",
):
    """The module, the env runners and the opponents of either route (see :func:`ppo_config`)."""
    names = {o.name for o in game_class(env_id).option_specs}
    spec = module_spec(
        env_id, **{k: v for k, v in options.items() if k in names}
    )  # the game's options (not the faces')
    if multi_agent:
        config = config.environment(BoardMultiAgentEnv, env_config={"env_id": env_id, **options})
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

        config = config.multi_agent(policies={"main"}, policy_mapping_fn=LeagueMapping(), policies_to_train=["main"])
        config = config.rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"main": spec}))
        config = config.env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        if opponent == "self-play":
            config = config.callbacks(lambda: LeagueCallback(every=snapshot_every))
        elif opponent != "random":
            raise ValueError(
                "multi_agent=True: opponent is 'random' (every seat the trained module) or 'self-play' "
                f"(the trained module against its snapshots), got {opponent!r}"
            )
        return config
    if isinstance(opponent, str) and opponent == "self-play":
        opponent = self_play_league()
    self_play = isinstance(opponent, League)
    if env_runner not in ("boardenvs", "rllib"):
        raise ValueError(
            f"env_runner must be 'boardenvs' (BoardEnvRunner, the engine's learner loop) or 'rllib' "
            f"(RLlib's SingleAgentEnvRunner, step by step), got {env_runner!r}"
        )
    ours = env_runner == "boardenvs"
    env_config = {
        "opponent": opponent,
        "seat": seat,
        "autoreset_mode": "same_step" if ours else "next_step",
        "action_mask_in_obs": True,
        "flatten": True,
        **options,
    }
    # "module:id": a remote runner imports boardenvs (which registers the id) before gymnasium looks it up
    config = config.environment(f"boardenvs:{gym_id_of(game_class(env_id))}", env_config=env_config)
    config = config.env_runners(
        num_env_runners=num_env_runners,
        num_envs_per_env_runner=envs_per_runner,
        gym_env_vectorize_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
    )
    if ours:
        config = config.env_runners(env_runner_cls=BoardEnvRunner)
    config = config.rl_module(rl_module_spec=spec)
    if self_play:
        config = config.callbacks(lambda: RLlibSelfPlayCallback(every=snapshot_every))
    return config


def _env_creator(env_id):
    def create(env_config):
        return BoardMultiAgentEnv({"env_id": env_id, **dict(env_config or {})})

    return create


def register_envs() -> None:
    """Register every env id with Ray Tune's registry (the multi-agent env);
    done at import, again for games registered since."""
    for env_id in registered_ids():
        register_env(env_id, _env_creator(env_id))
