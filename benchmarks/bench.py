"""Every game and player count against PettingZoo, OpenSpiel, EnvPool and Pgx, in one run.

Run with ``make bench`` (or ``python benchmarks/bench.py``; ``--quick`` for a
short development run).  Writes ``benchmarks/results.md`` (the tables),
``benchmarks/results.json`` (raw samples, medians, the machine) and
``benchmarks/throughput.png`` (steps/s against N, log-log); the
documentation site's Benchmarks page is built from those files (``make
docs``).

What is timed (every row: a random legal action, then observation and mask,
every step; ended games restart):

* boardenvs, for every game and player count (``hints.bench_variants``):
  AEC (PettingZoo's own loop, ``agent_iter``/``last``/``step``, dead steps
  counted), next to a no-op AEC env with the same spaces, agent count and
  wrapper (PettingZoo's ``OrderEnforcingWrapper``; the target), and under
  boardenvs' own ``OrderEnforcing`` (the env alone compared); ``make_vec`` at N = 1, 64, 1024, 4096 (``vec.step(
  vec.random_actions())``: the action drawn in the kernel, auto-reset in the
  kernel), and at N = 4096 with one numba thread; ``SB3VecEnv`` (the
  single-agent path, random opponent, actions from ``env_method
  ("action_masks")`` as MaskablePPO asks) at N = 1024, and once more with the
  masks from ``SB3VecEnv.action_masks()``.
* the TorchRL table: ``boardenvs.torchrl.BoardEnv`` env steps/s against
  ``SB3VecEnv`` and TorchRL's ``SerialEnv`` / ``ParallelEnv`` of the
  gymnasium id's ``GymWrapper`` at the same N (``--no-torchrl`` skips it).
* anchors, each skipped with a printed reason when its extra is absent:
  PettingZoo classic connect_four / chess / go 9x9 (``boardenvs[bench]``);
  OpenSpiel quoridor / amazons / breakthrough / backgammon / hex /
  connect_four through pyspiel, legal actions and observation tensor every
  decision, chance outcomes sampled outside the count (``boardenvs[bench]``);
  EnvPool's C++ board games (``boardenvs[bench]``, CPython 3.11 on x86-64
  Linux) with its thread pool, actions from its ``legal_action_mask`` by the
  compiled sampler, and by numpy at the largest N; Pgx on CPU (``boardenvs[pgx]``): ``jit`` of a ``lax.scan`` of K
  ``vmap``-ed steps per call (Pgx's best case on CPU: one dispatch per K
  steps, while ``make_vec`` makes one Python call per step), actions sampled
  with ``jax.random.categorical`` over the masked logits inside the jitted
  function, ``pgx.experimental.auto_reset``; compile time (first call)
  reported apart.

Timing is interleaved: every row is set up (and warmed up) first, then each
repeat times every row once, round-robin; rows report the median and min-max
of the repeats and CPU-seconds per wall-second (``time.process_time``, which
counts numba's and XLA's threads).  Ratios divide by anchors from the same
run, per wall-second and per CPU-second.  This machine is shared and noisy:
compare ratios, not absolute numbers across runs.  Each section records the
load average and other processes' CPU; a busy or ``--quick`` run does not
replace the published tables (``benchmarks/results.*``) unless ``--force``.
Then ``benchmarks/breakdown.py``'s table: where a step's time goes, per game.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import importlib
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numba
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import boardenvs
from boardenvs import engine as E
from boardenvs.registry import registered_ids

sys.path.insert(0, str(Path(__file__).resolve().parent))  # this folder's modules, however this one is loaded
from hints import bench_hints, bench_variants  # noqa: E402

from boardenvs.aec import OrderEnforcing
from boardenvs.vector import parallel_from

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "benchmarks"  # results.md / .json / throughput.png of the published run (the docs' Benchmarks page)

SIZES = (1, 64, 1024, 4096)
QUICK_SIZES = (1, 4096)
SB3_N = 1024
# the option sets whose throughput differs: the player counts (other variants,
# such as a smaller board or a shorter turn limit, are not timed)
# what each game is timed in and compared with comes from its declaration:
# hints.bench_variants (every player count), the game module's TOOLS["bench"] (the closest OpenSpiel
# game and why; the warm-up steps every make_vec row plays first, so a batch is
# spread over every phase of a game, e.g. Hex Quoridor's fence-placing openings)


def closest(env_id: str):
    """The game's closest OpenSpiel game and why, ``(name, why)``, or None."""
    return bench_hints(env_id).closest


def closest_envpool(env_id: str):
    """The game's closest EnvPool game and why, ``(task id, why)``, or None."""
    return bench_hints(env_id).envpool


OPENSPIEL_GAMES = ("quoridor", "amazons", "breakthrough", "backgammon", "hex", "connect_four")
PETTINGZOO_GAMES = ("connect_four", "chess", "go_9x9")
PGX_GAMES = ("connect_four", "othello", "go_9x9", "backgammon", "hex")
PGX_ANCHOR = ("connect_four", 4096)  # the bar for every make_vec N = 4096 row
ENVPOOL_GAMES = ("ConnectFour-v1", "Othello-v1", "Hex-v1", "Backgammon-v1", "Go9x9-v1")
ENVPOOL_API = "C++ thread pool"
ENVPOOL_NUMPY = "C++ thread pool, numpy sampler"
SB3_DIRECT = "SB3VecEnv, masks by action_masks()"
VEC_FUSED = "make_vec, step_random()"  # the random action drawn in the step's own pass
# targets (ratios in the same run), each with the basis it is read on
TARGET_VS_PGX = 1.0  # per CPU-second
TARGET_VS_ENVPOOL = 10.0  # per CPU-second, the game's closest EnvPool game at the same N
TARGET_VS_OPENSPIEL = 20.0  # per wall-second
TARGET_VS_NOOP = 0.8
# learner steps/s through SB3VecEnv against make_vec's steps/s at the same N, times P (the seats): against
# P seats a learner step is also P - 1 opponent decisions, so 1/P is the natural ceiling (issue 45: >= 0.8 of it)
TARGET_SB3_VS_VEC = 0.8
TARGET_SB3_VS_DUMMY = 20.0  # SB3VecEnv against SB3's DummyVecEnv of single-agent envs
TARGET_WARM_STARTUP = 1.0
TARGET_COLD_STARTUP = 5.0
# a run is "quiet" when other processes used less than this many cores on average while it timed
QUIET_OTHERS = 0.25
# the Pgx paper's published claims (not measured here), quoted in the scaling note
PGX_PAPER = (
    'Koyamada et al., "Pgx: Hardware-Accelerated Parallel Game Simulators for Reinforcement Learning", '
    'NeurIPS 2023 Datasets and Benchmarks (arXiv:2303.17503), abstract: "In our experiments on a DGX-A100 '
    "workstation, we discovered that Pgx can simulate RL environments 10-100x faster than existing "
    "implementations available in Python\" (PettingZoo and OpenSpiel); the first arXiv version's abstract: "
    '"the simulation of Pgx on a single A100 GPU is 10x faster than that of existing reinforcement learning libraries"'
)


def optional_import(name: str):
    """An anchor's module, or ImportError (the tests replace this to check
    the skip path)."""
    return importlib.import_module(name)


OUR_WRAPPER = "AEC, boardenvs wrapper"
ANCHORS = ("pettingzoo", "openspiel", "envpool", "pgx")


