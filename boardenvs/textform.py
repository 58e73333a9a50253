"""The text form of a position, every game's (a mixin of
:class:`boardenvs.game.Game`): a generic header (``game:``, ``options:``,
``to_move:`` ... ``returns:``, one ``key: value`` a line) and the game's
own body (:meth:`~boardenvs.game.Game.body_to_text` /
``body_from_text``); reading one back checks every field, so
:meth:`TextForm.check_row` can say of any row from outside whether the
rules could reach it (C-6)."""

from __future__ import annotations

import re

import numpy as np

from . import engine as E
from .errors import NotationError

_UINT = re.compile(r"[0-9]{1,19}")
HEADER_KEYS = ("game", "options", "to_move", "turn", "status", "reason", "alive", "returns")
STATUS_NAMES = {E.PLAYING: "playing", E.TERMINATED: "terminated", E.TRUNCATED: "truncated"}
# the engine's end reasons' names (the games' own follow from E.REASON_GAME)
GENERIC_REASONS = {
    E.REASON_NONE: "-",
    E.REASON_TRUNCATED: "max_turns",
    E.REASON_ILLEGAL: "illegal_action",
    E.REASON_TIMEOUT: "timeout",
    E.REASON_MAX_CYCLES: "max_cycles",
}


def turns_of(seat: int, turn_seat: int, turns: int, num_players: int) -> int:
    """How many of the first ``turns`` turns ``seat`` played, when the seats
    take turns in seat order, one turn each (no pass skips a seat), and turn
    number ``turns`` (counted from 0) is ``turn_seat``'s: what a game's
    play-from-the-start invariants (``Game.check_history``) bound its
    pieces by."""
    back = (turn_seat - seat) % num_players or num_players  # turns ago that seat last played
    return 0 if turns < back else (turns - back) // num_players + 1


