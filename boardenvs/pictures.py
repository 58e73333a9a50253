"""Pictures of positions for the docs: each game's picture and the GIF of
one game (``make pictures``), and the seeded random moves they are drawn
after (``boardenvs picture --random N`` too)."""

from __future__ import annotations

from pathlib import Path

from . import ENV_IDS
from . import engine as E
from .api import position
from .registry import game_class


def random_moves(pos, count: int, seed: int):
    """``count`` seeded random turns from ``pos`` (each decision a uniformly
    random legal one and each chance outcome the seeded die's, drawn by the
    engine from the row's generator, seeded with ``seed``: the match
    runner's opening), stopping at the end of the game: the moves in
    notation (chance outcomes each a move) and the last Position."""
    from . import matches
    from .opponents import make_opponent
    from .position import Position
    from .records import turns_of
    from .spec import check_seed

    state = pos.state
    state[E.H_RNG] = check_seed(seed) % 2**63
    start = Position(pos.game, state)
    game = pos.game
    played = matches.play(
        game.env_id,
        game.options,
        [[0] * game.num_players],
        [make_opponent("random")],
        None,
        starts=start,
        opening=2**62,
        turns=count,
    )[0]
    turns = turns_of(start, played.actions)[:count]
    return [move for _, move in turns], (turns[-1][0] if turns else start)


# the docs' pictures (each game's env card and the home page's table): (env id, options, random turns, seed) per game;
# a game
# not listed gets 12 random turns from the default options
DOC_GIF = ("quagmire_v0", {}, 5)  # a short full game for the docs' animation (the watching tutorial)


def doc_pictures(folder="boardenvs/rules") -> list:
    """Write each game's picture beside its rules (``<rules file>.png``) and
    the docs' GIF of one full game; ``make pictures`` runs this."""

    from PIL import Image

    from .cards import doc_picture
    from .files import write_atomically
    from .wrappers.recording import record_game

    folder = Path(folder)
    written = []
    for env_id in ENV_IDS:
        shown = doc_picture(env_id)  # the position the game's docs show (its TOOLS["doc_picture"])
        _, pos = random_moves(position(env_id, **shown.options), shown.decisions, shown.seed)
        path = folder / (Path(game_class(env_id).rules_file).stem + ".png")
        picture = Image.fromarray(pos.render("rgb_array"))
        write_atomically(path, lambda tmp, picture=picture: picture.save(tmp, optimize=True), "picture")
        written.append(path)
    env_id, options, seed = DOC_GIF
    moves, _ = random_moves(position(env_id, **options), 10_000, seed)
    path = folder / f"{Path(game_class(env_id).rules_file).stem}_game.gif"
    record_game(env_id, moves, path, fps=1.5, end_pause=3.0, **options)
    written.append(path)
    return written