# -- the no-op env -------------------------------------------------------------------------
class NoopEnv(AECEnv):
    """The API's own ceiling: ``num_agents`` agents, a constant observation
    and mask, games of a fixed length, no rules at all; same wrapper stack as
    ours."""

    metadata = {"render_modes": [], "name": "noop_v0", "is_parallelizable": False}

    def __init__(self, num_actions=1296, length=120, obs_shape=(6, 6, 8), num_agents=2):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_agents)]
        self.length = length
        self._obs = {"observation": np.zeros(obs_shape, np.int8), "action_mask": np.ones(num_actions, np.int8)}
        box = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, obs_shape, np.int8),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            }
        )
        self.observation_spaces = {a: box for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self.t = 0

    def observe(self, agent):
        return {"observation": self._obs["observation"].copy(), "action_mask": self._obs["action_mask"].copy()}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.t += 1
        self._cumulative_rewards[agent] = 0
        if self.t >= self.length:
            for a in self.agents:
                self.terminations[a] = True
            self.rewards = {a: 1.0 if a == "player_0" else -1.0 for a in self.agents}
        self.agent_selection = self.agents[self.t % len(self.agents)]
        self._accumulate_rewards()


# -- steppers: each setup returns chunk(), which plays some steps and returns how many ---
def _chunked(gen, k: int) -> Callable[[], int]:
    def chunk():
        for _ in range(k):
            next(gen)
        return k

    return chunk


def _classic_stepper(module, kwargs: dict):
    """The AEC stepper of a PettingZoo classic env module with its options."""
    return aec_stepper(lambda: module.env(**kwargs))


def aec_stepper(make_env, seed: int = 0, chunk: int = 64) -> Callable[[], int]:
    """PettingZoo's loop over games of ``make_env()``, ``chunk`` steps a call."""
    env = make_env()
    rng = np.random.default_rng(seed)

    def play():
        game = 0
        while True:
            env.reset(seed=seed + game)
            game += 1
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
                env.step(action)
                yield

    return _chunked(play(), chunk)


def openspiel_stepper(name: str, seed: int = 0, chunk: int = 64) -> Callable[[], int]:
    """Decisions of an OpenSpiel game through pyspiel, the legal-action list
    and the observation tensor every decision.  Chance outcomes (backgammon)
    are sampled by their probabilities and not counted, as make_vec resolves
    them inside a step."""
    pyspiel = optional_import("pyspiel")
    game = pyspiel.load_game(name)
    has_chance = game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
    rng = np.random.default_rng(seed)

    def play():
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if has_chance and state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
                    continue
                legal = state.legal_actions()
                state.observation_tensor()
                state.apply_action(legal[rng.integers(len(legal))])
                yield

    return _chunked(play(), chunk)


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


@numba.njit(cache=True)
def _pick_legal(masks, states, out):
    """Row ``i``: the engine's own draw (``engine.sample_mask``) from
    ``masks[i]`` with the generator in ``states[i]``."""
    for i in range(masks.shape[0]):
        out[i] = E.sample_mask(states[i], masks[i])
    return out


def _random_legal(masks, rng):
    """A uniformly random legal action per row of a mask array (one compiled
    pass, so the sampler costs every VecEnv the same small time): the
    engine's sampler, each row's generator seeded from ``rng``."""
    masks = np.ascontiguousarray(masks, dtype=np.bool_).view(np.int8)
    states = np.zeros((len(masks), E.H_RNG + 1), np.int64)
    states[:, E.H_RNG] = rng.integers(1, 2**62, len(masks))
    return _pick_legal(masks, states, np.zeros(len(masks), np.int64))


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
    get_action_masks = optional_import("sb3_contrib.common.maskable.utils").get_action_masks
    env = sb3_env(kind, env_id, n, options)
    masks_of = (lambda e: e.action_masks()) if direct else get_action_masks
    rng = np.random.default_rng(0)
    env.seed(0)
    env.reset()

    def chunk():
        env.step(_random_legal(masks_of(env), rng))
        return n

    chunk()
    return chunk


def _numpy_legal(masks, rng):
    """What a user would write in numpy: the argmax of uniform noise over
    the legal entries (a uniformly random legal action per row)."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def envpool_stepper(task: str, n: int, sampler: str = "compiled", threads: int | None = None) -> Callable[[], int]:
    """EnvPool's C++ board games (``envpool.make(task, env_type="gymnasium")``,
    its thread pool with ``threads`` threads, default the cores): actions
    from ``info["legal_action_mask"]`` by the compiled sampler (or, with
    ``sampler="numpy"``, by :func:`_numpy_legal`).  EnvPool restarts an
    ended game on the next step, ignoring its action: those steps are not
    counted (make_vec restarts inside the step that ends)."""
    envpool = optional_import("envpool")
    threads = threads or os.cpu_count() or 1
    env = envpool.make(task, env_type="gymnasium", num_envs=n, batch_size=n, num_threads=min(threads, n), seed=0)
    rng = np.random.default_rng(0)
    pick = _random_legal if sampler == "compiled" else _numpy_legal
    _, info = env.reset()
    state = {"masks": info["legal_action_mask"], "ended": np.zeros(n, np.bool_)}
    k = max(1, 1024 // n)

    def chunk():
        steps = 0
        for _ in range(k):
            _, _, term, trunc, info = env.step(pick(state["masks"], rng))
            steps += n - int(state["ended"].sum())
            state["masks"], state["ended"] = info["legal_action_mask"], term | trunc
        return steps

    return chunk


def pgx_steps_per_call(batch: int) -> int:
    """K: steps per jitted call (fewer dispatches on small batches)."""
    return max(1, min(128, 8192 // batch))


def pgx_stepper(name: str, batch: int, info: dict) -> Callable[[], int]:
    """Pgx on CPU: jit(scan of K vmap-ed auto-reset steps) with actions
    sampled from the masks inside; ``info`` gets the compile time (first
    call) and the state's bytes per row."""
    jax = optional_import("jax")
    jnp = optional_import("jax.numpy")
    pgx = optional_import("pgx")
    from pgx.experimental import auto_reset

    env = pgx.make(name)
    k = pgx_steps_per_call(batch)
    step = jax.vmap(auto_reset(env.step, env.init))

    def body(carry, _):
        state, key = carry
        key, k_act, k_reset = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(k_act, logits, axis=-1)
        return (step(state, action, jax.random.split(k_reset, batch)), key), None

    run = jax.jit(lambda state, key: jax.lax.scan(body, (state, key), None, length=k)[0])
    key = jax.random.PRNGKey(0)
    t0 = time.perf_counter()
    carry = jax.jit(jax.vmap(env.init))(jax.random.split(key, batch)), key
    carry = run(*carry)
    jax.block_until_ready(carry)
    info["compile_s"] = time.perf_counter() - t0
    info["state_bytes_per_row"] = sum(x.nbytes for x in jax.tree_util.tree_leaves(carry[0])) / batch
    info["steps_per_call"] = k

    def chunk():
        nonlocal carry
        carry = run(*carry)
        jax.block_until_ready(carry)
        return batch * k

    return chunk


# -- rows and the one timing loop ----------------------------------------------------------
@dataclasses.dataclass
class Row:
    system: str  # "boardenvs", "no-op", "PettingZoo", "OpenSpiel", "Pgx (CPU)"
    game: str  # env id or the anchor's game name, with the variant
    api: str  # "AEC", "make_vec", "SB3VecEnv", "pyspiel", "jit+vmap"
    n: int
    setup: Callable[[], Callable[[], int]] = dataclasses.field(repr=False, compare=False)
    threads: int | None = None  # numba threads, None = numba's default
    env_id: str | None = None
    options: dict = dataclasses.field(default_factory=dict)
    samples: list = dataclasses.field(default_factory=list)  # (steps/s, CPU-s per wall-s)
    info: dict = dataclasses.field(default_factory=dict)  # compile_s, setup_s, ...

    @property
    def rate(self) -> float:
        return statistics.median(r for r, _ in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(c for _, c in self.samples)

    @property
    def rate_per_cpu(self) -> float:
        return statistics.median(r / max(c, 1e-9) for r, c in self.samples)

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in ("system", "game", "api", "n", "threads", "env_id", "options", "info")}
        out["samples"] = [{"steps_per_s": r, "cpu_per_wall": c} for r, c in self.samples]
        if self.samples:
            rates = [r for r, _ in self.samples]
            out.update(
                median=self.rate, min=min(rates), max=max(rates), cpu_per_wall=self.cpu, per_cpu_s=self.rate_per_cpu
            )
        return out


