"""A chess clock for any game (``boardenvs.wrappers.ChessClock``).

Each agent has a time budget (``seconds``: one number for all, or a dict per
agent) and an optional ``increment`` added after each of its turns.  Its clock
runs from the moment it becomes the agent to act until its action arrives;
the decisions of one turn (a chain by the same agent) are charged to the same
clock, and the increment comes once the turn is over.  An action that
arrives after the flag fell is not played: the agent loses (its clock reads
0).  In a two-player game the other player wins (end reason ``"timeout"``);
in a game with eliminations the flagged agent is taken out and the others
play on (``Game.eliminate_seat``); a game without them ends as a forfeit (the
flagged agent -1, the others 0).  A draw whose end reason the game lists in
``TOOLS["clock"]["decided_reasons"]`` in the game's module (:func:`decided_reasons`)
goes to the agent with the most time left (Quess' one-each draw, QU-10 with QU-12; equal times stay a draw).

The time left is in ``infos[agent]["time_left"]`` (seconds, for every agent
after every reset and step) and in every picture beside the agent's name.
The time source is injectable (any zero-argument callable returning seconds,
``time.monotonic`` by default) so tests can run on a fake clock.  Every
reading must be a finite number that never goes back: a NaN, an infinity,
something that is no number or a reading earlier than the one before is a
ValueError naming the time source and the reading, raised before the clock
or the game changes (the time source is read once per step, before the
step; the next agent's clock starts at that reading).

The wrapper reads only the env's public surface: ``agent_selection``,
``is_done``, ``turn``, ``end_reason``, ``eliminate``, ``adjudicate``,
``add_seat_note`` and ``game`` (its declaration).  Quess' speed variant
(QU-12) is this wrapper with Quess' settings: ``boardenvs.make("quess_v0",
clock_seconds=300)``.
"""

from __future__ import annotations

import math
import numbers
import time

from pettingzoo.utils.wrappers import BaseWrapper

from .registry import tool_settings


def decided_reasons(game) -> frozenset:
    """The end reasons (names) of the draws a chess clock decides for a game:
    ``TOOLS["clock"]["decided_reasons"]`` in its module (Quess' one-each draw,
    QU-10 with QU-12); none by default."""
    settings = tool_settings(game, "clock") or {}
    unknown = set(settings) - {"decided_reasons"}
    if unknown:
        raise TypeError(f"TOOLS['clock'] of {game}: unknown keys {sorted(unknown)} (it takes 'decided_reasons')")
    return frozenset(settings.get("decided_reasons", ()))


def format_seconds(t: float) -> str:
    """``4:05.3`` (minutes) or ``9.5 s``."""
    t = max(t, 0.0)
    if t >= 60:
        m, s = divmod(t, 60)
        return f"{int(m)}:{s:04.1f}"
    return f"{t:.1f} s"


