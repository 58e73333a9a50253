"""Quicksand rules, one group of tests per rule of boardenvs/rules/quicksand.md (QS-1..QS-12).

Hand-built positions are drawn as pictures, rank 6 at the top: ``.`` empty,
``S M L`` pyramids of player_0, ``s m l`` of player_1.  They go through the
position text form and ``Position.from_text``; unless told otherwise the
reserves hold what is not on the board (nothing captured) and the scores
follow from the reserves (QS-9).  The last tests compare the decision-chain
masks with an independent model of whole turns written from the rules text.
"""

from __future__ import annotations

import numpy as np
import pytest
from position_text import header

import boardenvs
from boardenvs.errors import IllegalMoveError, NotationError
from boardenvs.games import quicksand as Q
from boardenvs.games.quicksand import rules as QR
from boardenvs.position import Position

EMPTY = """
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
"""
FILES = "abcdef"
CHARS = ".SMLsml"
ROTATIONS = [f"Q{q}:{d}" for q in range(1, 5) for d in (90, 180, 270)]


def picture(board: str = EMPTY, **marks) -> list[list[str]]:
    """Rows rank 6..1 of the picture, with cells set by name, e.g. ``c3="M"``."""
    rows = [line.split() for line in board.strip("\n").splitlines()]
    for name, char in marks.items():
        rows[6 - int(name[1])][FILES.index(name[0])] = char
    return rows


def qtext(
    rows,
    to_move=0,
    reserve=None,
    phase="place",
    jump="-",
    turn=None,
    status="playing",
    reason="-",
    returns="0 0",
    score=None,
    max_turns=1000,
) -> str:
    cells = [c for r in rows for c in r]
    if reserve is None:
        reserve = [5 - cells.count(CHARS[1 + k]) for k in range(6)]
    if score is None:  # QS-9: what one player is missing, the other has scored
        missing = [
            sum((5 - cells.count(CHARS[1 + 3 * s + z]) - reserve[3 * s + z]) * (z + 1) for z in range(3))
            for s in (0, 1)
        ]
        score = (missing[1], missing[0])
    if turn is None:
        placed = sum(1 for c in cells if c != ".") + sum(5 - cells.count(CHARS[1 + k]) - reserve[k] for k in range(6))
        turn = placed
    lines = header("quicksand_v0", f"max_turns={max_turns}", f"player_{to_move}", turn, status, reason, returns=returns)
    lines.append("board:")
    lines += [f"{6 - k} " + " ".join(r) for k, r in enumerate(rows)]
    lines.append("  a b c d e f")
    lines.append("reserve: " + " ".join(map(str, reserve[:3])) + " / " + " ".join(map(str, reserve[3:])))
    lines.append(f"score: {score[0]} {score[1]}")
    lines.append(f"phase: {phase}")
    lines.append(f"jump: {jump}")
    return "\n".join(lines) + "\n"


def qpos(board: str = EMPTY, to_move=0, **kw) -> Position:
    marks = {k: v for k, v in kw.items() if len(k) == 2 and k[0] in FILES}
    rest = {k: v for k, v in kw.items() if k not in marks}
    # a hand-built position: a set-up one (pyramids placed where a rule is tested, not in
    # turn: QS-V1 is not asked)
    return Position.from_text(qtext(picture(board, **marks), to_move=to_move, **rest), setup=True)


def at(pos: Position, name: str) -> str:
    return CHARS[int(Q.QuicksandGame.cells(pos.state)[QR.cell_index(name)])]


def jumps(pos: Position) -> set[str]:
    """The jump part of every legal whole turn that jumps."""
    return {m.split()[0] for m in pos.legal_moves() if "@" not in m}


def jumps_from(pos: Position, cell: str) -> set[str]:
    return {j for j in jumps(pos) if j.startswith(cell + ":")}


def decide(pos: Position, *decisions: str) -> Position:
    """Play single decisions (``c3``, ``:e5``, ``stop``, ``Q1:90``) one by one."""
    for d in decisions:
        pos = pos.play(pos.move_to_action(d))
    return pos


def allowed(pos: Position) -> set[str]:
    """The legal decisions of the position in single-decision notation."""
    return {pos.action_to_move(a) for a in pos.legal_actions()}


# --- QS-1 reserves ---------------------------------------------------------------------------


def test_qs1_each_player_starts_with_five_of_each_size():
    pos = boardenvs.position("quicksand_v0")
    game = pos.game
    assert game.reserve(pos.state, 0) == game.reserve(pos.state, 1) == (5, 5, 5)
    assert game.scores(pos.state) == (0, 0)
    obs = pos.observation(0)
    assert (obs[:, :, 11:17] == 5).all() and (obs[:, :, 17:] == 0).all()


