"""What each agent's ``infos`` hold in the AEC env (and so in its parallel
view): one shape on every step, so trainers that keep infos in a replay
buffer (Tianshou pads a key missing from one step with None, then refuses
the NaN) store them as they come, and learners that read the mask from the
info (AgileRL's IPPO) find it there.

With ``infos="all"`` (the default) every agent's infos hold ``end_reason``
(``""`` while it plays on), ``length`` (0 until its episode ends),
``illegal_action``, the game's own end infos (Quicksand's ``scores``) and
``action_mask``: the agent to act's mask, equal to its observation's, and a
read-only all-zeros mask for the others.  ``infos="numbers"`` leaves out the
``end_reason`` name and the mask's copy, for wrappers that make a tensor of
every info and read the mask from the observation (TorchRL's
``PettingZooWrapper``).
"""

from __future__ import annotations

import numpy as np

from . import engine as E

INFO_MODES = ("all", "numbers")  # the env's infos option


class AgentInfos:
    """The AEC env's infos bookkeeping (a mixin of :class:`boardenvs.aec.BoardEnv`,
    which owns ``info_keys``, the masks and the agent book's ends)."""

    def _first_infos(self) -> dict:
        """Every agent's infos at the start of a game: the keys each reports
        on every step, with the values they hold while its episode goes on."""
        base = {"end_reason": "", "length": 0, **self.game.end_infos(self._state), "illegal_action": False}
        if self.info_keys == "numbers":
            del base["end_reason"]
            return {a: dict(base) for a in self.agents}
        return {a: {**base, "action_mask": self._idle_mask(a)} for a in self.agents}

    def _idle_mask(self, agent) -> np.ndarray:
        """The (read-only) all-zeros mask of ``agent`` when it is not to act."""
        return self._no_chance_mask if self._seat[agent] == E.CHANCE else self._no_mask

    def _note_mask(self) -> None:
        """``infos[agent]["action_mask"]``: the agent to act's mask (equal to
        its observation's), the idle mask of the agent that held it before.
        Each changed info is a new dict, so one read earlier keeps its values."""
        if self.info_keys == "numbers":
            return
        infos, agent, before = self.infos, self.agent_selection, self._masked_agent
        if before is not None and before != agent and before in infos:
            infos[before] = {**infos[before], "action_mask": self._idle_mask(before)}
        if agent in infos:
            idle = self._mask is self._no_mask or self.terminations[agent] or self.truncations[agent]
            infos[agent] = {**infos[agent], "action_mask": self._idle_mask(agent) if idle else self._mask.copy()}
        self._masked_agent = agent
