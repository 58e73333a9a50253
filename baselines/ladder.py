"""Rate any agent against a fixed, versioned ladder of opponents.

    boardenvs rate baseline:quess_v0 --game quess_v0 --precision 50
    boardenvs rate my_model.pt --game hex_quoridor_v1 --players 4
    python -m boardenvs.baselines.ladder build quess_v0      # (maintainers) a ladder's games and ratings
    python -m boardenvs.baselines.ladder record quess_v0 baseline:quess_v0   # a rating kept on the leaderboard
    python -m boardenvs.baselines.ladder check               # replay every committed game, refit every rating

A **ladder** is a list of opponents for one game and player count
(``quess_v0``, ``tryasina_v0_4p``: the names of the committed models):
``random``, ``greedy``, ``mcts`` (100 simulations a move), the committed
model (``baseline:<name>``) and, in two-player games, its guided search
(``search:100:<name>``).  Its members played a seeded round-robin; every
game is a committed **match trace** (``ladders/<name>/v<k>.jsonl.gz``, one
JSON line per game, :mod:`boardenvs.traces`: replayable by ``boardenvs
replay``, checked on read), and the members' Bradley-Terry ratings, fitted
to those games with ``random`` = 0 and frozen, are in
``ladders/<name>/v<k>.json`` with 95% intervals (a bootstrap over each
pairing's games; each pairing counts half a win and half a loss more, in the
fit and its resamples alike).  A ladder never changes: a new opponent, a retrained
model or a rules change (a new env id version) makes a new version, and a
rating names the version it is on (``quess_v0 ladder v1``).

**Rating an agent** (:func:`rate`): the agent plays the members, in every
seat in turn (its seat rotates game by game; games that share a seed share
their opening and differ by the agent's seat; with more than two players,
half the games put the agent in one seat and the member in the others, half
the member in one seat and the agent in the others, as the ladder's own
games were played), in rounds of
:data:`CHUNK` games against one member: first every member, then the two
members whose games say the most about it (expected score nearest 1/2 at
its current rating).  Its rating is the one Bradley-Terry parameter that
fits its games with the ladder's ratings held fixed (a maximum-likelihood
fit with a prior of one draw against ``random``, as the round-robin's, and
half a win and half a loss added to its games against each member, so that
a clean sweep gives a finite rating), and its 95% interval the middle 95%
of the same fit over 1,000 resamples of its games (each pairing's scores
redrawn with replacement from them and that half win and half loss).  It
stops when the interval's half-width is at most ``precision`` Elo, or after
``games`` games.  A score between two seats is 1 for the higher return, 1/2
for a tie (in a game of more players, the agent's seat is compared with
each of the member's seats and the comparisons averaged: 1/2 on average
between equals).  Where the options leave the first player to chance, seat
0 moves first and the seats rotate instead; in games without chance nodes
the first :func:`opening` decisions are seeded random moves, so that two
deterministic agents play different games.

Everything is seeded: the same agent, seed and ladder play the same games.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

from .ratings import anchor_prior, bradley_terry, rating_of, resampled_sums

HERE = Path(__file__).resolve().parent
LADDERS = HERE / "ladders"
MODELS = (
    HERE / "models"
)  # (the package's MODELS: this module imports nothing of the package's __init__, which imports it)
CHUNK = 16  # games per round against one member (a multiple of every player count's seats: 2 and 4)
SAMPLES = 1000  # bootstrap resamples of an interval
ANCHOR = "random"
# half a win and half a loss added to every pairing's games, in the fits and in their resamples alike: a clean
# sweep then gives a finite distance (what the games rule out) and the fit stays inside its interval
SMOOTHING = 1.0
MODEL_PREFIXES = ("baseline:", "search:", "search-greedy:")  # opponent names whose last part names a committed model


def opening(env_id: str) -> int:
    """Seeded random decisions that open every ladder game: 4 in a game
    without chance nodes (deterministic agents would otherwise replay one
    game per seat), 0 where dice vary the games."""
    from boardenvs.registry import make_game

    return 0 if make_game(env_id).num_chance_outcomes else 4


def default_members(name: str) -> list[str]:
    """Ladder v1's members for the committed model ``name`` (weakest first,
    roughly): random, greedy, mcts (100 simulations), the model and, with
    two players, its guided search of 100 simulations."""
    members = ["random", "greedy", "mcts", f"baseline:{name}"]
    if model_config(name)["options"].get("num_players", 2) == 2:
        members.append(f"search:100:{name}")
    return members


def model_config(name: str) -> dict:
    """A committed model's config (its game and options); ValueError if there is none."""
    path = MODELS / f"{name}.json"
    if not path.is_file():
        have = sorted(p.stem for p in MODELS.glob("*.json"))
        raise ValueError(f"no committed model {name!r}; committed: {', '.join(have)}")
    return json.loads(path.read_text())


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fingerprint(spec: str) -> str | None:
    """The SHA-256 of the files an agent spec loads (a committed model's
    ``.pt``, a saved model, every file of a checkpoint folder in name
    order; a ``module:attribute`` already imported: its module's file);
    None for an agent made of the package's code alone (``random``,
    ``greedy``, ``mcts:<n>``)."""
    head, colon, _ = spec.partition(":")
    module = sys.modules.get(head) if colon and not spec.startswith((*MODEL_PREFIXES, "mcts:")) else None
    if module is not None and isinstance(getattr(module, "__file__", None), str) and Path(module.__file__).is_file():
        return sha256_of(Path(module.__file__))  # (never imported here: the opponent's loader did, with trust)
    model = spec.rpartition(":")[2] if spec.startswith(MODEL_PREFIXES) else spec
    if model and (MODELS / f"{model}.pt").is_file() and (MODELS / f"{model}.json").is_file():
        return sha256_of(MODELS / f"{model}.pt")
    path = Path(model)
    try:
        if path.is_file():
            return sha256_of(path)
        for suffix in (".pt", ".zip"):
            if path.with_name(path.name + suffix).is_file():
                return sha256_of(path.with_name(path.name + suffix))
        if path.is_dir():
            h = hashlib.sha256()
            for f in sorted(p for p in path.rglob("*") if p.is_file()):
                h.update(str(f.relative_to(path)).encode() + b"\0" + sha256_of(f).encode())
            return h.hexdigest()
    except (OSError, ValueError):
        return None
    return None


