"""How often does an agent win?  ``evaluate(agent, id, games=200)`` plays
``games`` episodes at once (up to 20,000 per batch) through the batched
single-agent view (one per row, each row's first episode counted) and
counts the agent's results.

``agent``: an SB3 model (its masked action distribution, sampled with the
env's generator unless ``deterministic``), a batched policy
``policy(observations, action_masks) -> actions``, or a registered opponent
name (``"random"``, ``"greedy"``, ``"mcts"``, ``"mcts:400"``, ...; search
agents are given the states of the rows), so reference opponents and trained
models can play each other: ``evaluate("mcts", id, opponent="greedy")``.
``opponent`` and ``seat`` as in the single-agent view; ``seat="random"``
draws a seat per game, and the result splits the counts by seat.  A game
truncated by a limit (``max_turns``) counts as a draw.
"""

from __future__ import annotations

import numpy as np

from ..opponents import Batch, Opponent, decide, make_opponent
from ..registry import env_id_of
from .selfplay import make_player
from .vector import SingleAgentVectorEnv

MAX_GAMES = 10**7  # evaluate's (and the round-robin's) bound on games per call
BATCH = 20_000  # games played at once (rows of one vector view)


def evaluate(
    agent,
    env_id: str,
    games: int = 200,
    opponent="random",
    seat="random",
    seed: int = 0,
    deterministic: bool = False,
    **options,
) -> dict:
    """``{"games", "wins", "draws", "losses", "win_rate", "by_seat": {seat: (wins, draws, losses)}}``.

    ``games``: an int in ``1..MAX_GAMES`` (10**7); anything else is a
    ValueError naming the bound.  The games are played ``BATCH`` (20,000)
    at a time, one per row of a vector view (about 16 KB per row for the
    largest states, so a batch holds a few hundred MB at most), so memory
    does not grow with ``games``; the bound keeps a call's time finite (ten
    million games take hours) and its per-game results (a float each) small.
    Up to ``BATCH`` games are one batch seeded with ``seed``; later batches
    get seeds derived from ``seed`` and their number."""
    from ..spec import is_int

    if not is_int(games) or games < 1:
        raise ValueError(f"games must be a positive int, got {games!r}")
    if games > MAX_GAMES:
        raise ValueError(f"games must be at most {MAX_GAMES:_} (evaluate's bound), got {games!r}")
    games = int(games)
    player = make_player(agent, deterministic)
    opponent = make_opponent(opponent) if isinstance(opponent, str) else opponent
    env_id = env_id_of(env_id)
    result, seats = np.full(games, np.nan), np.zeros(games, np.int64)
    for k, first in enumerate(range(0, games, BATCH)):
        batch_seed = seed if k == 0 or seed is None else int(np.random.SeedSequence([seed, k]).generate_state(1)[0])
        rows = slice(first, min(first + BATCH, games))
        _play(player, opponent, env_id, seat, batch_seed, options, result[rows], seats[rows])
    by_seat = {}
    for s in np.unique(seats):
        r = result[seats == s]
        by_seat[int(s)] = (int((r > 0).sum()), int((r == 0).sum()), int((r < 0).sum()))
    wins, draws, losses = int((result > 0).sum()), int((result == 0).sum()), int((result < 0).sum())
    return {
        "games": games,
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "win_rate": wins / games,
        "by_seat": by_seat,
    }


def _play(player, opponent, env_id, seat, seed, options, result, seats) -> None:
    """One batch: a game per row of ``result`` (NaN, views into evaluate's
    arrays), each row's first episode counted; writes its return and the
    agent's seat.  Rows whose counted game is over play on with their first
    legal action (nobody counts them), so neither the agent nor the
    opponent is asked there: a long last game costs one decision per round."""
    if isinstance(opponent, Opponent) and not opponent.in_kernel:
        opponent = _UntilCounted(opponent, result)
    venv = SingleAgentVectorEnv(env_id, num_envs=len(result), opponent=opponent, seat=seat, **options)
    obs, info = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seats[:] = info["seat"]
    while np.isnan(result).any():
        masks = info["action_mask"]
        actions = np.argmax(masks, axis=1).astype(np.int64)
        todo = np.flatnonzero(np.isnan(result))
        batch = Batch(
            venv.game,
            masks[todo],
            rng,
            seats=info["seat"][todo],
            rows=todo,
            observations=obs[todo],
            states=lambda todo=todo: np.array(venv.vec.states[todo]),
        )
        actions[todo] = decide(player, batch)
        obs, rewards, term, trunc, info = venv.step(actions)
        first = (term | trunc) & np.isnan(result)
        result[first] = rewards[first]
    venv.close()


class _UntilCounted(Opponent):
    """An opponent that plays only in the rows whose counted game is still on
    (``result`` NaN); the other rows (new games nobody counts) get their first
    legal action."""

    def __init__(self, opponent, result):
        self.opponent, self.result, self.name = opponent, result, opponent.name

    def act(self, batch: Batch) -> np.ndarray:
        out = np.argmax(batch.masks, axis=1).astype(np.int64)
        todo = np.flatnonzero(np.isnan(self.result[batch.rows]))
        if todo.size:
            sub = Batch(
                batch.game,
                batch.masks[todo],
                batch.rng,
                seats=batch.seats[todo],
                rows=batch.rows[todo],
                observations=lambda: batch.observations[todo],
                states=lambda: batch.states[todo],
            )
            out[todo] = decide(self.opponent, sub)
        return out
