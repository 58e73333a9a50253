"""A chess clock over a two-player AEC env (Quess speed variant, QU-12).

Each agent's clock runs from the moment it becomes the agent to act until its
action arrives; no increment.  An action that arrives after the flag fell is
not played: that agent loses.  When the game ends in the one-piece-each draw
(QU-10), the player with more time left wins instead.  The time source is
injectable (any zero-argument callable returning seconds) so tests can use a
fake clock.
"""
from __future__ import annotations

import time

from pettingzoo.utils.wrappers import BaseWrapper

from .. import engine as E

# Game end reasons that a clock decides instead of a draw: Quess' QU-10.
CLOCK_DECIDES = {"one_each"}


class ChessClock(BaseWrapper):
    def __init__(self, env, clock_seconds: float, time_source=time.monotonic):
        super().__init__(env)
        if not clock_seconds > 0:
            raise ValueError(f"clock_seconds must be positive, got {clock_seconds!r}")
        if len(self.possible_agents) != 2:
            raise ValueError("the chess clock is defined for two-player games")
        self.clock_seconds = float(clock_seconds)
        self.time_source = time_source
        self.remaining: dict[str, float] = {}
        self._started = 0.0

    def reset(self, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.remaining = {a: self.clock_seconds for a in self.possible_agents}
        self._started = self.time_source()

    def step(self, action):
        agent = self.agent_selection
        raw = self.unwrapped
        if raw.is_done(agent):
            super().step(action)
            return
        elapsed = self.time_source() - self._started
        if self.remaining[agent] - elapsed <= 0.0:
            self.remaining[agent] = 0.0
            other = next(a for a in self.possible_agents if a != agent)
            raw.adjudicate(other, E.REASON_TIMEOUT)
        else:
            # a rejected action raises here and charges nothing: the clock
            # keeps running from the same start
            super().step(action)
            self.remaining[agent] -= elapsed
            if raw.game.end_reason(raw._state) in CLOCK_DECIDES:
                a, b = self.possible_agents
                if self.remaining[a] != self.remaining[b]:
                    winner = a if self.remaining[a] > self.remaining[b] else b
                    raw.adjudicate(winner, raw._state[E.H_REASON])
        self._started = self.time_source()

    def __str__(self):
        return str(self.env)
