"""Command line: ``boardenvs list``, ``card``, ``rules``, ``play``, ``watch``,
``replay``, ``picture``, ``random-games``, ``train``, ``demo`` and ``rate``.
Every command that takes a game takes it first, as its env id or its
gymnasium id (``boardenvs play quess_v0``, ``boardenvs rate
boardenvs/Quess-v0 greedy``), and every flag means one thing in every
command: ``--players N`` the player count, ``--vs`` the opponents,
``--seed`` the seed, ``--out`` the file (or folder) written.

* ``play GAME [MOVES ...] [--vs OPP] [--seat S]``: you against an opponent
  (see :mod:`boardenvs.interactive`); with moves and no ``-i`` it prints the
  position they reach and its legal moves.
* ``watch GAME [--vs OPP ...]``: a game between opponents (one per seat,
  cycled), shown and recorded (``--gif``, ``--mp4``, ``--html``).
* ``replay FILE``: play a saved game (JSON) back, or check every game of a
  trace file (JSON lines) and show game ``--index K``.
* ``picture GAME [MOVES ...] --out F.png``: the picture of a position.
* ``random-games [GAME]``: seeded games between random agents, each final
  board and a results line (nothing to install beyond the core).
* ``train GAME``: train a masked-PPO agent (:mod:`boardenvs.baselines.train`,
  whose ``--help`` it shows; the train extra).
* ``demo [GAME]``: what ``make demo`` runs: train a short baseline, measure
  it against ``random`` and ``greedy``, record a game
  (:mod:`boardenvs.baselines.demo`; the train extra).
* ``rate GAME AGENT``: rate an agent against the game's versioned ladder
  (:mod:`boardenvs.baselines.ladder`), every game written as a match trace.
* ``list``, ``card GAME``, ``rules [GAME]``: the games, their ids, player
  counts and options; a game's env card; its rules as shipped.

An opponent is a name (``random``, ``greedy``, ``mcts``, ``mcts:400``,
``baseline:quess_v0``, ...) or the path of a saved model: a ``.pt`` from
``boardenvs train``, or, with ``--trust-files``, an SB3 ``.zip`` or an RLlib
checkpoint folder (formats whose loaders run code from the file: name only
files you trust).  Files go under ``runs/`` unless ``--out`` names one.
Bad input (an unknown game or opponent, a malformed move or file, a folder
that cannot be written) gets one line ``error: ...`` on stderr and exit
status 2, and nothing is written: output paths are checked before a game is
played, and files are written whole or not at all (:mod:`boardenvs.files`).
"""

from __future__ import annotations

import argparse
import sys

from . import commands
from .helptext import CommandParser, game_type, help_text, number_type

# a flag's old spelling -> (its spelling now, the commands where it is rewritten): they still work, with a note
OLD_FLAGS = {"--save": ("--out", ("play", "watch")), "--traces": ("--out", ("rate",))}


def one_line(exc: object) -> str:
    """An error's message as the one line the CLI prints: its lines joined,
    terminal control characters escaped, cut to 1,000 characters."""
    from .errors import printable, shorten

    return printable(shorten(" ".join(line.strip() for line in str(exc).splitlines() if line.strip()), 1000))


SEED = number_type(int, 0, 2**63 - 1, "a seed is a non-negative integer")
COUNT = number_type(int, 1, 10**9, "a count is a positive integer")
PLAYERS = number_type(int, 1, 64, "a player count is a positive integer")
SEAT = number_type(int, 0, 63, "a seat is a non-negative integer")
FPS = number_type(float, 1e-3, 60, "frames per second is a number in (0, 60]")
DELAY = number_type(float, 0, 60, "a delay is a number of seconds in 0..60")
ELO = number_type(float, 1e-9, 1e9, "a precision is a positive number of Elo")

GAME_HELP = "the game: an env id (quess_v0, ...) or its gymnasium id (boardenvs/Quess-v0); boardenvs list shows them"
OPPONENT_HELP = (
    "a name (random, greedy, mcts, mcts:400, baseline:quess_v0, search:100:quess_v0, ...) or a saved "
    "model's path (.pt from boardenvs train; .zip or RLlib checkpoint folder with --trust-files)"
)
TRUST_HELP = (
    "allow an SB3 .zip or an RLlib checkpoint folder as an opponent: their loaders run code from the file "
    "(pickle), so name only files you trust (a .pt from boardenvs train needs no trust)"
)


def _game(p, *, optional=False, among=None):
    kind = {"nargs": "?", "default": None} if optional else {}
    more = " (default: every game)" if optional else ""
    p.add_argument("game", type=game_type(among), metavar="GAME", help=GAME_HELP + more, **kind)


def _players(p):
    p.add_argument("--players", type=PLAYERS, default=None, metavar="N", help="the player count (default: the game's)")


