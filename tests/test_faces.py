"""One contract on every face (Position, the AEC env and its wrappers, the
parallel view, ``make_vec``, the gymnasium single-agent view and its vector
view, ``SB3VecEnv``), for every registered id and declared variant:

* **copies**: ``copy.deepcopy`` and ``pickle`` give an independent object in
  the same state; given the same actions, the copy and the original give the
  same observations, masks, rewards and ends, and playing on with one leaves
  the other as it was (a copy validates against its own masks: before, the
  AEC env's mask views became separate arrays in a copy, which then accepted
  illegal moves and crashed the process);
* **buffers**: nothing a caller writes into an array it was handed reaches
  the engine's trust (C-6): masks written all-ones, observations scribbled
  over, and the engine still refuses exactly the actions its own rules refuse;
* **threads**: one ``make_vec`` stepped from two threads takes turns;
* **the illegal-action contract** (C-6): by default the offender loses, on
  every face, with ``illegal_action`` in the infos and one warning per env;
* loose option checks refused with a message.

``test_boundscheck_probe`` runs the public API's probes in a fresh process
under ``NUMBA_BOUNDSCHECK=1``: any out-of-bounds access there is an error.
"""

from __future__ import annotations

import copy
import pickle
import threading
import warnings

import gymnasium
import numpy as np
import pytest
from registry_cases import variant_cases

import boardenvs
from boardenvs import IllegalActionError
from boardenvs.registry import game_class, gym_id_of

CASES = variant_cases()
COPIES = {"deepcopy": copy.deepcopy, "pickle": lambda obj: pickle.loads(pickle.dumps(obj))}


class Ticks:
    """A picklable time source for the chess clock: one second a reading."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        self.t += 1.0
        return self.t


def _same(a, b) -> bool:
    """Deep equality of what the faces return (dicts, tuples, arrays, numbers)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        if a.dtype == object:
            return (
                isinstance(b, np.ndarray)
                and a.shape == b.shape
                and all(_same(x, y) for x, y in zip(a.ravel(), b.ravel()))
            )
        return isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b)
    return a == b


# --- copies: every face, id and variant -------------------------------------------------


def _aec_play(env, rng, steps):
    """Play ``steps`` AEC steps with legal actions drawn from ``rng``; the
    record of what the env said at each."""
    record = []
    for _ in range(steps):
        if not env.agents:
            env.reset(seed=int(rng.integers(1 << 30)))
        obs, reward, term, trunc, info = env.last()
        agent = env.agent_selection
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        record.append((agent, action, obs, reward, term, trunc, info))
    return record


def _aec_face(make):
    def play(env, rng, steps):
        return _aec_play(env, rng, steps)

    def start(seed):
        env = make()
        env.reset(seed=seed)
        return env

    return start, play


def _parallel_face(make):
    def start(seed):
        env = make()
        env.reset(seed=seed)
        return env

    def play(env, rng, steps):
        record = []
        for _ in range(steps):
            if not env.agents:
                env.reset(seed=int(rng.integers(1 << 30)))
            actor = env.aec_env.agent_selection
            mask = env.aec_env.observe(actor)["action_mask"]
            actions = {a: int(rng.choice(np.flatnonzero(mask))) if a == actor else 0 for a in env.agents}
            record.append(env.step(actions))
        return record

    return start, play


def _vec_face(make):
    def start(seed):
        vec = make()
        vec.reset(seed=seed)
        return vec

    def play(vec, rng, steps):
        record = []
        for _ in range(steps):
            masks = vec.action_masks()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            record.append(copy.deepcopy(vec.step(actions)))  # the buffers are overwritten by the next step
        return record

    return start, play


def _gym_face(make):
    def start(seed):
        env = make()
        env.reset(seed=seed)
        return env

    def play(env, rng, steps):
        record = []
        for _ in range(steps):
            action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
            out = env.step(action)
            record.append(out)
            if out[2] or out[3]:
                record.append(env.reset(seed=int(rng.integers(1 << 30))))
        return record

    return start, play


def _sb3_face(make):
    def start(seed):
        env = make()
        env.seed(seed)
        env.reset()
        return env

    def play(env, rng, steps):
        record = []
        for _ in range(steps):
            masks = np.stack(env.env_method("action_masks"))
            env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            obs, rewards, dones, infos = env.step_wait()
            for info in infos:
                if "episode" in info:
                    info["episode"].pop("t")  # wall time
            record.append(copy.deepcopy((obs, rewards, dones, infos)))
        return record

    return start, play


