"""Environment step throughput, measured side by side in one run.

Run with ``make bench`` (or ``python benchmarks/bench.py``).  Prints a markdown
table, writes it to ``benchmarks/results.md`` and, with ``--update-readme``,
into the README between the ``bench:begin``/``bench:end`` markers.

Every row is the median of ``--repeats`` timed runs; the ratio column divides
by an anchor measured in the same run (this machine is shared and noisy:
compare ratios, not absolute numbers across runs).

* AEC rows use PettingZoo's own loop (``agent_iter``/``last``/``step``) with a
  uniformly random legal action from the mask: observation and mask every
  step, dead steps counted as steps, as PettingZoo's benchmarks do.
* make_vec rows step ``boardenvs.make_vec(env_id, num_envs=N)``: a random
  legal action per env drawn in the kernel, then observation, mask and
  in-kernel auto-reset for every env every step.  The CPU column is
  CPU-seconds per wall-second (threads count: 2.0 = both cores busy).
* OpenSpiel rows (when ``open_spiel`` is installed, ``pip install
  'boardenvs[bench]'``): the C++ game through pyspiel, with the legal-action
  list and the observation tensor every step, as design.md's anchors were taken.
  ``amazons`` is Quagmire's nearest published relative (move, then block a
  cell, on a shrinking board); OpenSpiel splits its move into three decisions.
  It is Quicksand's anchor too (its turns are chains of decisions, so its
  steps/s rows count decisions, like OpenSpiel's amazons).
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

import boardenvs
from boardenvs._threads import parallel_from

ROOT = Path(__file__).resolve().parent.parent


class NoopEnv(AECEnv):
    """The API's own ceiling: two agents (or ``num_agents``), a constant
    observation and mask, games of a fixed length, no rules at all; same
    wrapper stack as ours."""

    metadata = {"render_modes": [], "name": "noop_v0", "is_parallelizable": False}

    def __init__(self, num_actions=1296, length=120, obs_shape=(6, 6, 8), num_agents=2):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_agents)]
        self.length = length
        self._obs = {"observation": np.zeros(obs_shape, np.int8), "action_mask": np.ones(num_actions, np.int8)}
        box = spaces.Dict(
            {"observation": spaces.Box(0, 1, obs_shape, np.int8), "action_mask": spaces.Box(0, 1, (num_actions,), np.int8)}
        )
        self.observation_spaces = {a: box for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self.t = 0

    def observe(self, agent):
        return {"observation": self._obs["observation"].copy(), "action_mask": self._obs["action_mask"].copy()}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.t += 1
        self._cumulative_rewards[agent] = 0
        if self.t >= self.length:
            for a in self.agents:
                self.terminations[a] = True
            self.rewards = {a: 1.0 if a == "player_0" else -1.0 for a in self.agents}
        self.agent_selection = self.agents[self.t % len(self.agents)]
        self._accumulate_rewards()


def aec_steps_per_second(make_env, seconds: float, seed: int = 0) -> float:
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    game = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=seed + game)
        game += 1
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - t0)


def vec_steps_per_second(env_id: str, n: int, seconds: float, **options) -> tuple[float, float]:
    """make_vec steps/s and CPU-seconds per wall-second (after a warm-up step
    that compiles the drivers)."""
    return steady_vec_rates(env_id, n, seconds, repeats=1, warmup=1, **options)[0]


# games whose shape changes with the options: their AEC and make_vec rows run
# each of these option sets (the other games run their defaults)
BENCH_VARIANTS = {"hex_quoridor_v0": ({"num_players": 2}, {"num_players": 4}, {"num_players": 6})}
# make_vec rows that time a batch spread over every phase of a game: a batch
# fresh from reset is all openings (for Hex Quoridor the fence-placing phase,
# the slowest: every fence needs the path check), which training only sees
# for a moment; these rows first play this many steps
STEADY_WARMUP = {"hex_quoridor_v0": 300}


def variant_label(options: dict) -> str:
    return "".join(f", {k}={v}" for k, v in options.items())


def steady_vec_rates(env_id: str, n: int, seconds: float, repeats: int, warmup: int, **options) -> list:
    """make_vec (steps/s, CPU-s per wall-s) runs on one batch after ``warmup`` steps."""
    vec = boardenvs.make_vec(env_id, num_envs=n, **options)
    vec.reset(seed=12345)
    for _ in range(warmup):
        vec.step(vec.random_actions())
    runs = []
    for _ in range(repeats):
        iters = 0
        c0, t0 = time.process_time(), time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            for _ in range(10):
                vec.step(vec.random_actions())
            iters += 10
        wall = time.perf_counter() - t0
        runs.append((iters * n / wall, (time.process_time() - c0) / wall))
    return runs


def openspiel_steps_per_second(name: str, seconds: float, seed: int = 0) -> float:
    """Decisions/s of an OpenSpiel game through pyspiel, the legal-action
    list and the observation tensor every step.  Chance outcomes (backgammon)
    are sampled by their probabilities and not counted, as make_vec resolves
    them inside a step."""
    import pyspiel

    game = pyspiel.load_game(name)
    has_chance = game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
    rng = np.random.default_rng(seed)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if has_chance and state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
                continue
            legal = state.legal_actions()
            state.observation_tensor()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - t0)


def tryasina_section(median, seconds: float, repeats: int) -> list[str]:
    """Tryasina (issue 12): AEC and make_vec (dice rolled inside the kernels)
    for 2 and 4 players next to a no-op AEC env with Tryasina's spaces and
    OpenSpiel backgammon (decisions only, chance sampled outside the count).
    Targets: AEC >= 0.8x the no-op; make_vec N = 4096 >= 20x backgammon."""
    try:
        backgammon = median(lambda: openspiel_steps_per_second("backgammon", seconds))
    except Exception as exc:  # pragma: no cover - optional anchor
        backgammon = None
        print(f"(OpenSpiel backgammon skipped: {exc}; pip install 'boardenvs[bench]')", file=sys.stderr)
    rows = []  # (system, API, steps/s, CPU-s per wall-s, no-op of the same spaces)
    for n in (2, 4):
        game = boardenvs.make_game("tryasina_v0", num_players=n)
        noop = median(lambda: aec_steps_per_second(
            lambda: wrappers.OrderEnforcingWrapper(NoopEnv(game.num_actions, 120, game.obs_shape, n)), seconds))  # fmt: skip
        rows.append((f"no-op AEC env, Tryasina's spaces, {n} agents", "AEC", noop, None, noop))
        aec = median(lambda: aec_steps_per_second(lambda: boardenvs.make("tryasina_v0", num_players=n), seconds))
        rows.append((f"boardenvs tryasina_v0, {n} players", "AEC", aec, None, noop))
        for size in (1, 64, 4096):
            runs = [vec_steps_per_second("tryasina_v0", size, seconds, num_players=n) for _ in range(repeats + 1)][1:]
            rate = statistics.median(r for r, _ in runs)
            cpu = statistics.median(c for _, c in runs)
            rows.append((f"boardenvs tryasina_v0 make_vec, {n} players, N = {size}", "make_vec", rate, cpu, noop))
    if backgammon:
        rows.append(("OpenSpiel backgammon (C++, obs tensor each decision)", "pyspiel", backgammon, 1.0, None))
    lines = [
        "",
        "Tryasina (dice inside the step; steps are decisions):",
        "",
        "| system | API | steps/s | CPU-s per wall-s | vs no-op AEC (same spaces) | vs OpenSpiel backgammon |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, api, rate, cpu, noop in rows:
        cpu_text = f"{cpu:.2f}" if cpu is not None else "-"
        noop_text = f"{rate / noop:.2f}x" if noop else "-"
        bg_text = f"{rate / backgammon:.2f}x" if backgammon else "-"
        lines.append(f"| {name} | {api} | {fmt(rate)} | {cpu_text} | {noop_text} | {bg_text} |")
    return lines


def startup_seconds(cold: bool, env_id: str = "quess_v0") -> float:
    """Wall time of a fresh interpreter importing boardenvs and playing the
    first step of ``env_id`` through the public env (cold: empty numba cache)."""
    code = (
        f"import time; t=time.perf_counter(); import boardenvs; e=boardenvs.make('{env_id}'); e.reset(seed=0);"
        "m=e.observe(e.agent_selection)['action_mask']; e.step(int(m.nonzero()[0][0]));"
        "print(time.perf_counter()-t)"
    )
    env = dict(os.environ)
    if cold:
        import tempfile

        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="boardenvs-cold-")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def quess_game_lengths(games: int, n: int = 4096) -> np.ndarray:
    """Lengths (turns) of random-vs-random Quess games from make_vec, with no
    limit in reach (for QU-13's documented default).  Each env's first game
    counts, and every batch runs until all its games are over (stopping
    earlier would favour short games)."""
    n = min(n, games)
    vec = boardenvs.make_vec("quess_v0", num_envs=n, max_turns=20000, superko_memory=2**20)
    lengths = []
    batch = 0
    while len(lengths) < games:
        vec.reset(seed=777 + batch)
        batch += 1
        counted = np.zeros(n, np.bool_)
        while not counted.all():
            _, _, term, trunc, infos = vec.step(vec.random_actions())
            done = (term | trunc) & ~counted
            lengths.extend(infos["length"][done].tolist())
            counted |= done
    return np.array(lengths[:games])


@numba.njit(cache=True)
def _pick_legal(masks, u, out):
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        k = int(u[i] * count)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1
    return out


def _random_legal(masks, rng):
    """A uniformly random legal action per row of a bool mask array (one
    compiled pass, so the sampler costs both VecEnvs the same small time)."""
    masks = np.ascontiguousarray(masks, dtype=np.bool_)
    return _pick_legal(masks, rng.random(len(masks)), np.zeros(len(masks), np.int64))


def sb3_env(kind: str, gym_id: str, n: int):
    """``SB3VecEnv`` over the kernels, or SB3's ``DummyVecEnv`` of ``n``
    single-agent envs (what a user would build without it); random opponent."""
    if kind == "SB3VecEnv":
        from boardenvs.wrappers import SB3VecEnv

        return SB3VecEnv(gym_id, num_envs=n)
    from stable_baselines3.common.env_util import make_vec_env

    return make_vec_env(gym_id, n_envs=n)


def sb3_steps_per_second(kind: str, gym_id: str, n: int, seconds: float) -> float:
    """Learner steps/s (each with the opponent's reply) through an SB3 VecEnv,
    random legal actions from ``env_method("action_masks")`` as MaskablePPO asks."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = sb3_env(kind, gym_id, n)
    rng = np.random.default_rng(0)
    env.seed(0)
    env.reset()
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        env.step(_random_legal(get_action_masks(env), rng))
        steps += n
    rate = steps / (time.perf_counter() - t0)
    env.close()
    return rate


def ppo_steps_per_second(kind: str, gym_id: str, n: int, steps: int) -> float:
    """MaskablePPO ``learn`` timesteps/s (rollouts + updates, MlpPolicy,
    n_steps = 128 per env, one epoch) on an SB3 VecEnv."""
    from sb3_contrib import MaskablePPO

    env = sb3_env(kind, gym_id, n)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=1024, n_epochs=1, seed=0, verbose=0)
    t0 = time.perf_counter()
    model.learn(steps)
    return model.num_timesteps / (time.perf_counter() - t0)


def training_path_table(seconds: float, repeats: int) -> list[str]:
    """The SB3 rows: env steps/s and MaskablePPO timesteps/s through
    SB3VecEnv vs DummyVecEnv of single-agent envs, same id, same run."""
    try:
        import sb3_contrib  # noqa: F401
    except Exception as exc:  # pragma: no cover - optional
        return [f"(training-path rows skipped: {exc}; pip install 'boardenvs[train]')"]
    lines = [
        "",
        "Training path (learner steps, each with the random opponent's reply; random legal actions from "
        "`env_method(\"action_masks\")`, as MaskablePPO asks):",
        "",
        "| id | N | DummyVecEnv steps/s | SB3VecEnv steps/s | ratio | MaskablePPO timesteps/s Dummy / SB3VecEnv |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for gym_id in ("boardenvs/Quess-v0", "boardenvs/Quagmire-v0"):
        for n in (64, 1024):
            dummy = statistics.median(sb3_steps_per_second("DummyVecEnv", gym_id, n, seconds) for _ in range(repeats))
            ours = statistics.median(sb3_steps_per_second("SB3VecEnv", gym_id, n, seconds) for _ in range(repeats))
            ppo = "-"
            if n == 64:
                budget = 64 * 128 * 2
                ppo_d = ppo_steps_per_second("DummyVecEnv", gym_id, n, budget)
                ppo_s = ppo_steps_per_second("SB3VecEnv", gym_id, n, budget)
                ppo = f"{fmt(ppo_d)} / {fmt(ppo_s)} ({ppo_s / ppo_d:.2f}x)"
            lines.append(f"| {gym_id} | {n} | {fmt(dummy)} | {fmt(ours)} | {ours / dummy:.1f}x | {ppo} |")
    return lines

def quicksand_game_lengths(games: int, n: int = 4096) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random-vs-random Quicksand games from make_vec (each env's first game,
    every batch run until all its games are over): lengths in turns (QS-12's
    documented default), in decisions (a turn is a chain of them, so a
    make_vec step is one decision), and end reasons."""
    n = min(n, games)
    vec = boardenvs.make_vec("quicksand_v0", num_envs=n)
    turns, decisions, reasons = [], [], []
    batch = 0
    while len(turns) < games:
        vec.reset(seed=4242 + batch)
        batch += 1
        counted = np.zeros(n, np.bool_)
        steps = 0
        while not counted.all():
            _, _, term, trunc, infos = vec.step(vec.random_actions())
            steps += 1
            done = (term | trunc) & ~counted
            turns.extend(infos["length"][done].tolist())
            decisions.extend([steps] * int(done.sum()))
            reasons.extend(vec.reason_name(int(r)) for r in infos["end_reason"][done])
            counted |= done
    return np.array(turns[:games]), np.array(decisions[:games]), np.array(reasons[:games])


def fmt(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=1.5, help="length of one timed run")
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per row (median reported)")
    ap.add_argument("--lengths", type=int, default=20000, help="random Quess games for the length table (0: skip)")
    ap.add_argument("--qs-lengths", type=int, default=4096, help="random Quicksand games for its length line (0: skip)")
    ap.add_argument("--update-readme", action="store_true")
    ap.add_argument("--no-training-path", dest="training_path", action="store_false",
                    help="skip the SB3VecEnv / DummyVecEnv / MaskablePPO rows")
    ap.add_argument("--only", choices=["tryasina"], default=None, help="print only this game's own table (a quick check)")

    ap.add_argument("--games", nargs="*", default=None, help="env ids to time (default: all; anchors always run)")
    args = ap.parse_args(argv)

    def median(fn):
        fn()  # warm-up: compilation, caches
        return statistics.median(fn() for _ in range(args.repeats))

    s = args.seconds
    if args.only == "tryasina":
        print("\n".join(tryasina_section(median, s, args.repeats)))
        return 0
    rows = []  # (system, API, steps/s, CPU-s per wall-s or None)
    noop = median(lambda: aec_steps_per_second(lambda: wrappers.OrderEnforcingWrapper(NoopEnv()), s))
    rows.append(("no-op AEC env, same wrapper stack (ceiling)", "AEC", noop, None))
    games = [g for g in boardenvs.ENV_IDS if args.games is None or g in args.games]
    for env_id in games:
        for options in BENCH_VARIANTS.get(env_id, ({},)):
            make = lambda: boardenvs.make(env_id, **options)  # noqa: E731
            rows.append((f"boardenvs {env_id}{variant_label(options)}", "AEC", median(lambda: aec_steps_per_second(make, s)), None))
    try:
        from pettingzoo.classic import connect_four_v3
    except Exception as exc:  # pragma: no cover - optional anchor
        c4 = None
        print(f"(connect_four_v3 skipped: {exc}; pip install 'boardenvs[bench]')", file=sys.stderr)
    else:
        c4 = median(lambda: aec_steps_per_second(lambda: connect_four_v3.env(), s))
        rows.append(("PettingZoo classic connect_four_v3", "AEC", c4, None))
    try:
        import pyspiel  # noqa: F401
    except Exception as exc:  # pragma: no cover - optional anchor
        amazons = None
        print(f"(OpenSpiel amazons skipped: {exc}; pip install 'boardenvs[bench]')", file=sys.stderr)
    else:
        amazons = median(lambda: openspiel_steps_per_second("amazons", s))
        rows.append(("OpenSpiel amazons (C++, obs tensor each step)", "pyspiel", amazons, 1.0))
    quoridor = None
    if amazons is not None and "hex_quoridor_v0" in games:
        quoridor = median(lambda: openspiel_steps_per_second("quoridor", s))
        rows.append(("OpenSpiel quoridor 2p (C++, obs tensor each step)", "pyspiel", quoridor, 1.0))
    hq_rates = {}
    for env_id in games:
        for options in BENCH_VARIANTS.get(env_id, ({},)):
            for n in (1, 64, 4096):
                if env_id in STEADY_WARMUP:
                    runs = steady_vec_rates(env_id, n, s, args.repeats, STEADY_WARMUP[env_id], **options)
                else:
                    runs = [vec_steps_per_second(env_id, n, s, **options) for _ in range(args.repeats + 1)][1:]
                rate = statistics.median(r for r, _ in runs)
                cpu = statistics.median(c for _, c in runs)
                steady = " (after 300 warm-up steps)" if env_id in STEADY_WARMUP else ""
                rows.append((f"boardenvs {env_id}{variant_label(options)} make_vec, N = {n}{steady}", "make_vec", rate, cpu))
                if env_id == "hex_quoridor_v0":
                    hq_rates[(options.get("num_players"), n)] = rate

    lines = [
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numba threading layer {numba.threading_layer()}; "
        f"median of {args.repeats} runs of {s:g} s; ratios against anchors from this same run.",
        "",
        "| system | API | steps/s | CPU-s per wall-s | vs no-op AEC | vs connect_four_v3 | vs OpenSpiel amazons |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for name, api, rate, cpu in rows:
        c4_ratio = f"{rate / c4:.2f}x" if c4 else "-"
        amazons_ratio = f"{rate / amazons:.2f}x" if amazons else "-"
        cpu_text = f"{cpu:.2f}" if cpu is not None else "-"
        lines.append(f"| {name} | {api} | {fmt(rate)} | {cpu_text} | {rate / noop:.2f}x | {c4_ratio} | {amazons_ratio} |")
    if "tryasina_v0" in boardenvs.ENV_IDS:
        lines += tryasina_section(median, s, args.repeats)

    if quoridor and (2, 4096) in hq_rates:
        lines += ["", f"hex_quoridor_v0 make_vec, N = 4096, 2 players: {hq_rates[(2, 4096)] / quoridor:.2f}x OpenSpiel quoridor 2p "
                  "(target >= 5x)."]  # fmt: skip
    lines.append("")
    for env_id in games:
        cold = startup_seconds(cold=True, env_id=env_id)
        warm = statistics.median(startup_seconds(cold=False, env_id=env_id) for _ in range(3))
        lines.append(
            f"Start-up, import + first step of {env_id} in a fresh interpreter: {warm:.2f} s with numba's cache warm, "
            f"{cold:.1f} s cold (compiling its kernels)."
        )
    lines.append(
        f"make_vec runs a serial driver below N = {parallel_from()} and numba's threads from there on; "
        "its drivers compile once per process on first use."
    )
    if args.training_path:
        lines += training_path_table(s, args.repeats)
    if args.lengths:
        lens = quess_game_lengths(args.lengths)
        pct = np.percentile(lens, [50, 90, 99, 99.9])
        lines += [
            "",
            f"Quess random-vs-random game length over {len(lens)} games (turns): median {pct[0]:.0f}, "
            f"p90 {pct[1]:.0f}, p99 {pct[2]:.0f}, p99.9 {pct[3]:.0f}, max {lens.max()}.",
        ]
    if args.qs_lengths and "quicksand_v0" in boardenvs.ENV_IDS:
        turns, decisions, reasons = quicksand_game_lengths(args.qs_lengths)
        tp, dp = np.percentile(turns, [50, 99]), np.percentile(decisions, [50, 99])
        ends = ", ".join(f"{r} {np.mean(reasons == r):.1%}" for r in sorted(set(reasons.tolist())))
        lines += [
            "",
            f"Quicksand random-vs-random games over {len(turns)} games: median {tp[0]:.0f} turns "
            f"({dp[0]:.0f} decisions, the unit of its steps/s rows), p99 {tp[1]:.0f} turns ({dp[1]:.0f} decisions), "
            f"max {turns.max()} turns; ended by {ends}.",
        ]
    table = "\n".join(lines)
    print(table)
    (ROOT / "benchmarks" / "results.md").write_text(table + "\n")
    if args.update_readme:
        readme = ROOT / "README.md"
        text = readme.read_text()
        new = re.sub(
            r"(<!-- bench:begin -->\n).*?(<!-- bench:end -->)",
            lambda m: m.group(1) + table + "\n" + m.group(2),
            text,
            flags=re.S,
        )
        readme.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