def _options(p):
    p.add_argument(
        "--option", action="append", metavar="K=V", help="a game option, e.g. max_turns=100 (boardenvs list: all)"
    )


def _recordings(p):
    p.add_argument("--gif", default=None, metavar="F.gif", help="record the game as an animated GIF")
    p.add_argument("--mp4", default=None, metavar="F.mp4", help="record the game as an MP4 video")
    p.add_argument("--html", default=None, metavar="F.html", help="a page to step through the game in a browser")
    p.add_argument("--fps", type=FPS, default=2.0, help="frames per second of the GIF or MP4 (default 2)")


def parser() -> argparse.ArgumentParser:
    """The command line's parser: one sub-parser per command (the table of
    commands, positionals and flags in one place)."""
    top = CommandParser(prog="boardenvs", description=help_text(__doc__))
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, help, func):  # a command's --help starts with its line in the list of commands
        p = sub.add_parser(name, help=help.replace("%", "%%"), description=help)
        p.set_defaults(func=func)
        return p

    ls = command("list", "the games: ids, gymnasium ids, player counts and options", commands.list_games)
    ls.add_argument("--all", action="store_true", help="every registered id (tests' toy games too)")
    r = command("rules", "print a game's rules (no game: the common conventions)", commands.rules)
    _game(r, optional=True)
    c = command(
        "card", "print a game's env card: ids, options, observation planes, action encoding, end reasons", commands.card
    )
    _game(c)
    p = command(
        "play",
        "play a game in the terminal (or a window) against an opponent; with moves and no -i: print the "
        "position they reach",
        commands.play,
    )
    _game(p)
    p.add_argument("moves", nargs="*", metavar="MOVE", help="moves in notation from the start (an opening)")
    p.add_argument("--vs", default="random", metavar="OPP", help="the opponent (default random): " + OPPONENT_HELP)
    p.add_argument("--seat", type=SEAT, default=0, help="your seat (default 0)")
    _players(p)
    _options(p)
    p.add_argument("--seed", type=SEED, default=None, help="seed of the chance outcomes and the opponent")
    p.add_argument("--out", default=None, metavar="F.json", help="where to save the game (default runs/GAME-DATE.json)")
    p.add_argument("--trust-files", action="store_true", help=TRUST_HELP)
    p.add_argument("--window", action="store_true", help="play in a pygame window by clicking the legal moves")
    p.add_argument("-i", "--interactive", action="store_true", help="play on from the given moves")
    w = command("watch", "watch a game between opponents (random unless --vs), record it", commands.watch)
    _game(w)
    w.add_argument(
        "--vs", nargs="+", default=None, metavar="OPP", help="one opponent per seat, cycled: " + OPPONENT_HELP
    )
    _players(w)
    _options(w)
    w.add_argument("--seed", type=SEED, default=0, help="seed of the chance outcomes and the opponents (default 0)")
    w.add_argument("--out", default=None, metavar="F.json", help="save the game as JSON")
    _recordings(w)
    w.add_argument("--trust-files", action="store_true", help=TRUST_HELP)
    w.add_argument("--window", action="store_true", help="show it in a pygame window")
    w.add_argument("--delay", type=DELAY, default=0.0, help="seconds between moves (default 0)")
    w.add_argument("--max-moves", type=COUNT, default=100_000, help="stop after this many moves (default 100,000)")
    w.add_argument("--quiet", action="store_true", help="print only the final position")
    rp = command(
        "replay",
        "play back a saved game (JSON) or a game of a trace file (JSON lines); --gif/--mp4/--html record it",
        commands.replay,
    )
    rp.add_argument("file", metavar="FILE", help="a saved game (.json) or a trace file (.jsonl, .jsonl.gz)")
    rp.add_argument(
        "--index",
        type=COUNT,
        default=None,
        metavar="K",
        help="of a trace file (every game of it is checked), show game K (default 1)",
    )
    rp.add_argument("--show", action="store_true", help="print every position, not only the last")
    _recordings(rp)
    pc = command(
        "picture", "save the picture (PNG) of a position: the moves given, or --random N turns", commands.picture
    )
    _game(pc)
    pc.add_argument("moves", nargs="*", metavar="MOVE", help="moves in notation from the start")
    pc.add_argument("--out", required=True, metavar="F.png", help="the picture file to write")
    pc.add_argument("--random", type=SEED, default=0, metavar="N", help="then N seeded random turns")
    _players(pc)
    _options(pc)
    pc.add_argument("--seed", type=SEED, default=0, help="seed of the --random turns (default 0)")
    rg = command(
        "random-games",
        "seeded games between random agents of every game (or one): each final board and a results line",
        commands.random_games,
    )
    _game(rg, optional=True)
    rg.add_argument("--games", type=COUNT, default=3, metavar="N", help="games per game id (default 3)")
    _players(rg)
    rg.add_argument("--seed", type=SEED, default=0, help="the first game's seed, then +1 each (default 0)")
    for name, help in (
        ("train", "train a masked-PPO agent on a game (boardenvs train --help: its flags; the train extra)"),
        ("demo", "what make demo runs: train a short baseline, measure it, record a game (the train extra)"),
    ):
        t = command(name, help, None)
        t.add_argument("args", nargs=argparse.REMAINDER, help=f"the game and the flags (boardenvs {name} --help)")
    ra = command(
        "rate",
        "rate an agent against a game's versioned ladder: its Elo (random = 0) with a 95% interval, every "
        "game written as a match trace",
        commands.rate,
    )
    _game(ra)
    ra.add_argument("agent", metavar="AGENT", help="the agent rated: " + OPPONENT_HELP)
    _players(ra)
    ra.add_argument("--games", type=COUNT, default=1000, metavar="N", help="at most this many games (default 1000)")
    ra.add_argument(
        "--precision",
        type=ELO,
        default=None,
        metavar="ELO",
        help="stop once the 95%% interval's half-width is at most this many Elo (e.g. 50)",
    )
    ra.add_argument("--seed", type=SEED, default=0, help="seed of the games (default 0)")
    ra.add_argument(
        "--ladder-version", type=COUNT, default=None, metavar="V", help="a ladder version (default: newest)"
    )
    ra.add_argument(
        "--out",
        default=None,
        metavar="F.jsonl.gz",
        help="where the games go, one JSON line each (.jsonl or .jsonl.gz; default "
        "runs/rating-LADDER-AGENT-seedSEED.jsonl.gz)",
    )
    ra.add_argument("--no-traces", action="store_true", help="write no trace file")
    ra.add_argument(
        "--resume",
        action="store_true",
        help="go on with a rating that stopped (killed, interrupted) from the games in its OUT.partial, "
        "with its own settings: only the rest are played, and the traces and the rating are an unbroken run's",
    )
    ra.add_argument("--trust-files", action="store_true", help=TRUST_HELP + "; and import a module:attribute agent")
    ra.add_argument("--json", action="store_true", help="print the result as JSON (no progress bar)")
    ra.add_argument("--quiet", action="store_true", help="no progress bar")
    return top


