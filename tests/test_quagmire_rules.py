"""Quagmire rules, one group of tests per rule of boardenvs/rules/quagmire.md (QM-1..QM-9).

Hand-built positions are drawn as hex pictures: one line per row (row ``a``
at the top), cells separated by spaces: ``.`` empty, ``~`` water, ``x``
player_0, ``o`` player_1.  They go through the position text form and
``Position.from_text``.  The last test plays random games against an
independent model of the rules written here from the rules text alone.
"""

from __future__ import annotations

import numpy as np
import pytest
from position_text import header

import boardenvs
from boardenvs import engine as E
from boardenvs.errors import IllegalMoveError, NotationError
from boardenvs.position import Position

EMPTY_R3 = """
    . . . .
   . . . . .
  . . . . . .
 . . . . . . .
  . . . . . .
   . . . . .
    . . . .
"""


def picture(board: str, **marks) -> str:
    """``EMPTY_R3``-style picture with cells replaced, e.g. ``d4="x"``."""
    rows = [line.split() for line in board.strip("\n").splitlines()]
    for name, char in marks.items():
        rows[ord(name[0]) - ord("a")][int(name[1:]) - 1] = char
    return "\n".join(" ".join(r) for r in rows)


def qtext(board: str, to_move=0, radius=3, turn=None, status="playing", reason="-", returns="0 0") -> str:
    """The text of a hand-built position; ``turn`` defaults to one the board
    is consistent with (each move after the setup floods one or two cells)."""
    rows = [line.split() for line in board.strip("\n").splitlines()]
    if turn is None:
        cells = [c for r in rows for c in r]
        placed = sum(c in "xo" for c in cells)
        turn = placed if placed < 4 else 4 + cells.count("~")
    lines = header(
        "quagmire_v0", f"radius={radius} max_turns=1000", f"player_{to_move}", turn, status, reason, returns=returns
    )
    lines.append("board:")
    lines += [chr(ord("a") + k) + " " + " ".join(r) for k, r in enumerate(rows)]
    return "\n".join(lines) + "\n"


def qpos(board: str = EMPTY_R3, to_move=0, setup=False, **marks) -> Position:
    """A hand-built position; ``setup``: a set-up one (a rules test's board
    that play need not reach, QM-V1 and QM-V2 aside)."""
    return Position.from_text(qtext(picture(board, **marks), to_move=to_move), setup=setup)


def cell(pos: Position, name: str) -> str:
    """The character on cell ``name`` in the position's text."""
    game = pos.game
    return ".~xo"[int(game.cells(pos.state)[game.board.cell(name)])]


def moves_from(pos: Position, start: str) -> set[str]:
    return {m for m in pos.legal_moves() if m.startswith(start + "-") or m.startswith(start + "^")}


def setup(first_player=0, radius=3, cells=("d4", "d5", "a1", "g4")) -> Position:
    pos = boardenvs.position("quagmire_v0", first_player=first_player, radius=radius)
    for c in cells:
        pos = pos.play("@" + c)
    return pos


# --- QM-1 board ------------------------------------------------------------------


def test_qm1_default_board_is_radius_3_with_37_cells():
    pos = boardenvs.position("quagmire_v0")
    game = pos.game
    assert game.options["radius"] == 3 and game.num_cells == 37
    assert game.num_actions == 37 + 84
    assert game.obs_shape == (7, 7, 5)
    assert len(pos.legal_moves()) == 37
    assert [m[1:] for m in pos.legal_moves()][:4] == ["a1", "a2", "a3", "a4"]
    assert pos.legal_moves()[18] == "@d4" and pos.legal_moves()[-1] == "@g4"


@pytest.mark.parametrize("radius, cells", [(2, 19), (4, 61), (6, 127)])
def test_qm1_radius_option(radius, cells):
    pos = boardenvs.position("quagmire_v0", radius=radius)
    assert pos.game.num_cells == cells
    assert len(pos.legal_moves()) == cells
    assert pos.game.obs_shape == (2 * radius + 1, 2 * radius + 1, 5)
    last_row = chr(ord("a") + 2 * radius)
    assert f"@{last_row}{radius + 1}" in pos.legal_moves()