def test_qs1_an_empty_size_cannot_be_placed():
    pos = qpos(reserve=[0, 5, 5, 5, 5, 5], score=(0, 5))
    sizes = {m[0] for m in pos.legal_moves()}
    assert sizes == {"M", "L"}
    with pytest.raises(IllegalMoveError):
        pos.play("S@c3 Q1:90")


# --- QS-2 board and quadrants ------------------------------------------------------------------


def test_qs2_empty_board_cells_and_first_player():
    pos = boardenvs.position("quicksand_v0")
    assert not Q.QuicksandGame.cells(pos.state).any()
    assert (
        QR.cell_index("a1") == 0 and QR.cell_index("f1") == 5 and QR.cell_index("a2") == 6 and QR.cell_index("f6") == 35
    )
    assert {QR.cell_name(i) for i in range(36)} == {f + r for f in FILES for r in "123456"}
    assert pos.game.options["first_player"] == "random"
    firsts = set()
    for seed in range(12):
        env = boardenvs.make("quicksand_v0")
        env.reset(seed=seed)
        again = boardenvs.make("quicksand_v0")
        again.reset(seed=seed)
        assert env.agent_selection == again.agent_selection  # C-2: fixed by the seed
        firsts.add(env.agent_selection)
    assert firsts == {"player_0", "player_1"}
    assert boardenvs.position("quicksand_v0", first_player=1).to_move == 1


@pytest.mark.parametrize("quadrant", [1, 2, 3, 4])
def test_qs2_quadrants_are_the_four_3x3_blocks(quadrant):
    # a pyramid on the top-left corner of each quadrant: a4? no, a6, d6, a3, d3
    corners = {1: "a6", 2: "d6", 3: "a3", 4: "d3"}
    after_corner = {1: "c6", 2: "f6", 3: "c3", 4: "f3"}  # a quarter turn takes top left to top right
    pos = qpos(**{c: "S" for c in corners.values()}, e1="l")
    after = pos.play(f"M@{'f1' if quadrant != 4 else 'b5'} Q{quadrant}:90")
    for q, c in corners.items():
        assert at(after, after_corner[q] if q == quadrant else c) == "S"
    assert sum(at(after, f + r) == "S" for f in FILES for r in "123456") == 4


# --- QS-3 phase 1: place or jump ---------------------------------------------------------------


def test_qs3_place_then_rotate_as_two_decisions_by_the_same_agent():
    pos = boardenvs.position("quicksand_v0", first_player=0)
    assert allowed(pos) == {f"{s}@{f}{r}" for s in "SML" for f in FILES for r in "123456"}
    mid = decide(pos, "M@c3")
    assert mid.to_move == 0 and mid.turn == 0  # same agent, same turn
    assert allowed(mid) == set(ROTATIONS)
    assert mid.game.reserve(mid.state, 0) == (5, 4, 5)
    after = decide(mid, "Q2:90")
    assert after.to_move == 1 and after.turn == 1 and at(after, "c3") == "M"
    assert after == pos.play("M@c3 Q2:90")
    assert len(pos.legal_moves()) == 3 * 36 * 12


def test_qs3_a_turn_is_place_or_jump_never_both():
    pos = qpos(a1="L", b1="s")
    mid = decide(pos, "a1")  # the jumper chosen: no placement any more
    assert all(m.startswith(":") or m == "stop" for m in allowed(mid))
    placed = decide(pos, "S@f6")
    assert allowed(placed) == set(ROTATIONS)


# --- QS-4 phase 2: rotation -------------------------------------------------------------------


def test_qs4_rotation_moves_pyramids_clockwise_with_rank_6_at_the_top():
    pos = qpos(a3="L", b3="M", a1="s", turn=3)
    quarter = pos.play("S@f6 Q3:90")
    # a3 -> c3, b3 (top edge) -> c2 (right edge), a1 -> a3; b2 stays
    assert (at(quarter, "c3"), at(quarter, "c2"), at(quarter, "a3")) == ("L", "M", "s")
    assert at(quarter, "a1") == "." and at(quarter, "b3") == "."
    half = pos.play("S@f6 Q3:180")
    assert (at(half, "c1"), at(half, "b1"), at(half, "c3")) == ("L", "M", "s")
    three = pos.play("S@f6 Q3:270")
    assert (at(three, "a1"), at(three, "a2"), at(three, "c1")) == ("L", "M", "s")
    centre = qpos(b2="L", e5="m", turn=2).play("S@a1 Q3:90")
    assert at(centre, "b2") == "L" and at(centre, "a3") == "S"  # the centre stays, the new pyramid turns too


def test_qs4_rotation_is_mandatory_and_twelve_choices_even_when_empty():
    pos = decide(boardenvs.position("quicksand_v0", first_player=0), "S@a1")
    assert allowed(pos) == set(ROTATIONS)
    empty_turn = decide(pos, "Q2:270")  # Q2 is empty: still a rotation
    assert empty_turn.to_move == 1 and at(empty_turn, "a1") == "S"
    with pytest.raises(IllegalMoveError, match="whole turn"):
        boardenvs.position("quicksand_v0", first_player=0).play("S@a1")


