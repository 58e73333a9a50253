"""Probes of the public API, run by tests/test_faces.py in a fresh process
with ``NUMBA_BOUNDSCHECK=1`` (every kernel compiled with index checks): an
out-of-bounds access anywhere below raises IndexError and fails the run.

For every registered id and declared variant: make_vec with its returned
buffers written over and unmasked random actions (the default "lose", and
"random"), copies and pickles of the AEC env and make_vec played on, the
gymnasium view with unmasked actions, Positions from random games and their
text round trips, match traces played and replayed (and changed ones refused),
the learner loop with greedy inside it, and one make_vec stepped from two threads.
"""

from __future__ import annotations

import copy
import pickle
import sys
import threading
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))  # the tests' toy game

import contract_game  # noqa: E402
import gymnasium  # noqa: E402
from numba import config  # noqa: E402

import boardenvs  # noqa: E402
from boardenvs import register  # noqa: E402
from boardenvs.registry import game_class, gym_id_of, registered_ids  # noqa: E402

assert config.BOUNDSCHECK, "run with NUMBA_BOUNDSCHECK=1"
register(contract_game.ContractRaceGame)
warnings.simplefilter("ignore")


def probe(env_id: str, variant: dict, rng) -> None:
    for mode in ("lose", "random"):
        vec = boardenvs.make_vec(env_id, num_envs=8, illegal_action=mode, **variant)
        obs, _ = vec.reset(seed=int(rng.integers(1 << 30)))
        for _ in range(60):
            obs["action_mask"][:] = 1
            obs["observation"][:] = -1
            obs = vec.step(rng.integers(-3, vec.num_actions + 3, 8))[0]
        twin = pickle.loads(pickle.dumps(vec))
        for v in (vec, twin, copy.deepcopy(vec)):
            for _ in range(20):
                v.step(v.random_actions())
    env = boardenvs.make(env_id, **variant)
    env.reset(seed=int(rng.integers(1 << 30)))
    for k in range(120):
        if not env.agents:
            env.reset()
        if k % 40 == 20:
            env = copy.deepcopy(env) if k % 80 == 20 else pickle.loads(pickle.dumps(env))
        agent = env.agent_selection
        done = env.terminations[agent] or env.truncations[agent]
        env.step(None if done else int(rng.integers(env.action_space(agent).n)))
    single = gymnasium.make(gym_id_of(game_class(env_id)), **variant)
    single.reset(seed=0)
    for _ in range(60):
        _, _, term, trunc, _ = single.step(int(rng.integers(single.action_space.n)))
        if term or trunc:
            single.reset()
    pos = boardenvs.position(env_id, **variant)
    for _ in range(80):
        if pos.is_terminal:
            break
        pos = pos.play(int(rng.choice(pos.legal_actions())))
        assert boardenvs.Position.from_text(pos.to_text()) == pos


def tampered_rows(env_id: str, variant: dict, rng) -> tuple[int, int]:
    """Rows from outside (C-6): rows of a random game with slots
    overwritten (any slot, any value; or the fields a text does not carry,
    within their ranges) handed to ``Position(game, state)``, to an
    unpickled Position, AEC env and make_vec, and to ``make_vec.restore``
    as a copied snapshot.  Each is refused with ValueError (and changes
    nothing) or is a state the kernels, the text and the pictures take.
    Returns (refused, taken)."""
    pos = boardenvs.position(env_id, **variant)
    game, rows = pos.game, []
    while not pos.is_terminal and len(rows) < 40:
        rows.append(pos.state)
        pos = pos.play(int(rng.choice(pos.legal_actions())))
    rows.append(pos.state)
    layout = game.info.layout
    vec = boardenvs.make_vec(env_id, num_envs=2, **variant)
    vec.reset(seed=3)
    refused = taken = 0
    for k in range(24):
        row = rows[int(rng.integers(len(rows)))].copy()
        if k % 2:  # the fields the text does not carry, within their declared ranges
            for name, (low, high) in game.free_fields(row).items():
                off = layout.offset(name)
                size = next(f[2] for f in layout.fields if f[0] == name)
                low, high = (np.broadcast_to(b, (size,)) for b in (low, high))
                row[off : off + size] = [int(rng.integers(lo, hi, endpoint=True)) for lo, hi in zip(low, high)]
        else:
            for _ in range(int(rng.integers(1, 4))):
                row[int(rng.integers(len(row)))] = int(rng.choice([-1, 1, 2, 7, 40, 1 << 20, -(1 << 40), 1 << 62]))
        try:
            p = boardenvs.Position(game, row)
        except ValueError:
            refused += 1
            for build in (
                lambda row=row: pickle.loads(pickle.dumps(boardenvs.Position._own(game, row.copy()))),
                lambda row=row: _unpickled_env(env_id, variant, row),
                lambda row=row: _restored(vec, row),
            ):
                before = vec.states.copy()
                try:
                    build()
                except ValueError:
                    pass
                else:
                    raise AssertionError(f"{env_id}: a row Position refuses was taken from outside")
                assert np.array_equal(vec.states, before)
            continue
        taken += 1
        assert k % 2 or np.array_equal(p.state, row)
        p.to_text(), str(p), game.last_move(p.state)  # the text and the pictures read every field
        if k % 6 == 1:
            game.render_rgb(p.state)
        for seat in range(game.num_players):
            game.observe(p.state, seat)
        if not p.is_terminal:
            p.play(int(rng.choice(p.legal_actions())))
        _restored(vec, row)
        vec.step(vec.random_actions())
    return refused, taken


