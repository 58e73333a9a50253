"""What the benchmark reads of each game: its module's ``TOOLS["bench"]``
(:func:`boardenvs.registry.tool_settings`), and the variants it times."""

from __future__ import annotations

from dataclasses import dataclass

import boardenvs
from boardenvs.registry import tool_settings


@dataclass(frozen=True)
class BenchHints:
    """What ``make bench`` compares a game with: its closest OpenSpiel game
    and why (None: none), its closest EnvPool board game (one of EnvPool's
    ports of Pgx's games: ConnectFour-v1, Othello-v1, Hex-v1, Backgammon-v1,
    Go9x9-v1) and why, and how many random steps each ``make_vec`` row plays
    before timing: enough for a batch spread over every phase of a game
    (a batch stepped from ``reset`` moves in step, every row at its first
    move: ``benchmarks/breakdown.py`` timed Quicksand's opening, 265 ns a
    step, where games take 618)."""

    closest: tuple | None = None  # (OpenSpiel game, why)
    warmup: int = 300
    envpool: tuple | None = None  # (EnvPool task id, why)


def bench_hints(env_id: str) -> BenchHints:
    """The game's :class:`BenchHints` (defaults where its module sets none);
    TypeError naming the game for a key ``TOOLS["bench"]`` should not have."""
    try:
        return BenchHints(**(tool_settings(env_id, "bench") or {}))
    except TypeError as exc:
        raise TypeError(f"TOOLS['bench'] of {env_id}: {exc}") from None


def bench_variants(env_id: str) -> tuple:
    """The variants ``make bench`` times: those that set the number of
    players and nothing else (the option sets that change a game's size in
    players), else the default options."""
    by_players = tuple(v for v in boardenvs.game_class(env_id).variants if set(v) == {"num_players"})
    return by_players or ({},)