class TextForm:
    """The text form and the row checks built on it (see the module docstring)."""

    # -- the text form (header generic, body the game's) ---------------------
    def seat_name(self, seat: int) -> str:
        return "chance" if seat == E.CHANCE else f"player_{seat}"

    def text_options(self) -> str:
        return " ".join(f"{o.name}={self.options[o.name]}" for o in self.option_specs if o.in_text)

    # -- rows from users (C-6): Position(game, state), a copied or unpickled row -------
    def free_fields(self, state) -> dict:
        """The fields of ``state`` its position text does not carry, each
        with the values the kernels and the pictures accept, ``{name: (low,
        high)}`` (inclusive; ``low`` / ``high`` an int or one per slot): what
        :meth:`check_row` range-checks instead of comparing with the row the
        text rebuilds.  The header's last decision, its seat, the count of
        decisions and the generator here; a game adds its own (a record of
        the last move for the pictures) and may depend on ``state`` (a field
        the text carries in one phase only)."""
        top = max(self.num_actions, self.num_chance_outcomes) - 1
        return {
            "decisions": (0, 2**62),
            "last_action": (-1, top),
            "last_seat": (-1, self.num_players - 1),
            "rng": (-(2**63), 2**63 - 1),
        }

    def check_row(self, state, what: str = "the row", setup: bool = False) -> None:
        """ValueError unless ``state`` (an int64 row of ``state_size``) is a
        state of this game the rules could reach: its position text (which
        :meth:`body_to_text` writes from the row in plain Python, never a
        kernel) read back by :meth:`from_text_fields` (every check a text
        gets) gives the same row, but in :meth:`free_fields`, which must hold
        values in their ranges.  What every row from outside the engine
        passes before a kernel reads it (C-6): ``Position(game, state)``, an
        unpickled Position, env or ``make_vec``, a copied snapshot.
        ``setup``: as :meth:`from_text_fields`'s (only ``Position(...,
        setup=True)`` passes it)."""
        where = f"{self.env_id}: {what}"
        if not (isinstance(state, np.ndarray) and state.dtype == np.int64 and state.shape == (self.state_size,)):
            raise ValueError(
                f"{where} must be an int64 array of shape ({self.state_size},), "
                f"got {getattr(state, 'dtype', type(state).__name__)} {getattr(state, 'shape', '')}"
            )
        try:
            fields, body = split_text(self.to_text(state))
            rebuilt = self.from_text_fields(fields, body, setup)
        except NotationError as exc:
            raise ValueError(
                f"{where} is no state the rules can reach: {str(exc).removeprefix(self.env_id + ': ')}"
            ) from None
        except Exception as exc:  # a value the text cannot show (an unknown status, a cell code out of range)
            raise ValueError(
                f"{where} is no state of {self.env_id}: its values cannot be read as a position ({type(exc).__name__})"
            ) from None
        layout = self.info.layout
        for name, (low, high) in self.free_fields(state).items():
            off = layout.offset(name)
            size = next(f[2] for f in layout.fields if f[0] == name)
            values = state[off : off + size]
            bad = np.flatnonzero((values < low) | (values > high))
            if bad.size:
                k = int(bad[0])
                lo, hi = (int(np.broadcast_to(b, values.shape)[k]) for b in (low, high))
                raise ValueError(
                    f"{where}: field {name!r}{f'[{k}]' if size > 1 else ''} holds {int(values[k])}, outside {lo}..{hi}"
                )
            rebuilt[off : off + size] = values
        differ = np.flatnonzero(rebuilt != state)
        if differ.size:
            i = int(differ[0])
            name, off = next((f[0], f[1]) for f in layout.fields if f[1] <= i < f[1] + f[2])
            raise ValueError(
                f"{where}: field {name!r} (slot {i}) holds {int(state[i])}, which does not fit the "
                f"position the row shows ({int(rebuilt[i])} there)"
            )

    def to_text(self, state) -> str:
        n = self.num_players
        lines = [
            f"game: {self.env_id}",
            f"options: {self.text_options()}".rstrip(),
            f"to_move: {self.seat_name(int(state[E.H_CURRENT]))}",
            f"turn: {int(state[E.H_TURN])}",
            f"status: {STATUS_NAMES[int(state[E.H_STATUS])]}",
            f"reason: {self.end_reason(state)}",
            "alive: " + " ".join(str((int(state[E.H_ALIVE]) >> s) & 1) for s in range(n)),
            "returns: " + " ".join(str(int(state[E.H_RET + s])) for s in range(n)),
        ]
        return "\n".join(lines + self.body_to_text(state)) + "\n"

    def from_text_fields(self, fields: dict, body: list[str], setup: bool = False) -> np.ndarray:
        """The state of a position text (header ``fields`` and ``body`` lines),
        checked for consistency, or NotationError naming the wrong field.
        ``setup``: a set-up position (a puzzle, a rules test), which need not
        be reachable by play from the start: :meth:`check_history`'s
        invariants are not asked (every other check is)."""
        if not isinstance(setup, bool):
            raise ValueError(f"setup must be True or False, got {setup!r}")
        state = np.zeros(self.state_size, np.int64)
        self.header_from_text(fields, state)
        self.body_from_text(body, state)
        self.check_state(state)
        if not setup:
            self.check_history(state)
        if state[E.H_STATUS] == E.PLAYING:
            if not self.legal_mask(state).any():
                who = self.seat_name(int(state[E.H_CURRENT]))
                raise NotationError(f"{self.env_id}: {who} has no legal move, so the game cannot still be playing")
        return state

    def header_from_text(self, fields: dict, state) -> None:
        """Fill and check the generic header of ``state`` from ``key: value`` fields."""
        n = self.num_players
        try:
            mover, turn, status, reason = (fields[k] for k in ("to_move", "turn", "status", "reason"))
            alive, rets = fields["alive"].split(), fields["returns"].split()
        except KeyError as exc:
            raise NotationError(f"position text lacks the line '{exc.args[0]}: ...'") from None
        if mover == "chance":
            if not self.num_chance_outcomes:
                raise NotationError(f"{self.env_id}: to_move: chance, but the game has no chance nodes")
            state[E.H_CURRENT] = E.CHANCE
        else:
            state[E.H_CURRENT] = _seat_of(mover, n)
        max_turns = int(self.params[E.P_MAX_TURNS])
        if not _UINT.fullmatch(turn) or int(turn) > max_turns:
            raise NotationError(f"turn must be an integer 0..max_turns={max_turns}, got {turn!r}")
        state[E.H_TURN] = int(turn)
        state[E.H_DECISIONS] = int(turn)
        codes = {v: k for k, v in STATUS_NAMES.items()}
        if status not in codes:
            raise NotationError(f"status must be one of {sorted(codes)}, got {status!r}")
        state[E.H_STATUS] = codes[status]
        if len(alive) != n or any(a not in ("0", "1") for a in alive):
            raise NotationError(f"alive needs {n} flags of 0/1, got {fields['alive']!r}")
        if len(rets) != n or any(r not in ("-1", "0", "1") for r in rets):
            raise NotationError(f"returns needs {n} values of -1/0/1, got {fields['returns']!r}")
        alive = [a == "1" for a in alive]
        rets = [int(r) for r in rets]
        state[E.H_NUM_PLAYERS] = n
        state[E.H_ALIVE] = sum(1 << s for s in range(n) if alive[s])
        state[E.H_RET : E.H_RET + n] = rets
        state[E.H_LAST_ACTION] = -1
        state[E.H_LAST_SEAT] = -1
        names = {**GENERIC_REASONS, **self.reason_names}
        codes = {v: k for k, v in names.items()}
        if reason not in codes:
            raise NotationError(f"reason must be one of {sorted(codes)}, got {reason!r}")
        state[E.H_REASON] = code = codes[reason]
        self._check_header(state, alive, rets, code, reason, max_turns)

    def _check_header(self, state, alive, rets, code, reason, max_turns) -> None:
        status = int(state[E.H_STATUS])
        turn = int(state[E.H_TURN])
        if not all(alive) and not self.eliminations:
            raise NotationError(f"{self.env_id}: alive must be all 1: no seat leaves this game early")
        if sum(alive) < (1 if status != E.PLAYING else 2):
            raise NotationError("alive: a game still playing needs two seats in it")
        for s, (a, r) in enumerate(zip(alive, rets)):
            if not a and r != -1:
                raise NotationError(f"returns: player_{s} is out of the game, so its return is -1, got {r}")
        live_rets = [r for a, r in zip(alive, rets) if a]
        truncations = {E.REASON_TRUNCATED, E.REASON_MAX_CYCLES, *self.truncation_reasons}
        if status == E.PLAYING:
            if code != E.REASON_NONE:
                raise NotationError(f"reason must be '-' while the game is playing, got {reason!r}")
            if any(live_rets):
                raise NotationError("returns must be 0 for every seat in a game still playing")
            if turn >= max_turns:
                raise NotationError(f"turn {turn} is at max_turns={max_turns}: the game would be over")
        elif status == E.TRUNCATED:
            if code not in truncations:
                raise NotationError(f"status truncated needs a truncation reason, got {reason!r}")
            if any(live_rets):
                raise NotationError("returns must be 0 for every seat still in a truncated game")
            if code == E.REASON_TRUNCATED and turn != max_turns:
                raise NotationError(f"reason max_turns needs turn = max_turns = {max_turns}, got {turn}")
        else:
            if code == E.REASON_NONE or code in truncations:
                raise NotationError(f"status terminated needs the reason the game ended, got {reason!r}")
            if code == E.REASON_ILLEGAL and sorted(live_rets) != [-1] + [0] * (len(live_rets) - 1):
                raise NotationError("reason illegal_action: the offender gets -1 and the others 0")
            if code == E.REASON_TIMEOUT and not _flag_returns(live_rets):
                raise NotationError(
                    "reason timeout: the flagged seat -1 and the others +1 (or, where others played on "
                    "without it, 0), or a draw of 0 for all"
                )


