"""One league for self-play, whatever trains the learner.

A :class:`League` holds frozen snapshots of a learner and named reference
opponents, and picks one per episode: one of the named opponents
(``others``, uniformly) with probability ``others_prob``, else the latest
snapshot with probability ``latest_prob``, else a snapshot drawn uniformly;
``initial`` while there is no snapshot yet.  It keeps the ``max_size`` most
recent snapshots.  A snapshot is an :class:`~boardenvs.opponents.Opponent`,
so the league knows no training framework: each framework supplies the
factory that turns its learner into one and a callback, named after it,
that adds snapshots as training goes (stable-baselines3:
:func:`boardenvs.wrappers.selfplay.sb3_snapshot` and
:class:`~boardenvs.wrappers.selfplay.SB3SelfPlayCallback`; Ray RLlib:
:func:`boardenvs.rllib.module_snapshot` and
:class:`~boardenvs.rllib.RLlibSelfPlayCallback`).

Every single-agent view takes a league as its ``opponent`` (it asks
``pick(rng)`` once per episode with its seeded generator), so self-play is::

    league = League()
    env = gymnasium.make("boardenvs/Quagmire-v0", opponent=league)
    MaskablePPO("MlpPolicy", env).learn(100_000, callback=SB3SelfPlayCallback(league))

A league is shared by reference: it works with the views and SB3's
``DummyVecEnv``, not across processes (a copy in another process never sees
the new snapshots: RLlib's callback adds them on every runner).
"""

from __future__ import annotations

import numpy as np

from .opponents import Opponent, make_opponent
from .spec import check_size


def _probability(name: str, p) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)) or not 0.0 <= p <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
    return float(p)


class League:
    """Self-play's opponents, one picked per episode (see the module
    docstring)."""

    def __init__(
        self, max_size: int = 20, latest_prob: float = 0.5, initial="random", others=(), others_prob: float = 0.0
    ):
        self.max_size = check_size("max_size", max_size, 1000)
        self.latest_prob = _probability("latest_prob", latest_prob)
        self.others_prob = _probability("others_prob", others_prob)
        if isinstance(others, str) or not all(isinstance(o, str) for o in others):
            raise ValueError(f"others must be a sequence of opponent names, got {others!r}")
        self.other_names = tuple(others)
        self.others = [make_opponent(o) for o in self.other_names]  # (a bad name: its error, here)
        self.initial = make_opponent(initial) if isinstance(initial, str) else initial
        self.snapshots: list[Opponent] = []
        self.added = 0  # snapshots ever added
        self.picks = 0  # episodes that drew an opponent from the league

    def add(self, snapshot: Opponent) -> Opponent:
        """Add a frozen snapshot of the learner (an Opponent: the framework's
        factory made it); the oldest goes beyond ``max_size``."""
        if not isinstance(snapshot, Opponent):
            raise TypeError(f"a league holds Opponents (a framework's snapshot factory makes them), got {snapshot!r}")
        self.added += 1
        self.snapshots.append(snapshot)
        del self.snapshots[: -self.max_size]
        return snapshot

    def pick(self, rng) -> Opponent:
        """The opponent of one episode (``rng``: the view's seeded generator)."""
        if not self.snapshots:
            return self.initial
        self.picks += 1
        if self.others and rng.random() < self.others_prob:
            return self.others[int(rng.integers(len(self.others)))]
        if rng.random() < self.latest_prob:
            return self.snapshots[-1]
        return self.snapshots[int(rng.integers(len(self.snapshots)))]

    def __len__(self) -> int:
        return len(self.snapshots)

    def __repr__(self) -> str:
        others = f", others {self.other_names} {self.others_prob:g}" if self.others else ""
        return f"<League {len(self)}/{self.max_size} snapshots, latest_prob={self.latest_prob:g}{others}>"