def _position_face(env_id, variant):
    def start(seed):
        return boardenvs.position(env_id, **variant)

    def play(holder, rng, steps):
        # a Position never changes: the "face" holds one in a list and plays on from it
        record = []
        pos = holder[0] if isinstance(holder, list) else holder
        for _ in range(steps):
            if pos.is_terminal:
                pos = boardenvs.position(env_id, **variant)
            pos = pos.play(int(rng.choice(pos.legal_actions())))
            record.append((pos.to_text(), pos.state))
        return record

    return start, play


def _faces(env_id, variant):
    from boardenvs.wrappers import SB3VecEnv
    from boardenvs.wrappers.vector import SingleAgentVectorEnv

    module = getattr(boardenvs, env_id)
    gid = gym_id_of(game_class(env_id))
    return {
        "position": _position_face(env_id, variant),
        "aec": _aec_face(lambda: boardenvs.make(env_id, **variant)),
        "raw_env": _aec_face(lambda: module.raw_env(**variant)),
        "clock": _aec_face(lambda: module.env(clock_seconds=1e9, time_source=Ticks(), **variant)),
        "parallel": _parallel_face(lambda: module.parallel_env(**variant)),
        "make_vec": _vec_face(lambda: boardenvs.make_vec(env_id, num_envs=5, **variant)),
        "gymnasium": _gym_face(lambda: gymnasium.make(gid, **variant)),
        "gymnasium_vector": _vec_face(lambda: _Masked(SingleAgentVectorEnv(env_id, num_envs=4, **variant))),
        "sb3": _sb3_face(lambda: SB3VecEnv(env_id, num_envs=3, **variant)),
    }


class _Masked:
    """The vector view with ``action_masks()`` for _vec_face."""

    def __init__(self, venv):
        self.venv = venv

    def reset(self, seed):
        return self.venv.reset(seed=seed)

    def action_masks(self):
        return self.venv.action_masks()

    def step(self, actions):
        return self.venv.step(actions)


FACES = ["position", "aec", "raw_env", "clock", "parallel", "make_vec", "gymnasium", "gymnasium_vector", "sb3"]


@pytest.mark.parametrize("face", FACES)
@pytest.mark.parametrize("env_id, variant", CASES)
def test_copies_play_on_side_by_side_and_independently(env_id, variant, face):
    start, play = _faces(env_id, variant)[face]
    original = start(7)
    play(original, np.random.default_rng(1), 6)  # some way into the game
    for how, clone in COPIES.items():
        twin = clone(original)
        assert twin is not original
        # the same actions: the same story
        a = play(twin, np.random.default_rng(2), 12)
        b = play(original, np.random.default_rng(2), 12)
        assert _same(a, b), (face, how)
        # independence: the twin plays on alone; the original, copied before, is unchanged
        keep = clone(original)
        play(twin, np.random.default_rng(3), 10)
        assert _same(play(keep, np.random.default_rng(4), 8), play(original, np.random.default_rng(4), 8)), (face, how)


def test_a_copied_aec_env_refuses_what_its_own_game_refuses():
    """The defect: a deep copy validated against the mask of copy time, so an
    illegal move was accepted and the kernels then aborted the process."""
    env = boardenvs.make("quagmire_v0", radius=2, first_player=0, illegal_action="raise")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        twin = copy.deepcopy(env)
        at_copy = env.observe(env.agent_selection)["action_mask"]
        twin.step(int(rng.choice(np.flatnonzero(at_copy))))
        if not twin.agents or twin.terminations[twin.agent_selection]:
            break
        now = twin.observe(twin.agent_selection)["action_mask"]
        stale = np.flatnonzero(at_copy & (now == 0))
        if stale.size:
            before = twin.unwrapped.position()
            with pytest.raises(IllegalActionError):
                twin.step(int(stale[0]))
            assert twin.unwrapped.position() == before
            break
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    else:
        raise AssertionError("no position where the mask of copy time allowed a move that is illegal now")
    assert stale.size


def test_supersuit_concat_vec_envs_runs_on_the_parallel_view():
    """SuperSuit's vectorisation pickles its env (cloudpickle) for each copy;
    the copies play on (here in-process, num_cpus=0)."""
    import supersuit as ss

    par = boardenvs.quagmire_v0.parallel_env(radius=2)
    vec = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(par), 3, num_cpus=0, base_class="gymnasium")
    obs, infos = vec.reset(seed=0)
    assert obs["observation"].shape[0] == 6  # 3 games x 2 agents
    ended = 0
    rng = np.random.default_rng(0)
    for _ in range(200):
        masks = obs["action_mask"]
        obs, rewards, term, trunc, infos = vec.step(
            np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        )
        ended += int(np.sum(term | trunc))
    assert ended > 0 and not any(i.get("illegal_action") for i in infos)
    vec.close()


