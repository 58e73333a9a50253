"""Tryasina rules, one group of tests per rule of boardenvs/rules/tryasina.md (TR-1..TR-17).

Hand-built positions are written as pawn locations in each owner's own
track terms (``O``, ``Q``, ``C1``..``C49``, ``H1``..``H4``, ``S<j>.<l>``),
drawn on the 13x13 text board with the geometry below, which is written
here from the rules text alone (TR-1..TR-5), and read with
``Position.from_text``.  The last tests play random games against an
independent model of the rules written here from the rules text.
"""

from __future__ import annotations

import numpy as np
import pytest
from position_text import header

import boardenvs
from boardenvs.errors import IllegalMoveError, NotationError
from boardenvs.games.tryasina.rules import PASS, T_ROLL
from boardenvs.games.tryasina.text import LOC_NAMES
from boardenvs.position import Position

# --- the geometry, from the rules text ---------------------------------------------


def circle_xy(k: int) -> tuple:
    """TR-1."""
    if k == 0:
        return (6, -6)
    if k <= 11:
        return (6 - k, -6)
    if k == 12:
        return (-6, -6)
    if k <= 23:
        return (-6, k - 18)
    if k == 24:
        return (-6, 6)
    if k <= 35:
        return (k - 30, 6)
    if k == 36:
        return (6, 6)
    return (6, 42 - k)


SIDES = {2: (0, 2), 3: (0, 1, 2), 4: (0, 1, 2, 3)}  # TR-6: bottom, left, top, right
ENTRY = {0: 6, 1: 18, 2: 30, 3: 42}  # TR-2
HOME = {
    0: [(0, -5), (0, -4), (0, -3), (0, -2)],
    1: [(-5, 0), (-4, 0), (-3, 0), (-2, 0)],
    2: [(0, 5), (0, 4), (0, 3), (0, 2)],
    3: [(5, 0), (4, 0), (3, 0), (2, 0)],
}
# TR-5: entrance, levels L1..L3, exit
SWAMPS = [
    (9, [(-3, -5), (-4, -5), (-5, -5)], 12),
    (21, [(-5, 3), (-5, 4), (-5, 5)], 24),
    (33, [(3, 5), (4, 5), (5, 5)], 36),
    (45, [(5, -3), (5, -4), (5, -5)], 0),
]
SHORTCUTS = [(8, 16), (20, 28), (32, 40), (44, 4)]  # TR-4


def swamp_of(side: int, j: int):
    """Swamp j (1..4) of a side: the j-th entered along its lap (TR-5: at C4, C16, ...)."""
    entrance = (ENTRY[side] + 3 + 12 * (j - 1)) % 48
    return next(s for s in SWAMPS if s[0] == entrance)


def key(side: int, name: str):
    """The cell (x, y) of a location in the side's own track terms (None off the board)."""
    if name in ("O", "Q"):
        return None
    if name[0] == "C":
        return circle_xy((ENTRY[side] + int(name[1:]) - 1) % 48)
    if name[0] == "H":
        return HOME[side][int(name[1:]) - 1]
    j, level = (int(v) for v in name[1:].split("."))
    return swamp_of(side, j)[1][level - 1]


# --- hand-built positions -------------------------------------------------------------


def ttext(pawns: dict, n=2, roll=None, mover=0, turn=40, status="playing", reason="-", returns=None) -> str:
    """The text of a position: ``pawns`` maps seats to their four locations
    (seats left out: all four in the origin); ``roll`` None is a chance node
    with ``mover`` to roll."""
    rows = [line.split() for line in boardenvs.position("tryasina_v0", num_players=n).to_text().splitlines()[11:24]]
    counts = {"O": [4] * n, "Q": [0] * n}
    for seat in range(n):
        locs = pawns.get(seat, ["O"] * 4)
        assert len(locs) == 4
        counts["O"][seat] = locs.count("O")
        counts["Q"][seat] = locs.count("Q")
        for loc in locs:
            xy = key(SIDES[n][seat], loc)
            if xy is not None:
                letter = "ABCD"[seat]
                rows[6 - xy[1]][xy[0] + 6] = letter.lower() if loc == "C49" else letter
    to_move = "chance" if roll is None else f"player_{mover}"
    lines = header(
        "tryasina_v0",
        f"num_players={n} max_turns=3000",
        to_move,
        turn,
        status,
        reason,
        alive=" ".join("1" * n),
        returns=returns or " ".join("0" * n),
    )
    lines += [f"roller: player_{mover}", f"roll: {roll or '-'}", "board:"] + [" ".join(r) for r in rows]
    lines += ["origin: " + " ".join(map(str, counts["O"])), "quagmire: " + " ".join(map(str, counts["Q"]))]
    return "\n".join(lines) + "\n"