# --- QS-5 hops --------------------------------------------------------------------------------


def test_qs5_a_hop_lands_right_after_aligned_pyramids_in_eight_directions():
    around = dict(zip(("b2", "b3", "b4", "c2", "c4", "d2", "d3", "d4"), "sssmmmll"))
    pos = qpos(c3="S", **around)
    assert jumps_from(pos, "c3") == {"c3:a1", "c3:a3", "c3:a5", "c3:c1", "c3:c5", "c3:e1", "c3:e3", "c3:e5"}


def test_qs5_large_jumps_three_in_a_row_in_one_hop():
    pos = qpos(a1="L", b2="s", c3="m", d4="S")
    assert "a1:e5" in jumps_from(pos, "a1")
    after = pos.play("a1:e5 Q4:90")
    assert at(after, "e5") == "L" and all(at(after, c) == "." for c in ("a1", "b2", "c3", "d4"))
    # own S back to the reserve, s and m scored (QS-9)
    assert after.game.reserve(after.state, 0) == (5, 5, 4) and after.game.scores(after.state) == (3, 0)


def test_qs5_the_landing_must_be_on_the_board_and_empty_and_the_line_unbroken():
    pos = qpos(a1="L", b1="s", c1="m", d1="l", e1="s", a2="s", a3="M", b2="m", d4="l")
    # b1..e1: four in a row: no empty landing within three; a2 then a3: over
    # two to a4; b2 then c3 empty: over one to c3 (and on over d4 to e5)
    assert jumps_from(pos, "a1") == {"a1:a4", "a1:c3", "a1:c3:e5"}
    assert not any(j.startswith("a1:f1") or j.startswith("a1:e1") for j in jumps_from(pos, "a1"))
    edge = qpos(f1="S", f2="m", e1="m")
    assert jumps_from(edge, "f1") == {"f1:f3", "f1:d1"}  # nothing off the board
    gap = qpos(a1="L", c1="s")
    assert jumps_from(gap, "a1") == set()  # the first jumped pyramid must be adjacent


# --- QS-6 direction changes, no pyramid twice, the start counts as empty -----------------------


def test_qs6_medium_turns_135_degrees_between_hops():
    pos = qpos(a1="M", b1="s", b2="m")  # E over b1 to c1, then NW over b2 to a3
    assert "a1:c1:a3" in jumps_from(pos, "a1")
    after = pos.play("a1:c1:a3 Q4:90")
    assert at(after, "a3") == "M" and at(after, "b1") == "." and at(after, "b2") == "."
    assert after.game.scores(after.state) == (3, 0)


def test_qs6_a_pyramid_may_not_be_jumped_twice():
    pos = qpos(a1="L", b1="s")
    mid = decide(pos, "a1", ":c1")
    # back over b1 to a1 would jump it twice; nothing else to hop over: the jump ended by itself
    assert allowed(mid) == set(ROTATIONS)
    assert jumps_from(pos, "a1") == {"a1:c1"}
    medium = qpos(a1="M", b1="s")  # the only second hop would re-jump b1: no jump at all
    assert jumps_from(medium, "a1") == set()


def test_qs6_the_start_cell_is_empty_once_left_and_jumped_pyramids_stay_until_the_end():
    pos = qpos(c1="L", d1="s", e2="s", d2="s")
    assert "c1:e1:e3:c1" in jumps_from(pos, "c1")  # back on its start cell
    mid = decide(pos, "c1", ":e1")
    assert at(mid, "d1") == "s" and at(mid, "c1") == "."  # d1 still there until the jump ends
    assert mid.observation(0)[5, 3, 7] == 1 and mid.observation(0)[5, 4, 6] == 1  # jumped d1, jumper e1
    after = pos.play("c1:e1:e3:c1 Q4:90")
    assert at(after, "c1") == "L" and after.game.scores(after.state) == (3, 0)


# --- QS-7 how many: small 1, medium exactly 2, large 1..3 ---------------------------------------


def test_qs7_small_jumps_exactly_one():
    pos = qpos(a1="S", b1="s", c1=".", d1="s", b2="s", b3=".")
    assert jumps_from(pos, "a1") == {"a1:c1", "a1:c3"}
    two = qpos(a1="S", b1="s", c1="s")
    assert jumps_from(two, "a1") == set()  # a small never clears two


def test_qs7_medium_blocked_after_one_hop_cannot_jump():
    pos = qpos(a1="M", b1="s")
    assert jumps_from(pos, "a1") == set()
    assert Q.SELECT0 + QR.cell_index("a1") not in pos.legal_actions()
    with pytest.raises(IllegalMoveError):
        pos.play("a1:c1 Q1:90")


