"""``Position``: a python-chess-like, immutable view of one game state.

For people, tests and planners: moves in each game's notation, ``play``
returns a new Position, ``copy`` is a row copy.  The rules are the kernels';
this class only validates and translates.
"""
from __future__ import annotations

import numpy as np

from . import engine as E
from .errors import IllegalMoveError, NotationError
from .game import Game


class Position:
    __slots__ = ("game", "state")

    def __init__(self, game: Game, state: np.ndarray):
        self.game = game
        self.state = state

    # -- what a user asks ---------------------------------------------------
    @property
    def to_move(self) -> int:
        """The seat to act, or -1 at a chance node (the seat that would move
        next once the game is over)."""
        return int(self.state[E.H_CURRENT])

    @property
    def is_chance(self) -> bool:
        return self.to_move == E.CHANCE and not self.is_terminal

    @property
    def is_terminal(self) -> bool:
        """True once the game has ended, by its rules or by ``max_turns``."""
        return int(self.state[E.H_STATUS]) != E.PLAYING

    @property
    def is_truncated(self) -> bool:
        return int(self.state[E.H_STATUS]) == E.TRUNCATED

    @property
    def returns(self) -> tuple[float, ...]:
        return tuple(float(self.state[E.H_RET + s]) for s in range(self.game.num_players))

    @property
    def turn(self) -> int:
        return int(self.state[E.H_TURN])

    @property
    def end_reason(self) -> str:
        return self.game.end_reason(self.state)

    def alive(self, seat: int) -> bool:
        return bool((int(self.state[E.H_ALIVE]) >> seat) & 1)

    def action_mask(self) -> np.ndarray:
        return self.game.legal_mask(self.state)

    def legal_actions(self) -> list[int]:
        return [int(a) for a in np.flatnonzero(self.action_mask())]

    def legal_moves(self) -> list[str]:
        """Legal moves (or, at a chance node, outcomes) in the game's notation."""
        return [self.game.action_to_move(self.state, a) for a in self.legal_actions()]

    def chance_outcomes(self) -> list[tuple[str, float]]:
        """``[(outcome, probability), ...]`` at a chance node, else ``[]``."""
        if not self.is_chance:
            return []
        probs = self.game.chance_probs(self.state)
        return [(self.game.action_to_move(self.state, a), float(probs[a])) for a in np.flatnonzero(probs)]

    def observation(self, seat: int) -> np.ndarray:
        return self.game.observe(self.state, seat)

    def move_to_action(self, move: str) -> int:
        return self.game.move_to_action(self.state, move)

    def action_to_move(self, action: int) -> str:
        return self.game.action_to_move(self.state, action)

    def play(self, move) -> "Position":
        """A new Position after ``move`` (notation string or action id).

        Raises NotationError for a malformed string, IllegalMoveError for a
        move that is not legal here; this Position never changes."""
        if isinstance(move, str):
            action = self.game.move_to_action(self.state, move)
        elif isinstance(move, (int, np.integer)) and not isinstance(move, bool):
            action = int(move)
        else:
            raise NotationError(f"{self.game.env_id}: a move is a notation string or an action id, got {move!r}")
        if self.is_terminal:
            raise IllegalMoveError(f"{self.game.env_id}: illegal move {move!r}: the game is over")
        mask = self.action_mask()
        if not (0 <= action < mask.shape[0] and mask[action]):
            who = "chance" if self.is_chance else f"player_{self.to_move}"
            raise IllegalMoveError(f"{self.game.env_id}: illegal move {move!r} for {who}")
        state = self.state.copy()
        self.game.kernels.apply(state, self.game.params, action)
        return Position(self.game, state)

    def copy(self) -> "Position":
        return Position(self.game, self.state.copy())

    # -- text ----------------------------------------------------------------
    def to_text(self) -> str:
        return self.game.to_text(self.state)

    @classmethod
    def from_text(cls, text: str) -> "Position":
        from .registry import make_game

        if not isinstance(text, str):
            raise NotationError(f"position text must be a str, got {type(text).__name__}")
        lines = [ln.rstrip() for ln in text.strip("\n").splitlines()]
        fields = {}
        body_start = 0
        for k, line in enumerate(lines):
            key, sep, value = line.partition(":")
            if not sep or key in ("board",) or key.startswith(" "):
                break
            fields[key] = value.strip()
            body_start = k + 1
            if key == "returns":
                break
        if "game" not in fields:
            raise NotationError("position text must start with 'game: <env id>'")
        options = {}
        for item in fields.get("options", "").split():
            key, sep, value = item.partition("=")
            if not sep:
                raise NotationError(f"malformed option {item!r}; expected key=value")
            options[key] = int(value) if value.lstrip("-").isdigit() else value
        try:
            game = make_game(fields["game"], **options)
        except (TypeError, ValueError) as exc:
            raise NotationError(f"position text: {exc}") from None
        state = np.zeros(game.state_size, np.int64)
        game.header_from_text(fields, state)
        game.body_from_text(lines[body_start:], state)
        return cls(game, state)

    def __str__(self) -> str:
        return self.game.render_ansi(self.state)

    def __repr__(self) -> str:
        return f"<Position {self.game.env_id} turn={self.turn} to_move={self.to_move}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and self.to_text() == other.to_text()

    def __hash__(self) -> int:
        return hash(self.to_text())
