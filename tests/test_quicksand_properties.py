"""Invariants of random Quicksand games, soaked through make_vec (batched
kernels) and checked on the raw state rows with numpy: pyramids are
conserved (QS-1, QS-9), scores are the captured points (QS-9), a game still
playing has nobody at 15 points (QS-10), and the decision kinds and jump
bookkeeping stay consistent (QS-5..QS-7)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import boardenvs
from boardenvs import engine as E
from boardenvs.games import quicksand as Q
from boardenvs.games.quicksand import rules as QR


def check_rows(states: np.ndarray) -> None:
    cells = states[:, Q.Q_CELLS : Q.Q_CELLS + Q.NCELLS]
    reserve = states[:, Q.Q_RESERVE : Q.Q_RESERVE + 6]
    scores = states[:, Q.Q_SCORE : Q.Q_SCORE + 2]
    assert (states[:, Q.Q_CELLS + QR.SENTINEL] == QR.OFF).all()
    assert ((cells >= 0) & (cells <= 6)).all()
    for seat in (0, 1):
        missing = np.zeros(len(states), np.int64)
        for size in range(3):
            held = (cells == 1 + 3 * seat + size).sum(axis=1) + reserve[:, 3 * seat + size]
            assert (held <= 5).all() and (reserve[:, 3 * seat + size] >= 0).all()  # QS-1
            missing += (5 - held) * (size + 1)
        assert (scores[:, 1 - seat] == missing).all()  # QS-9: the opponent scored exactly what is missing
    assert (scores < QR.WIN_POINTS).all()  # QS-10: rows that end are reset in place
    phase = states[:, Q.Q_PHASE]
    assert np.isin(phase, [QR.PH_FIRST, Q.PH_HOP, QR.PH_ROTATE]).all()
    hop = phase == Q.PH_HOP
    jumped = states[:, QR.Q_JCOUNT]
    bits = np.array([bin(int(m)).count("1") for m in states[:, QR.Q_JMASK]])
    assert (bits[hop] == jumped[hop]).all() and (bits[~hop] == 0).all()  # jumped pyramids stay until the end (QS-6)
    size = states[:, Q.Q_TURN + QR.R_SIZE]
    assert (jumped[hop] < QR.MAX_JUMPED[size[hop]]).all()  # QS-7: at the limit the jump has ended
    n = states[:, Q.Q_TURN + Q.R_N]
    assert (n[hop] >= 1).all() and (n[hop] <= 1 + jumped[hop]).all()
    mover = states[:, E.H_CURRENT]
    jumper = states[np.arange(len(states)), Q.Q_TURN + Q.R_CELLS + np.maximum(n - 1, 0)]
    on = cells[np.arange(len(states)), np.clip(jumper, 0, 35)]
    assert ((on[hop] - 1) // 3 == mover[hop]).all()  # the jumper is the mover's pyramid


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_the_invariants(seed):
    vec = boardenvs.make_vec("quicksand_v0", num_envs=64)
    vec.reset(seed=seed)
    ended = 0
    for _ in range(400):
        _, rewards, term, trunc, infos = vec.step(vec.random_actions())
        check_rows(vec.states)
        done = term | trunc
        ended += int(done.sum())
        # win/loss, never a draw; 15 points need 5 opponent pyramids placed and two jumps: 8 turns or more
        assert (np.sort(rewards[term], axis=1) == [-1.0, 1.0]).all()
        assert (infos["length"][done] >= 8).all()
    assert ended > 0
