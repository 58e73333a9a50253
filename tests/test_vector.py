"""``boardenvs.make_vec``: the batched face as an object that owns its
buffers, checks every input before a kernel runs, auto-resets in place, and
works in forked and spawned workers after it ran."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from backstop import HANG_S  # noqa: E402 - the tests' one wall-clock backstop

import boardenvs
from boardenvs import IllegalActionError
from boardenvs import engine as E
from boardenvs.errors import ResetNeededError


def _vec(n=8, **options):
    vec = boardenvs.make_vec("quagmire_v0", num_envs=n, radius=2, **options)
    vec.reset(seed=3)
    return vec


def test_shapes_and_dtypes():
    vec = boardenvs.make_vec("quess_v0", num_envs=5)
    obs, infos = vec.reset(seed=0)
    assert obs["observation"].shape == (5, 6, 6, 8) and obs["observation"].dtype == np.int8
    assert obs["action_mask"].shape == (5, 1296) and obs["action_mask"].dtype == np.int8
    assert infos["to_move"].shape == (5,) and set(infos["to_move"].tolist()) <= {0, 1}
    obs, rewards, term, trunc, infos = vec.step(vec.random_actions())
    assert rewards.shape == (5, 2) and rewards.dtype == np.float32
    assert term.dtype == np.bool_ and trunc.shape == (5,)
    assert {"to_move", "end_reason", "length"} <= set(infos)
    assert repr(vec).startswith("<VectorEnv quess_v0 num_envs=5")


def test_random_actions_are_legal_and_reproduced_by_the_seed():
    a, b = _vec(), _vec()
    for _ in range(30):
        acts = a.random_actions()
        assert (a.action_masks()[np.arange(8), acts] == 1).all()
        np.testing.assert_array_equal(acts, b.random_actions())
        a.step(acts)
        b.step(acts)
    np.testing.assert_array_equal(a.states, b.states)


@pytest.mark.parametrize(
    "actions, words",
    [
        (np.zeros(7, np.int64), ["shape (8,)"]),
        (np.zeros((8, 1), np.int64), ["shape (8,)"]),
        (np.zeros(8, np.float64), ["integers", "float64"]),
        (np.zeros(8, np.bool_), ["integers", "bool"]),
        ([0.5] * 8, ["integers"]),
        ("abcdefgh", ["shape"]),
        (np.full(8, 2**63 + 5, np.uint64), ["outside", "row 0"]),  # no wrap-around into a small action
        (np.full(8, -1, np.int8), ["outside"]),
        (np.full(8, 10**6, np.int64), ["outside"]),
    ],
)
def test_bad_actions_raise_before_any_row_changes(actions, words):
    vec = _vec(illegal_action="raise")
    before = vec.states.copy()
    with pytest.raises(IllegalActionError) as info:
        vec.step(actions)
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    np.testing.assert_array_equal(vec.states, before)


def test_a_masked_out_action_in_one_row_touches_no_row():
    vec = _vec(illegal_action="raise")
    actions = vec.random_actions()
    taken = int(actions[3])
    masked = int(np.flatnonzero(vec.action_masks()[5] == 0)[0])
    actions[5] = masked
    before = vec.states.copy()
    with pytest.raises(IllegalActionError, match=f"row 5: {masked}") as info:
        vec.step(actions)
    assert "illegal_action='lose'" in str(info.value) and "'random'" in str(info.value)  # the alternatives named
    np.testing.assert_array_equal(vec.states, before)
    assert taken == actions[3]


def test_illegal_action_lose_forfeits_only_that_row():
    vec = _vec()  # "lose" is the default (C-6, PettingZoo classic's convention)
    assert vec.illegal_action == "lose"
    actions = vec.random_actions()
    mover = int(vec.to_move[5])
    actions[5] = int(np.flatnonzero(vec.action_masks()[5] == 0)[0])
    actions[6] = 10**6  # out of range: the same
    _, rewards, term, trunc, infos = vec.step(actions)
    assert term[5] and term[6] and not term[[0, 1, 2, 3, 4, 7]].any()
    assert rewards[5, mover] == -1.0 and rewards[5, 1 - mover] == 0.0
    assert infos["end_reason"][5] == "illegal_action" == vec.reason_name(infos["end_reason_code"][5])
    assert infos["illegal_action"].tolist() == [False] * 5 + [True, True, False]
    assert vec.states[5, E.H_TURN] == 0, "the row started a new game"
    # the next step's infos mark no row again
    assert not vec.step(vec.random_actions())[4]["illegal_action"].any()


@pytest.mark.parametrize("parallel", [False, True])
def test_step_checks_actions_in_the_driver(parallel):
    """C-6 in "lose" / "random" mode: step's driver checks each action
    against the row's mask (no check in Python first).  Masked out, past the
    range, -1, RANDOM (no learner's action in step) and a uint64 past
    int64's range are all illegal: flagged in infos, warned about once with
    the caller's values; "lose" forfeits exactly those rows, "random" plays
    the draw the row API's RANDOM plays, from the same generators."""
    n = 200 if parallel else 8

    def make(mode):
        return boardenvs.make_vec("quess_v0", num_envs=n, first_player=0, illegal_action=mode, parallel=parallel)

    lose, rand, twin = make("lose"), make("random"), make("random")
    for v in (lose, rand, twin):
        v.reset(seed=4)
    actions = lose.random_actions().astype(np.uint64)
    rand.random_actions(), twin.random_actions()
    bad = [1, 2, 3, 4, 6]
    actions[1] = np.flatnonzero(lose.action_masks()[1] == 0)[0]
    actions[2], actions[3], actions[4], actions[6] = 1296, 2**64 - 1, 2**64 - 2, 2**63 + 5  # past int64: -1
    flagged = np.zeros(n, np.bool_)
    flagged[bad] = True
    with pytest.warns(UserWarning, match=r"5 action\(s\) outside 0..1295 .*row 3: 18446744073709551615.*forfeits"):
        _, rewards, term, _, infos = lose.step(actions)
    np.testing.assert_array_equal(infos["illegal_action"], flagged)
    np.testing.assert_array_equal(term, flagged)
    assert (rewards[bad, 0] == -1.0).all() and (infos["end_reason"][bad] == "illegal_action").all()
    with pytest.warns(UserWarning, match="plays a random legal action instead"):
        _, _, term, _, infos = rand.step(actions)
    np.testing.assert_array_equal(infos["illegal_action"], flagged)
    assert not term.any()
    replaced = actions.astype(np.int64)
    replaced[bad] = twin.RANDOM
    twin.act_rows(np.arange(n), replaced)
    np.testing.assert_array_equal(rand.states, twin.states)
    # once per env: the next illegal step flags its rows without a warning
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, _, term, _, infos = lose.step(np.full(n, -1))
    assert term.all() and infos["illegal_action"].all()
    assert not lose.step(lose.random_actions())[4]["illegal_action"].any()
    # RANDOM itself (-2, int64: the uint64 values above reach the driver as -1) and a strided array
    wide = np.repeat(lose.random_actions(), 2)
    wide[2 * 3] = lose.RANDOM
    _, _, term, _, infos = lose.step(wide[::2])
    np.testing.assert_array_equal(infos["illegal_action"], np.arange(n) == 3)
    np.testing.assert_array_equal(term, np.arange(n) == 3)
    actions = rand.random_actions()
    twin.random_actions()
    actions[3] = rand.RANDOM
    _, _, term, _, infos = rand.step(actions)
    np.testing.assert_array_equal(infos["illegal_action"], np.arange(n) == 3)
    twin.act_rows(np.arange(n), actions)
    np.testing.assert_array_equal(rand.states, twin.states)


@pytest.mark.parametrize("env_id,options", [("quess_v0", {}), ("tryasina_v0", {"num_players": 3})])
@pytest.mark.parametrize("parallel", [False, True])
def test_step_random_plays_the_games_of_step_random_actions(env_id, options, parallel):
    """step_random() draws in the step's driver what random_actions() would
    have drawn from the same generators: the same games move for move
    (observations, masks, rewards, ends, every row's state), chance included."""
    a, b = (boardenvs.make_vec(env_id, num_envs=150, parallel=parallel, **options) for _ in range(2))
    with pytest.raises(ResetNeededError, match="step_random"):
        b.step_random()
    a.reset(seed=21), b.reset(seed=21)
    ended = 0
    for _ in range(300):
        obs_a, rew_a, term_a, trunc_a, inf_a = a.step(a.random_actions())
        obs_b, rew_b, term_b, trunc_b, inf_b = b.step_random()
        np.testing.assert_array_equal(b.states, a.states)
        for x, y in (
            (obs_a["observation"], obs_b["observation"]),
            (obs_a["action_mask"], obs_b["action_mask"]),
            (rew_a, rew_b),
            (term_a, term_b),
            (trunc_a, trunc_b),
            (inf_a["to_move"], inf_b["to_move"]),
            (inf_a["end_reason_code"], inf_b["end_reason_code"]),
            (inf_a["length"], inf_b["length"]),
        ):
            np.testing.assert_array_equal(x, y)
        assert not inf_b["illegal_action"].any()
        ended += int(term_b.sum() + trunc_b.sum())
    assert ended > 0


def test_integer_arrays_of_any_width_are_accepted():
    a, b = _vec(), _vec()
    acts = a.random_actions()
    b.random_actions()
    a.step(acts.astype(np.int16))
    b.step(acts.astype(np.uint32).tolist())
    np.testing.assert_array_equal(a.states, b.states)


def test_seeds():
    vec = boardenvs.make_vec("quess_v0", num_envs=4, first_player="random")
    one = vec.reset(seed=7)[0]["observation"].copy()
    assert np.array_equal(vec.reset(seed=np.int64(7))[0]["observation"], one)
    per_row = vec.states.copy()
    vec.reset(seed=[1, 2, 3, 4])
    assert not np.array_equal(vec.states, per_row)
    for bad, words in [(-1, "non-negative"), ([1, 2, 3], "4 integers"), ([1, 2, -3, 4], "non-negative"), (1.5, "seed")]:
        with pytest.raises(ValueError, match=words):
            vec.reset(seed=bad)


def test_calls_before_reset_and_bad_rows():
    vec = boardenvs.make_vec("quess_v0", num_envs=2)
    for call in (lambda: vec.step([0, 0]), vec.random_actions, lambda: vec.position(0)):
        with pytest.raises(ResetNeededError, match=r"reset\(\) first"):
            call()
    vec.reset(seed=0)
    assert vec.position(1).to_move in (0, 1) and vec.position(-1).to_move in (0, 1)
    for bad in (2, -3, 1.0, "0", True):
        with pytest.raises(IndexError, match="row"):
            vec.position(bad)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"num_envs": 0}, "num_envs"),
        ({"num_envs": 2.0}, "num_envs"),
        ({"num_envs": True}, "num_envs"),
        ({"num_envs": 2, "num_threads": 0}, "num_threads"),
        ({"num_envs": 2, "num_threads": 999}, "num_threads"),
        ({"num_envs": 2, "illegal_action": "randomly"}, "illegal_action"),
        ({"num_envs": 2, "parallel": "yes"}, "parallel"),
        ({"num_envs": 2, "parallel": 1}, "parallel"),
        ({"num_envs": 10**9}, "num_envs must be an int 1..1,048,576"),
    ],
)
def test_constructor_checks(kwargs, words):
    with pytest.raises(ValueError, match=words):
        boardenvs.make_vec("quess_v0", **kwargs)


