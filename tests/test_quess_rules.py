"""Quess rules, one group of tests per rule of boardenvs/rules/quess.md (QU-1..QU-13).

Hand-built positions are written in the position text form and read with
``Position.from_text``; ``rows`` below are six strings of six characters,
row A (top) first, column 1 on the left: ``T C S`` Light, ``t c s`` Dark,
``.`` empty.
"""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from position_text import header

import boardenvs
import boardenvs.games.quess as quess
import boardenvs.games.quess.rules as quess_rules
from boardenvs import engine as E
from boardenvs import quess_v0
from boardenvs.errors import IllegalMoveError, NotationError
from boardenvs.games.quess import QuessGame
from boardenvs.position import Position

ROWS = "ABCDEF"
LIGHT_ZONE = {"F1", "E1", "F2", "D1", "E2", "F3"}
DARK_ZONE = {"A6", "A5", "B6", "A4", "B5", "C6"}
INITIAL_ROWS = ["...tcs", "....tc", ".....t", "T.....", "CT....", "SCT..."]


# --- helpers -------------------------------------------------------------------


def qtext(rows, to_move=0, since="", turn=None, max_turns=None, status="playing", reason="-", returns="0 0"):
    """The text of a hand-built position; ``turn`` defaults to the fewest
    turns the board and history need (a capture each for the missing pieces,
    then the moves since the last one)."""
    if max_turns is None:
        max_turns = QuessGame.defaults["max_turns"]
    if turn is None:
        turn = 12 - sum(c != "." for r in rows for c in r) + len(since.split())
    assert len(rows) == 6 and all(len(r) == 6 for r in rows)
    lines = header("quess_v0", f"max_turns={max_turns}", f"player_{to_move}", turn, status, reason, returns=returns)
    lines += ["board:", "  1 2 3 4 5 6"]
    lines += [f"{ROWS[r]} " + " ".join(rows[r]) for r in range(6)]
    lines.append(f"since_capture: {since}".rstrip())
    return "\n".join(lines) + "\n"


def pos_from(rows, **kw) -> Position:
    """A hand-built position: a set-up one (pieces placed where a rule is
    tested, not captured there in turn: QU-V1 is not asked)."""
    return Position.from_text(qtext(rows, **kw), setup=True)