def ladder_path(name: str, version: int | None = None) -> Path:
    """``ladders/<name>/v<version>.json`` (the newest version by default)."""
    if version is None:
        versions = ladder_versions(name)
        if not versions:
            raise ValueError(f"no ladder {name!r}; ladders: {', '.join(ladder_names()) or '(none)'}")
        version = versions[-1]
    return LADDERS / name / f"v{version}.json"


def ladder_names() -> list[str]:
    """The games (model names) that have a committed ladder."""
    return (
        sorted(p.name for p in LADDERS.iterdir() if p.is_dir() and any(p.glob("v*.json"))) if LADDERS.is_dir() else []
    )


def ladder_versions(name: str) -> list[int]:
    folder = LADDERS / name
    found = [p.stem[1:] for p in folder.glob("v*.json")] if folder.is_dir() else []
    return sorted(int(v) for v in found if v.isdecimal())


def load_ladder(name: str, version: int | None = None) -> dict:
    """A committed ladder (its JSON: members with their frozen ratings,
    options, opening, seed, version); ValueError naming the ladders there
    are if there is none."""
    if name not in ladder_names():
        raise ValueError(f"no ladder for {name!r}; ladders: {', '.join(ladder_names()) or '(none)'}")
    path = ladder_path(name, version)
    if not path.is_file():
        raise ValueError(f"no version {version} of the {name} ladder; versions: {ladder_versions(name)}")
    return json.loads(path.read_text())


def traces_path(name: str, version: int) -> Path:
    return LADDERS / name / f"v{version}.jsonl.gz"


def _seeds(*keys: int, n: int) -> list[int]:
    """``n`` seeds (uint32) from the keys."""
    return [int(x) for x in np.random.SeedSequence(list(keys)).generate_state(n)]