def tpos(pawns: dict, n=2, roll=None, mover=0, **kw) -> Position:
    return Position.from_text(ttext(pawns, n, roll, mover, **kw))


def pawns_of(pos: Position) -> dict:
    return {s: sorted(LOC_NAMES[v] for v in pos.game.pawn_locations(pos.state, s)) for s in range(pos.game.num_players)}


def after(pos: Position, move: str) -> dict:
    return pawns_of(pos.play(move))


def srt(*locs) -> list:
    return sorted(locs)


# --- TR-1..TR-5 geometry -------------------------------------------------------------------


def test_tr1_tr2_entries_homes_and_track_per_side():
    """A pawn on C1 of each side stands on that side's entry; H1..H4 run inwards."""
    pos = tpos(
        {0: ["C1", "H1", "O", "O"], 1: ["C1", "H4", "O", "O"], 2: ["C1", "H2", "O", "O"], 3: ["C1", "H3", "O", "O"]},
        n=4,
    )
    rows = [line.split() for line in pos.to_text().splitlines()[11:24]]
    at = lambda xy: rows[6 - xy[1]][xy[0] + 6]  # noqa: E731
    assert (at((0, -6)), at((-6, 0)), at((0, 6)), at((6, 0))) == ("A", "B", "C", "D")
    assert (at((0, -5)), at((-2, 0)), at((0, 4)), at((3, 0))) == ("A", "B", "C", "D")
    # TR-3: C13 of the bottom side is the left side's C1 (k = 18)
    assert key(0, "C13") == key(1, "C1") == (-6, 0)


def test_tr3_c1_and_c49_are_one_cell():
    """TR-3: a pawn on C48 cannot land on its C49 while its own pawn stands on C1 (one physical cell)."""
    pos = tpos({0: ["C48", "C1", "O", "O"]}, roll=1)
    assert "C48" not in pos.legal_moves()
    pos = tpos({0: ["C48", "O", "O", "O"]}, roll=1)
    assert after(pos, "C48")[0] == srt("C49", "O", "O", "O")


def test_tr4_shortcuts_join_c3_and_c11_of_every_side():
    for n in (2, 3, 4):
        for side in SIDES[n]:
            ends = {circle_xy(a) for a, b in SHORTCUTS} | {circle_xy(b) for a, b in SHORTCUTS}
            assert key(side, "C3") in ends and key(side, "C11") in ends
            pair = next(
                p for p in SHORTCUTS if circle_xy(p[0]) == key(side, "C3") or circle_xy(p[1]) == key(side, "C3")
            )
            assert {circle_xy(pair[0]), circle_xy(pair[1])} == {key(side, "C3"), key(side, "C11")}


def test_tr5_swamps_are_entered_at_c4_and_left_at_c7():
    for side in range(4):
        for j in range(1, 5):
            entrance, levels, exit_k = swamp_of(side, j)
            assert circle_xy(entrance) == key(side, f"C{4 + 12 * (j - 1)}")
            assert circle_xy(exit_k) == key(side, f"C{7 + 12 * (j - 1)}")


# --- TR-6 / TR-7 players and turns --------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_tr6_seats_sides_and_start(n):
    pos = boardenvs.position("tryasina_v0", num_players=n)
    assert pos.game.num_players == n and pos.is_chance
    assert all(p == ["O"] * 4 for p in pawns_of(pos).values())
    assert [pos.game.side_of(s) for s in range(n)] == list(SIDES[n])


def test_tr7_a_roll_no_pawn_can_use_passes_the_turn():
    """TR-7: the turn passes; the roller's one legal action is ``pass``, so
    every seat is asked once per turn (the pass is its decision)."""
    pos = boardenvs.position("tryasina_v0", num_players=3)
    rolled = pos.play("roll 5")  # everyone in the origin: only a 6 moves
    assert rolled.to_move == 0 and rolled.legal_moves() == ["pass"] and rolled.legal_actions() == [PASS]
    nxt = rolled.play("pass")
    assert nxt.is_chance and nxt.turn == 1 and nxt.to_move == -1
    assert "roller: player_1" in nxt.to_text() and pawns_of(nxt) == pawns_of(pos)
    assert nxt.decisions == rolled.decisions + 1 and nxt == Position.from_text(nxt.to_text())
    with pytest.raises(IllegalMoveError):  # pass is legal only when no pawn can move
        boardenvs.position("tryasina_v0").play("roll 6").play("pass")
    with pytest.raises(IllegalMoveError):  # and never at the roll
        pos.play("pass")


