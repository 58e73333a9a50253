"""Opponents by name, for the CLI (``boardenvs play --vs ...``) and scripts.

:func:`load_opponent` turns what a user types into an opponent, as
``opponent="..."`` does everywhere
(:func:`boardenvs.wrappers.opponents.make_opponent`): a registered name
(``"random"``, ``"greedy"``, ``"mcts"``, ``"mcts:400"``, ...: the one
registry of :func:`boardenvs.wrappers.opponents.register_opponent`) or the
path of a saved model (a ``.pt`` from ``python -m
boardenvs.baselines.train``, an SB3 ``.zip``).  An opponent is batched, ``act(observations,
masks, rng) -> actions``, or reads the states (``needs_state``,
``act_states(game, states, rng)``) (:mod:`boardenvs.wrappers.opponents`), and
:func:`play_turn` plays a whole turn with one on a Position.
"""
from __future__ import annotations

import numpy as np

from .wrappers.opponents import MODEL_FILES, ModelOpponent, make_opponent, opponent_names


class ShapedModelOpponent(ModelOpponent):
    """An SB3 model whose observation space may be the flattened planes
    (``flatten=True`` in the single-agent view).  Kept for old imports:
    :class:`~boardenvs.wrappers.opponents.ModelOpponent` reshapes
    observations of the model's size itself."""


def load_opponent(spec: str, env_id: str | None = None):
    """What ``--vs`` / ``--players`` name: a registered name
    (:func:`boardenvs.wrappers.opponents.opponent_names`: ``"random"``,
    ``"greedy"``, ``"mcts"``, ``"mcts:<simulations>"``,
    ``"baseline:<name>"``, ...) or the path of a saved model: a ``.pt``
    written by ``python -m boardenvs.baselines.train`` (its ``.json``
    beside it; the extension may be left out) or an SB3 ``.zip`` saved by
    ``model.save(path)`` (sb3-contrib's ``MaskablePPO``, else SB3's
    ``PPO``), playing its most likely legal action.  The same names as
    ``opponent=`` everywhere (:func:`~boardenvs.wrappers.opponents.make_opponent`).
    ValueError for anything else, listing the accepted names."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"an opponent is one of {opponent_names()} or {MODEL_FILES}, got {spec!r}")
    return make_opponent(spec)


def play_turn(opponent, pos, rng) -> tuple[object, str]:
    """Let ``opponent`` play the whole turn of the seat to act in Position
    ``pos`` (decision by decision; an action outside the mask is replaced by a
    random legal one).  Returns the new Position and the turn in notation."""
    game, seat = pos.game, pos.to_move
    chain = []
    start = pos
    while not pos.is_terminal and pos.to_move == seat and not pos.is_chance and (not chain or pos.turn == start.turn):
        mask = pos.action_mask()[: game.num_actions]
        if opponent.needs_state:  # search opponents read a copy of the row
            action = int(opponent.act_states(game, pos.state[None].copy(), rng)[0])
        else:
            action = int(opponent.act(pos.observation(seat)[None], mask[None].astype(bool), rng)[0])
        if not (0 <= action < mask.shape[0] and mask[action]):
            action = int(rng.choice(np.flatnonzero(mask)))
        chain.append(action)
        pos = pos.play(action)
    return pos, game.actions_to_move(start.state, chain)
