"""What each command of the command line does (:mod:`boardenvs.cli` reads
the arguments; every function here takes its parsed ``args`` and returns
the exit status).  Bad input raises ValueError (or OSError) with a message in
the command line's own words, which :func:`boardenvs.cli.main` prints as one
``error:`` line."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from . import ENV_IDS
from .api import make, position
from .errors import UnknownNameError, UntrustedFileError, did_you_mean, printable, shorten
from .files import output_path, write_atomically
from .pictures import random_moves
from .records import game_record, load_record, new_game, replay_moves, save_record
from .registry import game_class

RUNS = Path("runs")  # where a command writes what no path was given for (in .gitignore)

# what an opponent may be, in the command line's words (the library's name trust=True)
OPPONENT_FILES = "a saved model's path (.pt; an SB3 .zip or an RLlib checkpoint folder with --trust-files)"
TRUST_WORDS = "name it only if you trust the file, with --trust-files"


def default_output(name: str) -> Path:
    """``runs/<name>``, the folder made if needed: where a command writes
    its file when no path was given (one folder, ignored by git)."""
    RUNS.mkdir(exist_ok=True)
    return RUNS / name


def say(*parts, sep: str = " ") -> None:
    """Print text that may hold names read from a file: control characters
    escaped, a lone surrogate shown as its escape (:func:`printable`)."""
    print(printable(sep.join(str(p) for p in parts)))


def opponent(spec: str, env_id: str, trust: bool):
    """The opponent ``spec`` names (:func:`boardenvs.opponents.load_opponent`),
    its errors in the command line's words: a typo names the nearest name,
    and files are trusted with ``--trust-files`` (not ``trust=True``)."""
    from .opponents import MODEL_FILES, TRUST_HOW, load_opponent

    try:
        return load_opponent(spec, env_id, trust=trust)
    except UnknownNameError as exc:
        plain = [n for n in exc.choices if ":" not in n]
        prefixed = [n.partition(":")[0] + ":..." for n in exc.choices if ":" in n]
        names = shorten(", ".join(plain + prefixed), 100)
        raise ValueError(
            f"unknown opponent {shorten(repr(spec), 40)}{did_you_mean(spec, [*plain, *prefixed])}: "
            f"a name ({names}) or {OPPONENT_FILES}"
        ) from None
    except ValueError as exc:
        words = str(exc).replace(TRUST_HOW, TRUST_WORDS).replace(MODEL_FILES, OPPONENT_FILES)
        raise (UntrustedFileError if isinstance(exc, UntrustedFileError) else ValueError)(words) from None


def game_options(args) -> dict:
    """``--option k=v`` items and ``--players N`` as make() keywords (ints
    as ints); ``--players`` is the game's ``num_players``."""
    from .spec import parse_option_items

    options = parse_option_items(getattr(args, "option", None) or [], ValueError, "--option")
    players = getattr(args, "players", None)
    if players is not None:
        if "num_players" in options and options["num_players"] != players:
            raise ValueError(f"--players {players} and --option num_players={options['num_players']} disagree")
        cls = game_class(args.game)
        if not any(o.name == "num_players" for o in cls.option_specs):
            counts = sorted({cls(**v).num_players for v in cls.variants})
            if players not in counts:
                raise ValueError(f"--players {players}: {args.game} is played by {'/'.join(map(str, counts))}")
        else:
            options["num_players"] = players
    return options


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


