"""Opponents: one protocol, one registry of names (core).

**The protocol.**  An opponent is an :class:`Opponent` with one method,
``act(batch) -> actions``: a :class:`Batch` holds the decisions it is asked
for, one per row — the configured ``game``, the ``masks`` (``(k, A)``
bools), the ``seats`` to act, the caller's ``rows``, the ``rng`` (the
caller's seeded numpy generator), and, read on demand, the
``observations`` (each seat's own, in the caller's layout: flat or planes)
and ``states`` (copies of the rows, for search opponents; the opponent may
scribble on them).  It returns one action id per row.  :func:`decide` is the
one place that asks an opponent: it calls ``act`` and checks the answer
(shape, integers, in each row's mask), raising IllegalActionError naming
the opponent, the row and the action otherwise; every face goes through it
(the single-agent view and its vector view, ``evaluate``, distillation,
``boardenvs play``).  ``in_kernel`` opponents (only ``"random"``) are drawn
by the vector view's kernel instead, from each row's own generator.

**Names.**  :func:`make_opponent` turns what users pass as ``opponent=`` into
an Opponent: a registered name (:func:`register_opponent`: ``"random"``
here; the reference opponents ``"greedy"``, ``"mcts"``, ``"mcts:<n>"``,
``"search:<n>:<model>"``, ``"search-greedy:<n>:<model>"``,
``"baseline:<model>"`` and saved-model paths registered by the reference
opponents' package), ``"module:attribute"`` (an object of a Python module
that ``opponent=`` takes; importing runs code, so only with ``trust``), an
Opponent, an object an upper layer
registered an adapter for (:func:`register_adapter`: SB3 models, in
:mod:`boardenvs.wrappers.selfplay`), or a batched policy
``policy(observations, action_masks) -> actions``.

**Trust.**  A saved model in a format that runs code when it is loaded (an
SB3 ``.zip``, an RLlib checkpoint folder: their loaders unpickle) loads only
when the caller says it trusts the file: :func:`load_opponent` with
``trust=True`` (the CLI's ``--trust-files``).  A string naming one anywhere
else (``opponent="model.zip"``) is refused with an
:class:`~boardenvs.errors.UntrustedFileError` saying how, before any plugin
reads it; the resolvers get the caller's ``trust`` and load such a format
only with it.  The package's own format (a ``.pt`` of weights, read with
``torch.load(weights_only=True)``, beside a ``.json`` checked before
anything is built) loads by default.

**Plugins.**  The packages that register opponents are found by their
distribution's entry points, group ``boardenvs.opponents`` (the core names
none of them): each is imported on first need, in the order of the entry
points' names.  This distribution declares its reference opponents
(``baselines``) and its RLlib integration (``rllib``, which adds nothing
without Ray); another package adds its own opponents the same way::

    [project.entry-points."boardenvs.opponents"]
    myagents = "mypackage.opponents"      # imported once an unknown name is asked for
"""

from __future__ import annotations

import importlib
import os
import pickle
import re
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

from .errors import (
    IllegalActionError,
    MissingExtraError,
    ModelFileError,
    UnknownNameError,
    UntrustedFileError,
    did_you_mean,
    first_line,
    shorten,
)

PLUGIN_GROUP = "boardenvs.opponents"  # the entry points of the packages that register opponents


def plugins() -> tuple:
    """The modules that register opponents, by their entry points (group
    :data:`PLUGIN_GROUP`), in the order of the entry points' names."""
    found = {(ep.name, ep.value) for ep in metadata.entry_points(group=PLUGIN_GROUP)}
    return tuple(value for _, value in sorted(found))


