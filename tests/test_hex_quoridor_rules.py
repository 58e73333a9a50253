"""Hex Quoridor rules, one group of tests per rule of
boardenvs/rules/hex_quoridor.md (HQ-1..HQ-16).

Hand-built positions go through the text form (``Position.from_text``);
cells are written in axial coordinates ``(q, r)`` and named by the
independent model in ``hq_reference.py``, which also picks fences by the
edges they block.  The last tests compare the kernels' legal moves (the fast
fence check: only fences on a shortest path are searched) with the model's
brute-force check (every pawn searched after every fence) on random positions.
"""

from __future__ import annotations

import numpy as np
import pytest
from hq_reference import Board
from hq_reference import legal_moves as reference_moves
from position_text import header

import boardenvs
from boardenvs import engine as E
from boardenvs.errors import IllegalMoveError, NotationError, OptionError
from boardenvs.games.hex_quoridor import rules as HR
from boardenvs.position import Position

ENV = "hex_quoridor_v1"
FENCES = {2: 9, 3: 6, 4: 4, 6: 3}
B2, B4 = Board(2), Board(4)


def name(q, r, board=B4):
    return board.names[(q, r)]


def edge(u, v):
    return frozenset((u, v))


def fence_with(board, block=(), keep=(), avoid=frozenset()):
    """The first fence (notation) that blocks every edge in ``block``, none
    in ``keep``, and shares no edge with ``avoid``."""
    for fname, edges in sorted(board.fences().items()):
        if all(edge(*e) in edges for e in block) and not any(edge(*e) in edges for e in keep) and not edges & avoid:
            return fname
    raise AssertionError(f"no fence blocks {block} and keeps {keep}")


def hq(
    pawns,
    fences=(),
    left=None,
    to_move=0,
    num_players=2,
    teams="none",
    radius=4,
    fpp=-1,
    turn=None,
    alive=None,
    max_turns=1000,
):
    """The position text of a hand-built position; ``left`` defaults to the
    allowance minus the placed fences, taken from seat 0, 1, ... in turn."""
    n = num_players
    per = FENCES[n] if fpp < 0 else fpp
    if left is None:
        left = [per] * n
        for k in range(len(fences)):
            left[k % n] -= 1
    alive = alive or [1] * n
    lines = header(
        ENV,
        f"num_players={n} teams={teams} radius={radius} fences_per_player={fpp} max_turns={max_turns}",
        f"player_{to_move}",
        len(fences) if turn is None else turn,
        alive=" ".join(map(str, alive)),
        returns=" ".join("0" if a else "-1" for a in alive),
    )
    lines += [
        f"pawns: {' '.join(pawns)}",
        f"fences_left: {' '.join(map(str, left))}",
        f"fences: {' '.join(fences) or '-'}",
    ]
    return "\n".join(lines) + "\n"


def pos_of(*args, **kwargs) -> Position:
    """A hand-built position: a set-up one (pawns placed where a rule is
    tested, not walked there: HQ-V1 is not asked)."""
    return Position.from_text(hq(*args, **kwargs), setup=True)


def pawn_moves(pos):
    return {m for m in pos.legal_moves() if "/" not in m}


# --- board, seats, fences (HQ-1..HQ-5) -----------------------------------------


@pytest.mark.parametrize("radius, cells", [(2, 19), (4, 61), (6, 127)])
def test_hq1_radius_option_even_sizes(radius, cells):
    pos = boardenvs.position(ENV, radius=radius)
    assert pos.game.num_actions == cells + len(Board(radius).fences()) + 1  # + pass (HQ-13)
    assert pos.game.num_cells == cells and pos.game.pass_action == pos.game.num_actions - 1
    for bad in (3, 0, 5, "4"):
        with pytest.raises(OptionError, match="radius"):
            boardenvs.position(ENV, radius=bad)