def test_tr7_every_seat_is_asked_once_per_turn():
    """TR-7 with the pass as a decision: in the AEC env the agents are asked
    strictly in turn (no seat skipped by an unusable roll)."""
    env = boardenvs.make("tryasina_v0", num_players=4)
    env.reset(seed=3)
    asked = []
    passes = 0
    for agent in env.agent_iter(max_iter=200):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        asked.append(agent)
        legal = np.flatnonzero(obs["action_mask"])
        passes += legal.tolist() == [PASS]
        env.step(int(legal[0]))
    assert asked[:100] == [f"player_{k % 4}" for k in range(100)] and passes > 20


def test_tr7_a_six_gives_no_extra_turn():
    pos = boardenvs.position("tryasina_v0").play("roll 6").play("O")
    assert pos.is_chance and "roller: player_1" in pos.to_text()


def test_tr7_moving_is_compulsory_and_one_move_per_occupied_location():
    pos = tpos({0: ["C5", "C20", "O", "O"]}, roll=6)
    assert sorted(pos.legal_moves()) == ["C20", "C5", "O"]


# --- TR-8 exact rolls ------------------------------------------------------------------------


@pytest.mark.parametrize("roll", [1, 2, 3, 4, 5, 6])
def test_tr8_leaving_the_origin_needs_a_six(roll):
    pos = tpos({0: ["O", "O", "O", "C20"]}, roll=roll)
    assert ("O" in pos.legal_moves()) == (roll == 6)
    if roll == 6:
        assert after(pos, "O")[0] == srt("C1", "C20", "O", "O")


@pytest.mark.parametrize("roll", [1, 2, 3, 4, 5, 6])
def test_tr8_leaving_the_quagmire_needs_a_six_and_goes_to_the_origin(roll):
    pos = tpos({0: ["Q", "C1", "C20", "C30"]}, roll=roll)
    assert ("Q" in pos.legal_moves()) == (roll == 6)
    if roll == 6:
        assert after(pos, "Q")[0] == srt("O", "C1", "C20", "C30")


@pytest.mark.parametrize("level, need", [(1, 1), (2, 3), (3, 6)])
def test_tr8_leaving_a_swamp_level_needs_its_exact_roll(level, need):
    for roll in range(1, 7):
        pos = tpos({0: [f"S2.{level}", "C1", "C30", "C41"]}, roll=roll)
        assert (f"S2.{level}" in pos.legal_moves()) == (roll == need)
    pos = tpos({0: [f"S2.{level}", "C1", "C30", "C41"]}, roll=need)
    assert after(pos, f"S2.{level}")[0] == srt("C19" if level == 3 else f"S2.{level + 1}", "C1", "C30", "C41")


# --- TR-9 walking, no passing through pawns ----------------------------------------------------


def test_tr9_no_passing_through_a_pawn_of_any_colour():
    pos = tpos({0: ["C5", "C20", "O", "O"], 1: ["C31", "O", "O", "O"]}, roll=4)  # player_1's C31 is our C7
    assert key(2, "C31") == key(0, "C7")
    assert pos.legal_moves() == ["C20"]  # C5 would pass C7
    own = tpos({0: ["C5", "C7", "C20", "O"]}, roll=4)
    assert "C5" not in own.legal_moves() and "C7" in own.legal_moves()


def test_tr9_tr11_landing_on_an_opponent_captures_it():
    pos = tpos({0: ["C5", "O", "O", "O"], 1: ["C31", "O", "O", "O"]}, roll=2)
    res = after(pos, "C5")
    assert res[0] == srt("C7", "O", "O", "O") and res[1] == srt("Q", "O", "O", "O")


def test_tr11_landing_on_an_own_pawn_is_illegal():
    pos = tpos({0: ["C5", "C7", "O", "O"]}, roll=2)
    assert "C5" not in pos.legal_moves()
    with pytest.raises(IllegalMoveError):
        pos.play("C5")


def test_tr11_capture_on_the_entry_cell_when_leaving_the_origin():
    pos = tpos({0: ["O", "O", "O", "C20"], 1: ["C25", "O", "O", "O"]}, roll=6)  # player_1's C25 = our entry
    assert key(2, "C25") == key(0, "C1")
    res = after(pos, "O")
    assert res[0] == srt("C1", "C20", "O", "O") and res[1] == srt("Q", "O", "O", "O")


def test_tr11_own_pawn_on_the_entry_blocks_leaving_the_origin():
    pos = tpos({0: ["O", "O", "O", "C1"]}, roll=6)
    assert "O" not in pos.legal_moves()


