"""``Position``: a python-chess-like, immutable view of one game state.

For people, tests and planners: moves in each game's notation, ``play``
returns a new Position, ``copy`` is a row copy.  A *move* is a whole turn
(``legal_moves()`` lists them, ``play()`` takes one); an *action* is one
decision (``legal_actions()``, ``play(int)``).  The rules are the kernels';
this class only validates and translates.
"""

from __future__ import annotations

import numpy as np

from . import engine as E
from .errors import IllegalMoveError, NotationError
from .game import Game
from .spec import is_int, parse_option_items
from .textform import split_text


class Position:
    """One game state (see the module docstring).  A Position never changes
    (:meth:`play` and :meth:`copy` return new ones; ``state`` is a copy of
    its row); it copies and pickles as its row."""

    __slots__ = ("game", "_state")

    def __init__(self, game: Game, state: np.ndarray, setup: bool = False):
        """``setup``: the row may be a set-up position (a puzzle), which need
        not be reachable by play from the start (``Game.check_history``)."""
        if not isinstance(game, Game):
            raise TypeError(f"Position(game, state): game must be a boardenvs Game, got {type(game).__name__}")
        state = state.copy() if isinstance(state, np.ndarray) else state  # its own row: the caller's may change later
        game.check_row(state, "Position(game, state): state", setup)  # C-6: a state the rules could reach
        self.game = game
        self._state = state

    @classmethod
    def _own(cls, game: Game, state: np.ndarray) -> Position:
        """A Position over ``state``, a fresh row no one else holds (the
        faces' snapshots and :meth:`play`): no check, no second copy."""
        pos = cls.__new__(cls)
        pos.game, pos._state = game, state
        return pos

    @property
    def state(self) -> np.ndarray:
        """A copy of the state row (a Position never changes: writing into
        the copy changes nothing here)."""
        return self._state.copy()

    def __getstate__(self):
        return self.game, self._state

    def __setstate__(self, state):
        """An unpickled Position's row is checked as ``Position(game, state)``'s
        (a pickle is data from outside: C-6)."""
        game, row = state
        if not isinstance(game, Game) or not isinstance(row, np.ndarray):
            raise ValueError(
                f"a pickled Position is a Game and its row, got {type(game).__name__}, {type(row).__name__}"
            )
        row = np.array(row, np.int64) if row.dtype == np.int64 else row
        game.check_row(row, "an unpickled Position's row")
        self.game, self._state = game, row

    # -- what a user asks ---------------------------------------------------
    @property
    def to_move(self) -> int:
        """The seat to act, or -1 at a chance node (the seat that would move
        next once the game is over)."""
        return int(self._state[E.H_CURRENT])

    @property
    def is_chance(self) -> bool:
        """True at a chance node (a die to roll) of a game still going."""
        return self.to_move == E.CHANCE and not self.is_terminal

    @property
    def is_terminal(self) -> bool:
        """True once the game has ended, by its rules or by a limit."""
        return int(self._state[E.H_STATUS]) != E.PLAYING

    @property
    def is_truncated(self) -> bool:
        """True when the game was cut short (``max_turns``, ``max_cycles``, a game's own limit) rather than decided."""
        return int(self._state[E.H_STATUS]) == E.TRUNCATED

    @property
    def returns(self) -> tuple[float, ...]:
        """Each seat's return so far (+1 / -1 / 0 at the end, 0 while the game goes on)."""
        return tuple(float(self._state[E.H_RET + s]) for s in range(self.game.num_players))

    @property
    def turn(self) -> int:
        """Completed turns (what the rules call moves)."""
        return int(self._state[E.H_TURN])

    @property
    def decisions(self) -> int:
        """Decisions and chance outcomes applied so far."""
        return int(self._state[E.H_DECISIONS])

    @property
    def end_reason(self) -> str:
        """Why the game ended, by name (the env card lists a game's end reasons); ``"-"`` while it goes on."""
        return self.game.end_reason(self._state)

    def _seat(self, seat) -> int:
        n = self.game.num_players
        if not is_int(seat) or not 0 <= seat < n:
            raise ValueError(f"{self.game.env_id}: a seat is an int 0..{n - 1}, got {seat!r}")
        return int(seat)

    def alive(self, seat: int) -> bool:
        """Whether seat ``seat`` (an int) is still in the game (games with eliminations take seats out)."""
        return bool((int(self._state[E.H_ALIVE]) >> self._seat(seat)) & 1)

    def action_mask(self) -> np.ndarray:
        """The legal decisions (or, at a chance node, the possible outcomes) as an ``int8`` mask over the action ids."""
        return self.game.legal_mask(self._state)

    def legal_actions(self) -> list[int]:
        """Legal decisions (or, at a chance node, outcomes) as action ids."""
        return [int(a) for a in np.flatnonzero(self.action_mask())]

    def legal_turns(self) -> list[list[int]]:
        """Every chain of actions that completes the current turn (one action
        each for single-decision games, one outcome each at a chance node)."""
        if not self.game.multi_decision_turns or self.is_chance:
            return [[a] for a in self.legal_actions()]
        game, start = self.game, self._state
        chains: list[list[int]] = []

        def walk(state, chain):
            scratch = np.empty(game.mask_size, np.int8)  # (the step computes the mask itself)
            for a in np.flatnonzero(game.legal_mask(state)):
                after = state.copy()
                game.step(after, int(a), scratch, mode=E.ILLEGAL_REFUSE, settle=False)  # the engine's step
                if turn_over(start, after):
                    chains.append(chain + [int(a)])
                else:
                    walk(after, chain + [int(a)])

        walk(start, [])
        return chains

    def legal_moves(self) -> list[str]:
        """Legal moves (whole turns; at a chance node, outcomes) in the game's notation."""
        return [self.game.actions_to_move(self._state, chain) for chain in self.legal_turns()]

    def chance_outcomes(self) -> list[tuple[str, float]]:
        """``[(outcome, probability), ...]`` at a chance node, else ``[]``."""
        if not self.is_chance:
            return []
        probs = self.game.chance_probs(self._state)
        return [(self.game.action_to_move(self._state, a), float(probs[a])) for a in np.flatnonzero(probs)]

    def observation(self, seat: int) -> np.ndarray:
        """The observation of ``seat`` (its own frame)."""
        return self.game.observe(self._state, self._seat(seat))

    def move_to_action(self, move: str) -> int:
        """One decision in notation as its action id (NotationError if malformed)."""
        if not isinstance(move, str):
            raise NotationError(f"{self.game.env_id}: a move is a str, got {move!r}")
        return self.game.move_to_action(self._state, move)

    def move_to_actions(self, move: str) -> list[int]:
        """A whole turn in notation as its chain of action ids."""
        return self.game.move_to_actions(self._state, move)

    def action_to_move(self, action: int) -> str:
        """One decision's notation; IllegalMoveError if ``action`` is no
        action id or does not decode in this position."""
        return self.game.action_to_move(self._state, self.game.check_action_id(action))

    def play(self, move) -> Position:
        """A new Position after ``move``: a whole turn in notation, or one
        decision as an action id.

        Raises NotationError for a malformed string, IllegalMoveError for a
        move that is not legal here; this Position never changes."""
        env_id = self.game.env_id
        if isinstance(move, str):
            actions = self.game.move_to_actions(self._state, move)
            whole_turn = True
        elif is_int(move):
            actions = [int(move)]
            whole_turn = False
        else:
            raise NotationError(f"{env_id}: a move is a notation string or an action id, got {move!r}")
        if self.is_terminal:
            raise IllegalMoveError(f"{env_id}: illegal move {move!r}: the game is over")
        state = self._state.copy()
        mask = np.empty(self.game.mask_size, np.int8)  # (the step computes it)
        for k, action in enumerate(actions):
            if state[E.H_STATUS] != E.PLAYING or (k and turn_over(self._state, state)):
                raise IllegalMoveError(f"{env_id}: illegal move {move!r}: the turn is over after {k} decision(s)")
            refused = not 0 <= action < mask.shape[0]
            if not refused:  # the engine's one step, refusing an illegal action (nothing changes then)
                refused = self.game.step(state, action, mask, mode=E.ILLEGAL_REFUSE, settle=False) == E.STEP_REFUSED
            if refused:
                who = "chance" if state[E.H_CURRENT] == E.CHANCE else f"player_{int(state[E.H_CURRENT])}"
                step = f" (decision {k + 1})" if len(actions) > 1 else ""
                raise IllegalMoveError(f"{env_id}: illegal move {move!r}{step} for {who}")
        if whole_turn and not turn_over(self._state, state):
            raise IllegalMoveError(
                f"{env_id}: {move!r} is not a whole turn: player_{int(state[E.H_CURRENT])} still has to decide"
            )
        return Position._own(self.game, state)

    def roll(self) -> Position:
        """At a chance node, the Position after the seeded die's outcome: drawn
        by the outcomes' probabilities from this position's own generator (its
        row's, seeded where the game began: :func:`boardenvs.position`'s
        ``seed``), the die every face rolls.  The same Position always rolls the
        same outcome, which the new Position's ``last_action`` names.
        IllegalMoveError where no die is to be rolled."""
        if not self.is_chance:
            raise IllegalMoveError(f"{self.game.env_id}: roll() at a chance node only (none here)")
        state = self._state.copy()
        outcome = self.game.draw_chance(state)  # (the copy's generator moves on, this Position's does not)
        self.game.step(state, outcome, np.empty(self.game.mask_size, np.int8), settle=False)
        return Position._own(self.game, state)

    @property
    def last_action(self) -> int:
        """The last decision or chance outcome played to reach this Position (-1 at the start)."""
        return int(self._state[E.H_LAST_ACTION])

    def copy(self) -> Position:
        """An independent copy (a Position never changes, so this is rarely needed)."""
        return Position._own(self.game, self._state.copy())

    # -- text ----------------------------------------------------------------
    def to_text(self) -> str:
        """The position as text: a header (game, options, to move, ...) and
        the board; :meth:`from_text` reads it back."""
        return self.game.to_text(self._state)

    @classmethod
    def from_text(cls, text: str, setup: bool = False) -> Position:
        """The Position of a text written by :meth:`to_text`.  Every text is
        either a consistent position the rules could reach or a
        NotationError saying which field is wrong.  ``setup=True`` admits a
        set-up position (a puzzle, a rules test): consistent, but not
        necessarily reachable by play from the start (the invariants each
        rules page lists under its valid positions, ``Game.check_history``)."""
        from .registry import make_game

        fields, body = split_text(text)
        if "game" not in fields:
            raise NotationError("position text must start with 'game: <env id>'")
        options = parse_option_items(fields.get("options", "").split(), NotationError, "position text")
        try:
            game = make_game(fields["game"], **options)
        except (TypeError, ValueError) as exc:
            raise NotationError(f"position text: {exc}") from None
        return cls._own(game, game.from_text_fields(fields, body, setup))

    # -- JSON (boardenvs/jsonform.py: the schema) ----------------------------
    def to_dict(self, legal_moves: bool = False) -> dict:
        """The position as a JSON document of Python values (``json.dumps``
        writes it): ``schema`` / ``version``, ``game``, ``options``, the
        header (``to_move``, ``turn``, ``status``, ``reason``, ``alive``,
        ``returns``) and the game's fields by name (``board``, ...; the
        fields of its text form).  With ``legal_moves``, also
        ``"legal_moves"``: :meth:`legal_moves_json`'s list.  The schema is
        documented in ``boardenvs.jsonform``."""
        from .jsonform import legal_moves as moves
        from .jsonform import to_dict

        if not isinstance(legal_moves, bool):
            raise ValueError(f"legal_moves must be True or False, got {legal_moves!r}")
        return to_dict(self.game, self._state, moves(self) if legal_moves else None)

    def to_json(self, legal_moves: bool = False, indent: int | None = None) -> str:
        """:meth:`to_dict` as a JSON text; :meth:`from_json` reads it back."""
        import json

        if indent is not None and not (is_int(indent) and 0 <= indent <= 16):
            raise ValueError(f"indent must be None or an int 0..16, got {indent!r}")
        return json.dumps(self.to_dict(legal_moves), indent=indent)

    @classmethod
    def from_json(cls, doc, setup: bool = False) -> Position:
        """The Position of a JSON document (a JSON text, or the dict of
        :meth:`to_dict`).  Every document is checked like a position text
        (:meth:`from_text`): a consistent position the rules could reach, or
        a NotationError naming the field that is wrong (a wrong schema or
        version, a value of the wrong type, a board the rules cannot reach, a
        ``legal_moves`` list that is not this position's).  ``setup``: as
        :meth:`from_text`'s."""
        from .jsonform import check_legal_moves, from_dict, parse

        doc = doc if isinstance(doc, dict) else parse(doc)
        game, state = from_dict(doc, setup)
        pos = cls._own(game, state)
        check_legal_moves(doc, pos)
        return pos

    def legal_moves_json(self) -> list[dict]:
        """The legal moves as JSON-ready dicts: ``[{"move": "F3-E3",
        "actions": [75]}, ...]``, every whole turn in notation with its chain
        of action ids (at a chance node each outcome, with its
        ``"probability"``); ``[]`` once the game is over."""
        from .jsonform import legal_moves

        return legal_moves(self)

    def __str__(self) -> str:
        from .render import ansi_frame

        return ansi_frame(self.game, self._state)

    def render(self, mode: str = "rgb_array"):
        """The picture of this position: ``"rgb_array"`` (``uint8 (H, W, 3)``,
        the board with legend, turn, last move and result) or ``"ansi"``."""
        from .render import ansi_frame, rgb_frame

        if mode not in ("ansi", "rgb_array") or mode not in self.game.render_modes:
            raise ValueError(f"{self.game.env_id}: mode must be one of {list(self.game.render_modes)}, got {mode!r}")
        return ansi_frame(self.game, self._state) if mode == "ansi" else rgb_frame(self.game, self._state)

    def _repr_png_(self) -> bytes | None:
        """The picture of :meth:`render` as PNG bytes: how Jupyter shows a
        Position (None, and so its text, without Pillow, the render extra)."""
        import io

        try:
            from PIL import Image
        except ImportError:
            return None
        buf = io.BytesIO()
        Image.fromarray(self.render("rgb_array")).save(buf, format="PNG")
        return buf.getvalue()

    def __repr__(self) -> str:
        return f"<Position {self.game.env_id} turn={self.turn} to_move={self.to_move}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and self.to_text() == other.to_text()

    def __hash__(self) -> int:
        return hash(self.to_text())


def turn_over(start, state) -> bool:
    """Has the turn under way in ``start`` ended in ``state``?  (The game
    ended, the turn counter moved, the seat changed, or chance comes up.)"""
    return (
        state[E.H_STATUS] != E.PLAYING or state[E.H_TURN] != start[E.H_TURN] or state[E.H_CURRENT] != start[E.H_CURRENT]
    )