def measure(chunk: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Steps/s and CPU-seconds per wall-second of ``chunk`` calls for ``seconds``."""
    steps = 0
    c0, t0 = time.process_time(), time.perf_counter()
    while True:
        steps += chunk()
        wall = time.perf_counter() - t0
        if wall >= seconds:
            return steps / wall, (time.process_time() - c0) / wall


def run_interleaved(rows: list[Row], seconds: float, repeats: int, log=print) -> list[Row]:
    """Set up every row (compile, warm up), then time them round-robin
    ``repeats`` times.  Rows whose setup fails are dropped with the reason
    logged (and returned in ``info``)."""
    chunks, kept = [], []
    for row in rows:
        t0 = time.perf_counter()
        try:
            chunk = row.setup()
            chunk()  # warm-up: compilation, caches
        except Exception as exc:  # an anchor that cannot run here
            log(f"skipped {row.system} {row.game} {row.api} N={row.n}: {type(exc).__name__}: {exc}")
            continue
        row.info["setup_s"] = time.perf_counter() - t0
        chunks.append(chunk)
        kept.append(row)
    for r in range(repeats):
        for row, chunk in zip(kept, chunks):
            row.samples.append(measure(chunk, seconds))
        log(f"repeat {r + 1}/{repeats} done")
    return kept


def variants(env_id: str) -> tuple:
    """The option sets of ``env_id`` timed (its declared player counts)."""
    return bench_variants(env_id)


def variant_label(env_id: str, options: dict) -> str:
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


def anchor_rows(which, sizes, env_ids, log=print) -> list[Row]:
    """The anchors whose extras are installed (a printed reason for the others)."""
    rows = []
    if "pettingzoo" in which:
        try:
            classic = {
                name: optional_import(f"pettingzoo.classic.{mod}")
                for name, mod in (("connect_four", "connect_four_v3"), ("chess", "chess_v6"), ("go_9x9", "go_v5"))
            }
        except Exception as exc:
            log(f"PettingZoo classic anchors skipped: {exc}; pip install 'boardenvs[bench]'")
        else:
            kwargs = {"go_9x9": {"board_size": 9}}
            for name in PETTINGZOO_GAMES:
                rows.append(
                    Row(
                        "PettingZoo",
                        name,
                        "AEC",
                        1,
                        setup=functools.partial(_classic_stepper, classic[name], kwargs.get(name, {})),
                    )
                )
    if "openspiel" in which:
        try:
            optional_import("pyspiel")
        except Exception as exc:
            log(f"OpenSpiel anchors skipped: {exc}; pip install 'boardenvs[bench]' (Linux, Python >= 3.11)")
        else:
            wanted = set(OPENSPIEL_GAMES) if env_ids is None else {closest(e)[0] for e in env_ids if closest(e)}
            for name in OPENSPIEL_GAMES:
                if name in wanted or env_ids is None:
                    rows.append(Row("OpenSpiel", name, "pyspiel", 1, setup=lambda g=name: openspiel_stepper(g)))
    if "envpool" in which:
        try:
            optional_import("envpool")
        except Exception as exc:
            log(f"EnvPool anchors skipped: {exc}; pip install 'boardenvs[bench]' (CPython 3.11, x86-64 Linux)")
        else:
            wanted = (
                ENVPOOL_GAMES
                if env_ids is None
                else [g for g in ENVPOOL_GAMES if g in {(closest_envpool(e) or (None,))[0] for e in env_ids}]
            )
            for task in wanted:
                for n in sizes:
                    rows.append(Row("EnvPool", task, ENVPOOL_API, n, setup=lambda t=task, n=n: envpool_stepper(t, n)))
                big = max(sizes)
                rows.append(
                    Row("EnvPool", task, ENVPOOL_NUMPY, big, setup=lambda t=task, n=big: envpool_stepper(t, n, "numpy"))
                )
    if "pgx" in which:
        try:
            optional_import("pgx")
            optional_import("jax")
        except Exception as exc:
            log(f"Pgx anchors skipped: {exc}; pip install 'boardenvs[pgx]'")
        else:
            # with --games, only the bar of the make_vec rows (connect_four)
            for name in PGX_GAMES if env_ids is None else PGX_GAMES[:1]:
                for n in sizes:
                    row = Row("Pgx (CPU)", name, "jit+vmap", n, setup=None)
                    row.setup = lambda g=name, n=n, r=row: pgx_stepper(g, n, r.info)
                    rows.append(row)
    return rows


# -- memory and start-up, in fresh interpreters ---------------------------------------------
_RSS_CODE = """
import json, resource
def rss():
    # VmHWM / VmRSS of this process (ru_maxrss would count the forking parent's peak: Linux keeps it across exec)
    try:
        with open("/proc/self/status") as f:
            fields = dict(line.split(":", 1) for line in f)
        return int(fields["VmHWM"].split()[0]) * 1024, int(fields["VmRSS"].split()[0]) * 1024
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return peak, peak
import boardenvs
_, base = rss()
vec = boardenvs.make_vec({env_id!r}, num_envs={n}, **{options!r})
vec.reset(seed=0)
for _ in range(50):
    vec.step(vec.random_actions())
peak, now = rss()
print(json.dumps({{"import_rss": base, "peak": peak, "rss": now}}))
"""


def memory_of(env_id: str, options: dict, n: int) -> dict:
    """Bytes per row (the int64 state; the int8 observation + mask buffers)
    and, in a fresh process holding make_vec at N = ``n`` after 50 steps,
    the peak RSS and the RSS over the RSS after ``import boardenvs``."""
    info = boardenvs.make_game(env_id, **options).info
    code = _RSS_CODE.format(env_id=env_id, n=n, options=options)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    rss = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "state_bytes_per_row": info.state_size * 8,
        "buffer_bytes_per_row": info.obs_size + info.mask_size,
        "n": n,
        "peak_rss": rss["peak"],
        "rss_over_import": rss["rss"] - rss["import_rss"],
    }


def startup_seconds(cold: bool, env_id: str = "quess_v0", options: dict | None = None) -> float:
    """Wall time of a fresh interpreter importing boardenvs and playing the
    first step of ``env_id`` through the public env; cold: with an empty
    numba cache directory (every kernel compiles), and then a step of
    ``make_vec``'s serial and threaded drivers too."""
    vec = "v=boardenvs.make_vec({e!r}, num_envs=4, parallel={p}, **{o!r}); v.reset(seed=0); v.step(v.random_actions());"
    code = (
        f"import time; t=time.perf_counter(); import boardenvs; e=boardenvs.make({env_id!r}, **{options or {}!r}); "
        "e.reset(seed=0); m=e.observe(e.agent_selection)['action_mask']; e.step(int(m.nonzero()[0][0]));"
        + ("".join(vec.format(e=env_id, p=p, o=options or {}) for p in (False, True)) if cold else "")
        + "print(time.perf_counter()-t)"
    )
    env = dict(os.environ)
    if cold:
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="boardenvs-cold-")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def startup_of(env_id: str, warm_runs: int, cold: bool) -> dict:
    startup_seconds(cold=False, env_id=env_id)  # fills the cache if empty
    warm = [startup_seconds(cold=False, env_id=env_id) for _ in range(warm_runs)]
    out = {"warm": warm, "warm_median": statistics.median(warm)}
    if cold:
        out["cold"] = startup_seconds(cold=True, env_id=env_id)
    return out


# -- ratios and targets -----------------------------------------------------------------
def find(rows, system, game, api, n, threads=None) -> Row | None:
    for row in rows:
        if (row.system, row.game, row.api, row.n, row.threads) == (system, game, api, n, threads):
            return row
    return None


def ratio(row: Row, anchor: Row) -> tuple[float, float]:
    """(per wall-second, per CPU-second)."""
    return row.rate / anchor.rate, row.rate_per_cpu / anchor.rate_per_cpu