@pytest.mark.parametrize("bad", [1, 0, -3, 13, 2.5, "3", True, None])
def test_qm1_radius_must_be_at_least_2(bad):
    with pytest.raises(ValueError, match="radius"):
        boardenvs.position("quagmire_v0", radius=bad)


# --- QM-2 setup ---------------------------------------------------------------------


@pytest.mark.parametrize("first", [0, 1])
def test_qm2_four_placements_in_the_stated_seat_order(first):
    pos = boardenvs.position("quagmire_v0", first_player=first)
    other = 1 - first
    order = []
    for c in ("d4", "d5", "a1", "g4"):
        assert all(m.startswith("@") for m in pos.legal_moves())
        order.append(pos.to_move)
        pos = pos.play("@" + c)
    # first, other, other, first -- then the first player makes the first move
    assert order == [first, other, other, first]
    assert pos.to_move == first
    assert not any(m.startswith("@") for m in pos.legal_moves())
    mine = "x" if first == 0 else "o"
    assert cell(pos, "d4") == mine and cell(pos, "g4") == mine
    assert cell(pos, "d5") != mine and cell(pos, "a1") != mine
    assert pos.turn == 4


def test_qm2_first_player_defaults_to_seat_0_and_env_respects_it():
    env = boardenvs.make("quagmire_v0")
    seats = set()
    for seed in range(6):
        env.reset(seed=seed)
        seats.add(env.agent_selection)
    assert seats == {"player_0"}
    env = boardenvs.make("quagmire_v0", first_player="random")
    seats = set()
    for seed in range(12):
        env.reset(seed=seed)
        seats.add(env.agent_selection)
    assert seats == {"player_0", "player_1"}


def test_qm2_placement_only_on_empty_cells():
    pos = boardenvs.position("quagmire_v0").play("@d4")
    assert "@d4" not in pos.legal_moves() and len(pos.legal_moves()) == 36
    with pytest.raises(IllegalMoveError):
        pos.play("@d4")
    # moves are not available during the setup, placements not after it
    with pytest.raises(IllegalMoveError):
        pos.play("d4-d5")
    done = setup()
    with pytest.raises(IllegalMoveError):
        done.play("@c3")


def test_qm2_setup_order_is_checked_in_position_text():
    # one placement made (by x): o must place next, not x
    with pytest.raises(NotationError, match="QM-2"):
        qpos(to_move=0, d4="x")
    assert qpos(to_move=1, d4="x").to_move == 1
    # three placements: the seat with one piece places
    with pytest.raises(NotationError, match="QM-2"):
        qpos(to_move=1, d4="x", d5="o", a1="o")
    assert qpos(to_move=0, d4="x", d5="o", a1="o").legal_moves()[0] == "@a2"
    with pytest.raises(NotationError, match="two pieces"):
        qpos(to_move=1, d4="x", d5="x", a1="x")


# --- QM-3 no water at the start -----------------------------------------------------


def test_qm3_no_water_at_the_start_nor_during_setup():
    pos = boardenvs.position("quagmire_v0")
    for c in ("d4", "d5", "a1", "g4"):
        assert "~" not in pos.to_text()
        assert pos.observation(0)[..., 1].sum() == 0
        pos = pos.play("@" + c)
    assert "~" not in pos.to_text()
    with pytest.raises(NotationError, match="QM-3"):
        qpos(to_move=1, d4="x", c3="~")


# --- QM-4 walk ------------------------------------------------------------------------


def test_qm4_walk_to_the_six_neighbours():
    pos = qpos(d4="x", a1="x", g1="o", g4="o")
    walks = {m for m in moves_from(pos, "d4") if m.count("-") == 1}
    assert walks == {"d4-d5", "d4-c4", "d4-c3", "d4-d3", "d4-e3", "d4-e4"}


