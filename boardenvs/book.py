"""One agent book for the multi-agent faces: whose episode ended, how, and
PettingZoo's length limits.

The AEC env (:mod:`boardenvs.aec`) and RLlib's multi-agent env
(:mod:`boardenvs.rllib`) both turn the engine's row into per-agent results
after each step: an agent's episode ends when the game does or when its seat
is out of it (eliminated, HQ-9), with its return, whether it was terminated
or truncated, and infos naming why (``end_reason``: the game's end reason,
or ``"eliminated"`` for a seat out of a game that goes on), how long it lasted
in turns (``length``) and the game's own end infos.  :class:`AgentBook` is
that bookkeeping, once; the faces keep only their own dictionaries' shapes.

It also owns PettingZoo's limits counted in decisions, which the engine
does not count (it counts turns: ``max_turns``): ``max_cycles`` (no agent
asked more than that many times) and ``max_decisions`` (decisions in all);
reaching one truncates the game through the engine's own helper
(:func:`boardenvs.engine.truncate`, end reason ``"max_cycles"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import engine as E

ELIMINATED = "eliminated"  # the end reason of a seat out of a game that goes on


@dataclass
class AgentEnd:
    """How one agent's episode ended: its return, terminated or truncated,
    and its infos (``end_reason``, ``length`` and the game's end infos)."""

    agent: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict = field(default_factory=dict)


class AgentBook:
    """Per-agent episode bookkeeping over one game's row (see the module
    docstring).  ``agents[seat]`` names the seat's agent; ``max_cycles`` /
    ``max_decisions``: PettingZoo's limits (None: none)."""

    def __init__(self, game, agents: list[str], max_cycles: int | None = None, max_decisions: int | None = None):
        self.game, self.agents = game, list(agents)
        self.max_cycles, self.max_decisions = max_cycles, max_decisions
        self.bounded = max_cycles is not None or max_decisions is not None  # (else limit() has nothing to do)
        self.reset(None)

    def reset(self, state) -> None:
        """A new game in ``state`` (None: no game yet): nobody asked, nobody done."""
        self.done: set[str] = set()
        self.asked = [0] * (self.game.num_players + 1)  # the last slot: chance (seat -1)
        self.decisions = 0
        self.alive = None if state is None else int(state[E.H_ALIVE])

    def asked_once(self, seat: int) -> None:
        """The agent in ``seat`` (``E.CHANCE``: the chance agent) made a decision."""
        self.asked[seat] += 1
        self.decisions += 1

    def limit(self, state) -> bool:
        """Truncate a game that goes on when the agent to act has been asked
        ``max_cycles`` times or ``max_decisions`` decisions were made; True
        if it did."""
        if state[E.H_STATUS] != E.PLAYING:
            return False
        over = (self.max_cycles is not None and self.asked[state[E.H_CURRENT]] >= self.max_cycles) or (
            self.max_decisions is not None and self.decisions >= self.max_decisions
        )
        if over:
            E.truncate(state, E.REASON_MAX_CYCLES)
        return over

    def recheck(self) -> None:
        """Look at every seat at the next :meth:`ends` (a face ended a seat otherwise than by a step)."""
        self.alive = None

    def forget(self) -> None:
        """Tell every agent's end again at the next :meth:`ends` (a game adjudicated after some ended)."""
        self.done = set()
        self.alive = None

    def unchanged(self, state) -> bool:
        """Nobody's episode can have ended since the last :meth:`ends`: the
        game goes on with the same seats in it (the common case, read first)."""
        return state[E.H_STATUS] == E.PLAYING and int(state[E.H_ALIVE]) == self.alive

    def ends(self, state) -> list[AgentEnd]:
        """The agents whose episodes ended since the last call, each once: all
        the agents still in a game that is over, and any seat now out of one
        that goes on."""
        if self.unchanged(state):
            return []
        self.alive = alive = int(state[E.H_ALIVE])
        status = int(state[E.H_STATUS])
        over = status != E.PLAYING
        game = self.game
        out = []
        for seat, agent in enumerate(self.agents):
            if agent in self.done:
                continue
            out_of_it = not (alive >> seat) & 1
            if not (over or out_of_it):
                continue
            terminated = out_of_it or status == E.TERMINATED
            reason = game.end_reason(state) if over else ELIMINATED
            info = {"end_reason": reason, "length": int(state[E.H_TURN]), **game.end_infos(state)}
            out.append(AgentEnd(agent, float(state[E.H_RET + seat]), bool(terminated), not terminated, info))
            self.done.add(agent)
        return out
