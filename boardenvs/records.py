"""Game records: a game as JSON (its id, options, seed and every turn in
notation), written by ``boardenvs play`` / ``watch`` and played back by
``boardenvs replay`` (and :func:`boardenvs.wrappers.record_game`).

:func:`new_game` starts the game a record replays exactly (the seed draws
chance outcomes and random opponents; a random first player is recorded as
a seat); :func:`game_record` / :func:`save_record` write one,
:func:`load_record` / :func:`replay_moves` read and replay one, each bad
file or move a ValueError saying what is wrong; :func:`replay_decisions`
walks a game decision by decision (the recordings' pictures and pages).
"""

from __future__ import annotations

import json

import numpy as np

from . import engine as E
from .api import position
from .files import read_text_capped, write_atomically
from .position import Position, turn_over
from .registry import make_game

FORMAT = "boardenvs-game-1"


def _resolved_options(game) -> dict:
    """The game's options as given to ``make``, from a configured game."""
    return {k: v for k, v in game.options.items()}


def new_game(env_id: str, options: dict, seed: int):
    """The start Position of a new game, its row's generator seeded with
    ``seed`` (it rolls the dice and draws the random openings: the engine's
    die), and a numpy generator from the same seed for the agents' own draws
    (the random opponent's); ``first_player="random"`` is drawn from the
    row's generator and recorded as a seat, so the record replays exactly."""
    from .spec import check_seed

    seed = check_seed(seed)
    game = make_game(env_id, **options)
    row = np.zeros(game.state_size, np.int64)
    row[E.H_RNG] = seed % 2**63
    first = int(game.params[E.P_FIRST])
    if first < 0:
        first = int(E.rand_below(row, np.int64(game.num_players)))  # (the row's generator moves on)
        if "first_player" in game.options:
            game = make_game(env_id, **{**options, "first_player": first})
    return Position(game, game.new_state(first, rng_seed=int(row[E.H_RNG]))), np.random.default_rng(seed)


def game_record(start, seed, moves, final) -> dict:
    """The JSON record of a game from Position ``start`` to ``final``: what
    ``boardenvs replay`` plays back (``moves``: every turn in notation,
    chance outcomes included; ``result``: for people, replay recomputes it)."""
    return {
        "format": FORMAT,
        "game": start.game.env_id,
        "options": _resolved_options(start.game),
        "seed": seed,
        "moves": list(moves),
        "result": {"over": final.is_terminal, "returns": list(final.returns), "end_reason": final.end_reason},
    }


def save_record(record: dict, path) -> str:
    """Write ``record`` as JSON to ``path`` (whole or not at all; ValueError
    naming the file if its folder does not exist or it cannot be written)."""
    text = json.dumps(record, indent=1) + "\n"
    return str(write_atomically(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), "game record"))


def load_record(path):
    """The start Position, the moves and the record of a saved game, or
    ValueError saying what is wrong with the file."""
    try:
        record = json.loads(read_text_capped(path, "game record"))  # (a regular file, 64 MB at most)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a game record: not UTF-8 text") from None
    except RecursionError:
        raise ValueError(f"{path} is not a game record: its JSON is nested too deeply") from None
    if not isinstance(record, dict) or not isinstance(record.get("game"), str):
        raise ValueError(f"{path}: a game record is a JSON object with 'game', 'options', 'seed' and 'moves'")
    options, moves = record.get("options", {}), record.get("moves")
    if not isinstance(options, dict) or not isinstance(moves, list):
        raise ValueError(f"{path}: 'options' must be an object and 'moves' a list of moves in notation")
    try:
        start = position(record["game"], **options)
    except TypeError as exc:
        raise ValueError(f"{path}: {exc}") from None
    return start, moves, record


def replay_moves(start, moves):
    """The positions after each move of ``moves`` from ``start`` (a bad move
    raises ValueError naming it)."""
    out = [start]
    pos = start
    for k, move in enumerate(moves):
        if not isinstance(move, (str, int)) or isinstance(move, bool):
            raise ValueError(f"move {k + 1} must be a move in notation, got {move!r}")
        try:
            pos = pos.play(move)
        except ValueError as exc:
            raise ValueError(f"move {k + 1} ({move!r}): {exc}") from None
        out.append(pos)
    return out


def replay_decisions(start, moves, roll: bool = False) -> list[tuple]:
    """The game of ``moves`` (notation, whole turns, or action ids) from
    Position ``start`` decision by decision: ``[(first, None), (position,
    (agent, notation, action id)), ...]``, a position after every decision
    (what a recording shows: a picture, a step of an HTML replay).  Chance
    outcomes listed in ``moves`` are played without a step of their own
    (they show in the next position); with ``roll``, chance nodes left open
    are rolled by the positions' own seeded die (:meth:`Position.roll`).  A
    bad move raises :meth:`Position.play`'s errors (C-6)."""
    pos = _settle(start, roll)
    game = pos.game
    steps = [(pos, None)]
    for move in moves:
        after = pos.play(move)  # checks the move first, with its errors (a float is no action id)
        if pos.is_chance:
            pos = after
            steps[-1] = (pos, steps[-1][1])
            continue
        for a in pos.move_to_actions(move) if isinstance(move, str) else [int(move)]:
            decision = (game.seat_name(pos.to_move), pos.action_to_move(a), int(a))
            pos = _settle(pos.play(a), roll)
            steps.append((pos, decision))
    return steps


def _settle(pos, roll: bool):
    while roll and pos.is_chance:
        pos = pos.roll()
    return pos


def turns_of(start, actions) -> list[tuple]:
    """The decisions ``actions`` (action ids and chance outcomes, as the
    match runner records them) from Position ``start`` as whole turns:
    ``[(position after the turn, the turn in notation), ...]``, each chance
    outcome a turn of its own; a turn cut short at the end of ``actions``
    too."""
    game, pos, out, chain, turn_start = start.game, start, [], [], None
    for a in actions:
        if pos.is_chance:
            after = pos.play(int(a))
            out.append((after, pos.action_to_move(int(a))))
            pos = after
            continue
        if not chain:
            turn_start = pos
        chain.append(int(a))
        pos = pos.play(int(a))
        if turn_over(turn_start.state, pos.state):
            out.append((pos, game.actions_to_move(turn_start.state, chain)))
            chain = []
    if chain:
        out.append((pos, game.actions_to_move(turn_start.state, chain)))
    return out


def play_game(start, rng, players, max_moves: int = 100_000):
    """Play on from Position ``start``: ``players[seat % len(players)]``
    (opponents, :func:`boardenvs.opponents.make_opponent`, drawing from
    ``rng``) takes each seat's turns, the whole game at once by the match
    runner (:func:`boardenvs.matches.play`; chance outcomes rolled by the
    start's own seeded die, so a record replays); yields ``(position, move)``
    after each turn (``move`` in notation) until the game ends or
    ``max_moves`` turns were played."""
    from . import matches

    game = start.game
    lineup = [seat % len(players) for seat in range(game.num_players)]
    played = matches.play(game.env_id, game.options, [lineup], list(players), rng, starts=start, turns=max_moves)[0]
    yield from turns_of(start, played.actions)
