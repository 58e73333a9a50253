"""What a game costs beyond steps/s: memory per row and start-up time, each
measured in a fresh interpreter.

Memory: the bytes per row of ``make_vec``'s state (int64) and of its
observation and mask buffers (int8), and, in a fresh process holding
``make_vec`` at the largest N after 50 steps, the peak RSS and the RSS over
that after ``import boardenvs`` (a fresh process, so the bench's own
anchors and compiled kernels do not count).  Start-up: the wall time from a
fresh interpreter to the first step of the public env, warm (numba's cache
filled) and cold (an empty cache, so every kernel compiles, ``make_vec``'s
serial and threaded drivers included).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

import boardenvs

_RSS_CODE = """
import json, resource
def rss():
    # VmHWM / VmRSS of this process (ru_maxrss would count the forking parent's peak: Linux keeps it across exec)
    try:
        with open("/proc/self/status") as f:
            fields = dict(line.split(":", 1) for line in f)
        return int(fields["VmHWM"].split()[0]) * 1024, int(fields["VmRSS"].split()[0]) * 1024
    except OSError:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        return peak, peak
import boardenvs
_, base = rss()
vec = boardenvs.make_vec({env_id!r}, num_envs={n}, **{options!r})
vec.reset(seed=0)
for _ in range(50):
    vec.step(vec.random_actions())
peak, now = rss()
print(json.dumps({{"import_rss": base, "peak": peak, "rss": now}}))
"""


def memory_of(env_id: str, options: dict, n: int) -> dict:
    """Bytes per row (the int64 state; the int8 observation + mask buffers)
    and, in a fresh process holding make_vec at N = ``n`` after 50 steps,
    the peak RSS and the RSS over the RSS after ``import boardenvs``."""
    info = boardenvs.make_game(env_id, **options).info
    code = _RSS_CODE.format(env_id=env_id, n=n, options=options)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    rss = json.loads(out.stdout.strip().splitlines()[-1])
    return {
        "state_bytes_per_row": info.state_size * 8,
        "buffer_bytes_per_row": info.obs_size + info.mask_size,
        "n": n,
        "peak_rss": rss["peak"],
        "rss_over_import": rss["rss"] - rss["import_rss"],
    }


def startup_seconds(cold: bool, env_id: str = "quess_v0", options: dict | None = None) -> float:
    """Wall time of a fresh interpreter importing boardenvs and playing the
    first step of ``env_id`` through the public env; cold: with an empty
    numba cache directory (every kernel compiles), and then a step of
    ``make_vec``'s serial and threaded drivers too."""
    vec = "v=boardenvs.make_vec({e!r}, num_envs=4, parallel={p}, **{o!r}); v.reset(seed=0); v.step(v.random_actions());"
    code = (
        f"import time; t=time.perf_counter(); import boardenvs; e=boardenvs.make({env_id!r}, **{options or {}!r}); "
        "e.reset(seed=0); m=e.observe(e.agent_selection)['action_mask']; e.step(int(m.nonzero()[0][0]));"
        + ("".join(vec.format(e=env_id, p=p, o=options or {}) for p in (False, True)) if cold else "")
        + "print(time.perf_counter()-t)"
    )
    env = dict(os.environ)
    if cold:
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="boardenvs-cold-")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def startup_of(env_id: str, warm_runs: int, cold: bool) -> dict:
    """Warm start-up times (the median too) after one run that fills the cache, and with ``cold`` one cold start-up."""
    startup_seconds(cold=False, env_id=env_id)  # fills the cache if empty
    warm = [startup_seconds(cold=False, env_id=env_id) for _ in range(warm_runs)]
    out = {"warm": warm, "warm_median": statistics.median(warm)}
    if cold:
        out["cold"] = startup_seconds(cold=True, env_id=env_id)
    return out