def test_qm4_no_walk_onto_water_a_piece_or_off_the_board():
    pos = qpos(d4="x", d5="o", c4="x", c3="~", a1="o")
    walks = {m for m in moves_from(pos, "d4") if m.count("-") == 1}
    assert walks == {"d4-d3", "d4-e3", "d4-e4"}
    for bad in ("d4-d5", "d4-c4", "d4-c3"):
        with pytest.raises(IllegalMoveError):
            pos.play(bad)
    # a corner has three neighbours on the board
    corner = qpos(a1="x", g4="x", d4="o", d5="o")
    assert {m for m in moves_from(corner, "a1") if m.count("-") == 1} == {"a1-a2", "a1-b1", "a1-b2"}
    # a path of the wrong shape is malformed wherever the pieces stand (C-6)
    with pytest.raises(NotationError, match="neighbouring"):
        pos.play("d4-d6")


# --- QM-5 run ----------------------------------------------------------------------------


def test_qm5_run_around_a_piece():
    """d5 holds a piece: a run can go round it, d4-c4-c5, never through it."""
    pos = qpos(d4="x", d5="o", a1="x", g4="o")
    runs = {m for m in moves_from(pos, "d4") if m.count("-") == 2}
    assert "d4-c4-c5" in runs and "d4-e4-e5" in runs
    assert not any(m.split("-")[1] == "d5" for m in runs)
    after = pos.play("d4-c4-c5")
    assert cell(after, "c5") == "x" and cell(after, "d4") == "~" and cell(after, "c4") == "~"
    assert cell(after, "d5") == "o"


def test_qm5_different_middle_cells_are_different_moves():
    pos = qpos(d4="x", a1="x", g1="o", g4="o")
    # c4 and d5 are both next to d4 and to c5
    moves = pos.legal_moves()
    assert "d4-c4-c5" in moves and "d4-d5-c5" in moves
    a, b = pos.move_to_action("d4-c4-c5"), pos.move_to_action("d4-d5-c5")
    assert a != b
    via_c4, via_d5 = pos.play(a), pos.play(b)
    assert cell(via_c4, "c4") == "~" and cell(via_c4, "d5") == "."
    assert cell(via_d5, "d5") == "~" and cell(via_d5, "c4") == "."


def test_qm5_a_run_never_backtracks():
    pos = qpos(d4="x", a1="x", g1="o", g4="o")
    runs = [m for m in pos.legal_moves() if m.count("-") == 2]
    assert all(m.split("-")[0] != m.split("-")[2] for m in runs)
    # a path of the wrong shape is malformed wherever the pieces stand (C-6)
    with pytest.raises(NotationError, match="turn back"):
        pos.play("d4-d5-d4")
    # from the centre: 6 first steps x 5 second steps, all open
    assert len([m for m in runs if m.startswith("d4-")]) == 30


def test_qm5_each_step_of_a_run_must_be_a_legal_walk():
    # middle on water, end on water, end on a piece, end off the board
    pos = qpos(d4="x", d5="~", c4=".", c5="~", b4="o", a1="x", g4="o")
    runs = {m for m in moves_from(pos, "d4") if m.count("-") == 2}
    assert not any(m.startswith("d4-d5-") for m in runs)  # B is water
    assert "d4-c4-c5" not in runs  # C is water
    assert "d4-c4-b4" not in runs  # C holds a piece
    assert "d4-c4-b3" in runs
    edge = qpos(a2="x", g1="x", d4="o", g4="o")
    assert {m for m in moves_from(edge, "a2") if m.startswith("a2-a1-")} == {"a2-a1-b1", "a2-a1-b2"}


def test_qm5_qm7_a_run_floods_both_the_start_and_the_middle():
    pos = qpos(d4="x", a1="x", g1="o", g4="o")
    after = pos.play("d4-e4-f4")
    assert [cell(after, c) for c in ("d4", "e4", "f4")] == ["~", "~", "x"]
    assert after.to_text().count("~") == 2


# --- QM-6 jump ---------------------------------------------------------------------------


def test_qm6_jump_over_an_empty_cell_does_not_flood_it():
    pos = qpos(d4="x", a1="x", g1="o", g4="o")
    after = pos.play("d4^d6")
    assert cell(after, "d6") == "x" and cell(after, "d5") == "." and cell(after, "d4") == "~"
    assert after.to_text().count("~") == 1