def modernize(argv: list) -> tuple[list, list]:
    """``argv`` with the 0.3 spellings rewritten (they still work) and a
    note for each: ``--save``/``--traces`` are ``--out``, ``watch --players
    OPP ...`` is ``--vs`` (``--players`` is the player count), ``rate AGENT
    --game ID`` is ``rate ID AGENT``, ``replay --game K`` is ``--index K``."""
    if not argv:
        return argv, []
    command, rest, notes = argv[0], list(argv[1:]), []

    def flag_at(k):  # (flag, value or None) of rest[k], "--flag=value" split
        flag, eq, value = rest[k].partition("=")
        return flag, (value if eq else None)

    k = 0
    while k < len(rest):
        flag, value = flag_at(k)
        new, where = OLD_FLAGS.get(flag, (None, ()))
        if command in where:
            rest[k] = new if value is None else f"{new}={value}"
            notes.append(f"{flag} is now {new}")
        elif command == "replay" and flag == "--game":
            rest[k] = "--index" if value is None else f"--index={value}"
            notes.append("replay --game K is now --index K")
        elif command == "watch" and flag == "--players" and value is None:
            opps = rest[k + 1 :]
            opps = opps[: next((j for j, a in enumerate(opps) if a.startswith("-")), len(opps))]
            if opps and not (len(opps) == 1 and opps[0].isdigit()):
                rest[k] = "--vs"
                notes.append("watch --players OPP ... is now --vs OPP ... (--players is the player count)")
        elif command == "rate" and flag == "--game":
            if value is None and k + 1 < len(rest):
                value = rest.pop(k + 1)
            if value is not None:
                rest.pop(k)
                rest.insert(0, value)
                notes.append("rate AGENT --game ID is now rate ID AGENT")
                k += 1
                continue
        k += 1
    return [command, *rest], notes


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["train"], ["demo"]):  # everything after it is the script's own (its --help included)
        return commands.script(argv[0], argv[1:], prog=f"boardenvs {argv[0]}")
    argv, notes = modernize(argv)
    args = parser().parse_args(argv)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    try:
        return args.func(args)
    except (ValueError, TypeError, ImportError) as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file that could not be read or written after the checks (a full disk, ...)
        from .errors import printable, shorten

        where = f"{printable(shorten(str(exc.filename), 200))}: " if exc.filename else ""
        print(f"error: {where}{one_line(exc.strerror or exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
