"""Rows from outside the engine (rules/README.md C-6): every
way a state row enters from a caller — ``Position(game, state)``, an
unpickled Position, AEC env or ``make_vec``, ``make_vec.restore`` of a
copied snapshot — is checked by ``Game.check_row`` before a kernel reads it:
the row must be the one its position text rebuilds, but in the fields a text
does not carry (``Game.free_fields``), which must be in their ranges.  What
the engine trusts beside the row (a game's params, the masks) is derived
again, never read from a pickle.

The bounds-checked probe (tests/boundscheck_probe.py ``tampered_rows``)
adds random tampering under ``NUMBA_BOUNDSCHECK=1``: refused or safe.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import boardenvs
from boardenvs import Position
from boardenvs import engine as E
from boardenvs.registry import game_class, registered_ids

VARIANTS = [
    pytest.param(env_id, dict(v), id=f"{env_id}{dict(v) or ''}")
    for env_id in registered_ids()
    for v in game_class(env_id).variants
]


def _rows(env_id, variant, seed=0, most=60):
    """The rows of one seeded random game, its end included."""
    rng = np.random.default_rng(seed)
    pos = boardenvs.position(env_id, **variant)
    rows = [pos.state]
    while not pos.is_terminal and len(rows) < most:
        pos = pos.play(int(rng.choice(pos.legal_actions())))
        rows.append(pos.state)
    return pos.game, rows


def _field(game, name):
    layout = game.info.layout
    off = layout.offset(name)
    return off, next(f[2] for f in layout.fields if f[0] == name)


@pytest.mark.parametrize("env_id, variant", VARIANTS)
def test_every_row_a_game_reaches_is_taken_as_it_is(env_id, variant):
    """Rows the rules reach (a random game's, its end too) pass
    check_row and become Positions unchanged; so do their pickles."""
    game, rows = _rows(env_id, variant)
    for row in rows:
        pos = Position(game, row)
        assert np.array_equal(pos.state, row)
        assert np.array_equal(pickle.loads(pickle.dumps(pos)).state, row)


@pytest.mark.parametrize("env_id, variant", VARIANTS)
def test_a_row_that_contradicts_its_position_is_refused_naming_the_field(env_id, variant):
    """C-6: a header value out of its range, and a body slot changed so the
    row is no longer the one its text rebuilds, are each refused with
    ValueError (naming what is wrong), also when unpickled."""
    game, rows = _rows(env_id, variant)
    row = rows[len(rows) // 2].copy()
    for slot, value, words in (
        (E.H_STATUS, 9, "cannot be read as a position"),
        (E.H_CURRENT, game.num_players + 2, "to_move"),
        (E.H_NUM_PLAYERS, game.num_players + 1, "num_players"),
    ):
        bad = row.copy()
        bad[slot] = value
        with pytest.raises(ValueError, match=words):
            Position(game, bad)
        with pytest.raises(ValueError, match="unpickled Position"):
            pickle.loads(pickle.dumps(Position._own(game, bad)))
    # every slot outside the free fields is compared with the rebuilt row
    free = {s for name in game.free_fields(row) for s in range(_field(game, name)[0], sum(_field(game, name)))}
    rng = np.random.default_rng(1)
    fixed = [s for s in range(game.state_size) if s not in free]
    for slot in rng.choice(fixed, size=min(12, len(fixed)), replace=False):
        bad = row.copy()
        bad[slot] = row[slot] ^ (1 << 40)  # another value, in any field
        with pytest.raises(ValueError):
            Position(game, bad)


@pytest.mark.parametrize("env_id, variant", VARIANTS)
def test_free_fields_are_range_checked(env_id, variant):
    """The fields a text does not carry take any value in their declared
    range (the Position keeps it) and refuse one outside, naming the field."""
    game, rows = _rows(env_id, variant)
    row = rows[-2 if len(rows) > 1 else 0]
    for name, (_low, high) in game.free_fields(row).items():
        off, size = _field(game, name)
        top = np.broadcast_to(high, (size,))
        inside = row.copy()
        inside[off] = int(top[0])
        assert Position(game, inside).state[off] == top[0]
        if int(top[0]) < 2**63 - 1:
            outside = row.copy()
            outside[off] = int(top[0]) + 1
            with pytest.raises(ValueError, match=f"field '{name}'"):
                Position(game, outside)


def test_a_game_pickles_as_its_options():
    """The params the kernels trust are derived again from the options when
    a game is unpickled, never read from the pickle."""
    game = boardenvs.position("quess_v0", max_turns=40).game
    fresh = game.params.copy()
    game.params[E.P_MAX_TURNS] = 10**9  # (the instance's own array, changed in place)
    copied = pickle.loads(pickle.dumps(game))
    assert np.array_equal(copied.params, fresh) and copied.options == game.options
    game.params[:] = fresh


def test_restore_checks_a_copied_snapshot_and_trusts_its_own():
    """``snapshot()``'s arrays are read-only for good; restoring it puts the
    rows back.  A copied or unpickled snapshot is data from outside: its
    rows are checked (a tampered one is refused, and no row changes) and the
    masks computed again from the rows, not taken from the snapshot."""
    vec = boardenvs.make_vec("quagmire_v0", num_envs=4, radius=2)
    vec.reset(seed=0)
    snap = vec.snapshot()
    assert snap.taken_here
    with pytest.raises(ValueError):
        snap.states.flags.writeable = True
    with pytest.raises(ValueError):
        snap.masks[0, 0] = 1
    for _ in range(3):
        vec.step(vec.random_actions())
    vec.restore(snap)
    assert np.array_equal(vec.states, snap.states)
    copied = copy.copy(snap)
    assert not copied.taken_here
    states, masks = np.array(copied.states), np.array(copied.masks)
    masks[:] = 1  # every action "legal": must not reach the engine
    copied.__setstate__((vec, states, masks))
    vec.step(vec.random_actions())
    vec.restore(copied)
    assert np.array_equal(vec.states, states)
    assert np.array_equal(vec.action_masks(), [vec.game.legal_mask(r)[: vec.num_actions] for r in states])
    states[2, E.H_ALIVE] = 0  # no seat in a game still playing
    copied.__setstate__((vec, states, masks))
    before = vec.states.copy()
    with pytest.raises(ValueError, match="copied snapshot's row 2"):
        vec.restore(copied)
    assert np.array_equal(vec.states, before)
    other = boardenvs.make_vec("quagmire_v0", num_envs=4, radius=2)
    with pytest.raises(ValueError, match="snapshot\\(\\) of this env"):
        other.restore(snap)


def test_unpickled_make_vec_checks_rows_and_derives_masks():
    """An unpickled make_vec is built again from its configuration; its rows
    are checked, its masks computed from them; a tampered row or a buffer
    of the wrong shape is refused.  One never reset pickles too."""
    vec = boardenvs.make_vec("tryasina_v0", num_envs=3, num_players=3)
    assert pickle.loads(pickle.dumps(vec)).states.shape == vec.states.shape  # never reset: zero rows
    vec.reset(seed=4)
    for _ in range(5):
        vec.step(vec.random_actions())
    twin = pickle.loads(pickle.dumps(vec))
    assert np.array_equal(twin.states, vec.states) and np.array_equal(twin.action_masks(), vec.action_masks())
    state = vec.__getstate__()
    state["_masks"] = np.ones_like(state["_masks"])
    fresh = copy.copy(vec)
    fresh.__setstate__(dict(state))
    assert np.array_equal(fresh.action_masks(), vec.action_masks())
    rows = vec._states.copy()
    rows[1, E.H_TURN] = -5
    with pytest.raises(ValueError, match="make_vec's row 1"):
        copy.copy(vec).__setstate__({**state, "_states": rows})
    with pytest.raises(ValueError, match="_rewards must be"):
        copy.copy(vec).__setstate__({**state, "_rewards": np.zeros(2, np.float32)})
    with pytest.raises(ValueError, match="num_envs"):
        copy.copy(vec).__setstate__({**state, "num_envs": -1})


def test_unpickled_aec_env_checks_its_row_and_derives_its_mask():
    env = boardenvs.make("quicksand_v0")
    env.reset(seed=2)
    for _ in range(6):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    raw = env.unwrapped
    twin = pickle.loads(pickle.dumps(raw))
    assert np.array_equal(twin._state, raw._state) and np.array_equal(twin._mask_buffer, raw._mask_buffer)
    raw._mask_buffer[:] = 1  # a mask written over before the pickle does not travel
    assert np.array_equal(pickle.loads(pickle.dumps(raw))._mask_buffer, twin._mask_buffer)
    raw._mask_buffer[:] = twin._mask_buffer
    raw._state[E.H_STATUS] = 7
    with pytest.raises(ValueError, match="unpickled env's row"):
        pickle.loads(pickle.dumps(raw))