class Batch:
    """The decisions one opponent is asked for (see the module docstring).

    ``observations`` and ``states`` may be given as arrays, or as callables
    computing them, so an opponent that reads one never pays for the other.
    """

    def __init__(self, game, masks, rng, *, seats=None, rows=None, observations=None, states=None):
        self.game = game
        self.masks = np.asarray(masks, bool)
        self.rng = rng
        k = self.masks.shape[0]
        self.rows = np.arange(k, dtype=np.int64) if rows is None else np.asarray(rows, np.int64)
        self.seats = np.zeros(k, np.int64) if seats is None else np.asarray(seats, np.int64)
        self._observations = observations
        self._states = states

    def __len__(self) -> int:
        return self.masks.shape[0]

    @property
    def observations(self) -> np.ndarray:
        """Each row's observation for its seat to act (the caller's layout)."""
        if callable(self._observations):
            self._observations = self._observations()
        if self._observations is None:
            raise ValueError("this batch carries no observations")
        return self._observations

    @property
    def states(self) -> np.ndarray:
        """Copies of the rows' states, ``(k, state_size)`` int64."""
        if callable(self._states):
            self._states = self._states()
        if self._states is None:
            raise ValueError("this batch carries no states")
        return self._states

    @classmethod
    def of_states(cls, game, states, rng, rows=None) -> Batch:
        """A batch from state rows (copied): masks, seats and observations
        follow from them."""
        states = np.array(states, np.int64, ndmin=2)
        masks = (
            np.stack([game.legal_mask(s)[: game.num_actions] for s in states])
            if len(states)
            else np.zeros((0, game.num_actions), bool)
        )
        seats = states[:, 0].copy()  # H_CURRENT

        def observe():
            return np.stack([game.observe(s, int(seat)) for s, seat in zip(states, seats)])

        return cls(game, masks, rng, seats=seats, rows=rows, observations=observe, states=lambda: states.copy())

    @classmethod
    def of_position(cls, pos, rng) -> Batch:
        """The one decision of the seat to act in Position ``pos``."""
        return cls.of_states(pos.game, pos.state[None], rng)