def test_qs7_medium_clears_two_aligned_in_one_hop_or_two_hops_but_stops_at_two():
    aligned = qpos(a1="M", b1="s", c1="s")
    assert jumps_from(aligned, "a1") == {"a1:d1"}
    pos = qpos(a1="M", b1="s", c2="s", d3="s")
    assert jumps_from(pos, "a1") == {"a1:c1:c3"}  # c1 then over c2; never a third hop over d3
    mid = decide(pos, "a1", ":c1")
    assert allowed(mid) == {":c3"}  # no stop for a medium after one


def test_qs7_large_chooses_to_stop_after_one_or_after_two():
    pos = qpos(a1="L", b1="s", d1="s", e2="s")  # a1 -> c1 -> e1 -> e3
    assert jumps_from(pos, "a1") == {"a1:c1", "a1:c1:e1", "a1:c1:e1:e3"}
    one = decide(pos, "a1", ":c1")
    assert allowed(one) == {":e1", "stop"}
    stopped = decide(one, "stop")
    assert allowed(stopped) == set(ROTATIONS) and stopped.game.scores(stopped.state) == (1, 0)
    two = decide(one, ":e1")
    assert allowed(two) == {":e3", "stop"}
    after_two = decide(two, "stop", "Q2:90")
    assert (
        at(after_two, "e1") == "L" and at(after_two, "e2") == "s" and after_two.game.scores(after_two.state) == (2, 0)
    )
    assert after_two == pos.play("a1:c1:e1 Q2:90")  # the stop is implied by the notation
    three = decide(two, ":e3")
    assert allowed(three) == set(ROTATIONS)  # three jumped: the jump ends by itself
    assert pos.move_to_actions("a1:c1 Q1:90")[-2] == QR.STOP


def test_qs7_large_without_a_further_hop_ends_by_itself():
    pos = qpos(a1="L", b1="s")
    mid = decide(pos, "a1", ":c1")
    assert "stop" not in allowed(mid) and QR.STOP not in pos.move_to_actions("a1:c1 Q1:90")


# --- QS-8 only completable jumps are offered --------------------------------------------------


def test_qs8_medium_is_offered_only_the_hop_that_can_be_completed():
    # over b1 to c1 is a dead end; over b2 to c3 goes on over d3 to e3
    # over a2 to a3 is a dead end; over b1 to c1 goes on over d2 to e3
    pos = qpos(a1="M", a2="s", b1="s", d2="s")
    mid = decide(pos, "a1")
    assert allowed(mid) == {":c1"}
    assert jumps_from(pos, "a1") == {"a1:c1:e3"}


def test_qs8_every_offered_decision_completes_a_turn():
    """Random decisions from random positions never run into an empty mask
    in the middle of a turn (a dead-end jumper or hop would)."""
    rng = np.random.default_rng(8)
    for pos in random_positions(6, seed=8):
        for _ in range(60):
            if pos.is_terminal:
                break
            assert pos.action_mask().any()
            pos = pos.play(int(rng.choice(pos.legal_actions())))


# --- QS-9 captures --------------------------------------------------------------------------------


def test_qs9_own_pyramids_go_back_to_the_reserve_opponents_score():
    pos = qpos(a1="L", b1="M", d1="l", reserve=[5, 4, 4, 5, 5, 4])
    after = pos.play("a1:c1:e1 Q4:180")
    game = after.game
    assert at(after, "b1") == "." and at(after, "d1") == "."
    assert game.reserve(after.state, 0) == (5, 5, 4)  # the own medium is back
    assert game.reserve(after.state, 1) == (5, 5, 4)  # the large is gone for good
    assert game.scores(after.state) == (3, 0)
    again = after.play("S@a6 Q1:90")  # player_1 places; player_0's medium may be placed again
    assert again.game.reserve(again.state, 1) == (4, 5, 4)
    assert "M@c3 Q1:90" in again.legal_moves()


# --- QS-10 fifteen points win at once ------------------------------------------------------------


def test_qs10_fifteen_points_win_before_the_rotation():
    # player_1 has lost 4 small and 5 medium (14 points); a large stands on b1
    pos = qpos(a1="L", b1="l", d1="s", reserve=[5, 5, 4, 0, 0, 4])
    assert pos.game.scores(pos.state) == (14, 0)
    assert "a1:c1" in pos.legal_moves() and not any(m.startswith("a1:c1 ") for m in pos.legal_moves())
    won = pos.play("a1:c1")  # stops after one (QS-7) and wins: no rotation
    assert won.is_terminal and won.end_reason == "score" and won.returns == (1.0, -1.0)
    assert won.game.scores(won.state) == (17, 0) and at(won, "c1") == "L"
    chain = pos.move_to_actions("a1:c1")
    assert chain[-1] == QR.STOP and len(chain) == 3
    on = pos.play("a1:c1:e1")  # going on scores more, still without a rotation
    assert on.is_terminal and on.game.scores(on.state) == (18, 0)
    with pytest.raises(IllegalMoveError):
        pos.play("a1:c1 Q1:90")
    assert Position.from_text(won.to_text(), setup=True) == won  # (set up: QS-V1 not asked)