def test_hq1_default_radius_4_gives_8_steps_to_the_goal():
    pos = boardenvs.position(ENV)
    assert pos.game.options["radius"] == 4 and pos.game.num_cells == 61
    assert pos.game.board.distance(pos.game.board.cell("i3"), pos.game.board.cell("a3")) == 8


@pytest.mark.parametrize("n, starts", [(2, "i3 a3"), (3, "i3 c1 c7"), (4, "i3 g1 a3 c7"), (6, "i3 g1 c1 a3 c7 g7")])
def test_hq2_hq3_hq4_seats_start_in_the_middle_of_their_sides(n, starts):
    pos = boardenvs.position(ENV, num_players=n)
    assert pos.to_text().count(f"pawns: {starts}\n") == 1
    # the side middles of HQ-2, counted clockwise from the bottom
    middles = {0: (-2, 4), 1: (-4, 2), 2: (-2, -2), 3: (2, -4), 4: (4, -2), 5: (2, 2)}
    sides = {2: (0, 3), 3: (0, 2, 4), 4: (0, 1, 3, 4), 6: range(6)}[n]
    assert starts.split() == [name(*middles[k]) for k in sides]


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_hq2_goal_side_is_the_opposite_side_and_at_the_top_of_every_frame(n):
    """HQ-2 (goal = side k+3) seen through the egocentric observation: every
    seat's own-goal plane is the top row of its turned board."""
    pos = boardenvs.position(ENV, num_players=n)
    R = 4
    for seat in range(n):
        obs = pos.observation(seat)
        goal = obs[:, :, n + 7]
        assert goal[0].sum() == R + 1 and goal.sum() == R + 1
        own = np.argwhere(obs[:, :, 1])
        assert own.tolist() == [[2 * R, 2]]  # own pawn bottom row, middle cell (i3 of the frame)


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_hq5_fences_per_player(n):
    pos = boardenvs.position(ENV, num_players=n)
    assert f"fences_left: {' '.join([str(FENCES[n])] * n)}\n" in pos.to_text()
    pos = boardenvs.position(ENV, num_players=n, fences_per_player=5)
    assert f"fences_left: {' '.join(['5'] * n)}\n" in pos.to_text()


# --- fences (HQ-6, HQ-7) -----------------------------------------------------------


@pytest.mark.parametrize("radius", [2, 4])
def test_hq6_every_fence_is_three_edges_facing_two_cells_on_each_side(radius):
    """The game's fences are exactly the model's (rhombus of four cells, one
    adjacent pair against the other), with the same three edges."""
    game = boardenvs.make_game(ENV, radius=radius)
    ref = Board(radius).fences()
    assert game.num_fences == len(ref)
    for fname, edges in ref.items():
        f = game.parse_fence(fname)
        assert game.fence_name(f) == fname
        from boardenvs.games.hex_quoridor.geometry import fence_edges

        mine = {frozenset(game.board.coords[c] for c in e) for e in fence_edges(game.geo.fences[f])}
        assert mine == set(edges)
        cells = {c for e in edges for c in e}
        assert len(cells) == 4  # two cells on each side


def test_hq6_a_fence_blocks_steps_across_its_three_edges():
    x, y = (0, 0), (1, 0)  # e5, e6
    f = fence_with(B4, block=[(x, y)])
    pos = pos_of(["e5", "a3"])
    assert "e6" in pawn_moves(pos)
    pos = pos_of(["e5", "a3"], fences=[f], left=[9, 8], to_move=0, turn=1)
    blocked = {c for e in B4.fences()[f] if x in e for c in e} - {x}
    assert len(blocked) == 2  # a fence's middle edge and one side edge meet at the cell x
    assert not {B4.names[c] for c in blocked} & pawn_moves(pos)
    assert len(pawn_moves(pos)) == 4