def sq(i: int) -> str:
    return ROWS[i // 6] + str(i % 6 + 1)


def idx(name: str) -> int:
    return ROWS.index(name[0].upper()) * 6 + int(name[1]) - 1


def board_of(pos: Position) -> list[str]:
    """The 36 cells of the ``board:`` block of the position's text."""
    lines = pos.to_text().splitlines()
    k = lines.index("board:")
    cells = []
    for r in range(6):
        parts = lines[k + 2 + r].split()
        assert parts[0] == ROWS[r]
        cells += parts[1:]
    return cells


def moves_from(pos: Position, square: str) -> set[str]:
    return {m for m in pos.legal_moves() if m.split("-")[0] == square}


def play_all(pos: Position, moves: str) -> Position:
    for m in moves.split():
        pos = pos.play(m)
    return pos


# --- an independent reference model of QU-4..QU-11 -------------------------------

ORTH = [(-1, 0), (1, 0), (0, -1), (0, 1)]
KNIGHT = [(-2, -1), (-2, 1), (2, -1), (2, 1), (-1, -2), (-1, 2), (1, -2), (1, 2)]


def _owner(ch: str) -> int:
    return 0 if ch.isupper() else 1


def ref_geometric_moves(board, colour):
    """(from, to) pairs allowed by QU-4..QU-7 (superko not applied)."""
    out = []
    for i, ch in enumerate(board):
        if ch == "." or _owner(ch) != colour:
            continue
        r, c = divmod(i, 6)
        shape = ch.upper()
        targets = []
        if shape == "T":
            targets = [(r + dr, c + dc) for dr, dc in ORTH]
        elif shape == "C":
            targets = [(r + dr, c + dc) for dr, dc in KNIGHT]
        else:
            for dr, dc in ORTH:
                k = 1
                while 0 <= r + k * dr < 6 and 0 <= c + k * dc < 6:
                    targets.append((r + k * dr, c + k * dc))
                    if board[(r + k * dr) * 6 + c + k * dc] != ".":
                        break
                    k += 1
        for rr, cc in targets:
            if not (0 <= rr < 6 and 0 <= cc < 6):
                continue
            j = rr * 6 + cc
            t = board[j]
            if t != "." and (_owner(t) == colour or t.upper() == shape):
                continue
            out.append((i, j))
    return out


def ref_after(board, i, j):
    nb = list(board)
    nb[j], nb[i] = nb[i], "."
    return tuple(nb)


def ref_legal(board, colour, history):
    return sorted(
        f"{sq(i)}-{sq(j)}" for i, j in ref_geometric_moves(board, colour) if ref_after(board, i, j) not in history
    )


def ref_end(board, mover, history):
    """(reason, returns) after ``mover`` moved to ``board``, or None (QU-9..QU-11 in order)."""
    zone = DARK_ZONE if mover == 0 else LIGHT_ZONE
    in_zone = sum(1 for i, ch in enumerate(board) if ch != "." and _owner(ch) == mover and sq(i) in zone)
    win = (1.0, -1.0) if mover == 0 else (-1.0, 1.0)
    if in_zone >= 2:
        return "zone", win
    counts = [sum(1 for ch in board if ch != "." and _owner(ch) == s) for s in (0, 1)]
    if counts == [1, 1]:
        return "one_each", (0.0, 0.0)
    if not ref_legal(board, 1 - mover, history):
        return "no_legal_move", win
    return None


def test_qu4_to_qu11_match_an_independent_reference_model():
    """QU-4..QU-11: along seeded random games (both first players), every
    position's legal moves, board, and end (reason, returns) equal an
    independent Python model with a plain set of all earlier boards (QU-8)."""
    rng = random.Random(20240611)
    reasons = set()
    superko_cuts = 0
    for game in range(24):
        first = game % 2
        pos = boardenvs.position("quess_v0", first_player=first)
        board = tuple(board_of(pos))
        history = {board}
        for _ in range(300):
            mover = pos.to_move
            expected = ref_legal(board, mover, history)
            geometric = ref_geometric_moves(board, mover)
            superko_cuts += len(geometric) - len(expected)
            assert sorted(pos.legal_moves()) == expected, pos.to_text()
            move = rng.choice(expected)
            i, j = idx(move[:2]), idx(move[3:])
            board = ref_after(board, i, j)
            history.add(board)
            pos = pos.play(move)
            assert tuple(board_of(pos)) == board
            end = ref_end(board, mover, history)
            if end is None:
                assert not pos.is_terminal, pos.to_text()
                assert pos.to_move == 1 - mover
            else:
                assert pos.is_terminal and not pos.is_truncated
                assert (pos.end_reason, pos.returns) == end, pos.to_text()
                reasons.add(end[0])
                break
    # the run exercised every end and the superko filter
    assert reasons == {"zone", "one_each", "no_legal_move"}
    assert superko_cuts > 0


# --- QU-1, QU-2: board and setup ---------------------------------------------------


def test_qu1_rows_a_to_f_top_to_bottom_columns_1_to_6():
    """QU-1: the text shows rows A..F from top to bottom and columns 1..6; F1
    is bottom-left (Light's square), A6 top-right (Dark's square)."""
    text = boardenvs.position("quess_v0", first_player=0).to_text().splitlines()
    k = text.index("board:")
    assert text[k + 1].split() == list("123456")
    assert [ln.split()[0] for ln in text[k + 2 : k + 8]] == list("ABCDEF")
    assert text[k + 7].split()[1] == "S"  # F1
    assert text[k + 2].split()[6] == "s"  # A6


def test_qu1_square_names_in_notation_and_action_ids():
    """QU-1: square 'XN' is row X (A top) and column N (1 left); for Light the
    action id is from*36+to with square row*6+col."""
    pos = boardenvs.position("quess_v0", first_player=0)
    assert pos.move_to_action("A1-A2") == 0 * 36 + 1
    assert pos.move_to_action("F3-E3") == (5 * 6 + 2) * 36 + (4 * 6 + 2)
    assert pos.move_to_action("B6-C5") == (1 * 6 + 5) * 36 + (2 * 6 + 4)
    assert pos.action_to_move(35 * 36 + 0) == "F6-A1"


def test_qu2_initial_setup():
    """QU-2: Light S F1, C E1 F2, T D1 E2 F3; Dark S A6, C A5 B6, T A4 B5 C6;
    nothing else on the board."""
    board = board_of(boardenvs.position("quess_v0", first_player=0))
    expected = {
        "F1": "S",
        "E1": "C",
        "F2": "C",
        "D1": "T",
        "E2": "T",
        "F3": "T",
        "A6": "s",
        "A5": "c",
        "B6": "c",
        "A4": "t",
        "B5": "t",
        "C6": "t",
    }
    assert {sq(i): ch for i, ch in enumerate(board) if ch != "."} == expected


def test_qu2_starting_zones_in_the_observation():
    """QU-2: each side's zone is its six start squares (observation planes
    6 = own zone, 7 = opponent's zone, Light's frame = absolute squares)."""
    obs = boardenvs.position("quess_v0", first_player=0).observation(0)
    own = {sq(i) for i in range(36) if obs[i // 6, i % 6, 6]}
    opp = {sq(i) for i in range(36) if obs[i // 6, i % 6, 7]}
    assert own == LIGHT_ZONE
    assert opp == DARK_ZONE


# --- QU-3: seats and first player ------------------------------------------------


def test_qu3_player_0_is_light_and_moves_first_when_first_player_0():
    pos = boardenvs.position("quess_v0", first_player=0)
    board = board_of(pos)
    assert pos.to_move == 0
    assert pos.legal_moves()
    assert all(board[idx(m[:2])].isupper() for m in pos.legal_moves())


def test_qu3_player_1_is_dark_and_moves_first_when_first_player_1():
    pos = boardenvs.position("quess_v0", first_player=1)
    board = board_of(pos)
    assert pos.to_move == 1
    moves = pos.legal_moves()
    assert moves and all(board[idx(m[:2])].islower() for m in moves)
    # Dark's opening moves are Light's turned 180 degrees
    light = boardenvs.position("quess_v0", first_player=0).legal_moves()
    turn = lambda m: f"{sq(35 - idx(m[:2]))}-{sq(35 - idx(m[3:]))}"  # noqa: E731
    assert sorted(moves) == sorted(turn(m) for m in light)


@pytest.mark.parametrize("first", [0, 1])
def test_qu3_env_first_player_seat(first):
    env = boardenvs.make("quess_v0", first_player=first)
    env.reset(seed=3)
    assert env.agent_selection == f"player_{first}"
    assert env.unwrapped.position().to_move == first


def test_qu3_first_player_defaults_to_random():
    """QU-3 / C-2: the default is 'random'."""
    assert QuessGame.defaults["first_player"] == "random"
    assert int(boardenvs.make("quess_v0").unwrapped.game.params[E.P_FIRST]) == -1


def test_qu3_random_first_player_is_fixed_by_reset_seed():
    """QU-3 / C-2: 'random' is drawn from the env's RNG: the same seed gives the
    same first player (also on a fresh env), and both seats occur over seeds."""
    env = boardenvs.make("quess_v0", first_player="random")
    other = boardenvs.make("quess_v0", first_player="random")
    firsts = []
    for seed in range(24):
        env.reset(seed=seed)
        a = env.agent_selection
        env.reset(seed=seed)
        assert env.agent_selection == a
        other.reset(seed=seed)
        assert other.agent_selection == a
        firsts.append(a)
    assert set(firsts) == {"player_0", "player_1"}


# --- QU-4: whose pieces, and captures ----------------------------------------------


def test_qu4_only_own_pieces_move():
    pos = boardenvs.position("quess_v0", first_player=0)
    for bad in ("A4-A3", "C6-D6", "C3-C4"):  # Dark's triangles, an empty square
        assert bad not in pos.legal_moves()
        with pytest.raises(IllegalMoveError):
            pos.play(bad)
    dark = boardenvs.position("quess_v0", first_player=1)
    assert "F3-E3" not in dark.legal_moves()
    with pytest.raises(IllegalMoveError):
        dark.play("F3-E3")


def test_qu4_never_onto_an_own_piece():
    pos = boardenvs.position("quess_v0", first_player=0)
    for bad in ("E2-E1", "E2-F2", "F1-E1", "F1-F2", "E1-F3", "D1-E1", "F3-F2"):
        assert bad not in pos.legal_moves()
        with pytest.raises(IllegalMoveError):
            pos.play(bad)
    # F1 (the square) is walled in by its own pieces
    assert moves_from(pos, "F1") == set()


# mover at D3; target square per mover shape
_REACH = {"T": "C3", "C": "B4", "S": "D6"}


@pytest.mark.parametrize("mover", "TCS")
@pytest.mark.parametrize("target", "TCS")
@pytest.mark.parametrize("colour", [0, 1])
def test_qu4_capture_only_a_different_shape(mover, target, colour):
    """QU-4: a piece captures an opposing piece of a different shape, never one
    of its own shape (T/T, C/C, S/S), for both colours."""
    rows = [list("......") for _ in range(6)]
    me = mover if colour == 0 else mover.lower()
    them = target.lower() if colour == 0 else target
    d3, dest = idx("D3"), idx(_REACH[mover])
    rows[d3 // 6][d3 % 6] = me
    rows[dest // 6][dest % 6] = them
    # bystanders far away, outside both zones
    rows[5][5] = "T" if colour == 0 else "t"  # F6: the mover's
    rows[0][0], rows[0][1] = ("t", "c") if colour == 0 else ("T", "C")  # A1, A2
    pos = pos_from(["".join(r) for r in rows], to_move=colour)
    move = f"D3-{_REACH[mover]}"
    if mover != target:
        assert move in pos.legal_moves()
        after = pos.play(move)
        board = board_of(after)
        assert board[dest] == me and board[d3] == "."
        assert sum(ch != "." for ch in board) == 4  # the target left the game
        assert after.to_text().splitlines()[-1] == "since_capture:"
    else:
        assert move not in pos.legal_moves()
        with pytest.raises(IllegalMoveError):
            pos.play(move)


# --- QU-5, QU-6, QU-7: how each shape moves -----------------------------------------


def _lone(piece: str, at: str, extra=()) -> Position:
    """A Light ``piece`` on ``at`` plus ``extra`` (square, char) pieces; Dark
    keeps two pieces on A1/A2 (unless overwritten) so no one-each end."""
    rows = [list("......") for _ in range(6)]
    rows[0][0], rows[0][1] = "t", "c"
    i = idx(at)
    rows[i // 6][i % 6] = piece
    for s, ch in extra:
        j = idx(s)
        rows[j // 6][j % 6] = ch
    return pos_from(["".join(r) for r in rows], to_move=0)


def test_qu5_triangle_one_step_orthogonally():
    pos = _lone("T", "C3", [("F6", "S")])
    assert moves_from(pos, "C3") == {"C3-B3", "C3-D3", "C3-C2", "C3-C4"}


def test_qu5_triangle_at_the_edge_and_corner():
    assert moves_from(_lone("T", "F4", [("F6", "S")]), "F4") == {"F4-E4", "F4-F3", "F4-F5"}
    assert moves_from(_lone("T", "F1", [("F6", "S")]), "F1") == {"F1-E1", "F1-F2"}


def test_qu6_circle_knight_moves():
    pos = _lone("C", "D3", [("F6", "S")])
    assert moves_from(pos, "D3") == {f"D3-{s}" for s in ("B2", "B4", "F2", "F4", "C1", "C5", "E1", "E5")}


def test_qu6_circle_jumps_over_pieces():
    """QU-6: the circle jumps; a ring of own and opposing pieces around it
    changes nothing (the targets stay empty)."""
    ring = [("C2", "T"), ("C3", "T"), ("C4", "T"), ("D2", "t"), ("D4", "t"), ("E2", "S"), ("E3", "s"), ("E4", "C")]
    pos = _lone("C", "D3", ring)
    assert moves_from(pos, "D3") == {f"D3-{s}" for s in ("B2", "B4", "F2", "F4", "C1", "C5", "E1", "E5")}


def test_qu6_circle_in_a_corner():
    assert moves_from(_lone("C", "F1", [("F6", "S")]), "F1") == {"F1-D2", "F1-E3"}


def test_qu7_square_slides_like_a_rook():
    pos = _lone("S", "D3", [("F6", "T")])
    expected = {f"D3-{r}3" for r in "ABCEF"} | {f"D3-D{c}" for c in "12456"}
    assert moves_from(pos, "D3") == expected


def test_qu7_square_is_blocked_by_pieces_in_between():
    """QU-7: an own piece stops the slide before it; an opposing piece of a
    different shape can be captured at the end of the slide, not passed; an
    opposing square stops it before."""
    pos = _lone("S", "D3", [("D5", "T"), ("B3", "t"), ("F3", "s"), ("F6", "T")])
    got = moves_from(pos, "D3")
    assert got == {"D3-D4", "D3-D2", "D3-D1", "D3-C3", "D3-B3", "D3-E3"}
    for beyond in ("D3-D5", "D3-D6", "D3-A3", "D3-F3"):
        assert beyond not in got
    after = pos.play("D3-B3")  # capture at the end of the slide
    assert board_of(after)[idx("B3")] == "S"


# --- QU-8: superko --------------------------------------------------------------------


@pytest.mark.parametrize("first", [0, 1])
def test_qu8_seed_example_second_player_cannot_move_back(first):
    """QU-8, the example of seeds/quess_en.txt: the first player moves a
    triangle, the second a triangle, the first moves back (legal: the board is
    new), and the second cannot move back (it would recreate the initial board)."""
    a, b = ("F3-E3", "C6-D6") if first == 0 else ("C6-D6", "F3-E3")
    back = lambda m: m[3:] + "-" + m[:2]  # noqa: E731
    pos = play_all(boardenvs.position("quess_v0", first_player=first), f"{a} {b}")
    assert back(a) in pos.legal_moves()
    pos = pos.play(back(a))
    assert back(b) not in pos.legal_moves()
    with pytest.raises(IllegalMoveError):
        pos.play(back(b))
    assert not pos.is_terminal and pos.legal_moves()  # other moves remain


def test_qu8_seed_example_from_a_hand_built_text():
    """QU-8: the superko history is rebuilt from ``since_capture`` in the text."""
    rows = ["...tcs", "....tc", "......", "T....t", "CT....", "SCT..."]
    with_history = pos_from(rows, to_move=1, turn=3, since="F3-E3 C6-D6 E3-F3")
    assert "D6-C6" not in with_history.legal_moves()
    # the same board with a shorter record would silently allow D6-C6: with no
    # capture yet the record is the whole game, so such a text is refused (C-6)
    with pytest.raises(NotationError, match="since_capture lists every move"):
        pos_from(rows, to_move=1, turn=3, since="")
    # the kernels' own record agrees: D6-C6 is the one move the history removes
    row = with_history.state  # a copy of the row, its record cut down to the board itself
    row[quess_rules.Q_HLEN] = 1
    row[quess_rules.Q_BLOOM : quess_rules.Q_BLOOM + quess_rules.BLOOM_WORDS] = 0
    quess_rules._remember(row, row[quess_rules.Q_HASH])
    # (a row no game reaches: Position refuses it, C-6, so the kernels read it directly)
    with pytest.raises(ValueError, match="since_capture lists every move"):
        Position(with_history.game, row)
    game = with_history.game
    freed = np.flatnonzero(game.legal_mask(row) & ~game.legal_mask(with_history.state))
    assert [game.action_to_move(row, int(a)) for a in freed] == ["D6-C6"]


def test_qu8_initial_board_counts_as_occurred():
    """QU-8: 'the initial board included': a hand-built start position forbids
    any move pair that returns to it."""
    pos = play_all(boardenvs.position("quess_v0", first_player=0), "D1-C1 A4-A3 C1-D1")
    assert "A3-A4" not in pos.legal_moves()


# Light square on F4, row F clear; Dark triangle oscillates A1 <-> B1.
_CYCLE_ROWS = ["t.c...", "......", "...C..", "......", "......", "...S.."]


def test_qu8_board_repeated_with_the_other_side_to_move_is_forbidden():
    """QU-8: the side to move is NOT part of the board.  The start board had
    Light to move; Light's square goes F4-F6-F5 (three moves) while Dark's
    triangle goes A1-B1-A1; F5-F4 would recreate the start board with Dark to
    move, and is illegal."""
    start = pos_from(_CYCLE_ROWS, to_move=0)
    pos = play_all(start, "F4-F6 A1-B1 F6-F5 B1-A1")
    assert pos.to_move == 0
    assert "F5-F4" not in pos.legal_moves()
    assert "F5-F6" not in pos.legal_moves()  # also a repeat (of the board after F4-F6)
    assert {"F5-F3", "F5-E5", "F5-A5"} <= set(pos.legal_moves())
    with pytest.raises(IllegalMoveError):
        pos.play("F5-F4")
    # control: the same board without that history allows it
    fresh = Position.from_text(pos.to_text().rsplit("since_capture:", 1)[0] + "since_capture:\n")
    assert "F5-F4" in fresh.legal_moves()


def test_qu8_board_repeated_with_the_other_side_dark_cycles():
    """QU-8, mirrored: Dark's square makes the three-move cycle; the start
    board had Dark to move, the repeat would have Light to move."""
    rows = ["..s...", "......", "......", "T.....", "..c...", "T.T..."]
    start = pos_from(rows, to_move=1)
    pos = play_all(start, "A3-A1 D1-C1 A1-A2 C1-D1")
    assert pos.to_move == 1
    assert "A2-A3" not in pos.legal_moves()
    assert "A2-A4" in pos.legal_moves()


def test_qu8_capture_clears_history_and_later_boards_are_tracked():
    """QU-8 with captures: after a capture the text's since_capture is empty
    and the position behaves like a fresh one on that board (boards before a
    capture cannot come back: fewer pieces); boards after the capture,
    the capture's own result included, are tracked again."""
    rows = ["t.s...", "......", "..Tc..", "......", "......", "....S."]
    pos = pos_from(rows, to_move=0)
    pos = play_all(pos, "F5-F6 A1-B1")  # a capture-free stretch
    assert pos.to_text().splitlines()[-1] == "since_capture: F5-F6 A1-B1"
    pos = pos.play("C3-C4")  # the triangle takes the circle
    assert pos.to_text().splitlines()[-1] == "since_capture:"
    fresh = Position.from_text(pos.to_text())
    assert sorted(fresh.legal_moves()) == sorted(pos.legal_moves())
    assert "B1-A1" in pos.legal_moves()  # undoes a pre-capture move: a new board
    pos = play_all(pos, "B1-A1 F6-F5 A1-B1")
    # F5-F6 would recreate the board right after the capture
    assert "F5-F6" not in pos.legal_moves()
    with pytest.raises(IllegalMoveError):
        pos.play("F5-F6")


# --- QU-9..QU-11: the end, in order ---------------------------------------------------


def test_qu9_two_pieces_in_the_opponent_zone_win():
    rows = ["t...T.", "...T..", "......", "......", "....tc", ".....s"]
    pos = pos_from(rows, to_move=0)
    after = pos.play("B4-B5")
    assert after.is_terminal and not after.is_truncated
    assert after.end_reason == "zone"
    assert after.returns == (1.0, -1.0)
    assert after.legal_moves() == []


def test_qu9_dark_wins_in_lights_zone():
    rows = ["S.....", "C.....", "t.....", ".....T", "t.....", "......"]
    pos = pos_from(rows, to_move=1)
    after = pos.play("C1-D1")
    assert (after.end_reason, after.returns) == ("zone", (-1.0, 1.0))


def test_qu9_one_piece_in_the_zone_is_not_enough():
    rows = ["t.....", "...T..", "......", "......", "...T..", "....cs"]
    after = pos_from(rows, to_move=0).play("B4-B5")
    assert not after.is_terminal
    assert after.to_move == 1


def test_qu9_a_capture_into_the_zone_counts():
    rows = ["t...T.", "...Tc.", "......", "......", "......", ".....s"]
    after = pos_from(rows, to_move=0).play("B4-B5")
    assert (after.end_reason, after.returns) == ("zone", (1.0, -1.0))
    # and its text reads back: a side with no pieces, the game over by the zone (hypothesis found it)
    again = Position.from_text(after.to_text(), setup=True)  # (set up: QU-V1 not asked)
    assert again.to_text() == after.to_text() and again.end_reason == "zone"


def test_qu9_only_the_movers_pieces_count():
    """QU-9 checks the mover: Dark already sitting on two Light-zone squares
    does not make Light's quiet move a Dark win.  No game reaches that (Dark
    would have won on entering), so the text form refuses it (C-6) and the
    kernel is shown it on a row edited by hand."""
    rows = ["......", "..T...", "......", "t.....", "......", "..t.S."]
    with pytest.raises(NotationError, match="zone"):
        pos_from(rows, to_move=0)
    pos = pos_from(["......", "..T...", "......", "t.....", "......", "....S."], to_move=0)
    state = pos.state.copy()
    state[quess_rules.Q_BB + 3] |= (1 << idx("F3")) | (1 << idx("E1"))  # two Dark triangles in Light's zone
    with pytest.raises(ValueError, match="zone"):  # Position refuses the row too (C-6)
        Position(pos.game, state)
    game = pos.game
    played = game.step(
        state, game.move_to_action(state, "B3-B2"), np.empty(game.mask_size, np.int8), mode=E.ILLEGAL_REFUSE
    )
    assert played == E.STEP_PLAYED and state[E.H_STATUS] == E.PLAYING


def test_qu9_is_checked_before_qu11():
    """QU-9 before QU-11: the second piece enters the zone by taking Dark's
    last piece; Dark also has no move, but the reason is the zone.  (QU-9
    before QU-10 cannot conflict: two pieces in a zone means the mover has two
    or more pieces, so not one each.)"""
    rows = ["....T.", "...Tc.", "......", "......", "......", "S....."]
    after = pos_from(rows, to_move=0).play("B4-B5")
    assert (after.end_reason, after.returns) == ("zone", (1.0, -1.0))
    # and its text reads back: a side with no pieces, the game over by the zone (hypothesis found it)
    again = Position.from_text(after.to_text(), setup=True)  # (set up: QU-V1 not asked)
    assert again.to_text() == after.to_text() and again.end_reason == "zone"


def test_qu10_one_piece_each_is_a_draw():
    rows = ["......", "......", ".Tc...", "......", "......", ".....s"]
    after = pos_from(rows, to_move=0).play("C2-C3")
    assert after.is_terminal and not after.is_truncated
    assert after.end_reason == "one_each"
    assert after.returns == (0.0, 0.0)


def test_qu10_one_each_through_the_env_rewards_zero():
    env = boardenvs.make("quess_v0", first_player=0)
    env.reset(seed=0)
    _load(env, pos_from(["......", "......", ".Tc...", "......", "......", ".....s"], to_move=0))
    env.step(env.unwrapped.move_to_action("C2-C3"))
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.truncations == {"player_0": False, "player_1": False}
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.infos["player_0"]["end_reason"] == "one_each"


def test_qu11_all_moves_blocked_loses():
    """QU-11: Dark's lone triangle in A1 is walled in by Light triangles
    (triangles cannot take triangles): Dark loses."""
    rows = ["tT....", "......", "T.....", "......", "......", ".....S"]
    after = pos_from(rows, to_move=0).play("C1-B1")
    assert after.is_terminal
    assert (after.end_reason, after.returns) == ("no_legal_move", (1.0, -1.0))


def test_qu11_only_superko_forbidden_moves_loses():
    """QU-11 with QU-8: Dark's only geometric move (A1-B1) would recreate the
    start board, so Dark has no legal move and loses."""
    rows = [".T....", "t.....", "......", "......", "......", "S....."]
    pos = play_all(pos_from(rows, to_move=0), "F1-F2 B1-A1")
    assert not pos.is_terminal
    after = pos.play("F2-F1")
    assert after.is_terminal
    assert (after.end_reason, after.returns) == ("no_legal_move", (1.0, -1.0))


def test_qu11_no_pieces_loses():
    rows = ["......", "......", ".Tc...", "......", "......", "S....."]
    after = pos_from(rows, to_move=0).play("C2-C3")
    assert (after.end_reason, after.returns) == ("no_legal_move", (1.0, -1.0))


def test_qu11_dark_wins_when_light_cannot_move():
    rows = ["s.....", "......", "......", ".....t", "......", "....tT"]
    after = pos_from(rows, to_move=1).play("D6-E6")
    assert (after.end_reason, after.returns) == ("no_legal_move", (-1.0, 1.0))


def test_qu11_through_the_env_rewards():
    env = boardenvs.make("quess_v0", first_player=0)
    env.reset(seed=0)
    _load(env, pos_from(["tT....", "......", "T.....", "......", "......", ".....S"], to_move=0))
    env.step(env.unwrapped.move_to_action("C1-B1"))
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def _load(env, pos: Position) -> None:
    """Put a hand-built position into a reset env (same options, so the same
    state layout) and refresh its mask."""
    raw = env.unwrapped
    assert raw._state.shape == pos.state.shape
    raw._state[:] = pos.state
    raw._refresh()


# --- QU-12: speed variant ---------------------------------------------------------------


class FakeTime:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def _first_legal(env) -> int:
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def test_qu12_clock_charges_only_the_agent_to_act():
    clock = FakeTime()
    env = quess_v0.env(clock_seconds=10, time_source=clock, first_player=0)
    env.reset(seed=0)
    clock.t += 3
    env.step(_first_legal(env))
    clock.t += 4
    env.step(_first_legal(env))
    clock.t += 2
    env.step(_first_legal(env))
    assert env.remaining["player_0"] == pytest.approx(5.0)
    assert env.remaining["player_1"] == pytest.approx(6.0)
    assert not any(env.terminations.values())


def test_qu12_flag_fall_loses_and_the_late_action_is_not_applied():
    clock = FakeTime()
    env = quess_v0.env(clock_seconds=10, time_source=clock, first_player=0)
    env.reset(seed=0)
    clock.t += 1
    env.step(_first_legal(env))
    assert env.agent_selection == "player_1"
    before = env.unwrapped._state.copy()
    board_before = board_of(env.unwrapped.position())
    clock.t += 10.5  # player_1's flag falls while thinking
    env.step(_first_legal(env))
    assert board_of(env.unwrapped.position()) == board_before  # late action not played
    assert env.unwrapped._state[E.H_DECISIONS] == before[E.H_DECISIONS]
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.unwrapped.position().end_reason == "timeout"


def test_qu12_clock_reaching_exactly_zero_loses():
    clock = FakeTime()
    env = quess_v0.env(clock_seconds=5, time_source=clock, first_player=0)
    env.reset(seed=0)
    clock.t += 5
    env.step(_first_legal(env))
    assert env.rewards == {"player_0": -1.0, "player_1": 1.0}


def _one_each_game(first: int) -> list[int]:
    """Action ids of a seeded random game that ends in QU-10's one-each draw."""
    for seed in range(200):
        rng = random.Random(seed)
        pos = boardenvs.position("quess_v0", first_player=first)
        actions = []
        while not pos.is_terminal and len(actions) < 400:
            a = rng.choice(pos.legal_actions())
            actions.append(a)
            pos = pos.play(a)
        if pos.is_terminal and pos.end_reason == "one_each":
            return actions
    raise AssertionError("no one-each game found")


@pytest.mark.parametrize("faster", ["player_0", "player_1"])
def test_qu12_one_each_is_won_by_more_time_left(faster):
    """QU-10 with the QU-12 clock: the one-each draw goes to the player with
    more time left, whoever made the last move."""
    actions = _one_each_game(first=0)
    clock = FakeTime()
    env = quess_v0.env(clock_seconds=1000, time_source=clock, first_player=0)
    env.reset(seed=0)
    for a in actions:
        assert not any(env.terminations.values())
        clock.t += 0.25 if env.agent_selection == faster else 0.5
        env.step(a)
    pos = env.unwrapped.position()
    assert pos.end_reason == "one_each"
    assert sum(ch != "." for ch in board_of(pos)) == 2  # the drawing move was played
    slower = "player_1" if faster == "player_0" else "player_0"
    assert env.remaining[faster] > env.remaining[slower]
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {faster: 1.0, slower: -1.0}


def test_qu12_a_rejected_action_does_not_double_charge_the_clock():
    """QU-12 with C-6: a rejected (illegal) action changes nothing, so the
    clock charges the agent once, from when it became the agent to act until
    its legal action arrives (3 s here), not the wait before the rejected try
    a second time."""
    clock = FakeTime()
    env = quess_v0.env(clock_seconds=10, time_source=clock, first_player=0, illegal_action="raise")
    env.reset(seed=0)
    clock.t += 2
    with pytest.raises(ValueError):
        env.step(0)  # A1-A1: masked out
    clock.t += 1
    env.step(_first_legal(env))  # arrives 3 s after player_0 was to act
    assert env.remaining["player_0"] == pytest.approx(7.0)
    assert env.remaining["player_1"] == pytest.approx(10.0)


# --- QU-13: max_turns -------------------------------------------------------------------


def test_qu13_max_turns_truncates_with_zero_rewards():
    env = boardenvs.make("quess_v0", first_player=0, max_turns=3)
    env.reset(seed=0)
    for _k in range(3):
        assert not any(env.truncations.values())
        env.step(_first_legal(env))
    assert env.truncations == {"player_0": True, "player_1": True}
    assert env.terminations == {"player_0": False, "player_1": False}
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    pos = env.unwrapped.position()
    assert pos.is_truncated and pos.end_reason == "max_turns" and pos.returns == (0.0, 0.0)


def test_qu13_max_turns_on_a_position():
    pos = boardenvs.position("quess_v0", first_player=0, max_turns=2)
    pos = play_all(pos, "F3-E3")
    assert not pos.is_terminal
    pos = pos.play("C6-D6")
    assert pos.is_terminal and pos.is_truncated
    assert pos.returns == (0.0, 0.0)
    assert pos.legal_moves() == []


def test_qu13_default_max_turns_equals_defaults():
    default = QuessGame.defaults["max_turns"]
    assert isinstance(default, int) and default > 0
    assert QuessGame().options["max_turns"] == default
    env = boardenvs.make("quess_v0")
    assert int(env.unwrapped.game.params[E.P_MAX_TURNS]) == default
    assert f"max_turns={default}" in boardenvs.position("quess_v0").to_text()


def test_qu13_default_max_turns_is_documented_in_the_module_card_and_env_card():
    """QU-13: the game module's docstring (the card's notes) and the generated
    env card (the docs' card page: the options table, from the declaration)
    give the default max_turns."""
    from boardenvs.cards import env_card

    default = QuessGame.defaults["max_turns"]
    assert re.search(rf"max_turns``\s+\(default {default}\b", quess.__doc__)
    assert re.search(rf"\| `max_turns` \| [^|]+ \| `{default}` \|", env_card("quess_v0"))


def test_qu13_default_max_turns_is_documented_in_the_quessgame_docstring():
    """QU-13: 'document it' -- the QuessGame class docstring (what
    help(QuessGame) shows, not the inherited Game one) names max_turns and its
    default value."""
    doc = QuessGame.__dict__.get("__doc__") or ""
    default = QuessGame.defaults["max_turns"]
    assert "max_turns" in doc
    assert re.search(rf"\b{default}\b", doc)


def test_qu13_default_is_above_999_in_1000_random_games():
    """QU-13: the default must be well above the length of 99.9% of
    random-vs-random games.  1000 seeded uniform-random games (uncapped, both
    first players): at most one of them may reach the default."""
    default = QuessGame.defaults["max_turns"]
    game = QuessGame(first_player=0, max_turns=20 * default)
    rng = np.random.default_rng(7)
    mask = np.zeros(game.mask_size, np.int8)
    lengths = []
    for g in range(1000):
        state = game.new_state(g % 2)
        while state[E.H_STATUS] == E.PLAYING:
            game.kernels.legal(state, game.params, mask)
            acts = np.flatnonzero(mask)
            game.kernels.apply(state, game.params, int(acts[rng.integers(len(acts))]))
        assert state[E.H_STATUS] == E.TERMINATED
        lengths.append(int(state[E.H_TURN]))
    lengths = np.array(lengths)
    assert (lengths >= default).sum() <= 1, (
        f"{(lengths >= default).sum()} of 1000 random games reach max_turns={default}; "
        f"99.9th percentile {np.percentile(lengths, 99.9):.0f}, max {lengths.max()}"
    )
