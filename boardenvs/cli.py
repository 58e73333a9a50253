"""Command line: ``boardenvs demo``, ``play``, ``watch``, ``replay``,
``picture``, ``train``, ``rate``, ``list`` and ``rules``.  A game is named the same way
in every command: its env id, first (``boardenvs play quess_v0``).

* ``demo [GAME]`` plays a few seeded games of every env (or one) between
  random agents through the public AEC env, prints each final board and a
  results line (``make demo`` is the one that trains a model).
* ``train GAME [--steps N ...]``: train a masked-PPO agent
  (:mod:`boardenvs.baselines.train`, which ``--help`` describes; the train extra).
* ``play GAME [--seat 0] [--vs random|greedy|mcts|mcts:N|MODEL.pt] [--trust-files] [--option k=v ...]
  [--seed N] [--window] [--save FILE.json]``: you against an opponent (see
  :mod:`boardenvs.interactive`); the game is saved as JSON.  With moves and
  no ``-i`` (``boardenvs play quess_v0 F3-E3 A4-B4``) it prints the position
  they reach and its legal moves.
* ``watch GAME [--players random MODEL.pt ...] [--trust-files] [--window] [--gif F] [--mp4 F]
  [--save F.json]``: a game between opponents, shown and recorded.
* ``--trust-files`` (``play``, ``watch``): the opponents named may be an
  SB3 ``.zip`` or an RLlib checkpoint folder, formats whose loaders run
  code from the file (pickle): name only files you trust.  Without it they
  are refused; a ``.pt`` from ``boardenvs.baselines.train`` needs no trust.
* ``replay FILE.json [--gif F] [--mp4 F] [--show]``: play a saved game back;
  ``replay FILE.jsonl --game K``: check every game of a trace file and show game K.
* ``rate AGENT --game ID [--players P] [--precision ELO]``: rate an agent
  against the game's versioned ladder (:mod:`boardenvs.baselines.ladder`).
* ``picture GAME [MOVES ...] --out F.png``: the picture of a position.
* ``list``: the games, their player counts and options.
* ``rules GAME``: a game's rules as shipped with the package.

Bad input (an unknown game, a malformed move or file, a folder that does
not exist, a model that cannot be loaded) gets one line ``error: ...`` on
stderr and exit status 2, and
nothing is written: output paths are checked before a game is played, and
files are written whole or not at all (:mod:`boardenvs.files`).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import ENV_IDS
from .api import make, position
from .files import output_path, write_atomically
from .helptext import help_text
from .pictures import random_moves
from .records import game_record, load_record, new_game, replay_moves, save_record
from .registry import game_class


def random_game(env_id: str, seed: int, **options) -> tuple[object, dict, int]:
    """One game between uniformly random legal agents (each action drawn
    from the game row's own generator, seeded by ``reset(seed)``); returns the
    final Position, the cumulative rewards per agent and the number of steps."""
    env = make(env_id, **options)
    env.reset(seed=seed)
    raw = env.unwrapped
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    final = None
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            if final is None:
                final = env.unwrapped.position()
            action = None
        else:
            action = raw.random_of(env.observe(agent)["action_mask"])
            steps += 1
        env.step(action)
    return final, totals, steps


def train(args) -> int:
    """``boardenvs train GAME ...``: :mod:`boardenvs.baselines.train`'s command line."""
    try:
        from .baselines import train as trainer
    except ImportError as exc:
        print(
            f"error: training needs torch and SB3 (the train extra): pip install 'boardenvs[train]' ({exc.name or exc} "
            "is not installed)",
            file=sys.stderr,
        )
        return 2
    return trainer.main(args.args, prog="boardenvs train")


def demo(args) -> int:
    summaries = []
    for env_id in [args.env] if args.env else ENV_IDS:
        wins = {}
        t0 = time.perf_counter()
        for k in range(args.games):
            seed = args.seed + k
            final, totals, steps = random_game(env_id, seed)
            print(f"--- {env_id} game {k + 1} (seed {seed}): {steps} moves, {final.end_reason}")
            print(final)
            winner = [a for a, r in totals.items() if r > 0]
            key = winner[0] if len(winner) == 1 else ("draw" if not final.is_truncated else "truncated")
            wins[key] = wins.get(key, 0) + 1
            print("returns:", {a: int(r) for a, r in totals.items()})
        elapsed = time.perf_counter() - t0
        summary = ", ".join(f"{k} {v}" for k, v in sorted(wins.items()))
        summaries.append(f"results: {args.games} random-vs-random {env_id} games: {summary} ({elapsed:.2f} s)")
    print("\n".join(summaries))
    return 0


def check_outputs(args) -> None:
    """Refuse (ValueError naming the flag and the file) the output files of
    ``args`` (``--save``, ``--gif``, ``--mp4``) that cannot be written,
    before anything is played or written."""
    for flag in ("save", "gif", "mp4", "html"):
        path = getattr(args, flag, None)
        if path is None:
            continue
        suffixes = None
        if flag in ("gif", "mp4"):
            from .wrappers.recording import FORMATS as suffixes
        elif flag == "html":
            suffixes = (".html", ".htm")
        output_path(path, f"--{flag}", suffixes)


def parse_options(items) -> dict:
    """``["k=v", ...]`` from ``--option`` as make() keywords (ints as ints)."""
    from .spec import parse_option_items

    return parse_option_items(items or [], ValueError, "--option")


def play(args) -> int:
    options = parse_options(args.option)
    if args.moves and not args.interactive:
        # the moves from the start, the position they reach and its legal moves
        pos = replay_moves(position(args.env, **options), args.moves)[-1]
        print(pos)
        print("legal:", ", ".join(pos.legal_moves()))  # commas: a whole turn may hold spaces (Quicksand)
        return 0
    from .interactive import Match

    match = Match(
        args.env,
        options,
        seed=args.seed,
        seat=args.seat,
        opponent=args.vs,
        save=args.save,
        window=args.window,
        opening=args.moves,
        trust=args.trust_files,
    )
    return match.run()


def replay(args) -> int:
    check_outputs(args)
    players = None
    if str(args.file).endswith((".jsonl", ".jsonl.gz")):  # match traces: every line checked, one shown
        from .traces import read_traces, trace_start

        traces = read_traces(args.file)
        k = args.game or 1
        if not 1 <= k <= len(traces):
            raise ValueError(f"--game {k}: {args.file} holds {len(traces)} games (1..{len(traces)})")
        trace = traces[k - 1]
        start, moves = trace_start(trace)
        players = [a["name"] for a in trace["agents"]]
        print(
            f"{len(traces)} games in {args.file}: every one replays to its recorded result; game {k}: "
            + " vs ".join(players)
            + f", returns {trace['returns']} ({trace['end_reason']})"
        )
    elif args.game is not None:
        raise ValueError("--game picks a game of a trace file (.jsonl or .jsonl.gz); a .json record holds one")
    else:
        start, moves, record = load_record(args.file)
    positions = replay_moves(start, moves)
    if args.show:
        for pos in positions:
            print(pos)
            print()
    else:
        print(positions[-1])
    print(f"{len(moves)} moves replayed: {'game over' if positions[-1].is_terminal else 'game not over'}")
    for path in (args.gif, args.mp4, args.html):
        if path:
            from .wrappers.recording import record_game

            record_game(start, moves, path, fps=args.fps, players=players)
            print(f"saved {path}")
    return 0


def rate(args) -> int:
    """Rate an agent on a game's ladder (:func:`boardenvs.baselines.ladder.rate`)."""
    from .baselines import ladder
    from .baselines.networks import model_name
    from .registry import env_id_of

    env_id = env_id_of(args.game)
    traces = None
    if not args.no_traces:
        name = model_name(env_id, args.players)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in args.agent)[-60:]
        traces = args.traces or f"rating-{name}-{safe}-seed{args.seed}.jsonl.gz"
    progress = ladder.QUIET if args.quiet or args.json else None
    result = ladder.rate(
        args.agent,
        env_id,
        players=args.players,
        games=args.games,
        precision=args.precision,
        seed=args.seed,
        version=args.ladder_version,
        trust=args.trust_files,
        traces=traces,
        progress=progress,
    )
    if args.json:
        import json

        print(json.dumps(result, indent=1))
        return 0
    lo, hi = result["interval"]
    why = f"the interval reached ±{args.precision:g}" if result["stopped"] == "precision" else "--games reached"
    print(
        f"{result['agent']} on the {result['ladder']} ladder v{result['version']} (random = 0): "
        f"{result['rating']:+.0f} [{lo:+.0f}, {hi:+.0f}] (95%, ±{result['half_width']:.0f} Elo), "
        f"{result['games']} games in {result['seconds']:.0f} s ({why})"
    )
    if result["beyond"]:
        above = result["beyond"] == "above"
        beyond = "95% or more against the strongest" if above else "5% or less against the weakest"
        print(f"  note: it scored {beyond} member: the rating is a bound, beyond what this ladder measures")
    for member, (n, score) in result["by_member"].items():
        print(f"  vs {member}: {n} games, score {score:g} ({100 * score / n:.0f}%)")
    if traces:
        print(f"traces: {traces} (boardenvs replay {traces} --game K)")
    return 0