def test_qm6_jump_over_water():
    pos = qpos(d4="x", d5="~", a1="x", g1="o", g4="o", setup=True)  # (player_0 made no move: QM-V2)
    assert "d4^d6" in pos.legal_moves() and "d4-d5" not in pos.legal_moves()
    after = pos.play("d4^d6")
    assert cell(after, "d5") == "~" and cell(after, "d6") == "x"


@pytest.mark.parametrize("blocker", ["o", "x"])
def test_qm6_jump_blocked_by_a_piece(blocker):
    other = "x" if blocker == "o" else "o"
    pos = qpos(d4="x", d5=blocker, a1=other, g4="o")
    assert "d4^d6" not in pos.legal_moves()
    with pytest.raises(IllegalMoveError):
        pos.play("d4^d6")


def test_qm6_landing_must_be_on_the_board_empty_and_in_line():
    pos = qpos(d4="x", d6="~", b2="o", a1="x", g4="o", setup=True)  # (as above)
    jumps = {m for m in moves_from(pos, "d4") if "^" in m}
    assert jumps == {"d4^b4", "d4^d2", "d4^f2", "d4^f4"}  # d6 water, b2 a piece
    corner = qpos(a1="x", g4="x", d4="o", g1="o")
    assert {m for m in moves_from(corner, "a1") if "^" in m} == {"a1^a3", "a1^c1", "a1^c3"}
    # a path of the wrong shape is malformed wherever the pieces stand (C-6)
    with pytest.raises(NotationError, match="straight line"):
        pos.play("d4^c5")


# --- QM-7 flood -----------------------------------------------------------------------------


def test_qm7_the_cell_left_floods_on_every_kind_of_move_and_stays_water():
    pos = qpos(d4="x", a1="x", g1="o", g4="o")
    for move, left in (("d4-d5", "d4"), ("g1-f1", "g1"), ("d5^d7", "d5"), ("f1-e1-e2", "f1")):
        pos = pos.play(move)
        assert cell(pos, left) == "~"
    # water is permanent: no move of either side ever enters it
    water = {c for c in pos.game.board.names if cell(pos, c) == "~"}
    assert water == {"d4", "g1", "d5", "f1", "e1"}
    for m in pos.legal_moves():
        assert m.replace("^", "-").split("-")[-1] not in water


# --- QM-8 no legal move loses ----------------------------------------------------------------


# water boxing in the corners a1 and g4: their three neighbours and the three
# landings beyond them
BOX_A1 = dict(a2="~", b1="~", b2="~", a3="~", c1="~", c3="~")
BOX_G4 = dict(f5="~", f4="~", g3="~", e6="~", e4="~", g2="~")


def test_qm8_player_trapped_at_the_start_of_its_turn_loses():
    """o on g4 is boxed in; o on a1 still has b1, until x walks c2-b1 (a
    jump over a piece is not allowed, so that closes the box)."""
    pos = qpos(**{**BOX_A1, "b1": "."}, **BOX_G4, a1="o", g4="o", c2="x", d4="x")
    assert not pos.is_terminal and pos.to_move == 0
    assert "a1-b1" in pos.play("d4-d5").legal_moves()
    after = pos.play("c2-b1")
    assert after.is_terminal and not after.is_truncated
    assert after.returns == (1.0, -1.0)
    assert after.end_reason == "no_legal_move"
    assert after.legal_moves() == []
    assert after.to_move == 1  # the trapped player, at the start of its turn


def test_qm8_a_jump_over_water_is_a_way_out():
    pos = qpos(to_move=1, a2="~", b1="~", b2="~", a1="o", g4="o", d4="x", d5="x")
    assert moves_from(pos, "a1") == {"a1^a3", "a1^c1", "a1^c3"}


