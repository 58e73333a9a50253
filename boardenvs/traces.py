"""Match traces: every game of a rating as one JSON line, replayable and
checked on read.

A trace file holds one game per line (``.jsonl``, or ``.jsonl.gz``
compressed), each a JSON object::

    {"format": "boardenvs-trace/1", "env_id": "quess_v0", "package": "0.3.0",
     "options": {...every option, resolved...}, "seed": 123,
     "agents": [{"name": "greedy", "sha256": null}, {"name": "baseline:quess_v0", "sha256": "ab12..."}],
     "actions": [17, 402, ...], "returns": [1.0, -1.0], "end_reason": "no_legal_move", "turns": 41,
     ...any other keys the writer adds (a ladder's name, a pairing)...}

``agents`` lists who sat in each seat (seat 0 first) and the SHA-256 of the
files it was loaded from (None for a reference opponent made of code);
``actions`` is every decision in order, chance outcomes included, as action
ids (``Position.play`` takes them one by one); ``returns``, ``end_reason``
and ``turns`` are the result.  :func:`play_matches` plays games between
opponents and returns their traces; :func:`read_traces` replays every line
of a file and raises ValueError naming the line if one is not a trace, an
action is not legal, or the game does not end as recorded;
``boardenvs replay FILE.jsonl --index K`` shows one.  A rating writes its
games as they are played (:mod:`boardenvs.tracelog`): a run killed at any
moment keeps them, and ``--resume`` goes on.
"""

from __future__ import annotations

import gzip
import json

from . import engine as E
from . import matches
from .files import read_text_capped, write_atomically
from .opponents import Opponent
from .registry import make_game

FORMAT = "boardenvs-trace/1"
KEYS = ("format", "env_id", "package", "options", "seed", "agents", "actions", "returns", "end_reason", "turns")


def play_matches(
    env_id: str,
    options: dict,
    lineups,
    seeds,
    agents: list[Opponent],
    rng,
    names=None,
    extra=None,
    first_seat: int = 0,
    opening: int = 0,
) -> list[dict]:
    """Play one game per entry of ``lineups`` at once and return their traces
    (the match runner, :func:`boardenvs.matches.play`).

    ``lineups[g]``: the index in ``agents`` of the agent in each seat of
    game ``g``; ``seeds[g]``: its seed (its row's generator draws its chance
    outcomes and opening, recorded); ``rng``: the numpy generator the agents
    draw from, each agent asked once per round for every game where it is to
    act (:func:`boardenvs.opponents.decide`, so a model or a search sees a
    batch).  ``names``: per agent, ``{"name": ..., "sha256": ...}`` (default:
    the agent's name, no hash); ``extra``: keys added to every trace.  Where
    the options leave the first player to chance (``first_player="random"``),
    ``first_seat`` moves first in every game and the traces' options say
    so: the caller balances who moves first by rotating the lineups.
    ``opening``: the first ``opening`` decisions of every game (chance
    outcomes aside) are uniformly random legal actions from the game's own
    generator, recorded like the others (and as ``"opening"``): games
    between deterministic agents differ by their seeds, and games that share
    a seed share their opening (play them with the seats rotated)."""
    game = make_game(env_id, **options)
    recorded = dict(game.options)
    if int(game.params[E.P_FIRST]) < 0:
        if "first_player" not in game.options:
            raise ValueError(f"{env_id}: the first player is drawn and no first_player option can record it")
        if not 0 <= first_seat < game.num_players:
            raise ValueError(f"first_seat must be a seat 0..{game.num_players - 1}, got {first_seat!r}")
        recorded["first_player"] = int(first_seat)
    lineups = [tuple(int(a) for a in lineup) for lineup in lineups]
    if len(lineups) != len(seeds):
        raise ValueError(f"{len(lineups)} lineups and {len(seeds)} seeds: one seed per game")
    for lineup in lineups:
        if len(lineup) != game.num_players or not all(0 <= a < len(agents) for a in lineup):
            raise ValueError(
                f"a lineup names one of the {len(agents)} agents per seat ({game.num_players} seats), got {lineup}"
            )
    names = names or [{"name": getattr(a, "name", str(a)), "sha256": None} for a in agents]
    played = matches.play(
        env_id, options, lineups, agents, rng, seeds=[int(s) for s in seeds], opening=opening, first_seat=first_seat
    )
    from .versions import version

    package = version("boardenvs") or "unknown"
    return [
        {
            "format": FORMAT,
            "env_id": env_id,
            "package": package,
            "options": recorded,
            "seed": int(seeds[g]),
            "agents": [dict(names[a]) for a in lineups[g]],
            "actions": p.actions,
            "returns": list(p.returns),
            "end_reason": p.end_reason,
            "turns": p.turns,
            **({"opening": int(opening)} if opening else {}),
            **(extra or {}),
        }
        for g, p in enumerate(played)
    ]