class Opponent:
    """The protocol (see the module docstring): ``act(batch) -> actions``."""

    name = "opponent"
    in_kernel = False  # drawn by the vector view's kernel instead (only "random")

    def engine_decision(self, game) -> tuple | None:
        """How the engine's learner loop can play this opponent inside its
        compiled step, with no Python between decisions: a tuple of compiled
        functions whose last is ``decide(g, state, params, mask) -> action``
        (``g`` the game's kernels bound with the whole tuple,
        :func:`boardenvs.bind.bound`; the others are what ``decide`` calls
        through ``boardenvs.bind.call_extra``), or None (the default: the
        opponent is asked through :meth:`act`, a batch per round).  The same
        functions every time (an env asks once and compiles its driver once).
        In the engine the decision is the engine's to check: an action the
        mask does not allow forfeits that seat's game (asked through
        :meth:`act`, :func:`decide` raises IllegalActionError instead)."""
        return None

    def act(self, batch: Batch) -> np.ndarray:
        """One action per row of ``batch`` (an int64 array of ``len(batch)``),
        each legal under the row's mask; :func:`decide` checks the answer."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def decide(opponent: Opponent, batch: Batch) -> np.ndarray:
    """``opponent``'s actions for ``batch``, checked: one integer per row,
    each legal in its row's mask; IllegalActionError naming the opponent,
    the row, its seat and the action otherwise."""
    k = len(batch)
    if k == 0:
        return np.zeros(0, np.int64)
    raw = np.asarray(opponent.act(batch))
    acts = raw.reshape(-1) if raw.ndim <= 1 or raw.size == k else raw
    if acts.shape != (k,) or acts.dtype.kind not in "iu":
        raise IllegalActionError(
            f"{batch.game.env_id}: opponent {opponent.name} returned {raw.shape} {raw.dtype}, "
            f"expected {k} integer actions"
        )
    acts = acts.astype(np.int64)
    ok = (acts >= 0) & (acts < batch.masks.shape[1])
    ok[ok] = batch.masks[np.flatnonzero(ok), acts[ok]]
    if not ok.all():
        r = int(np.flatnonzero(~ok)[0])
        raise IllegalActionError(
            f"{batch.game.env_id}: opponent {opponent.name} chose an illegal action: {int(acts[r])} in row "
            f"{int(batch.rows[r])} (player_{int(batch.seats[r])} to act), not legal there"
        )
    return acts


class RandomOpponent(Opponent):
    """A uniformly random legal action (drawn from the batch's generator; the
    vector view draws it in the kernel, from each row's own)."""

    name = "random"
    in_kernel = True

    def act(self, batch: Batch) -> np.ndarray:
        """A uniformly random legal action per row, drawn with the batch's generator."""
        masks = batch.masks
        u = batch.rng.random(masks.shape[0])
        counts = masks.sum(axis=1)
        pick = np.minimum((u * counts).astype(np.int64), np.maximum(counts - 1, 0))
        ranks = np.cumsum(masks, axis=1) - 1  # the pick-th set entry of each row
        return np.argmax(masks & (ranks == pick[:, None]), axis=1).astype(np.int64)


class PolicyOpponent(Opponent):
    """A batched policy ``policy(observations, action_masks) -> actions``."""

    def __init__(self, policy, name: str | None = None):
        self.policy = policy
        self.name = name or getattr(policy, "__name__", "policy")

    def act(self, batch: Batch) -> np.ndarray:
        """The policy's actions for the batch's observations and masks."""
        out = np.asarray(self.policy(batch.observations, batch.masks)).reshape(-1)
        if out.shape != (len(batch),):
            raise ValueError(f"opponent {self.name}: returned {out.shape[0]} actions for {len(batch)} observations")
        return out


# --- the registry -------------------------------------------------------------
# name -> (factory(), help) for plain names; prefix -> (factory(argument), help)
# for "prefix:argument" names ("mcts:400"); resolvers: strings that are no
# name (a saved model's path) -> Opponent or None; adapters: objects -> Opponent or None
_NAMED: dict = {}
_PREFIXED: dict = {}
_RESOLVERS: list = []
_ADAPTERS: list = []
_loaded: list = []  # the plugins tried so far

MODEL_FILES = (
    "the path of a saved model (a .pt from python -m boardenvs.baselines.train; an SB3 .zip or an RLlib "
    "checkpoint with trust=True)"
)
TRUST_HOW = (
    "load it only if you trust the file: boardenvs.opponents.load_opponent(path, trust=True) (and pass "
    "the opponent it returns), or --trust-files on the command line"
)
# what an RLlib checkpoint folder holds (any of them): its loader unpickles
CHECKPOINT_FILES = ("rllib_checkpoint.json", "learner_group", "module_state.pt", "class_and_ctor_args.pkl")
# errors a loader of a user's file may raise besides ValueError (a resolver's or a prefix's): one line each
LOAD_ERRORS = (
    OSError,
    RuntimeError,
    EOFError,
    KeyError,
    IndexError,
    AttributeError,
    RecursionError,
    MemoryError,
    UnicodeError,
    pickle.UnpicklingError,
)


def untrusted(spec: str, what: str) -> UntrustedFileError:
    """The refusal of ``spec``, a file of a format that runs code when it is
    loaded (``what``: "an SB3 .zip", ...), named without trust."""
    return UntrustedFileError(
        f"opponent {shorten(repr(spec))}: {what} runs code when it is loaded (pickle); {TRUST_HOW}"
    )


def code_format(spec: str) -> str | None:
    """What ``spec`` names if it is a saved model in a format that runs code
    when loaded: ``"an SB3 .zip"`` (the file, or ``spec + ".zip"`` where no
    ``.pt``/``.json`` pair of that name exists), ``"an RLlib checkpoint
    folder"`` (a folder holding one of :data:`CHECKPOINT_FILES` or a
    ``.pkl``); None otherwise.  Reads only the file system's names."""

    def exists(p: Path, kind: str) -> bool:
        try:
            return p.is_file() if kind == "file" else p.is_dir() if kind == "dir" else p.exists()
        except (OSError, ValueError):  # a name too long for the system, a NUL byte: nothing there
            return False

    path = Path(spec)
    if not spec or not path.name:
        return None
    suffix = path.suffix.lower()
    if suffix == ".zip" and exists(path, "file"):
        return "an SB3 .zip"
    if exists(path, "dir"):
        try:
            pickles = any(p.suffix == ".pkl" for p in path.iterdir())
        except OSError:
            pickles = False
        if pickles or any(exists(path / name, "any") for name in CHECKPOINT_FILES):
            return "an RLlib checkpoint folder"
    if suffix not in (".pt", ".json", ".zip"):
        pair = all(exists(path.with_name(path.name + ext), "file") for ext in (".pt", ".json"))
        if not pair and exists(path.with_name(path.name + ".zip"), "file"):
            return "an SB3 .zip"
    return None


def register_opponent(
    name: str, factory: Callable, prefix: bool = False, help: str = "", replace: bool = False
) -> None:
    """Make ``name`` an opponent name.  ``factory()`` builds the opponent of
    the plain name; with ``prefix=True``, ``factory(argument)`` builds the
    one of ``"name:argument"`` (``argument`` a non-empty str the factory
    checks, raising ValueError with what it accepts).  A name can be both,
    registered twice (``"mcts"`` and ``"mcts:<simulations>"``)."""
    if not isinstance(name, str) or not name or ":" in name:
        raise ValueError(f"an opponent name is a non-empty str without ':', got {name!r}")
    table = _PREFIXED if prefix else _NAMED
    if name in table and not replace:
        raise ValueError(f"opponent name {name!r}{':...' if prefix else ''} is already registered")
    table[name] = (factory, help)


def register_resolver(resolver: Callable) -> None:
    """``resolver(spec: str, trust: bool) -> Opponent | None`` for strings
    that are no registered name (a saved model's path); the first that
    answers wins.  ``trust``: the caller trusts the file (:func:`load_opponent`
    with ``trust=True``); a resolver loads a format that runs code when
    loaded only then, and otherwise raises :func:`untrusted`'s error."""
    if resolver not in _RESOLVERS:
        _RESOLVERS.append(resolver)


def register_adapter(adapter: Callable) -> None:
    """``adapter(obj) -> Opponent | None`` for objects passed as opponents (an
    SB3 model); the first that answers wins, before a callable is taken as a
    batched policy."""
    if adapter not in _ADAPTERS:
        _ADAPTERS.append(adapter)


def _load_next_plugin() -> bool:
    """Import the next plugin not tried yet (its names and resolvers
    register); False once every plugin was tried.  A plugin whose extra is
    not installed (ImportError) adds nothing."""
    for name in plugins():
        if name not in _loaded:
            _loaded.append(name)
            try:
                importlib.import_module(name)
            except ImportError:
                pass
            return True
    return False


def _load_plugins(all_of_them: bool = False) -> None:
    """The first plugin (the package's own opponents), or every one."""
    while _load_next_plugin() and all_of_them:
        pass
    if not all_of_them and not _loaded:
        _load_next_plugin()


def opponent_names() -> list[str]:
    """What ``opponent=`` accepts by name: plain names and ``prefix:<...>`` forms."""
    _load_plugins()
    names = list(_NAMED)
    for p, (_, help) in _PREFIXED.items():
        names.append(f"{p}:{help or '<argument>'}")
    return names


def _plain_names() -> list[str]:
    """The names a typo is compared with: the plain ones and the prefixes (``mcts``, ``baseline``)."""
    return [*_NAMED, *_PREFIXED]


def _accepted() -> str:
    return ", ".join(repr(n) for n in opponent_names())


def opponent_from_name(spec: str, *, trust: bool = False) -> Opponent:
    """The opponent a registered name stands for, or what a resolver makes of
    ``spec`` (a saved model's path, an RLlib checkpoint folder: that one and
    an SB3 .zip only with ``trust=True``, :class:`UntrustedFileError`
    otherwise); ValueError listing the accepted names otherwise."""
    if spec not in _NAMED and spec.partition(":")[0] not in _PREFIXED:
        _load_plugins()
        if not trust and spec not in _NAMED and spec.partition(":")[0] not in _PREFIXED:
            what = code_format(spec)  # refused before any other plugin is imported or any file read
            if what is not None:
                raise untrusted(spec, what)
    while True:
        found = _resolve_name(spec, trust)
        if found is not None or not _load_next_plugin():
            break
    if found is not None:
        return found
    shown = shorten(repr(spec))
    if _MODULE_ATTRIBUTE.fullmatch(spec):
        found = _from_module(spec, trust)
        if found is not None:
            return found
    try:
        folder = os.path.isdir(spec)
    except (OSError, ValueError):
        folder = False
    if folder:
        raise ValueError(
            f"opponent {shown}: {shorten(os.path.abspath(spec), 120)} is a folder, not a saved model; {MODEL_FILES}"
        )
    if spec.endswith((".pt", ".zip", ".json")) or os.sep in spec or "/" in spec:  # (a mistyped path)
        raise ValueError(
            f"opponent {shown}: no such file ({shorten(os.path.abspath(spec), 120)} does not exist); {MODEL_FILES}"
        )
    raise UnknownNameError(
        f"unknown opponent {shown}{did_you_mean(spec, _plain_names())}: accepted names are {_accepted()}, or "
        f"{MODEL_FILES}; or pass a policy(obs, masks) -> actions, an SB3 model or a League",
        spec,
        opponent_names(),
    )


def _resolve_name(spec: str, trust: bool = False):
    """``opponent_from_name``'s one try with the plugins loaded so far (None:
    not found).  A saved model that cannot be loaded is a one-line
    :class:`ModelFileError` naming the opponent (whatever its loader raised)."""
    shown = shorten(repr(spec))
    if spec in _NAMED:
        return _NAMED[spec][0]()
    head, sep, arg = spec.partition(":")
    if sep and head in _PREFIXED:
        if not arg:
            raise ValueError(
                f"opponent {shown}: {head}: needs an argument ({head}:{_PREFIXED[head][1]}); accepted: {_accepted()}"
            )
        try:
            return _PREFIXED[head][0](arg)
        except (ModelFileError, MissingExtraError) as exc:  # the model it names: its own words, not the list of names
            raise type(exc)(f"opponent {shown}: {exc}") from None
        except ValueError as exc:
            raise ValueError(f"opponent {shown}: {exc}; accepted: {_accepted()}") from None
        except LOAD_ERRORS as exc:
            raise ModelFileError(f"opponent {shown}: cannot be loaded ({first_line(exc)})") from None
    if sep and head in _NAMED:
        raise ValueError(f"opponent {shown}: {head!r} takes no ':' argument; accepted: {_accepted()}")
    for resolver in _RESOLVERS:
        try:
            found = resolver(spec, trust)
        except LOAD_ERRORS as exc:
            raise ModelFileError(f"opponent {shown}: cannot be loaded ({first_line(exc)})") from None
        if found is not None:
            return found
    return None


_MODULE_ATTRIBUTE = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _from_module(spec: str, trust: bool):
    """The opponent ``"module:attribute"`` names (anything ``opponent=``
    takes: an Opponent, a policy, an SB3 model), imported only with
    ``trust`` (importing runs the module's code; UntrustedFileError
    otherwise); None if there is no such module (the current folder is
    searched too, as ``python -m`` would)."""
    shown = shorten(repr(spec))
    module, _, attribute = spec.partition(":")
    if not trust:
        raise UntrustedFileError(
            f"opponent {shown} is no registered name ({_accepted()}); read as a Python "
            f"module:attribute, loading it imports {module} (runs its code): {TRUST_HOW}"
        )
    import sys

    try:
        try:
            mod = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module.partition(".")[0] or os.getcwd() in sys.path:
                raise
            sys.path.append(os.getcwd())
            try:
                mod = importlib.import_module(module)
            finally:
                sys.path.remove(os.getcwd())
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module == exc.name or module.startswith(exc.name + ".")):
            return None  # no such module: no opponent of that name (the caller says what is accepted)
        raise ModelFileError(f"opponent {shown}: importing {module} failed ({first_line(exc)})") from None
    except Exception as exc:  # its code failed: its error in one line
        raise ModelFileError(
            f"opponent {shown}: importing {module} failed ({type(exc).__name__}: {first_line(exc)})"
        ) from None
    obj = mod
    for part in attribute.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"opponent {shown}: {module} has no attribute {attribute!r}")
        obj = getattr(obj, part)
    if isinstance(obj, str) or obj is None:
        raise ValueError(
            f"opponent {shown}: {module}.{attribute} is {shorten(repr(obj))}, not an opponent, a policy or a model"
        )
    found = make_opponent(obj, trust=trust)
    if isinstance(found, PolicyOpponent) and found is not obj:
        found.name = spec
    return found


