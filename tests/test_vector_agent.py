"""The batched single-agent view (boardenvs/wrappers/vector.py), SB3's VecEnv
over it (wrappers/sb3.py) and the self-play pool (wrappers/selfplay.py):
``gymnasium.make_vec(id, num_envs=N, opponent=...)`` for every registered id
and variant, the same games as the single env, rewards on the opponent's
move, seeds, 4 players with three opponents, and MaskablePPO on SB3VecEnv."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from boardenvs.wrappers import SB3SelfPlayCallback, SB3VecEnv, SingleAgentVectorEnv
from gymnasium.vector import AutoresetMode

import boardenvs
from boardenvs import IllegalActionError
from boardenvs import engine as E
from boardenvs.league import League
from boardenvs.registry import game_class, gym_id_of, registered_ids

CASES = [
    pytest.param(env_id, variant, id=f"{env_id}[{'-'.join(f'{k}={v}' for k, v in variant.items()) or 'default'}]")
    for env_id in registered_ids()
    for variant in game_class(env_id).variants
]


def first_legal(observations, masks):
    return np.argmax(masks, axis=1)


def last_legal(observations, masks):
    return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)


def _random_actions(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


@pytest.mark.parametrize("env_id, variant", CASES)
@pytest.mark.parametrize("opponent", ["random", "policy"])
def test_every_row_is_the_learners_turn_with_its_own_view(env_id, variant, opponent):
    """After reset and every step, in every row: the learner's seat is to
    act, the observation is the game's observation for that seat and the
    mask its legal actions; ended rows report the learner's return."""
    # a short max_turns, so that episodes of every game end within the run
    venv = gymnasium.make_vec(
        gym_id_of(game_class(env_id)),
        num_envs=9,
        opponent=last_legal if opponent == "policy" else "random",
        **{"max_turns": 40, **variant},
    )
    env = venv.unwrapped
    assert isinstance(env, SingleAgentVectorEnv) and env.metadata["autoreset_mode"].name == "SAME_STEP"
    obs, info = venv.reset(seed=1)
    rng = np.random.default_rng(1)
    game = env.game
    ended = 0
    for _ in range(60):
        for i in range(env.num_envs):
            pos = env.position(i)
            assert pos.to_move == info["seat"][i] and not pos.is_terminal
            assert np.array_equal(obs[i], game.observe(pos.state, int(info["seat"][i])).ravel())  # flat by default
            assert np.array_equal(info["action_mask"][i], game.legal_mask(pos.state)[: game.num_actions].astype(bool))
        assert obs in venv.observation_space
        obs, rewards, term, trunc, info = venv.step(_random_actions(info["action_mask"], rng))
        done = term | trunc
        assert not (term & trunc).any()
        assert np.all(rewards[~done] == 0) and set(rewards[done]) <= {-1.0, 0.0, 1.0}
        if done.any():
            assert np.array_equal(info["_final_obs"], done)
            assert all(info["final_obs"][i].shape == obs.shape[1:] for i in np.flatnonzero(done))
            assert np.array_equal(info["final_info"]["return"][done], rewards[done])
            ended += int(done.sum())
    assert ended > 0


@pytest.mark.parametrize("env_id, options", [("quagmire_v0", {"radius": 2}), ("quess_v0", {"max_turns": 30})])
def test_each_row_plays_the_same_game_as_the_single_env(env_id, options):
    """Deterministic learner and opponent, fixed seats: every row of the
    batched view plays exactly the single env's episode (same observations,
    same final observation, reward and length)."""
    gid = gym_id_of(game_class(env_id))
    single = gymnasium.make(gid, opponent=last_legal, seat=1, first_player=0, **options).unwrapped
    obs, info = single.reset(seed=0)
    trace = [obs]
    while True:
        obs, reward, term, trunc, info = single.step(int(first_legal(None, info["action_mask"][None])[0]))
        trace.append(obs)
        if term or trunc:
            break
    venv = gymnasium.make_vec(gid, num_envs=5, opponent=last_legal, seat=1, first_player=0, **options)
    vobs, vinfo = venv.reset(seed=0)
    for k, expected in enumerate(trace[:-1]):
        assert all(np.array_equal(vobs[i], expected) for i in range(5)), f"step {k}"
        vobs, rewards, term, trunc, vinfo = venv.step(first_legal(None, vinfo["action_mask"]))
    assert (term | trunc).all() and np.all(rewards == reward) and np.all(term == term[0])
    assert all(np.array_equal(vinfo["final_obs"][i], trace[-1]) for i in range(5))
    assert np.all(vinfo["final_info"]["learner_steps"] == len(trace) - 1)
    assert np.all(vinfo["final_info"]["length"] == single.position().turn)  # the game's turns
    assert all(vinfo["final_info"]["end_reason"][i] == info["end_reason"] for i in range(5))


def test_the_learner_loses_on_the_opponents_move():
    """QM-8: the player to move with no legal move loses; when an opponent's
    move leaves the learner trapped, the learner's reward is -1 in that
    step (the same step the opponent moved).  (The learner's own move never
    costs it the game in Quagmire: after it moves, the opponent is the one to
    move, so every -1 here came from an opponent's move.)"""
    venv = gymnasium.make_vec("boardenvs/Quagmire-v0", num_envs=64, radius=2, seat=0, opponent="random")
    obs, info = venv.reset(seed=3)
    rng = np.random.default_rng(3)
    losses = wins = 0
    for _ in range(40):
        obs, rewards, term, trunc, info = venv.step(_random_actions(info["action_mask"], rng))
        losses += int((rewards == -1).sum())
        wins += int((rewards == 1).sum())
        assert not trunc.any() and np.array_equal(rewards != 0, term)
        if term.any():
            reasons = set(info["final_info"]["end_reason"][term])
            assert reasons == {"no_legal_move"}
    assert losses > 10 and wins > 10