def picture(args) -> int:
    """The picture (PNG) of the position after the given moves, or after
    ``--random N`` seeded random turns."""
    from PIL import Image

    Image.init()  # every format Pillow can write, by extension
    writable = {ext for ext, fmt in Image.registered_extensions().items() if fmt in Image.SAVE}
    if Path(args.out).suffix.lower() not in writable:
        raise ValueError(
            f"--out {args.out!r}: the file name must end in .png (or another image type Pillow writes: "
            ".jpg, .webp, .gif, ...)"
        )
    output_path(args.out, "--out")
    pos = position(args.env, **parse_options(args.option))
    pos = replay_moves(pos, args.moves)[-1]
    if args.random:
        _, pos = random_moves(pos, args.random, args.seed)
    picture = Image.fromarray(pos.render("rgb_array"))
    write_atomically(args.out, lambda tmp: picture.save(tmp, optimize=True), "--out")
    print(pos)
    print(f"saved {args.out}")
    return 0


def list_games(args) -> int:
    from .registry import game_class, registered_ids

    for env_id in registered_ids() if args.all else ENV_IDS:
        cls = game_class(env_id)
        counts = sorted({cls(**v).num_players for v in cls.variants})
        spec = next((o for o in cls.option_specs if o.name == "num_players"), None)
        players = (
            ", ".join(str(c) for c in spec.choices) if spec is not None and spec.choices else "/".join(map(str, counts))
        )
        print(f"{env_id}  {cls.title}: {players} players")
        for o in cls.option_specs:
            print(f"    {o.name}={o.default!r}  {o.doc} ({o.allowed()})")
    return 0