# --- buffers: what the caller writes into reaches nothing ------------------------------


@pytest.mark.parametrize("env_id, variant", CASES)
def test_writing_into_returned_buffers_reaches_nothing(env_id, variant):
    """The reproducer of the issue, on every game: masks written all-ones
    and observations scribbled over before every step; the engine still
    forfeits exactly the rows whose action its own rules refuse, and every
    row stays a consistent position with observations in their bounds."""
    vec = boardenvs.make_vec(env_id, num_envs=16, **variant)
    obs, _ = vec.reset(seed=0)
    game, rng = vec.game, np.random.default_rng(0)
    low, high = game.info.obs_low, game.info.obs_high
    forfeits = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(150):
            legal = np.stack([vec.position(i).action_mask()[: vec.num_actions] for i in range(16)])
            obs["action_mask"][:] = 1
            vec.action_masks()[:] = 1
            obs["observation"][:] = 99
            actions = rng.integers(0, vec.num_actions, 16)
            expected = legal[np.arange(16), actions] == 0
            obs, rewards, term, trunc, infos = vec.step(actions)
            assert np.array_equal(infos["illegal_action"], expected)
            assert all(infos["end_reason"][expected] == "illegal_action")
            forfeits += int(expected.sum())
            assert (obs["observation"] >= low).all() and (obs["observation"] <= high).all()
            assert np.array_equal(
                obs["action_mask"], np.stack([vec.position(i).action_mask()[: vec.num_actions] for i in range(16)])
            )
    assert forfeits > 0
    for i in range(16):
        pos = vec.position(i)
        assert boardenvs.Position.from_text(pos.to_text()) == pos
    with pytest.raises(ValueError, match="read-only"):
        vec.states[0, 0] = 5


def test_the_other_faces_hand_out_copies():
    env = boardenvs.make("quagmire_v0", radius=2, illegal_action="raise")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    obs["action_mask"][:] = 1
    bad = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(bad)
    single = gymnasium.make("boardenvs/Quagmire-v0", radius=2, illegal_action="raise").unwrapped
    _, info = single.reset(seed=0)
    info["action_mask"][:] = True
    single.action_masks()[:] = True
    bad = int(np.flatnonzero(~single.action_masks())[0])
    with pytest.raises(IllegalActionError):
        single.step(bad)
    from boardenvs.wrappers.vector import SingleAgentVectorEnv

    venv = SingleAgentVectorEnv("quagmire_v0", num_envs=4, radius=2, illegal_action="raise")
    _, info = venv.reset(seed=0)
    keep = venv.action_masks().copy()
    venv.action_masks()[:] = True
    info["action_mask"][:] = True
    bad = np.array([int(np.flatnonzero(~m)[0]) for m in keep])
    with pytest.raises(IllegalActionError):
        venv.step(bad)
    pos = boardenvs.position("quagmire_v0", radius=2)
    pos.state[:] = -7  # a copy: the Position never changes
    assert pos == boardenvs.position("quagmire_v0", radius=2)


# --- threads -------------------------------------------------------------------------------


def test_one_make_vec_stepped_from_two_threads_takes_turns():
    vec = boardenvs.make_vec("quagmire_v0", num_envs=256, radius=2)
    vec.reset(seed=0)
    errors = []

    def work():
        try:
            for _ in range(150):
                vec.step(vec.random_actions())
        except Exception as exc:  # pragma: no cover - what the test would report
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i in range(0, 256, 17):
        pos = vec.position(i)
        assert boardenvs.Position.from_text(pos.to_text()) == pos


# --- the illegal-action contract on every face -------------------------------------------