def test_same_seed_same_episodes_and_seats_from_the_seed():
    def run(seed, opponent):
        venv = gymnasium.make_vec("boardenvs/Quess-v0", num_envs=16, max_turns=40, opponent=opponent)
        obs, info = venv.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs.copy(), info["seat"].copy()]
        for _ in range(50):
            obs, r, te, tr, info = venv.step(_random_actions(info["action_mask"], rng))
            out += [obs.copy(), r.copy(), te.copy(), tr.copy()]
        return out

    for opponent in ("random", first_legal):
        a, b, c = run(7, opponent), run(7, opponent), run(8, opponent)
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
        assert not all(np.array_equal(x, y) for x, y in zip(a, c))
        assert set(a[1]) == {0, 1}  # seats drawn per row


def test_four_players_three_opponents_eliminations_and_chance():
    """ContractRace, 4 seats: three opponents per row (one batched policy
    call per round for all rows waiting on it), chance inside, and a learner
    eliminated ends its episode with -1."""
    calls = []

    def policy(observations, masks):
        calls.append(len(masks))
        return np.argmax(masks, axis=1)

    venv = gymnasium.make_vec("boardenvs/ContractRace-v0", num_envs=32, num_players=4, goal=12, opponent=policy)
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    results = []
    for _ in range(80):
        obs, rewards, term, trunc, info = venv.step(_random_actions(info["action_mask"], rng))
        results += list(rewards[term | trunc])
    assert {-1.0, 1.0} <= set(results)
    assert max(calls) > 1, "opponents are asked once per round for a batch of rows"
    assert set(info["seat"]) == {0, 1, 2, 3}


def test_illegal_learner_actions_and_failing_opponents_change_nothing():
    venv = SingleAgentVectorEnv("quess_v0", num_envs=4, seat=0, first_player=0, illegal_action="raise")
    _, info = venv.reset(seed=0)
    before = venv.vec.states.copy()
    for bad in (np.zeros(4, np.int64), np.full(4, 5000), np.zeros(3, np.int64), np.full(4, 1.5)):
        with pytest.raises(IllegalActionError):
            venv.step(bad)
        assert np.array_equal(venv.vec.states, before)
    lose = SingleAgentVectorEnv("quess_v0", num_envs=4, seat=0, first_player=0)  # "lose" is the default
    _, info = lose.reset(seed=0)
    acts = first_legal(None, info["action_mask"])
    acts[2] = 0  # masked out in Quess' first position
    _, rewards, term, _, info = lose.step(acts)
    assert rewards.tolist() == [0, 0, -1, 0] and term.tolist() == [False, False, True, False]
    assert (
        info["final_info"]["end_reason"][2]
        == "illegal_action"
        == lose.game.reason_name(info["final_info"]["end_reason_code"][2])
    )
    assert info["illegal_action"].tolist() == [False, False, True, False]

    def bad_opponent(observations, masks):
        return np.full(len(masks), 9999)

    # an opponent's illegal answer is refused before it is played; the step stops part-way (no
    # undo copy of the rows is taken), so the env asks for reset(), which starts afresh
    venv = SingleAgentVectorEnv("quess_v0", num_envs=4, seat=0, first_player=0, opponent=bad_opponent)
    obs0, info = venv.reset(seed=0)
    with pytest.raises(IllegalActionError, match="opponent"):
        venv.step(first_legal(None, info["action_mask"]))
    assert (venv.vec.states[:, boardenvs.engine.H_CURRENT] == 1).all()  # each row waits for the opponent's answer
    with pytest.raises(boardenvs.errors.ResetNeededError, match="part-way .IllegalActionError.*call reset"):
        venv.step(first_legal(None, info["action_mask"]))
    obs, _ = venv.reset(seed=0)
    assert np.array_equal(obs, obs0)
    with pytest.raises(ValueError, match="seat"):
        SingleAgentVectorEnv("quess_v0", num_envs=2, seat=2)
    with pytest.raises(boardenvs.errors.ResetNeededError):
        SingleAgentVectorEnv("quess_v0", num_envs=2).step(np.zeros(2, np.int64))


@pytest.mark.parametrize("env_id", registered_ids())
def test_maskable_ppo_trains_on_sb3_vec_env(env_id):
    """MaskablePPO trains 2048 steps on SB3VecEnv over the kernels, asking
    its masks through env_method("action_masks"); ended rows carry
    terminal_observation and SB3 logs their episodes without VecMonitor."""
    from sb3_contrib import MaskablePPO

    env = SB3VecEnv(gym_id_of(game_class(env_id)), num_envs=16)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=256, n_epochs=1, seed=0, verbose=0)
    model.learn(2048)
    assert model.num_timesteps >= 2048
    assert len(model.ep_info_buffer) > 0 and all(e["r"] in (-1.0, 0.0, 1.0) for e in model.ep_info_buffer)
    assert np.stack(env.env_method("action_masks")).shape == (16, game_class(env_id)().num_actions)
    env.reset()
    for _ in range(200):
        env.step_async(first_legal(None, env.action_masks()))
        obs, rewards, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones):
            assert infos[i]["terminal_observation"].shape == obs.shape[1:] and "episode" in infos[i]
        if dones.any():
            break
    assert dones.any()