def test_qs10_a_score_of_15_cannot_be_still_playing():
    with pytest.raises(NotationError, match="QS-10"):
        qpos(a1="L", reserve=[5, 5, 4, 0, 0, 5])  # 15 points for player_0


# --- QS-11 no move loses -------------------------------------------------------------------------


def stuck_rows():
    # player_0: all five large and one medium, none next to any pyramid; its reserve is empty
    return picture(a1="L", c1="L", a3="L", c3="L", f6="L", d6="M", f1="s")


def test_qs11_a_player_who_can_neither_place_nor_jump_loses():
    text = qtext(stuck_rows(), to_move=1, reserve=[0, 0, 0, 4, 5, 5], phase="rotate")
    pos = Position.from_text(text, setup=True)  # (set up: QS-V1 not asked)
    assert pos.game.scores(pos.state) == (0, 13)
    safe = pos.play("Q4:270")  # f1 goes to f3: nobody next to player_0's pyramids
    assert safe.is_terminal and safe.end_reason == "no_legal_move"
    assert safe.returns == (-1.0, 1.0) and safe.to_move == 0  # whatever the scores
    unsafe = pos.play("Q4:90")  # f1 goes to d1, next to c1: the large can jump it
    assert not unsafe.is_terminal and unsafe.legal_moves() == ["c1:e1 " + r for r in ROTATIONS]
    with pytest.raises(NotationError, match="QS-11"):
        Position.from_text(qtext(stuck_rows(), to_move=0, reserve=[0, 0, 0, 4, 5, 5]))


def test_qs11_a_reserve_left_means_a_move():
    rows = picture(a1="L", c1="L", a3="L", c3="L", f6="L", d6="M")
    pos = Position.from_text(qtext(rows, to_move=0, reserve=[1, 0, 0, 5, 5, 5]), setup=True)
    assert {m.split()[0][0] for m in pos.legal_moves()} == {"S"}


# --- QS-12 max_turns, scores in infos ------------------------------------------------------------


def test_qs12_max_turns_truncates_and_counts_turns_not_decisions():
    pos = boardenvs.position("quicksand_v0", max_turns=3, first_player=0)
    for move in ("S@a1 Q1:90", "S@f6 Q1:90", "M@c3 Q2:90"):
        assert not pos.is_terminal
        pos = pos.play(move)
    assert pos.is_truncated and pos.end_reason == "max_turns" and pos.returns == (0.0, 0.0)
    assert pos.decisions == 6 and pos.turn == 3


def test_qs12_scores_are_reported_in_infos_at_the_end():
    rng = np.random.default_rng(12)
    env = boardenvs.make("quicksand_v0")
    env.reset(seed=3)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            scores = env.unwrapped.game.scores(env.unwrapped.position().state)
            assert info["scores"] == scores
            if info["end_reason"] == "score":
                assert reward == (1.0 if scores[int(agent[-1])] >= 15 else -1.0)
            env.step(None)
            continue
        o = obs["observation"]
        assert (o[..., 17] == o[0, 0, 17]).all()  # own score, a constant plane
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# --- decisions, observation, notation, texts ---------------------------------------------------


def test_decision_kinds_in_the_observation_and_the_mask():
    pos = qpos(a1="L", b1="s", d1="s")
    kinds = lambda p: tuple(int(p.observation(0)[0, 0, 8 + k]) for k in range(3))  # noqa: E731
    assert kinds(pos) == (1, 0, 0)
    mid = decide(pos, "a1")
    assert kinds(mid) == (0, 1, 0) and mid.observation(0)[5, 0, 6] == 1
    assert mid.observation(1)[5, 0, 6] == 1 and mid.observation(1)[5, 0, 5] == 1  # player_1 sees the opponent's large
    hop = decide(mid, ":c1")
    assert hop.observation(0)[5, 1, 7] == 1  # b1 jumped
    rot = decide(hop, "stop")
    assert kinds(rot) == (0, 0, 1)
    mask = rot.action_mask()
    assert mask[QR.ROT0 :].all() and not mask[: QR.ROT0].any()


def test_action_ids_match_the_card():
    pos = qpos(c3="L", c4="s", d4="s")
    assert pos.move_to_action("M@c3") == 36 + 14 and pos.move_to_action("L@f6") == 72 + 35
    assert pos.move_to_action("c3") == 108 + 14
    mid = decide(pos, "c3")
    assert mid.move_to_action(":c5") == 144 + 3 * 0 + 0  # N over 1
    assert mid.move_to_action(":e5") == 144 + 3 * 1 + 0  # NE over 1
    assert mid.move_to_action("stop") == 168
    assert pos.move_to_action("Q1:90") == 169 and pos.move_to_action("Q4:270") == 180


