"""The compiled engine: the one step of a row (:func:`step_row`) and the
N-row drivers of ``make_vec`` (:func:`batched`),
written once for every game: each takes the game's kernels as its first
argument ``g`` (a :class:`boardenvs.bind.Bound`) and calls them through
:mod:`boardenvs.bind` (``apply(g, s, params, a)``), so numba compiles it
once per game with that game's kernels linked in, and caches it (see
:mod:`boardenvs.bind`).  The drivers are serial; ``boardenvs/_threaded.py``
runs them in threads, a chunk of rows each.
"""
from __future__ import annotations

import functools
import sys
from typing import NamedTuple

import numpy as np
from numba import config, njit

from boardenvs import _threaded
from boardenvs.bind import apply, bound, chance_probs, compiled_for, init, legal, observe, opponent_action
from boardenvs.engine import (  # noqa: F401
    CHANCE, H_ALIVE, H_CURRENT, H_NUM_PLAYERS, H_REASON, H_RET, H_RNG, H_STATUS, H_TURN, ILLEGAL_LOSE, ILLEGAL_RANDOM,
    ILLEGAL_REFUSE, PLAYING, RANDOM_ACTION, REASON_ILLEGAL, STEP_ILLEGAL, STEP_PLAYED, STEP_REFUSED, TERMINATED,
    TRUNCATED, copy_row, first_seat_of, forfeit, rand_below, row_view, sample_mask, sample_probs,
)


@njit(cache=True, inline="always")
def settle_chance(g, s, params, probs):
    while s[H_STATUS] == PLAYING and s[H_CURRENT] == CHANCE:
        chance_probs(g, s, params, probs)
        apply(g, s, params, sample_probs(s, probs))


@njit(cache=True, inline="always")
def fresh_game(g, s, params, probs):
    """A new game in row ``s`` (from its generator), up to its first
    decision.  A game that chance alone ends before anyone decides (turns
    passed by rolls no pawn can use, up to ``max_turns``) is no game for
    the batch: it is dealt again (at most 64 times)."""
    for _ in range(64):
        init(g, s, params, first_seat_of(s, params))
        settle_chance(g, s, params, probs)
        if s[H_STATUS] == PLAYING:
            return


@njit(cache=True)
def settle_row(g, s, params, settle, probs, mask):
    """Row ``s`` as a step leaves it, after a face changed it otherwise (a
    new game, an out-of-rules ending): with ``settle``, chance resolved by
    the seeded die; ``mask`` the legal mask of whoever acts next (zeros
    once the game is over)."""
    if settle:
        settle_chance(g, s, params, probs)
    if s[H_STATUS] == PLAYING:
        legal(g, s, params, mask)
    else:
        for j in range(mask.shape[0]):
            mask[j] = 0


@njit(cache=True)
def step_row(g, s, params, a, mode, settle, probs, mask):
    """The one step of a game, every face's (``make_vec``'s drivers on N
    rows; the AEC env, ``Position``, the single-agent and RLlib envs on
    one): row ``s`` plays action ``a``, checked against ``mask``, the legal
    mask of whoever acts in ``s`` (chance outcomes at a chance node; the
    caller's engine-owned buffer, which this step keeps current).

    * ``RANDOM_ACTION``: a uniformly random legal action, drawn from the
      row's generator (``sample_mask``);
    * an action the mask does not allow (any value; -1 on purpose) is
      illegal: ``mode`` ``ILLEGAL_LOSE`` forfeits the mover's game (C-6;
      never half-applied), ``ILLEGAL_RANDOM`` plays a random legal action
      from the row's generator instead, ``ILLEGAL_REFUSE`` changes nothing;
      a wrong chance outcome is always refused (no one forfeits for chance);
    * then, with ``settle``, chance nodes are resolved by the seeded die
      (the row's generator, ``sample_probs``) until a seat is to act or the
      game is over; without, the step stops at a chance node (the raw AEC
      env's chance agent, ``Position``);
    * and ``mask`` is refreshed for whoever acts next (zeros once the game
      is over).

    Returns ``STEP_PLAYED``, ``STEP_ILLEGAL`` (forfeited, or a random
    action played) or ``STEP_REFUSED`` (nothing changed; also in a row
    whose game is over)."""
    if s[H_STATUS] != PLAYING:
        return STEP_REFUSED
    flag = STEP_PLAYED
    if a == RANDOM_ACTION:
        a = sample_mask(s, mask)
    elif not (a >= 0 and a < mask.shape[0] and mask[a] == 1):
        if mode == ILLEGAL_REFUSE or s[H_CURRENT] == CHANCE:
            return STEP_REFUSED
        flag = STEP_ILLEGAL
        a = sample_mask(s, mask) if mode == ILLEGAL_RANDOM else -1
    if a >= 0:
        apply(g, s, params, a)
    else:
        forfeit(s, s[H_CURRENT], REASON_ILLEGAL)
    settle_row(g, s, params, settle, probs, mask)
    return flag


