"""What a game declares about itself (OpenSpiel's GameType / GameInfo and
parameter specification, in our terms).

* :class:`Option` — one user option with its type, range or choices, default
  and meaning; :meth:`Option.check` is the only place an option value is
  validated, so every game refuses bad options with the same kind of message.
* :class:`Layout` — the state row declared by name (``layout.add("board", 36)``)
  instead of hand-numbered offsets; :meth:`Layout.add` returns the offset as a
  plain ``int``, which numba compiles in as a constant.  Fields whose size
  depends on the options come last and are sized per game instance
  (:meth:`Layout.resolve`); :meth:`RowLayout.describe` prints a row by field.
* :class:`GameInfo` — the sizes of one configured game (players, actions,
  chance outcomes, observation shape and bounds, state size); the faces build
  their spaces and buffers from it.
"""

from __future__ import annotations

import numbers
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import OptionError, shorten, shown

RANDOM = "random"


def is_int(value) -> bool:
    """An int or a numpy integer, never a bool: the one test every public
    input that must be an integer (seats, seeds, action ids, sizes) goes through."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


# --- the checks every face shares (one wording, one place) ---------------------

# what an action that is not legal does, on every face (C-6): "lose" (the
# default of PettingZoo classic and Pgx: the offender -1, the others 0, the
# game ends), "raise" (IllegalActionError, nothing changes) or "random" (a
# uniformly random legal action is played instead)
ILLEGAL_ACTION_MODES = ("lose", "raise", "random")
ILLEGAL_ACTION_DEFAULT = "lose"


def check_seed(seed) -> int:
    """A seed as a non-negative int (numpy integers welcome), or ValueError."""
    if not is_int(seed) or seed < 0:
        raise ValueError(f"a seed is a non-negative int (or None), got {shown(seed)}")
    return int(seed)


def is_action_int(action) -> bool:
    """An int, a numpy integer or a 0-d integer array (what gymnasium's
    ``Discrete.sample`` gives): what a face accepts as one action id."""
    if isinstance(action, np.ndarray):
        return action.shape == () and np.issubdtype(action.dtype, np.integer)
    return is_int(action)


def check_choice(name: str, value, choices, where: str = ""):
    """``value`` if it is one of ``choices`` (compared by type too: ``1`` is
    not ``True``), else ValueError naming the option and the choices."""
    if not any(type(value) is type(c) and value == c for c in choices):
        choices_shown = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{where}{name} must be one of {choices_shown}, got {shown(value)}")
    return value


def check_flag(name: str, value, where: str = "") -> bool:
    """A bool option: ``True`` or ``False`` (numpy bools welcome), never
    ``1``, ``1.0`` or ``"yes"``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{where}{name} must be True or False, got {shown(value)}")
    return bool(value)


def check_illegal_action(value, where: str = "") -> str:
    return check_choice("illegal_action", value, ILLEGAL_ACTION_MODES, where)


def check_seat(value, num_players: int, name: str = "seat", where: str = "", allow_random: bool = True):
    """A seat ``0..num_players-1`` as an int, or ``"random"`` where allowed."""
    if allow_random and isinstance(value, str) and value == RANDOM:
        return value
    if not is_int(value) or not 0 <= value < num_players:
        also = f" or {RANDOM!r}" if allow_random else ""
        raise ValueError(f"{where}{name} must be a seat 0..{num_players - 1}{also}, got {shown(value)}")
    return int(value)


def check_render_mode(value, modes, where: str = ""):
    """``None`` or one of ``modes`` (the face's ``metadata["render_modes"]``)."""
    if value is not None and not (isinstance(value, str) and value in modes):
        raise ValueError(f"{where}render_mode must be one of {list(modes)} or None, got {shown(value)}")
    return value


def check_size(name: str, value, high: int, where: str = "", low: int = 1) -> int:
    """An int ``low..high``: sizes the caller picks (rows, games), bounded so
    that a typo fails with a message instead of numpy's MemoryError."""
    if not is_int(value) or not low <= value <= high:
        raise ValueError(f"{where}{name} must be an int {low}..{high:,}, got {shown(value)}")
    return int(value)


