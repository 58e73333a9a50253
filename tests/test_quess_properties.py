"""Property tests over random Quess games (hypothesis): invariants of QU-4/QU-8."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import boardenvs
from boardenvs.games.quess import QuessGame
from boardenvs.games.quess.rules import PIECE_CHARS


def board_of(pos):
    return tuple(QuessGame.board_cells(pos.state))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), first=st.sampled_from([0, 1]), length=st.integers(1, 250))
def test_random_games_keep_the_invariants(seed, first, length):
    rng = np.random.default_rng(seed)
    pos = boardenvs.position("quess_v0", first_player=first)
    boards = [board_of(pos)]
    for _ in range(length):
        if pos.is_terminal:
            break
        moves = pos.legal_moves()
        assert moves, "a live position always offers a move (QU-11 ends it otherwise)"
        move = moves[rng.integers(len(moves))]
        before = board_of(pos)
        nxt = pos.play(move)
        after = board_of(nxt)
        src, dst = move.split("-")
        i = (ord(src[0]) - 65) * 6 + int(src[1]) - 1
        j = (ord(dst[0]) - 65) * 6 + int(dst[1]) - 1
        mover = before[i]
        # QU-4: the mover moves its own piece, lands on empty or an enemy of another shape
        assert mover and (mover - 1) // 3 == pos.to_move
        if before[j]:
            assert (before[j] - 1) // 3 != pos.to_move, "never onto an own piece"
            assert (before[j] - 1) % 3 != (mover - 1) % 3, "captures only across shapes"
        # piece counts never grow, and drop by exactly one on a capture
        assert sum(map(bool, after)) == sum(map(bool, before)) - (1 if before[j] else 0)
        # QU-8: no board ever repeats
        assert after not in boards
        boards.append(after)
        pos = nxt
    # the text form round-trips wherever the game stopped
    again = boardenvs.Position.from_text(pos.to_text())
    assert again.to_text() == pos.to_text() and again.legal_moves() == pos.legal_moves()
    assert all(c in PIECE_CHARS for c in "".join(PIECE_CHARS[v] for v in board_of(pos)))