def test_qm8_the_mover_may_trap_itself_and_loses_at_its_next_turn():
    """x walks d6-d7 into a dead end (its other piece is boxed on a1): o
    still has moves, so the game goes on until x's turn comes."""
    pos = qpos(**BOX_A1, a1="x", d6="x", c6="~", e6="~", b5="~", d5="~", f5="~", g4="o", g1="o")
    assert "d6-d7" in pos.legal_moves()
    after = pos.play("d6-d7")
    assert not after.is_terminal and after.to_move == 1
    assert moves_from(after, "d7") == set()
    final = after.play(after.legal_moves()[0])
    assert final.is_terminal and final.returns == (-1.0, 1.0) and final.end_reason == "no_legal_move"


def test_qm8_trapped_text_position_is_rejected_as_already_over():
    board = picture(EMPTY_R3, **BOX_A1, **BOX_G4, a1="o", g4="o", d4="x", d5="x")
    with pytest.raises(NotationError, match="QM-8"):
        Position.from_text(qtext(board, to_move=1))
    over = Position.from_text(qtext(board, to_move=1, status="terminated", reason="no_legal_move", returns="1 -1"))
    assert over.is_terminal and over.returns == (1.0, -1.0)
    assert Position.from_text(qtext(board, to_move=0)).legal_moves()  # x to move: fine


def test_qm8_no_pass_action_exists():
    pos = setup()
    assert pos.game.num_actions == pos.game.num_cells + 2 * 42
    moves = pos.legal_moves()
    assert all("-" in m or "^" in m for m in moves)
    with pytest.raises(NotationError):
        pos.play("pass")


def test_qm8_every_game_ends_within_the_cells_left_after_setup():
    rng = np.random.default_rng(5)
    for radius in (2, 3):
        for _ in range(30):
            pos = setup(radius=radius, cells=())
            while not pos.is_terminal:
                pos = pos.play(int(rng.choice(pos.legal_actions())))
            assert pos.turn <= pos.game.num_cells  # 4 placements + at most C - 4 moves
            assert not pos.is_truncated


# --- QM-9 rewards ------------------------------------------------------------------------------


def test_qm9_rewards_win_loss_never_a_draw():
    rng = np.random.default_rng(9)
    outcomes = set()
    for seed in range(40):
        env = boardenvs.make("quagmire_v0")
        env.reset(seed=seed)
        totals = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if term or trunc:
                assert term and not trunc
                assert info["end_reason"] == "no_legal_move"
                env.step(None)
                continue
            assert reward == 0.0  # C-3: zero until the end
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        outcomes.add((totals["player_0"], totals["player_1"]))
    assert outcomes == {(1.0, -1.0), (-1.0, 1.0)}


def test_qm9_loser_is_the_trapped_player():
    rng = np.random.default_rng(11)
    for _ in range(20):
        pos = setup(cells=())
        while not pos.is_terminal:
            before = pos
            pos = pos.play(int(rng.choice(pos.legal_actions())))
        loser = 1 - before.to_move
        assert pos.returns[loser] == -1.0 and pos.returns[1 - loser] == 1.0
        assert pos.to_move == loser


# --- notation ---------------------------------------------------------------------------------


def test_notation_all_four_forms_round_trip():
    pos = qpos(d4="x", a1="x", g1="o", g4="o")
    for move in ("d4-d5", "d4-c4-c5", "d4^d6", "a1-a2", "a1^c3"):
        action = pos.move_to_action(move)
        assert pos.action_to_move(action) == move
    fresh = boardenvs.position("quagmire_v0")
    assert fresh.action_to_move(fresh.move_to_action("@d4")) == "@d4"
    rng = np.random.default_rng(2)
    pos = setup(cells=())
    while not pos.is_terminal:
        for a in pos.legal_actions():
            assert pos.move_to_action(pos.action_to_move(a)) == a
        pos = pos.play(int(rng.choice(pos.legal_actions())))


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "d4",
        "@",
        "@z9",
        "@d8",
        "d4-",
        "d4--d5",
        "d4-d5-e5-f5",
        "d4^",
        "d4^d6^d8",
        "d4 d5",
        "d4_d5",
        "x",
        "@d4-d5",
        "d4-h1",
        18,
        None,
    ],
)
def test_notation_malformed_raises_notation_error(bad):
    pos = setup()
    with pytest.raises(NotationError):
        pos.play(bad) if not isinstance(bad, int) else pos.game.move_to_action(pos.state, bad)