def test_hq7_fences_may_not_share_an_edge_nor_cross():
    f = fence_with(B4, block=[((0, 0), (1, 0))])
    pos = boardenvs.position(ENV).play(f)
    edges = B4.fences()[f]
    sharing = {g for g, e in B4.fences().items() if e & edges}
    assert len(sharing) > 4  # itself, its twin on the same rhombus, and those crossing it
    legal = set(pos.legal_moves())
    assert not sharing & legal
    assert {g for g in B4.fences() if g not in sharing} <= legal  # nothing else is cut: all legal
    for g in sharing:
        with pytest.raises(IllegalMoveError):
            pos.play(g)


def test_hq7_fences_stay_on_the_board():
    with pytest.raises(NotationError, match="no fence"):
        boardenvs.position(ENV).play("a1a2/c1c2")  # not two facing pairs of a rhombus
    assert all(B4.on(c) for edges in B4.fences().values() for e in edges for c in e)
    # a rhombus at the rim has a cell off the board: no fence there
    assert not any(edge((0, -4), (1, -4)) in e and len({c for x in e for c in x}) < 4 for e in B4.fences().values())


# --- the path rule (HQ-8) and eliminations (HQ-9) --------------------------------------

# found by random play on the radius-2 board (19 cells), then written out


def test_hq8_a_fence_may_not_cut_the_last_path_two_players():
    fences = "a1b1/a2b2 b1b2/c1c2 a3b3/b4c4 d1e1/d2e2 c4d3/d4e3".split()
    pos = pos_of(["e2", "a2"], fences=fences, left=[6, 7], num_players=2, radius=2, fpp=9, turn=5, to_move=1)
    cut = "a2a3/b2b3"
    assert not B2.fences()[cut] & set().union(*(B2.fences()[f] for f in fences))  # HQ-7 does not forbid it
    assert cut not in pos.legal_moves()
    with pytest.raises(IllegalMoveError):
        pos.play(cut)
    # without the fence that makes it the last path, it is legal
    fewer = pos_of(["e2", "a2"], fences=fences[1:], left=[7, 7], num_players=2, radius=2, fpp=9, turn=5, to_move=1)
    assert cut in fewer.legal_moves()


def test_hq8_hq15_team_play_forbids_cutting_any_pawn():
    pos = pos_of(
        ["e2", "d1", "a2", "b4"],
        fences=["a2b3/a3b4"],
        left=[3, 4, 4, 4],
        num_players=4,
        teams="2v2",
        radius=2,
        fpp=4,
        turn=1,
        to_move=1,
    )
    assert "b3b4/c4c5" not in pos.legal_moves()
    fewer = pos_of(["e2", "d1", "a2", "b4"], num_players=4, teams="2v2", radius=2, fpp=4, turn=1, to_move=1)
    assert "b3b4/c4c5" in fewer.legal_moves()


ELIM = dict(fences=["b1c2/c1d1"], num_players=3, radius=2, fpp=6, turn=1)
GOAL_CUT = "d1e1/d2e2"  # closes the lower-left side c1 d1 e1: player_2's goal (it starts upper-right)


def test_hq9_elimination_hands_over_the_fences():
    pos = pos_of(["e2", "b1", "b4"], left=[5, 6, 6], to_move=1, **ELIM)
    after = pos.play(GOAL_CUT)
    assert not after.alive(2) and after.alive(0) and after.alive(1)
    assert after.returns == (0.0, 0.0, -1.0) and not after.is_terminal
    assert "pawns: e2 b1 x\n" in after.to_text()
    assert "fences_left: 5 11 0\n" in after.to_text()  # 6 - 1 + the 6 of player_2
    assert after.to_move == 0
    assert after.play("d2").to_move == 1  # HQ-13: the eliminated seat is skipped in the turn order


def test_hq9_a_fence_may_not_cut_off_the_placer():
    pos = pos_of(["e2", "b1", "b4"], left=[5, 6, 6], to_move=2, **ELIM)
    assert GOAL_CUT not in pos.legal_moves()
    with pytest.raises(IllegalMoveError):
        pos.play(GOAL_CUT)


