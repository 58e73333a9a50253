"""One env used from two threads at once: the AEC env,
the gymnasium views and make_vec take turns (one call at a time), so the
engine never steps or observes one row from two threads at once.  Probed in
a fresh process with ``NUMBA_BOUNDSCHECK=1`` (an index out of a row raises
there instead of reading or writing past it), the interpreter switching
threads as often as it can; the only errors a thread may meet are the
documented ones of a game the other thread moved on (an action no longer
legal is forfeited under "lose"; a step after the end asks for reset)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import gymnasium
import numpy as np
from backstop import HANG_S  # the tests' one wall-clock backstop
from boardenvs.wrappers import SingleAgentVectorEnv

import boardenvs
from boardenvs.errors import IllegalActionError, ResetNeededError

PROBE = r"""
import sys, threading
import numpy as np
import gymnasium
import boardenvs
from boardenvs import Position
from boardenvs.errors import IllegalActionError, ResetNeededError
from boardenvs.wrappers import SingleAgentVectorEnv

sys.setswitchinterval(1e-6)
EXPECTED = (IllegalActionError, ResetNeededError)
failures = []


def hammer(fn, rounds):
    def run():
        rng = np.random.default_rng(threading.get_ident() % 1000)
        for _ in range(rounds):
            try:
                fn(rng)
            except EXPECTED:
                pass
            except BaseException as e:  # anything else is a failure of the probe
                failures.append(repr(e))
                return
    workers = [threading.Thread(target=run) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()


for env_id, options in (("tryasina_v0", {"num_players": 4}), ("hex_quoridor_v1", {"num_players": 3, "radius": 2})):
    aec = boardenvs.make(env_id, **options)
    aec.reset(seed=0)

    def aec_step(rng, env=aec):
        if not env.agents:
            env.reset()
            return
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        mask = obs["action_mask"]
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0)

    hammer(aec_step, 300)
    pos = aec.unwrapped.position()
    assert Position.from_text(pos.to_text()) == pos

    single = gymnasium.make(boardenvs.registry.gym_id_of(boardenvs.registry.game_class(env_id)), **options).unwrapped
    single.reset(seed=0)

    def single_step(rng, env=single):
        mask = env.action_masks()
        if not mask.any():
            env.reset()
            return
        env.step(int(rng.choice(np.flatnonzero(mask))))

    hammer(single_step, 150)
    pos = single.position()
    assert Position.from_text(pos.to_text()) == pos

    view = SingleAgentVectorEnv(env_id, num_envs=8, opponent=lambda observations, masks: np.argmax(masks, axis=1),
                                **options)
    view.reset(seed=0)

    def view_step(rng, env=view):
        masks = env.action_masks()
        env.step((rng.random(masks.shape) * masks).argmax(1))

    hammer(view_step, 60)
    for i in range(8):
        pos = view.position(i)
        assert Position.from_text(pos.to_text()) == pos

assert not failures, failures[:3]
print("ok")
"""


def test_one_env_stepped_from_two_threads_takes_turns():
    env = {**os.environ, "NUMBA_BOUNDSCHECK": "1"}
    proc = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=HANG_S)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stderr[-3000:] + proc.stdout[-1000:]


def _overlap(obj, name: str, call) -> bool:
    """Two threads run ``call()`` at once; ``obj.name`` (a function the call
    runs inside the env's turn) is wrapped to note whether both threads were
    ever inside it together.  The first thread in waits there (up to 0.3 s)
    for the second to come in too: with the turns it cannot, without them it
    does.  (A machine too busy to start the second thread within 0.3 s could
    only hide an overlap, never invent one.)"""
    original = getattr(obj, name)
    count, seen, second = [0], [False], threading.Event()
    guard = threading.Lock()

    def wrapped(*args, **kwargs):
        with guard:
            count[0] += 1
            first = count[0] == 1
            if not first:
                seen[0] = True
                second.set()
        try:
            if first:
                second.wait(0.3)
            return original(*args, **kwargs)
        finally:
            with guard:
                count[0] -= 1

    setattr(obj, name, wrapped)
    errors = []

    def run():
        try:
            call()
        except (IllegalActionError, ResetNeededError):  # the other thread moved the game on
            pass
        except BaseException as e:
            errors.append(e)

    workers = [threading.Thread(target=run) for _ in range(2)]
    try:
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        setattr(obj, name, original)
    assert not errors, errors
    return seen[0]


def test_each_call_runs_whole_one_thread_at_a_time():
    """The turns themselves, deterministically: two threads calling the
    same env are never inside its engine call together (AEC step and
    observe, the gymnasium single-agent and vector views' step)."""
    env = boardenvs.make("quess_v0", first_player=0)
    env.reset(seed=0)
    raw = env.unwrapped
    action = int(np.flatnonzero(env.observe("player_0")["action_mask"])[0])
    assert not _overlap(raw, "_step_row", lambda: env.step(action))
    assert not _overlap(raw, "_observe", lambda: env.observe("player_1"))
    single = gymnasium.make("boardenvs/Quess-v0", seat=0, first_player=0).unwrapped
    single.reset(seed=0)
    assert not _overlap(single, "_take", lambda: single.step(action))
    view = SingleAgentVectorEnv("quess_v0", num_envs=4, seat=0, first_player=0)
    view.reset(seed=0)
    assert not _overlap(view, "_loop", lambda: view.step(np.full(4, action)))
    # the probe sees an overlap where nothing takes turns
    box = type("Box", (), {"f": staticmethod(lambda: None)})
    assert _overlap(box, "f", lambda: box.f())