def test_dice_classes_are_the_size_placed_or_jumping():
    pos = qpos(c3="M", b1="l", a6="S")
    game = pos.game
    assert game.action_class_names == ("small", "medium", "large")
    classes = game.action_classes(pos.state)
    assert classes.shape == (Q.NUM_ACTIONS,)
    assert classes[0] == 0 and classes[36 + 5] == 1 and classes[72 + 35] == 2
    assert classes[Q.SELECT0 + QR.cell_index("c3")] == 1 and classes[Q.SELECT0 + QR.cell_index("a6")] == 0
    assert classes[Q.SELECT0 + QR.cell_index("b1")] == -1  # the opponent's pyramid
    assert (classes[Q.HOP0 :] == -1).all()


@pytest.mark.parametrize(
    "bad",
    ["", "M@c7", "X@c3", "c3:", "c3:e5:e3:c1:a1", "M@c3 Q5:90", "M@c3 Q1:45", "M@c3 Q1:90 Q1:90", None, 2.5, "c3 c4"],
)
def test_malformed_moves_are_notation_errors(bad):
    pos = boardenvs.position("quicksand_v0", first_player=0)
    with pytest.raises(NotationError):
        pos.play(bad)


def test_a_landing_that_is_no_hop_is_a_notation_error_and_nothing_changes():
    pos = qpos(a1="L", b1="s")
    before = pos.to_text()
    with pytest.raises(NotationError, match="QS-5"):
        pos.play("a1:b3 Q1:90")
    with pytest.raises(IllegalMoveError):
        pos.play("a1:a3 Q1:90")  # a hop's shape, but nothing to jump
    with pytest.raises(IllegalMoveError):
        pos.play(":c1")  # no jump in progress
    assert pos.to_text() == before


def test_texts_round_trip_mid_jump_and_rotate():
    pos = qpos(a1="L", b1="s", d1="s", e2="s")
    for p in (
        decide(pos, "a1"),
        decide(pos, "a1", ":c1"),
        decide(pos, "a1", ":c1", ":e1"),
        decide(pos, "a1", ":c1", "stop"),
    ):
        back = Position.from_text(p.to_text(), setup=True)
        assert back == p and np.array_equal(back.action_mask(), p.action_mask())
        assert back.legal_moves() == p.legal_moves()
        # the rest of a turn under way in notation (':c1:e1 Q1:90', 'Q1:90' with the stop implied)
        assert all(p.move_to_actions(m) == c for m, c in zip(p.legal_moves(), p.legal_turns()))
    assert "jump: a1:c1" in decide(pos, "a1", ":c1").to_text()


def test_texts_the_rules_cannot_reach_are_refused():
    with pytest.raises(NotationError, match="QS-1"):
        qpos(c3="M", reserve=[5, 5, 5, 5, 5, 5], score=(0, 0))  # six mediums
    with pytest.raises(NotationError, match="QS-9"):
        qpos(c3="M", score=(4, 0))  # points nobody lost
    rows = picture(a1="L", b1="s")
    with pytest.raises(NotationError, match="no pyramid"):  # a jump in progress over a missing pyramid
        Position.from_text(qtext(picture(c1="L"), phase="jump", jump="a1:c1"))
    with pytest.raises(NotationError, match="jumper"):
        Position.from_text(qtext(rows, phase="jump", jump="c1:e1"))
    with pytest.raises(NotationError, match="not a hop"):
        Position.from_text(qtext(picture(a1=".", b3="L", b1="s"), phase="jump", jump="a1:b3"))
    with pytest.raises(NotationError, match="twice"):
        Position.from_text(qtext(picture(a1="L", b1="s"), phase="jump", jump="a1:c1:a1"))
    with pytest.raises(NotationError, match="ended"):  # a large with no hop left would have ended its jump
        Position.from_text(qtext(picture(c1="L", b1="s"), phase="jump", jump="a1:c1"))
    with pytest.raises(NotationError, match="QS-7"):
        Position.from_text(qtext(picture(c1="S", b1="s"), phase="jump", jump="a1:c1"))
    with pytest.raises(NotationError, match="place"):
        Position.from_text(qtext(rows, turn=0))
    with pytest.raises(NotationError, match="jump must be"):
        Position.from_text(qtext(rows, jump="a1:c1"))
    with pytest.raises(NotationError, match="reserve"):
        Position.from_text(qtext(rows).replace("reserve: 5 5 4", "reserve: 5 5 x"))
    with pytest.raises(NotationError, match="score"):
        Position.from_text(qtext(rows, status="terminated", reason="score", returns="1 -1", to_move=1))