def test_notation_not_the_movers_piece():
    pos = setup()  # x on d4 and g4, o on d5 and a1, x to move
    with pytest.raises(IllegalMoveError, match="no piece"):
        pos.play("d5-d6")
    with pytest.raises(IllegalMoveError, match="no piece"):
        pos.play("c3-c4")


def test_action_encoding_matches_the_card():
    """The documented layout: C + 42 p + 7 d + k (k 0 walk, 1..5 runs, 6 jump)."""
    pos = qpos(d4="x", a1="x", g1="o", g4="o")  # x's piece 0 is a1 (lower index), piece 1 d4
    C = 37
    assert pos.move_to_action("a1-a2") == C + 0 * 42 + 7 * 0 + 0
    assert pos.move_to_action("d4-d5") == C + 42 + 0
    assert pos.move_to_action("d4-d5-d6") == C + 42 + 1  # straight on
    assert pos.move_to_action("d4-d5-c5") == C + 42 + 2  # 60 degrees left (E then NE)
    assert pos.move_to_action("d4-d5-c4") == C + 42 + 3  # 120 left (E then NW)
    assert pos.move_to_action("d4-d5-e4") == C + 42 + 4  # 120 right (E then SW)
    assert pos.move_to_action("d4-d5-e5") == C + 42 + 5  # 60 right (E then SE)
    assert pos.move_to_action("d4^d6") == C + 42 + 6
    assert pos.move_to_action("d4-e4") == C + 42 + 7 * 5  # SE
    assert pos.move_to_action("@a1") == 0 and pos.move_to_action("@g4") == 36


# --- observation --------------------------------------------------------------------------------


def test_observation_planes_from_each_seat():
    pos = qpos(d4="x", a1="x", g1="o", g4="o", c3="~", setup=True)  # (as above)
    R = 3

    def at(name):
        q, r = pos.game.board.coords[pos.game.board.cell(name)]
        return r + R, q + R

    for seat, own, opp in ((0, ("d4", "a1"), ("g1", "g4")), (1, ("g1", "g4"), ("d4", "a1"))):
        obs = pos.observation(seat)
        assert obs.shape == (7, 7, 5) and obs.dtype == np.int8
        assert obs[..., 0].sum() == 37 and obs[0, 0, 0] == 0 and obs[6, 6, 0] == 0
        assert obs[..., 1].sum() == 1 and obs[at("c3") + (1,)] == 1
        assert {tuple(x) for x in np.argwhere(obs[..., 2])} == {at(c) for c in own}
        assert {tuple(x) for x in np.argwhere(obs[..., 3])} == {at(c) for c in opp}
        assert obs[..., 4].sum() == 0
    during_setup = boardenvs.position("quagmire_v0").play("@d4")
    obs = during_setup.observation(1)
    assert (obs[..., 4] == obs[..., 0]).all() and obs[..., 4].sum() == 37
    assert obs[at("d4") + (3,)] == 1 and obs[..., 2].sum() == 0


# --- the text form and the render ------------------------------------------------------------


def test_text_round_trip_and_rejections():
    pos = setup().play("d4-c4-c5").play("d5^d7")
    again = Position.from_text(pos.to_text())
    assert again == pos and again.legal_moves() == pos.legal_moves()
    assert again.to_move == pos.to_move
    text = pos.to_text()
    lines = text.splitlines()
    d, g = lines.index(next(x for x in lines if x.startswith("d "))), len(lines) - 1

    def edited(k, line):
        return "\n".join(lines[:k] + [line] + lines[k + 1 :]) + "\n"

    for bad, why in (
        (text.replace("board:", "bored:"), "board"),
        (edited(d, lines[d] + " ."), "row d"),
        (edited(g, lines[g][:-1] + "q"), "row g"),
        (edited(g, lines[g].replace("g", "h", 1)), "row g"),
        (text + "extra\n", "board"),
    ):
        with pytest.raises(NotationError, match=why):
            Position.from_text(bad)
    to_move = next(k for k, x in enumerate(lines) if x.startswith("to_move:"))
    with pytest.raises(NotationError, match="chance"):
        Position.from_text(edited(to_move, "to_move: chance"))