def comparisons(row: Row, rows: list[Row], big: int) -> list[dict]:
    """The anchors a boardenvs row is compared with, each with its target (or None)."""
    out = []

    def add(anchor, name, target, basis="wall"):
        if anchor is not None and anchor.samples and row.samples:
            wall, cpu = ratio(row, anchor)
            met = None if target is None else (wall if basis == "wall" else cpu) >= target
            out.append({"anchor": name, "wall": wall, "cpu": cpu, "target": target, "basis": basis, "met": met})

    if row.system == "boardenvs" and row.api == "AEC":
        add(find(rows, "no-op", row.game, "AEC", 1), "no-op AEC (same spaces)", TARGET_VS_NOOP)
        add(find(rows, "no-op", row.game, OUR_WRAPPER, 1), "no-op under boardenvs' wrapper", None)
    elif row.system == "boardenvs" and row.api == "make_vec" and row.threads is None:
        os_name = (closest(row.env_id) or (None,))[0]
        add(
            find(rows, "OpenSpiel", os_name, "pyspiel", 1),
            f"OpenSpiel {os_name}",
            TARGET_VS_OPENSPIEL if row.n == big else None,
        )
        ep_name = (closest_envpool(row.env_id) or (None,))[0]
        add(
            find(rows, "EnvPool", ep_name, ENVPOOL_API, row.n),
            f"EnvPool {ep_name}@{row.n}",
            TARGET_VS_ENVPOOL if row.n == big else None,
            "cpu",
        )
        if row.n == big:
            add(
                find(rows, "EnvPool", ep_name, ENVPOOL_NUMPY, row.n),
                f"EnvPool {ep_name}@{row.n} with numpy sampling",
                None,
            )
        if row.n == PGX_ANCHOR[1]:
            add(
                find(rows, "Pgx (CPU)", PGX_ANCHOR[0], "jit+vmap", PGX_ANCHOR[1]),
                "Pgx connect_four@4096",
                TARGET_VS_PGX,
                "cpu",
            )
    elif row.system == "boardenvs" and row.api == VEC_FUSED:
        add(find(rows, "boardenvs", row.game, "make_vec", row.n), "step(random_actions())", None)
        if row.n == PGX_ANCHOR[1]:  # like for like: Pgx's row draws inside its jitted step too (no target here)
            add(find(rows, "Pgx (CPU)", PGX_ANCHOR[0], "jit+vmap", PGX_ANCHOR[1]), "Pgx connect_four@4096", None, "cpu")
    elif row.system == "boardenvs" and row.api == "make_vec":
        default = find(rows, "boardenvs", row.game, "make_vec", row.n)
        if default is not None and default.samples:
            out.append(
                {
                    "anchor": f"{numba.get_num_threads()} threads / 1 thread",
                    "wall": ratio(default, row)[0],
                    "cpu": ratio(default, row)[1],
                    "target": None,
                    "met": None,
                }
            )
    elif row.system == "boardenvs" and row.api == "SB3VecEnv":
        seats = boardenvs.make_game(row.env_id, **(row.options or {})).num_players
        add(
            find(rows, "boardenvs", row.game, "make_vec", row.n),
            f"make_vec N={row.n} / {seats} seats",
            TARGET_SB3_VS_VEC / seats,
        )
    elif row.system == "boardenvs" and row.api == SB3_DIRECT:
        add(find(rows, "boardenvs", row.game, "make_vec", row.n), f"make_vec N={row.n}", None)
        add(find(rows, "boardenvs", row.game, "SB3VecEnv", row.n), "SB3VecEnv through get_action_masks", None)
    elif row.system == "EnvPool" and row.api == ENVPOOL_NUMPY:
        add(find(rows, "EnvPool", row.game, ENVPOOL_API, row.n), "the compiled sampler", None)
    elif row.system == "Pgx (CPU)":
        add(find(rows, "OpenSpiel", row.game, "pyspiel", 1), f"OpenSpiel {row.game}", None)
    return out