# --- TR-10 home end, fixed pawns and the bounce -----------------------------------------------


def test_tr10_bounce_from_the_home_end():
    pos = tpos({0: ["H2", "C10", "O", "O"]}, roll=3)  # H3, H4, back to H3
    assert after(pos, "H2")[0] == srt("H3", "C10", "O", "O")


def test_tr10_bounce_may_end_on_the_start_cell_and_change_nothing():
    pos = tpos({0: ["H2", "C10", "O", "O"]}, roll=4)  # H3, H4, H3, H2
    assert "H2" in pos.legal_moves()
    assert after(pos, "H2") == pawns_of(pos)


def test_tr10_bounce_back_onto_the_circle():
    # H2..H4 fixed: the free end is H1; from C48 a 6 goes C49, H1, C49, C48, C47, C46
    pos = tpos({0: ["C48", "H2", "H3", "H4"]}, roll=6)
    assert after(pos, "C48")[0] == srt("C46", "H2", "H3", "H4")


def test_tr10_tr12_bounce_onto_a_shortcut_end_takes_the_shortcut():
    # a 5 from C48 ends on C47 (k = 4), a shortcut end: on to C39
    pos = tpos({0: ["C48", "H2", "H3", "H4"], 1: ["C15", "O", "O", "O"]}, roll=5)
    assert key(2, "C15") == key(0, "C39")
    res = after(pos, "C48")
    assert res[0] == srt("C39", "H2", "H3", "H4") and res[1] == srt("Q", "O", "O", "O")


def test_tr10_a_bounce_is_blocked_by_pawns_on_its_way_back():
    pos = tpos({0: ["C48", "H2", "H3", "H4"], 1: ["C23", "O", "O", "O"]})  # their C23 = our C47
    assert pos.play("roll 5").to_move == 0  # a 5 lands on C47: a capture, and on along the shortcut
    rolled = pos.play("roll 6")  # a 6 would pass C47 on its way back: no move, the turn passes (TR-7)
    assert rolled.legal_moves() == ["pass"]
    passed = rolled.play("pass")
    assert passed.is_chance and pawns_of(passed) == pawns_of(pos) and "roller: player_1" in passed.to_text()


def test_tr10_fixed_pawns_never_move():
    pos = tpos({0: ["H4", "H3", "C10", "O"]}, roll=1)
    assert sorted(pos.legal_moves()) == ["C10"]
    # H3 with H4 empty is not fixed
    pos = tpos({0: ["H3", "H1", "C10", "O"]}, roll=1)
    assert "H3" in pos.legal_moves()


def test_tr10_the_free_end_moves_down_as_pawns_are_fixed():
    pos = tpos({0: ["H4", "H1", "C10", "O"]}, roll=3)  # free end H3: H2, H3, back to H2
    assert after(pos, "H1")[0] == srt("H4", "H2", "C10", "O")


def test_tr10_no_entering_another_players_home():
    """Only the own track leads home: a pawn of player_1 passes the bottom entry on its circle."""
    pos = tpos({1: ["C24", "O", "O", "O"]}, roll=2, mover=1)  # their C24 is k = 5, next to the bottom entry
    assert after(pos, "C24")[1] == srt("C26", "O", "O", "O")


# --- TR-12 shortcuts ------------------------------------------------------------------------


def test_tr12_shortcut_forwards_with_captures_at_both_ends():
    # player_0 lands on C3 and goes on to C11; player_1 pawns on both ends are captured
    pos = tpos({0: ["C1", "O", "O", "O"], 1: ["C27", "C35", "O", "O"]}, roll=2)
    assert (key(2, "C27"), key(2, "C35")) == (key(0, "C3"), key(0, "C11"))
    res = after(pos, "C1")
    assert res[0] == srt("C11", "O", "O", "O") and res[1] == srt("Q", "Q", "O", "O")


def test_tr12_shortcut_backwards_with_captures_at_both_ends():
    pos = tpos({0: ["C8", "O", "O", "O"], 1: ["C27", "C35", "O", "O"]}, roll=3)
    res = after(pos, "C8")
    assert res[0] == srt("C3", "O", "O", "O") and res[1] == srt("Q", "Q", "O", "O")


def test_tr12_own_pawn_on_either_end_makes_it_illegal():
    assert "C1" not in tpos({0: ["C1", "C11", "O", "O"]}, roll=2).legal_moves()
    assert "C8" not in tpos({0: ["C8", "C3", "O", "O"]}, roll=3).legal_moves()


# --- TR-13 / TR-14 swamps ---------------------------------------------------------------------