def test_hq9_with_two_players_left_the_path_rule_applies_to_both():
    pos = pos_of(["x", "b1", "b4"], left=[0, 6, 11], to_move=1, alive=[0, 1, 1], **ELIM)
    assert GOAL_CUT not in pos.legal_moves()


def test_hq9_one_fence_may_eliminate_several_players():
    text = hq(
        ["e2", "d1", "b1", "a2", "x", "d4"],
        fences="a2b2/a3b3 b1c2/b2c3 b3b4/c4c5 c1c2/d1d2 b3c4/c3d3 d3d4/e2e3".split(),
        left=[4, 4, 4, 4, 0, 8],
        num_players=6,
        radius=2,
        fpp=5,
        turn=6,
        alive=[1, 1, 1, 1, 0, 1],
    )
    after = Position.from_text(text).play("c3d2/d3e2")
    assert [after.alive(s) for s in range(6)] == [True, False, True, True, False, False]
    assert "fences_left: 15 0 4 4 0 0\n" in after.to_text()  # 4 - 1 + 4 + 8


def test_hq9_a_fence_may_never_leave_fewer_than_two_players():
    """The same fence with only the placer and the two it would cut left."""
    text = hq(
        ["e2", "d1", "x", "x", "x", "d4"],
        fences="a2b2/a3b3 b1c2/b2c3 b3b4/c4c5 c1c2/d1d2 b3c4/c3d3 d3d4/e2e3".split(),
        left=[4, 4, 0, 0, 0, 16],
        num_players=6,
        radius=2,
        fpp=5,
        turn=6,
        alive=[1, 1, 0, 0, 0, 1],
    )
    pos = Position.from_text(text)
    assert "c3d2/d3e2" not in pos.legal_moves()
    with pytest.raises(IllegalMoveError):
        pos.play("c3d2/d3e2")


def test_hq10_hq11_steps_to_free_neighbours_and_fences_while_any_left():
    pos = boardenvs.position(ENV)
    assert pawn_moves(pos) == {"h3", "h4", "i2", "i4"}
    assert len(pos.legal_moves()) == 4 + len(B4.fences())  # every fence is legal on the empty board


def test_hq10_no_fence_moves_without_fences_left():
    pos = pos_of(["i3", "a3"], left=[0, 0], fpp=0)
    assert pos.legal_moves() and all("/" not in m for m in pos.legal_moves())
    with pytest.raises(IllegalMoveError):
        pos.play(fence_with(B4, block=[((0, 0), (1, 0))]))


A, B = (0, 0), (1, 0)  # e5 and e6: the jumper and the jumped, direction E


def test_hq12_straight_jump():
    pos = pos_of(["e5", "e6"])
    assert pawn_moves(pos) == {"d4", "d5", "e4", "f4", "f5", "e7"}  # five steps and the straight jump


def test_hq12_slight_turn_when_the_straight_landing_is_fenced():
    straight, slight = (2, 0), [(2, -1), (1, 1)]
    f = fence_with(B4, block=[(B, straight)], keep=[(A, B)] + [(B, s) for s in slight])
    pos = pos_of(["e5", "e6"], fences=[f], to_move=0, left=[9, 8], turn=1)
    jumps = pawn_moves(pos) - {name(*B4.nbr(A, d)) for d in range(6)}
    assert jumps == {name(*s) for s in slight}


def test_hq12_slight_turn_when_the_straight_landing_is_off_the_board():
    """The straight landing beyond a pawn on the rim is off the board: the
    one slight-turn landing on the board is the jump; no sharp turn."""
    a, b = (3, -2), (4, -2)  # c6, c7 (c7 on the upper-right rim)
    pos = pos_of([name(*a), "i3", name(*b)], num_players=3, to_move=0)
    steps = {name(*B4.nbr(a, d)) for d in range(6) if B4.on(B4.nbr(a, d))} - {name(*b)}
    assert pawn_moves(pos) - steps == {name(4, -1)}


