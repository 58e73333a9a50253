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

from numba import config, njit

from boardenvs import _threaded
from boardenvs.bind import apply, bound, chance_probs, compiled_for, init, legal, observe, opponent_action
from boardenvs.engine import (  # noqa: F401
    CHANCE,
    H_ALIVE,
    H_CURRENT,
    H_NUM_PLAYERS,
    H_REASON,
    H_RET,
    H_RNG,
    H_STATUS,
    H_TURN,
    ILLEGAL_LOSE,
    ILLEGAL_RANDOM,
    ILLEGAL_REFUSE,
    PLAYING,
    RANDOM_ACTION,
    REASON_ILLEGAL,
    STEP_ILLEGAL,
    STEP_PLAYED,
    STEP_REFUSED,
    TERMINATED,
    TRUNCATED,
    copy_row,
    first_seat_of,
    forfeit,
    rand_below,
    row_view,
    sample_mask,
    sample_probs,
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
def step_n(
    g,
    states,
    params,
    actions,
    probs,
    obs,
    masks,
    out_masks,
    rewards,
    terminated,
    truncated,
    reasons,
    lengths,
    to_move,
    illegal,
    draw,
):
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
        observe_row(
            g, row_view(states, r), params, seats[k], row_view(masks, r), row_view(obs, k), row_view(out_masks, k)
        )


@njit(cache=True)
def reset_rows(g, states, params, rows, probs, seats, draw, masks):
    """A new game in each listed row (:func:`deal_row`); with ``draw``,
    ``seats[k]`` is drawn from it too (the learner's seat)."""
    for k in range(rows.shape[0]):
        r = rows[k]
        seats[k] = deal_row(g, row_view(states, r), params, seats[k], draw, row_view(probs, r), row_view(masks, r))


# the learner loop, every single-agent view's step (the gymnasium views at
# N rows and at one, SB3VecEnv): the learner's move, the opponents' until
# the learner is to act again, the end of the learner's episode and its
# next one, its observation.  Opponents in the engine play inside; the
# others are asked between calls, once per round for every row waiting
# (boardenvs.vector.VectorEnv.play_learners).  Each row draws from its own
# generator, so its games do not depend on how the rows are batched
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


# a row's stage in the learner loop (agent_step / agent_resume): where it
# stopped, so that a later call goes on from there
DONE = 0  # the learner is to act, or its episode ended (and no next one is dealt)
PLAY = 1  # waits for an opponent outside the engine, in the learner's episode
DEAL = 2  # waits for one in a new deal, before the learner's first decision
PICK = 3  # a new deal waits for the caller to pick its opponent
START = 4  # (on entry) a pending row: its next episode starts now


@njit(cache=True)
def loop_on(
    g,
    s,
    params,
    i,
    seats,
    draw,
    same_step,
    outside,
    picks,
    stage,
    deals,
    probs,
    mask,
    final_obs,
    final_masks,
    rewards,
    ends,
    reasons,
    lengths,
):
    """Row ``i`` (``s``) of the learner loop, from its ``stage[i]`` on: the
    opponents play (:func:`advance_row`) until the learner in ``seats[i]``
    is to act (``DONE``), or the row waits for an opponent outside the
    engine (``PLAY`` / ``DEAL``: ``outside[i]``) or, with ``picks``, for the
    caller to pick a new deal's opponent (``PICK``).  When the learner's
    episode ends (the game is over, or the learner is out) its end goes to
    ``rewards`` / ``ends`` (1 terminated, 2 truncated) / ``reasons`` /
    ``lengths``; with ``same_step`` its last view to ``final_obs`` /
    ``final_masks`` and the next episode is dealt (a seat drawn with
    ``draw``); a deal whose game is over before the learner's first decision
    is dealt again, at most 64 times (then ``ends[i]`` -1, ``DONE``)."""
    while True:
        st = stage[i]
        if st == PLAY or st == DEAL:
            seat = seats[i]
            if advance_row(g, s, params, seat, outside[i], probs, mask):
                return
            if not learner_out(s, seat):
                stage[i] = DONE
                return
            if st == PLAY:  # the learner's episode is over
                alive = (s[H_ALIVE] >> seat) & 1 == 1
                rewards[i] = s[H_RET + seat]
                ends[i] = 1 if s[H_STATUS] == TERMINATED or not alive else 2
                reasons[i] = s[H_REASON]
                lengths[i] = s[H_TURN]
                if not same_step:
                    stage[i] = DONE
                    return
                observe_row(g, s, params, seat, mask, row_view(final_obs, i), row_view(final_masks, i))
                deals[i] = 0
            elif deals[i] >= 64:
                ends[i] = -1  # 64 deals ended the learner's episode first: observed as it is
                stage[i] = DONE
                return
        # (START, or an episode over:) the next deal
        seats[i] = deal_row(g, s, params, seats[i], draw, probs, mask)
        deals[i] += 1
        if picks:
            stage[i] = PICK
            return
        stage[i] = DEAL


@njit(cache=True)
def loop_out(g, s, params, i, seats, stage, mask, obs, out_masks, wait_obs, wait_masks):
    """Row ``i``'s view where it stopped: the learner's in ``obs`` /
    ``out_masks`` (``DONE``), or the view of the opponent it waits for in
    ``wait_obs`` / ``wait_masks`` (``PLAY`` / ``DEAL``)."""
    if stage[i] == DONE:
        observe_row(g, s, params, seats[i], mask, row_view(obs, i), row_view(out_masks, i))
    elif stage[i] != PICK:
        observe_row(g, s, params, s[H_CURRENT], mask, row_view(wait_obs, i), row_view(wait_masks, i))


@njit(cache=True)
def agent_step(
    g,
    states,
    params,
    actions,
    seats,
    draw,
    same_step,
    pending,
    outside,
    picks,
    stage,
    deals,
    probs,
    masks,
    obs,
    out_masks,
    final_obs,
    final_masks,
    rewards,
    ends,
    reasons,
    lengths,
    wait_obs,
    wait_masks,
):
    """The learner loop, every single-agent view's step: in each row the
    learner in seat ``seats[i]`` plays ``actions[i]`` (checked: -1
    forfeits, ``RANDOM_ACTION`` draws), then :func:`loop_on` (the
    opponents until it is to act again; its episode's end and, with
    ``same_step``, its next one).  A ``pending`` row (``same_step`` off:
    its episode ended at the last step; or a first deal) starts its next
    episode instead of moving.  Opponents in the engine (random, or the
    bound one) play inside; a row whose opponent is ``outside`` stops where
    that opponent is to act, its view in ``wait_obs`` / ``wait_masks``, and
    :func:`agent_resume` goes on with its answer.  Every row that got to
    its learner: the learner's view in ``obs`` / ``out_masks``.
    ``rewards``, ``ends``, ``reasons``, ``lengths``: 0 but in the rows
    whose episode ended."""
    for i in range(states.shape[0]):
        s, mask, prob = row_view(states, i), row_view(masks, i), row_view(probs, i)
        rewards[i] = 0.0
        ends[i] = 0
        reasons[i] = 0
        lengths[i] = 0
        if pending[i]:
            deals[i] = 0
            stage[i] = START
        else:
            play_row(g, s, params, actions[i], prob, mask)
            stage[i] = PLAY
        loop_on(
            g,
            s,
            params,
            i,
            seats,
            draw,
            same_step,
            outside,
            picks,
            stage,
            deals,
            prob,
            mask,
            final_obs,
            final_masks,
            rewards,
            ends,
            reasons,
            lengths,
        )
        loop_out(g, s, params, i, seats, stage, mask, obs, out_masks, wait_obs, wait_masks)


@njit(cache=True)
def agent_resume(
    g,
    states,
    params,
    rows,
    actions,
    seats,
    draw,
    same_step,
    outside,
    picks,
    stage,
    deals,
    probs,
    masks,
    obs,
    out_masks,
    final_obs,
    final_masks,
    rewards,
    ends,
    reasons,
    lengths,
    wait_obs,
    wait_masks,
):
    """The learner loop goes on in the listed rows, each from where
    :func:`agent_step` (or the last resume) stopped it: a row waiting for an
    opponent outside the engine plays ``actions[k]``, that opponent's
    answer (checked by the caller); a row waiting for a pick goes on with
    the opponent the caller picked (``outside`` updated).  Then as
    :func:`agent_step`."""
    for k in range(rows.shape[0]):
        i = rows[k]
        s, mask, prob = row_view(states, i), row_view(masks, i), row_view(probs, i)
        if stage[i] == PICK:
            stage[i] = DEAL
        else:
            play_row(g, s, params, actions[k], prob, mask)
        loop_on(
            g,
            s,
            params,
            i,
            seats,
            draw,
            same_step,
            outside,
            picks,
            stage,
            deals,
            prob,
            mask,
            final_obs,
            final_masks,
            rewards,
            ends,
            reasons,
            lengths,
        )
        loop_out(g, s, params, i, seats, stage, mask, obs, out_masks, wait_obs, wait_masks)


NAMES = (
    "reset_n",
    "step_n",
    "random_actions_n",
    "act_rows",
    "observe_rows",
    "reset_rows",
    "agent_step",
    "agent_resume",
)
# every compiled function here (boardenvs.bind.uncached copies them for kernels no import reaches)
COMPILED = (
    "settle_chance",
    "fresh_game",
    "step_row",
    "settle_row",
    "play_row",
    "observe_row",
    "deal_row",
    "learner_out",
    "advance_row",
    "loop_on",
    "loop_out",
    *NAMES,
)


# --- bound to a game: what the faces call --------------------------------------------------------------------------


class Batched(NamedTuple):
    """The compiled drivers of one game's kernels (see :func:`batched`):
    ``serial`` (N rows), ``parallel`` (the same drivers run in numba's
    threads a chunk of rows at a time, :mod:`boardenvs._threaded`) and
    ``one`` (the one step on a single row, what the faces over one game
    call: :class:`OneRow`)."""

    serial: Drivers
    parallel: Drivers
    one: OneRow


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
    # the learner loop's next round in listed rows (answers of opponents outside the engine)
    agent_resume: object


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
