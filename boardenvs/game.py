"""Python-side description of a game: options, sizes, notation, text and pictures.

A :class:`Game` instance is one game *with its options fixed* (board size,
players, ``max_turns``...).  It owns the ``params`` vector handed to the
numba kernels and everything the faces (Position, the AEC env, the batched
drivers) need that is not rules: encoding actions as notation, the text form of
a position, rendering.  The rules themselves stay in the kernels.
"""
from __future__ import annotations

import numpy as np

from . import engine as E
from .errors import NotationError

STATUS_NAMES = {E.PLAYING: "playing", E.TERMINATED: "terminated", E.TRUNCATED: "truncated"}
GENERIC_REASONS = {
    E.REASON_NONE: "-",
    E.REASON_TRUNCATED: "max_turns",
    E.REASON_ILLEGAL: "illegal_action",
    E.REASON_TIMEOUT: "timeout",
}


class Game:
    """Base class; one subclass per game module.

    Subclasses set the class attributes below, build ``self.params`` in
    ``__init__`` (calling :meth:`_set_params`) and implement the notation,
    text and rendering hooks.
    """

    env_id: str = ""
    kernels: E.Kernels
    num_actions: int = 0
    num_chance_outcomes: int = 0
    obs_shape: tuple = ()
    reason_names: dict = {}
    # options a user may pass, with their defaults (the text form lists the
    # non-default ones so a position round-trips)
    defaults: dict = {}

    def __init__(self, **options):
        unknown = set(options) - set(self.defaults)
        if unknown:
            raise TypeError(
                f"{self.env_id}: unknown option(s) {sorted(unknown)}; "
                f"accepted: {sorted(self.defaults)}"
            )
        self.options = {**self.defaults, **options}
        max_turns = self.options.get("max_turns", 1)
        if isinstance(max_turns, bool) or not isinstance(max_turns, (int, np.integer)) or max_turns < 1:
            raise ValueError(f"{self.env_id}: max_turns must be a positive int, got {max_turns!r}")

    # -- set-up ------------------------------------------------------------
    def _set_params(self, num_players: int, max_turns: int, first_player, game_params=(), state_size=0):
        if first_player == "random":
            first = -1
        elif isinstance(first_player, (int, np.integer)) and 0 <= first_player < num_players:
            first = int(first_player)
        else:
            raise ValueError(
                f"{self.env_id}: first_player must be 'random' or a seat 0..{num_players - 1}, "
                f"got {first_player!r}"
            )
        self.num_players = num_players
        params = np.zeros(E.P_GAME + len(game_params), np.int64)
        params[E.P_MAX_TURNS] = max_turns
        params[E.P_NUM_PLAYERS] = num_players
        params[E.P_FIRST] = first
        params[E.P_GAME:] = game_params
        self.params = params
        self.state_size = state_size
        self.obs_size = int(np.prod(self.obs_shape))

    @property
    def agents(self) -> list[str]:
        return [f"player_{i}" for i in range(self.num_players)]

    def new_state(self, first_seat: int, rng_seed: int = 0) -> np.ndarray:
        state = np.zeros(self.state_size, np.int64)
        state[E.H_RNG] = rng_seed
        self.kernels.init(state, self.params, int(first_seat))
        return state

    # -- thin calls into the kernels ----------------------------------------
    def legal_mask(self, state) -> np.ndarray:
        if state[E.H_STATUS] != E.PLAYING:
            return np.zeros(self.mask_size, np.int8)
        mask = np.empty(self.mask_size, np.int8)  # the kernel writes every entry
        self.kernels.legal(state, self.params, mask)
        return mask

    @property
    def mask_size(self) -> int:
        return max(self.num_actions, self.num_chance_outcomes)

    def observe(self, state, seat: int) -> np.ndarray:
        obs = np.empty(self.obs_size, np.int8)  # the kernel writes every entry
        self.kernels.observe(state, self.params, seat, obs)
        return obs.reshape(self.obs_shape)

    def chance_probs(self, state) -> np.ndarray:
        probs = np.zeros(self.num_chance_outcomes, np.float64)
        if self.num_chance_outcomes and state[E.H_CURRENT] == E.CHANCE:
            self.kernels.chance_probs(state, self.params, probs)
        return probs

    def describe_action(self, state, action) -> str:
        try:
            return self.action_to_move(state, action)
        except (ValueError, IndexError) as exc:
            return f"action {action} ({exc})"

    def end_reason(self, state) -> str:
        code = int(state[E.H_REASON])
        return GENERIC_REASONS.get(code) or self.reason_names.get(code, str(code))

    # -- hooks each game implements ------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        raise NotImplementedError

    def move_to_action(self, state, move: str) -> int:
        """Parse ``move``; raise NotationError if malformed (legality is the caller's)."""
        raise NotImplementedError

    def body_to_text(self, state) -> list[str]:
        raise NotImplementedError

    def body_from_text(self, lines: list[str], state) -> None:
        raise NotImplementedError

    def render_ansi(self, state) -> str:
        raise NotImplementedError

    def render_rgb(self, state) -> np.ndarray:
        raise NotImplementedError

    # -- the text form (header generic, body the game's) ---------------------
    def seat_name(self, seat: int) -> str:
        return "chance" if seat == E.CHANCE else f"player_{seat}"

    def to_text(self, state) -> str:
        opts = " ".join(f"{k}={v}" for k, v in self.options.items() if k in self.text_options)
        n = self.num_players
        lines = [
            f"game: {self.env_id}",
            f"options: {opts}".rstrip(),
            f"to_move: {self.seat_name(int(state[E.H_CURRENT]))}",
            f"turn: {int(state[E.H_TURN])}",
            f"status: {STATUS_NAMES[int(state[E.H_STATUS])]}",
            f"reason: {self.end_reason(state)}",
            "alive: " + " ".join(str((int(state[E.H_ALIVE]) >> s) & 1) for s in range(n)),
            "returns: " + " ".join(str(int(state[E.H_RET + s])) for s in range(n)),
        ]
        return "\n".join(lines + self.body_to_text(state)) + "\n"

    text_options: tuple = ("max_turns",)

    def header_from_text(self, fields: dict, state) -> None:
        """Fill the generic header of ``state`` from parsed ``key: value`` fields."""
        n = self.num_players
        try:
            mover = fields["to_move"]
            state[E.H_CURRENT] = E.CHANCE if mover == "chance" else _seat_of(mover, n)
            state[E.H_TURN] = _nonneg_int(fields["turn"], "turn")
            status = {v: k for k, v in STATUS_NAMES.items()}
            if fields["status"] not in status:
                raise NotationError(f"status must be one of {sorted(status)}, got {fields['status']!r}")
            state[E.H_STATUS] = status[fields["status"]]
            reasons = {v: k for k, v in {**GENERIC_REASONS, **self.reason_names}.items()}
            if fields["reason"] not in reasons:
                raise NotationError(f"unknown end reason {fields['reason']!r}")
            state[E.H_REASON] = reasons[fields["reason"]]
            alive = fields["alive"].split()
            rets = fields["returns"].split()
        except KeyError as exc:
            raise NotationError(f"position text lacks the line '{exc.args[0]}: ...'") from None
        if len(alive) != n or any(a not in ("0", "1") for a in alive):
            raise NotationError(f"alive needs {n} flags of 0/1, got {fields['alive']!r}")
        if len(rets) != n or any(r not in ("-1", "0", "1") for r in rets):
            raise NotationError(f"returns needs {n} values of -1/0/1, got {fields['returns']!r}")
        state[E.H_NUM_PLAYERS] = n
        state[E.H_ALIVE] = sum(1 << s for s, a in enumerate(alive) if a == "1")
        for s, r in enumerate(rets):
            state[E.H_RET + s] = int(r)
        state[E.H_LAST_ACTION] = -1
        state[E.H_LAST_SEAT] = -1


def _seat_of(name: str, n: int) -> int:
    if name.startswith("player_") and name[7:].isdigit() and int(name[7:]) < n:
        return int(name[7:])
    raise NotationError(f"to_move must be 'chance' or player_0..player_{n - 1}, got {name!r}")


def _nonneg_int(text: str, what: str) -> int:
    if not text.isdigit():
        raise NotationError(f"{what} must be a non-negative integer, got {text!r}")
    return int(text)
