"""The action space every face hands out.

:class:`LegalDiscrete` is gymnasium's ``Discrete(n)`` (``contains`` is the
whole range ``0..n-1``, equality and seeding as gymnasium's) whose
``sample()`` *without* a mask draws a uniformly random **legal** action of
the agent to act, from the space's own seeded generator.  So a mask-unaware
random agent, and every checker that samples ``action_space.sample()``
(PettingZoo's ``max_cycles_test``, gymnasium's and SB3's ``check_env``,
RLlib's env checker), plays real games instead of forfeiting at once.
``sample(mask=...)`` and ``sample(probability=...)`` behave exactly as
gymnasium's; for an agent that is not to act (or once the game is over)
``sample()`` is gymnasium's uniform draw over the whole range.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gymnasium import spaces


class LegalDiscrete(spaces.Discrete):
    """See the module docstring.  ``legal_mask()`` returns the int8 mask of
    the agent this space belongs to when it is to act, else None."""

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray | None] | None = None, seed=None):
        super().__init__(n, seed=seed)
        self.legal_mask = legal_mask

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None and self.legal_mask is not None:
            legal = self.legal_mask()
            if legal is not None and legal.any():
                mask = np.asarray(legal, np.int8)
        return super().sample(mask=mask, probability=probability)

    def __repr__(self) -> str:
        return f"Discrete({self.n})"


class LegalOf:
    """``legal_mask()`` of one agent's action space: ``owner.legal_mask_of(agent)``
    (a small picklable callable, not a closure)."""

    __slots__ = ("owner", "agent")

    def __init__(self, owner, agent):
        self.owner, self.agent = owner, agent

    def __call__(self):
        return self.owner.legal_mask_of(self.agent)

    def __getstate__(self):
        return (self.owner, self.agent)

    def __setstate__(self, state):
        self.owner, self.agent = state