def watch(args) -> int:
    """A game between opponents (random by default): each position in the
    terminal (or the window), optionally saved as JSON / GIF / MP4 / HTML."""
    import time as _time

    from .opponents import load_opponent
    from .records import play_game

    check_outputs(args)
    options = parse_options(args.option)
    pos, rng = new_game(args.env, options, args.seed)
    opponents = [load_opponent(spec, args.env, trust=args.trust_files) for spec in (args.players or ["random"])]
    frames_pos = [pos]
    moves = []
    window = None
    if args.window:
        from .render import Window, rgb_frame

        window = Window(f"boardenvs: {pos.game.title}", fps=0)
    turns = play_game(pos, rng, opponents, args.max_moves)
    while not pos.is_terminal and len(moves) < args.max_moves:
        if window is not None:
            window.show(rgb_frame(pos.game, pos.state))
            if window.closed_by_user:
                break
        elif not args.quiet:
            print(pos, end="\n\n")
        if args.delay:
            _time.sleep(args.delay)
        pos, move = next(turns)
        moves.append(move)
        frames_pos.append(pos)
    print(pos)
    if window is not None:
        from .render import rgb_frame

        window.show(rgb_frame(pos.game, pos.state))
        if args.delay:
            _time.sleep(3 * args.delay)
        window.close()
    record = game_record(frames_pos[0], args.seed, moves, pos)
    if args.save:
        print(f"saved {save_record(record, args.save)}")
    players = [str(spec) for spec in (args.players or ["random"])]
    players = [players[s % len(players)] for s in range(pos.game.num_players)]
    for path in (args.gif, args.mp4, args.html):
        if path:
            from .wrappers.recording import record_game

            record_game(frames_pos[0], moves, path, fps=args.fps, players=players)
            print(f"saved {path}")
    return 0


def rules_text(env_id: str | None) -> str:
    """The rules file of ``env_id`` shipped in the package (or, for None, the
    common conventions and the list of games)."""
    from importlib import resources

    if env_id is not None:
        return game_class(env_id).rules_path().read_text(encoding="utf-8")
    return resources.files("boardenvs").joinpath("rules", "README.md").read_text(encoding="utf-8")