def test_serial_and_parallel_drivers_play_the_same_games():
    runs = []
    for parallel in (False, True):
        vec = boardenvs.make_vec("quess_v0", num_envs=64, parallel=parallel, num_threads=2 if parallel else None)
        assert vec.parallel is parallel
        vec.reset(seed=5)
        ends = 0
        for _ in range(200):
            _, rewards, term, trunc, _ = vec.step(vec.random_actions())
            ends += int((term | trunc).sum())
        runs.append((vec.states.copy(), ends))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    assert runs[0][1] == runs[1][1]
    assert boardenvs.make_vec("quess_v0", num_envs=4).parallel is False
    assert boardenvs.make_vec("quess_v0", num_envs=4096).parallel is True


def test_ended_rows_report_and_restart():
    vec = _vec(n=16)
    seen = 0
    for _ in range(200):
        _, rewards, term, trunc, infos = vec.step(vec.random_actions())
        for i in np.flatnonzero(term):
            seen += 1
            assert sorted(rewards[i].tolist()) == [-1.0, 1.0]
            assert infos["end_reason"][i] == "no_legal_move" == vec.reason_name(infos["end_reason_code"][i])
            assert infos["length"][i] > 4 and vec.states[i, E.H_TURN] == 0
        assert (infos["end_reason_code"][~(term | trunc)] == 0).all()
        assert all(r == "" for r in infos["end_reason"][~(term | trunc)])
    assert seen > 16


