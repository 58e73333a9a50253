"""The text-agent face: a game as a prompt, a reply in notation as a move.

For agents that read and write text (a language model, a person at a chat,
a rule-based parser), as LLM game arenas play them: :func:`prompt` describes
the position and lists the legal moves of the seat to act, :func:`parse_reply`
reads the move out of an answer (a clear error for an unparsable or illegal
one, which the next prompt can quote), and :func:`play_text_game` plays a
whole game of such an agent against any opponent (``"greedy"``, ``"random"``,
a model), the agent seeing nothing but text::

    from boardenvs.textagent import parse_reply, play_text_game, prompt

    def first_move(text: str) -> str:  # sees the prompt only
        return "move: " + next(line[2:] for line in text.splitlines() if line.startswith("- "))

    game = play_text_game("quess_v0", first_move, opponent="greedy", seed=0)
    game.returns, game.position.end_reason

The rules stay in the kernels: the prompt is the position text
(:meth:`Position.to_text`) and :meth:`Position.legal_moves`; a reply is read
by the game's own notation parser.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from . import engine as E
from .errors import IllegalMoveError, NotationError, shown
from .position import Position
from .spec import is_int

MAX_REPLY_CHARS = 100_000  # a longer reply is refused before it is searched
_WRAP = " \t'\"`*_[](){}<>."
_LEAD = " \t>*_`"  # what may stand before "move" on a move line (quotes, Markdown emphasis)
_AFTER = " \t*_`"  # and between "move" and its colon


def move_line(line: str) -> str | None:
    """The move a line ``move: <move>`` names (any case, ``_LEAD`` before
    "move", ``_AFTER`` between it and the colon, blanks around the move
    dropped), or None for any other line.  Each character is looked at a
    bounded number of times (``str`` strips and slices, no backtracking
    pattern), so a reply costs time linear in its length whatever it holds."""
    rest = line.lstrip(_LEAD)
    word = rest[:4]
    if len(word) != 4 or word.lower() != "move":
        return None
    rest = rest[4:].lstrip(_AFTER)
    if not rest.startswith(":"):
        return None
    return rest[1:].strip(" \t\r")


def reply_move(reply: str) -> str | None:
    """The move a reply names before any check against the position: the
    last ``move:`` line's (:func:`move_line`), else the whole reply when it
    is one line, else None.  Linear in the reply's length."""
    for line in reversed(reply.split("\n")):
        found = move_line(line)
        if found is not None:
            return found.strip(_WRAP)
    stripped = reply.strip()
    return stripped.strip(_WRAP) if "\n" not in stripped else None


def _seat_words(game, seat: int) -> str:
    words = [game.seat_labels[seat]] if seat < len(game.seat_labels) else []
    if seat < len(game.seat_symbols):
        words.append(f"pieces {game.seat_symbols[seat]}")
    return f" ({', '.join(words)})" if words else ""


def prompt(pos: Position, *, rules: bool = False, error: str | None = None) -> str:
    """The position as a prompt for the seat to act: the game and the seat,
    the position text (:meth:`Position.to_text`), every legal move (whole
    turns) in the game's notation, one a line after ``"- "``, and how to answer (``move: <move>`` on a
    line of its own).  ``rules``: the game's rules file first.  ``error``: a
    line saying why the last reply was refused (:func:`play_text_game` asks
    again with it).  ValueError for a finished game or a chance node (no
    seat acts there)."""
    if not isinstance(pos, Position):
        raise ValueError(f"prompt(pos): pos must be a boardenvs Position, got {type(pos).__name__}")
    if not isinstance(rules, bool):
        raise ValueError(f"rules must be True or False, got {shown(rules)}")
    if error is not None and not isinstance(error, str):
        raise ValueError(f"error must be None or a str, got {shown(error)}")
    game = pos.game
    if pos.is_terminal or pos.is_chance:
        raise ValueError(
            f"{game.env_id}: no seat acts in this position "
            f"({'the game is over' if pos.is_terminal else 'a chance node'})"
        )
    seat = pos.to_move
    moves = pos.legal_moves()
    lines = []
    if rules:
        lines += [f"The rules of {game.title}:", "", game.rules_path().read_text(encoding="utf-8").strip(), ""]
    turns = " (a move is a whole turn: its decisions in order)" if game.multi_decision_turns else ""
    lines += [
        f"You play {game.title} (boardenvs id {game.env_id}) as player_{seat}{_seat_words(game, seat)}, "
        f"{game.num_players} players. Turn {pos.turn}; you are to move.",
        "The position, in boardenvs' text form:",
        "",
        pos.to_text().rstrip("\n"),
        "",
        f"Your {len(moves)} legal move{'s' if len(moves) != 1 else ''}{turns}, one a line:",
        *(f"- {m}" for m in moves),
    ]
    if error:
        lines.append(f"Your last reply was refused: {error}")
    lines.append(
        f"Answer with one of the legal moves on a line of its own, as 'move: <move>' (e.g. 'move: {moves[0]}')."
    )
    return "\n".join(lines) + "\n"