def rules(args) -> int:
    print(rules_text(args.env), end="")
    return 0


def _seed(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"a seed is a non-negative integer, got {text!r}")
    return int(text)


def _games(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"the number of games is a positive integer, got {text!r}")
    return int(text)


def _elo(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"a precision is a positive number of Elo, got {text!r}")
    return value


def _seat(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"a seat is a non-negative integer, got {text!r}")
    return int(text)


def _fps(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 60:
        raise argparse.ArgumentTypeError(f"frames per second is a number in (0, 60], got {text!r}")
    return value


def _delay(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"a delay is a number of seconds in 0..60, got {text!r}")
    return value


TRUST_HELP = (
    "load an SB3 .zip or an RLlib checkpoint folder named as an opponent: their loaders run code from "
    "the file (pickle), so name only files you trust (a .pt from boardenvs.baselines.train needs no trust)"
)


def one_line(exc: object) -> str:
    """An error's message as the one line the CLI prints: its lines joined,
    cut to 1,000 characters."""
    from .errors import shorten

    return shorten(" ".join(line.strip() for line in str(exc).splitlines() if line.strip()), 1000)


def main(argv=None) -> int:
    from .registry import registered_ids

    registered = list(registered_ids())
    parser = argparse.ArgumentParser(prog="boardenvs", description=help_text(__doc__))
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name, help):  # a command's --help starts with its line in the list of commands
        return sub.add_parser(name, help=help, description=help)

    d = command("demo", help="seeded random-vs-random games of every game (or one), boards and a results line")
    d.add_argument("env", nargs="?", default=None, choices=ENV_IDS, help="one game (default: every game)")
    d.add_argument("--games", type=_games, default=3)
    d.add_argument("--seed", type=_seed, default=0)
    d.set_defaults(func=demo)
    p = command(
        "play",
        help="play a game in the terminal (or a window) against an opponent; "
        "with moves and no -i: print the position they reach",
    )
    p.add_argument("env", choices=registered)
    p.add_argument("moves", nargs="*", help="moves in notation from the start (an opening)")
    p.add_argument("--seat", type=_seat, default=0, help="your seat (default 0)")
    p.add_argument(
        "--vs",
        default="random",
        help="the opponent: a name ('random', 'greedy', 'mcts', 'mcts:<simulations>', "
        "'baseline:<name>', ...) or the path of a saved model (a .pt from python -m boardenvs.baselines.train; "
        "an SB3 .zip or an RLlib checkpoint folder with --trust-files)",
    )
    p.add_argument("--trust-files", action="store_true", help=TRUST_HELP)
    p.add_argument("--option", action="append", metavar="K=V", help="a game option, e.g. --option max_turns=100")
    p.add_argument("--seed", type=_seed, default=None, help="seed of the chance outcomes and the opponent")
    p.add_argument("--save", default=None, help="where to save the game as JSON (default: ENV-DATE.json)")
    p.add_argument("--window", action="store_true", help="play in a pygame window by clicking the legal moves")
    p.add_argument("-i", "--interactive", action="store_true", help="play on from the given moves")
    p.set_defaults(func=play)
    rp = command(
        "replay",
        help="play back a saved game (JSON) or a game of a trace file (JSON lines); --gif/--mp4/--html record it",
    )
    rp.add_argument("file")
    rp.add_argument("--gif", default=None)
    rp.add_argument("--mp4", default=None)
    rp.add_argument("--html", default=None, help="a page to step through the game in a browser (no server needed)")
    rp.add_argument("--fps", type=_fps, default=2.0)
    rp.add_argument("--show", action="store_true", help="print every position, not only the last")
    rp.add_argument(
        "--game",
        type=_games,
        default=None,
        metavar="K",
        help="of a trace file (.jsonl, .jsonl.gz: every game is checked), show game K (default 1)",
    )
    rp.set_defaults(func=replay)
    w = command("watch", help="watch a game between opponents (random unless --players), record it")
    w.add_argument("env", choices=registered)
    w.add_argument(
        "--players",
        nargs="+",
        default=None,
        metavar="OPP",
        help="one opponent per seat (cycled): a name ('random', 'greedy', 'mcts', 'mcts:400', ...) or the "
        "path of a saved model (.pt from boardenvs.baselines.train; SB3 .zip or RLlib checkpoint folder "
        "with --trust-files)",
    )
    w.add_argument("--trust-files", action="store_true", help=TRUST_HELP)
    w.add_argument("--option", action="append", metavar="K=V")
    w.add_argument("--seed", type=_seed, default=0)
    w.add_argument("--window", action="store_true", help="show it in a pygame window")
    w.add_argument("--delay", type=_delay, default=0.0, help="seconds between moves")
    w.add_argument("--max-moves", type=_games, default=100_000)
    w.add_argument("--quiet", action="store_true", help="print only the final position")
    w.add_argument("--save", default=None, help="save the game as JSON")
    w.add_argument("--gif", default=None)
    w.add_argument("--mp4", default=None)
    w.add_argument("--html", default=None, help="a page to step through the game in a browser (no server needed)")
    w.add_argument("--fps", type=_fps, default=2.0)
    w.set_defaults(func=watch)
    pc = command("picture", help="save the picture (PNG) of a position: the moves given, or --random N turns")
    pc.add_argument("env", choices=registered)
    pc.add_argument("moves", nargs="*")
    pc.add_argument("--out", required=True, help="the PNG file to write")
    pc.add_argument("--random", type=_seed, default=0, metavar="N", help="then N seeded random turns")
    pc.add_argument("--seed", type=_seed, default=0)
    pc.add_argument("--option", action="append", metavar="K=V")
    pc.set_defaults(func=picture)
    ls = command("list", help="the games: ids, player counts and options")
    ls.add_argument("--all", action="store_true", help="every registered id (tests' toy games too)")
    ls.set_defaults(func=list_games)
    r = command("rules", help="print a game's rules (no id: the common conventions)")
    r.add_argument("env", nargs="?", choices=registered)
    r.set_defaults(func=rules)
    ra = command(
        "rate",
        help="rate an agent against a game's versioned ladder: its Elo (random = 0) with a 95%% "
        "interval, every game written as a match trace",
    )
    ra.add_argument(
        "agent",
        help="what --vs takes: 'baseline:<name>', 'search:<n>:<name>', a saved model (.pt; an SB3 "
        ".zip or an RLlib checkpoint folder with --trust-files) or, with --trust-files, 'module:attribute' "
        "(an Opponent, a policy(obs, masks) -> actions or an SB3 model in a Python module)",
    )
    ra.add_argument("--game", required=True, help="the env id (quess_v0, ...)")
    ra.add_argument(
        "--players", type=int, default=None, help="the player count (default 2; a ladder must exist for it)"
    )
    ra.add_argument("--games", type=_games, default=1000, help="at most this many games (default 1000)")
    ra.add_argument(
        "--precision",
        type=_elo,
        default=None,
        metavar="ELO",
        help="stop once the 95%% interval's half-width is at most this many Elo (e.g. 50)",
    )
    ra.add_argument("--seed", type=_seed, default=0)
    ra.add_argument("--ladder-version", type=int, default=None, help="a ladder version (default: the newest)")
    ra.add_argument(
        "--traces",
        default=None,
        help="where the games go, one JSON line each (.jsonl or .jsonl.gz; "
        "default rating-<ladder>-<agent>-seed<seed>.jsonl.gz)",
    )
    ra.add_argument("--no-traces", action="store_true", help="write no trace file")
    ra.add_argument("--trust-files", action="store_true", help=TRUST_HELP + "; and import a module:attribute agent")
    ra.add_argument("--json", action="store_true", help="print the result as JSON (no progress bar)")
    ra.add_argument("--quiet", action="store_true", help="no progress bar")
    ra.set_defaults(func=rate)
    t = command("train", help="train a masked-PPO agent on a game (boardenvs train GAME --help: its options)")
    t.add_argument(
        "args", nargs=argparse.REMAINDER, help="the game and the options of python -m boardenvs.baselines.train"
    )
    t.set_defaults(func=train)
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["train"]:  # everything after it is the trainer's own (its --help included)
        return train(argparse.Namespace(args=argv[1:]))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, ImportError) as exc:
        print(f"error: {one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file that could not be read or written after the checks (a full disk, ...)
        from .errors import shorten

        where = f"{shorten(str(exc.filename), 200)}: " if exc.filename else ""
        print(f"error: {where}{one_line(exc.strerror or exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
