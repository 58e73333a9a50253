"""The Python side of a game: its declaration, notation, text form and pictures.

A :class:`Game` subclass *declares* a game (OpenSpiel's GameType /
parameter specification): ``env_id``, ``title``, its kernels, its options
(:class:`boardenvs.spec.Option`), its state-row layout, its end reasons and
whether turns take several decisions; :meth:`Game.configure` derives the sizes
of one configured game (a :class:`boardenvs.spec.GameInfo`: players, actions,
chance outcomes, observation shape and bounds, state size) from the options.
Everything generic (option checks, spaces, buffers, the text header, the
registration, the tests) follows from that declaration.

A :class:`Game` instance is one game *with its options fixed*.  It owns the
``params`` vector handed to the numba kernels and everything the faces
(Position, the AEC env, ``make_vec``) need that is not rules.  The rules stay
in the kernels.
"""

from __future__ import annotations

import re
import sys

import numpy as np

from . import engine as E
from .errors import IllegalMoveError, NotationError
from .spec import Config, GameInfo, Layout, Option, check_options, is_int, obs_bounds
from .textform import GENERIC_REASONS, TextForm

# what the generic end reasons mean (every env card's table of end reasons)
GENERIC_REASON_DOCS = {
    "max_turns": "the game reached `max_turns` turns: truncated, 0 for the seats still in it (C-3)",
    "illegal_action": "an illegal action with `illegal_action='lose'`: -1 for its seat, 0 for the others (C-6)",
    "timeout": "a flag fell on the chess clock (`clock_seconds`): -1 for its seat (QU-12, `ChessClock`)",
    "max_cycles": "PettingZoo's `max_cycles` (the AEC env, `max_decisions` in its parallel view): truncated",
}