def parse_reply(pos: Position, reply: str) -> str:
    """The legal move a reply names, in the game's notation as
    :meth:`Position.legal_moves` writes it.  The move is the last line
    ``move: <move>`` of the reply (any case, Markdown emphasis and quotes
    around it ignored), or the whole reply when it is a single line.

    Raises :class:`~boardenvs.errors.NotationError` when no move can be
    read (no such line, a malformed move) and
    :class:`~boardenvs.errors.IllegalMoveError` when the move is not legal
    here; both name the reply and what is expected."""
    if not isinstance(pos, Position):
        raise ValueError(f"parse_reply(pos, reply): pos must be a boardenvs Position, got {type(pos).__name__}")
    env_id = pos.game.env_id
    if not isinstance(reply, str):
        raise NotationError(f"{env_id}: a reply is a str, got {type(reply).__name__}")
    if len(reply) > MAX_REPLY_CHARS:
        raise NotationError(f"{env_id}: a reply of {len(reply):,} characters; at most {MAX_REPLY_CHARS:,} are read")
    if pos.is_terminal or pos.is_chance:
        raise IllegalMoveError(
            f"{env_id}: no seat acts in this position ({'the game is over' if pos.is_terminal else 'a chance node'})"
        )
    move = reply_move(reply)  # linear in the reply's length
    if move is None:
        raise NotationError(f"{env_id}: no line 'move: <move>' in the reply {shown(reply)}")
    if not move:
        raise NotationError(f"{env_id}: the reply names no move: {shown(reply)}")
    chain = pos.move_to_actions(move)  # NotationError for a malformed move
    turns = pos.legal_turns()
    if chain not in turns:
        legal = pos.legal_moves()
        raise IllegalMoveError(
            f"{env_id}: {shown(move)} is not a legal move for player_{pos.to_move} here; "
            f"legal: {', '.join(legal[:12])}{', ...' if len(legal) > 12 else ''}"
        )
    return pos.game.actions_to_move(pos.state, chain)


@dataclasses.dataclass
class TextGame:
    """A game :func:`play_text_game` played: the last ``position``, every
    turn in notation (``moves``, chance outcomes too), each prompt the text
    agent saw with its reply (``transcript``), the ``refused`` replies with
    the reason, and the seat's ``returns``."""

    position: Position
    moves: list
    transcript: list
    refused: list

    @property
    def returns(self) -> tuple:
        """Each seat's return at the end (``Position.returns``)."""
        return self.position.returns


def play_text_game(
    env_id: str,
    agent: Callable[[str], str],
    *,
    seat: int = 0,
    opponent="greedy",
    seed: int = 0,
    retries: int = 2,
    max_turns: int | None = None,
    **options,
) -> TextGame:
    """One game of a text agent against ``opponent`` (a name such as
    ``"greedy"`` or ``"random"``, a model file, or an Opponent): ``agent``
    (a callable taking the :func:`prompt` and returning its reply) plays
    seat ``seat``, the opponent every other seat, chance is rolled from a
    generator seeded by ``seed``.  A refused reply (:func:`parse_reply`'s
    error) is shown in the next prompt, ``retries`` times; after that the
    agent forfeits: the game ends as an illegal action does (its seat -1,
    the others 0, end reason ``illegal_action``, C-6).  ``options``: the
    game's options (``max_turns`` among them)."""
    from .api import position as new_position
    from .matches import play_turn
    from .opponents import load_opponent, make_opponent

    if not callable(agent):
        raise ValueError(f"agent must be a callable taking the prompt and returning a reply, got {shown(agent)}")
    if not is_int(retries) or not 0 <= retries <= 100:
        raise ValueError(f"retries must be an int 0..100, got {shown(retries)}")
    if not is_int(seed):
        raise ValueError(f"seed must be an int, got {shown(seed)}")
    if max_turns is not None:
        options["max_turns"] = max_turns
    pos = new_position(env_id, seed=seed, **{"first_player": 0, **options})  # the seed rolls its dice
    if not is_int(seat) or not 0 <= seat < pos.game.num_players:
        raise ValueError(f"{env_id}: seat must be an int 0..{pos.game.num_players - 1}, got {shown(seat)}")
    opp = load_opponent(opponent, env_id) if isinstance(opponent, str) else make_opponent(opponent)  # (or ValueError)
    rng = np.random.default_rng(seed)
    moves, transcript, refused = [], [], []
    while not pos.is_terminal:
        if pos.is_chance:  # the seeded die: the position's own generator
            rolled = pos.roll()
            moves.append(pos.action_to_move(rolled.last_action))
            pos = rolled
        elif pos.to_move != seat:
            pos, move = play_turn(opp, pos, rng)
            moves.append(move)
        else:
            error = None
            for _ in range(retries + 1):
                text = prompt(pos, error=error)
                reply = agent(text)
                transcript.append((text, reply))
                try:
                    move = parse_reply(pos, reply)
                    break
                except ValueError as exc:
                    error = str(exc)
                    refused.append((reply, error))
            else:
                pos = _forfeit(pos)
                break
            moves.append(move)
            pos = pos.play(move)
    return TextGame(pos, moves, transcript, refused)


def _forfeit(pos: Position) -> Position:
    """The game ended by the seat to act's illegal action (the engine's own
    ``illegal_action='lose'`` step: -1 for it, 0 for the others)."""
    game = pos.game
    state = pos.state
    mask = game.legal_mask(state)
    illegal = np.flatnonzero(mask == 0)
    action = int(illegal[0]) if illegal.size else game.mask_size  # every id legal: one past the last is illegal
    game.step(state, action, np.empty(game.mask_size, np.int8), mode=E.ILLEGAL_LOSE, settle=False)
    assert state[E.H_STATUS] != E.PLAYING
    return Position._own(game, state)
