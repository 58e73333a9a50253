"""Property tests over random Quagmire games (hypothesis): QM-5..QM-8 invariants."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import boardenvs
from boardenvs.games.quagmire.rules import PIECE, WATER


def water_of(pos) -> set[int]:
    return set(np.flatnonzero(pos.game.cells(pos.state) == WATER).tolist())


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), first=st.sampled_from([0, 1]), radius=st.sampled_from([2, 3, 3, 4]))
def test_random_games_keep_the_invariants(seed, first, radius):
    rng = np.random.default_rng(seed)
    pos = boardenvs.position("quagmire_v0", first_player=first, radius=radius)
    game = pos.game
    cells = game.num_cells
    moves_played = 0
    while not pos.is_terminal:
        moves = pos.legal_moves()
        assert moves, "a live position always offers a move (QM-8 ends it otherwise)"
        move = moves[rng.integers(len(moves))]
        before = water_of(pos)
        nxt = pos.play(move)
        after = water_of(nxt)
        # water only grows (QM-7)
        assert before <= after
        new = after - before
        if move.startswith("@"):
            assert not new and not after  # QM-3: no water during the setup
        else:
            moves_played += 1
            path = [game.board.cell(c) for c in move.replace("^", "-").split("-")]
            # exactly one new water cell per walk or jump, two per run (QM-5..QM-7)
            expected = {path[0], path[1]} if len(path) == 3 else {path[0]}
            assert new == expected
            # the piece lands on a cell that was empty, never on water
            assert pos.game.cells(pos.state)[path[-1]] == 0
            assert nxt.game.cells(nxt.state)[path[-1]] == PIECE + pos.to_move
        # pieces are never removed
        assert (nxt.game.cells(nxt.state) >= PIECE).sum() == min(4, (game.cells(pos.state) >= PIECE).sum() + 1)
        pos = nxt
    # QM-8: the game ends within C - 4 moves after the 4 placements, by a trapped player
    assert moves_played <= cells - 4
    assert pos.end_reason == "no_legal_move" and sorted(pos.returns) == [-1.0, 1.0]
    again = boardenvs.Position.from_text(pos.to_text())
    assert again.to_text() == pos.to_text() and again.is_terminal