def _chunk(
    env_id,
    options,
    agents,
    names,
    one: int,
    other: int,
    players: int,
    seed: int,
    keys: tuple,
    n: int,
    open_k: int,
    extra: dict,
    both_ways: bool = False,
) -> list[dict]:
    """``n`` games of agent ``one`` (one seat, rotating) against ``other``
    (every other seat); games ``P*j .. P*j+P-1`` share a seed (and so their
    opening and dice).  ``both_ways`` (more than two players): the second
    half of the games the other way round, ``other`` in one seat and
    ``one`` in the rest, on the first half's seeds."""
    from boardenvs.traces import play_matches

    half = n - n // 2 if both_ways else n
    seeds = _seeds(seed, *keys, n=(half + players - 1) // players)
    lineups = [tuple(one if s == k % players else other for s in range(players)) for k in range(half)]
    lineups += [tuple(other if s == k % players else one for s in range(players)) for k in range(n - half)]
    rng = np.random.default_rng(np.random.SeedSequence([seed, *keys, 1]))
    return play_matches(
        env_id,
        options,
        lineups,
        [seeds[(k % half) // players] for k in range(n)],
        agents,
        rng,
        names=names,
        extra=extra,
        opening=open_k,
    )


def fit(members: list[str], traces: list[dict], anchor: str = ANCHOR, samples: int = SAMPLES, seed: int = 0) -> dict:
    """The ladder's ratings from its games: Bradley-Terry (every game one
    score, :func:`boardenvs.traces.score`), ``anchor`` = 0, a prior of one
    draw against it; the 95% intervals from ``samples`` resamples of each
    pairing's games.  ``{"elo": {member: r}, "interval": {member: [lo, hi]},
    "games": {member: n}, "pairs": {"a|b": [games, a's score]}}``.  Every
    pairing's games count half a win and half a loss more (:data:`SMOOTHING`),
    in the fit as in its resamples."""
    from boardenvs.traces import score

    idx = {m: i for i, m in enumerate(members)}
    cells: dict = {}
    for t in traces:
        present = sorted({a["name"] for a in t["agents"]}, key=idx.__getitem__)
        if len(present) != 2:
            raise ValueError(f"a ladder game is between two members, got {present}")
        a, b = present
        cells.setdefault((a, b), []).append(score(t, a, b))
    k = idx[anchor]
    prior = anchor_prior(len(members), k)
    wins = prior.copy()
    for (a, b), s in cells.items():  # each pairing's score with half a win and half a loss added (SMOOTHING)
        wins[idx[a], idx[b]] += sum(s) + SMOOTHING / 2
        wins[idx[b], idx[a]] += len(s) - sum(s) + SMOOTHING / 2
    point = bradley_terry(wins[None], k)[0]
    rng = np.random.default_rng(seed)
    stack = np.repeat(prior[None], samples, axis=0)
    for (a, b), s in cells.items():
        sums = resampled_sums(np.array(s), samples, rng)
        stack[:, idx[a], idx[b]] += sums
        stack[:, idx[b], idx[a]] += len(s) - sums
    boot = bradley_terry(stack, k)
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    games = dict.fromkeys(members, 0)
    for (a, b), s in cells.items():
        games[a] += len(s)
        games[b] += len(s)
    return {
        "elo": {m: round(float(point[i]), 1) for i, m in enumerate(members)},
        "interval": {m: [round(float(low[i]), 1), round(float(high[i]), 1)] for i, m in enumerate(members)},
        "games": games,
        "pairs": {f"{a}|{b}": [len(s), round(float(sum(s)), 2)] for (a, b), s in sorted(cells.items())},
    }


def rate(
    agent,
    env_id: str,
    players: int | None = None,
    games: int = 1000,
    precision: float | None = None,
    seed: int = 0,
    version: int | None = None,
    trust: bool = False,
    traces=None,
    progress=None,
) -> dict:
    """Rate ``agent`` (an opponent name or path, as ``opponent=`` takes:
    ``"baseline:quess_v0"``, ``"model.pt"``, ``"search:200:quess_v0"``, an
    RLlib checkpoint or ``"module:attribute"`` with ``trust=True``) on
    ``env_id``'s ladder for ``players`` (default 2): see the module
    docstring.  ``games``: at most this many games; ``precision``: stop
    once the 95% interval's half-width is at most this (Elo); ``traces``: a
    ``.jsonl`` / ``.jsonl.gz`` path the games are written to.  Returns
    ``{"agent", "ladder", "version", "rating", "interval", "half_width",
    "games", "stopped", "by_member": {member: [games, score]}, "seconds",
    "beyond": None | "above" | "below", "seed", "traces"}``; ``beyond`` says
    the agent won (or lost) nearly everything against the ladder's end, so
    its rating is a bound."""
    return _rate(agent, env_id, players, games, precision, seed, version, trust, traces, progress)[0]


def _rate(agent, env_id, players, games, precision, seed, version, trust, traces, progress) -> tuple[dict, list[dict]]:
    """:func:`rate`'s result and the games it played (their traces)."""
    from boardenvs.opponents import load_opponent
    from boardenvs.registry import env_id_of
    from boardenvs.spec import is_int
    from boardenvs.traces import score

    from .networks import model_name

    if not is_int(games) or games < CHUNK:
        raise ValueError(f"games must be an int of at least {CHUNK} (one round), got {games!r}")
    if precision is not None and (
        isinstance(precision, bool) or not isinstance(precision, (int, float)) or not precision > 0
    ):
        raise ValueError(f"precision must be a positive number of Elo, got {precision!r}")
    if not is_int(seed) or not 0 <= seed < 2**32:
        raise ValueError(f"seed must be an int in 0..2**32-1, got {seed!r}")
    if version is not None and (not is_int(version) or version < 1):
        raise ValueError(f"version must be a ladder version (1, 2, ...), got {version!r}")
    if not isinstance(agent, str) or not agent:
        raise ValueError(f"agent must be an opponent name or path (a non-empty str), got {agent!r}")
    if traces is not None:
        from boardenvs.files import output_path

        name = str(traces)
        if not name.endswith((".jsonl", ".jsonl.gz")):
            raise ValueError(f"traces {name!r}: the file name must end in .jsonl or .jsonl.gz")
        output_path(traces, "trace file")
    env_id = env_id_of(env_id)
    name = model_name(env_id, players)
    ladder = load_ladder(name, version)
    version = ladder["version"]
    who = load_opponent(agent, env_id, trust=trust)
    options, P = ladder["make_options"], ladder["players"]  # (the games' options: the first player resolved)
    members = [m["name"] for m in ladder["members"] if m["name"] != agent]  # (a member rated again plays the others)
    frozen = {m["name"]: m["elo"] for m in ladder["members"]}
    built = {}
    from boardenvs.opponents import make_opponent

    def member(m):
        if m not in built:
            built[m] = make_opponent(m)
        return built[m]

    agent_name = {"name": agent, "sha256": fingerprint(agent)}
    member_names = {m: {"name": m, "sha256": fingerprint(m)} for m in members}
    scores = {m: [] for m in members}
    played: list[dict] = []
    bar = progress if progress is not None else _Progress(games, sys.stderr)
    t0 = time.perf_counter()
    rounds = 0
    stopped = "games"
    half = float("inf")
    estimate, low, high = 0.0, 0.0, 0.0
    rng = np.random.default_rng(np.random.SeedSequence([seed, 7]))
    while len(played) < games:
        if rounds == 0:
            todo = members
        else:
            p = {m: 1 / (1 + 10 ** ((frozen[m] - estimate) / 400)) for m in members}
            todo = sorted(members, key=lambda m: (-p[m] * (1 - p[m]), members.index(m)))[:2]
        for m in todo:
            if len(played) >= games:
                break
            j = members.index(m)
            count = len(scores[m]) // CHUNK
            with _one_torch_thread():
                new = _chunk(
                    env_id,
                    options,
                    [who, member(m)],
                    [agent_name, member_names[m]],
                    0,
                    1,
                    P,
                    seed,
                    (j, count),
                    min(CHUNK, games - len(played)),
                    ladder["opening"],
                    {"ladder": f"{name} v{version}"},
                    both_ways=P > 2,
                )
            scores[m] += [score(t, agent, m) for t in new]
            played += new
        rounds += 1
        estimate = _agent_rating(frozen, scores)
        opp = np.array([frozen[m] for m in members if scores[m]])
        counts = np.array([len(scores[m]) for m in members if scores[m]], float)
        boot = np.stack([resampled_sums(np.array(scores[m]), SAMPLES, rng) for m in members if scores[m]], axis=1)
        low, high = (float(x) for x in np.percentile(rating_of(opp, boot, counts), [2.5, 97.5]))
        half = (high - low) / 2
        bar.update(len(played), estimate, low, high)
        if precision is not None and rounds > 0 and half <= precision and all(scores[m] for m in members):
            stopped = "precision"
            break
    bar.close()
    seconds = time.perf_counter() - t0
    top = max(members, key=frozen.__getitem__)
    bottom = min(members, key=frozen.__getitem__)
    beyond = None
    if scores[top] and sum(scores[top]) >= 0.95 * len(scores[top]):
        beyond = "above"
    elif scores[bottom] and sum(scores[bottom]) <= 0.05 * len(scores[bottom]):
        beyond = "below"
    if traces is not None:
        from boardenvs.traces import write_traces

        write_traces(played, traces)
    result = {
        "agent": agent,
        "env_id": env_id,
        "ladder": name,
        "version": version,
        "rating": round(estimate, 1),
        "interval": [round(low, 1), round(high, 1)],
        "half_width": round(half, 1),
        "games": len(played),
        "stopped": stopped,
        "precision": precision,
        "by_member": _by_member(scores),
        "beyond": beyond,
        "seed": seed,
        "seconds": round(seconds, 1),
        "traces": None if traces is None else str(traces),
    }
    return result, played


def _agent_rating(frozen: dict, scores: dict) -> float:
    """The rating of an agent with per-game ``scores[member]`` against
    members rated ``frozen`` (each pairing with :data:`SMOOTHING`'s half win
    and half loss, the prior's draw against 0)."""
    played = [m for m, s in scores.items() if s]
    return float(
        rating_of(
            np.array([frozen[m] for m in played]),
            np.array([sum(scores[m]) for m in played]) + SMOOTHING / 2,
            np.array([len(scores[m]) for m in played], float) + SMOOTHING,
        )[0]
    )


def _by_member(scores: dict) -> dict:
    """``{member: [games, score]}`` of the members played."""
    return {m: [len(s), round(float(sum(s)), 2)] for m, s in scores.items() if s}


def rate_traces(traces: list[dict], ladder: dict, agent: str) -> dict:
    """The rating :func:`rate` gives ``agent`` from games already played
    (its traces against ``ladder``'s members): ``{"rating", "by_member"}``."""
    from boardenvs.traces import score

    frozen = {m["name"]: m["elo"] for m in ladder["members"]}
    scores: dict = {}
    for t in traces:
        others = {a["name"] for a in t["agents"]} - {agent}
        if len(others) != 1 or next(iter(others)) not in frozen:
            raise ValueError(f"a game of {agent} against one ladder member, got {sorted(others)}")
        m = next(iter(others))
        scores.setdefault(m, []).append(score(t, agent, m))
    return {"rating": round(_agent_rating(frozen, scores), 1), "by_member": _by_member(scores)}


class _one_torch_thread:
    """Torch on one thread while games are played (and as it was after): the
    models' batches are small, and torch's second thread spinning against
    numba's (and another process's) on a 2-core machine made a ladder's
    pairing ten times slower.  Nothing if torch is not imported."""

    def __enter__(self):
        torch = sys.modules.get("torch")
        self.saved = torch.get_num_threads() if torch is not None else None
        if torch is not None:
            torch.set_num_threads(1)
        return self

    def __exit__(self, *exc) -> None:
        torch = sys.modules.get("torch")
        if torch is not None and self.saved is not None:
            torch.set_num_threads(self.saved)


class _Progress:
    """A progress bar on ``stream``: redrawn in place on a terminal, a line
    per round otherwise."""

    def __init__(self, total: int, stream):
        self.total, self.stream = total, stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def update(self, done: int, rating: float, low: float, high: float) -> None:
        width = 30
        filled = int(width * min(done, self.total) / self.total)
        text = (
            f"[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} games  "
            f"rating {rating:+.0f} [{low:+.0f}, {high:+.0f}] ±{(high - low) / 2:.0f}"
        )
        self.stream.write(("\r" + text) if self.tty else text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


class _Quiet:
    def update(self, *args) -> None:
        pass

    def close(self) -> None:
        pass


QUIET = _Quiet()


def build(
    name: str, members: list[str] | None = None, games: int = 64, seed: int = 0, version: int = 1, verbose: bool = True
) -> dict:
    """Play ladder ``version`` of the committed model ``name``: every pair of
    ``members`` (default :func:`default_members`) ``games`` games (two
    players: half in each seat; more: each of the pair in one seat against
    the other in the rest, ``games / 2`` each way, the seat rotating), write
    the traces and the ratings fitted to them.  Refuses to overwrite an
    existing version (a ladder never changes)."""
    from boardenvs.registry import make_game
    from boardenvs.traces import write_traces

    config = model_config(name)
    env_id = config["env_id"]
    game = make_game(env_id, **config["options"])
    P = game.num_players
    if games % (2 * P):
        raise ValueError(f"games must be a multiple of {2 * P} (every seat, both ways), got {games}")
    out = ladder_path(name, version)
    if out.exists():
        raise ValueError(f"{out} exists: a ladder never changes; build version {version + 1} instead")
    members = members or default_members(name)
    from boardenvs.opponents import make_opponent

    agents = [make_opponent(m) for m in members]
    names = [{"name": m, "sha256": fingerprint(m)} for m in members]
    options = dict(config["options"])
    open_k = opening(env_id)
    traces, seconds = [], {}
    for i in range(len(members)):
        for j in range(i + 1, len(members)):
            t0 = time.perf_counter()
            ways = [(i, j, games)] if P == 2 else [(i, j, games // 2), (j, i, games // 2)]
            new = []
            for one, other, n in ways:
                for c in range(0, n, CHUNK):
                    with _one_torch_thread():
                        new += _chunk(
                            env_id,
                            options,
                            agents,
                            names,
                            one,
                            other,
                            P,
                            seed,
                            (one, other, c // CHUNK),
                            min(CHUNK, n - c),
                            open_k,
                            {"ladder": f"{name} v{version}"},
                        )
            seconds[f"{members[i]}|{members[j]}"] = round(time.perf_counter() - t0, 1)
            traces += new
            if verbose:
                from boardenvs.traces import score

                s = sum(score(t, members[i], members[j]) for t in new)
                print(
                    f"[{name}] {members[i]} vs {members[j]}: {s:.1f} of {len(new)} "
                    f"({seconds[f'{members[i]}|{members[j]}']} s)",
                    flush=True,
                )
    rated = fit(members, traces, seed=seed)
    doc = {
        "ladder": name,
        "version": version,
        "env_id": env_id,
        "options": traces[0]["options"],
        "make_options": options,
        "players": P,
        "opening": open_k,
        "games_per_pair": games,
        "seed": seed,
        "chunk": CHUNK,
        "anchor": ANCHOR,
        "members": [
            {
                "name": m,
                "sha256": names[k]["sha256"],
                "elo": rated["elo"][m],
                "interval": rated["interval"][m],
                "games": rated["games"][m],
            }
            for k, m in enumerate(members)
        ],
        "pairs": rated["pairs"],
        "seconds": seconds,
        "samples": SAMPLES,
        "package": traces[0]["package"],
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "command": f"python -m boardenvs.baselines.ladder build {name}"
        + (f" --version {version}" if version != 1 else ""),
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    write_traces(traces, traces_path(name, version))
    out.write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def check_ladder(name: str, version: int | None = None) -> dict:
    """Replay and check every committed game of a ladder
    (:func:`boardenvs.traces.read_traces`) and refit its ratings from them;
    ValueError if a game does not replay to its result, a member's file
    changed since (a new version is due), or the frozen ratings are not
    what the games give.  Returns the refit."""
    from boardenvs.traces import read_traces

    ladder = load_ladder(name, version)
    traces = read_traces(traces_path(name, ladder["version"]))
    members = [m["name"] for m in ladder["members"]]
    for m in ladder["members"]:
        now = fingerprint(m["name"])
        if now != m["sha256"]:
            raise ValueError(
                f"ladder {name} v{ladder['version']}: {m['name']}'s file changed since the ladder was built "
                f"({m['sha256']} then, {now} now): build a new version"
            )
    for t in traces:
        if (
            t.get("ladder") != f"{name} v{ladder['version']}"
            or t["env_id"] != ladder["env_id"]
            or t["options"] != ladder["options"]
        ):
            raise ValueError(
                f"ladder {name} v{ladder['version']}: a trace of another ladder or game ({t.get('ladder')}, "
                f"{t['env_id']})"
            )
        for a in t["agents"]:
            if a["name"] not in members or a["sha256"] != ladder["members"][members.index(a["name"])]["sha256"]:
                raise ValueError(f"ladder {name}: a trace's agent {a} is not one of the ladder's members")
    refit = fit(members, traces, seed=ladder["seed"])
    for m in ladder["members"]:
        if refit["elo"][m["name"]] != m["elo"] or refit["interval"][m["name"]] != m["interval"]:
            raise ValueError(
                f"ladder {name} v{ladder['version']}: {m['name']} is rated {m['elo']} {m['interval']}, "
                f"its games give {refit['elo'][m['name']]} {refit['interval'][m['name']]}"
            )
    return refit


def rated_path(name: str, version: int) -> Path:
    """``ladders/<name>/v<version>.rated.json``: agents rated on the ladder
    (:func:`record`), with their games in ``v<version>.rated.jsonl.gz``."""
    return LADDERS / name / f"v{version}.rated.json"


def rated_traces_path(name: str, version: int) -> Path:
    """``ladders/<name>/v<version>.rated.jsonl.gz``: the games of the agents rated on the ladder."""
    return LADDERS / name / f"v{version}.rated.jsonl.gz"


def record(name: str, agent: str, precision: float = 50, games: int = 1000, seed: int = 0, progress=None) -> dict:
    """Rate ``agent`` on the newest ladder of ``name`` and keep the result on
    the leaderboard (:func:`rated_path`; the games appended to its traces,
    replacing that agent's earlier ones)."""
    from boardenvs.traces import read_traces, write_traces

    doc = load_ladder(name)
    env_id, version = doc["env_id"], doc["version"]
    games_path = rated_traces_path(name, version)
    result, new = _rate(agent, env_id, doc["players"], games, precision, seed, version, False, None, progress)
    old = read_traces(games_path) if games_path.is_file() else []
    kept = [t for t in old if agent not in {a["name"] for a in t["agents"]}]
    write_traces(kept + new, games_path)
    path = rated_path(name, version)
    entries = json.loads(path.read_text()) if path.is_file() else {}
    result = {
        **result,
        "traces": games_path.name,
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
        "load": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "command": f"python -m boardenvs.baselines.ladder record {name} {agent} --precision {precision:g} "
        f"--seed {seed}",
    }
    entries[agent] = result
    path.write_text(json.dumps(entries, indent=1) + "\n")
    return result


def check_rated(name: str, version: int | None = None) -> dict:
    """The agents rated on a ladder (:func:`record`): each one's games
    replayed and checked, and its rating refitted from them; ValueError if
    one is not what its games give.  Returns ``{agent: refitted rating}``."""
    from boardenvs.traces import read_traces

    doc = load_ladder(name, version)
    path = rated_path(name, doc["version"])
    if not path.is_file():
        return {}
    entries = json.loads(path.read_text())
    traces = read_traces(rated_traces_path(name, doc["version"]))
    out = {}
    for agent, entry in entries.items():
        mine = [t for t in traces if agent in {a["name"] for a in t["agents"]}]
        if len(mine) != entry["games"]:
            raise ValueError(
                f"{name} v{doc['version']}: {agent} is recorded with {entry['games']} games, its traces "
                f"hold {len(mine)}"
            )
        refit = rate_traces(mine, doc, agent)
        if abs(refit["rating"] - entry["rating"]) > 0.11 or refit["by_member"] != entry["by_member"]:
            raise ValueError(
                f"{name} v{doc['version']}: {agent} is recorded at {entry['rating']}, its games give {refit['rating']}"
            )
        out[agent] = refit["rating"]
    return out


def _sweeps(ladder: dict, member: str) -> str:
    """The members ``member`` lost every game to (``< x``) or won every game
    against (``> x``): where the ladder's games separate two members
    completely, the distance between them comes from the prior and the
    others' games, a bound more than a measurement."""
    out = []
    for pair, (n, score) in ladder["pairs"].items():
        a, b = pair.split("|")
        if member in (a, b) and score in (0, n):
            other = b if member == a else a
            won = (score == n) == (member == a)
            out.append(f"{'>' if won else '<'} `{other}`")
    return ", ".join(out) or "-"


def markdown() -> str:
    """The leaderboard page's tables, from the committed ladders."""
    lines = []
    for name in ladder_names():
        for v in ladder_versions(name):
            ladder = load_ladder(name, v)
            lines.append(f"\n## {name} (ladder v{v})\n")
            opts = ", ".join(f"{k}={val}" for k, val in ladder["options"].items())
            opened = f", the first {ladder['opening']} decisions seeded random" if ladder["opening"] else ""
            lines.append(
                f"`{ladder['env_id']}` ({opts}); {ladder['players']} players; {ladder['games_per_pair']} games "
                f"per pairing{opened}; "
                f"built with boardenvs {ladder['package']} on {ladder['date']}.\n"
            )
            lines.append("| rank | member | Elo [95% interval] | games | swept by / swept |\n|---|---|---|---|---|")
            ranked = sorted(ladder["members"], key=lambda m: -m["elo"])
            for k, m in enumerate(ranked):
                lo, hi = m["interval"]
                shown = "0 (anchor)" if m["name"] == ladder["anchor"] else f"{m['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}]"
                lines.append(f"| {k + 1} | `{m['name']}` | {shown} | {m['games']:,} | {_sweeps(ladder, m['name'])} |")
            path = rated_path(name, v)
            if path.is_file():
                entries = json.loads(path.read_text())
                lines.append(
                    f"\nRated on this ladder with `boardenvs rate` (a member is rated against the others; "
                    f"games in `{name}/v{v}.rated.jsonl.gz`):\n"
                )
                lines.append(
                    "| agent | Elo [95% interval] | games | stopped | seconds | seed |\n|---|---|---|---|---|---|"
                )
                for agent, e in sorted(entries.items(), key=lambda kv: -kv[1]["rating"]):
                    lo, hi = e["interval"]
                    why = f"±{e['precision']:g} reached" if e["stopped"] == "precision" else "games cap"
                    lines.append(
                        f"| `{agent}` | {e['rating']:+.0f} [{lo:+.0f}, {hi:+.0f}] | {e['games']:,} | {why} | "
                        f"{e['seconds']:.0f} | {e['seed']} |"
                    )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    from boardenvs.helptext import help_text

    ap = argparse.ArgumentParser(prog="python -m boardenvs.baselines.ladder", description=help_text(__doc__))
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="play a new ladder version's games and fit its ratings (maintainers)")
    b.add_argument("name", help="a committed model's name (quess_v0, tryasina_v0_4p, ...)")
    b.add_argument("--games", type=int, default=64, help="games per pairing (default 64)")
    b.add_argument("--version", type=int, default=1)
    b.add_argument("--seed", type=int, default=0)
    c = sub.add_parser("check", help="replay every committed ladder game and refit the ratings")
    c.add_argument("name", nargs="?", default=None)
    r = sub.add_parser("record", help="rate an agent on a ladder and keep it on the leaderboard (maintainers)")
    r.add_argument("name")
    r.add_argument("agent")
    r.add_argument("--precision", type=float, default=50)
    r.add_argument("--games", type=int, default=1000)
    r.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    try:
        if args.command == "build":
            print(
                json.dumps(
                    build(args.name, games=args.games, seed=args.seed, version=args.version)["members"], indent=1
                )
            )
        elif args.command == "record":
            result = record(args.name, args.agent, precision=args.precision, games=args.games, seed=args.seed)
            print(json.dumps(result, indent=1))
        else:
            for name in [args.name] if args.name else ladder_names():
                check_ladder(name)
                check_rated(name)
                print(f"{name}: every game replays to its result; the ratings are the games'")
    except ValueError as exc:
        ap.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