@njit(cache=True)
def reset_n(g, states, params, seeds, probs, obs, masks, out_masks, to_move):
    """A new game in every row, each with its own seed; then the
    observation and mask of the seat to act: the mask in ``masks`` (the
    engine's own, which ``step_n`` trusts) and its first
    ``out_masks.shape[1]`` entries copied into ``out_masks`` (the caller's),
    the seat in ``to_move`` (read here, where the row is in cache: a
    column of N rows read afterwards cost a step 4-12%)."""
    for i in range(states.shape[0]):
        s, mask = row_view(states, i), row_view(masks, i)
        s[H_RNG] = seeds[i]  # init's new_game zeroes the rest
        fresh_game(g, s, params, row_view(probs, i))
        observe(g, s, params, s[H_CURRENT], row_view(obs, i))
        legal(g, s, params, mask)
        copy_row(row_view(out_masks, i), mask)
        to_move[i] = s[H_CURRENT]


@njit(cache=True)
def step_n(g, states, params, actions, probs, obs, masks, out_masks, rewards, terminated, truncated, reasons, lengths,
           to_move, illegal, draw):  # fmt: skip
    """Apply one action per row; rows that end are reset in place (their
    final returns in ``rewards``, end reason and length in turns in
    ``reasons`` / ``lengths``); then the observation and mask of the seat
    to act (``masks``, the engine's own, copied into ``out_masks``) and
    that seat (``to_move``, as ``reset_n``).
    A row whose action is not legal in ``masks`` (any value, -1 or
    ``RANDOM_ACTION`` too) is flagged in ``illegal`` and forfeited by its
    mover (never half-applied), or with ``draw`` 1 plays a uniformly random
    legal action drawn from the row's generator instead.  (Checked here,
    where the row's mask is read anyway: a check of the N actions before
    the call took 5% of a step at N = 4096.)  With ``draw`` 2 every row
    plays such a random action (``actions`` unread): ``random_actions_n``'s
    draw, from the same generator state, so the same games as that pass
    and a step, without the pass."""
    mode = ILLEGAL_RANDOM if draw == 1 else ILLEGAL_LOSE
    for i in range(states.shape[0]):
        s, mask, prob = row_view(states, i), row_view(masks, i), row_view(probs, i)
        a = RANDOM_ACTION if draw == 2 else actions[i]
        if draw != 2 and a == RANDOM_ACTION:
            a = -1  # the row API's code is no action here: illegal like any other value
        illegal[i] = step_row(g, s, params, a, mode, True, prob, mask) == STEP_ILLEGAL
        n = s[H_NUM_PLAYERS]
        for p in range(rewards.shape[1]):
            rewards[i, p] = 0.0
        terminated[i] = s[H_STATUS] == TERMINATED
        truncated[i] = s[H_STATUS] == TRUNCATED
        reasons[i] = 0
        lengths[i] = 0
        if s[H_STATUS] != PLAYING:
            for p in range(n):
                rewards[i, p] = s[H_RET + p]
            reasons[i] = s[H_REASON]
            lengths[i] = s[H_TURN]
            fresh_game(g, s, params, prob)
            legal(g, s, params, mask)  # (the step refreshed the mask of a row that goes on)
        observe(g, s, params, s[H_CURRENT], row_view(obs, i))
        copy_row(row_view(out_masks, i), mask)
        to_move[i] = s[H_CURRENT]