def random_games(args) -> int:
    """``boardenvs random-games [GAME]``: seeded random-vs-random games, each
    final board and a results line per game."""
    summaries = []
    options = game_options(args) if args.game else {}
    for env_id in [args.game] if args.game else ENV_IDS:
        wins = {}
        t0 = time.perf_counter()
        for k in range(args.games):
            seed = args.seed + k
            final, totals, steps = random_game(env_id, seed, **options)
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
    ``args`` (``--out``, ``--gif``, ``--mp4``, ``--html``) that cannot be
    written, before anything is played or written."""
    for flag in ("out", "gif", "mp4", "html"):
        path = getattr(args, flag, None)
        if path is None:
            continue
        suffixes = None
        if flag in ("gif", "mp4"):
            from .wrappers.recording import FORMATS as suffixes
        elif flag == "html":
            suffixes = (".html", ".htm")
        output_path(path, f"--{flag}", suffixes)


def play(args) -> int:
    options = game_options(args)
    if args.moves and not args.interactive:
        # the moves from the start, the position they reach and its legal moves
        pos = replay_moves(position(args.game, **options), args.moves)[-1]
        print(pos)
        print("legal:", ", ".join(pos.legal_moves()))  # commas: a whole turn may hold spaces (Quicksand)
        return 0
    from .interactive import Match

    who = opponent(args.vs, args.game, args.trust_files)
    out = args.out
    if out is None:
        out = output_path(default_output(f"{args.game}-{time.strftime('%Y%m%d-%H%M%S')}.json"), "--out")
    match = Match(
        args.game,
        options,
        seed=args.seed,
        seat=args.seat,
        opponent=who,
        save=out,
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
        k = args.index or 1
        if not 1 <= k <= len(traces):
            raise ValueError(f"--index {k}: {args.file} holds {len(traces)} games (1..{len(traces)})")
        trace = traces[k - 1]
        start, moves = trace_start(trace)
        players = [a["name"] for a in trace["agents"]]
        say(
            f"{len(traces)} games in {args.file}: every one replays to its recorded result; game {k}: "
            + " vs ".join(shorten(p, 80) for p in players)
            + f", returns {trace['returns']} ({trace['end_reason']})"
        )
    elif args.index is not None:
        raise ValueError("--index picks a game of a trace file (.jsonl or .jsonl.gz); a .json record holds one")
    else:
        start, moves, record = load_record(args.file)
    positions = replay_moves(start, moves)
    if args.show:
        for pos in positions:
            say(pos)
            print()
    else:
        say(positions[-1])
    print(f"{len(moves)} moves replayed: {'game over' if positions[-1].is_terminal else 'game not over'}")
    for path in (args.gif, args.mp4, args.html):
        if path:
            from .wrappers.recording import record_game

            record_game(start, moves, path, fps=args.fps, players=players)
            say(f"saved {path}")
    return 0


def rate(args) -> int:
    """Rate an agent on a game's ladder (:func:`boardenvs.baselines.ladder.rate`)."""
    from .baselines import ladder
    from .baselines.networks import model_name

    opponent(args.agent, args.game, args.trust_files)  # its errors in these words, before any file or game
    traces = None
    if args.resume and args.no_traces:
        raise ValueError("--resume goes on from the games in the trace file: not with --no-traces")
    if not args.no_traces:
        if args.out is not None:
            traces = args.out
        else:
            name = model_name(args.game, args.players)
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in args.agent)[-60:]
            traces = str(default_output(f"rating-{name}-{safe}-seed{args.seed}.jsonl.gz"))
        if not str(traces).endswith((".jsonl", ".jsonl.gz")):
            raise ValueError(f"--out {str(traces)!r}: the file name must end in .jsonl or .jsonl.gz")
        output_path(traces, "--out")  # (written as the games are played, to OUT.partial: checked first)
    progress = ladder.QUIET if args.quiet or args.json else None
    result = ladder.rate(
        args.agent,
        args.game,
        players=args.players,
        games=args.games,
        precision=args.precision,
        seed=args.seed,
        version=args.ladder_version,
        trust=args.trust_files,
        traces=traces,
        progress=progress,
        resume=args.resume,
    )
    if args.json:
        import json

        print(json.dumps(result, indent=1))
        return 0
    lo, hi = result["interval"]
    why = f"the interval reached ±{args.precision:g}" if result["stopped"] == "precision" else "--games reached"
    say(
        f"{result['agent']} on the {result['ladder']} ladder v{result['version']} (random = 0): "
        f"{result['rating']:+.0f} [{lo:+.0f}, {hi:+.0f}] (95%, ±{result['half_width']:.0f} Elo), "
        f"{result['games']} games in {result['seconds']:.0f} s ({why})"
    )
    if result["beyond"]:
        above = result["beyond"] == "above"
        beyond = "95% or more against the strongest" if above else "5% or less against the weakest"
        print(f"  note: it scored {beyond} member: the rating is a bound, beyond what this ladder measures")
    for member, (n, score) in result["by_member"].items():
        say(f"  vs {member}: {n} games, score {score:g} ({100 * score / n:.0f}%)")
    if traces:
        say(f"traces: {traces} (boardenvs replay {traces} --index K)")
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
    pos = position(args.game, **game_options(args))
    pos = replay_moves(pos, args.moves)[-1]
    if args.random:
        _, pos = random_moves(pos, args.random, args.seed)
    picture = Image.fromarray(pos.render("rgb_array"))
    write_atomically(args.out, lambda tmp: picture.save(tmp, optimize=True), "--out")
    print(pos)
    say(f"saved {args.out}")
    return 0


