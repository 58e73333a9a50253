"""Tryasina notation (``roll 4``, ``C12``, ``pass``, ...) and text form (the
13 x 13 board, origin and quagmire counts), and the checks of a parsed
position: :class:`TryasinaText`, a mixin of
:class:`~boardenvs.games.tryasina.TryasinaGame`."""

from __future__ import annotations

import re

import numpy as np

from ... import engine as E
from ...errors import IllegalMoveError, NotationError
from ...textform import turns_of
from .rules import (
    CELL_XY,
    DIAGONAL_XY,
    HOME0,
    LETTERS,
    LOC2CELL,
    LOC_C1,
    LOC_H1,
    LOC_O,
    LOC_Q,
    LOC_S,
    NUM_CIRCLE,
    NUM_FACES,
    NUM_LOCS,
    PASS,
    PAWNS,
    QUAGMIRE_XY,
    REASON_HOME,
    SIDE_NAMES,
    T_CELLS,
    T_LAST,
    T_PAWNS,
    T_ROLL,
    T_ROLLER,
    XY_CELL,
)

# --- notation -------------------------------------------------------------------


def loc_name(loc: int) -> str:
    if loc == LOC_O:
        return "O"
    if loc == LOC_Q:
        return "Q"
    if loc < LOC_H1:
        return f"C{loc - 1}"
    if loc < LOC_S:
        return f"H{loc - LOC_H1 + 1}"
    j, level = divmod(loc - LOC_S, 3)
    return f"S{j + 1}.{level + 1}"


LOC_NAMES = [loc_name(i) for i in range(NUM_LOCS)]
_LOC_OF = {name: i for i, name in enumerate(LOC_NAMES)}
_ROLL_RE = re.compile(r"^roll ([1-6])$")

# text and pictures: the 13 x 13 board, y = 6 (top) .. -6 (bottom)
EMPTY_CH, GRASS_CH, QUAG_CH = ".", "-", "~"


def _static_char(x, y) -> str:
    if (x, y) in XY_CELL:
        return EMPTY_CH
    if (x, y) in QUAGMIRE_XY:
        return QUAG_CH
    if (x, y) in DIAGONAL_XY:
        return "\\" if DIAGONAL_XY[(x, y)] % 2 == 0 else "/"
    return GRASS_CH


STATIC_BOARD = [[_static_char(x, y) for x in range(-6, 7)] for y in range(6, -7, -1)]