def test_render_ansi_shows_the_board_and_last_move():
    pos = setup().play("d4-c4-c5")
    text = str(pos)
    assert "d . . . ~ o . ." in text
    assert "last move d4-c4-c5" in text and "player_1 (o) to move" in text


def test_max_turns_truncates():
    pos = boardenvs.position("quagmire_v0", max_turns=6)
    rng = np.random.default_rng(0)
    while not pos.is_terminal:
        pos = pos.play(int(rng.choice(pos.legal_actions())))
    assert pos.is_truncated and pos.turn == 6 and pos.returns == (0.0, 0.0)
    assert pos.state[E.H_STATUS] == E.TRUNCATED


# --- an independent model of the rules ------------------------------------------------------------

# axial directions of C-5 and cell names, rebuilt here from the rules text
DIRS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]


def model_cells(R):
    return {(q, r) for r in range(-R, R + 1) for q in range(-R, R + 1) if abs(q + r) <= R}


def model_name(q, r, R):
    return chr(ord("a") + r + R) + str(q - max(-R, -r - R) + 1)


def model_moves(board: dict, mover: int, R: int) -> set[str]:
    """QM-2, QM-4..QM-6 straight from the rules: ``board`` maps (q, r) to
    '.', '~', 'x', 'o'."""
    pieces = [c for c, v in board.items() if v in "xo"]
    if len(pieces) < 4:
        return {"@" + model_name(*c, R) for c, v in board.items() if v == "."}
    own = "xo"[mover]
    out = set()
    for a in (c for c, v in board.items() if v == own):
        for dq, dr in DIRS:
            b = (a[0] + dq, a[1] + dr)
            if board.get(b) == ".":
                out.add(f"{model_name(*a, R)}-{model_name(*b, R)}")
                for eq, er in DIRS:
                    c = (b[0] + eq, b[1] + er)
                    if c != a and board.get(c) == ".":
                        out.add(f"{model_name(*a, R)}-{model_name(*b, R)}-{model_name(*c, R)}")
            if board.get(b) in (".", "~"):
                c = (a[0] + 2 * dq, a[1] + 2 * dr)
                if board.get(c) == ".":
                    out.add(f"{model_name(*a, R)}^{model_name(*c, R)}")
    return out


def model_board(pos: Position, R: int) -> dict:
    text = pos.to_text().splitlines()
    rows = text[text.index("board:") + 1 :]
    board = {}
    for r in range(-R, R + 1):
        tokens = rows[r + R].split()[1:]
        qs = sorted(q for q, rr in model_cells(R) if rr == r)
        board.update({(q, r): t for q, t in zip(qs, tokens)})
    return board


def model_play(board: dict, move: str, mover: int, R: int) -> dict:
    names = {model_name(*c, R): c for c in board}
    after = dict(board)
    if move.startswith("@"):
        after[names[move[1:]]] = "xo"[mover]
        return after
    path = [names[x] for x in move.replace("^", "-").split("-")]
    after[path[0]] = "~"
    if "^" not in move and len(path) == 3:
        after[path[1]] = "~"
    after[path[-1]] = "xo"[mover]
    return after


@pytest.mark.parametrize("radius", [2, 3, 4])
def test_engine_agrees_with_an_independent_model(radius):
    """QM-2..QM-8 on random games: the same legal moves, boards and endings."""
    rng = np.random.default_rng(radius)
    for game in range(12):
        pos = boardenvs.position("quagmire_v0", radius=radius, first_player=game % 2)
        board = model_board(pos, radius)
        while True:
            expected = model_moves(board, pos.to_move, radius)
            if not expected:
                assert pos.is_terminal and pos.end_reason == "no_legal_move"
                assert pos.returns[pos.to_move] == -1.0
                break
            assert set(pos.legal_moves()) == expected
            move = sorted(expected)[rng.integers(len(expected))]
            board = model_play(board, move, pos.to_move, radius)
            pos = pos.play(move)
            assert model_board(pos, radius) == board