@njit(cache=True)
def random_actions_n(g, states, masks, out):
    """A uniformly random legal action per row, from the row's generator."""
    for i in range(states.shape[0]):
        out[i] = sample_mask(row_view(states, i), row_view(masks, i))

# the row API's drivers (VectorEnv.act_rows / observe_rows / reset_rows):
# listed rows only, no auto-reset.  ``masks`` is the engine's own, kept
# current for every row (the legal mask of the seat to act, zeros once
# the game is over), so an action is checked against it in the kernel too.
# Each is a loop over one row's step below, which agent_step shares
@njit(cache=True)
def play_row(g, s, params, a, probs, mask):
    """Row ``s`` plays ``a`` (:func:`step_row`: ``RANDOM_ACTION`` draws a
    legal one from the row's generator; an action ``mask`` does not allow,
    -1 on purpose, forfeits the mover; chance resolved, the mask refreshed)."""
    step_row(g, s, params, a, ILLEGAL_LOSE, True, probs, mask)


@njit(cache=True)
def observe_row(g, s, params, seat, mask, obs, out_mask):
    """Row ``s`` as ``seat`` sees it, in ``obs``; its mask in ``out_mask``
    (from the engine's ``mask``) when that seat is to act in a live game,
    else zeros."""
    observe(g, s, params, seat, obs)
    if s[H_STATUS] == PLAYING and s[H_CURRENT] == seat:
        copy_row(out_mask, mask)
    else:
        out_mask[:] = 0


@njit(cache=True)
def deal_row(g, s, params, seat, draw, probs, mask):
    """A new game in row ``s`` (from its generator), its mask refreshed;
    returns ``seat``, or with ``draw`` a seat drawn from the generator (a
    learner's)."""
    init(g, s, params, first_seat_of(s, params))
    if draw:
        seat = rand_below(s, s[H_NUM_PLAYERS])
    settle_row(g, s, params, True, probs, mask)
    return seat


@njit(cache=True)
def act_rows(g, states, params, rows, actions, probs, masks):
    """Row ``rows[k]`` plays ``actions[k]`` (:func:`play_row`).  No auto-reset."""
    for k in range(rows.shape[0]):
        r = rows[k]
        play_row(g, row_view(states, r), params, actions[k], row_view(probs, r), row_view(masks, r))


@njit(cache=True)
def observe_rows(g, states, params, rows, seats, obs, masks, out_masks):
    """Row ``rows[k]`` as seat ``seats[k]`` sees it (:func:`observe_row`)."""
    for k in range(rows.shape[0]):
        r = rows[k]
        observe_row(g, row_view(states, r), params, seats[k], row_view(masks, r), row_view(obs, k), row_view(out_masks, k))


@njit(cache=True)
def reset_rows(g, states, params, rows, probs, seats, draw, masks):
    """A new game in each listed row (:func:`deal_row`); with ``draw``,
    ``seats[k]`` is drawn from it too (the learner's seat)."""
    for k in range(rows.shape[0]):
        r = rows[k]
        seats[k] = deal_row(g, row_view(states, r), params, seats[k], draw, row_view(probs, r), row_view(masks, r))

# the single-agent views' step with the random opponent: the learner's
# move, the opponents' until the learner is to act again, the end of the
# learner's episode and its next one, its observation: what the views do
# through the row API above, in one call, move for move the same (each row
# draws from its own generator in the same order, so the games are the
# same games; tests/test_vector_agent.py plays both)
@njit(cache=True)
def learner_out(s, seat):
    """The learner's episode is over: the game ended, or ``seat`` is out of it."""
    return s[H_STATUS] != PLAYING or (s[H_ALIVE] >> seat) & 1 == 0


@njit(cache=True)
def advance_row(g, s, params, seat, outside, probs, mask):
    """The learner loop's inner part, every view's: the other seats play
    until ``seat`` is to act or its episode is over, by the opponent bound
    with the kernels (:func:`boardenvs.bind.opponent_action`: a compiled
    decision, in the kernel), else uniformly random legal actions; with
    ``outside`` (the row's opponent decides outside the engine: a model, a
    search, a Python policy) the row stops where an opponent is to act
    instead.  Returns True when it stopped there (the row waits for that
    opponent's action)."""
    while not learner_out(s, seat) and s[H_CURRENT] != seat:
        if outside:
            return True
        # the bound opponent's decision, or RANDOM_ACTION (drawn in the step from the row's generator)
        play_row(g, s, params, opponent_action(g, s, params, mask), probs, mask)
    return False


