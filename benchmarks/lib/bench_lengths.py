"""How long random games run: the lines under the bench's tables.

Random-vs-random game lengths from ``make_vec``: Quess's in turns, with no
turn limit in reach (its documented default limit cites them), and
Quicksand's in turns and in decisions (a Quicksand turn is a chain of
decisions, and a decision is the unit of its steps/s rows) with how its
games end.  Each env's first game counts and every batch runs until all its
games are over, so short games are not favoured.
"""

from __future__ import annotations

import numpy as np

import boardenvs


def quess_game_lengths(games: int, n: int = 4096) -> np.ndarray:
    """Lengths (turns) of random-vs-random Quess games from make_vec, with no
    limit in reach (for QU-13's documented default).  Each env's first game
    counts, and every batch runs until all its games are over (stopping
    earlier would favour short games)."""
    n = min(n, games)
    vec = boardenvs.make_vec("quess_v0", num_envs=n, max_turns=20000, superko_memory=2**20)
    lengths = []
    batch = 0
    while len(lengths) < games:
        vec.reset(seed=777 + batch)
        batch += 1
        counted = np.zeros(n, np.bool_)
        while not counted.all():
            _, _, term, trunc, infos = vec.step(vec.random_actions())
            done = (term | trunc) & ~counted
            lengths.extend(infos["length"][done].tolist())
            counted |= done
    return np.array(lengths[:games])


def quicksand_game_lengths(games: int, n: int = 4096) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random-vs-random Quicksand games from make_vec (each env's first game,
    every batch run until all its games are over): lengths in turns (QS-12's
    documented default), in decisions (a turn is a chain of them, so a
    make_vec step is one decision), and end reasons."""
    n = min(n, games)
    vec = boardenvs.make_vec("quicksand_v0", num_envs=n)
    turns, decisions, reasons = [], [], []
    batch = 0
    while len(turns) < games:
        vec.reset(seed=4242 + batch)
        batch += 1
        counted = np.zeros(n, np.bool_)
        steps = 0
        while not counted.all():
            _, _, term, trunc, infos = vec.step(vec.random_actions())
            steps += 1
            done = (term | trunc) & ~counted
            turns.extend(infos["length"][done].tolist())
            decisions.extend([steps] * int(done.sum()))
            reasons.extend(infos["end_reason"][done].tolist())  # the names (end_reason_code: the codes)
            counted |= done
    return np.array(turns[:games]), np.array(decisions[:games]), np.array(reasons[:games])


def length_lines(quess_games: int, quicksand_games: int, env_ids) -> list[str]:
    """The lines for the games of ``env_ids`` among Quess and Quicksand (none for a count of 0)."""
    lines = []
    if quess_games and "quess_v0" in env_ids:
        lens = quess_game_lengths(quess_games)
        pct = np.percentile(lens, [50, 90, 99, 99.9])
        lines += [
            "",
            f"Quess random-vs-random game length over {len(lens)} games (turns): median {pct[0]:.0f}, "
            f"p90 {pct[1]:.0f}, p99 {pct[2]:.0f}, p99.9 {pct[3]:.0f}, max {lens.max()}.",
        ]
    if quicksand_games and "quicksand_v0" in env_ids:
        turns, decisions, reasons = quicksand_game_lengths(quicksand_games)
        tp, dp = np.percentile(turns, [50, 99]), np.percentile(decisions, [50, 99])
        ends = ", ".join(f"{r} {np.mean(reasons == r):.1%}" for r in sorted(set(reasons.tolist())))
        lines += [
            "",
            f"Quicksand random-vs-random games over {len(turns)} games: median {tp[0]:.0f} turns "
            f"({dp[0]:.0f} decisions, the unit of its steps/s rows), p99 {tp[1]:.0f} turns ({dp[1]:.0f} decisions), "
            f"max {turns.max()} turns; ended by {ends}.",
        ]
    return lines
