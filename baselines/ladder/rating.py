"""The ratings: the Bradley-Terry fit of a ladder's members to its games
(:func:`fit`, their ratings frozen from then on), and the rating of any
agent on a ladder (:func:`rate`): its games against the members, in rounds
chosen by what they say about it, and the one parameter that fits them with
the members' ratings held fixed, with a bootstrap interval
(:mod:`boardenvs.baselines.ladder` describes both).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ..ratings import anchor_prior, bradley_terry, rating_of, resampled_sums
from .play import CHUNK, chunk_plan, one_torch_thread, play_chunk
from .store import check_ladder_doc, fingerprint, load_ladder

SAMPLES = 1000  # bootstrap resamples of an interval
ANCHOR = "random"
# half a win and half a loss added to every pairing's games, in the fits and in their resamples alike: a clean
# sweep then gives a finite distance (what the games rule out) and the fit stays inside its interval
SMOOTHING = 1.0


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
    resume: bool = False,
) -> dict:
    """Rate ``agent`` (an opponent name or path, as ``opponent=`` takes:
    ``"baseline:quess_v0"``, ``"model.pt"``, ``"search:200:quess_v0"``, an
    RLlib checkpoint or ``"module:attribute"`` with ``trust=True``) on
    ``env_id``'s ladder for ``players`` (default 2): see
    :mod:`boardenvs.baselines.ladder`.  ``games``: at most this many games; ``precision``: stop
    once the 95% interval's half-width is at most this (Elo); ``traces``: a
    ``.jsonl`` / ``.jsonl.gz`` path the games are written to, as they are
    played (``<traces>.partial`` until the end, :mod:`boardenvs.tracelog`);
    ``resume``: go on from the partial file of a run that stopped (killed,
    interrupted, its disk full), with its settings: its games are kept,
    only the rest played, and the traces and the rating are an unbroken
    run's.  A partial file that cannot be written (a full disk) is a
    ValueError naming it, the games written before kept.  Returns
    ``{"agent", "ladder", "version", "rating", "interval", "half_width",
    "games", "stopped", "by_member": {member: [games, score]}, "seconds",
    "beyond": None | "above" | "below", "seed", "traces"}``; ``beyond`` says
    the agent won (or lost) nearly everything against the ladder's end, so
    its rating is a bound."""
    return rate_and_play(agent, env_id, players, games, precision, seed, version, trust, traces, progress, resume)[0]


def rate_and_play(
    agent, env_id, players, games, precision, seed, version, trust, traces, progress, resume=False
) -> tuple[dict, list[dict]]:
    """:func:`rate`'s result and the games it played (their traces)."""
    if resume and traces is None:
        raise ValueError("resume goes on from the games a rating wrote: it needs their trace file")
    logs = []  # (the partial trace file, once open: closed whatever happens)
    try:
        result, played = _rate(
            agent, env_id, players, games, precision, seed, version, trust, traces, progress, logs, resume
        )
        if logs:
            logs[0].finish(played)
        return result, played
    finally:
        for log in logs:
            log.close()


def _rate(agent, env_id, players, games, precision, seed, version, trust, traces, progress, logs, resume=False):
    from boardenvs.opponents import load_opponent
    from boardenvs.registry import env_id_of
    from boardenvs.spec import is_int
    from boardenvs.traces import score

    from ..networks import model_name

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
    log = None
    if traces is not None:
        from boardenvs.tracelog import TraceLog, line_bytes

        log = TraceLog(traces, resume=resume)
        logs.append(log)
    tag = {"ladder": f"{name} v{version}"}
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
            n = min(CHUNK, games - len(played))
            kept = log.take(n) if log is not None else []
            if kept:  # a stopped run's games: they must be this round's
                lineups, seeds = chunk_plan(0, 1, P, seed, (j, count), n, both_ways=P > 2)
                names = [agent_name, member_names[m]]
                _check_kept(log.path, len(played), kept, env_id, tag, [[names[a] for a in x] for x in lineups], seeds)
            if len(kept) == n:
                new = kept
            else:
                with one_torch_thread():
                    new = play_chunk(
                        env_id,
                        options,
                        [who, member(m)],
                        [agent_name, member_names[m]],
                        0,
                        1,
                        P,
                        seed,
                        (j, count),
                        n,
                        ladder["opening"],
                        tag,
                        both_ways=P > 2,
                    )
                if kept and line_bytes(new[: len(kept)]) != line_bytes(kept):  # (as written: tuples are lists)
                    raise ValueError(
                        f"{log.path}: games {len(played) + 1}..{len(played) + len(kept)} are not the games this "
                        "rating plays there (another agent's, another version's): --resume goes on with the "
                        "stopped run's own settings"
                    )
                if log is not None:
                    log.add(new[len(kept) :])
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


def _check_kept(path, before: int, kept: list, env_id: str, tag: dict, agents: list, seeds: list) -> None:
    """ValueError naming ``path`` and the game unless the games a stopped
    rating kept (``kept``, from game ``before + 1`` on) are those this round
    plays: the game, the ladder, who sits where and the seeds."""
    for k, t in enumerate(kept):
        want = {"env_id": env_id, "ladder": tag["ladder"], "agents": agents[k], "seed": seeds[k]}
        got = {key: t.get(key) for key in want}
        if got != want:
            wrong = next(key for key in want if got[key] != want[key])
            raise ValueError(
                f"{path}: game {before + k + 1} is not the game this rating plays there (its {wrong} is "
                f"{got[wrong]!r}, not {want[wrong]!r}): --resume goes on with the stopped run's own settings"
            )


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

    check_ladder_doc(ladder, "rate_traces: the ladder")
    frozen = {m["name"]: m["elo"] for m in ladder["members"]}
    scores: dict = {}
    for t in traces:
        others = {a["name"] for a in t["agents"]} - {agent}
        if len(others) != 1 or next(iter(others)) not in frozen:
            raise ValueError(f"a game of {agent} against one ladder member, got {sorted(others)}")
        m = next(iter(others))
        scores.setdefault(m, []).append(score(t, agent, m))
    return {"rating": round(_agent_rating(frozen, scores), 1), "by_member": _by_member(scores)}


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