def make_opponent(spec, *, trust: bool = False) -> Opponent:
    """An :class:`Opponent` from what a user passes as ``opponent=``: a
    registered name (:func:`opponent_names`), the path of a saved model, an
    Opponent, an object an adapter takes (an SB3 model) or a batched policy.
    ``trust``: a path may name a format that runs code when loaded (an SB3
    .zip, an RLlib checkpoint folder; refused otherwise, see the module's
    docstring)."""
    if spec is None:
        return RandomOpponent()
    if isinstance(spec, Opponent):
        return spec
    if isinstance(spec, str):
        return opponent_from_name(spec, trust=trust)
    _load_plugins()
    while True:
        for adapter in _ADAPTERS:
            found = adapter(spec)
            if found is not None:
                return found
        if callable(spec) or not _load_next_plugin():  # a plain callable is a policy: no need to look further
            break
    if callable(spec):
        return PolicyOpponent(spec)
    raise ValueError(
        f"opponent must be a name ({_accepted()}), a policy(obs, masks) -> actions, an SB3 model or a "
        f"League; got {shorten(repr(spec))}"
    )


def load_opponent(spec: str, env_id: str | None = None, *, trust: bool = False) -> Opponent:
    """What ``--vs`` / ``--players`` name (the CLI): a registered name or the
    path of a saved model, as ``opponent=`` everywhere (:func:`make_opponent`);
    ValueError for anything else, listing the accepted names.  ``trust=True``
    (the CLI's ``--trust-files``): the caller trusts the file, which may then
    be an SB3 ``.zip`` or an RLlib checkpoint folder (their loaders unpickle,
    so they run code); without it those are an :class:`UntrustedFileError`.
    The opponent it returns can be passed as ``opponent=`` anywhere."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"an opponent is one of {opponent_names()} or {MODEL_FILES}, got {shorten(repr(spec))}")
    if not isinstance(trust, bool):
        raise ValueError(f"trust must be True or False, got {shorten(repr(trust))}")
    return make_opponent(spec, trust=trust)


register_opponent("random", RandomOpponent, help="a uniformly random legal action")