@njit(cache=True)
def opponents_move(g, s, params, seat, probs, mask):
    """The other seats play until ``seat`` is to act or its episode is over
    (:func:`advance_row` with every opponent in the engine)."""
    advance_row(g, s, params, seat, False, probs, mask)


@njit(cache=True)
def advance_rows(g, states, params, rows, actions, play, seats, outside, probs, masks, waiting):
    """The learner loop over the listed rows, one round: with ``play``, row
    ``rows[k]`` first plays ``actions[k]`` (an opponent's answer, checked by
    the caller); then :func:`advance_row` for the learner in seat
    ``seats[r]``, the row's opponent outside the engine where
    ``outside[r]``; ``waiting[r]`` says whether row ``r`` now waits for that
    opponent (``seats``, ``outside``, ``waiting``: one entry per row of the
    batch).  No auto-reset."""
    for k in range(rows.shape[0]):
        r = rows[k]
        s, mask, prob = row_view(states, r), row_view(masks, r), row_view(probs, r)
        if play:
            play_row(g, s, params, actions[k], prob, mask)
        waiting[r] = advance_row(g, s, params, seats[r], outside[r], prob, mask)


@njit(cache=True)
def learner_episode(g, s, params, seat, draw, probs, mask):
    """A new game in row ``s`` up to the learner's first decision (its seat
    drawn from the row's generator with ``draw``); a game whose learner's
    episode is over before it (the game ended, or the learner is out) is
    dealt again, at most 64 times.  Returns the seat of the last deal (see
    :func:`learner_out` for whether it got there)."""
    for _ in range(64):
        seat = deal_row(g, s, params, seat, draw, probs, mask)
        opponents_move(g, s, params, seat, probs, mask)
        if not learner_out(s, seat):
            break
    return seat


@njit(cache=True)
def agent_step(g, states, params, actions, seats, draw, same_step, pending, probs, masks, obs, out_masks, final_obs,
               final_masks, rewards, ends, reasons, lengths):  # fmt: skip
    """The learner in seat ``seats[i]`` plays ``actions[i]`` (checked: -1
    forfeits, ``RANDOM_ACTION`` draws), random opponents reply until it is
    to act again.  A row whose episode ended (the game is over, or the
    learner is out) gets ``ends[i]`` 1 (terminated) or 2 (truncated), the
    learner's return in ``rewards[i]``, the game's end reason and turns in
    ``reasons`` / ``lengths`` (0 in the other rows); with ``same_step``
    its last observation and mask go to ``final_obs`` / ``final_masks`` and
    its next episode starts (``draw``: a new seat; -1 in ``ends`` when 64
    deals in a row ended the learner's episode before its first decision:
    the row is left as the last deal left it).  A ``pending`` row
    (``same_step`` off: its episode ended at the last step) starts its next
    episode instead of moving.  Then every row's observation and mask for
    its learner."""
    for i in range(states.shape[0]):
        s, mask, prob = row_view(states, i), row_view(masks, i), row_view(probs, i)
        seat = seats[i]
        rewards[i] = 0.0
        ends[i] = 0
        reasons[i] = 0
        lengths[i] = 0
        if pending[i]:
            seat = seats[i] = learner_episode(g, s, params, seat, draw, prob, mask)
            if learner_out(s, seat):
                ends[i] = -1  # 64 deals ended the learner's episode first: observed as it is
        else:
            play_row(g, s, params, actions[i], prob, mask)
            opponents_move(g, s, params, seat, prob, mask)
            if learner_out(s, seat):
                alive = (s[H_ALIVE] >> seat) & 1 == 1
                rewards[i] = s[H_RET + seat]
                ends[i] = 1 if s[H_STATUS] == TERMINATED or not alive else 2
                reasons[i] = s[H_REASON]
                lengths[i] = s[H_TURN]
                if same_step:
                    observe_row(g, s, params, seat, mask, row_view(final_obs, i), row_view(final_masks, i))
                    seat = seats[i] = learner_episode(g, s, params, seat, draw, prob, mask)
                    if learner_out(s, seat):
                        ends[i] = -1  # 64 deals ended the learner's episode first: observed as it is
        observe_row(g, s, params, seat, mask, row_view(obs, i), row_view(out_masks, i))