def test_hq12_slight_turn_when_the_straight_landing_is_occupied_one_pawn_per_jump():
    pos = pos_of(["e5", "e6", "e7"], num_players=3)
    moves = pawn_moves(pos)
    assert "e8" not in moves  # never over two pawns
    assert {name(2, -1), name(1, 1)} <= moves


def test_hq12_sharp_turn_only_when_straight_and_slight_are_closed():
    straight, slights, sharps = (2, 0), [(2, -1), (1, 1)], [(1, -1), (0, 1)]
    # close the straight and both slight landings, and the direct step to the sharp landing (1, -1)
    used = frozenset()
    fences = []
    for e in [(B, straight), (B, slights[0]), (B, slights[1]), (A, sharps[0])]:
        if any(edge(*e) in B4.fences()[g] for g in fences):
            continue
        g = fence_with(B4, block=[e], keep=[(A, B), (B, sharps[0]), (B, sharps[1])], avoid=used)
        fences.append(g)
        used |= B4.fences()[g]
    pos = pos_of(["e5", "e6"], fences=fences, left=[9 - (len(fences) + 1) // 2, 9 - len(fences) // 2], turn=len(fences))
    moves = pawn_moves(pos)
    assert name(*sharps[0]) in moves  # reached only by the sharp-turn jump
    assert not {name(*straight), *(name(*s) for s in slights)} & moves
    assert moves == reference_moves(pos.to_text()) - {m for m in reference_moves(pos.to_text()) if "/" in m}


def test_hq12_no_sharp_turn_while_a_slight_landing_is_open():
    straight, slights, sharp = (2, 0), [(2, -1), (1, 1)], (1, -1)
    used, fences = frozenset(), []
    for e in [(B, straight), (B, slights[0]), (A, sharp)]:
        if any(edge(*e) in B4.fences()[g] for g in fences):
            continue
        g = fence_with(B4, block=[e], keep=[(A, B), (B, sharp), (B, slights[1])], avoid=used)
        fences.append(g)
        used |= B4.fences()[g]
    pos = pos_of(["e5", "e6"], fences=fences, left=[9 - (len(fences) + 1) // 2, 9 - len(fences) // 2], turn=len(fences))
    moves = pawn_moves(pos)
    assert name(*slights[1]) in moves and name(*sharp) not in moves


def test_hq12_a_fenced_pawn_cannot_be_jumped():
    f = fence_with(B4, block=[(A, B)])
    pos = pos_of(["e5", "e6"], fences=[f], left=[9, 8], turn=1)
    assert "e7" not in pawn_moves(pos) and "e6" not in pawn_moves(pos)


PASS_TEXT = hq(
    ["x", "d2", "e1", "d1", "a1", "d4"],
    fences="a1a2/b2b3 b1c1/b2c2 b2b3/c2c3 b3c3/b4c4 c2d1/c3d2 c3c4/d2d3 c4d3/c5d4 d2e1/d3e2 d3d4/e2e3".split(),
    left=[0, 4, 3, 3, 7, 4],
    num_players=6,
    radius=2,
    fpp=5,
    turn=70,
    alive=[0, 1, 1, 1, 1, 1],
    to_move=5,
)


def test_hq13_a_player_without_a_legal_move_is_asked_and_passes():
    pos = Position.from_text(PASS_TEXT)
    after = pos.play("c5")
    # player_1 (d2, 4 fences left) has no step, no jump and no legal fence: it is asked all the same
    # (every seat in the game is asked once a turn), with one legal action, pass; the model agrees
    assert after.to_move == 1 and after.turn == pos.turn + 1 and not after.is_terminal
    assert after.legal_moves() == ["pass"] and reference_moves(after.to_text()) == {"pass"}
    assert after.legal_actions() == [after.game.pass_action] == [after.game.num_actions - 1]
    assert (
        after.move_to_action("pass") == after.game.pass_action
        and after.action_to_move(after.game.pass_action) == "pass"
    )
    passed = after.play("pass")  # a turn of its own: nothing on the board changes
    assert passed.to_move == 2 and passed.turn == after.turn + 1
    assert passed.to_text().split("\npawns:")[1] == after.to_text().split("\npawns:")[1]
    # pass is no move while a seat has one (C-6: refused, nothing changes)
    with pytest.raises(IllegalMoveError):
        pos.play("pass")
    assert pos.to_move == 5 and "pass" not in pos.legal_moves()


def test_hq13_pass_is_never_legal_with_two_players():
    """HQ-13: with two players a forced pass cannot happen (each pawn keeps a
    path, HQ-8, so it can step or jump): 2-player games are the games of
    hex_quoridor_v0, and the committed 2-player model plays them as before."""
    for seed in range(40):
        pos = boardenvs.position(ENV, radius=2 if seed % 2 else 4, fences_per_player=20 if seed % 2 else -1)
        rng = np.random.default_rng(seed)
        while not (pos.is_terminal or pos.is_truncated):
            mask = pos.action_mask()
            assert mask[pos.game.pass_action] == 0 and mask.sum() >= 1
            pos = pos.play(int(rng.choice(np.flatnonzero(mask))))


# --- the end (HQ-14..HQ-16) --------------------------------------------------------------


def test_hq14_first_pawn_on_its_goal_side_wins():
    pos = pos_of(["b3", "h3"])
    after = pos.play("a3")
    assert after.is_terminal and after.returns == (1.0, -1.0) and after.end_reason == "goal"
    assert after.to_move == 1  # the winner is never to move


@pytest.mark.parametrize(
    "teams, n, mover, won",
    [("2v2", 4, 1, (1, 1, -1, -1)), ("3x2", 6, 3, (-1, -1, 1, 1, -1, -1)), ("2x3", 6, 1, (1, 1, 1, -1, -1, -1))],
)
def test_hq15_team_win(teams, n, mover, won):
    game = boardenvs.make_game(ENV, num_players=n, teams=teams)
    start = boardenvs.position(ENV, num_players=n, teams=teams, first_player=mover)
    side = game.sides[mover]
    goal = (side + 3) % 6
    # put the mover one step from its goal side, on a free cell
    target = next(
        c for c in B4.cells if B4.on_side(c, goal) and not any(B4.on_side(c, k) for k in range(6) if k != goal)
    )
    frm = next(
        B4.nbr(target, d) for d in range(6) if B4.on(B4.nbr(target, d)) and not B4.on_side(B4.nbr(target, d), goal)
    )
    pawns = start.to_text().split("pawns: ")[1].split("\n")[0].split()
    pawns[mover] = name(*frm)
    pos = pos_of(pawns, num_players=n, teams=teams, to_move=mover)
    after = pos.play(name(*target))
    assert after.returns == tuple(float(w) for w in won) and after.end_reason == "goal"


def test_hq16_max_turns_truncates():
    pos = boardenvs.position(ENV, max_turns=2, first_player=0)
    pos = pos.play("h3").play("b3")
    assert pos.is_truncated and pos.returns == (0.0, 0.0) and pos.end_reason == "max_turns"


# --- egocentric actions and C-6 -----------------------------------------------------------


def test_actions_are_in_the_movers_frame():
    """player_1 starts at the top: its board is turned half a turn, so the
    frame cell h3 (up-left of the frame's start i3) is b4 on the board."""
    pos = boardenvs.position(ENV, first_player=1)
    frame_h3 = pos.game.board.cell("h3")
    assert pos.action_to_move(frame_h3) == "b4" and frame_h3 in pos.legal_actions()
    assert pos.move_to_action("b4") == frame_h3
    # the same fence, seen by both seats: half a turn apart
    f = fence_with(B4, block=[((0, 0), (1, 0))])
    a1 = pos.move_to_action(f)
    a0 = boardenvs.position(ENV, first_player=0).move_to_action(f)
    assert a0 != a1 and pos.play(f) == boardenvs.position(ENV, first_player=1).play(a1)


def test_malformed_moves_are_notation_errors():
    pos = boardenvs.position(ENV)
    for bad in ("z9", "e5e6", "e5e6/e7", "e5-e6", "", "a1a2/b1b3"):
        with pytest.raises(NotationError):
            pos.play(bad)
    with pytest.raises(IllegalMoveError):
        pos.play("e5")  # a cell, but not a legal destination


# --- the fast fence check against brute force -----------------------------------------------

VARIANTS = [
    dict(num_players=2),
    dict(num_players=2, radius=2, fences_per_player=20),
    dict(num_players=3, radius=2, fences_per_player=10),
    dict(num_players=4, teams="2v2", radius=2, fences_per_player=8),
    dict(num_players=6, radius=2, fences_per_player=5),
    dict(num_players=6, teams="3x2", radius=2, fences_per_player=4),
    dict(num_players=4),
]


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()))
def test_fast_fence_legality_equals_brute_force_on_random_positions(variant):
    """HQ-7/8/9/12/15: the kernels' legal moves (shortest-path pruning) equal
    the reference model's brute force on every position of random games that
    place fences often (eliminations and cut-offs come up)."""
    rng = np.random.default_rng(sum(map(ord, str(variant))))
    checked = 0
    target = 300 if variant.get("radius") == 2 else 40  # the model is slow on 264 fences
    for g in range(12):
        pos = boardenvs.position(ENV, **variant, first_player=g % variant["num_players"])
        while not pos.is_terminal and checked < target * (g + 1) // 12 + target // 12:
            acts = pos.legal_actions()
            assert set(pos.legal_moves()) == reference_moves(pos.to_text()), pos.to_text()
            checked += 1
            fences = [a for a in acts if a >= pos.game.num_cells]
            pos = pos.play(int(rng.choice(fences)) if fences and rng.random() < 0.6 else int(rng.choice(acts)))
    assert checked >= target


# --- the bit-parallel fence check (boards of at most 63 cells) -----------------------------------

BIT_VARIANTS = [
    dict(num_players=2, fences_per_player=14),
    dict(num_players=3, fences_per_player=10),
    dict(num_players=4, fences_per_player=8),
    dict(num_players=6, fences_per_player=5),
    dict(num_players=4, teams="2v2", fences_per_player=8),
    dict(num_players=6, teams="3x2", fences_per_player=5),
    dict(num_players=6, teams="2x3", fences_per_player=5),
    dict(num_players=2, radius=2, fences_per_player=12),
    dict(num_players=3, radius=2, fences_per_player=8),
    dict(num_players=4, radius=2, fences_per_player=6),
    dict(num_players=6, radius=2, fences_per_player=4),
    dict(num_players=4, teams="2v2", radius=2, fences_per_player=6),
    dict(num_players=6, teams="3x2", radius=2, fences_per_player=4),
    dict(num_players=6, teams="2x3", radius=2, fences_per_player=4),
]


def _fence_heavy_positions(variant, count, seed):
    """Positions of random games that place a fence whenever they may with
    probability 0.85 (walls, pockets, cut-offs and eliminations come up)."""
    rng = np.random.default_rng(seed)
    n = variant["num_players"]
    g = 0
    while True:
        pos = boardenvs.position(ENV, **variant, first_player=g % n)
        g += 1
        while not pos.is_terminal:
            yield pos
            count -= 1
            if count == 0:
                return
            acts = pos.legal_actions()
            fences = [a for a in acts if a >= pos.game.num_cells]
            pos = pos.play(int(rng.choice(fences)) if fences and rng.random() < 0.85 else int(rng.choice(acts)))


def _free_fences(game, state):
    """HQ-7 alone: fences none of whose edges is blocked."""
    slots = game.geo.fence_slots[:, ::2]
    return int((state[game.blk_offset + slots].sum(1) == 0).sum())


@pytest.mark.parametrize("variant", BIT_VARIANTS, ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()))
def test_hq8_bit_parallel_fence_check_equals_brute_force(variant):
    """HQ-7/8/9/15: on boards of radius 2 and 4 the kernels decide fences
    with the bit-parallel check (``rules._fences_bits``: only fences that
    close a loop of walls are tried, by flooding one-word cell sets); its
    legal moves equal the reference model's brute force (every pawn searched
    after every fence) on positions of fence-heavy random games, for every
    player count, with and without teams, and the path rule does refuse
    fences there (so the tries are exercised)."""
    small = variant.get("radius") == 2
    count = 150 if small else 30
    refused = 0
    for pos in _fence_heavy_positions(variant, count, sum(map(ord, str(variant)))):
        assert set(pos.legal_moves()) == reference_moves(pos.to_text()), pos.to_text()
        state = pos.state
        seat = int(state[E.H_CURRENT])
        if state[HR.Q_LEFT + seat] > 0:
            legal_fences = sum(1 for a in pos.legal_actions() if a >= pos.game.num_cells)
            refused += legal_fences < _free_fences(pos.game, state)
    assert refused > 0


@pytest.mark.parametrize("variant", BIT_VARIANTS, ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()))
def test_hq8_bit_parallel_fence_check_equals_the_distance_check(variant):
    """HQ-7/8/9/15: the bit-parallel check (radius 2 and 4) and the check by
    goal distances and searches (``rules._fences``, which larger boards use)
    give the same fences for every seat, to move or not, on thousands of
    positions of a batch of random games."""
    vec = boardenvs.make_vec(ENV, num_envs=64, num_threads=1, **variant)
    game, params = vec.game, vec.game.params
    vec.reset(seed=3)
    a = np.zeros(game.num_actions, np.int8)
    b = np.zeros(game.num_actions, np.int8)
    checked = 0
    for _ in range(60):
        vec.step(vec.random_actions())
        for state in np.array(vec.states):
            for seat in range(game.num_players):
                if E.is_alive(state, seat):
                    na = HR._fences_bits(state, params, seat, a, True)
                    nb = HR._fences(state, params, seat, b, True)
                    assert na == nb and np.array_equal(a[game.num_cells :], b[game.num_cells :]), Position(
                        game, state
                    ).to_text()
                    assert (HR._fences_bits(state, params, seat, a, False) > 0) == (nb > 0)
                    checked += 1
    assert checked >= 60 * 64 * 2