def list_games(args) -> int:
    from .registry import gym_id_of, registered_ids

    for env_id in registered_ids() if args.all else ENV_IDS:
        cls = game_class(env_id)
        counts = sorted({cls(**v).num_players for v in cls.variants})
        spec = next((o for o in cls.option_specs if o.name == "num_players"), None)
        players = (
            ", ".join(str(c) for c in spec.choices) if spec is not None and spec.choices else "/".join(map(str, counts))
        )
        print(f"{env_id}  {cls.title} ({gym_id_of(cls)}): {players} players")
        for o in cls.option_specs:
            print(f"    {o.name}={o.default!r}  {o.doc} ({o.allowed()})")
    return 0


def watch(args) -> int:
    """A game between opponents (random by default): each position in the
    terminal (or the window), optionally saved as JSON / GIF / MP4 / HTML."""
    from .records import play_game

    check_outputs(args)
    options = game_options(args)
    pos, rng = new_game(args.game, options, args.seed)
    specs = args.vs or ["random"]
    opponents = [opponent(spec, args.game, args.trust_files) for spec in specs]
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
            time.sleep(args.delay)
        pos, move = next(turns)
        moves.append(move)
        frames_pos.append(pos)
    print(pos)
    if window is not None:
        from .render import rgb_frame

        window.show(rgb_frame(pos.game, pos.state))
        if args.delay:
            time.sleep(3 * args.delay)
        window.close()
    record = game_record(frames_pos[0], args.seed, moves, pos)
    if args.out:
        say(f"saved {save_record(record, args.out)}")
    players = [specs[s % len(specs)] for s in range(pos.game.num_players)]
    for path in (args.gif, args.mp4, args.html):
        if path:
            from .wrappers.recording import record_game

            record_game(frames_pos[0], moves, path, fps=args.fps, players=players)
            say(f"saved {path}")
    return 0


def rules_text(env_id: str | None) -> str:
    """The rules file of ``env_id`` shipped in the package (or, for None, the
    common conventions and the list of games)."""
    from importlib import resources

    if env_id is not None:
        return game_class(env_id).rules_path().read_text(encoding="utf-8")
    return resources.files("boardenvs").joinpath("rules", "README.md").read_text(encoding="utf-8")


def card(args) -> int:
    """A game's env card (:func:`boardenvs.cards.env_card`): ids, options, observation, actions, end reasons."""
    from .cards import env_card

    print(env_card(args.game))
    return 0


def rules(args) -> int:
    print(rules_text(args.game), end="")
    return 0


def script(module: str, argv: list, prog: str) -> int:
    """``boardenvs train`` / ``boardenvs demo``: the baselines' script
    ``module`` under the command line (its own flags and --help), or one
    ``error:`` line naming the extra to install when torch or SB3 is missing."""
    import importlib

    from .errors import install_line

    try:
        return importlib.import_module(f"boardenvs.baselines.{module}").main(argv, prog=prog)
    except ImportError as exc:  # (the script's own imports of torch, SB3, ... are inside it)
        what = f"{exc.name} is not installed" if exc.name else printable(shorten(str(exc), 300))
        print(f"error: {prog} needs torch and SB3 (the train extra; {what}): {install_line('train')}", file=sys.stderr)
        return 2