def test_mutated_texts_are_consistent_positions_or_notation_errors():
    """No public input crashes: texts of random positions (mid-jump and
    mid-turn ones too) with characters changed, dropped or added either
    parse to a position that round-trips and can move, or raise NotationError."""
    rng = np.random.default_rng(0)
    texts = []
    for p in random_positions(6, seed=3):
        for a in p.legal_actions()[-2:]:
            q = p.play(int(a))
            texts += [p.to_text(), q.to_text()] + [q.play(int(b)).to_text() for b in q.legal_actions()[:2]]
    alphabet = list(".SMLsml0123456789:/-abcdefQ @\n")
    accepted = 0
    for _ in range(1500):
        t = list(texts[rng.integers(len(texts))])
        for _ in range(rng.integers(1, 4)):
            i = int(rng.integers(len(t)))
            op = rng.integers(3)
            if op == 0:
                t[i] = alphabet[rng.integers(len(alphabet))]
            elif op == 1:
                del t[i]
            else:
                t.insert(i, alphabet[rng.integers(len(alphabet))])
        try:
            pos = Position.from_text("".join(t))
        except NotationError:
            continue
        accepted += 1
        assert Position.from_text(pos.to_text()) == pos
        assert pos.is_terminal or pos.action_mask().any()
    assert 0 < accepted < 1500


def test_render_ansi_and_rgb_show_the_board_quadrants_and_last_move():
    pos = qpos(a1="L", b1="s", d1="s").play("a1:c1:e1 Q4:90")
    text = str(pos)
    assert "|" in text and "------+------" in text and "last move a1:c1:e1 Q4:90" in text
    assert "score 2-0" in text
    env = boardenvs.make("quicksand_v0", render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
    picture_after = pos.game.render_rgb(pos.state)
    empty = boardenvs.position("quicksand_v0").game.render_rgb(boardenvs.position("quicksand_v0").state)
    assert picture_after.shape == empty.shape and (picture_after != empty).any()


# --- the decision chains against an independent model of whole turns ----------------------------

# geometry rebuilt here from the rules text: (file, rank) with 0-based coordinates
MODEL_DIRS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]
LIMITS = {"S": (1, 1), "M": (2, 2), "L": (1, 3)}  # QS-7: (least, most) pyramids jumped
VALUE = {"S": 1, "M": 2, "L": 3}


def model_name(f, r):
    return FILES[f] + str(r + 1)


def model_board(pos: Position):
    """(board, reserves, scores) read from the position's text."""
    lines = pos.to_text().splitlines()
    k = lines.index("board:")
    board = {}
    for j in range(6):
        tokens = lines[k + 1 + j].split()
        for f, t in enumerate(tokens[1:]):
            if t != ".":
                board[(f, 5 - j)] = t
    res = lines[k + 8].split()[1:]
    reserves = [dict(zip("SML", map(int, res[:3]))), dict(zip("SML", map(int, res[4:])))]
    scores = [int(v) for v in lines[k + 9].split()[1:]]
    return board, reserves, scores


def model_rotate(board, quadrant, quarters):
    """QS-4: quadrant 1..4 (Q1 top left ... Q4 bottom right) turned clockwise."""
    f0, r0 = {1: (0, 3), 2: (3, 3), 3: (0, 0), 4: (3, 0)}[quadrant]
    out = {}
    for (f, r), v in board.items():
        if f0 <= f < f0 + 3 and r0 <= r < r0 + 3:
            x, y = f - f0, r - r0
            for _ in range(quarters):
                x, y = y, 2 - x  # a quarter turn clockwise, y up
            out[(f0 + x, r0 + y)] = v
        else:
            out[(f, r)] = v
    return out


def model_jumps(board, start):
    """Every complete jump of the pyramid on ``start``: (path, jumped cells)."""
    size = board[start].upper()
    least, most = LIMITS[size]
    found = []

    def hops(cur, path, jumped):
        if least <= len(jumped) <= most and len(path) > 1:
            found.append((list(path), list(jumped)))
        if len(jumped) == most:
            return
        for df, dr in MODEL_DIRS:
            over = []
            for k in range(1, most - len(jumped) + 1):
                cell = (cur[0] + k * df, cur[1] + k * dr)
                occupied = cell in board and cell != start  # the start is empty once left
                if not occupied or cell in jumped:
                    break
                over.append(cell)
                land = (cur[0] + (k + 1) * df, cur[1] + (k + 1) * dr)
                on_board = 0 <= land[0] < 6 and 0 <= land[1] < 6
                if on_board and (land not in board or land == start) and land not in jumped:
                    hops(land, path + [land], jumped + over)

    hops(start, [start], [])
    return found


