"""What each row is read against: its anchors in the same run, and the
targets some of those ratios must meet.

Absolute steps/s on a shared machine move from run to run, so every
comparison divides by an anchor timed in the same run, both per wall-second
and per CPU-second (a multi-threaded system can buy wall time with cores).
A boardenvs row's anchors: its AEC row the no-op env with the same spaces;
its ``make_vec`` rows the game's closest OpenSpiel and EnvPool games and Pgx
connect_four; its ``SB3VecEnv`` row ``make_vec`` at the same N, over the
seats (against P seats a learner step is also P - 1 opponent decisions).
The targets are the ``TARGET_*`` constants, each read on the basis it
names (per wall-second or per CPU-second); a missed one is marked in the
tables.
"""

from __future__ import annotations

import numba
from bench_boardenvs import OUR_WRAPPER, SB3_DIRECT, VEC_FUSED
from bench_envpool import ENVPOOL_API, ENVPOOL_NUMPY, closest_envpool
from bench_harness import Row, api_label, find
from bench_openspiel import closest
from bench_pgx import PGX_ANCHOR

import boardenvs

# targets (ratios in the same run), each with the basis it is read on
TARGET_VS_PGX = 1.0  # per CPU-second
TARGET_VS_ENVPOOL = 10.0  # per CPU-second, the game's closest EnvPool game at the same N
TARGET_VS_OPENSPIEL = 20.0  # per wall-second
TARGET_VS_NOOP = 0.8
# learner steps/s through SB3VecEnv against make_vec's steps/s at the same N, times P (the seats): against
# P seats a learner step is also P - 1 opponent decisions, so 1/P is the natural ceiling (the target: >= 0.8 of it)
TARGET_SB3_VS_VEC = 0.8
TARGET_SB3_VS_DUMMY = 20.0  # SB3VecEnv against SB3's DummyVecEnv of single-agent envs
TARGET_WARM_STARTUP = 1.0
TARGET_COLD_STARTUP = 5.0


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


def target_text(c: dict) -> str:
    """A comparison's target as the tables state it."""
    return f">= {c['target']:g}x {c['anchor']}" + (" per CPU-s" if c.get("basis") == "cpu" else "")


def targets_summary(rows: list[Row], big: int, startup: dict) -> list[dict]:
    """Every target of the run, met or not: the rows' comparisons that have one, and the start-up times."""
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