def test_tr13_landing_on_the_entrance_goes_into_l1():
    pos = tpos({0: ["C1", "O", "O", "O"]}, roll=3)
    assert after(pos, "C1")[0] == srt("S1.1", "O", "O", "O")


def test_tr13_full_push_chain_captures_another_colour_at_the_exit():
    """L1, L2, L3 held (two colours): each is pushed a level down, the L3
    pawn (player_1's) onto the exit C7, capturing player_2's pawn there."""
    pos = tpos({0: ["C1", "S1.2", "O", "O"], 2: ["S3.1", "S3.3", "O", "O"], 1: ["C43", "O", "O", "O"]}, n=3, roll=3)
    assert SIDES[3][1:] == (1, 2)  # player_1 plays the left side, player_2 the top
    assert key(2, "S3.1") == key(0, "S1.1") and key(2, "C31") == key(0, "C7") == key(1, "C43")
    res = after(pos, "C1")
    # ours: C1 -> S1.1, S1.2 -> S1.3; player_2's: L1 -> L2, L3 -> the exit (its C31); player_1's captured
    assert res[0] == srt("S1.1", "S1.3", "O", "O")
    assert res[2] == srt("S3.2", "C31", "O", "O")
    assert res[1] == srt("Q", "O", "O", "O")


def test_tr13_a_pushed_pawn_never_captures_its_own_colour():
    """TR-13, revised ruling: the pawn pushed out of L3 lands on the exit
    under the circle's rules, and a pawn of its own colour there blocks it:
    the whole move is illegal (the old ruling captured it)."""
    pos = tpos({0: ["C1", "S1.2", "O", "O"], 1: ["S3.1", "S3.3", "C31", "O"]}, roll=3)
    assert key(2, "C31") == key(0, "C7")  # player_1's C31 stands on the exit
    assert "C1" not in pos.legal_moves()
    # the same chain with the exit empty is legal, and with a third colour there it captures (above)
    free = tpos({0: ["C1", "S1.2", "O", "O"], 1: ["S3.1", "S3.3", "O", "O"]}, roll=3)
    assert "C1" in free.legal_moves()


def test_tr13_push_onto_an_exit_holding_the_movers_own_pawn_is_illegal():
    pos = tpos({0: ["C1", "C7", "O", "O"], 1: ["S3.1", "S3.2", "S3.3", "O"]}, roll=3)
    assert "C1" not in pos.legal_moves()


def test_tr13_chain_stopping_at_an_empty_level_is_legal_even_with_own_pawn_on_exit():
    pos = tpos({0: ["C1", "C7", "O", "O"], 1: ["S3.1", "S3.3", "O", "O"]}, roll=3)
    res = after(pos, "C1")
    assert res[0] == srt("S1.1", "C7", "O", "O") and res[1] == srt("S3.2", "S3.3", "O", "O")


def test_tr13_leaving_a_level_pushes_the_next_one():
    pos = tpos({0: ["S1.1", "C20", "O", "O"], 1: ["S3.2", "O", "O", "O"]}, roll=1)
    res = after(pos, "S1.1")
    assert res[0] == srt("S1.2", "C20", "O", "O") and res[1] == srt("S3.3", "O", "O", "O")


def test_tr14_leaving_l3_lands_on_the_exit_under_tr11():
    pos = tpos({0: ["S1.3", "C20", "O", "O"], 1: ["C31", "O", "O", "O"]}, roll=6)
    res = after(pos, "S1.3")
    assert res[0] == srt("C7", "C20", "O", "O") and res[1] == srt("Q", "O", "O", "O")
    assert "S1.3" not in tpos({0: ["S1.3", "C7", "O", "O"]}, roll=6).legal_moves()


# --- TR-15 / TR-16 end ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_tr15_first_with_four_pawns_home_wins(n):
    pos = tpos({1: ["H4", "H3", "H2", "C49"]}, n=n, roll=1, mover=1)
    end = pos.play("C49")
    assert end.is_terminal and end.end_reason == "all_home"
    assert end.returns == tuple(1.0 if s == 1 else -1.0 for s in range(n))


def test_tr16_max_turns_truncates_and_default_is_3000():
    assert boardenvs.make_game("tryasina_v0").options["max_turns"] == 3000
    pos = boardenvs.position("tryasina_v0", max_turns=2).play("roll 1").play("pass").play("roll 2").play("pass")
    assert pos.is_truncated and pos.returns == (0.0, 0.0) and pos.turn == 2


# --- TR-17 chance -----------------------------------------------------------------------------