def test_the_default_is_lose_on_every_face_with_one_warning():
    from boardenvs.wrappers import SB3VecEnv
    from boardenvs.wrappers.vector import SingleAgentVectorEnv

    masked = 0  # A1-A1 is never legal in Quess
    with pytest.warns(UserWarning, match="illegal_action='lose'") as said:
        env = boardenvs.make("quess_v0", first_player=0)
        env.reset(seed=0)
        env.step(masked)
        assert env.rewards == {"player_0": -1.0, "player_1": 0.0}
        assert (
            env.infos["player_0"]["illegal_action"] is True and env.infos["player_0"]["end_reason"] == "illegal_action"
        )
        assert env.terminations == {"player_0": True, "player_1": True}
        vec = boardenvs.make_vec("quess_v0", num_envs=2, first_player=0)
        vec.reset(seed=0)
        _, rewards, term, _, infos = vec.step(np.array([masked, masked]))
        vec.step(np.array([masked, masked]))  # a second illegal step: no second warning
        assert rewards[:, 0].tolist() == [-1.0, -1.0] and term.all() and infos["illegal_action"].all()
        single = gymnasium.make("boardenvs/Quess-v0", seat=0, first_player=0)
        single.reset(seed=0)
        _, reward, term, _, info = single.step(masked)
        assert (reward, term, info["illegal_action"], info["end_reason"]) == (-1.0, True, True, "illegal_action")
        venv = SingleAgentVectorEnv("quess_v0", num_envs=2, seat=0, first_player=0)
        venv.reset(seed=0)
        _, rewards, term, _, info = venv.step(np.array([masked, masked]))
        assert rewards.tolist() == [-1.0, -1.0] and info["final_info"]["end_reason"].tolist() == ["illegal_action"] * 2
        sb3 = SB3VecEnv("quess_v0", num_envs=2, seat=0, first_player=0)
        sb3.reset()
        sb3.step_async(np.array([masked, masked]))
        _, rewards, dones, _ = sb3.step_wait()
        assert rewards.tolist() == [-1.0, -1.0] and dones.all()
    ours = [w for w in said if "illegal_action=" in str(w.message)]
    assert len(ours) == 5  # one per env (the SB3 view's is its vector view's)


@pytest.mark.parametrize("face", ["aec", "make_vec", "gymnasium"])
def test_raise_names_the_alternatives_and_random_plays_a_legal_action(face):
    masked = 0
    if face == "aec":
        env = boardenvs.make("quess_v0", first_player=0, illegal_action="raise")
        env.reset(seed=0)
        step = lambda a: env.step(a)  # noqa: E731
    elif face == "make_vec":
        env = boardenvs.make_vec("quess_v0", num_envs=1, first_player=0, illegal_action="raise")
        env.reset(seed=0)
        step = lambda a: env.step(np.array([a]))  # noqa: E731
    else:
        env = gymnasium.make("boardenvs/Quess-v0", seat=0, first_player=0, illegal_action="raise")
        env.reset(seed=0)
        step = env.step
    with pytest.raises(IllegalActionError, match="illegal_action='lose' .* illegal_action='random'"):
        step(masked)
    vec = boardenvs.make_vec("quess_v0", num_envs=3, first_player=0, illegal_action="random")
    vec.reset(seed=0)
    with pytest.warns(UserWarning, match="random legal action"):
        _, rewards, term, _, infos = vec.step(np.array([masked, masked, masked]))
    assert not term.any() and infos["illegal_action"].all() and (vec.to_move == 1).all()


def test_loose_option_values_are_refused():
    for kwargs, words in [
        ({"chance_agent": 1.0}, "chance_agent must be True or False"),
        ({"chance_agent": 1}, "chance_agent must be True or False"),
        ({"illegal_action": "lost"}, "illegal_action must be one of"),
        ({"render_mode": "rgb"}, "render_mode must be one of"),
    ]:
        with pytest.raises(ValueError, match=words):
            boardenvs.make("tryasina_v0", **kwargs)
    vec = boardenvs.make_vec("quess_v0", num_envs=2)
    vec.reset(seed=0)
    for bad in (1.5, "max_turns", None):
        with pytest.raises(ValueError, match="an end-reason code is an int"):
            vec.reason_name(bad)
    assert vec.reason_name(np.int64(2)) == "illegal_action"
    for kwargs, words in [
        ({"flatten": 1}, "flatten must be True or False"),
        ({"seat": 2}, "seat must be a seat 0..1"),
        ({"illegal_action": 0}, "illegal_action"),
    ]:
        with pytest.raises(ValueError, match=words):
            gymnasium.make("boardenvs/Quess-v0", **kwargs)


# --- the bounds-checked probe ----------------------------------------------------------------


def test_boundscheck_probe():
    """The public API's probes (buffers written over, copies, threads, bad
    inputs, tampered rows, random games of every game) in a fresh process
    compiled with NUMBA_BOUNDSCHECK=1 (tests/boundscheck_probe.py): an
    out-of-bounds access would be an IndexError there.  It starts when the
    suite is collected and runs beside it (tests/background.py)."""
    import background

    rc, out, err = background.result("boundscheck")
    assert rc == 0, out[-3000:] + err[-3000:]
    assert "probes passed" in out