def test_sb3_vec_monitor_and_make_vec_env_work_too():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecMonitor

    env = VecMonitor(SB3VecEnv("quagmire_v0", num_envs=8, radius=2))
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=1, seed=0, verbose=0)
    model.learn(1024)
    assert len(model.ep_info_buffer) > 0
    dummy = make_vec_env("boardenvs/Quagmire-v0", n_envs=2, env_kwargs={"radius": 2})
    MaskablePPO("MlpPolicy", dummy, n_steps=64, batch_size=64, n_epochs=1, seed=0).learn(256)


def test_the_sb3_callback_adds_snapshots_to_the_league_and_opponents_play_them():
    from sb3_contrib import MaskablePPO

    pool = League(max_size=3, latest_prob=0.5)
    assert pool.pick(np.random.default_rng(0)).name == "random"  # empty: the initial opponent
    env = SB3VecEnv("quagmire_v0", num_envs=8, radius=2, opponent=pool)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=1, seed=0, verbose=0)
    model.learn(1024, callback=SB3SelfPlayCallback(pool, every=256))
    assert pool.added >= 4 and len(pool) == 3  # one at the start, then every 256 steps; the oldest dropped
    assert pool.picks > 0
    picked = {id(env.venv._opp_list[k]) for k in np.unique(env.venv._opp_ids)}
    assert picked <= {id(s) for s in pool.snapshots} | {id(o) for o in env.venv._opp_list}
    assert any(o.name.startswith("snapshot") for o in env.venv._opp_list)
    # snapshots are frozen copies: training the learner further leaves them as they were
    import torch

    snap = pool.snapshots[-1]
    weights = [p.detach().clone() for p in snap.policy.parameters()]
    model.learn(256, reset_num_timesteps=False)
    assert all(torch.equal(w, p) for w, p in zip(weights, snap.policy.parameters()))
    # the single env picks one per episode, named in its info
    single = gymnasium.make("boardenvs/Quagmire-v0", radius=2, opponent=pool)
    names = {single.reset(seed=s)[1]["opponent"] for s in range(20)}
    assert names and all(n.startswith("snapshot") for n in names) and len(names) > 1
    assert not hasattr(snap.policy, "optimizer") or snap.policy.optimizer is None  # no optimizer state copied
    assert model.policy.optimizer is not None
    with pytest.raises(ValueError, match="latest_prob"):
        League(latest_prob=2)
    with pytest.raises(TypeError, match="a league holds Opponents"):
        pool.add("not a model")
    from boardenvs.wrappers import sb3_snapshot

    with pytest.raises(TypeError, match="SB3 model"):
        sb3_snapshot("not a model")
    with pytest.raises(TypeError, match="League"):
        SB3SelfPlayCallback("pool")


def test_model_opponents_sample_from_the_env_generator():
    """A trained model as opponent: seeded envs replay (its actions are drawn
    with the env's generator), and always legal."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", SB3VecEnv("quagmire_v0", num_envs=4, radius=2), n_steps=32, batch_size=64, seed=0)

    def run():
        venv = SingleAgentVectorEnv("quagmire_v0", num_envs=8, radius=2, opponent=model)
        obs, info = venv.reset(seed=4)
        out = []
        for _ in range(15):
            obs, r, te, tr, info = venv.step(first_legal(None, info["action_mask"]))
            out.append(obs)
        return np.stack(out)

    assert np.array_equal(run(), run())


def test_a_failing_opponent_while_ended_rows_restart_asks_for_reset():
    """The opponent fails in the middle of a step whose ended rows are being
    dealt new games (where it moves first).  No undo copy of the rows is
    kept (no per-step snapshot), so the step leaves them part-way
    and every later step() asks for reset(), naming the failure; a reset with
    the same seed then plays the unbroken run's games again."""
    calls = {"n": 0, "fail_at": -1}

    def policy(observations, masks):
        calls["n"] += 1
        if calls["n"] == calls["fail_at"]:
            raise RuntimeError("opponent down")
        return np.argmax(masks, axis=1)

    def make():
        env = SingleAgentVectorEnv("quagmire_v0", num_envs=8, radius=2, seat=1, first_player=0, opponent=policy)
        return env, env.reset(seed=0)[1]

    env, info = make()  # an unbroken run: the first step that ends a row
    for k in range(200):  # noqa: B007 - k is read after the loop: the step that ended a row
        _, rewards, term, trunc, info = env.step(first_legal(None, info["action_mask"]))
        if (term | trunc).any():
            break
    else:
        raise AssertionError("no row ended in 200 steps")
    env, info = make()
    for _ in range(k):
        _, _, _, _, info = env.step(first_legal(None, info["action_mask"]))
    calls["fail_at"] = calls["n"] + 2  # the reply in every row, then the first move of a new game
    actions = first_legal(None, info["action_mask"])
    with pytest.raises(RuntimeError, match="opponent down"):
        env.step(actions)
    ended = np.flatnonzero(term | trunc)
    st = env.vec.states
    assert (st[ended, E.H_STATUS] == E.PLAYING).all() and (
        st[ended, E.H_CURRENT] == 0
    ).all()  # new games, opponent to move
    for _ in range(2):
        with pytest.raises(boardenvs.errors.ResetNeededError, match="opponent down"):
            env.step(actions)
    _, info = env.reset(seed=0)
    for _ in range(k):
        _, _, _, _, info = env.step(first_legal(None, info["action_mask"]))
    _, rewards2, term2, trunc2, _ = env.step(actions)
    assert np.array_equal(term2, term) and np.array_equal(trunc2, trunc) and np.array_equal(rewards2, rewards)