def test_tr17_the_roll_is_a_chance_node_with_six_even_outcomes():
    pos = boardenvs.position("tryasina_v0", num_players=4)
    assert pos.to_move == -1 and pos.is_chance
    assert pos.legal_moves() == [f"roll {k}" for k in range(1, 7)]
    assert pos.chance_outcomes() == [(f"roll {k}", pytest.approx(1 / 6)) for k in range(1, 7)]
    with pytest.raises(IllegalMoveError):
        pos.play("O")  # a decision at a chance node
    with pytest.raises(IllegalMoveError):
        pos.play("roll 6").play("roll 6")  # a roll at a decision


def test_tr17_the_roll_is_in_every_observation():
    pos = boardenvs.position("tryasina_v0", num_players=3).play("roll 6")
    for seat in range(3):
        obs = pos.observation(seat)
        row = (0 - seat) % 3  # the roller's row (seat 0) in the observer's order
        assert obs[row, 80:86].tolist() == [0, 0, 0, 0, 0, 1] and obs[row, 79] == 1


def test_tr17_a_planner_sets_the_rolls_and_a_replay_is_exact():
    moves = ["roll 6", "O", "roll 6", "O", "roll 3", "C1", "roll 2", "C1", "roll 6"]
    a = boardenvs.position("tryasina_v0")
    b = boardenvs.position("tryasina_v0")
    for m in moves:
        a, b = a.play(m), b.play(m)
        assert a == b
    assert pawns_of(a)[0] == srt("S1.1", "O", "O", "O") and pawns_of(a)[1] == srt("C11", "O", "O", "O")


# --- observation: egocentric -----------------------------------------------------------------------


def test_observation_puts_the_observers_side_at_the_bottom():
    """Every seat with a pawn on its own C1 sees that pawn on the same cell (the bottom entry, k = 6)."""
    pos = tpos({s: ["C1", "O", "O", "O"] for s in range(4)}, n=4)
    for seat in range(4):
        obs = pos.observation(seat)
        assert obs[0, 6] == 1 and obs[0, :76].sum() == 1 and obs[0, 76] == 3
        assert obs[1, 18] == 1  # the next seat clockwise: its entry is on the observer's left
        assert obs[0, 86] == 1 and obs[1, 87] == 1


def test_tr3_the_observation_tells_c49_from_c1():
    """TR-3: C1 and C49 are one cell, so the cell columns alone show a pawn
    there the same before and after its lap; column 90 marks the lapped one,
    for its owner and for every other observer."""
    start, lapped = tpos({0: ["C1", "O", "O", "O"]}, n=4), tpos({0: ["C49", "O", "O", "O"]}, n=4)
    for seat in range(4):
        row = (0 - seat) % 4  # seat 0's row in the observer's order
        a, b = start.observation(seat), lapped.observation(seat)
        assert (a[:, :90] == b[:, :90]).all()
        assert a[row, 90] == 0 and b[row, 90] == 1 and b[:, 90].sum() == 1
    assert tpos({0: ["C48", "O", "O", "O"]}, n=4).observation(0)[:, 90].sum() == 0


# --- text form: no public input crashes -------------------------------------------------------------


def _board_edit(text: str, xy, token: str) -> str:
    lines = text.splitlines()
    r = 11 + 6 - xy[1]
    row = lines[r].split()
    row[xy[0] + 6] = token
    lines[r] = " ".join(row)
    return "\n".join(lines) + "\n"


def test_from_text_rejects_two_pawns_on_one_cell():
    text = ttext({0: ["C5", "O", "O", "O"], 1: ["O"] * 4})
    bad = _board_edit(text, key(0, "C5"), "AB").replace("origin: 3 4", "origin: 3 3")
    with pytest.raises(NotationError, match="one pawn per cell"):
        Position.from_text(bad)


def test_from_text_rejects_more_than_four_pawns_per_player():
    text = ttext({0: ["C5", "O", "O", "O"]})
    with pytest.raises(NotationError, match="exactly four"):
        Position.from_text(_board_edit(text, key(0, "C8"), "A"))
    with pytest.raises(NotationError, match="exactly four"):
        Position.from_text(text.replace("origin: 3 4", "origin: 4 4"))


def test_from_text_rejects_a_pawn_on_another_players_home():
    text = ttext({0: ["C5", "O", "O", "O"]}).replace("origin: 3 4", "origin: 3 3")
    with pytest.raises(NotationError, match="another player's home"):
        Position.from_text(_board_edit(text, key(2, "H2"), "A"))


