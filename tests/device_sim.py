"""The device face (``make_vec(..., device="cuda")``) against the CPU's, under
numba's CUDA simulator, which runs the device copies of the kernels
(:mod:`boardenvs.retarget`) as plain Python, one Python thread per device
thread.  ``tests/test_device.py`` runs it once in a subprocess (the
simulator is chosen when numba starts) and checks each case's line:

    NUMBA_ENABLE_CUDASIM=1 python tests/device_sim.py OUT.json

For every registered id and variant (the toy games included):

* ``rows``: the same seeds dealt on both faces, then steps that mix
  ``step`` (the actions of ``random_actions``, which both faces must draw
  alike), ``step_random`` and illegal actions (-1, out of range, masked
  out: forfeited under ``"lose"``, replaced under ``"random"``); after every
  call the rows, observations, masks, rewards, ends, reasons, lengths, seats
  to act and illegal flags must be equal;
* ``learners``: the learner loop against random opponents (the device's
  ``play_learners`` and the CPU's with ``draw_seats``), rounds of legal and
  illegal learner actions, every output equal;

for every golden playthrough that the device face can replay (not the dice
variants, which are the AEC env's, nor the ``raise`` and ``random``
illegal-action files): ``playthroughs``, the file replayed on the device
gives the file; and ``boundaries``: the device face's refusals.  Each
entry is ``"ok"`` or what differed first.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import contract_game  # noqa: E402
import playthrough as P  # noqa: E402
import tictactoe_game  # noqa: E402

import boardenvs  # noqa: E402
from boardenvs import register  # noqa: E402
from boardenvs.registry import game_class, registered_ids  # noqa: E402

register(contract_game.ContractRaceGame)
register(tictactoe_game.TicTacToeGame)

ROWS = 6
STEPS = 24
SEED = 11


def host(a):
    return a.copy_to_host() if hasattr(a, "copy_to_host") else np.asarray(a)


def label_of(env_id: str, variant: dict) -> str:
    return f"{env_id}[{'-'.join(f'{k}={v}' for k, v in variant.items()) or 'default'}]"


def first_difference(what: str, cpu: dict, dev: dict) -> str | None:
    for key, a in cpu.items():
        b = host(dev[key])
        a = np.asarray(a)
        if a.shape != b.shape or not np.array_equal(a.astype(np.float64), b.astype(np.float64)):
            rows = np.flatnonzero((a != b).reshape(len(a), -1).any(axis=1)) if a.shape == b.shape else "shape"
            return f"{what}: {key} differs (rows {rows})"
    return None


def outputs(vec, result) -> dict:
    obs, rewards, terms, truncs, infos = result
    return {
        "states": vec.states,
        "observation": obs["observation"],
        "action_mask": obs["action_mask"],
        "rewards": rewards,
        "terminated": terms,
        "truncated": truncs,
        **{k: infos[k] for k in ("to_move", "end_reason_code", "length", "illegal_action")},
    }


def spoil(actions, masks, k: int) -> np.ndarray:
    """Illegal actions in some rows at some steps: -1, out of range, masked out."""
    actions = actions.copy()
    if k % 3 == 2:
        actions[0] = -1
        actions[1 % len(actions)] = masks.shape[1] + 5
        off = np.flatnonzero(masks[2 % len(actions)] == 0)
        if off.size:
            actions[2 % len(actions)] = off[0]
    return actions


def rows_case(env_id: str, variant: dict) -> str:
    for mode, extra in (("lose", {}), ("lose", {"max_turns": 6}), ("random", {"max_turns": 6})):
        options = {**variant, **extra}
        cpu = boardenvs.make_vec(env_id, ROWS, illegal_action=mode, **options)
        dev = boardenvs.make_vec(env_id, ROWS, illegal_action=mode, device="cuda", **options)
        obs, infos = cpu.reset(seed=SEED)
        dobs, dinfos = dev.reset(seed=SEED)
        where = f"{mode} {extra}"
        problem = first_difference(
            f"{where} reset",
            outputs(cpu, (obs, 0, 0, 0, infos)) | {"rewards": 0},
            {**outputs(dev, (dobs, 0, 0, 0, dinfos)), "rewards": 0},
        )
        if problem:
            return problem
        for k in range(STEPS):
            if k % 3 == 0:
                got, dgot = cpu.step_random(), dev.step_random()
            else:
                a, b = cpu.random_actions(), host(dev.random_actions())
                if not np.array_equal(a, b):
                    return f"{where} step {k}: random_actions differ"
                a = spoil(a, cpu.action_masks(), k)
                import warnings

                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # (the CPU face's warning of an illegal action)
                    got = cpu.step(a)
                dgot = dev.step(a if k % 2 else dev._cuda.to_device(a))  # host and device actions
            problem = first_difference(f"{where} step {k}", outputs(cpu, got), outputs(dev, dgot))
            if problem:
                return problem
    return "ok"


def learners_case(env_id: str, variant: dict) -> str:
    options = {"max_turns": 8, **variant}
    cpu = boardenvs.make_vec(env_id, ROWS, **options)
    dev = boardenvs.make_vec(env_id, ROWS, device="cuda", **options)
    cpu.reset(seed=SEED)
    dev.reset(seed=SEED)
    seats = np.zeros(ROWS, np.int64)
    out = cpu.play_learners(np.zeros(ROWS, np.int64), seats, draw_seats=True, pending=np.ones(ROWS, np.bool_))
    dout = dev.play_learners(start=True)
    rng = np.random.default_rng(SEED)
    for k in range(STEPS):
        mine = {
            key: out[key]
            for key in ("observation", "action_mask", "rewards", "ended", "end_reason_code", "length", "illegal_action")
        }
        problem = first_difference(
            f"round {k}",
            {**mine, "seats": seats, "states": cpu.states},
            {**{key: dout[key] for key in mine}, "seats": dout["seats"], "states": dev.states},
        )
        if problem:
            return problem
        ended = np.flatnonzero(out["ended"] > 0)
        if ended.size:
            problem = first_difference(
                f"round {k} final views",
                {"final_observation": out["final_observation"][ended], "final_mask": out["final_mask"][ended]},
                {
                    "final_observation": host(dout["final_observation"])[ended],
                    "final_mask": host(dout["final_mask"])[ended],
                },
            )
            if problem:
                return problem
        masks = np.asarray(out["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks], np.int64)
        actions = spoil(actions, masks, k)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = cpu.play_learners(actions, seats, draw_seats=True)
        dout = dev.play_learners(actions)
    return "ok"


def playthrough_case(case) -> str:
    text = (HERE / "playthroughs" / case.name).read_text()
    meta = P.parse(text)
    got = P.replay_vec(case, meta["seed"], meta["first"], meta["actions"], device="cuda")
    if P.vec_view(got) != P.vec_view(text):
        diff = [
            f"{a!r} != {b!r}" for a, b in zip(P.vec_view(got).splitlines(), P.vec_view(text).splitlines()) if a != b
        ]
        return f"the device's replay differs: {diff[:1]}"
    return "ok"


def boundaries() -> dict:
    """The device face's refusals: each changes nothing."""
    out = {}
    dev = boardenvs.make_vec("quess_v0", 4, device="cuda")
    dev.reset(seed=1)
    before = dev.states.copy()
    for name, call, error in (
        ("raise mode", lambda: boardenvs.make_vec("quess_v0", 4, device="cuda", illegal_action="raise"), ValueError),
        ("actions shape", lambda: dev.step(np.zeros(3, np.int64)), ValueError),
        ("actions dtype", lambda: dev.step(np.zeros(4, np.float64)), ValueError),
        ("actions text", lambda: dev.step("1 2 3 4"), ValueError),
        ("device actions dtype", lambda: dev.step(dev._cuda.to_device(np.zeros(4, np.int32))), ValueError),
        ("python opponent", lambda: dev.play_learners(start=True, opponent="greedy"), ValueError),
        ("loop before start", lambda: dev.play_learners(np.zeros(4, np.int64)), ValueError),
        (
            "loop after a step",
            lambda: (
                dev.play_learners(start=True),
                dev.step_random(),
                dev.reset(seed=1),
                dev.play_learners(np.zeros(4, np.int64)),
            ),
            ValueError,
        ),
        ("pickle", lambda: pickle.dumps(dev), TypeError),
        ("row index", lambda: dev.position(4), IndexError),
    ):
        try:
            call()
            out[name] = "no error"
        except error as exc:
            out[name] = "ok" if np.array_equal(dev.states, before) and "\n" not in str(exc) else f"changed: {exc}"
        except Exception as exc:  # noqa: BLE001 (reported: the wrong error)
            out[name] = f"{type(exc).__name__}: {exc}"
    return out


def main() -> int:
    assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "run under NUMBA_ENABLE_CUDASIM=1"
    results = {"rows": {}, "learners": {}, "playthroughs": {}, "boundaries": boundaries()}
    for env_id in registered_ids():
        for variant in game_class(env_id).variants:
            label = label_of(env_id, variant)
            results["rows"][label] = rows_case(env_id, variant)
            results["learners"][label] = learners_case(env_id, variant)
            print(label, results["rows"][label], results["learners"][label], flush=True)
    for case in P.cases():
        if not case.dice and case.illegal in (None, "lose"):
            results["playthroughs"][case.name] = playthrough_case(case)
            print(case.name, results["playthroughs"][case.name], flush=True)
    Path(sys.argv[1]).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