def test_gymnasium_episode_statistics_and_unseeded_resets():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    venv = RecordEpisodeStatistics(gymnasium.make_vec("boardenvs/Quagmire-v0", num_envs=4, radius=2))
    obs, info = venv.reset(seed=0)
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(60):
        obs, rewards, term, trunc, info = venv.step(_random_actions(info["action_mask"], rng))
        if "episode" in info:
            done = info["_episode"]
            assert np.array_equal(info["episode"]["r"][done], rewards[done])
            assert np.array_equal(info["episode"]["l"][done], info["final_info"]["learner_steps"][done])
            seen += int(done.sum())
    assert seen > 0

    def after_two_resets():
        env = gymnasium.make_vec("boardenvs/Quess-v0", num_envs=4)
        env.reset(seed=3)
        return env.reset()[0]

    assert np.array_equal(
        after_two_resets(), after_two_resets()
    )  # an unseeded reset goes on with the seeded generators


def test_more_opponents_than_the_list_keeps_each_row_with_its_own():
    """The view keeps at most 64 opponents and forgets those no row plays;
    a reset that picks more than that at once (a picker handing out a new
    opponent per episode) renumbers the rows already dealt, so every row
    plays the opponent picked for it."""
    from boardenvs.opponents import PolicyOpponent

    class Fresh:
        def __init__(self):
            self.picks = []

        def pick(self, rng):
            self.picks.append(PolicyOpponent(first_legal, name=f"fresh{len(self.picks)}"))
            return self.picks[-1]

    fresh = Fresh()
    env = SingleAgentVectorEnv("quagmire_v0", num_envs=100, radius=2, opponent=fresh)
    env.reset(seed=0)
    assert len(fresh.picks) == 100 and len(env._opp_list) <= 100
    assert all(env._opp_list[env._opp_ids[r]] is fresh.picks[r] for r in range(100))
    rng = np.random.default_rng(0)
    for _ in range(30):  # rows end and are dealt new opponents, several at a time
        env.step(_random_actions(env.action_masks(), rng))
    assert len(fresh.picks) > 100
    used = {id(env._opp_list[k]) for k in env._opp_ids}
    assert len(used) == 100 and used <= {id(p) for p in fresh.picks}


@pytest.mark.parametrize(
    "env_id, options",
    [
        ("quagmire_v0", {"radius": 2}),
        ("tryasina_v0", {"num_players": 3, "max_turns": 60}),
        ("hex_quoridor_v1", {"num_players": 4, "radius": 2}),
    ],
)
def test_next_step_autoreset_plays_the_same_episodes_one_step_later(env_id, options):
    """autoreset_mode="next_step" (gymnasium's default, what RLlib's env
    runners assume): the step that ends an episode returns its last
    observation (SAME_STEP's final_obs) with its return and end in infos;
    the row's next step ignores its action and returns the new episode's
    first observation, reward 0.  Row by row, the episodes are the ones the
    SAME_STEP view plays (same returns, lengths, end reasons, observations)."""
    gid = gym_id_of(game_class(env_id))
    kw = dict(num_envs=6, opponent="random", seat="random", **options)
    same = gymnasium.make_vec(gid, **kw)
    nxt = gymnasium.make_vec(gid, autoreset_mode="next_step", **kw)
    assert nxt.unwrapped.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    o1, i1 = same.reset(seed=4)
    o2, i2 = nxt.reset(seed=4)
    episodes = {"same": [[] for _ in range(6)], "next": [[] for _ in range(6)]}
    traces = {"same": [[o1[i].copy()] for i in range(6)], "next": [[o2[i].copy()] for i in range(6)]}
    waiting = np.zeros(6, bool)  # next_step rows whose next step is the reset
    for _ in range(120):
        a1 = first_legal(None, i1["action_mask"])
        o1, r1, t1, tr1, i1 = same.step(a1)
        for i in np.flatnonzero(t1 | tr1):
            episodes["same"][i].append(
                (float(r1[i]), int(i1["final_info"]["learner_steps"][i]), i1["final_info"]["end_reason"][i])
            )
            traces["same"][i].append(i1["final_obs"][i].copy())
            traces["same"][i].append(None)
        for i in np.flatnonzero(~(t1 | tr1)):
            traces["same"][i].append(o1[i].copy())
        traces_same_new = [i for i in np.flatnonzero(t1 | tr1)]
        for i in traces_same_new:
            traces["same"][i].append(o1[i].copy())
        a2 = first_legal(None, i2["action_mask"])
        a2[waiting] = 10**6  # ignored: those rows start their new episode
        o2, r2, t2, tr2, i2 = nxt.step(a2)
        assert (r2[waiting] == 0).all() and not (t2 | tr2)[waiting].any()
        for i in np.flatnonzero(t2 | tr2):
            episodes["next"][i].append((float(r2[i]), int(i2["learner_steps"][i]), i2["end_reason"][i]))
            traces["next"][i].append(o2[i].copy())
            traces["next"][i].append(None)
        for i in np.flatnonzero(~(t2 | tr2)):
            traces["next"][i].append(o2[i].copy())
        waiting = t2 | tr2
    checked = 0
    for i in range(6):
        n = min(len(episodes["same"][i]), len(episodes["next"][i]))
        assert n > 0 and episodes["same"][i][:n] == episodes["next"][i][:n]

        # the observation streams agree: episode by episode, the same observations
        def split(tr):
            return [
                list(g) for g in np.split(np.array(tr, dtype=object), [k + 1 for k, x in enumerate(tr) if x is None])
            ]

        for e1, e2 in zip(split(traces["same"][i])[:n], split(traces["next"][i])[:n]):
            assert len(e1) == len(e2) and all((x is None and y is None) or np.array_equal(x, y) for x, y in zip(e1, e2))
            checked += 1
    assert checked >= 6