class TryasinaText:
    """Notation and the text form (the ``Game`` hooks of those names)."""

    # -- notation ------------------------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        action = self.check_action_id(action)
        if state[E.H_CURRENT] == E.CHANCE and state[E.H_STATUS] == E.PLAYING:
            if action >= NUM_FACES:
                raise IllegalMoveError(f"{self.env_id}: action {action} is no chance outcome (0..5 = roll 1..6)")
            return f"roll {action + 1}"
        if action == PASS:
            return "pass"
        return LOC_NAMES[action]

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str):
            raise NotationError(
                f"{self.env_id}: a move is a str like 'roll 4', 'O', 'C12', 'H2' or 'S1.3', got {move!r}"
            )
        text = " ".join(move.split())
        roll = _ROLL_RE.match(text)
        if not roll and text.upper() not in _LOC_OF and text != "pass":
            raise NotationError(
                f"{self.env_id}: malformed move {move!r}; expected 'roll 1'..'roll 6', a location in the mover's "
                "track terms: O, Q, C1..C49, H1..H4, S1.1..S4.3, or 'pass' (when the roll moves no pawn)"
            )
        at_chance = state[E.H_CURRENT] == E.CHANCE and state[E.H_STATUS] == E.PLAYING
        if bool(roll) != bool(at_chance):
            who = "chance" if at_chance else self.seat_name(int(state[E.H_CURRENT]))
            raise IllegalMoveError(f"{self.env_id}: {move!r} is not a move for {who}")
        if text == "pass":
            return PASS
        return int(roll.group(1)) - 1 if roll else _LOC_OF[text.upper()]

    # -- text form -----------------------------------------------------------
    def board_rows(self, state) -> list[list[str]]:
        rows = [list(r) for r in STATIC_BOARD]
        for seat in range(self.num_players):
            side = self.side_of(seat)
            for loc in self.pawn_locations(state, seat):
                cell = int(LOC2CELL[side, loc])
                if cell >= 0:
                    x, y = (int(v) for v in CELL_XY[cell])
                    lapped = loc == LOC_C1 + 48  # C49: on its own entry cell, lap done
                    rows[6 - y][x + 6] = LETTERS[seat].lower() if lapped else LETTERS[seat]
        return rows

    def free_fields(self, state) -> dict:
        """The last pawn move (seat, from, to: the pictures') is no part of a position text."""
        return {**super().free_fields(state), "last_move": (-1, (self.num_players - 1, NUM_LOCS - 1, NUM_LOCS - 1))}

    def body_to_text(self, state) -> list[str]:
        n = self.num_players
        roll = int(state[T_ROLL])
        counts = [[self.pawn_locations(state, s).count(loc) for s in range(n)] for loc in (LOC_O, LOC_Q)]
        return (
            [f"roller: {self.seat_name(int(state[T_ROLLER]))}", f"roll: {roll if roll else '-'}", "board:"]
            + [" ".join(r) for r in self.board_rows(state)]
            + ["origin: " + " ".join(map(str, counts[0])), "quagmire: " + " ".join(map(str, counts[1]))]
        )

    def body_from_text(self, lines: list[str], state) -> None:
        n = self.num_players
        env = self.env_id
        if len(lines) != 18 or lines[2] != "board:":
            raise NotationError(
                f"{env}: the body is 'roller:', 'roll:', 'board:', 13 board rows, 'origin:' and 'quagmire:'"
            )
        head = {}
        for line in lines[:2] + lines[16:]:
            key, sep, value = line.partition(":")
            head[key] = value.split()
        if set(head) != {"roller", "roll", "origin", "quagmire"}:
            raise NotationError(f"{env}: expected the lines roller:, roll:, origin:, quagmire:; got {sorted(head)}")
        roller = head["roller"][0] if len(head["roller"]) == 1 else ""
        if not re.fullmatch(rf"player_[0-{n - 1}]", roller):
            raise NotationError(f"{env}: roller must be player_0..player_{n - 1}, got {roller!r}")
        roll = head["roll"][0] if len(head["roll"]) == 1 else ""
        if roll not in ("-", "1", "2", "3", "4", "5", "6"):
            raise NotationError(f"{env}: roll must be '-' (before the roll) or 1..6, got {roll!r}")
        state[T_ROLLER] = int(roller[7:])
        state[T_ROLL] = 0 if roll == "-" else int(roll)
        pawns: list[list[int]] = [[] for _ in range(n)]
        for key, loc in (("origin", LOC_O), ("quagmire", LOC_Q)):
            vals = head[key]
            if len(vals) != n or any(not re.fullmatch("[0-4]", v) for v in vals):
                raise NotationError(f"{env}: {key} needs {n} counts 0..4 (one per seat), got {' '.join(vals)!r}")
            for s, v in enumerate(vals):
                pawns[s] += [loc] * int(v)
        for r, line in enumerate(lines[3:16]):
            tokens = line.split()
            y = 6 - r
            if len(tokens) != 13:
                raise NotationError(f"{env}: board row {r + 1} (y = {y}) needs 13 tokens, got {line!r}")
            for c, tok in enumerate(tokens):
                x = c - 6
                static = STATIC_BOARD[r][c]
                if tok == static:
                    continue
                where = f"({x},{y})"
                if len(tok) > 1 and all(ch.upper() in LETTERS for ch in tok):
                    raise NotationError(
                        f"{env}: {tok!r} on {where}: one pawn per cell (only origins and quagmires hold several)"
                    )
                if len(tok) != 1 or tok.upper() not in LETTERS[:n]:
                    raise NotationError(
                        f"{env}: {tok!r} on {where}; expected {static!r} there or a pawn letter {LETTERS[:n]} "
                        "(lower case: on its own entry cell after its lap, C49)"
                    )
                if static != EMPTY_CH:
                    raise NotationError(f"{env}: pawn {tok!r} on {where}, which is not a cell (TR-1..TR-5)")
                seat = LETTERS.index(tok.upper())
                side = self.side_of(seat)
                cell = XY_CELL[(x, y)]
                locs = np.flatnonzero(LOC2CELL[side] == cell)
                if len(locs) == 0:
                    owner = (cell - HOME0) // 4
                    raise NotationError(
                        f"{env}: pawn {tok!r} on {where}, the {SIDE_NAMES[owner]} home: no pawn enters "
                        "another player's home (TR-2)"
                    )
                loc = int(locs[0])
                if tok.islower():
                    if loc != LOC_C1:
                        raise NotationError(
                            f"{env}: lower-case {tok!r} on {where}: only a pawn on its own entry cell is "
                            "written lower case (C49)"
                        )
                    loc = LOC_C1 + 48
                t = loc - 1
                if loc < LOC_H1 and t <= NUM_CIRCLE and t % 12 == 4:
                    raise NotationError(
                        f"{env}: pawn {tok!r} on {where}, a swamp entrance: a pawn never stops there (TR-13)"
                    )
                pawns[seat].append(loc)
                state[T_CELLS + cell] = seat + 1
        for s in range(n):
            if len(pawns[s]) != PAWNS:
                raise NotationError(
                    f"{env}: player_{s} ({LETTERS[s]}) has {len(pawns[s])} pawns (board + origin + "
                    "quagmire); every player has exactly four"
                )
            state[T_PAWNS + PAWNS * s : T_PAWNS + PAWNS * (s + 1)] = sorted(pawns[s])
        state[T_LAST : T_LAST + 3] = -1

    def check_history(self, state) -> None:
        """TR-V1: a turn moves at most one pawn (TR-7), the seats roll in
        order, and only a 6 on its owner's turn takes a pawn out of its
        origin, onto C1 (TR-8); only its owner's walk takes it further
        (pushes move swamp pawns, which walked there). So a seat has played
        at least one turn per pawn out of its origin, two for one past C1
        (not C1 itself, not sunk in the quagmire)."""
        n, turn, roller = self.num_players, int(state[E.H_TURN]), int(state[T_ROLLER])
        for s in range(n):
            locs = self.pawn_locations(state, s)
            need = sum(0 if loc == LOC_O else 1 if loc in (LOC_Q, LOC_C1) else 2 for loc in locs)
            played = turns_of(s, roller, turn, n)
            if need > played:
                out = sum(loc != LOC_O for loc in locs)
                raise NotationError(
                    f"{self.env_id}: player_{s} has {out} pawns out of its origin, which takes at least {need} of "
                    f"its turns (one to leave on a 6, one more to walk past C1), but it played {played} (TR-V1)"
                )

    def check_state(self, state) -> None:
        n = self.num_players
        env = self.env_id
        home = [sum(LOC_H1 <= loc < LOC_S for loc in self.pawn_locations(state, s)) for s in range(n)]
        done = [s for s in range(n) if home[s] == PAWNS]
        status, code = int(state[E.H_STATUS]), int(state[E.H_REASON])
        cur, roller, roll = int(state[E.H_CURRENT]), int(state[T_ROLLER]), int(state[T_ROLL])
        if len(done) > 1:
            raise NotationError(f"{env}: players {done} all have four pawns home; the game ends with the first (TR-15)")
        out = sum(loc != LOC_O for s in range(n) for loc in self.pawn_locations(state, s))
        if int(state[E.H_TURN]) < out:
            raise NotationError(
                f"{env}: turn {int(state[E.H_TURN])} with {out} pawns out of their origins: a pawn leaves its "
                f"origin in a turn of its own (one pawn moves per turn, TR-7/TR-8), so at least {out} turns were played"
            )
        if status == E.PLAYING:
            if done:
                raise NotationError(f"{env}: player_{done[0]} has all four pawns home, so the game is over (TR-15)")
            if cur == E.CHANCE and roll != 0:
                raise NotationError(f"{env}: to_move chance needs roll '-' (the die is not rolled yet)")
            if cur != E.CHANCE and (cur != roller or roll == 0):
                raise NotationError(f"{env}: to_move must be chance (roll '-') or the roller with its roll 1..6 (TR-7)")
        elif status == E.TERMINATED and code == REASON_HOME:
            want = [1 if s in done else -1 for s in range(n)]
            rets = [int(state[E.H_RET + s]) for s in range(n)]
            if not done or rets != want:
                raise NotationError(
                    f"{env}: reason all_home needs one player with four pawns home and returns +1 for it, "
                    "-1 for the others"
                )
        elif status != E.PLAYING and done:
            raise NotationError(
                f"{env}: player_{done[0]} has all four pawns home, so the game ended by the rules (all_home)"
            )
