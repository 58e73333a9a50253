"""Compile what the suite's tests share into numba's cache, one game after
the other, before the tests start (``conftest.py`` runs it under
pytest-xdist, in three processes that split the games between them, while
the workers start and collect; they wait for it before their first test).

Every test process compiles what it uses that numba's cache does not hold:
on a fresh clone two workers that reach the same game at once would each
compile it (seconds a game and driver).  Here each game's kernels and the
drivers most tests bind them into (the AEC step, ``Position``, ``make_vec``
in both illegal-action modes, the learner loop against random and greedy,
and the reference opponents greedy and mcts) compile once, in one process,
and every test loads them; the threaded drivers and the guided search are
left to the few tests that use them.  Outcomes do not depend on it: a test that needs
more compiles it, as it would anyway.

``python tests/warm_cache.py ENV_ID ...`` (every registered id without one).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))  # the tests' toy games

import contract_game  # noqa: E402
import gymnasium  # noqa: E402
import tictactoe_game  # noqa: E402

import boardenvs  # noqa: E402
from boardenvs import register  # noqa: E402
from boardenvs.registry import game_class, gym_id_of, registered_ids  # noqa: E402

register(contract_game.ContractRaceGame)
register(tictactoe_game.TicTacToeGame)
warnings.simplefilter("ignore")


def warm(env_id: str) -> None:
    from boardenvs.opponents import Batch, decide, make_opponent

    variant = dict(game_class(env_id).variants[0])
    gym_id = gym_id_of(game_class(env_id))
    rng = np.random.default_rng(0)
    env = boardenvs.make(env_id, **variant)
    env.reset(seed=0)
    for _ in env.agent_iter(max_iter=40):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    pos = boardenvs.position(env_id, **variant)
    for _ in range(6):
        if pos.is_terminal:
            break
        pos = pos.play(int(rng.choice(pos.legal_actions())))
    boardenvs.Position.from_text(pos.to_text())
    for mode in ("lose", "random"):
        vec = boardenvs.make_vec(env_id, num_envs=8, illegal_action=mode, **variant)
        vec.reset(seed=0)
        for _ in range(3):
            vec.step(vec.random_actions())
            vec.step_random()
    for opponent in ("random", "greedy"):
        view = gymnasium.make_vec(gym_id, num_envs=4, opponent=opponent, **variant)
        view.reset(seed=0)
        for _ in range(3):
            view.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in view.action_masks()]))
        view.close()
    pos = boardenvs.position(env_id, **variant)
    while pos.to_move < 0 and not pos.is_terminal:  # (a chance node first: its outcome is no opponent's)
        pos = pos.play(int(rng.choice(pos.legal_actions())))
    for spec in ("greedy", "mcts:4"):  # the reference opponents' compiled decisions
        decide(make_opponent(spec), Batch.of_position(pos, rng))


if __name__ == "__main__":
    for env_id in sys.argv[1:] or registered_ids():
        t0 = time.perf_counter()
        warm(env_id)
        print(f"{env_id}: {time.perf_counter() - t0:.1f} s", flush=True)