@pytest.mark.parametrize(
    "env_id,options", [("quess_v0", {}), ("tryasina_v0", {"num_players": 3}), ("hex_quoridor_v1", {"num_players": 4})]
)
@pytest.mark.parametrize("parallel", [False, True])
def test_infos_to_move_and_end_reason_are_every_rows_own(env_id, options, parallel):
    """infos["to_move"] is written by the drivers as each row is stepped (not
    read from the rows afterwards), whatever the caller wrote into the last
    step's; infos["end_reason"] is rewritten only in the rows that ended at
    the last step or this one (so it is read-only): both must be every row's
    own at every step, serial and threaded, with chance (Tryasina)."""
    vec = boardenvs.make_vec(env_id, num_envs=64, parallel=parallel, **options)
    _, infos = vec.reset(seed=11)
    assert (infos["to_move"] == vec.states[:, E.H_CURRENT]).all() and all(r == "" for r in infos["end_reason"])
    ended = 0
    for _ in range(600):  # Tryasina's 3-player games last some 300 steps
        infos["to_move"][:] = -7  # the caller's writes into the handed-out buffer
        with pytest.raises(ValueError, match="read-only"):
            infos["end_reason"][:] = "stale"
        _, _, term, trunc, infos = vec.step(vec.random_actions())
        np.testing.assert_array_equal(infos["to_move"], vec.states[:, E.H_CURRENT])
        assert (infos["to_move"] >= 0).all()  # a seat, never the chance player
        names = [vec.reason_name(c) if c else "" for c in infos["end_reason_code"]]
        assert infos["end_reason"].tolist() == names
        assert ((infos["end_reason_code"] != 0) == (term | trunc)).all()
        ended += int((term | trunc).sum())
    assert ended > 0