def test_env_method_action_masks_stacks_as_one_copy():
    """``env_method("action_masks")`` answers a row per env, each an
    ndarray; sb3-contrib's ``get_action_masks`` (``np.stack`` of them, in
    order) gets one copy of the batch instead of a row-by-row stack: the
    same values, a plain array, its own memory, unchanged by the next step.
    Any other use of the rows (indices, other numpy calls) is numpy's."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = SB3VecEnv("quess_v0", num_envs=24)
    env.seed(3)
    env.reset()
    rows = env.env_method("action_masks")
    stacked = get_action_masks(env)
    slow = np.array([np.asarray(r).copy() for r in rows])
    assert type(stacked) is np.ndarray and stacked.dtype == np.bool_ and stacked.shape == (24, env.action_space.n)
    np.testing.assert_array_equal(stacked, slow)
    np.testing.assert_array_equal(stacked, env.action_masks())
    assert not np.shares_memory(stacked, env.action_masks()) and not np.shares_memory(stacked, rows[0])
    np.testing.assert_array_equal(np.stack(rows[::-1]), slow[::-1])  # not the answer in order: numpy's own stack
    np.testing.assert_array_equal(np.stack(rows, axis=1), slow.T)
    assert len(env.env_method("action_masks", indices=[2, 5])) == 2
    np.testing.assert_array_equal(np.stack(env.env_method("action_masks", indices=[2, 5])), slow[[2, 5]])
    before, rows_before = stacked.copy(), [np.array(r) for r in rows]
    env.step_async(np.argmax(stacked, axis=1))
    env.step_wait()
    np.testing.assert_array_equal(stacked, before)
    assert all(np.array_equal(r, b) for r, b in zip(rows, rows_before))  # the rows held: unchanged by the step
    np.testing.assert_array_equal(np.asarray(rows[0]), slow[0])
    assert not np.array_equal(get_action_masks(env), before)


def _row_api_twin(env):
    """``env`` with its random opponent asked from outside the engine, once
    per round for every waiting row (the path of every model, policy and
    pool opponent), instead of played inside the engine's learner loop: it
    answers the row API's ``RANDOM`` code, which the engine draws from the
    row's own generator as its random opponent does.  Counts its rounds in
    ``env.rounds``."""
    from boardenvs.wrappers.selfplay import FixedOpponent

    from boardenvs.opponents import RandomOpponent

    outside = RandomOpponent()
    outside.in_kernel = False
    env.opponents, env.rounds = FixedOpponent(outside), 0

    def decide(opponent, rows, movers, observations, masks):
        assert opponent is outside and masks.shape == (rows.shape[0], env.single_action_space.n)
        env.rounds += 1
        return np.full(rows.shape[0], env.vec.RANDOM)

    env._decide = decide
    return env


def _same_outputs(a, b, where):
    for x, y, name in zip(a[:4], b[:4], ("obs", "rewards", "terminated", "truncated")):
        if isinstance(x, dict):
            assert set(x) == set(y), where
            for key in x:
                assert x[key].dtype == y[key].dtype and np.array_equal(x[key], y[key]), (where, name, key)
        else:
            assert x.dtype == y.dtype and np.array_equal(x, y), (where, name)
    assert set(a[4]) == set(b[4]), (where, set(a[4]) ^ set(b[4]))
    for key, x in a[4].items():
        y = b[4][key]
        if key == "final_info":
            assert set(x) == set(y) and all(np.array_equal(x[k], y[k]) for k in x), (where, key)
        elif key == "final_obs":
            for u, v in zip(x, y):
                if isinstance(u, dict):
                    assert all(u[k].dtype == v[k].dtype and np.array_equal(u[k], v[k]) for k in u), (where, key)
                else:
                    assert (u is None and v is None) or (u.dtype == v.dtype and np.array_equal(u, v)), (where, key)
        else:
            assert np.array_equal(x, y), (where, key)


def _same_reset(a, b):
    """Two ``reset()`` results (observations, infos) hold the same arrays."""
    obs_a, obs_b = (a[0], b[0]) if isinstance(a[0], dict) else ({"obs": a[0]}, {"obs": b[0]})
    assert set(obs_a) == set(obs_b) and set(a[1]) == set(b[1])
    for x, y in [*zip(obs_a.values(), obs_b.values()), *((a[1][k], b[1][k]) for k in a[1])]:
        assert x.dtype == y.dtype and np.array_equal(x, y)


@pytest.mark.parametrize(
    "env_id, n, options",
    [
        ("quess_v0", 24, {}),
        (
            "quagmire_v0",
            300,
            {"radius": 3, "autoreset_mode": "next_step", "seat": 1, "parallel": True},
        ),  # threaded drivers
        ("quicksand_v0", 16, {"flatten": False, "illegal_action": "random"}),
        ("tryasina_v0", 200, {"num_players": 4, "autoreset_mode": "next_step", "max_turns": 60}),
        ("hex_quoridor_v1", 140, {"num_players": 6, "seat": 2, "action_mask_in_obs": True, "max_turns": 80}),
        ("hex_quoridor_v1", 20, {"num_players": 3, "max_turns": 50}),
    ],
)
def test_the_random_opponents_one_call_step_plays_the_row_api_games(env_id, n, options):
    """Against ``"random"`` a step is one call of the engine's ``agent_step``
    driver (the learner's move, the opponents' replies, the episode's end
    and the next one's start, the observation); every other opponent plays
    through the row API.  Both are the same games, move for move: every
    output, info, final observation and row agrees, with illegal actions
    (2%) forfeited or replaced, seats drawn or fixed, both autoreset modes."""
    a = SingleAgentVectorEnv(env_id, num_envs=n, **options)
    b = _row_api_twin(SingleAgentVectorEnv(env_id, num_envs=n, **options))
    ra, rb = a.reset(seed=5), b.reset(seed=5)
    _same_reset(ra, rb)  # a's reset: one agent_step call with every row pending; b's: the row API's rounds
    assert np.array_equal(a.vec.states, b.vec.states) and np.array_equal(a.seats, b.seats)
    rng = np.random.default_rng(1)
    ended = 0
    for t in range(90):
        masks = a.action_masks()
        assert np.array_equal(masks, b.action_masks()) and masks.dtype == np.bool_
        actions = np.array(
            [
                rng.choice(np.flatnonzero(m)) if m.any() and rng.random() > 0.02 else rng.integers(masks.shape[1])
                for m in masks
            ]
        )
        ra, rb = a.step(actions), b.step(actions)
        _same_outputs(ra, rb, t)
        assert np.array_equal(a.vec.states, b.vec.states) and np.array_equal(a.seats, b.seats), t
        ended += int((ra[2] | ra[3]).sum())
    assert ended >= n // 4 and b.rounds >= 90  # episodes ended and restarted on both paths; b asked every step


def test_the_learners_actions_exclude_the_row_apis_random_code():
    """The row API's ``RANDOM`` action code (-2) is no action of the
    learner's (its action space is 0..A-1): refused under ``"raise"``,
    forfeited under ``"lose"``, on both paths (C-6)."""
    for twin in (False, True):
        env = SingleAgentVectorEnv("quagmire_v0", num_envs=4, radius=2, illegal_action="raise")
        env = _row_api_twin(env) if twin else env
        env.reset(seed=0)
        before = np.array(env.vec.states)
        with pytest.raises(IllegalActionError, match="row 1: -2"):
            env.step(np.array([0, env.vec.RANDOM, 0, 0]))
        assert np.array_equal(env.vec.states, before)
        lose = SingleAgentVectorEnv("quagmire_v0", num_envs=4, radius=2)
        lose = _row_api_twin(lose) if twin else lose
        lose.reset(seed=0)
        actions = np.argmax(lose.action_masks(), axis=1)
        actions[2] = lose.vec.RANDOM
        _, rewards, term, _, info = lose.step(actions)
        assert info["illegal_action"].tolist() == [False, False, True, False]
        assert term[2] and rewards[2] == -1 and info["final_info"]["end_reason"][2] == "illegal_action"


def test_step_arrays_are_new_while_held_and_reused_once_dropped():
    """Each step's observations and masks are new arrays as far as the
    caller can tell: what it holds (the array, a view of it) never changes,
    and the arrays it dropped are reused rather than allocated again
    (boardenvs/fresh.py: large arrays allocated every step cost page
    faults)."""
    env = SB3VecEnv("quess_v0", num_envs=8)
    env.seed(0)
    obs = env.reset()
    kept_obs, kept_row, kept_masks = obs, obs[3], env.action_masks()
    copies = (kept_obs.copy(), kept_row.copy(), kept_masks.copy())
    seen = set()
    for _ in range(30):
        obs, *_ = env.step(np.argmax(env.action_masks(), axis=1))
        masks = env.action_masks()
        assert not np.shares_memory(obs, kept_obs) and not np.shares_memory(masks, kept_masks)
        seen.add(obs.__array_interface__["data"][0])
    for held, copy in zip((kept_obs, kept_row, kept_masks), copies):
        assert np.array_equal(held, copy)
    venv = env.venv
    assert len(seen) <= venv._fresh_obs.keep and len(venv._fresh_obs._pool) <= venv._fresh_obs.keep
    clone = __import__("copy").deepcopy(venv)
    assert clone._fresh_obs._pool == [] and np.array_equal(clone.action_masks(), venv.action_masks())
    assert not np.shares_memory(clone.action_masks(), venv.action_masks())


def test_play_learners_checks_its_inputs_before_the_engine_runs():
    """make_vec's ``play_learners`` (the one-call step the single-agent
    view uses against ``"random"``) is public: seats, pending rows, actions
    and ``out`` are checked before the kernel runs, and a refusal changes
    no row (C-6).  ``reason_names`` likewise."""
    vec = boardenvs.make_vec("tryasina_v0", num_envs=6, num_players=3, illegal_action="raise")
    vec.reset(seed=2)
    seats = vec.to_move
    actions = np.argmax(vec.action_masks(), axis=1)
    before = np.array(vec.states)
    read_only = seats.copy()
    read_only.flags.writeable = False
    bad_calls = [
        (dict(seats=seats.astype(np.int32)), ValueError, "seats must be a C-contiguous writeable int64"),
        (dict(seats=read_only), ValueError, "seats must be a C-contiguous writeable int64"),
        (dict(seats=np.zeros(12, np.int64)[::2]), ValueError, "seats must be a C-contiguous writeable int64"),
        (dict(seats=np.full(6, 3, np.int64)), ValueError, r"seats must be 0\.\.2"),
        (dict(seats=np.full(6, -1, np.int64)), ValueError, r"seats must be 0\.\.2"),
        (dict(pending=np.zeros(6, np.int8)), ValueError, "pending must be 6 bools"),
        (dict(pending=np.ones(6, np.bool_), actions=actions[:3]), IllegalActionError, r"shape \(6,\)"),
        (dict(actions=np.full(6, vec.RANDOM)), IllegalActionError, "masked out"),
        (dict(out=(np.zeros((6, 5), np.int8), np.zeros((6, 68), np.bool_))), ValueError, "out must be"),
        (dict(draw_seats=1), ValueError, "draw_seats"),
        (dict(seats=(seats + 1) % 3), ValueError, "must be to act in every row not pending; it is not in row 0"),
    ]
    for change, error, match in bad_calls:
        call = {"actions": actions, "seats": seats, **change}
        with pytest.raises(error, match=match):
            vec.play_learners(**call)
        assert np.array_equal(vec.states, before), change
    shared = np.zeros(6 * 68 + 8 * 6, np.int8)  # out's masks over the same memory as seats: refused
    overlap_seats = shared[: 8 * 6].view(np.int64)
    overlap_seats[:] = seats
    with pytest.raises(ValueError, match="must not share memory with seats or pending"):
        vec.play_learners(
            actions,
            overlap_seats,
            out=(np.zeros((6, *vec.game.obs_shape), np.int8), shared[: 6 * 68].view(np.bool_).reshape(6, 68)),
        )
    assert np.array_equal(vec.states, before)
    assert vec.reason_names(np.array([E.REASON_NONE, E.REASON_ILLEGAL])).tolist() == ["-", "illegal_action"]
    for bad in (np.array([1.5]), np.array([-1]), np.array([10**6])):
        with pytest.raises(ValueError, match="end-reason codes"):
            vec.reason_names(bad)
    res = vec.play_learners(actions, seats)  # the same inputs, well formed: it plays
    assert res["observation"].shape == (6, *vec.game.obs_shape) and res["action_mask"].dtype == np.bool_
    assert not np.array_equal(vec.states, before)


def test_rows_whose_new_games_all_end_at_once_are_named_and_the_rest_played():
    """A learner whose new games end before its first decision 64 times in a
    row (the toy game truncated after one turn, the learner second): that
    row is left over and named, every other row is played, nothing is
    left unwritten; the single-agent view then asks for reset()."""
    vec = boardenvs.make_vec("contract_race_v0", num_envs=4, max_turns=1, first_player=0)
    vec.reset(seed=0)
    before = np.array(vec.states)
    seats = np.array([1, 0, 0, 0], np.int64)  # row 0 starts a new episode as seat 1: it never gets to act
    obs = np.full((4, *vec.game.obs_shape), 99, np.int8)
    masks = np.ones((4, vec.num_actions), np.bool_)
    with pytest.raises(
        RuntimeError,
        match=r"64 new games in a row ended the learner's episode before its first "
        r"decision in row\(s\) \[0\]",
    ) as failed:
        vec.play_learners(np.zeros(3, np.int64), seats, pending=np.array([True, False, False, False]), out=(obs, masks))
    assert vec.states[0, E.H_STATUS] != E.PLAYING and not masks[0].any() and (obs[0] != 99).all()
    assert failed.value.result["ended"].tolist()[0] == -1 and failed.value.result["observation"] is obs
    with pytest.raises(ValueError, match="must be to act in every row not pending; it is not in row 0"):
        vec.play_learners(np.zeros(4, np.int64), seats)  # the row is left as it is, not playable
    assert all(not np.array_equal(vec.states[r], before[r]) for r in (1, 2, 3))  # the others played
    for opponent in ("random", lambda observations, masks: np.argmax(masks, axis=1)):  # in the engine, outside it
        env = SingleAgentVectorEnv(
            "contract_race_v0", num_envs=3, max_turns=1, first_player=0, seat=1, opponent=opponent
        )
        with pytest.raises(RuntimeError, match=r"64 new games .* row\(s\) \[0, 1, 2\].*call reset"):
            env.reset(seed=0)
        with pytest.raises(boardenvs.errors.ResetNeededError):
            env.step(np.zeros(3, np.int64))


@pytest.mark.parametrize(
    "env_id, options",
    [
        ("quagmire_v0", {"radius": 2}),
        ("tryasina_v0", {"num_players": 3}),
        ("hex_quoridor_v1", {"num_players": 4, "radius": 2}),
    ],
)
@pytest.mark.parametrize("parallel", [False, True])
def test_greedy_plays_inside_the_learner_loop_as_its_driver_decides(env_id, options, parallel):
    """The learner loop: "greedy" has an engine decision, so
    play_learners plays it inside the compiled step (no Python round per
    decision).  Each of its decisions is greedy's own driver's for the same
    row and seed (drawn from the row's generator): a Python replay of every
    row with the engine's one step (Game.step) and greedy_driver gives the
    same rows, move for move, serial and threaded."""
    from boardenvs.baselines.greedy import greedy_driver

    from boardenvs.opponents import make_opponent

    n = 40
    game = boardenvs.make_game(env_id, **options)
    vec = boardenvs.make_vec(env_id, num_envs=n, parallel=parallel, **options)
    vec.reset(seed=21)
    greedy = make_opponent("greedy")
    seats = np.zeros(n, np.int64)
    res = vec.play_learners(
        np.zeros(0, np.int64), seats, draw_seats=True, pending=np.ones(n, np.bool_), opponent=greedy
    )
    rng, decide = np.random.default_rng(5), greedy_driver(type(game))
    compared = 0
    for _ in range(25):
        rows = np.array(vec.states)
        masks = [game.legal_mask(r) for r in rows]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in res["action_mask"]], np.int64)
        res = vec.play_learners(actions, seats, draw_seats=True, opponent=greedy)
        for i in np.flatnonzero(res["ended"] == 0):
            s, mask, seat = rows[i], masks[i], seats[i]
            game.step(s, int(actions[i]), mask)
            while s[E.H_STATUS] == E.PLAYING and (s[E.H_ALIVE] >> seat) & 1 and s[E.H_CURRENT] != seat:
                seed = np.array([int(E.rand_u64(s)) >> 1], np.int64)  # greedy's ties, from the row's generator
                out = np.zeros(1, np.int64)
                decide(s[None].copy(), game.params, seed, out, game.mask_size)
                assert mask[out[0]] == 1
                game.step(s, int(out[0]), mask)
            assert np.array_equal(s, vec.states[i]), (i, seat)
            compared += 1
    assert compared > 25 * n // 2


def test_the_vector_view_plays_greedy_in_the_kernel_and_reproducibly():
    """gymnasium's vector view and SB3VecEnv against "greedy": one engine
    call a step (play_learners with greedy's engine decision), the same
    games for the same seed."""
    from boardenvs.vector import VectorEnv

    calls = []
    real = VectorEnv.play_learners

    def counting(self, *args, **kwargs):
        calls.append(kwargs.get("opponent"))
        return real(self, *args, **kwargs)

    def run():
        env = SingleAgentVectorEnv("quagmire_v0", num_envs=16, radius=2, opponent="greedy")
        obs, info = env.reset(seed=7)
        out = []
        for _ in range(12):
            obs, r, te, tr, info = env.step(first_legal(None, info["action_mask"]))
            out.append((obs.copy(), r.copy(), te.copy()))
        return out

    import unittest.mock

    with unittest.mock.patch.object(VectorEnv, "play_learners", counting):
        a = run()
    assert len(calls) == 13 and all(c is not None and c.name == "greedy" for c in calls)
    b = run()
    assert all(np.array_equal(x, y) for p, q in zip(a, b) for x, y in zip(p, q))


def test_play_learners_asks_the_opponents_outside_the_engine_once_per_round():
    """make_vec's learner loop with opponents outside the engine: rows
    marked ``outside`` stop where their opponent is to act and ``ask`` gets
    every waiting row once per round, with the mover's view and mask; the
    others play in the engine; ``pick`` chooses the opponents of new
    episodes; answers are checked; serial and threaded agree."""

    def run(parallel, picked):
        vec = boardenvs.make_vec("quagmire_v0", num_envs=64, radius=2, parallel=parallel)
        vec.seed_rows(3)
        seats, outside, asked, picks = np.ones(64, np.int64), np.zeros(64, np.bool_), [], []

        def ask(rows, movers, observations, masks):
            assert np.array_equal(rows, np.sort(rows)) and outside[rows].all() and (movers != 1).all()
            obs, engine_masks = vec.observe_rows(rows, movers)
            assert np.array_equal(observations, obs) and np.array_equal(masks, engine_masks)
            asked.append(rows.shape[0])
            return np.argmax(masks, axis=1)

        def pick(rows):
            picks.append(rows.copy())
            outside[rows] = rows % 3 == 0

        if not picked:
            outside[::3] = True
        vec.play_learners(
            np.zeros(0, np.int64),
            seats,
            pending=np.ones(64, np.bool_),
            ask=ask,
            outside=outside,
            pick=pick if picked else None,
        )
        for _ in range(12):
            st = vec.states
            assert ((st[:, E.H_CURRENT] == 1) & (st[:, E.H_STATUS] == E.PLAYING)).all()  # every learner to act
            masks = vec.observe_rows(np.arange(64), seats)[1]
            vec.play_learners(np.argmax(masks, axis=1), seats, ask=ask, outside=outside, pick=pick if picked else None)
        return vec, asked, picks, outside

    (vec, asked, picks, outside), (threaded, asked2, _, _) = run(False, False), run(True, False)
    assert np.array_equal(vec.states, threaded.states) and asked == asked2
    assert len(asked) >= 12 and max(asked) <= 22 and not picks  # once per round, the 22 outside rows at most
    picked, _, picks, outside2 = run(False, True)
    assert np.array_equal(picks[0], np.arange(64)) and np.array_equal(outside2, outside)
    assert np.array_equal(picked.states, vec.states)  # the same opponents, picked per episode: the same games
    seats = np.ones(64, np.int64)
    masks = vec.observe_rows(np.arange(64), seats)[1]
    before = np.array(vec.states)
    for kwargs, name in (
        (dict(outside=outside.astype(np.int8), ask=len), "outside"),
        (dict(outside=outside), "ask"),
        (dict(outside=outside, ask=len, pick=3), "pick"),
    ):
        with pytest.raises(ValueError, match=name):
            vec.play_learners(np.argmax(masks, axis=1), seats, **kwargs)
    assert np.array_equal(vec.states, before)
    with pytest.raises(IllegalActionError, match="outside 0..102 or masked out"):
        vec.play_learners(
            np.argmax(masks, axis=1),
            seats,
            outside=outside,
            ask=lambda rows, movers, obs, m: np.full(rows.shape[0], 1000),
        )