def check_trace(trace, where: str = "trace"):
    """Replay one trace (a dict) and return its final Position; ValueError
    naming ``where`` if it is not a trace, an action is not legal, or the
    game does not end with the recorded returns, end reason and turns."""
    from .errors import shorten

    if not isinstance(trace, dict) or trace.get("format") != FORMAT:
        raise ValueError(f'{where}: not a {FORMAT} trace (a JSON object with "format": "{FORMAT}")')
    missing = [k for k in KEYS if k not in trace]
    if missing:
        raise ValueError(f"{where}: a trace needs {', '.join(missing)}")
    if not isinstance(trace["env_id"], str) or not isinstance(trace["options"], dict):
        raise ValueError(f"{where}: env_id must be a string and options an object")
    actions, returns = trace["actions"], trace["returns"]
    if not isinstance(actions, list) or not all(type(a) is int for a in actions):
        raise ValueError(f"{where}: actions must be a list of action ids (ints)")
    try:
        pos, _ = trace_start(trace)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: {shorten(str(exc), 300)}") from None
    agents = trace["agents"]
    if (
        not isinstance(agents, list)
        or len(agents) != pos.game.num_players
        or not all(isinstance(a, dict) and isinstance(a.get("name"), str) for a in agents)
    ):
        raise ValueError(f'{where}: agents must list one {{"name": ...}} per seat ({pos.game.num_players})')
    for k, action in enumerate(actions):
        if pos.is_terminal:
            raise ValueError(f"{where}: the game was over after {k} of its {len(actions)} actions")
        try:
            pos = pos.play(action)
        except ValueError as exc:
            raise ValueError(f"{where}: action {k + 1} ({action}): {shorten(str(exc), 300)}") from None
    got = {"returns": [float(r) for r in pos.returns], "end_reason": pos.end_reason, "turns": pos.turn}
    if not pos.is_terminal:
        raise ValueError(f"{where}: the game is not over after its {len(actions)} actions")
    recorded = {"returns": returns, "end_reason": trace["end_reason"], "turns": trace["turns"]}
    if got != recorded:
        raise ValueError(f"{where}: replayed, the game ends {got}, not {recorded} as recorded")
    return pos


def read_traces(path, check: bool = True) -> list[dict]:
    """Every trace of a ``.jsonl`` / ``.jsonl.gz`` file, each replayed and
    checked (:func:`check_trace`) unless ``check=False``; ValueError naming
    the file and line otherwise (a last line cut short, as a run killed
    while writing it leaves one, is refused too: it says so and how many
    games before it are whole; :mod:`boardenvs.tracelog` keeps those)."""
    try:
        text = read_text_capped(path, "trace file", opener=gzip.open if str(path).endswith(".gz") else open)
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a trace file: not UTF-8 text") from None
    out = []
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if not line.strip():
            continue
        where = f"{path}, line {k + 1}"
        try:
            trace = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as exc:
            if k == len(lines) - 1 and not text.endswith("\n"):  # (a run killed while writing its last game)
                raise ValueError(
                    f"{where}: cut short mid-game (not JSON: {getattr(exc, 'msg', exc)}); "
                    f"the {len(out)} games before it are whole"
                ) from None
            raise ValueError(f"{where}: not JSON ({getattr(exc, 'msg', exc)})") from None
        if check:
            check_trace(trace, where)
        elif not isinstance(trace, dict) or trace.get("format") != FORMAT:
            raise ValueError(f"{where}: not a {FORMAT} trace")
        out.append(trace)
    if not out:
        raise ValueError(f"{path}: no trace in the file")
    return out


def write_traces(traces, path) -> str:
    """Write ``traces`` one JSON line each (gzip-compressed for a ``.gz``
    name, reproducibly: no time stamp), whole or not at all."""
    text = "".join(json.dumps(t, separators=(",", ":")) + "\n" for t in traces)

    def write(tmp):
        if str(path).endswith(".gz"):
            with open(tmp, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
                f.write(text.encode("utf-8"))
        else:
            tmp.write_text(text, encoding="utf-8")

    return str(write_atomically(path, write, "trace file"))


def trace_start(trace):
    """The start Position of a trace's game and its actions (for a replay)."""
    from .api import position

    return position(trace["env_id"], **trace["options"]), list(trace["actions"])


def score(trace, a: str, b: str) -> float | None:
    """``a``'s score against ``b`` in one traced game: each pair of seats
    held by ``a`` and ``b`` compared by their returns (the higher wins 1, a
    tie 1/2), averaged; None if either is not in the game.  Two players:
    1, 1/2 or 0; more: one seat of ``a`` against ``b`` in the others
    scores 1/2 on average between equals, whoever sits where."""
    names = [x["name"] for x in trace["agents"]]
    rets = trace["returns"]
    pairs = [(rets[i], rets[j]) for i, x in enumerate(names) if x == a for j, y in enumerate(names) if y == b]
    if not pairs or a == b:
        return None
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in pairs) / len(pairs)
