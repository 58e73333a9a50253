"""The Pgx anchors: JAX board games on this CPU, in their best case.

Pgx is the batched-by-design alternative: a row ``jit``-s a ``lax.scan`` of
K ``vmap``-ed auto-reset steps, the random action drawn from the masked
logits inside the jitted function, so one dispatch covers K steps where
``make_vec`` makes one Python call per step.  The first call's compile time
and the state's bytes per row are reported apart.  connect_four at N = 4096
is the bar for every game's ``make_vec`` row at that N, per CPU-second.
Pgx's own published GPU numbers are not measured here; ``PGX_PAPER`` quotes
them for the scaling note.  Needs the ``pgx`` extra; skipped with the
reason otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import bench_harness
from bench_harness import Row

PGX_GAMES = ("connect_four", "othello", "go_9x9", "backgammon", "hex")
PGX_ANCHOR = ("connect_four", 4096)  # the bar for every make_vec N = 4096 row
# the Pgx paper's published claims (not measured here), quoted in the scaling note
PGX_PAPER = (
    'Koyamada et al., "Pgx: Hardware-Accelerated Parallel Game Simulators for Reinforcement Learning", '
    'NeurIPS 2023 Datasets and Benchmarks (arXiv:2303.17503), abstract: "In our experiments on a DGX-A100 '
    "workstation, we discovered that Pgx can simulate RL environments 10-100x faster than existing "
    "implementations available in Python\" (PettingZoo and OpenSpiel); the first arXiv version's abstract: "
    '"the simulation of Pgx on a single A100 GPU is 10x faster than that of existing reinforcement learning libraries"'
)


def pgx_steps_per_call(batch: int) -> int:
    """K: steps per jitted call (fewer dispatches on small batches)."""
    return max(1, min(128, 8192 // batch))


def pgx_stepper(name: str, batch: int, info: dict) -> Callable[[], int]:
    """Pgx on CPU: jit(scan of K vmap-ed auto-reset steps) with actions
    sampled from the masks inside; ``info`` gets the compile time (first
    call) and the state's bytes per row."""
    jax = bench_harness.optional_import("jax")
    jnp = bench_harness.optional_import("jax.numpy")
    pgx = bench_harness.optional_import("pgx")
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


def pgx_rows(sizes, env_ids, log=print) -> list[Row]:
    """Pgx rows at every N (with ``env_ids``, only connect_four: the bar of every make_vec N = 4096 row), or none
    with the reason logged."""
    rows = []
    try:
        bench_harness.optional_import("pgx")
        bench_harness.optional_import("jax")
    except Exception as exc:
        log(f"Pgx anchors skipped: {exc}; pip install '.[pgx]' (in a clone)")
    else:
        # with --games, only the bar of the make_vec rows (connect_four)
        for name in PGX_GAMES if env_ids is None else PGX_GAMES[:1]:
            for n in sizes:
                row = Row("Pgx (CPU)", name, "jit+vmap", n, setup=None)
                row.setup = lambda g=name, n=n, r=row: pgx_stepper(g, n, r.info)
                rows.append(row)
    return rows