# -- formatting -------------------------------------------------------------------------
def fmt(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def fmt_rate(row: Row) -> str:
    rates = [r for r, _ in row.samples]
    if len(rates) == 1:
        return fmt(rates[0])
    return f"{fmt(row.rate)} [{fmt(min(rates))}-{fmt(max(rates))}]"


def fmt_comparisons(comps: list[dict]) -> tuple[str, str]:
    ratios, targets = [], []
    for c in comps:
        ratios.append(f"{c['wall']:.2f}x / {c['cpu']:.2f}x {c['anchor']}")
        if c["target"] is not None:
            targets.append(f"{'met' if c['met'] else '**missed**'} ({target_text(c)})")
    return "; ".join(ratios) or "-", "; ".join(targets) or "-"


def target_text(c: dict) -> str:
    return f">= {c['target']:g}x {c['anchor']}" + (" per CPU-s" if c.get("basis") == "cpu" else "")


def api_label(row: Row) -> str:
    return row.api + (f", {row.threads} thread" if row.threads == 1 else "")


def boardenvs_table(rows: list[Row], big: int) -> list[str]:
    lines = [
        "| game | API | N | steps/s median [min-max] | CPU-s per wall-s | ratio per wall-s / per CPU-s | target |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for row in rows:
        if row.system not in ("boardenvs", "no-op"):
            continue
        name = row.game if row.system == "boardenvs" else f"no-op, {row.game}'s spaces"
        text, target = fmt_comparisons(comparisons(row, rows, big))
        lines.append(f"| {name} | {api_label(row)} | {row.n} | {fmt_rate(row)} | {row.cpu:.2f} | {text} | {target} |")
    return lines


def anchors_table(rows: list[Row]) -> list[str]:
    lines = [
        "| system | game | API | N | steps/s median [min-max] | CPU-s per wall-s | compile s | state "
        "bytes/row | ratio per wall-s / per CPU-s |",
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        if row.system in ("boardenvs", "no-op"):
            continue
        compile_s = f"{row.info['compile_s']:.1f}" if "compile_s" in row.info else "-"
        state = f"{row.info['state_bytes_per_row']:.0f}" if "state_bytes_per_row" in row.info else "-"
        text, _ = fmt_comparisons(comparisons(row, rows, 0))
        lines.append(
            f"| {row.system} | {row.game} | {row.api} | {row.n} | {fmt_rate(row)} | {row.cpu:.2f} | "
            f"{compile_s} | {state} | {text} |"
        )
    return lines


def memory_table(memory: dict, startup: dict) -> list[str]:
    lines = [
        "| game | state bytes/row | obs + mask bytes/row | N | the N rows' arrays | peak RSS | RSS over "
        "import | start-up warm (median) | cold | target warm <= 1 s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for label, m in memory.items():
        env_id = label.split(",")[0]
        s = startup.pop(env_id, None)
        warm = f"{s['warm_median']:.2f} s" if s else "-"
        cold = f"{s['cold']:.1f} s" if s and "cold" in s else "-"
        target = ("met" if s["warm_median"] <= TARGET_WARM_STARTUP else "**missed**") if s else "-"
        lines.append(
            f"| {label} | {m['state_bytes_per_row']} | {m['buffer_bytes_per_row']} | {m['n']} | "
            f"{m['n'] * (m['state_bytes_per_row'] + m['buffer_bytes_per_row']) / 2**20:.1f} MiB | "
            f"{m['peak_rss'] / 2**20:.0f} MiB | "
            f"{m['rss_over_import'] / 2**20:.0f} MiB | {warm} | {cold} | {target} |"
        )
    return lines


def targets_summary(rows: list[Row], big: int, startup: dict) -> list[dict]:
    out = []
    for row in rows:
        for c in comparisons(row, rows, big):
            if c["target"] is not None:
                out.append(
                    {
                        "row": f"{row.game} {api_label(row)} N={row.n}",
                        "target": target_text(c),
                        "value": c["cpu" if c.get("basis") == "cpu" else "wall"],
                        "met": c["met"],
                    }
                )
    for env_id, s in startup.items():
        out.append(
            {
                "row": f"{env_id} start-up",
                "target": f"warm <= {TARGET_WARM_STARTUP:g} s",
                "value": s["warm_median"],
                "met": s["warm_median"] <= TARGET_WARM_STARTUP,
            }
        )
        if "cold" in s:
            out.append(
                {
                    "row": f"{env_id} start-up",
                    "target": f"cold (with make_vec's drivers) <= {TARGET_COLD_STARTUP:g} s",
                    "value": s["cold"],
                    "met": s["cold"] <= TARGET_COLD_STARTUP,
                }
            )
    return out


def scaling_note(rows: list[Row], sizes) -> list[str]:
    """How make_vec grows with N and with threads, and the Pgx paper's GPU claim."""
    lines = []
    ours = [r for r in rows if r.system == "boardenvs" and r.api == "make_vec" and r.threads is None]
    games = sorted({r.game for r in ours}, key=[r.game for r in ours].index)
    steps = list(zip(sizes, sizes[1:]))
    growth = {(a, b): [] for a, b in steps}
    threads = []
    for game in games:
        for a, b in steps:
            ra, rb = find(rows, "boardenvs", game, "make_vec", a), find(rows, "boardenvs", game, "make_vec", b)
            if ra and rb:
                growth[(a, b)].append(rb.rate / ra.rate)
        one = find(rows, "boardenvs", game, "make_vec", max(sizes), threads=1)
        default = find(rows, "boardenvs", game, "make_vec", max(sizes))
        if one and default:
            threads.append((game, default.rate / one.rate, default.cpu, one.cpu))

    def span(xs):
        return f"median {statistics.median(xs):.2f}x (range {min(xs):.2f}-{max(xs):.2f}x)"

    parts = [f"N = {a} -> {b}: {span(v)}" for (a, b), v in growth.items() if v]
    if parts:
        lines.append("make_vec throughput against N, over the games above: " + "; ".join(parts) + ".")
        lines.append(
            f"Below N = {parallel_from()} make_vec runs a serial driver (one core); from there on numba's threads "
            f"({numba.get_num_threads()} here, threading layer "
            f"{numba.threading_layer() if _layer_started() else 'not started'})."
        )
    if threads:
        ratios = [t[1] for t in threads]
        lines.append(
            f"With cores: make_vec N = {max(sizes)} with {numba.get_num_threads()} numba threads vs 1 "
            f"thread: {span(ratios)} "
            f"(CPU-s per wall-s {statistics.median(t[2] for t in threads):.2f} vs "
            f"{statistics.median(t[3] for t in threads):.2f}); "
            "per game: " + ", ".join(f"{g} {r:.2f}x" for g, r, _, _ in threads) + "."
        )
        busy = statistics.median(t[2] for t in threads)
        if busy < 0.75 * numba.get_num_threads():
            lines.append(
                f"In this run the threaded rows got {busy:.2f} CPU-s per wall-s of the "
                f"{numba.get_num_threads()} their threads "
                "could use: the other cores were busy with other jobs, so the thread ratio above (and the "
                "flat N = 64 -> "
                "4096 growth) measures that contention, not what another core gives; read both on an idle machine."
            )
    pgx = [r for r in rows if r.system == "Pgx (CPU)"]
    if pgx:
        best = {}
        for r in pgx:
            if r.game not in best or r.rate > best[r.game].rate:
                best[r.game] = r
        lines.append(
            "Pgx on this CPU peaks at: "
            + ", ".join(f"{g} {fmt(r.rate)} (N={r.n})" for g, r in best.items())
            + f"; XLA's CPU-s per wall-s: median {statistics.median(r.cpu for r in pgx):.2f}."
        )
    lines.append(
        "GPU (published, not measured here): " + PGX_PAPER + ". Those are ratios on A100 GPUs against "
        "PettingZoo and OpenSpiel, not steps/s on this CPU: next to ours they say that on a GPU Pgx grows "
        "with the batch far past its CPU rows above, while make_vec grows with CPU cores (numba's threads). "
        "We found no per-game steps/s number in the paper's text or the Pgx README to quote exactly "
        "(its throughput figures are plots), so none is given here."
    )
    return lines


def _layer_started() -> bool:
    try:
        numba.threading_layer()
        return True
    except ValueError:
        return False


# -- other tables (kept from earlier issues) ------------------------------------------------
def training_path_table(seconds: float, repeats: int, log=print) -> tuple[list[str], list[dict]]:
    """SB3VecEnv vs DummyVecEnv env steps/s and MaskablePPO timesteps/s: the
    table's lines and the SB3VecEnv >= 20x DummyVecEnv targets."""
    try:
        optional_import("sb3_contrib")
    except Exception as exc:
        log(f"training-path rows skipped: {exc}; pip install 'boardenvs[train]'")
        return [], []
    rows = []
    for gym_id in ("boardenvs/Quess-v0", "boardenvs/Quagmire-v0"):
        for n in (64, 1024):
            for kind in ("DummyVecEnv", "SB3VecEnv"):
                rows.append(Row(kind, gym_id, kind, n, setup=lambda k=kind, g=gym_id, n=n: sb3_stepper(k, g, n)))
    run_interleaved(rows, seconds, repeats, log=lambda *_: None)
    lines = [
        f"| id | N | DummyVecEnv steps/s | SB3VecEnv steps/s | ratio (target >= {TARGET_SB3_VS_DUMMY:g}x) | "
        "MaskablePPO timesteps/s Dummy / SB3VecEnv |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    targets = []
    for gym_id in ("boardenvs/Quess-v0", "boardenvs/Quagmire-v0"):
        for n in (64, 1024):
            dummy, ours = (
                find(rows, "DummyVecEnv", gym_id, "DummyVecEnv", n),
                find(rows, "SB3VecEnv", gym_id, "SB3VecEnv", n),
            )
            if not (dummy and ours and dummy.samples and ours.samples):
                continue
            ppo = "-"
            if n == 64:
                ppo_d, ppo_s = (ppo_steps_per_second(k, gym_id, n, 64 * 128) for k in ("DummyVecEnv", "SB3VecEnv"))
                ppo = f"{fmt(ppo_d)} / {fmt(ppo_s)} ({ppo_s / ppo_d:.2f}x)"
            met = ours.rate / dummy.rate >= TARGET_SB3_VS_DUMMY
            lines.append(
                f"| {gym_id} | {n} | {fmt_rate(dummy)} | {fmt_rate(ours)} | {ours.rate / dummy.rate:.1f}x "
                f"{'met' if met else '**missed**'} | {ppo} |"
            )
            targets.append(
                {
                    "row": f"{gym_id} SB3VecEnv N={n}",
                    "target": f">= {TARGET_SB3_VS_DUMMY:g}x DummyVecEnv N={n}",
                    "value": ours.rate / dummy.rate,
                    "met": met,
                }
            )
    return lines, targets


TORCHRL_KINDS = ("BoardEnv", "SB3VecEnv", "SerialEnv", "ParallelEnv")
TORCHRL_SIZES = (8, 64, 1024)
TORCHRL_BATCHED_UP_TO = 64  # SerialEnv / ParallelEnv of one gymnasium env per row: 1024 of them take minutes to build


def torchrl_env(kind: str, gym_id: str, n: int):
    """The TorchRL envs of ``n`` rows against the random opponent: our
    ``BoardEnv`` (the engine's learner loop), or TorchRL's ``SerialEnv`` of
    ``n`` ``GymWrapper``-ed single-agent envs (the mask read from the infos,
    as the TorchRL tutorial's), or its ``ParallelEnv`` of such a
    ``SerialEnv`` per worker (one worker per core, ``n`` rows in all)."""
    if kind == "BoardEnv":
        from boardenvs.torchrl import BoardEnv

        return BoardEnv(gym_id, num_envs=n, opponent="random")
    torchrl_envs = optional_import("torchrl.envs")
    one = functools.partial(_gym_with_mask, gym_id)
    if kind == "SerialEnv":
        return torchrl_envs.SerialEnv(n, one)
    workers = torchrl_workers(n)
    return torchrl_envs.ParallelEnv(workers, _SerialOf(n // workers, one))


def torchrl_workers(n: int) -> int:
    """ParallelEnv's workers for ``n`` rows: one per core, as many as divide ``n``."""
    workers = max(1, min(os.cpu_count() or 1, n))
    while n % workers:
        workers -= 1
    return workers


def _gym_with_mask(gym_id: str):
    """TorchRL's ``GymWrapper`` of the single-agent env, the mask read from
    its infos (the TorchRL tutorial's)."""
    import gymnasium
    import torch
    from torchrl.data import Binary
    from torchrl.envs import GymWrapper
    from torchrl.envs.gym_like import default_info_dict_reader

    env = GymWrapper(gymnasium.make(gym_id), categorical_action_encoding=True)
    size = env.action_spec.space.n
    env.set_info_dict_reader(
        default_info_dict_reader(["action_mask"], spec={"action_mask": Binary(n=size, dtype=torch.bool)})
    )
    return env


class _SerialOf:
    """A ``SerialEnv`` of ``k`` envs made by ``make`` (picklable, for ParallelEnv's workers)."""

    def __init__(self, k, make):
        self.k, self.make = k, make

    def __call__(self):
        from torchrl.envs import SerialEnv

        return SerialEnv(self.k, self.make)


_OPEN_TORCHRL_ENVS: list = []


def torchrl_stepper(kind: str, gym_id: str, n: int) -> Callable[[], int]:
    """Learner steps (each with the opponent's reply) of ``n`` rows: a
    random legal action per row by the bench's compiled sampler (every row
    the same small cost), then ``step_and_maybe_reset`` (TorchRL's step and
    the reset of the rows that ended) or, for ``SB3VecEnv``, its step with
    the masks from ``action_masks()``."""
    import torch

    rng = np.random.default_rng(0)
    if kind == "SB3VecEnv":
        return sb3_stepper("SB3VecEnv", gym_id, n, direct=True)
    env = torchrl_env(kind, gym_id, n)
    _OPEN_TORCHRL_ENVS.append(
        env
    )  # closed by torchrl_table (ParallelEnv's workers would keep the process from exiting)
    env.set_seed(0)
    state = {"td": env.reset()}
    shape = env.batch_size

    def chunk():
        td = state["td"]
        masks = td["action_mask"].reshape(n, -1).numpy()
        td.set("action", torch.from_numpy(_random_legal(masks, rng)).reshape(shape))
        _, state["td"] = env.step_and_maybe_reset(td)
        return n

    chunk()
    return chunk


def torchrl_table(
    seconds: float, repeats: int, sizes=TORCHRL_SIZES, gym_ids=("boardenvs/Quess-v0",), log=print
) -> tuple[list[str], list[dict]]:
    """``BoardEnv`` (boardenvs.torchrl) env steps/s against ``SB3VecEnv`` and
    TorchRL's ``SerialEnv`` / ``ParallelEnv`` of the gymnasium env at the
    same N, interleaved in one run: the table's lines and the rows (JSON)."""
    try:
        optional_import("torchrl")
        optional_import("sb3_contrib")
    except Exception as exc:
        log(f"TorchRL rows skipped: {exc}; pip install 'boardenvs[interop,train]'")
        return [], []
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(
        1
    )  # as the tutorial: torch's threads and numba's fought over 2 cores (5x slower steps at N = 1024)
    rows = []
    for gym_id in gym_ids:
        for n in sizes:
            for kind in TORCHRL_KINDS:
                if kind in ("SerialEnv", "ParallelEnv") and n > TORCHRL_BATCHED_UP_TO:
                    continue
                rows.append(Row(kind, gym_id, kind, n, setup=lambda k=kind, g=gym_id, n=n: torchrl_stepper(k, g, n)))
    try:
        rows = run_interleaved(rows, seconds, repeats, log=log)
    finally:
        torch.set_num_threads(threads)
        while _OPEN_TORCHRL_ENVS:  # every env the rows built, ParallelEnv's worker processes included
            _OPEN_TORCHRL_ENVS.pop().close()
    lines = [
        "| id | N | BoardEnv steps/s | SB3VecEnv steps/s | SerialEnv steps/s | ParallelEnv steps/s | "
        "BoardEnv / SB3VecEnv "
        "| BoardEnv / SerialEnv | BoardEnv / ParallelEnv |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for gym_id in gym_ids:
        for n in sizes:
            got = {kind: find(rows, kind, gym_id, kind, n) for kind in TORCHRL_KINDS}
            ours = got["BoardEnv"]
            if not (ours and ours.samples):
                continue
            cells = [fmt_rate(got[k]) if got[k] and got[k].samples else "-" for k in TORCHRL_KINDS]
            ratios = [
                f"{ours.rate / got[k].rate:.1f}x" if got[k] and got[k].samples else "-" for k in TORCHRL_KINDS[1:]
            ]
            lines.append(f"| {gym_id} | {n} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    lines.append("")
    lines.append(
        f"(SerialEnv / ParallelEnv: TorchRL's, of `GymWrapper(gymnasium.make(id))` with the mask from the infos; "
        f"ParallelEnv: one worker process per core ({torchrl_workers(max(sizes))} here), each a SerialEnv of its "
        f"share of the N rows; built up to N = {TORCHRL_BATCHED_UP_TO}; torch on one thread, as the TorchRL tutorial "
        "sets it. At large N most of a BoardEnv step is TorchRL's partial reset of the ended rows: a "
        "`torch.where` over every row's observation and mask.)"
    )
    return lines, [r.to_json() for r in rows]


def ppo_steps_per_second(kind: str, gym_id: str, n: int, steps: int) -> float:
    """MaskablePPO ``learn`` timesteps/s (rollouts + updates, MlpPolicy,
    n_steps = 128 per env, one epoch; the bench runs one rollout) on an SB3 VecEnv."""
    from sb3_contrib import MaskablePPO

    env = sb3_env(kind, gym_id, n)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=1024, n_epochs=1, seed=0, verbose=0)
    t0 = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - t0)


def quess_game_lengths(games: int, n: int = 4096) -> np.ndarray:
    """Lengths (turns) of random-vs-random Quess games from make_vec, with no
    limit in reach (for QU-13's documented default).  Each env's first game
    counts, and every batch runs until all its games are over (stopping
    earlier would favour short games)."""
    n = min(n, games)
    vec = boardenvs.make_vec("quess_v0", num_envs=n, max_turns=20000, superko_memory=2**20)
    lengths = []
    batch = 0
    while len(lengths) < games:
        vec.reset(seed=777 + batch)
        batch += 1
        counted = np.zeros(n, np.bool_)
        while not counted.all():
            _, _, term, trunc, infos = vec.step(vec.random_actions())
            done = (term | trunc) & ~counted
            lengths.extend(infos["length"][done].tolist())
            counted |= done
    return np.array(lengths[:games])


def quicksand_game_lengths(games: int, n: int = 4096) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random-vs-random Quicksand games from make_vec (each env's first game,
    every batch run until all its games are over): lengths in turns (QS-12's
    documented default), in decisions (a turn is a chain of them, so a
    make_vec step is one decision), and end reasons."""
    n = min(n, games)
    vec = boardenvs.make_vec("quicksand_v0", num_envs=n)
    turns, decisions, reasons = [], [], []
    batch = 0
    while len(turns) < games:
        vec.reset(seed=4242 + batch)
        batch += 1
        counted = np.zeros(n, np.bool_)
        steps = 0
        while not counted.all():
            _, _, term, trunc, infos = vec.step(vec.random_actions())
            steps += 1
            done = (term | trunc) & ~counted
            turns.extend(infos["length"][done].tolist())
            decisions.extend([steps] * int(done.sum()))
            reasons.extend(infos["end_reason"][done].tolist())  # the names (end_reason_code: the codes)
            counted |= done
    return np.array(turns[:games]), np.array(decisions[:games]), np.array(reasons[:games])


def length_lines(quess_games: int, quicksand_games: int, env_ids) -> list[str]:
    lines = []
    if quess_games and "quess_v0" in env_ids:
        lens = quess_game_lengths(quess_games)
        pct = np.percentile(lens, [50, 90, 99, 99.9])
        lines += [
            "",
            f"Quess random-vs-random game length over {len(lens)} games (turns): median {pct[0]:.0f}, "
            f"p90 {pct[1]:.0f}, p99 {pct[2]:.0f}, p99.9 {pct[3]:.0f}, max {lens.max()}.",
        ]
    if quicksand_games and "quicksand_v0" in env_ids:
        turns, decisions, reasons = quicksand_game_lengths(quicksand_games)
        tp, dp = np.percentile(turns, [50, 99]), np.percentile(decisions, [50, 99])
        ends = ", ".join(f"{r} {np.mean(reasons == r):.1%}" for r in sorted(set(reasons.tolist())))
        lines += [
            "",
            f"Quicksand random-vs-random games over {len(turns)} games: median {tp[0]:.0f} turns "
            f"({dp[0]:.0f} decisions, the unit of its steps/s rows), p99 {tp[1]:.0f} turns ({dp[1]:.0f} decisions), "
            f"max {turns.max()} turns; ended by {ends}.",
        ]
    return lines


# -- machine, plot, outputs -------------------------------------------------------------
MACHINE_PACKAGES = (
    "boardenvs",
    "numba",
    "numpy",
    "gymnasium",
    "pettingzoo",
    "open_spiel",
    "envpool",
    "jax",
    "jaxlib",
    "pgx",
    "stable-baselines3",
)


def machine(packages=MACHINE_PACKAGES) -> dict:
    """CPU, cores, RAM, OS, Python, ``packages``' versions, numba's threads,
    date and command of this run (rllib_bench.py and ppo_settings.py record theirs with it)."""
    from importlib.metadata import PackageNotFoundError, version

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = None
    versions = {}
    for pkg in packages:
        try:
            versions[pkg] = version(pkg)
        except PackageNotFoundError:
            versions[pkg] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_bytes": ram,
        "os": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": numba.threading_layer() if _layer_started() else None,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
    }


def cpu_counters() -> tuple[float, float, float] | None:
    """(CPU-seconds every process on the machine has used, this process's
    and its waited-for children's, wall clock), or None without /proc/stat."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    hz = os.sysconf("SC_CLK_TCK")
    busy = (sum(ticks) - ticks[3] - ticks[4]) / hz  # all but idle and iowait
    t = os.times()
    return busy, t.user + t.system + t.children_user + t.children_system, time.perf_counter()


def others_cores(before, after) -> float | None:
    """Cores other processes kept busy, on average, between two :func:`cpu_counters`."""
    if before is None or after is None or after[2] <= before[2]:
        return None
    return max(0.0, ((after[0] - before[0]) - (after[1] - before[1])) / (after[2] - before[2]))


class Sections:
    """The load average and other processes' CPU before and after each part
    of a run (``with sections("rows"): ...``), and whether the run was quiet."""

    def __init__(self, log=print):
        self.log = log
        self.records = []

    def probe(self, seconds: float = 1.0) -> None:
        """Other processes' CPU while this one sleeps: the machine before the run."""
        with self("idle probe"):
            time.sleep(seconds)

    def __call__(self, name: str):
        import contextlib

        @contextlib.contextmanager
        def section():
            before, load = cpu_counters(), loadavg()
            yield
            after = cpu_counters()
            rec = {
                "section": name,
                "wall_s": (after[2] - before[2]) if before and after else None,
                "load_start": load,
                "load_end": loadavg(),
                "others_cores": others_cores(before, after),
            }
            self.records.append(rec)
            if rec["others_cores"] is not None and rec["others_cores"] >= QUIET_OTHERS:
                self.log(f"busy: other processes used {rec['others_cores']:.2f} cores during {name}")

        return section()

    def quiet(self) -> bool | None:
        values = [r["others_cores"] for r in self.records if r["others_cores"] is not None]
        return None if not values else max(values) < QUIET_OTHERS


def loadavg() -> list[float] | None:
    """The system's load average over 1, 5 and 15 minutes (None where the system has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def plot(rows: list[Row], path: Path, m: dict, log=print) -> bool:
    """steps/s against N, log-log: a line per boardenvs game (make_vec) and
    per Pgx game, OpenSpiel and PettingZoo (one game at a time) as flat
    dotted lines at their N = 1 rate."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as exc:
        log(f"plot skipped: {exc}; pip install 'boardenvs[bench]'")
        return False
    series = {}
    for row in rows:
        if row.samples and (
            (row.system == "boardenvs" and row.api == "make_vec" and row.threads is None) or row.system == "Pgx (CPU)"
        ):
            series.setdefault((row.system, row.game), []).append((row.n, row.rate))
    sizes = sorted({n for s in series.values() for n, _ in s} | {1})
    fig, ax = plt.subplots(figsize=(11, 6.5))
    cmap = plt.get_cmap("tab20")
    for i, ((system, game), pts) in enumerate(series.items()):
        pts.sort()
        style = "-" if system == "boardenvs" else "--"
        marker = "o" if system == "boardenvs" else "s"
        label = f"boardenvs make_vec {game}" if system == "boardenvs" else f"Pgx CPU {game}"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker=marker, color=cmap(i % 20), label=label)
    for row in rows:
        if row.samples and row.system in ("OpenSpiel", "PettingZoo"):
            ax.plot(
                [sizes[0], sizes[-1]], [row.rate, row.rate], ":", color="grey" if row.system == "OpenSpiel" else "tan"
            )
            ax.annotate(
                f"{row.system} {row.game}",
                (sizes[-1], row.rate),
                fontsize=7,
                color="dimgrey",
                xytext=(3, 0),
                textcoords="offset points",
                va="center",
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("N (games stepped per call)")
    ax.set_ylabel("steps/s (median)")
    ax.set_title(
        f"Random legal play, observation + mask every step ({m['cores']} cores, {m['cpu']}; {m['date'][:10]})",
        fontsize=10,
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.21, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def parse_args(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Default: every game and player count, every anchor installed, N = 1 64 1024 4096, "
        "3 interleaved repeats of 1 s (11 minutes on a quiet 2-core machine).",
    )
    ap.add_argument(
        "--seconds", type=float, default=None, help="length of one timed run per row (default 1.0; --quick 0.3)"
    )
    ap.add_argument(
        "--repeats", type=int, default=None, help="interleaved repeats per row, median reported (default 3; --quick 1)"
    )
    ap.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=None,
        help=f"make_vec / Pgx batch sizes (default {' '.join(map(str, SIZES))})",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help="development run (about 2 minutes): 0.3 s, 1 repeat, N = 1 and 4096, no length, training, "
        "breakdown or memory tables, no cold start-up",
    )
    ap.add_argument(
        "--games",
        nargs="*",
        default=None,
        help="env ids to time (default: all); the anchors are cut to their closest games",
    )
    ap.add_argument(
        "--anchors",
        nargs="*",
        default=list(ANCHORS),
        choices=ANCHORS,
        help="which anchors to run (default: all whose extras are installed)",
    )
    ap.add_argument("--no-sb3", dest="sb3", action="store_false", help="skip the SB3VecEnv rows")
    ap.add_argument(
        "--no-training-path",
        dest="training_path",
        action="store_false",
        help="skip the SB3VecEnv / DummyVecEnv / MaskablePPO table",
    )
    ap.add_argument(
        "--no-torchrl",
        dest="torchrl",
        action="store_false",
        help="skip the TorchRL table (boardenvs.torchrl.BoardEnv against SB3VecEnv, SerialEnv, ParallelEnv)",
    )
    ap.add_argument(
        "--torchrl-sizes",
        type=int,
        nargs="+",
        default=list(TORCHRL_SIZES),
        help=f"N of the TorchRL table (default {' '.join(map(str, TORCHRL_SIZES))})",
    )
    ap.add_argument("--no-memory", dest="memory", action="store_false", help="skip the peak-RSS subprocesses")
    ap.add_argument("--no-startup", dest="startup", action="store_false", help="skip the start-up subprocesses")
    ap.add_argument(
        "--no-breakdown",
        dest="breakdown",
        action="store_false",
        help="skip the table of where a make_vec step's time goes (benchmarks/breakdown.py)",
    )
    ap.add_argument(
        "--force",
        action="store_true",
        help="write benchmarks/results.* even from a --quick run or a busy machine "
        "(by default such a run goes to build/bench/, so the published tables stay a quiet full run's)",
    )
    ap.add_argument(
        "--lengths",
        type=int,
        default=None,
        help="random Quess games for the length line (default 20000, as QU-13 cites; 0: skip)",
    )
    ap.add_argument(
        "--qs-lengths",
        type=int,
        default=None,
        help="random Quicksand games for its length line (default 4096; 0: skip)",
    )
    ap.add_argument(
        "--out",
        type=Path,
        default=None,
        help="folder for results.md, results.json, throughput.png (default benchmarks/, the published run)",
    )
    ap.add_argument(
        "--from-json",
        type=Path,
        default=None,
        metavar="RESULTS_JSON",
        help="measure nothing: write the tables and plot again from an earlier run's results.json",
    )
    args = ap.parse_args(argv)
    quick = args.quick
    defaults = {
        "seconds": 0.3 if quick else 1.0,
        "repeats": 1 if quick else 3,
        "sizes": list(QUICK_SIZES if quick else SIZES),
        "lengths": 0 if quick else 20000,
        "qs_lengths": 0 if quick else 4096,
    }
    for k, v in defaults.items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    args.sizes = sorted(set(args.sizes))
    if quick:  # about 2 minutes
        args.training_path = False
        args.torchrl = False
        args.breakdown = False
        args.memory = False
    known = registered_ids()
    unknown = [g for g in args.games or () if g not in known]
    if unknown:
        ap.error(f"unknown env ids {unknown}; choose from {', '.join(known)}")
    return args


def measure_all(args, log) -> dict:
    """Every measurement of one run, as the JSON written to results.json."""
    load_start = loadavg()
    sections = Sections(log)
    sections.probe()
    env_ids = [
        g for g in registered_ids() if (args.games is None and g in boardenvs.ENV_IDS) or g in (args.games or ())
    ]
    big = max(args.sizes)
    rows = boardenvs_rows(env_ids, args.sizes, sb3=args.sb3)
    rows += anchor_rows(args.anchors, args.sizes, None if args.games is None else env_ids, log=log)
    log(f"{len(rows)} rows: setting up (compiling), then {args.repeats} interleaved repeat(s) of {args.seconds:g} s")
    t_start = time.perf_counter()
    with sections("steps/s rows"):
        rows = run_interleaved(rows, args.seconds, args.repeats, log=log)
    memory, startup, parts = {}, {}, None
    if args.breakdown:
        with sections("breakdown"):
            parts = breakdown_results(env_ids, big)
    if args.memory:
        with sections("memory"):
            for env_id in env_ids:
                for options in variants(env_id):
                    memory[variant_label(env_id, options)] = memory_of(env_id, options, big)
    if args.startup:
        with sections("start-up"):
            for env_id in env_ids:
                startup[env_id] = startup_of(env_id, warm_runs=1 if args.quick else 3, cold=not args.quick)
    training, training_targets = [], []
    if args.training_path:
        with sections("training path"):
            training, training_targets = training_path_table(args.seconds, args.repeats, log=log)
    torchrl_lines, torchrl_rows = [], []
    if args.torchrl:
        with sections("torchrl"):
            torchrl_lines, torchrl_rows = torchrl_table(
                args.seconds, args.repeats, sorted(set(args.torchrl_sizes)), log=log
            )
    with sections("game lengths"):
        lengths = length_lines(args.lengths, args.qs_lengths, env_ids)
    m = machine()
    m["load"] = {"start": load_start, "end": loadavg()}
    m["sections"] = sections.records
    m["quiet"] = sections.quiet()
    return {
        "machine": m,
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "elapsed_s": time.perf_counter() - t_start,
        "rows": [r.to_json() for r in rows],
        "comparisons": [
            {"row": f"{r.system} {r.game} {api_label(r)} N={r.n}", **c} for r in rows for c in comparisons(r, rows, big)
        ],
        "targets": targets_summary(rows, big, startup) + training_targets,
        "memory": memory,
        "startup": startup,
        "training_path": training,
        "torchrl": {"table": torchrl_lines, "rows": torchrl_rows},
        "breakdown": parts,
        "lengths": lengths,
    }


def breakdown_results(env_ids, n: int) -> dict:
    """``benchmarks/breakdown.py``'s parts of a step for ``env_ids`` at N = ``n``."""
    spec = importlib.util.spec_from_file_location("breakdown", ROOT / "benchmarks" / "breakdown.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results, bandwidth = module.run(env_ids, n)
    return {"results": results, "bandwidth": bandwidth, "table": module.table(results, bandwidth)}


def row_from_json(d: dict) -> Row:
    return Row(
        d["system"],
        d["game"],
        d["api"],
        d["n"],
        setup=None,
        threads=d["threads"],
        env_id=d["env_id"],
        options=d["options"],
        info=d["info"],
        samples=[(s["steps_per_s"], s["cpu_per_wall"]) for s in d["samples"]],
    )


def render(results: dict) -> str:
    """The markdown tables of one run's results (measured now or read back from results.json)."""
    m, settings = results["machine"], results["settings"]
    rows = [row_from_json(d) for d in results["rows"]]
    sizes = sorted(set(settings["sizes"]))
    big = max(sizes)
    env_ids = list(dict.fromkeys(r.env_id for r in rows if r.env_id))
    memory, startup, targets = results["memory"], results["startup"], results["targets"]
    met = sum(t["met"] for t in targets)
    lines = [
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['ram_bytes'] / 2**30 if m['ram_bytes'] else 0:.0f} "
        f"GiB, {m['os']}, "
        f"Python {m['python']}, numba {m['versions']['numba']} ({m['numba_threads']} threads, layer "
        f"{m['numba_threading_layer']}), "
        f"jax {m['versions']['jax']}, pgx {m['versions']['pgx']}, open_spiel {m['versions']['open_spiel']}, "
        f"envpool {m['versions'].get('envpool')}, pettingzoo {m['versions']['pettingzoo']}; {m['date']}; "
        f"`{m['command']}`.",
        f"Every row: {settings['repeats']} interleaved repeat(s) of {settings['seconds']:g} s, median [min-max]; "
        "ratios are against anchors of this same run, per wall-second and per CPU-second.",
        "",
        *quiet_lines(m),
        "",
        f"Targets: {met} of {len(targets)} met"
        + (
            ""
            if met == len(targets)
            else " (missed: "
            + "; ".join(f"{t['row']} {t['value']:.2f} vs {t['target']}" for t in targets if not t["met"])
            + ")"
        )
        + ".",
        "",
        "boardenvs, every game and player count (make_vec: one Python call per step; closest OpenSpiel game per game: "
        + "; ".join(f"{e} -> {closest(e)[0]} ({closest(e)[1]})" for e in env_ids if closest(e))
        + "):",
        "",
        *boardenvs_table(rows, big),
        "",
        f"Anchors (Pgx: K steps per jitted call, K = {', '.join(f'{pgx_steps_per_call(n)} at N={n}' for n in sizes)}; "
        "compile = the first call; EnvPool: its thread pool with as many threads as cores, actions from its "
        "`legal_action_mask` by a compiled sampler, or by numpy in the numpy-sampler rows; closest EnvPool "
        "game per game: "
        + "; ".join(f"{e} -> {closest_envpool(e)[0]} ({closest_envpool(e)[1]})" for e in env_ids if closest_envpool(e))
        + "):",
        "",
        *anchors_table(rows),
    ]
    if memory or startup:
        lines += [
            "",
            f"Memory (make_vec at N = {big}, fresh process) and start-up (import + make + first step, fresh "
            "interpreter; "
            "cold: an empty numba cache):",
            "",
            *memory_table(memory, dict(startup)),
        ]
    lines += ["", "Scaling:", "", *("- " + s for s in scaling_note(rows, sizes))]
    if results.get("breakdown"):
        lines += [
            "",
            f"What bounds each game: where a make_vec step's time goes at N = {big}, one core "
            "(`python benchmarks/breakdown.py`; nanoseconds per row per step, each part timed alone in a compiled "
            "loop over the same rows):",
            "",
            *results["breakdown"]["table"],
        ]
    if results.get("training_path"):
        lines += [
            "",
            "Training path (learner steps, each with the random opponent's reply; random legal actions from "
            '`env_method("action_masks")`, as MaskablePPO asks):',
            "",
            *results["training_path"],
        ]
    if (results.get("torchrl") or {}).get("table"):
        lines += [
            "",
            "TorchRL (`boardenvs.torchrl.BoardEnv`; env steps/s = learner steps, each with the random opponent's "
            "reply; a random legal action per row from the mask, then `step_and_maybe_reset`; SB3VecEnv stepped "
            "with the masks from `action_masks()`):",
            "",
            *results["torchrl"]["table"],
        ]
    lines += results.get("lengths", [])
    return "\n".join(lines)


def quiet_lines(m: dict) -> list[str]:
    """Whether the run was quiet: other processes' CPU during each section."""
    sections = m.get("sections")
    if not sections:
        return ["Other processes' CPU during the run: not recorded."]
    parts = ", ".join(f"{r['section']} {r['others_cores']:.2f}" for r in sections if r["others_cores"] is not None)
    verdict = (
        "quiet"
        if m.get("quiet")
        else f"**busy** (a section at or above {QUIET_OTHERS:g} cores: compare ratios only, "
        "and re-run on a quiet machine before publishing)"
    )
    return [f"Other processes' CPU (cores in use on average, from /proc/stat less this run's own): {parts}: {verdict}."]


def main(argv=None) -> int:
    args = parse_args(argv)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if args.from_json:
        results = json.loads(args.from_json.read_text())
    else:
        results = measure_all(args, log)
    out = args.out or PUBLISHED
    if args.out is None and not args.from_json and not args.force and (args.quick or not results["machine"]["quiet"]):
        out = ROOT / "build" / "bench"
        why = "a --quick run" if args.quick else "the machine was busy (see the sections' other-process CPU above)"
        log(
            f"not writing the published tables ({PUBLISHED}): {why}; writing to {out} instead (--force to "
            "publish anyway)"
        )
    table = render(results)
    out.mkdir(parents=True, exist_ok=True)
    png = out / "throughput.png"
    has_plot = plot([row_from_json(d) for d in results["rows"]], png, results["machine"], log=log)
    if has_plot:
        rel = os.path.relpath(png, ROOT) if png.resolve().is_relative_to(ROOT) else str(png)
        table += f"\n\n![steps/s against N, log-log]({rel})"
    print(table)
    (out / "results.md").write_text(table + "\n")
    results["plot"] = str(png) if has_plot else None
    if not args.from_json:
        (out / "results.json").write_text(json.dumps(results, indent=1, default=float) + "\n")
    log(
        f"done in {results['elapsed_s']:.0f} s: {out / 'results.md'}, {out / 'results.json'}"
        + (f", {png}" if has_plot else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