def _unpickled_env(env_id, variant, row) -> None:
    """An AEC env whose row is ``row``, pickled and loaded."""
    raw = boardenvs.make(env_id, **variant).unwrapped
    raw.reset(seed=0)
    raw._state = row.copy()
    pickle.loads(pickle.dumps(raw))


def _restored(vec, row) -> None:
    """``vec.restore`` of a copied snapshot whose first row is ``row``."""
    copied = copy.copy(vec.snapshot())
    states = np.array(copied.states)
    states[0] = row
    copied.__setstate__((vec, states, np.array(copied.masks)))
    vec.restore(copied)


def learner_loop(env_id: str, variant: dict) -> None:
    """The engine's learner loop with greedy played inside it (its scratch
    rows, its row-sized carrier) and with an opponent outside it (a Python
    policy asked round by round: play_learners' ask), serial and threaded (48
    rows: chunks of the listed rows), unmasked actions."""
    from boardenvs.wrappers import SingleAgentVectorEnv

    def last_legal(observations, masks):
        return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)

    for opponent, n in (("greedy", 6), (last_legal, 48)):
        for parallel in (False, True):
            view = SingleAgentVectorEnv(env_id, num_envs=n, opponent=opponent, parallel=parallel, **variant)
            _, info = view.reset(seed=1)
            rng = np.random.default_rng(2)
            for _ in range(15):
                masks = info["action_mask"]
                _, _, _, _, info = view.step((rng.random(masks.shape) * masks).argmax(1))


def traced(env_id: str, variant: dict) -> None:
    """Match traces: games played by play_matches replay under the checks,
    and a trace whose actions a caller changed is refused (ValueError)."""
    from boardenvs.opponents import make_opponent
    from boardenvs.registry import make_game
    from boardenvs.traces import check_trace, play_matches

    n = make_game(env_id, **variant).num_players
    agents = [make_opponent("random"), make_opponent("random")]
    lineups = [tuple(int(s == k % n) for s in range(n)) for k in range(2)]
    for t in play_matches(env_id, variant, lineups, [0, 0], agents, np.random.default_rng(0), opening=2):
        check_trace(t)
        for bad in ([-1], [2**62], t["actions"][:1] * 3):
            try:
                check_trace({**t, "actions": bad})
            except ValueError:
                pass
            else:
                raise AssertionError(f"{env_id}: a changed trace was taken")


def threads() -> None:
    vec = boardenvs.make_vec("quagmire_v0", num_envs=160, radius=2)
    vec.reset(seed=0)
    workers = [threading.Thread(target=lambda: [vec.step(vec.random_actions()) for _ in range(60)]) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


def main() -> int:
    rng = np.random.default_rng(0)
    count = 0
    refused = taken = 0
    for env_id in registered_ids():
        for variant in game_class(env_id).variants:
            probe(env_id, variant, rng)
            r, t = tampered_rows(env_id, variant, rng)
            traced(env_id, variant)
            refused, taken = refused + r, taken + t
            count += 1
        learner_loop(env_id, game_class(env_id).variants[0])
    threads()
    assert refused > count and taken > count, (refused, taken)
    print(
        f"{count} variants, {refused} tampered rows refused and {taken} taken: probes passed under NUMBA_BOUNDSCHECK=1"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
