"""How strong is an agent now?  Seeded games against reference opponents,
seats split evenly, each game opened by a few random decisions.

Deterministic players from one start replay one game: a policy that plays
its most likely action against ``greedy`` (whose ties are few) meets the
same handful of positions in every game, and a win rate measured that way
says little (a Quess model scored 93% so, and 67.6% over varied openings).
So every game here starts with :func:`opening` uniformly random decisions,
drawn from the game's own seeded generator (none where dice vary the games
already), and the agent sits in each seat equally often.  Games ``2k`` and
``2k + 1`` share an opening with the seats swapped (with more seats, one
game per seat in turn).  The same seed gives the same games, whatever the
agent: the win rates of two agents, or of one agent along a training run,
are measured on the same openings.

:func:`win_rates` is what ``boardenvs train`` reports as it goes and what
``benchmarks/time_to_strength.py`` times.
"""

from __future__ import annotations

import numpy as np

GAMES = 400  # per opponent: a win rate's 95% interval is about +-5% at 50%
OPENING = 4  # random decisions opening each game without chance nodes


def opening(game) -> int:
    """Random decisions opening each checkup game: :data:`OPENING` in a
    game without chance nodes, 0 where dice vary the games."""
    return 0 if game.num_chance_outcomes else OPENING


def win_rates(
    agent, env_id: str, options: dict | None = None, opponents=("random", "greedy"), games: int = GAMES, seed: int = 0
) -> dict:
    """``{opponent name: the agent's win rate}`` over ``games`` seeded games
    against each (see the module docstring and :func:`results`)."""
    return {name: r["wins"] / r["games"] for name, r in results(agent, env_id, options, opponents, games, seed).items()}


def results(
    agent, env_id: str, options: dict | None = None, opponents=("random", "greedy"), games: int = GAMES, seed: int = 0
) -> dict:
    """``{opponent name: {"wins", "draws", "losses", "games"}}`` over
    ``games`` seeded games against each (see the module docstring);
    ``agent`` is anything :func:`boardenvs.wrappers.selfplay.make_player`
    takes (an SB3 model or policy plays its most likely legal action; a name
    such as ``"baseline:quess_v0"``), each opponent a name or an Opponent.
    With more than two seats the opponent plays every other seat; a win is
    a positive return for the agent's seat, a draw 0 (a truncated game
    too)."""
    from boardenvs.wrappers.selfplay import make_player

    from boardenvs.opponents import make_opponent
    from boardenvs.registry import make_game
    from boardenvs.traces import play_matches

    options = dict(options or {})
    game = make_game(env_id, **options)
    seats = game.num_players
    player = make_player(agent, deterministic=True)
    lineups = [tuple(0 if s == g % seats else 1 for s in range(seats)) for g in range(games)]
    seeds = [seed * 1_000_003 + g // seats for g in range(games)]
    out = {}
    for name in opponents:
        rival = make_opponent(name) if isinstance(name, str) else name
        traces = play_matches(
            env_id, options, lineups, seeds, [player, rival], np.random.default_rng(seed), opening=opening(game)
        )
        mine = np.array([t["returns"][g % seats] for g, t in enumerate(traces)])
        out[getattr(rival, "name", str(name))] = {
            "wins": int((mine > 0).sum()),
            "draws": int((mine == 0).sum()),
            "losses": int((mine < 0).sum()),
            "games": games,
        }
    return out
