"""Rate any agent against a fixed, versioned ladder of opponents.

    boardenvs rate quess_v0 baseline:quess_v0 --precision 50
    boardenvs rate hex_quoridor_v1 my_model.pt --players 4
    python -m boardenvs.baselines.ladder build quess_v0      # (maintainers) a ladder's games and ratings
    python -m boardenvs.baselines.ladder record quess_v0 baseline:quess_v0   # a rating kept on the leaderboard
    python -m boardenvs.baselines.ladder check               # replay every committed game, refit every rating

A **ladder** is a list of opponents for one game and player count
(``quess_v0``, ``tryasina_v0_4p``: the names of the committed models):
``random``, ``greedy``, ``mcts`` (100 simulations a move), the committed
model (``baseline:<name>``) and, in two-player games, its guided search
(``search:100:<name>``).  Its members played a seeded round-robin; every
game is a committed **match trace** (``ladders/<name>/v<k>.jsonl.gz``, one
JSON line per game, :mod:`boardenvs.traces`: replayable by ``boardenvs
replay``, checked on read), and the members' Bradley-Terry ratings, fitted
to those games with ``random`` = 0 and frozen, are in
``ladders/<name>/v<k>.json`` with 95% intervals (a bootstrap over each
pairing's games; each pairing counts half a win and half a loss more, in the
fit and its resamples alike).  A ladder never changes: a new opponent, a retrained
model or a rules change (a new env id version) makes a new version, and a
rating names the version it is on (``quess_v0 ladder v1``).

**Rating an agent** (:func:`rate`): the agent plays the members, in every
seat in turn (its seat rotates game by game; games that share a seed share
their opening and differ by the agent's seat; with more than two players,
half the games put the agent in one seat and the member in the others, half
the member in one seat and the agent in the others, as the ladder's own
games were played), in rounds of
:data:`CHUNK` games against one member: first every member, then the two
members whose games say the most about it (expected score nearest 1/2 at
its current rating).  Its rating is the one Bradley-Terry parameter that
fits its games with the ladder's ratings held fixed (a maximum-likelihood
fit with a prior of one draw against ``random``, as the round-robin's, and
half a win and half a loss added to its games against each member, so that
a clean sweep gives a finite rating), and its 95% interval the middle 95%
of the same fit over 1,000 resamples of its games (each pairing's scores
redrawn with replacement from them and that half win and half loss).  It
stops when the interval's half-width is at most ``precision`` Elo, or after
``games`` games.  A score between two seats is 1 for the higher return, 1/2
for a tie (in a game of more players, the agent's seat is compared with
each of the member's seats and the comparisons averaged: 1/2 on average
between equals).  Where the options leave the first player to chance, seat
0 moves first and the seats rotate instead; in games without chance nodes
the first :func:`opening` decisions are seeded random moves, so that two
deterministic agents play different games.

Everything is seeded: the same agent, seed and ladder play the same games.
"""

from __future__ import annotations

import sys
import types

# the rating math (boardenvs.baselines.ratings), offered here as when the ladder was one module
from ..ratings import anchor_prior as anchor_prior
from ..ratings import bradley_terry as bradley_terry
from ..ratings import rating_of as rating_of
from ..ratings import resampled_sums as resampled_sums
from . import binding, builder, checks, cli, play, rating, report, store
from .builder import build, default_members, record
from .checks import check_ladder, check_rated
from .cli import main
from .play import CHUNK, opening
from .rating import ANCHOR, QUIET, SAMPLES, SMOOTHING, fit, rate, rate_traces
from .report import markdown
from .store import (
    HERE,
    LADDERS,
    MODEL_PREFIXES,
    MODELS,
    check_ladder_doc,
    fingerprint,
    ladder_names,
    ladder_path,
    ladder_versions,
    load_ladder,
    model_config,
    rated_path,
    rated_traces_path,
    sha256_of,
    traces_path,
)

__all__ = [
    "HERE",
    "LADDERS",
    "MODELS",
    "CHUNK",
    "SAMPLES",
    "ANCHOR",
    "SMOOTHING",
    "MODEL_PREFIXES",
    "opening",
    "default_members",
    "model_config",
    "sha256_of",
    "fingerprint",
    "ladder_path",
    "ladder_names",
    "ladder_versions",
    "load_ladder",
    "check_ladder_doc",
    "traces_path",
    "fit",
    "rate",
    "rate_traces",
    "QUIET",
    "build",
    "check_ladder",
    "rated_path",
    "rated_traces_path",
    "record",
    "check_rated",
    "markdown",
    "main",
]

_MODULES = (store, play, rating, binding, builder, checks, report, cli)


class _Package(types.ModuleType):
    """The package answers as the one module it grew from: a name set on it
    (``ladder.LADDERS = folder``, a test's ``monkeypatch.setattr(ladder,
    "fingerprint", ...)``) is set too in each of its modules that holds the
    name, so that their functions, which read their own module's names,
    see it.  Dunder names (the import system's) stay the package's own."""

    def __setattr__(self, name: str, value) -> None:
        super().__setattr__(name, value)
        if not name.startswith("__"):
            for module in _MODULES:
                if name in vars(module):
                    setattr(module, name, value)


sys.modules[__name__].__class__ = _Package