def test_from_text_rejects_unreachable_pawns():
    text = ttext({0: ["C5", "O", "O", "O"]}).replace("origin: 3 4", "origin: 2 4")
    with pytest.raises(NotationError, match="swamp entrance"):
        Position.from_text(_board_edit(text, key(0, "C4"), "A"))
    with pytest.raises(NotationError, match="lower-case"):
        Position.from_text(_board_edit(text, key(0, "C9"), "a"))
    with pytest.raises(NotationError, match="not a cell"):
        Position.from_text(_board_edit(text, (1, 1), "A"))
    with pytest.raises(NotationError, match="pawn letter"):
        Position.from_text(_board_edit(text, key(0, "C9"), "C"))  # a third player's letter in a 2-player game


def test_from_text_rejects_a_finished_game_still_playing_and_bad_headers():
    with pytest.raises(NotationError, match="TR-15"):
        Position.from_text(ttext({0: ["H1", "H2", "H3", "H4"]}))
    with pytest.raises(NotationError, match="roll"):
        Position.from_text(ttext({0: ["C5", "O", "O", "O"]}, roll=None).replace("roll: -", "roll: 4"))
    with pytest.raises(NotationError, match="roll"):
        Position.from_text(ttext({0: ["C5", "O", "O", "O"]}).replace("roll: -", "roll: 7"))
    # a roll that moves no pawn leaves the roller one legal move: pass (TR-7)
    assert Position.from_text(ttext({0: ["H4", "H3", "H2", "O"]}, roll=5)).legal_moves() == ["pass"]


def test_notation_errors_name_what_is_expected():
    pos = tpos({0: ["C5", "O", "O", "O"]}, roll=2)
    for bad in ("C50", "H5", "S5.1", "X", "roll 7", ""):
        with pytest.raises(NotationError, match="expected"):
            pos.play(bad)
    with pytest.raises(IllegalMoveError):
        pos.play("C7")  # no pawn there


# --- an independent model of the rules -----------------------------------------------------------

SHORT = {3: 11, 11: 3, 15: 23, 23: 15, 27: 35, 35: 27, 39: 47, 47: 39}


def _t(name: str) -> int:
    return int(name[1:]) if name[0] == "C" else 49 + int(name[1:])


def _name_t(t: int) -> str:
    return f"C{t}" if t <= 49 else f"H{t - 49}"


