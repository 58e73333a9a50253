"""How a ladder's games are played, the same way when a ladder is built and
when an agent is rated on it: rounds of :data:`CHUNK` games between two
agents, the seats rotating game by game, the seeds drawn from the ladder's
seed and the round's keys (so the same round plays the same games), the
first :func:`opening` decisions seeded random moves in games without
chance, and torch held to one thread while they are played.
"""

from __future__ import annotations

import sys

import numpy as np

CHUNK = 16  # games per round against one member (a multiple of every player count's seats: 2 and 4)


def opening(env_id: str) -> int:
    """Seeded random decisions that open every ladder game: 4 in a game
    without chance nodes (deterministic agents would otherwise replay one
    game per seat), 0 where dice vary the games."""
    from boardenvs.registry import make_game

    return 0 if make_game(env_id).num_chance_outcomes else 4


def _seeds(*keys: int, n: int) -> list[int]:
    """``n`` seeds (uint32) from the keys."""
    return [int(x) for x in np.random.SeedSequence(list(keys)).generate_state(n)]


def play_chunk(
    env_id,
    options,
    agents,
    names,
    one: int,
    other: int,
    players: int,
    seed: int,
    keys: tuple,
    n: int,
    open_k: int,
    extra: dict,
    both_ways: bool = False,
) -> list[dict]:
    """``n`` games of agent ``one`` (one seat, rotating) against ``other``
    (every other seat); games ``P*j .. P*j+P-1`` share a seed (and so their
    opening and dice).  ``both_ways`` (more than two players): the second
    half of the games the other way round, ``other`` in one seat and
    ``one`` in the rest, on the first half's seeds."""
    from boardenvs.traces import play_matches

    lineups, seeds = chunk_plan(one, other, players, seed, keys, n, both_ways)
    rng = np.random.default_rng(np.random.SeedSequence([seed, *keys, 1]))
    return play_matches(
        env_id,
        options,
        lineups,
        seeds,
        agents,
        rng,
        names=names,
        extra=extra,
        opening=open_k,
    )


def chunk_plan(one: int, other: int, players: int, seed: int, keys: tuple, n: int, both_ways: bool = False):
    """The lineups and seeds of :func:`play_chunk`'s ``n`` games (a resumed
    rating checks the games it kept against them)."""
    half = n - n // 2 if both_ways else n
    seeds = _seeds(seed, *keys, n=(half + players - 1) // players)
    lineups = [tuple(one if s == k % players else other for s in range(players)) for k in range(half)]
    lineups += [tuple(other if s == k % players else one for s in range(players)) for k in range(n - half)]
    return lineups, [seeds[(k % half) // players] for k in range(n)]


class one_torch_thread:
    """Torch on one thread while games are played (and as it was after): the
    models' batches are small, and torch's second thread spinning against
    numba's (and another process's) on a 2-core machine made a ladder's
    pairing ten times slower.  Nothing if torch is not imported."""

    def __enter__(self):
        torch = sys.modules.get("torch")
        self.saved = torch.get_num_threads() if torch is not None else None
        if torch is not None:
            torch.set_num_threads(1)
        return self

    def __exit__(self, *exc) -> None:
        torch = sys.modules.get("torch")
        if torch is not None and self.saved is not None:
            torch.set_num_threads(self.saved)
