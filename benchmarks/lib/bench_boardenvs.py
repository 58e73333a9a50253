"""boardenvs' own rows: every game and player count, through each API a
user steps it with.

For each game and each of its declared player counts (``hints.bench_variants``:
the option sets whose throughput differs; other variants, such as a smaller
board or a shorter turn limit, are not timed): the no-op AEC env with the game's
spaces under PettingZoo's wrapper and under boardenvs' own, the game's AEC
env, ``make_vec`` at every N (``vec.step(vec.random_actions())``), and at the
largest N ``vec.step_random()`` (the draw in the step's own pass) and a
one-thread row (what numba's threads give), and ``SB3VecEnv`` (the
single-agent path against the random opponent) with the masks read as
MaskablePPO reads them and as ``action_masks()`` hands them out.  What a
game is compared with and the warm-up its ``make_vec`` rows play first (so
a batch is spread over every phase of a game, e.g. Hex Quoridor's
fence-placing openings) come from its declaration (``TOOLS["bench"]``).
"""

from __future__ import annotations

from collections.abc import Callable

import bench_harness
import numba
import numpy as np
from bench_harness import Row, random_legal
from bench_pettingzoo import NoopEnv, aec_stepper
from hints import bench_hints, bench_variants
from pettingzoo.utils import wrappers

import boardenvs
from boardenvs.aec_views import OrderEnforcing
from boardenvs.vector import parallel_from

SB3_N = 1024  # the N of the SB3VecEnv rows (at most the largest N timed)
SB3_DIRECT = "SB3VecEnv, masks by action_masks()"
VEC_FUSED = "make_vec, step_random()"  # the random action drawn in the step's own pass
OUR_WRAPPER = "AEC, boardenvs wrapper"  # the no-op under boardenvs' OrderEnforcing


def vec_stepper(env_id: str, n: int, options: dict, num_threads=None, fused: bool = False) -> Callable[[], int]:
    """``make_vec`` steps with in-kernel random actions, after the warm-up:
    ``vec.step(vec.random_actions())`` (the actions handed out, then
    stepped), or with ``fused`` ``vec.step_random()`` (drawn in the step's
    own pass, as Pgx's row draws inside its jitted step)."""
    vec = boardenvs.make_vec(env_id, num_envs=n, num_threads=num_threads, **options)
    vec.reset(seed=12345)
    for _ in range(max(1, bench_hints(env_id).warmup)):
        vec.step(vec.random_actions())
    k = max(1, 1024 // n)

    def chunk():
        if fused:
            for _ in range(k):
                vec.step_random()
        else:
            for _ in range(k):
                vec.step(vec.random_actions())
        return k * n

    return chunk


def sb3_env(kind: str, env_id: str, n: int, options: dict | None = None):
    """``SB3VecEnv`` over the kernels, or SB3's ``DummyVecEnv`` of ``n``
    single-agent envs (what a user would build without it); random opponent."""
    if kind == "SB3VecEnv":
        from boardenvs.wrappers import SB3VecEnv

        return SB3VecEnv(env_id, num_envs=n, **(options or {}))
    from stable_baselines3.common.env_util import make_vec_env

    return make_vec_env(env_id, n_envs=n, env_kwargs=options or None)


def sb3_stepper(kind: str, env_id: str, n: int, options: dict | None = None, direct: bool = False) -> Callable[[], int]:
    """Learner steps (each with the opponent's reply) through an SB3 VecEnv,
    the masks as MaskablePPO reads them (sb3-contrib's ``get_action_masks``:
    ``np.stack`` of ``env_method("action_masks")``), or with ``direct`` from
    ``SB3VecEnv.action_masks()`` (one array, no stacking)."""
    get_action_masks = bench_harness.optional_import("sb3_contrib.common.maskable.utils").get_action_masks
    env = sb3_env(kind, env_id, n, options)
    masks_of = (lambda e: e.action_masks()) if direct else get_action_masks
    rng = np.random.default_rng(0)
    env.seed(0)
    env.reset()

    def chunk():
        env.step(random_legal(masks_of(env), rng))
        return n

    chunk()
    return chunk


def variants(env_id: str) -> tuple:
    """The option sets of ``env_id`` timed (its declared player counts)."""
    return bench_variants(env_id)


def variant_label(env_id: str, options: dict) -> str:
    """The row's game: the env id and the variant's options, e.g. ``hex_quoridor_v1, num_players=6``."""
    return env_id + "".join(f", {k}={v}" for k, v in options.items())


def boardenvs_rows(env_ids, sizes, sb3: bool = True, threads_row: bool = True) -> list[Row]:
    """Every game and player count: no-op, AEC, make_vec at each N (and N =
    4096 with one thread), SB3VecEnv."""
    rows = []
    for env_id in env_ids:
        for options in variants(env_id):
            label = variant_label(env_id, options)
            game = boardenvs.make_game(env_id, **options)
            spaces_of = (game.num_actions, 120, game.obs_shape, game.num_players)
            rows.append(
                Row(
                    "no-op",
                    label,
                    "AEC",
                    1,
                    threads=None,
                    env_id=env_id,
                    options=options,
                    setup=lambda s=spaces_of: aec_stepper(lambda: wrappers.OrderEnforcingWrapper(NoopEnv(*s))),
                )
            )
            # the same no-op under boardenvs' own OrderEnforcing (which answers the per-step reads
            # PettingZoo's wrapper forwards through __getattr__): the env alone compared
            rows.append(
                Row(
                    "no-op",
                    label,
                    OUR_WRAPPER,
                    1,
                    threads=None,
                    env_id=env_id,
                    options=options,
                    setup=lambda s=spaces_of: aec_stepper(lambda: OrderEnforcing(NoopEnv(*s))),
                )
            )
            rows.append(
                Row(
                    "boardenvs",
                    label,
                    "AEC",
                    1,
                    env_id=env_id,
                    options=options,
                    setup=lambda e=env_id, o=options: aec_stepper(lambda: boardenvs.make(e, **o)),
                )
            )
            for n in sizes:
                rows.append(
                    Row(
                        "boardenvs",
                        label,
                        "make_vec",
                        n,
                        env_id=env_id,
                        options=options,
                        setup=lambda e=env_id, n=n, o=options: vec_stepper(e, n, o),
                    )
                )
            big = max(sizes)
            rows.append(
                Row(
                    "boardenvs",
                    label,
                    VEC_FUSED,
                    big,
                    env_id=env_id,
                    options=options,
                    setup=lambda e=env_id, n=big, o=options: vec_stepper(e, n, o, fused=True),
                )
            )
            if threads_row and numba.config.NUMBA_NUM_THREADS > 1 and big >= parallel_from():
                rows.append(
                    Row(
                        "boardenvs",
                        label,
                        "make_vec",
                        big,
                        threads=1,
                        env_id=env_id,
                        options=options,
                        setup=lambda e=env_id, n=big, o=options: vec_stepper(e, n, o, num_threads=1),
                    )
                )
            if sb3:
                n = min(SB3_N, big)
                rows.append(
                    Row(
                        "boardenvs",
                        label,
                        "SB3VecEnv",
                        n,
                        env_id=env_id,
                        options=options,
                        setup=lambda e=env_id, n=n, o=options: sb3_stepper("SB3VecEnv", e, n, o),
                    )
                )
                rows.append(
                    Row(
                        "boardenvs",
                        label,
                        SB3_DIRECT,
                        n,
                        env_id=env_id,
                        options=options,
                        setup=lambda e=env_id, n=n, o=options: sb3_stepper("SB3VecEnv", e, n, o, direct=True),
                    )
                )
    return rows