# --- processes ---------------------------------------------------------------------

FORK_CHECK = Path(__file__).resolve().parent / "fork_check.py"


def _run_fork_check(**env):
    return subprocess.run(
        [sys.executable, str(FORK_CHECK)],
        env={**os.environ, **env},
        cwd=FORK_CHECK.parent,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork() and GNU OpenMP are Linux's")
def test_fork_and_spawn_workers_run_after_make_vec():
    """After the parent ran a threaded driver: a forked child, a
    multiprocessing fork pool and a spawn pool each run make_vec (numba's
    fork-safe layer, TBB here, chosen at import: boardenvs/_threads.py)."""
    proc = _run_fork_check()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.startswith("ok tbb"), proc.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork() and GNU OpenMP are Linux's")
def test_the_fork_check_fails_under_gnu_openmp():
    """The control: with numba's Linux default (GNU OpenMP) forced, the same
    check fails, so the test above can fail."""
    proc = _run_fork_check(NUMBA_THREADING_LAYER="omp")
    assert proc.returncode != 0 and "OpenMP" in proc.stderr


def test_threads_start_where_they_pay_for_the_layer():
    """TBB (loaded at import, fork-safe) is the layer here; with it the
    threaded driver pays from about 64-96 rows, so make_vec switches at 128."""
    from boardenvs import _threads

    assert _threads.expected_layer() == "tbb"
    assert _threads.parallel_from() == 128
    assert boardenvs.make_vec("quagmire_v0", num_envs=127).parallel is False
    assert boardenvs.make_vec("quagmire_v0", num_envs=128).parallel is True


def test_the_row_api_writes_into_out_and_checks_it():
    """``observe_rows(out=...)`` writes what the no-``out`` call returns into
    the caller's arrays (int8 or bool masks); a wrong ``out`` is refused
    naming what was expected, and nothing is written (C-6)."""
    vec = boardenvs.make_vec("quess_v0", num_envs=6)
    vec.reset(seed=1)
    rows, seats = np.array([4, 1, 2]), np.array([0, 1, 0])
    for _ in range(3):
        vec.act_rows(rows, np.full(3, vec.RANDOM))
    want_obs, want_masks = vec.observe_rows(rows, seats)
    for mask_dtype in (np.int8, np.bool_):
        out = (np.full((3, 6, 6, 8), 7, np.int8), np.zeros((3, 1296), mask_dtype))
        got = vec.observe_rows(rows, seats, out=out)
        assert got[0] is not None and np.shares_memory(got[0], out[0]) and got[1] is out[1]
        assert np.array_equal(out[0], want_obs) and np.array_equal(out[1].view(np.int8), want_masks)
    good_obs = np.zeros((3, 6, 6, 8), np.int8)
    read_only = np.zeros((3, 1296), np.int8)
    read_only.flags.writeable = False
    bad = [
        good_obs,
        (good_obs,),
        (good_obs, np.zeros((3, 1295), np.int8)),
        (good_obs, np.zeros((3, 1296), np.float32)),
        (good_obs.astype(np.int16), np.zeros((3, 1296), np.int8)),
        (good_obs, read_only),
        (np.zeros((3, 6, 8, 6), np.int8).transpose(0, 1, 3, 2), np.zeros((3, 1296), np.int8)),
        (good_obs, [[0] * 1296] * 3),
    ]
    for out in bad:
        before = [a.copy() for a in out] if isinstance(out, tuple) else [out.copy()]
        with pytest.raises(ValueError, match=r"out must be \(observations, masks\).*\(3, 6, 6, 8\) int8"):
            vec.observe_rows(rows, seats, out=out)
        after = list(out) if isinstance(out, tuple) else [out]
        assert all(np.array_equal(np.asarray(a), b) for a, b in zip(after, before))


def test_the_row_api_refuses_an_illegal_row_without_copying_masks():
    """``act_rows`` checks each listed row's action against that row's own
    mask (the fast path reads the engine's masks by row): an action legal in
    another row but not in its own is refused, RANDOM in a row with no legal
    action is illegal, and "raise" changes no row."""
    vec = boardenvs.make_vec("quagmire_v0", num_envs=4, radius=2)
    vec.reset(seed=0)
    masks = vec.action_masks().copy()
    legal0 = int(np.flatnonzero(masks[0])[0])
    vec.act_rows(np.array([0]), np.array([legal0]))  # row 0's cell is taken now; row 2 still has it
    before = vec.states.copy()
    with pytest.raises(IllegalActionError, match="row 0"):
        vec.act_rows(np.array([2, 0]), np.array([legal0, legal0]), illegal_action="raise")
    assert np.array_equal(vec.states, before)
    assert vec.act_rows(np.array([2, 0]), np.array([legal0, legal0]), illegal_action="lose").tolist() == [False, True]
    assert vec.act_rows(np.array([0]), np.array([vec.RANDOM]), illegal_action="lose").tolist() == [True]


def test_the_row_api_checks_rows_in_one_pass():
    """Rows: a 1-D integer array of distinct indices 0..N-1, of any integer
    dtype (a uint64 past int64's range is out of range, not wrapped); the
    kernels get their own int64 copy (C-6)."""
    vec = _vec(n=4)
    seats = lambda k: np.zeros(k, np.int64)  # noqa: E731
    assert vec.observe_rows(np.array([3, 0], np.uint8), seats(2))[0].shape[0] == 2
    assert vec.observe_rows(np.zeros(0, np.int64), seats(0))[0].shape[0] == 0
    for rows, words in [
        (np.array([2**63 + 1], np.uint64), "rows 0..3"),
        (np.array([1, 1]), "distinct"),
        ([0, 4], "rows 0..3"),
        (np.array([-1]), "rows 0..3"),
        ([[0]], "1-D"),
        ([0.0], "integer"),
        (np.array([2, 3, 2], np.int16), "distinct"),
    ]:
        with pytest.raises(ValueError, match=words):
            vec.observe_rows(rows, seats(np.size(rows)))
    rows = np.array([1, 2])
    checked = vec._check_rows(rows)
    assert checked.dtype == np.int64 and not np.shares_memory(checked, rows)


def test_the_threaded_row_api_plays_as_the_serial_one():
    """The threaded drivers run the serial ones a chunk of rows at a time
    (``boardenvs/_threaded.py``): on Tryasina (dice, resolved from each
    row's generator) the row API gives the same seats, rows, observations
    and masks with threads as without."""
    runs = []
    for parallel in (False, True):
        vec = boardenvs.make_vec(
            "tryasina_v0", num_envs=100, parallel=parallel, num_threads=2 if parallel else None, num_players=3
        )
        vec.seed_rows(7)
        rows = np.arange(3, 100, 2)  # 49 rows: 3 chunks with threads
        record = [vec.reset_rows(rows, draw_seats=True)]
        for _ in range(40):
            live = rows[vec.states[rows, E.H_STATUS] == E.PLAYING]
            vec.act_rows(live, np.full(live.shape[0], vec.RANDOM))
            obs, masks = vec.observe_rows(live, vec.states[live, E.H_CURRENT] % 3)
            record += [live, obs, masks]
        runs.append((record, vec.states.copy()))
    for a, b in zip(runs[0][0], runs[1][0], strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    assert (runs[0][1][rows, E.H_TURN] > 5).all()


def test_a_threaded_driver_follows_the_types_it_is_given():
    """A threaded driver calls the serial one compiled for its arguments'
    exact types: given arrays with other flags (a read-only ``params``, as
    a copy or a pickle may bring), it looks up that compilation instead of
    calling the other one's; it refuses arrays that are not C-contiguous."""
    from boardenvs import _parts
    from boardenvs.vector import drivers_for

    vec = boardenvs.make_vec("quess_v0", num_envs=40, parallel=True)
    whole = _parts.Engine(vec._states, vec._probs, vec._masks)
    vec.reset(seed=3)
    observe = drivers_for(vec.game.kernels).parallel.observe_rows
    rows, seats = np.arange(40, dtype=np.int64), np.zeros(40, np.int64)
    outs, keys = [], []
    for writeable in (True, False, True):
        params = vec.game.params.copy()
        params.flags.writeable = writeable
        obs, masks = np.zeros((40, vec.game.obs_size), np.int8), np.zeros((40, vec.num_actions), np.int8)
        observe(whole, _parts.ObservePart(rows, seats, obs, masks), params, (0, 0, 0, 0))
        outs.append((obs, masks))
        keys.append(observe._bound[1])
    assert keys[0] != keys[1] and keys[2] == keys[0]
    assert len(observe.serial.overloads) >= 2
    for obs, masks in outs[1:]:
        np.testing.assert_array_equal(obs, outs[0][0])
        np.testing.assert_array_equal(masks, outs[0][1])
    assert outs[0][0].any() and outs[0][1].any()
    f_order = np.zeros((vec.game.obs_size, 40), np.int8).T  # its row chunks would not be C arrays
    with pytest.raises(ValueError, match="C-contiguous"):
        observe(whole, _parts.ObservePart(rows, seats, f_order, masks), vec.game.params, (0, 0, 0, 0))
    assert not f_order.any()


def test_the_states_view_is_read_only_for_good():
    """``make_vec.states`` (documented read-only) cannot be made writeable
    again, not even through a view of it (a caller's write would
    reach the kernels' trust); it still shows the rows as they change, and
    copies and pickles of the env give their own read-only views."""
    import copy
    import pickle

    vec = boardenvs.make_vec("quagmire_v0", num_envs=4, radius=2)
    vec.reset(seed=0)
    for view in (vec.states, vec.states.view(), vec.states[1:]):
        with pytest.raises(ValueError, match="WRITEABLE"):
            view.flags.writeable = True
    with pytest.raises(ValueError, match="read-only"):
        vec.states[0, 0] = 1
    before = vec.states[:, E.H_TURN].copy()
    vec.step(vec.random_actions())
    assert (vec.states[:, E.H_TURN] != before).any()  # a view of the live rows
    for twin in (copy.deepcopy(vec), pickle.loads(pickle.dumps(vec))):
        assert np.array_equal(twin.states, vec.states)
        with pytest.raises(ValueError, match="WRITEABLE"):
            twin.states.flags.writeable = True
        twin.step(twin.random_actions())  # plays on, on its own rows


def test_make_vec_carries_gymnasiums_vector_attributes():
    """Make_vec has gymnasium's vector attributes (one row's spaces,
    the batched ones, metadata with its same-step auto-reset), and what it
    returns lies in them; a copy builds its own."""
    vec = boardenvs.make_vec("tryasina_v0", 5, num_players=3)
    assert vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    assert vec.single_action_space == gymnasium.spaces.Discrete(vec.num_actions)
    assert vec.single_observation_space["action_mask"].shape == (vec.num_actions,)
    assert vec.action_space.shape == (5,) and vec.observation_space["observation"].shape[0] == 5
    obs, _ = vec.reset(seed=0)
    for _ in range(20):
        assert vec.observation_space.contains(obs)
        actions = vec.random_actions()
        assert vec.action_space.contains(actions)
        obs = vec.step(actions)[0]
    assert pickle.loads(pickle.dumps(vec)).observation_space == vec.observation_space