def ref_result(sides, pawns, seat, loc, roll):
    """The pawns after ``seat`` moves its pawn on ``loc`` with ``roll``, or
    None if that is illegal, from the rules text alone."""
    pawns = [list(p) for p in pawns]
    pawns[seat].remove(loc)
    side = sides[seat]
    start = key(side, loc)

    def occupant(xy):
        for s, locs in enumerate(pawns):
            for i, name in enumerate(locs):
                if key(sides[s], name) == xy:
                    return s, i
        return None

    def capture(xy):
        who = occupant(xy)
        if who:
            pawns[who[0]][who[1]] = "Q"

    def enter(j, level):
        g_entrance, levels, exit_k = swamp_of(side, j)
        chain = []
        lv = level
        while lv <= 3 and occupant(levels[lv - 1]):
            chain.append(occupant(levels[lv - 1]))
            lv += 1
        if lv == 4:
            ex = occupant(circle_xy(exit_k))
            pushed = chain[-1][0]  # the L3 pawn's owner
            if ex and ex[0] in (seat, pushed):  # TR-13 (revised): never onto its own colour, nor the mover's
                return None
            capture(circle_xy(exit_k))
        for s, i in chain:  # each pushed one level on (the last one, from L3, onto the exit)
            cur = pawns[s][i]
            jj, ll = (int(v) for v in cur[1:].split("."))
            pawns[s][i] = f"C{7 + 12 * (jj - 1)}" if ll == 3 else f"S{jj}.{ll + 1}"
        pawns[seat].append(f"S{j}.{level}")
        return pawns

    def land(name):
        xy = key(side, name)
        occ = occupant(xy)
        if occ and occ[0] == seat:
            return None
        t = _t(name)
        if name[0] == "C" and t in SHORT:
            other = f"C{SHORT[t]}"
            occ2 = occupant(key(side, other))
            if occ2 and occ2[0] == seat:
                return None
            capture(xy)
            capture(key(side, other))
            pawns[seat].append(other)
            return pawns
        if name[0] == "C" and t <= 48 and t % 12 == 4:
            return enter((t - 4) // 12 + 1, 1)
        capture(xy)
        pawns[seat].append(name)
        return pawns

    if loc == "Q":
        if roll != 6:
            return None
        pawns[seat].append("O")
        return pawns
    if loc == "O":
        return land("C1") if roll == 6 else None
    if loc[0] == "S":
        j, level = (int(v) for v in loc[1:].split("."))
        if roll != {1: 1, 2: 3, 3: 6}[level]:
            return None
        return enter(j, level + 1) if level < 3 else land(f"C{7 + 12 * (j - 1)}")
    # the free end: first of H4, H3, ... not occupied (the moving pawn's cell counts)
    end = next(
        t for t in range(53, 0, -1) if key(side, _name_t(t)) != start and occupant(key(side, _name_t(t))) is None
    )
    t0 = _t(loc)
    if t0 > end:
        return None
    path = []
    t, step = t0, 1
    for _ in range(roll):
        if t == end:
            step = -1
        t += step
        path.append(t)
    if any(p < 1 for p in path):
        return None
    for p in path[:-1]:
        if key(side, _name_t(p)) != start and occupant(key(side, _name_t(p))):
            return None
    return land(_name_t(path[-1]))


def _compare_random_games(n, seeds, max_decisions=400):
    game = boardenvs.make_game("tryasina_v0", num_players=n)
    sides = SIDES[n]
    checked = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        pos = Position(game, game.new_state(seed % n, rng_seed=seed))
        for _ in range(max_decisions):
            if pos.is_terminal:
                break
            if pos.is_chance:
                pos = pos.play(f"roll {int(rng.integers(1, 7))}")
                continue
            seat, roll = pos.to_move, int(pos.state[T_ROLL])
            pawns = [pawns_of(pos)[s] for s in range(n)]
            want = {}
            for loc in set(pawns[seat]):
                res = ref_result(sides, pawns, seat, loc, roll)
                if res is not None:
                    want[loc] = [sorted(p) for p in res]
            assert sorted(pos.legal_moves()) == (sorted(want) or ["pass"]), pos.to_text()  # TR-7: pass when none moves
            for move, res in want.items():
                got = pawns_of(pos.play(move))
                assert [got[s] for s in range(n)] == res, (move, pos.to_text())
            checked += 1
            pos = pos.play(str(rng.choice(sorted(want))) if want else "pass")
    return checked


@pytest.mark.parametrize("n", [2, 3, 4])
def test_kernels_agree_with_an_independent_model_on_random_games(n):
    assert _compare_random_games(n, range(3)) > 100


def test_kernels_agree_with_the_model_in_crowded_positions():
    """Random play from positions crowded with pawns on the circle, swamps and homes."""
    rng = np.random.default_rng(5)
    cells = [f"C{i}" for i in range(1, 49) if i % 12 != 4] + [
        f"S{j}.{level}" for j in range(1, 5) for level in range(1, 4)
    ]
    checked = 0
    for _trial in range(25):
        n = int(rng.integers(2, 5))
        sides = SIDES[n]
        taken, pawns = set(), {}
        for s in range(n):
            locs = []
            homes = list(rng.permutation([1, 2, 3, 4])[: int(rng.integers(0, 3))])
            locs += [f"H{h}" for h in homes]
            while len(locs) < 4:
                c = str(rng.choice(cells + ["O", "Q"]))
                xy = key(sides[s], c)
                if xy is None or xy not in taken:
                    locs.append(c)
                    if xy is not None:
                        taken.add(xy)
            pawns[s] = locs
        roll = int(rng.integers(1, 7))
        text = ttext(pawns, n=n, roll=roll, mover=0)
        try:
            pos = Position.from_text(text)
        except NotationError as exc:
            assert "no legal move" in str(exc)
            continue
        plist = [pawns_of(pos)[s] for s in range(n)]
        want = {loc: [sorted(p) for p in r] for loc in set(plist[0]) if (r := ref_result(sides, plist, 0, loc, roll))}
        assert sorted(pos.legal_moves()) == (sorted(want) or ["pass"]), text  # TR-7: pass when no pawn moves
        for move, res in want.items():
            got = pawns_of(pos.play(move))
            assert [got[s] for s in range(n)] == res, (move, text)
        checked += 1
    assert checked >= 5


def test_from_text_refuses_a_turn_counter_the_board_cannot_have():
    """A pawn leaves its origin in a turn of its own (TR-7/TR-8: one pawn
    moves per turn, a 6 takes it out), so seven pawns out of their origins
    need seven turns at least; the other games refuse such edits too."""
    pawns = {0: ["C5", "C9", "C20", "O"], 1: ["C3", "C30", "Q", "O"]}  # 6 out (the sunk one left its origin too)
    assert Position.from_text(ttext(pawns, turn=6), setup=True).turn == 6  # (set up: TR-V1 asks for more)
    with pytest.raises(NotationError, match="at least 6 turns"):
        Position.from_text(ttext(pawns, turn=5))
    pawns[0][3] = "C41"
    with pytest.raises(NotationError, match="at least 7 turns"):
        Position.from_text(ttext(pawns, turn=0))
