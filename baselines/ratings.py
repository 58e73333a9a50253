"""Bradley-Terry ratings on the Elo scale, fitted to score matrices: the
round-robin's (:mod:`.tournament`) and the ladder's (:mod:`.ladder`) one fit."""

from __future__ import annotations

import numpy as np


def anchor_prior(n: int, k: int) -> np.ndarray:
    """The prior both fits add to their score matrices: one draw of every
    player against player ``k`` (the anchor), which keeps a player who won
    or lost everything finite."""
    prior = np.zeros((n, n))
    prior[:, k] += 0.5
    prior[k, :] += 0.5
    prior[k, k] = 0.0
    return prior


def bradley_terry(wins: np.ndarray, k: int, iterations: int = 2000) -> np.ndarray:
    """Bradley-Terry ratings on the Elo scale of a stack of score matrices
    ``wins`` (``(samples, n, n)``), player ``k`` = 0: the
    minorisation-maximisation update, each sample until it settles."""
    games = wins + wins.transpose(0, 2, 1)
    total = wins.sum(axis=2)
    strength = np.ones(wins.shape[:2])
    active = np.arange(len(wins))
    for _ in range(iterations):
        if not active.size:
            break
        s = strength[active]
        denom = (games[active] / (s[:, :, None] + s[:, None, :])).sum(axis=2)
        new = np.maximum(total[active] / np.maximum(denom, 1e-12), 1e-12)
        new /= new[:, k : k + 1]
        settled = np.isclose(new, s, rtol=1e-10).all(axis=1)
        strength[active[~settled]] = new[~settled]
        active = active[~settled]
    return 400 * np.log10(strength)


def resampled_sums(scores: np.ndarray, samples: int, rng) -> np.ndarray:
    """``samples`` sums of ``len(scores)`` scores drawn with replacement from
    ``scores`` plus a half-weighted win and loss (a sweep is not certain)."""
    values = np.concatenate([scores, [1.0, 0.0]])
    p = np.concatenate([np.ones(len(scores)), [0.5, 0.5]])
    draws = rng.choice(len(values), size=(samples, len(scores)), p=p / p.sum())
    return values[draws].sum(axis=1)


def rating_of(opponents: np.ndarray, sums: np.ndarray, games: np.ndarray) -> np.ndarray:
    """The maximum-likelihood rating(s) of a player with score ``sums[..., c]``
    in ``games[c]`` games against players rated ``opponents[c]``, plus the
    prior of one draw against a player rated 0 (so it stays finite); one
    rating per row of ``sums`` (bisection on the monotone score equation)."""
    sums = np.atleast_2d(sums).astype(float)
    lo = np.full(sums.shape[0], -4000.0)
    hi = np.full(sums.shape[0], 8000.0)

    def excess(r):
        p = 1.0 / (1.0 + 10.0 ** ((opponents[None, :] - r[:, None]) / 400.0))
        p0 = 1.0 / (1.0 + 10.0 ** (-r / 400.0))
        return (sums - games[None, :] * p).sum(axis=1) + (0.5 - p0)

    for _ in range(60):
        mid = (lo + hi) / 2
        up = excess(mid) > 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    return (lo + hi) / 2
