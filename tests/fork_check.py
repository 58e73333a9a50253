"""Run by test_vector.py in a fresh interpreter: after make_vec ran a threaded
driver, a forked child, a fork pool and a spawn pool each run one too."""

import multiprocessing as mp
import os

import numba

import boardenvs


def work(seed):
    vec = boardenvs.make_vec("quagmire_v0", num_envs=512, parallel=True)
    vec.reset(seed=seed)
    for _ in range(20):
        vec.step(vec.random_actions())
    return int(vec.states[:, 2].sum())


if __name__ == "__main__":
    work(0)  # the parent has run a threaded driver
    layer = numba.threading_layer()
    pid = os.fork()
    if pid == 0:
        work(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    with mp.get_context("fork").Pool(2) as pool:
        forked = pool.map(work, [2, 3])
    with mp.get_context("spawn").Pool(1) as pool:
        spawned = pool.map(work, [4])
    print("ok", layer, forked, spawned, flush=True)