NAMES = ("reset_n", "step_n", "random_actions_n", "act_rows", "observe_rows", "reset_rows", "agent_step", "advance_rows")
# every compiled function here (boardenvs.bind.uncached copies them for kernels no import reaches)
COMPILED = ("settle_chance", "fresh_game", "step_row", "settle_row", "play_row", "observe_row", "deal_row",
            "learner_out", "advance_row", "opponents_move", "learner_episode", *NAMES)


# --- bound to a game: what the faces call --------------------------------------------------------------------------


class Batched(NamedTuple):
    """The compiled drivers of one game's kernels (see :func:`batched`):
    ``serial`` (N rows), ``parallel`` (the same drivers run in numba's
    threads a chunk of rows at a time, :mod:`boardenvs._threaded`) and
    ``one`` (the one step on a single row, what the faces over one game
    call: :class:`OneRow`)."""

    serial: "Drivers"
    parallel: "Drivers"
    one: "OneRow"


class OneRow(NamedTuple):
    """The engine on one row, bound to a game's kernels: ``step(state,
    params, action, mode, settle, probs, mask) -> flag`` is
    ``boardenvs._drivers.step_row`` (the one step, every face's), and
    ``settle(state, params, settle, probs, mask)`` is ``settle_row`` (a row
    a face changed otherwise: a new game, an adjudicated end)."""

    step: object
    settle: object


class Drivers(NamedTuple):
    reset: object  # a new game in every row, then the rows' observations and masks
    step: object
    random_actions: object
    # the row API's (VectorEnv.act_rows / observe_rows / reset_rows): listed
    # rows only, no auto-reset, observations for a given seat
    act_rows: object
    observe_rows: object
    reset_rows: object
    # the single-agent views' step against the random opponent (the row
    # API's moves for a learner in every row, in one call)
    agent_step: object
    # the learner loop's round over listed rows, for opponents outside the engine
    advance_rows: object


def batched(k, extras: tuple = (), opponent: bool = False) -> Batched:
    """The N-row drivers of one game's kernels (the engine of
    :func:`boardenvs.make_vec`, which owns the buffers and checks every input).

    The drivers (this module's) are written once for every game
    and take the game's kernels as a first argument, a
    :class:`boardenvs.bind.Bound`: numba compiles them once per game and
    caches them on disk through its own cache (see :mod:`boardenvs.bind`);
    kernels that no import reaches get uncached copies.  The ``Drivers``
    here are those drivers with the ``Bound`` already given.  The threaded
    drivers are one set for every game (:mod:`boardenvs._threaded`) calling
    these by address, so nothing is compiled per game for threads.  Chance
    nodes are resolved in-kernel from each row's own generator, so a batch
    only ever stops at decisions.

    ``extras`` / ``opponent``: more compiled functions bound with the
    kernels (:func:`boardenvs.bind.bound`); with ``opponent`` the last is
    an opponent's decision, which the learner loop (``agent_step``) plays
    for the other seats in the kernel instead of random actions.
    """
    slot = (k, tuple(extras), bool(opponent))
    if slot in _BATCHED:
        return _BATCHED[slot]
    g = bound(k, extras, opponent)
    module = compiled_for(sys.modules[__name__], g)
    compiled = [getattr(module, name) for name in NAMES]
    serial = Drivers(*(functools.partial(fn, g) for fn in compiled))
    one = OneRow(functools.partial(module.step_row, g), functools.partial(module.settle_row, g))
    if config.DISABLE_JIT:
        parallel = serial
    else:
        parallel = Drivers(*(_threaded.ThreadedDriver(fn, name, g) for fn, name in zip(compiled, NAMES)))
    _BATCHED[slot] = found = Batched(serial, parallel, one)
    return found


_BATCHED: dict = {}  # (kernels, extras, opponent) -> Batched, built once per process