class Game(TextForm):
    """Base class; one subclass per game (see ``games/quess/``: its rules
    kernels in ``rules.py``, notation and text form in ``text.py``, pictures
    in ``picture.py``, this declaration in ``__init__.py``).

    A class that declares an ``env_id`` is a game: what every face needs is
    checked when the class is defined (:meth:`__init_subclass__`), so a
    missing piece fails at import with a message, not in some generic code
    later.

    The row methods (:meth:`legal_mask`, :meth:`observe`, :meth:`step`, ...)
    are the kernels' level: they take rows the engine made (a Position's,
    ``make_vec``'s) and check their shape only.  A row from anywhere else
    passes :meth:`check_row` first, as ``Position(game, state)`` and every
    unpickled face do (C-6)."""

    # -- the declaration (class attributes) -----------------------------------
    env_id: str = ""
    title: str = ""  # the game's name for people ("Quess")
    gym_name: str = ""  # its gymnasium id's name, if not the title without spaces
    kernels: E.Kernels
    option_specs: tuple[Option, ...] = ()
    layout: Layout = E.HEADER_LAYOUT
    # end reasons: code -> name, and the codes that are truncations (limits,
    # not results: 0 for everyone, ``truncations`` true)
    reason_names: dict = {}
    # what each of the game's end reasons means, by name (its env card's table of end reasons)
    reason_docs: dict = {}
    truncation_reasons: frozenset = frozenset()
    # can a turn be a chain of several decisions by the same seat?
    multi_decision_turns: bool = False
    # can a seat leave the game while the others play on?
    eliminations: bool = False
    # can a turn pass with no decision at all?  The engine allows it (the
    # tests' contract race, CR-5), but the package's games never do: a seat
    # that must pass is asked, with one legal action "pass" (TR-7, HQ-13),
    # so every seat in a game is asked once a turn.  With silent passes
    # agents are asked unevenly often, which PettingZoo's max_cycles_test
    # cannot allow for (the generic tests check max_cycles another way there)
    forced_passes: bool = False
    # option sets that change the game's shape (players, board size): the
    # generic tests and the benchmark run each
    variants: tuple = ({},)
    # the separator of the decisions of one turn in the default notation
    decision_separator: str = ", "
    # what render() can draw: text (render_ansi) and Pillow pictures (render_rgb)
    render_modes: tuple = ("ansi", "rgb_array")
    # rules files shipped with the package (boardenvs/rules/<name>)
    rules_file: str = ""
    # the dice variant's action classes (wrappers' dice wrapper): names of the
    # classes a die roll picks from before a turn (Quess: the shapes; Quagmire:
    # walk/run/jump, ...); () = the game has no dice variant.  See
    # :meth:`action_classes`.
    action_class_names: tuple = ()
    # what each seat is called in the rules ("Light", "Dark"; "x", "o"): the
    # pictures' legend shows them beside the agent names (boardenvs/render.py)
    seat_labels: tuple = ()
    # how each seat's pieces are written in the text board, where the label
    # does not say it (Quess: "T C S" / "t c s"); the ANSI legend shows them
    seat_symbols: tuple = ()
    # the JSON form (boardenvs/jsonform.py): the kind of each ``name: value``
    # line of the text body that is not a list of words ("word", "word?",
    # "int", "int?", "ints", "text"; "?": "-" is null); grids are lists of rows
    json_fields: dict = {}

    # the prefix of its rule ids ("QU" for QU-1..QU-13): tests and docs cite them
    rule_prefix: str = ""
    # (what tools above the core read of a game, how the baselines train it,
    # what make bench compares it with, ..., is no part of the declaration:
    # the game's module holds it, see tool_settings)

    # {option: default}, derived from option_specs
    defaults: dict = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.defaults = {o.name: o.default for o in cls.option_specs}
        if "env_id" in cls.__dict__:  # a game (not a mixin or an abstract base): check its declaration
            _check_game_class(cls)

    @classmethod
    def rules_path(cls):
        """The game's rules file: ``rules_file`` in the package's rules folder
        (``boardenvs/rules/``), an absolute path, or a path relative to the
        folder of the module that defines the game."""
        from pathlib import Path

        name = Path(cls.rules_file)
        if name.is_absolute():
            return name
        shipped = Path(__file__).resolve().parent / "rules" / name
        if shipped.is_file():
            return shipped
        module = sys.modules.get(cls.__module__)
        return Path(getattr(module, "__file__", "") or ".").resolve().parent / name

    @classmethod
    def player_counts(cls) -> tuple:
        """The player counts the game is played by (its ``num_players``
        option's choices, else 2)."""
        for opt in cls.option_specs:
            if opt.name == "num_players":
                return tuple(opt.choices) or tuple(range(opt.low, opt.high + 1))
        return (2,)

    def __init__(self, **options):
        self.options = check_options(self.option_specs, options, self.env_id)
        config = self.configure(self.options)
        if not isinstance(config, Config):
            raise TypeError(
                f"{self.env_id}: configure() must return a boardenvs.spec.Config, got {type(config).__name__}"
            )
        n = int(config.num_players)
        for opt in self.option_specs:  # seats are checked once the number of players is known
            if opt.kind == "seat":
                opt.check(self.options[opt.name], self.env_id, n)
        obs_shape = tuple(int(d) for d in config.obs_shape)
        low, high = obs_bounds(obs_shape, config.obs_high_per_plane)
        self.info = GameInfo(
            env_id=self.env_id,
            num_players=n,
            num_actions=int(config.num_actions),
            num_chance_outcomes=int(config.num_chance_outcomes),
            obs_shape=obs_shape,
            obs_low=low,
            obs_high=high,
            layout=self.layout.resolve(**config.sizes),
            teams=tuple(range(n) if config.teams is None else config.teams),
        )
        # the sizes as plain attributes: the faces read them on every step
        info = self.info
        self.num_players, self.num_actions = info.num_players, info.num_actions
        self.num_chance_outcomes, self.obs_shape = info.num_chance_outcomes, info.obs_shape
        self.obs_size, self.state_size, self.mask_size = info.obs_size, info.state_size, info.mask_size
        game_params = config.params
        first = self.options.get("first_player", 0)
        params = np.zeros(E.P_GAME + len(game_params), np.int64)
        params[E.P_MAX_TURNS] = self.options["max_turns"]
        params[E.P_NUM_PLAYERS] = n
        params[E.P_FIRST] = -1 if first == "random" else first
        params[E.P_GAME :] = game_params
        self.params = params
        self._chance_buffer = np.zeros(max(self.num_chance_outcomes, 1), np.float64)

    def configure(self, options: dict) -> Config:
        """The sizes of the game with these (checked) options, a
        :class:`boardenvs.spec.Config` (actions, observation shape and plane
        bounds, players, chance outcomes, the layout's variable sizes, the
        game's params, teams).  Raise :class:`boardenvs.errors.OptionError`
        for options that do not fit together."""
        raise NotImplementedError

    @property
    def agents(self) -> list[str]:
        return [f"player_{i}" for i in range(self.num_players)]

    def team_of(self, seat: int) -> int:
        return self.info.teams[seat]

    def new_state(self, first_seat: int, rng_seed: int = 0) -> np.ndarray:
        state = np.zeros(self.state_size, np.int64)
        state[E.H_RNG] = rng_seed
        self.kernels.init(state, self.params, int(first_seat))
        return state

    def describe(self, state) -> str:
        """The state row field by field (for debugging)."""
        return self.info.layout.describe(state)

    # -- thin calls into the kernels ----------------------------------------
    # (the read-only calls take a read-only row too, e.g. a row of
    # ``make_vec``'s ``states`` view: the kernels are compiled for writable
    # rows, so such a row is copied first)
    def legal_mask(self, state) -> np.ndarray:
        if state[E.H_STATUS] != E.PLAYING:
            return np.zeros(self.mask_size, np.int8)
        mask = np.empty(self.mask_size, np.int8)  # the kernel writes every entry
        self.kernels.legal(_writable(state), self.params, mask)
        return mask

    def observe(self, state, seat: int) -> np.ndarray:
        obs = np.empty(self.obs_size, np.int8)  # the kernel writes every entry
        self.kernels.observe(_writable(state), self.params, seat, obs)
        return obs.reshape(self.obs_shape)

    def chance_probs(self, state) -> np.ndarray:
        probs = np.zeros(self.num_chance_outcomes, np.float64)
        if self.num_chance_outcomes and state[E.H_CURRENT] == E.CHANCE:
            self.kernels.chance_probs(_writable(state), self.params, probs)
        return probs

    def draw_chance(self, state) -> int:
        """The seeded die: one outcome of the chance node in ``state``, drawn
        by the outcomes' probabilities from the row's own generator
        (``H_RNG``, which moves on; the die ``make_vec`` rolls in-kernel,
        :func:`boardenvs.bind.settle_chance`).  What :meth:`Position.roll`
        and the raw AEC env's :meth:`~boardenvs.aec.BoardEnv.roll_chance` play."""
        probs = self._chance_buffer
        self.kernels.chance_probs(state, self.params, probs)
        return int(E.sample_probs(state, probs))

    # -- the engine on one row: every face over one game steps through here ---------------
    def one_row(self):
        """The engine on one row (a ``boardenvs._drivers.OneRow``), bound to
        this game's kernels (compiled once per game, cached): :meth:`step`
        and :meth:`settle` call it; a face on its hot path holds it."""
        from ._drivers import batched

        return batched(self.kernels).one

    def step(self, state, action: int, mask, *, mode: int = E.ILLEGAL_LOSE, settle: bool = True) -> int:
        """The one step of the engine (``boardenvs._drivers.step_row``, what
        ``make_vec`` runs on every row) on the row ``state``: ``action`` (an
        int; ``E.RANDOM_ACTION`` draws one from the row's generator) checked
        against the legal mask of whoever acts in ``state``, an illegal one
        handled by ``mode`` (``E.ILLEGAL_LOSE`` / ``ILLEGAL_RANDOM`` /
        ``ILLEGAL_REFUSE``), chance resolved by the seeded die with
        ``settle``.  ``mask``: an int8 buffer of ``mask_size`` the step fills
        with the next mover's mask (whatever it held is recomputed first: a
        caller's mask never reaches the kernels' trust).  Returns
        ``E.STEP_PLAYED``, ``STEP_ILLEGAL`` or ``STEP_REFUSED``."""
        self._check_row(state, mask)
        if not is_int(action) or not -(2**63) <= action < 2**63:
            raise IllegalMoveError(f"{self.env_id}: an action is an int64, got {action!r}")
        if mode not in (E.ILLEGAL_LOSE, E.ILLEGAL_RANDOM, E.ILLEGAL_REFUSE):
            raise ValueError(
                f"{self.env_id}: mode must be E.ILLEGAL_LOSE, ILLEGAL_RANDOM or ILLEGAL_REFUSE, got {mode!r}"
            )
        one = self.one_row()
        one.settle(state, self.params, False, self._chance_buffer, mask)  # the mask of the row as it is
        return one.step(state, self.params, int(action), mode, bool(settle), self._chance_buffer, mask)

    def settle(self, state, mask, *, resolve: bool = True) -> None:
        """A row a face changed otherwise than by a step (a new game, an
        out-of-rules ending) as a step leaves it: chance resolved by the
        seeded die (with ``resolve``), ``mask`` the legal mask of whoever
        acts next (zeros once over)."""
        self._check_row(state, mask)
        self.one_row().settle(state, self.params, bool(resolve), self._chance_buffer, mask)

    def _check_row(self, state, mask) -> None:
        """What the compiled step may trust of a caller's arrays (C-6: no
        public input reaches a kernel unchecked): a writeable C-contiguous
        int64 row of ``state_size`` and an int8 mask of ``mask_size``."""
        for name, arr, dtype, size in (
            ("state", state, np.int64, self.state_size),
            ("mask", mask, np.int8, self.mask_size),
        ):
            if not (
                isinstance(arr, np.ndarray)
                and arr.dtype == dtype
                and arr.shape == (size,)
                and arr.flags.c_contiguous
                and arr.flags.writeable
            ):
                got = f"{getattr(arr, 'dtype', type(arr).__name__)} {getattr(arr, 'shape', '')}"
                raise ValueError(
                    f"{self.env_id}: {name} must be a writeable C-contiguous {np.dtype(dtype).name} array of "
                    f"shape ({size},), got {got}"
                )

    def describe_action(self, state, action) -> str:
        """``F3-E3 (action 75)`` if ``action`` decodes here, else why not
        (``action 37 moves piece 0 of player_0, which is not on the board yet``)."""
        try:
            return f"{self.action_to_move(state, action)} (action {action})"
        except ValueError as exc:
            text = str(exc).removeprefix(f"{self.env_id}: ")
            return text if text.startswith(f"action {action}") else f"action {action} ({text})"

    def reason_name(self, code: int) -> str:
        return GENERIC_REASONS.get(code) or self.reason_names.get(code, str(code))

    def end_reason(self, state) -> str:
        return self.reason_name(int(state[E.H_REASON]))

    def check_action_id(self, action) -> int:
        """``action`` as an int, or IllegalMoveError if it is no action id."""
        if not is_int(action):
            raise IllegalMoveError(f"{self.env_id}: an action id is an int, got {action!r}")
        if not 0 <= action < self.mask_size:
            raise IllegalMoveError(f"{self.env_id}: action {action} is outside 0..{self.mask_size - 1}")
        return int(action)

    # -- hooks each game implements ------------------------------------------
    def action_to_move(self, state, action: int) -> str:
        """One decision in notation (IllegalMoveError if it does not decode here)."""
        raise NotImplementedError

    def move_to_action(self, state, move: str) -> int:
        """Parse one decision; NotationError if malformed (legality is the caller's)."""
        raise NotImplementedError

    def move_to_actions(self, state, move: str) -> list[int]:
        """A whole turn in notation as its chain of actions.  The default: one
        decision, or, for games with several decisions per turn, the
        decisions joined by ``decision_separator``; override where a later
        decision's notation depends on the earlier ones."""
        if not isinstance(move, str):
            raise NotationError(f"{self.env_id}: a move is a str, got {move!r}")
        if not self.multi_decision_turns:
            return [self.move_to_action(state, move)]
        return [self.move_to_action(state, part) for part in move.split(self.decision_separator.strip())]

    def actions_to_move(self, state, actions) -> str:
        """A chain of actions (one turn) in notation: the default joins the
        decisions' notations, each read in the state it was taken in."""
        if len(actions) == 1:
            return self.action_to_move(state, actions[0])
        parts = []
        s = state.copy()
        mask = np.empty(self.mask_size, np.int8)  # (the step computes it)
        for a in actions:
            parts.append(self.action_to_move(s, a))
            if self.step(s, int(a), mask, mode=E.ILLEGAL_REFUSE, settle=False) == E.STEP_REFUSED:
                raise IllegalMoveError(f"{self.env_id}: {self.describe_action(s, int(a))} is not legal in this chain")
        return self.decision_separator.join(parts)

    def body_to_text(self, state) -> list[str]:
        raise NotImplementedError

    def body_from_text(self, lines: list[str], state) -> None:
        raise NotImplementedError

    def check_state(self, state) -> None:
        """Refuse (NotationError) a parsed state the rules could not reach or
        whose header contradicts its body: a won position still playing, an
        end reason that does not hold, ... (python-chess's bar for FEN)."""

    def check_history(self, state) -> None:
        """Refuse (NotationError, naming the rule) a state that is consistent
        (:meth:`check_state`) but that no game played from the start
        reaches: pieces further from their starts than the turn counter
        allows, water off every trail.  Every entry point asks it (position
        text, JSON, rows) but for a set-up position asked for explicitly
        (``setup=True``: a puzzle, a rules test).  None by default."""

    def end_infos(self, state) -> dict:
        """Extra ``infos`` entries for every agent when its episode ends
        (e.g. Quicksand's scores, QS-12); none by default."""
        return {}

    def action_classes(self, state) -> np.ndarray:
        """The class of every action id (an index into ``action_class_names``)
        as the first decision of a turn in ``state``; -1 for action ids that
        belong to no class (not a turn's first decision).  Called only at the
        start of a turn by the dice variant, which keeps the legal actions of
        the rolled class and re-rolls when that class has none."""
        raise NotImplementedError(f"{self.env_id} declares no dice variant (action_class_names is empty)")

    def render_ansi(self, state) -> str:
        """The board only, as text, with the notation's coordinates on its
        edges; :func:`boardenvs.render.ansi_frame` adds the legend, the turn,
        the last move and the result (see boardenvs/render.py)."""
        raise NotImplementedError

    def render_rgb(self, state) -> np.ndarray:
        """The board only, ``uint8 (H, W, 3)``, one size per configured game,
        the last move outlined; :func:`boardenvs.render.rgb_frame` adds the
        rest (see boardenvs/render.py)."""
        raise NotImplementedError

    def last_move(self, state) -> str:
        """The last decision in notation ('' before the first): decoded as if
        its seat were to act, which fits notations that depend only on who
        moves; games whose notation depends on the board before the move
        override this."""
        action, seat = int(state[E.H_LAST_ACTION]), int(state[E.H_LAST_SEAT])
        if action < 0:
            return ""
        before = state.copy()
        before[E.H_CURRENT] = seat
        before[E.H_STATUS] = E.PLAYING
        try:
            return self.action_to_move(before, action)
        except ValueError:  # a last decision that is no action of its seat (a row made by hand): none to show
            return ""

    def cell_at(self, x: int, y: int):
        """The name of the board cell drawn at pixel ``(x, y)`` of
        :meth:`render_rgb`'s picture, or None (clicks in ``boardenvs play
        --window``); None everywhere by default (moves are picked from a list)."""
        return None

    def turn_notes(self, state) -> list[str]:
        """Lines on the turn under way for the pictures (the roll at chance
        games, decisions left in a chain, a setup phase); none by default."""
        return []

    def chance_status(self, state) -> str:
        """The turn indicator while chance is to act (``turn 5: ...`` in the
        pictures): ``chance to play`` by default; a game whose chance event is
        a seat's own (its die) names it (Tryasina: ``player_1 (B, top) to roll``)."""
        return "chance to play"

    def eliminate_seat(self, state, seat: int, reason: int) -> bool:
        """Take ``seat`` (the one to act) out of the game for an out-of-rules
        reason (a fallen flag): when one team is left it wins (``reason``);
        otherwise a game with eliminations overrides this to hand the turn on
        and return True.  The default returns False when others would play on
        (the caller then ends the game as a forfeit)."""
        alive = [s for s in range(self.num_players) if (int(state[E.H_ALIVE]) >> s) & 1 and s != seat]
        teams = {self.team_of(s) for s in alive}
        if len(teams) == 1:
            E.win_team(state, sum(1 << s for s in alive), reason)
            return True
        return False

    def __reduce__(self):
        """A game copies and pickles as its class and options: the params
        the kernels trust and the sizes are derived again, never read from
        a pickle."""
        return _game_of, (type(self), dict(self.options))


