"""Hex Quoridor notation (a pawn move is its destination ``e5``, a fence its
two facing pairs ``d3d4/e4e5``, both read in the mover's frame) and text form
(pawns, fences left, fences), and the checks of a parsed position:
:class:`HexQuoridorText`, a mixin of
:class:`~boardenvs.games.hex_quoridor.HexQuoridorGame`."""

from __future__ import annotations

import re

import numpy as np

from ... import engine as E
from ...errors import NotationError
from .geometry import fence_pairs
from .rules import P_ELIM, Q_LEFT, Q_OCC, Q_PAWNS, REASON_GOAL, REASON_STUCK, _reaches_goal, nobody_can_move

_CELL = r"([a-zA-Z]\d{1,2})"
_FENCE_RE = re.compile(rf"^{_CELL}{_CELL}/{_CELL}{_CELL}$")
_CELL_RE = re.compile(rf"^{_CELL}$")


class HexQuoridorText:
    """Notation and the text form (the ``Game`` hooks of those names)."""

    def fence_name(self, f: int) -> str:
        name = self.board.name
        (a, b), (c, d) = fence_pairs(self.geo.fences[f])
        return f"{name(a)}{name(b)}/{name(c)}{name(d)}"

    def _mover(self, state) -> int:
        return max(int(state[E.H_CURRENT]), 0)

    # -- notation ----------------------------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        action = self.check_action_id(action)
        k = self.frame(self._mover(state))
        if action == self.pass_action:
            return "pass"
        if action < self.num_cells:
            return self.board.name(int(self.geo.cmap[k, action]))
        return self.fence_name(int(self.geo.fmap[k, action - self.num_cells]))

    def parse_fence(self, text: str) -> int:
        """The absolute index of a fence in notation (NotationError if none)."""
        m = _FENCE_RE.match(text.strip())
        if not m:
            raise NotationError(f"{self.env_id}: malformed fence {text!r}; expected two facing pairs like 'd3d4/e4e5'")
        c = [self.board.cell(g) for g in m.groups()]
        pairs = tuple(sorted((tuple(sorted(c[:2])), tuple(sorted(c[2:])))))
        f = self.geo.fence_by_pairs.get(pairs)
        if f is None:
            raise NotationError(
                f"{self.env_id}: {text!r} is no fence: a fence separates two adjacent pairs of a rhombus of four "
                "cells on the board (HQ-6/7)"
            )
        return f

    def move_to_action(self, state, move: str) -> int:
        if not isinstance(move, str):
            raise NotationError(
                f"{self.env_id}: a move is a str like 'e5' (pawn), 'd3d4/e4e5' (fence) or 'pass', got {move!r}"
            )
        text = move.strip()
        if text == "pass":  # HQ-13
            return self.pass_action
        k = self.frame(self._mover(state))
        if _CELL_RE.match(text):
            return int(self.geo.cinv[k, self.board.cell(text)])
        if "/" in text:
            return self.num_cells + int(self.geo.finv[k, self.parse_fence(text)])
        raise NotationError(
            f"{self.env_id}: malformed move {move!r}; expected a cell like 'e5', a fence like 'd3d4/e4e5' "
            "or 'pass' (HQ-13)"
        )

    # -- text form -----------------------------------------------------------------
    def body_to_text(self, state) -> list[str]:
        name = self.board.name
        pawns = " ".join("x" if c < 0 else name(c) for c in self.pawns(state))
        fences = " ".join(self.fence_name(f) for f in self.placed_fences(state)) or "-"
        return [f"pawns: {pawns}", "fences_left: " + " ".join(map(str, self.fences_left(state))), f"fences: {fences}"]

    def body_from_text(self, lines: list[str], state) -> None:
        env, n, C = self.env_id, self.num_players, self.num_cells
        keys = ("pawns", "fences_left", "fences")
        fields = {}
        for line in lines:
            key, sep, value = line.partition(":")
            if not sep or key.strip() not in keys or key.strip() in fields:
                raise NotationError(f"{env}: unexpected line {line!r}; the body is the lines {', '.join(keys)}")
            fields[key.strip()] = value.split()
        if len(fields) != len(keys):
            raise NotationError(f"{env}: the body needs the lines {', '.join(k + ':' for k in keys)}")
        state[E.HEADER :] = self.new_state(0)[E.HEADER :]  # the empty board (init's); the header stays
        for s in range(E.MAX_PLAYERS):
            state[Q_PAWNS + s] = -1
            state[Q_LEFT + s] = 0
        state[Q_OCC : Q_OCC + C] = 0
        pawns, left, fences = fields["pawns"], fields["fences_left"], fields["fences"]
        if len(pawns) != n or len(left) != n:
            raise NotationError(f"{env}: pawns and fences_left need {n} values each (one per seat)")
        for s, tok in enumerate(pawns):
            alive = (int(state[E.H_ALIVE]) >> s) & 1
            if tok == "x":
                if alive:
                    raise NotationError(f"{env}: player_{s} is in the game (alive 1) but its pawn is 'x'")
                continue
            if not _CELL_RE.match(tok):
                raise NotationError(
                    f"{env}: pawn of player_{s} must be a cell like 'e5' (or 'x' once out), got {tok!r}"
                )
            c = self.board.cell(tok)
            if not alive:
                raise NotationError(
                    f"{env}: player_{s} is out of the game (alive 0), so its pawn is 'x', not {tok!r} (HQ-9)"
                )
            if state[Q_OCC + c]:
                raise NotationError(f"{env}: two pawns on {tok}")
            state[Q_PAWNS + s] = c
            state[Q_OCC + c] = s + 1
        for s, tok in enumerate(left):
            if not re.fullmatch(r"[0-9]{1,3}", tok):
                raise NotationError(f"{env}: fences_left of player_{s} must be a count, got {tok!r}")
            state[Q_LEFT + s] = int(tok)
        placed = [] if fences == ["-"] else fences
        blk, fen = self.blk_offset, self.fence_offset
        used = {}
        for tok in placed:
            f = self.parse_fence(tok)
            if state[fen + f]:
                raise NotationError(f"{env}: fence {tok} is listed twice")
            for j in range(6):
                slot = int(self.geo.fence_slots[f, j])
                if slot in used:
                    raise NotationError(f"{env}: fences {used[slot]} and {tok} share an edge (HQ-7)")
                used[slot] = tok
            state[fen + f] = 1
            bits = state[self.fence_bits_offset : self.fence_bits_offset + self.geo.words].view(np.uint64)
            bits[f // 64] |= np.uint64(1) << np.uint64(f % 64)
            for j in range(6):
                state[blk + self.geo.fence_slots[f, j]] = 1
        total, fpp = n * self.fences_per_player, self.fences_per_player
        have = len(placed) + sum(self.fences_left(state))
        if have != total:
            raise NotationError(
                f"{env}: {len(placed)} fences placed and {sum(self.fences_left(state))} left make {have}; the game has "
                f"{total} ({fpp} per player, HQ-5)"
            )
        if not self.params[P_ELIM] and any(c > fpp for c in self.fences_left(state)):
            raise NotationError(
                f"{env}: a player has more than its {fpp} fences; only eliminations hand fences over (HQ-9)"
            )
        if not self.params[P_ELIM] and int(state[E.H_ALIVE]) != (1 << n) - 1:
            raise NotationError(
                f"{env}: alive must be all 1: nobody is eliminated with 2 players or in team play (HQ-8, HQ-15)"
            )
        for s in range(n):
            if state[Q_PAWNS + s] < 0 and state[Q_LEFT + s]:
                raise NotationError(
                    f"{env}: player_{s} is out, so its fences went to the placer (HQ-9); its fences_left is 0"
                )

    def check_history(self, state) -> None:
        """HQ-V1: each turn places one fence or moves one pawn at most two
        cells, so the fences placed and the pawns' distances from their
        starts bound the turn counter from below."""
        env, n = self.env_id, self.num_players
        placed = len(self.placed_fences(state))
        turns = placed
        for s in range(n):
            cell = int(state[Q_PAWNS + s])
            if cell >= 0:
                turns += -(-self.board.distance(int(self.geo.start[self.sides[s]]), cell) // 2)
        if turns > int(state[E.H_TURN]):
            raise NotationError(
                f"{env}: the pawns stand away from their starts and {placed} fences are placed, which takes at "
                f"least {turns} turns, but this is turn {int(state[E.H_TURN])} (HQ-V1)"
            )

    def check_state(self, state) -> None:
        env, n = self.env_id, self.num_players
        status, mover = int(state[E.H_STATUS]), int(state[E.H_CURRENT])
        if mover == E.CHANCE:
            raise NotationError(f"{env}: there are no chance nodes; to_move must be a player")
        placed = len(self.placed_fences(state))
        if placed > int(state[E.H_TURN]):
            raise NotationError(f"{env}: {placed} fences placed in {int(state[E.H_TURN])} turns (one per turn)")
        on_goal = [
            s
            for s in range(n)
            if state[Q_PAWNS + s] >= 0 and self.geo.on_side[(self.sides[s] + 3) % 6, state[Q_PAWNS + s]]
        ]
        stamp, stack = np.zeros(self.num_cells + 1, np.int64), np.zeros(self.num_cells + 1, np.int64)
        for s in range(n):
            if state[Q_PAWNS + s] >= 0 and not _reaches_goal(state, self.params, s, stamp, s + 1, stack):
                raise NotationError(f"{env}: player_{s}'s pawn has no path to its goal side (HQ-8/HQ-9)")
        if status == E.PLAYING:
            if not E.is_alive(state, mover):
                raise NotationError(f"{env}: to_move player_{mover} is out of the game")
            if on_goal:
                raise NotationError(f"{env}: player_{on_goal[0]} stands on its goal side, so the game is over (HQ-14)")
        elif status == E.TERMINATED and state[E.H_REASON] == REASON_GOAL:
            rets = [int(state[E.H_RET + s]) for s in range(n)]
            if len(on_goal) != 1:
                raise NotationError(f"{env}: reason goal needs exactly one pawn on its goal side (HQ-14)")
            w = on_goal[0]
            want = [1 if self.team_of(s) == self.team_of(w) and E.is_alive(state, s) else -1 for s in range(n)]
            if rets != want:
                raise NotationError(
                    f"{env}: player_{w} reached its goal, so the returns are {' '.join(map(str, want))} (HQ-14/15)"
                )
        elif status == E.TERMINATED and state[E.H_REASON] == REASON_STUCK:
            if not nobody_can_move(state, self.params):
                raise NotationError(f"{env}: reason no_legal_move, but a player in the game has a legal move (HQ-13)")