def test_water_off_every_trail_is_refused_at_every_entry_point():
    """QM-V1: water is only left behind by a moving piece, at most two cells
    a move, so water far from every piece and its trail is no position the
    rules reach: refused as a text, a JSON document and a row, naming QM-V1
    (the count of water cells, QM-7, still fits)."""
    from boardenvs.games.quagmire.rules import M_CELLS

    pos = boardenvs.position("quagmire_v0", radius=4, first_player=0)
    while pos.game.in_setup(pos.state):
        pos = pos.play(pos.legal_actions()[0])
    pos = pos.play(next(m for m in pos.legal_moves() if m.count("-") == 1))  # a walk: one water cell
    game, state = pos.game, pos.state
    nb = game.board.neighbours
    cells = game.cells(state)
    near = set()
    for i in np.flatnonzero(cells != 0):
        for j in nb[i]:
            if j >= 0:
                near |= {int(j), *(int(k) for k in nb[j] if k >= 0)}
    far = next(i for i in range(game.num_cells) if cells[i] == 0 and i not in near)
    state[M_CELLS + far] = 1  # water, two cells or more from every piece and from the other water
    with pytest.raises(ValueError, match=r"QM-V1"):
        Position(game, state)
    bad = Position._own(game, state)  # (unchecked: only to write its text and JSON)
    with pytest.raises(NotationError, match=rf"water at {game.board.name(far)} is on no piece's trail: .*QM-V1"):
        Position.from_text(bad.to_text())
    with pytest.raises(NotationError, match=r"QM-V1"):
        Position.from_json(bad.to_json())
    assert Position.from_text(bad.to_text(), setup=True) == Position(game, state, setup=True)  # asked for: read
    assert Position.from_text(pos.to_text()) == pos  # the position as played is read


QM_V2_AFTER_ONE_MOVE = """game: quagmire_v0
options: radius=3 max_turns=1000
to_move: player_1
turn: 5
status: playing
reason: -
alive: 1 1
returns: 0 0
board:
a    x . . .
b   . . . . .
c  x . . . . .
d . . . . . . .
e  . . . . . .
f   . . ~ ~ .
g    . . o o
"""


def test_more_water_on_a_players_trails_than_its_moves_flood_is_refused():
    """QM-V2: each water cell is on the trail of the piece that flooded it,
    and a move floods two cells at most, so the water linked to one
    player's pieces only is at most twice that player's moves.  After the
    first move (player_0's: player_1 to move) two water cells on the trails
    of player_1's pieces alone, far from player_0's, passed QM-V1 and QM-7;
    they are refused as a text, a JSON document and a row, naming QM-V2.
    The same board with player_0 to move (so player_1 made the move: a run
    floods two cells) is read, as is every position of random games."""
    bad = Position.from_text(QM_V2_AFTER_ONE_MOVE, setup=True)  # (asked for: read)
    why = r"2 water cells are on player_1's trails alone, but player_1 made 0 of the 1 moves.*\(QM-V2\)"
    with pytest.raises(NotationError, match=why):
        Position.from_text(QM_V2_AFTER_ONE_MOVE)
    with pytest.raises(NotationError, match=why):
        Position.from_json(bad.to_json())
    with pytest.raises(ValueError, match=r"QM-V2"):
        Position(bad.game, bad.state.copy())
    other = Position.from_text(QM_V2_AFTER_ONE_MOVE.replace("to_move: player_1", "to_move: player_0"))
    assert int(np.sum(other.game.cells(other.state) == 1)) == 2
    for seed in range(12):  # what play reaches is read, at every step
        rng = np.random.default_rng(seed)
        pos = boardenvs.position("quagmire_v0", radius=2 + seed % 3)
        while not pos.is_terminal:
            pos = pos.play(int(rng.choice(pos.legal_actions())))
            assert Position.from_text(pos.to_text()) == pos