def split_text(text: str) -> tuple[dict, list[str]]:
    """A position text's header lines (``key: value``, see HEADER_KEYS) and
    body lines; NotationError for a malformed header."""
    if not isinstance(text, str):
        raise NotationError(f"position text must be a str, got {type(text).__name__}")
    lines = [ln.rstrip() for ln in text.strip("\n").splitlines()]
    fields = {}
    body_start = 0
    for k, line in enumerate(lines):
        key, sep, value = line.partition(":")
        if not sep or key in ("board",) or key.startswith(" "):
            break
        if key in fields:
            raise NotationError(f"position text: the line '{key}:' appears twice")
        if key not in HEADER_KEYS:
            raise NotationError(f"position text: unknown header line {key!r}; expected {', '.join(HEADER_KEYS)}")
        fields[key] = value.strip()
        body_start = k + 1
        if key == "returns":
            break
    return fields, lines[body_start:]


def _flag_returns(rets) -> bool:
    """Returns a chess clock can leave (the seats still in): a draw (all 0),
    winners +1 and losers -1 with a loser, or a forfeit (one -1, others 0)."""
    if all(r == 0 for r in rets):
        return True
    if -1 not in rets:
        return False
    return all(r in (-1, 1) for r in rets) and 1 in rets or sorted(rets) == [-1] + [0] * (len(rets) - 1)


def _seat_of(name: str, n: int) -> int:
    m = re.fullmatch(r"player_([0-9])", name)
    if m and int(m.group(1)) < n:
        return int(m.group(1))
    raise NotationError(f"to_move must be 'chance' or player_0..player_{n - 1}, got {name!r}")