# --- options -------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """One option a user may pass (``boardenvs.make(env_id, name=value)``).

    ``kind`` is ``"int"`` (an int, not a bool, in ``low..high`` or one of
    ``choices``), ``"choice"`` (one of ``choices``) or ``"seat"`` (a seat
    ``0..num_players-1`` or ``"random"``).  ``in_text``: the option changes
    the game, so the text form of a position records it.
    """

    name: str
    default: Any
    doc: str
    kind: str = "int"
    low: int | None = None
    high: int | None = None
    choices: tuple = ()
    in_text: bool = True

    def allowed(self, num_players: int | None = None) -> str:
        """The allowed values, in words (for messages and ``boardenvs list``)."""
        if self.kind == "seat":
            top = f"{num_players - 1}" if num_players else "num_players-1"
            return f"a seat 0..{top} or {RANDOM!r}"
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        return f"an int in {_bound(self.low)}..{_bound(self.high)}"

    def check(self, value, env_id: str, num_players: int | None = None):
        """``value`` normalised (numpy ints to int), or :class:`OptionError`
        naming the option and what it allows."""

        def bad():
            return OptionError(
                f"{env_id}: option {self.name}={shown(value)} is not allowed; expected {self.allowed(num_players)}"
            )

        if self.kind == "choice":
            if isinstance(value, str) and value in self.choices:
                return value
            raise bad()
        if self.kind == "seat" and isinstance(value, str):
            if value == RANDOM:
                return value
            raise bad()
        if not is_int(value):
            raise bad()
        value = int(value)
        if self.kind == "seat":
            if num_players is not None and not 0 <= value < num_players:
                raise bad()
            return value
        if self.choices and value not in self.choices:
            raise bad()
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise bad()
        return value


# The longest game a user can ask for: counters are int64, so this is only a
# sanity bound that keeps text forms and messages readable.
MAX_TURNS_LIMIT = 2**40


def _bound(value: int) -> str:
    """An option's bound in words: a large power of two as ``2**40`` (not
    its 13 digits, which read as a typo), anything else as it is."""
    if isinstance(value, int) and value >= 2**20 and value & (value - 1) == 0:
        return f"2**{value.bit_length() - 1}"
    return str(value)


def first_player_option(default) -> Option:
    return Option(
        "first_player",
        default,
        "who moves first (C-2): a seat, or 'random' (drawn from the env's seed)",
        kind="seat",
        in_text=False,
    )


def max_turns_option(default: int) -> Option:
    return Option("max_turns", default, "truncate the game after this many turns (C-3)", low=1, high=MAX_TURNS_LIMIT)


def num_players_option(default: int, choices: tuple) -> Option:
    return Option("num_players", default, "number of seats", choices=tuple(choices))


def parse_option_items(items, error=ValueError, where: str = "options") -> dict:
    """``["k=v", ...]`` (a position text's ``options:`` line, the CLI's
    ``--option``) as keywords, integers as ints; ``error`` for a malformed
    or repeated item."""
    options = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise error(f"{where}: malformed option {shown(item)}; expected key=value")
        if key in options:
            raise error(f"{where}: option {shown(key)} given twice")
        options[key] = int(value) if re.fullmatch(r"-?[0-9]{1,19}", value) else value
    return options


def check_options(options: tuple, given: dict, env_id: str) -> dict:
    """Every option of ``options`` with its value from ``given`` (checked) or
    its default; an unknown name raises TypeError listing the accepted ones."""
    names = [o.name for o in options]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise TypeError(f"{env_id}: unknown option(s) {shorten(str(unknown), 120)}; accepted: {sorted(names)}")
    values = {}
    # num_players first: a seat option's range depends on it
    ordered = sorted(options, key=lambda o: o.name != "num_players")
    for opt in ordered:
        n = values.get("num_players")
        values[opt.name] = opt.check(given.get(opt.name, opt.default), env_id, n)
    return {name: values[name] for name in names}


# --- the state row --------------------------------------------------------------


@dataclass
class Layout:
    """A state row declared field by field.

    ``add(name, size)`` returns the field's offset; ``size`` is an int, or the
    name of a size given per game instance (see :meth:`resolve`); fields of
    such sizes must come after every fixed-size field, so that the fixed
    offsets are constants the kernels compile in (the first variable field's
    offset is one too; later ones get -1 and are found at run time).
    """

    name: str
    fields: list = field(default_factory=list)  # (name, offset or None, size or size name, doc)
    fixed_size: int = 0

    def add(self, name: str, size, doc: str = "") -> int:
        if any(f[0] == name for f in self.fields):
            raise ValueError(f"layout {self.name}: field {name!r} declared twice")
        if isinstance(size, str):
            first = not any(isinstance(f[2], str) for f in self.fields)
            self.fields.append((name, None, size, doc))
            return self.fixed_size if first else -1
        if any(isinstance(f[2], str) for f in self.fields):
            raise ValueError(f"layout {self.name}: fixed-size field {name!r} after a variable-size one")
        offset = self.fixed_size
        self.fields.append((name, offset, int(size), doc))
        self.fixed_size += int(size)
        return offset

    def extend(self, name: str) -> Layout:
        """A new layout that starts with every field of this one (a game's
        row starts with the engine's header)."""
        return Layout(name, list(self.fields), self.fixed_size)

    def resolve(self, **sizes) -> RowLayout:
        """The layout of one game instance: variable sizes filled in."""
        out = []
        offset = self.fixed_size
        for name, off, size, doc in self.fields:
            if isinstance(size, str):
                if size not in sizes:
                    raise ValueError(f"layout {self.name}: size {size!r} of field {name!r} not given")
                out.append((name, offset, int(sizes[size]), doc))
                offset += int(sizes[size])
            else:
                out.append((name, off, size, doc))
        return RowLayout(self.name, tuple(out), offset)


@dataclass(frozen=True)
class RowLayout:
    """The fields of one game instance's state row, with their offsets."""

    name: str
    fields: tuple
    size: int

    def offset(self, name: str) -> int:
        for n, off, _, _ in self.fields:
            if n == name:
                return off
        raise KeyError(name)

    def describe(self, state) -> str:
        """The row by field, for debugging: ``name [offset:end] values``."""
        lines = [f"{self.name}: {self.size} int64 slots ({8 * self.size} bytes)"]
        for name, off, size, doc in self.fields:
            values = np.asarray(state[off : off + size])
            shown = " ".join(str(int(v)) for v in values[:16]) + (" ..." if size > 16 else "")
            if size > 16:
                shown += f" ({int(np.count_nonzero(values))} non-zero)"
            lines.append(f"  {name:<14} [{off}:{off + size}] {shown}" + (f"   # {doc}" if doc else ""))
        return "\n".join(lines)


# --- the sizes of a configured game ---------------------------------------------


@dataclass(frozen=True)
class GameInfo:
    """What the faces need to know of one configured game."""

    env_id: str
    num_players: int
    num_actions: int
    num_chance_outcomes: int
    obs_shape: tuple
    obs_low: np.ndarray  # int8, obs_shape: the least value of each entry
    obs_high: np.ndarray  # int8, obs_shape: the greatest value of each entry
    layout: RowLayout
    teams: tuple  # team id per seat (the seat itself when everyone plays alone)

    @property
    def state_size(self) -> int:
        return self.layout.size

    @property
    def obs_size(self) -> int:
        return int(np.prod(self.obs_shape))

    @property
    def mask_size(self) -> int:
        """Entries of the kernels' mask: actions and chance outcomes share it."""
        return max(self.num_actions, self.num_chance_outcomes)


def obs_bounds(shape: tuple, high_per_plane=None) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of an observation whose last axis holds planes: 0..1 unless
    ``high_per_plane`` (one value per plane) says otherwise."""
    low = np.zeros(shape, np.int8)
    high = np.ones(shape, np.int8)
    if high_per_plane is not None:
        high[...] = np.asarray(high_per_plane, np.int8)
    return low, high


# --- what a game declares for the generic code around it ------------------------


@dataclass(frozen=True)
class Config:
    """The sizes of one configured game, what :meth:`boardenvs.game.Game.configure`
    returns: actions, observation shape (and the upper bound of each plane,
    the last axis; 0/1 when not given), players, chance outcomes, the sizes
    of the state layout's variable fields, the game's slots of the kernels'
    ``params``, and the team id of each seat (each seat alone by default)."""

    num_actions: int
    obs_shape: tuple
    num_players: int = 2
    num_chance_outcomes: int = 0
    obs_high_per_plane: Any = None
    sizes: dict = field(default_factory=dict)
    params: Any = ()
    teams: Any = None