def test_pawns_further_from_their_starts_than_the_turns_allow_are_refused():
    """HQ-V1: a turn moves one pawn at most two cells or places one fence, so
    at turn 0 every pawn stands on its start (HQ-3); a position whose pawns
    and fences need more turns than its counter shows is refused as a text,
    a JSON document and a row, naming HQ-V1."""
    start = boardenvs.position("hex_quoridor_v1", first_player=0)
    pawn_moves = [m for m in start.legal_moves() if "/" not in m]
    pos = start.play(pawn_moves[0])  # turn 1: one pawn one cell from its start
    assert Position.from_text(pos.to_text()) == pos
    state = pos.state
    state[E.H_TURN] = 0
    with pytest.raises(ValueError, match=r"HQ-V1"):
        Position(pos.game, state)
    bad = Position._own(pos.game, state)
    with pytest.raises(NotationError, match=r"at least 1 turns, but this is turn 0 \(HQ-V1\)"):
        Position.from_text(bad.to_text())
    with pytest.raises(NotationError, match=r"HQ-V1"):
        Position.from_json(bad.to_json())
    # asked for explicitly, a set-up position is read (every other check still made)
    assert Position.from_text(bad.to_text(), setup=True) == Position.from_json(bad.to_json(), setup=True)
    assert Position(pos.game, state, setup=True).turn == 0
    with pytest.raises(ValueError, match="setup must be True or False"):
        Position.from_text(bad.to_text(), setup="yes")
    for _ in range(3):  # and along a game: every position played is read back
        pos = pos.play(pos.legal_moves()[-1])
        assert Position.from_text(pos.to_text()) == pos