def _check_game_class(cls) -> None:
    """What every face and the generic code need of a game, checked when its
    class is defined (TypeError naming the missing pieces): a title, its
    kernels, configure(), the max_turns option (C-3), a rules file that
    exists, a rule-id prefix, a colour picture (render_rgb, with "rgb_array"
    among its render modes: windows, recordings and docs draw it) and the
    declarations' types."""
    where = f"{cls.env_id} ({cls.__module__}.{cls.__name__})"
    missing = []
    if not cls.title or not isinstance(cls.title, str):
        missing.append("a title (the game's name for people)")
    kernels = getattr(cls, "kernels", None)
    if not isinstance(kernels, E.Kernels) or not all(callable(k) for k in kernels):
        missing.append("kernels (a boardenvs.engine.Kernels of functions)")
    if cls.configure is Game.configure:
        missing.append("configure() (the sizes of a configured game, a boardenvs.spec.Config)")
    if not any(isinstance(o, Option) and o.name == "max_turns" for o in cls.option_specs):
        missing.append("the max_turns option (C-3: boardenvs.spec.max_turns_option(default))")
    if not isinstance(cls.rule_prefix, str) or not re.fullmatch(r"[A-Z]{1,4}", cls.rule_prefix):
        missing.append("rule_prefix (the capital letters of its rule ids, e.g. 'QU')")
    if not cls.rules_file or not cls.rules_path().is_file():
        missing.append(
            f"rules file (rules_file={cls.rules_file!r} names no file: boardenvs/rules/<name>, "
            "a path relative to the game's module, or an absolute path)"
        )
    if cls.render_rgb is Game.render_rgb or "rgb_array" not in cls.render_modes:
        missing.append('colour picture (render_rgb, and "rgb_array" in render_modes)')
    moved = {
        "training": "training",
        "bench": "bench",
        "doc_picture": "doc_picture",
        "heuristic": "greedy",
        "clock_decided_reasons": "clock",
        "settle_chance": None,
    }
    for name, tool in moved.items():
        if any(name in klass.__dict__ for klass in cls.__mro__):
            target = (
                f'TOOLS["{tool}"] in its module (boardenvs.registry.tool_settings)' if tool else "the engine's step"
            )
            raise TypeError(f"game {where}: {name} is no class attribute since 0.4: it moved to {target}")
    if missing:
        raise TypeError(f"game {where} declares no " + "; no ".join(missing))


def _game_of(cls, options):
    """Unpickling a game: ``cls(**options)``, options checked again."""
    if not (isinstance(cls, type) and issubclass(cls, Game)) or not isinstance(options, dict):
        raise TypeError(f"a pickled game is a Game subclass and its options, got {cls!r}")
    return cls(**options)


def _writable(state):
    return state if state.flags.writeable else state.copy()
