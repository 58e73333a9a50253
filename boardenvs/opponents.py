"""Opponents by name, for the CLI (``boardenvs play --vs ...``) and scripts.

:func:`load_opponent` is the one place that turns what a user types into an
opponent: a registered name (``"random"``, ``"greedy"``, ``"mcts"``,
``"mcts:400"``, ...: the one registry of
:func:`boardenvs.wrappers.opponents.register_opponent`, which
``opponent="..."`` uses too) or the path of a saved SB3 model
(``MaskablePPO``'s ``.zip``).  An opponent is batched, ``act(observations,
masks, rng) -> actions``, or reads the states (``needs_state``,
``act_states(game, states, rng)``) (:mod:`boardenvs.wrappers.opponents`), and
:func:`play_turn` plays a whole turn with one on a Position.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .wrappers.opponents import ModelOpponent, _NAMED, _PREFIXED, opponent_from_name, opponent_names


class ShapedModelOpponent(ModelOpponent):
    """An SB3 model whose observation space may be the flattened planes
    (``flatten=True`` in the single-agent view): observations are reshaped to
    the model's space before ``predict``."""

    def act(self, obs, masks, rng):
        shape = getattr(getattr(self.policy, "observation_space", None), "shape", None)
        if shape is not None and tuple(shape) != obs.shape[1:]:
            obs = obs.reshape((obs.shape[0], *shape))
        return super().act(obs, masks, rng)


def load_opponent(spec: str, env_id: str | None = None):
    """A registered name (:func:`boardenvs.wrappers.opponents.opponent_names`:
    ``"random"``, ``"greedy"``, ``"mcts"``, ``"mcts:<simulations>"``, ...),
    or the path of an SB3 model saved by ``model.save(path)`` (loaded with
    sb3-contrib's ``MaskablePPO``, else SB3's ``PPO``).  ValueError for
    anything else, listing the accepted names."""
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"an opponent is one of {opponent_names()} or the path of a saved SB3 model, got {spec!r}")
    head = spec.partition(":")[0]
    if spec in _NAMED or head in _PREFIXED or head in _NAMED:
        return opponent_from_name(spec)  # a bad argument ("mcts:0") fails here, naming what is accepted
    path = Path(spec)
    candidates = [path, path.with_name(path.name + ".zip")]
    found = next((p for p in candidates if p.is_file()), None)
    if found is None:
        raise ValueError(f"opponent {spec!r} is neither one of {opponent_names()} nor a saved model file")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as exc:
        raise ValueError(f"loading the model {spec!r} needs sb3-contrib: pip install 'boardenvs[train]'") from exc
    try:
        model = MaskablePPO.load(found, device="cpu")
    except Exception as exc:  # a zip that is no MaskablePPO: try plain PPO, then give up clearly
        try:
            from stable_baselines3 import PPO

            model = PPO.load(found, device="cpu")
        except Exception:
            raise ValueError(f"{spec!r} is not a saved SB3 model ({exc})") from None
    return ShapedModelOpponent(model, deterministic=True)


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
