"""One match runner: games between agents, a lineup per game, all played at
once over the rows of one ``make_vec``.

Every tool that plays agents against each other plays through :func:`play`:
match traces and the ladder (:mod:`boardenvs.traces`), the checkups of a
training run, distillation's and expert iteration's games, recordings
(:mod:`boardenvs.records`).  Game ``k`` is row ``k`` of a
:class:`~boardenvs.vector.VectorEnv`, its generator seeded by ``seeds[k]``
(or started from a given Position), and everything random in it comes from
that generator, in the engine: every chance outcome is the seeded die's
(:meth:`~boardenvs.vector.VectorEnv.roll_rows`, each outcome recorded) and
every opening move a uniformly random legal action drawn in the step.  So a
seed fixes a game's dice and opening whoever plays it, and two games that
share a seed share both.

The agents decide round by round: each is asked once a round for every game
where it is to act (:func:`boardenvs.opponents.decide`, so a model or a
search sees a batch, its answers checked), and ``on_decision(agent, games,
batch, actions)`` sees every round's answers before they are played (the
samples of distillation, a teacher's labels, a recording's frames).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import engine as E
from .opponents import Batch, decide
from .registry import game_class, make_game

MAX_ROUNDS = 1_000_000  # a bound on the rounds of one call: every game ends long before (max_turns)


@dataclass
class Played:
    """One game :func:`play` played: ``actions`` (every decision and chance
    outcome, in order: what :meth:`boardenvs.Position.play` takes one by
    one), the final ``state`` row, its ``returns``, ``end_reason`` and
    ``turns``, the seat that moved first and the random decisions it opened
    with."""

    actions: list = field(default_factory=list)
    state: np.ndarray | None = None
    returns: tuple = ()
    end_reason: str = ""
    turns: int = 0
    first_seat: int = -1
    opening: int = 0


def play(
    env_id: str,
    options: dict,
    lineups,
    agents: list,
    rng,
    *,
    seeds=None,
    starts=None,
    opening=0,
    first_seat: int | None = None,
    turns: int | None = None,
    on_decision=None,
) -> list[Played]:
    """Play one game per entry of ``lineups`` at once; returns them, in order.

    ``lineups[k]``: the index in ``agents`` of the agent in each seat of game
    ``k`` (agents: :class:`~boardenvs.opponents.Opponent` s, asked through
    :func:`~boardenvs.opponents.decide` with ``rng``, the generator they draw
    from).  ``seeds[k]``: game ``k``'s seed (a new game from its row's
    generator, which draws its dice, its opening and, where the options
    leave it to chance, its first player); or ``starts``: Positions to play
    on from (one for all games, or one per game; their rows' generators
    roll on).  ``first_seat``: the seat that moves first in every new game
    where the options leave it to chance (the caller balances seats by its
    lineups).  ``opening``: how many uniformly random legal decisions
    (chance outcomes aside) open each game, an int or one per game.
    ``turns``: stop each game once it has played that many turns (a turn
    ends when the rules say, :func:`boardenvs.position.turn_over`), before
    the chance nodes that follow; None: play every game to its end.
    ``on_decision(agent, games, batch, actions)``: called with every
    round's answers of one agent before they are played."""
    game = make_game(env_id, **options)
    seats = game.num_players
    lineup = np.asarray(lineups, np.int64).reshape(-1, seats) if len(lineups) else np.zeros((0, seats), np.int64)
    n = lineup.shape[0]
    if ((lineup < 0) | (lineup >= len(agents))).any():
        raise ValueError(f"a lineup names one of the {len(agents)} agents per seat ({seats} seats), got {lineups!r}")
    if (seeds is None) == (starts is None):
        raise ValueError("play takes seeds (new games) or starts (Positions to play on from), one of them")
    opening_left = np.broadcast_to(np.asarray(opening, np.int64), (n,)).copy()
    if (opening_left < 0).any():
        raise ValueError(f"opening must be a number of decisions >= 0, got {opening!r}")
    games = [Played(opening=int(o)) for o in opening_left]
    if n == 0:
        return games
    if first_seat is not None and game.params[E.P_FIRST] < 0:
        if not 0 <= first_seat < seats:
            raise ValueError(f"first_seat must be a seat 0..{seats - 1}, got {first_seat!r}")
        options = {**options, "first_player": int(first_seat)}
    from .vector import VectorEnv

    vec = VectorEnv(game_class(env_id), n, illegal_action="raise", parallel=False, **options)
    every = np.arange(n, dtype=np.int64)
    if starts is not None:
        rows = [p.state for p in starts] if isinstance(starts, (list, tuple)) else [starts.state] * n
        vec.seed_rows(0)
        vec.set_rows(every, np.stack(rows))
    else:
        vec.seed_rows(np.asarray(seeds, np.int64))
        vec.reset_rows(every, settle=False)
    states = vec.states  # (a live read-only view of the rows)
    for g, played in enumerate(games):
        played.first_seat = int(states[g, E.H_CURRENT])
    first_turn = np.array(states[:, E.H_TURN])
    live = every[states[:, E.H_STATUS] == E.PLAYING]
    for _ in range(MAX_ROUNDS):
        if turns is not None:
            live = live[states[live, E.H_TURN] - first_turn[live] < turns]
        live = live[states[live, E.H_STATUS] == E.PLAYING]  # (a game can end at a chance node: no roll)
        chance = live[states[live, E.H_CURRENT] == E.CHANCE]
        while chance.size:  # the seeded die, one outcome at a time, each recorded
            for g, outcome in zip(chance, vec.roll_rows(chance)):
                games[g].actions.append(int(outcome))
            chance = chance[(states[chance, E.H_STATUS] == E.PLAYING) & (states[chance, E.H_CURRENT] == E.CHANCE)]
        live = live[states[live, E.H_STATUS] == E.PLAYING]
        if not live.size:
            break
        opening_now = live[opening_left[live] > 0]
        if opening_now.size:  # a random legal decision, drawn in the engine's step from the row's generator
            vec.act_rows(opening_now, np.full(opening_now.shape[0], vec.RANDOM), settle=False)
            for g in opening_now:
                games[g].actions.append(int(states[g, E.H_LAST_ACTION]))
            opening_left[opening_now] -= 1
            continue
        movers = states[live, E.H_CURRENT]
        who = lineup[live, movers]
        for agent in np.unique(who):
            rows, seat_of = live[who == agent], movers[who == agent]
            obs, masks = vec.observe_rows(rows, seat_of)
            batch = Batch(
                game,
                masks,
                rng,
                seats=seat_of,
                rows=rows,
                observations=obs,
                states=lambda rows=rows: np.array(states[rows]),
            )
            chosen = decide(agents[int(agent)], batch)
            if on_decision is not None:
                on_decision(int(agent), rows, batch, chosen)
            vec.act_rows(rows, chosen, illegal_action="raise", allow_random=False, settle=False)
            for g, action in zip(rows, chosen):
                games[g].actions.append(int(action))
    else:
        raise RuntimeError(f"{env_id}: {live.size} games still going after {MAX_ROUNDS} rounds")
    for g, played in enumerate(games):
        played.state = np.array(states[g])
        played.returns = tuple(float(r) for r in played.state[E.H_RET : E.H_RET + seats])
        played.end_reason = game.end_reason(played.state)
        played.turns = int(played.state[E.H_TURN])
    vec.close()
    return games


def play_turn(opponent, pos, rng) -> tuple:
    """Let ``opponent`` play the whole turn of the seat to act in Position
    ``pos`` (a decision, not a chance node), decision by decision, by the
    match runner (:func:`play` for one turn, ``opponent`` in every seat and
    drawing from ``rng``).  Returns the new Position and the turn in
    notation: what an opponent does while a person waits (``boardenvs
    play``, a text agent's game)."""
    from .position import Position

    game = pos.game
    if pos.is_terminal or pos.is_chance:
        raise ValueError(f"{game.env_id}: play_turn at a seat's decision only (the game is over or a die is to roll)")
    played = play(game.env_id, game.options, [[0] * game.num_players], [opponent], rng, starts=pos, turns=1)[0]
    return Position._own(game, played.state), game.actions_to_move(pos.state, played.actions)