def model_turns(board, reserves, scores, mover):
    """Every whole turn in notation -> (board, reserves, scores, won) after it."""
    turns = {}
    own = "SML" if mover == 0 else "sml"

    def finish(text, b, res, sc):
        if sc[mover] >= 15:  # QS-10: no rotation
            turns[text] = (b, res, sc, True)
            return
        for q in range(1, 5):
            for quarters in (1, 2, 3):
                turns[f"{text} Q{q}:{90 * quarters}"] = (model_rotate(b, q, quarters), res, sc, False)

    for size in "SML":
        if reserves[mover][size]:
            for f in range(6):
                for r in range(6):
                    if (f, r) not in board:
                        b = dict(board)
                        b[(f, r)] = own["SML".index(size)]
                        res = [dict(x) for x in reserves]
                        res[mover][size] -= 1
                        finish(f"{size}@{model_name(f, r)}", b, res, list(scores))
    for start, v in board.items():
        if v not in own:
            continue
        for path, jumped in model_jumps(board, start):
            b = dict(board)
            res = [dict(x) for x in reserves]
            sc = list(scores)
            for cell in jumped:  # QS-9
                w = b.pop(cell)
                if w in own:
                    res[mover][w.upper()] += 1
                else:
                    sc[mover] += VALUE[w.upper()]
            b.pop(start)
            b[path[-1]] = v
            finish(":".join(model_name(*c) for c in path), b, res, sc)
    return turns


def random_positions(count, seed):
    """Positions at the start of a turn from random make_vec games, spread over their lengths."""
    vec = boardenvs.make_vec("quicksand_v0", num_envs=count, max_turns=1000)
    vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    stops = rng.integers(10, 90, size=count)
    out = [None] * count
    for step in range(300):
        vec.step(vec.random_actions())
        for i in range(count):
            pos = vec.position(i)
            if out[i] is None and step >= stops[i] and pos.state[Q.Q_PHASE] == QR.PH_FIRST:
                out[i] = pos
        if all(o is not None for o in out):
            break
    return [o for o in out if o is not None]


def test_decision_chains_and_full_turns_agree_with_an_independent_model():
    """QS-3..QS-10 on random positions: the whole turns the decision masks
    chain up to (Position.legal_moves) are exactly the model's, every offered
    decision leads on to a whole turn, and sampled turns give the model's
    board, reserves and scores."""
    rng = np.random.default_rng(5)
    positions = random_positions(30, seed=5)
    assert len(positions) >= 24
    jumping = 0
    for pos in positions:
        board, reserves, scores = model_board(pos)
        expected = model_turns(board, reserves, scores, pos.to_move)
        moves = pos.legal_moves()
        assert len(moves) == len(set(moves))
        assert set(moves) == set(expected)
        jumping += any("@" not in m for m in moves)
        for move in rng.choice(sorted(expected), size=min(12, len(expected)), replace=False):
            b, res, sc, won = expected[move]
            after = pos.play(str(move))
            assert model_board(after) == (b, res, sc)
            assert after.is_terminal == won
            if won:
                assert after.end_reason == "score" and after.returns[pos.to_move] == 1.0
    assert jumping >= 10  # the sample holds positions with jumps


def test_model_agrees_on_hand_built_jumps():
    """The model itself, on the hand-built cases above (a check of the checker)."""
    board, _, _ = model_board(qpos(a1="L", b1="s", d1="s", e2="s"))
    paths = {":".join(model_name(*c) for c in p) for p, _ in model_jumps(board, (0, 0))}
    assert paths == {"a1:c1", "a1:c1:e1", "a1:c1:e1:e3"}
    board, _, _ = model_board(qpos(a1="M", b1="s"))
    assert model_jumps(board, (0, 0)) == []


def test_qs5_to_qs8_jumpers_of_a_whole_board_agree_with_the_model():
    """QS-5..QS-8: the kernels find every pyramid that can start a jump at
    once, on cell sets (``_jumpers``, what the place-or-jump mask and QS-11
    use); on random boards of every density, for both movers, the cells
    found are exactly those from which the model has a complete jump."""
    rng = np.random.default_rng(11)
    boards = 0
    for density in (0.15, 0.3, 0.5, 0.7, 0.85, 0.95):
        for _ in range(150):
            board = {(f, r): CHARS[1 + rng.integers(6)] for f in range(6) for r in range(6) if rng.random() < density}
            bits = {ch: sum(1 << (6 * r + f) for (f, r), v in board.items() if v == ch) for ch in CHARS[1:]}
            pyramids = sum(bits.values())
            empty = (1 << 36) - 1 - pyramids
            for mover, own in ((0, "SML"), (1, "sml")):
                found = Q.rules._jumpers(pyramids, empty, *(bits[ch] for ch in own))
                expected = sum(
                    1 << (6 * r + f) for (f, r), v in board.items() if v in own and model_jumps(board, (f, r))
                )
                assert found == expected, (board, mover)
            boards += 1
    assert boards == 900