class ChessClock(BaseWrapper):
    """A chess clock around any AEC env (see the module docstring):
    ``seconds`` per agent (a number, or a dict per agent; ``clock_seconds`` is
    the env option's name for it), ``increment`` seconds after each turn, time
    read from ``time_source``.  ``remaining`` holds each agent's time left."""

    def __init__(self, env, seconds=None, increment: float = 0.0, time_source=time.monotonic, *, clock_seconds=None):
        super().__init__(env)
        if clock_seconds is not None:  # the name of the env option (QU-12)
            if seconds is not None:
                raise TypeError("give seconds or clock_seconds, not both")
            seconds = clock_seconds
        agents = list(self.possible_agents)
        budgets = seconds if isinstance(seconds, dict) else {a: seconds for a in agents}
        if set(budgets) != set(agents):
            raise ValueError(f"seconds per agent must name exactly {agents}, got {sorted(budgets)}")
        for agent, t in budgets.items():
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0 or t != t or t == float("inf"):
                raise ValueError(f"clock seconds must be positive finite numbers, got {t!r} for {agent}")
        if isinstance(increment, bool) or not isinstance(increment, (int, float)) or not 0 <= increment < float("inf"):
            raise ValueError(f"increment must be a number of seconds >= 0, got {increment!r}")
        if not callable(time_source):
            raise ValueError(f"time_source must be a function returning seconds, got {time_source!r}")
        self.budgets = {a: float(t) for a, t in budgets.items()}
        self.increment = float(increment)
        self.time_source = time_source
        self.remaining: dict[str, float] = dict(self.budgets)
        self._started = 0.0
        self._last = None  # the latest reading of the time source (they never go back)
        self._noted = False
        self.decides = decided_reasons(self.unwrapped.game)

    # -- the time source -------------------------------------------------------
    def _read(self) -> float:
        """One reading of the time source, checked: a finite number, not
        earlier than the reading before (ValueError naming both otherwise;
        nothing changes)."""
        reading = self.time_source()
        if isinstance(reading, (bool, complex)) or not isinstance(reading, numbers.Real):
            raise ValueError(
                f"ChessClock: the time source {self.time_source!r} returned {reading!r}, not a number of seconds"
            )
        value = float(reading)
        if not math.isfinite(value):
            raise ValueError(
                f"ChessClock: the time source {self.time_source!r} returned {reading!r}, not a finite number of seconds"
            )
        if self._last is not None and value < self._last:
            raise ValueError(
                f"ChessClock: the time source {self.time_source!r} went backwards: it read {reading!r} "
                f"after {self._last!r}"
            )
        self._last = value
        return value

    # -- what the clock shows -------------------------------------------------
    def time_left(self) -> dict:
        """Seconds left per agent, the running clock read now."""
        left = dict(self.remaining)
        raw = self.unwrapped
        agent = self.agent_selection if raw.agents else None
        if agent is not None and not raw.is_done(agent):
            left[agent] = max(left[agent] - (self._read() - self._started), 0.0)
        return left

    def _notes(self) -> dict:
        return {a: format_seconds(t) for a, t in self.time_left().items()}

    def _publish(self) -> None:
        raw = self.unwrapped
        for agent in raw.agents:
            raw.infos[agent] = {**raw.infos[agent], "time_left": self.remaining[agent]}

    # -- the AEC API ----------------------------------------------------------
    def reset(self, seed=None, options=None):
        now = self._read()  # before the reset: a bad reading resets nothing
        super().reset(seed=seed, options=options)
        if not self._noted:
            self.unwrapped.add_seat_note(self._notes)
            self._noted = True
        self.remaining = dict(self.budgets)
        self._publish()
        self._started = now

    def step(self, action):
        agent = self.agent_selection
        raw = self.unwrapped
        now = self._read()  # before anything changes: a bad reading leaves the clock and the game as they were
        if raw.is_done(agent):
            super().step(action)
            self._publish()
            self._started = now
            return
        elapsed = now - self._started
        if self.remaining[agent] - elapsed <= 0.0:
            self.remaining[agent] = 0.0
            raw.eliminate(agent, "timeout")
            self._publish()
            self._started = now
            return
        turn = raw.turn
        started = self._started
        # charged before the env steps, so a picture drawn inside the step
        # (render_mode="human") shows the clocks as they are after the move
        self.remaining[agent] -= elapsed
        self._started = now
        try:
            super().step(action)
        except BaseException:
            # a rejected action charges nothing: the clock keeps running from the same start
            self.remaining[agent] += elapsed
            self._started = started
            raise
        turn_over = raw.end_reason is not None or raw.turn != turn or self.agent_selection != agent
        if turn_over:
            if raw.end_reason is None:
                self.remaining[agent] += self.increment
            # the next agent's clock runs from ``now`` (set above), the reading this step was charged at
        if raw.end_reason in self.decides:
            self._decide_draw()
        self._publish()

    def _decide_draw(self) -> None:
        """A draw the game leaves to the clock: the agent with the most time
        left among those still in wins; equal times stay a draw."""
        raw = self.unwrapped
        live = [a for a in self.possible_agents if raw.position().alive(raw.possible_agents.index(a))]
        best = max(self.remaining[a] for a in live)
        leaders = [a for a in live if self.remaining[a] == best]
        if len(leaders) == 1 and len(live) == 2:
            raw.adjudicate(leaders[0], raw.end_reason)

    def __str__(self):
        return str(self.env)
