"""The compiled engine: the one step of a row (:func:`step_row`) and the
N-row drivers of ``make_vec`` (:func:`batched`), written once for every
game: each takes the game's kernels as its first argument ``g`` (a
:class:`boardenvs.bind.Bound`) and calls them through :mod:`boardenvs.bind`
(``apply(g, s, params, a)``), so numba compiles it once per game with that
game's kernels linked in, and caches it (see :mod:`boardenvs.bind`).

Every driver takes ``(g, whole, part, params, extra)``: ``part`` the arrays
indexed by the rows it works on, as one NamedTuple (:class:`StepPart`,
:class:`LoopPart`, ...; the first field says how many rows); ``whole`` the
engine's own arrays a driver over *listed* rows indexes by row
(:class:`Engine`, or the learner loop's :class:`LoopPart`; ``()`` for the
drivers over every row); ``extra`` a tuple of int flags.  The drivers are
serial; ``boardenvs/_threaded.py`` runs any of them in threads by slicing
``part`` into chunks of rows, whatever its fields.
"""

from __future__ import annotations

import functools
import sys
from typing import NamedTuple

from numba import config, njit

from boardenvs import _parts, _threaded
from boardenvs._parts import LOOP_DRAW, LOOP_MODE, LOOP_PICKS, LOOP_SAME_STEP
from boardenvs.bind import (
    apply,
    bound,
    chance_probs,
    compiled_for,
    init,
    legal,
    observe,
    opponent_action,
    settle_chance,
)
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

# --- one row ---------------------------------------------------------------------------------------------------


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
def deal_row(g, s, params, seat, draw, settle, probs, mask):
    """A new game in row ``s`` (from its generator), its mask refreshed
    (chance resolved with ``settle``); returns ``seat``, or with ``draw`` a
    seat drawn from the generator (a learner's)."""
    init(g, s, params, first_seat_of(s, params))
    if draw:
        seat = rand_below(s, s[H_NUM_PLAYERS])
    settle_row(g, s, params, settle, probs, mask)
    return seat


# --- make_vec's drivers over every row ------------------------------------------------------------------------


@njit(cache=True)
def reset_n(g, whole, part, params, extra):
    """A new game in every row, each with its own seed; then the
    observation and mask of the seat to act: the mask in ``masks`` (the
    engine's own, which ``step_n`` trusts) and its first
    ``out_masks.shape[1]`` entries copied into ``out_masks`` (the caller's),
    the seat in ``to_move`` (read here, where the row is in cache: a
    column of N rows read afterwards cost a step 4-12%)."""
    part = _parts.ResetPart(*part)  # (a plain tuple from Python: see _parts)
    for i in range(part.states.shape[0]):
        s, mask = row_view(part.states, i), row_view(part.masks, i)
        s[H_RNG] = part.seeds[i]  # init's new_game zeroes the rest
        fresh_game(g, s, params, row_view(part.probs, i))
        observe(g, s, params, s[H_CURRENT], row_view(part.obs, i))
        legal(g, s, params, mask)
        copy_row(row_view(part.out_masks, i), mask)
        part.to_move[i] = s[H_CURRENT]


@njit(cache=True)
def step_n(g, whole, part, params, extra):
    """Apply one action per row; rows that end are reset in place (their
    final returns in ``rewards``, end reason and length in turns in
    ``reasons`` / ``lengths``); then the observation and mask of the seat
    to act (``masks``, the engine's own, copied into ``out_masks``) and
    that seat (``to_move``, as ``reset_n``).
    A row whose action is not legal in ``masks`` (any value, -1 or
    ``RANDOM_ACTION`` too) is flagged in ``illegal`` and forfeited by its
    mover (never half-applied), or with ``extra[0]`` (draw) 1 plays a
    uniformly random legal action drawn from the row's generator instead.
    (Checked here, where the row's mask is read anyway, rather than in a
    pass over the N actions before the call.)  With draw 2
    every row plays such a random action (``actions`` unread):
    ``random_actions_n``'s draw, from the same generator state, so the same
    games as that pass and a step, without the pass."""
    part = _parts.StepPart(*part)  # (a plain tuple from Python: see _parts)
    draw = extra[0]
    mode = ILLEGAL_RANDOM if draw == 1 else ILLEGAL_LOSE
    rewards = part.rewards
    for i in range(part.states.shape[0]):
        s, mask, prob = row_view(part.states, i), row_view(part.masks, i), row_view(part.probs, i)
        a = RANDOM_ACTION if draw == 2 else part.actions[i]
        if draw != 2 and a == RANDOM_ACTION:
            a = -1  # the row API's code is no action here: illegal like any other value
        part.illegal[i] = step_row(g, s, params, a, mode, True, prob, mask) == STEP_ILLEGAL
        n = s[H_NUM_PLAYERS]
        for p in range(rewards.shape[1]):
            rewards[i, p] = 0.0
        part.terminated[i] = s[H_STATUS] == TERMINATED
        part.truncated[i] = s[H_STATUS] == TRUNCATED
        part.reasons[i] = 0
        part.lengths[i] = 0
        if s[H_STATUS] != PLAYING:
            for p in range(n):
                rewards[i, p] = s[H_RET + p]
            part.reasons[i] = s[H_REASON]
            part.lengths[i] = s[H_TURN]
            fresh_game(g, s, params, prob)
            legal(g, s, params, mask)  # (the step refreshed the mask of a row that goes on)
        observe(g, s, params, s[H_CURRENT], row_view(part.obs, i))
        copy_row(row_view(part.out_masks, i), mask)
        part.to_move[i] = s[H_CURRENT]


@njit(cache=True)
def random_actions_n(g, whole, part, params, extra):
    """A uniformly random legal action per row, from the row's generator."""
    part = _parts.DrawPart(*part)  # (a plain tuple from Python: see _parts)
    for i in range(part.states.shape[0]):
        part.out[i] = sample_mask(row_view(part.states, i), row_view(part.masks, i))


# --- the row API's drivers (VectorEnv.act_rows / observe_rows / reset_rows / roll_rows): listed rows only, no
# auto-reset.  ``whole.masks`` is the engine's own, kept current for every row (the legal mask of the seat to act,
# zeros once the game is over), so an action is checked against it in the kernel too


@njit(cache=True)
def act_rows(g, whole, part, params, extra):
    """Row ``rows[k]`` plays ``actions[k]`` (:func:`step_row`, with
    ``extra`` = (the illegal_action mode, settle chance, allow
    ``RANDOM_ACTION``): an illegal action is forfeited or replaced by a
    random legal one; ``RANDOM_ACTION`` draws one where allowed, else it is
    illegal too).  Its illegal flag in ``illegal[k]``.  No auto-reset."""
    whole, part = _parts.Engine(*whole), _parts.ActPart(*part)  # (plain tuples from Python: see _parts)
    mode, settle, allow_random = extra[0], extra[1] != 0, extra[2] != 0
    for k in range(part.rows.shape[0]):
        r = part.rows[k]
        a = part.actions[k]
        if a == RANDOM_ACTION and not allow_random:
            a = -1
        flag = step_row(
            g, row_view(whole.states, r), params, a, mode, settle, row_view(whole.probs, r), row_view(whole.masks, r)
        )
        part.illegal[k] = flag != STEP_PLAYED  # (refused: a row that is over, a wrong chance outcome)


@njit(cache=True)
def observe_rows(g, whole, part, params, extra):
    """Row ``rows[k]`` as seat ``seats[k]`` sees it (:func:`observe_row`)."""
    whole, part = _parts.Engine(*whole), _parts.ObservePart(*part)  # (plain tuples from Python: see _parts)
    for k in range(part.rows.shape[0]):
        r = part.rows[k]
        observe_row(
            g,
            row_view(whole.states, r),
            params,
            part.seats[k],
            row_view(whole.masks, r),
            row_view(part.obs, k),
            row_view(part.out_masks, k),
        )


@njit(cache=True)
def reset_rows(g, whole, part, params, extra):
    """A new game in each listed row (:func:`deal_row`, ``extra`` = (draw
    the seats, settle chance)); with draw, ``seats[k]`` is drawn from it too
    (the learner's seat)."""
    whole, part = _parts.Engine(*whole), _parts.DealPart(*part)  # (plain tuples from Python: see _parts)
    draw, settle = extra[0] != 0, extra[1] != 0
    for k in range(part.rows.shape[0]):
        r = part.rows[k]
        part.seats[k] = deal_row(
            g,
            row_view(whole.states, r),
            params,
            part.seats[k],
            draw,
            settle,
            row_view(whole.probs, r),
            row_view(whole.masks, r),
        )


@njit(cache=True)
def roll_rows(g, whole, part, params, extra):
    """Row ``rows[k]``, at a chance node, plays one outcome rolled by the
    seeded die (drawn by its probability from the row's generator, as
    :func:`boardenvs.bind.settle_chance` rolls) and stops after it;
    ``outcomes[k]`` the outcome, -1 in a row not at a chance node
    (unchanged).  For callers that record chance outcomes."""
    whole, part = _parts.Engine(*whole), _parts.RollPart(*part)  # (plain tuples from Python: see _parts)
    for k in range(part.rows.shape[0]):
        r = part.rows[k]
        s, probs, mask = row_view(whole.states, r), row_view(whole.probs, r), row_view(whole.masks, r)
        if s[H_STATUS] != PLAYING or s[H_CURRENT] != CHANCE:
            part.outcomes[k] = -1
            continue
        chance_probs(g, s, params, probs)
        outcome = sample_probs(s, probs)
        apply(g, s, params, outcome)
        settle_row(g, s, params, False, probs, mask)
        part.outcomes[k] = outcome


# --- the learner loop, every single-agent view's step (the gymnasium views at N rows and at one, SB3VecEnv): the
# learner's move, the opponents' until the learner is to act again, the end of the learner's episode and its next
# one, its observation.  Opponents in the engine play inside; the others are asked between calls, once per round
# for every row waiting (boardenvs.vector.VectorEnv.play_learners).  Each row draws from its own generator, so its
# games do not depend on how the rows are batched


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
        step_row(g, s, params, opponent_action(g, s, params, mask), ILLEGAL_LOSE, True, probs, mask)
    return False


# a row's stage in the learner loop (agent_step / agent_resume): where it
# stopped, so that a later call goes on from there
DONE = 0  # the learner is to act, or its episode ended (and no next one is dealt)
PLAY = 1  # waits for an opponent outside the engine, in the learner's episode
DEAL = 2  # waits for one in a new deal, before the learner's first decision
PICK = 3  # a new deal waits for the caller to pick its opponent
START = 4  # (on entry) a pending row: its next episode starts now


@njit(cache=True)
def loop_on(g, L, i, params, extra):
    """Row ``i`` of the learner loop ``L`` (a :class:`LoopPart`), from its
    ``stage[i]`` on: the opponents play (:func:`advance_row`) until the
    learner in ``seats[i]`` is to act (``DONE``), or the row waits for an
    opponent outside the engine (``PLAY`` / ``DEAL``: ``outside[i]``) or,
    with the picks flag, for the caller to pick a new deal's opponent
    (``PICK``).  When the learner's episode ends (the game is over, or the
    learner is out) its end goes to ``rewards`` / ``ends`` (1 terminated, 2
    truncated) / ``reasons`` / ``lengths``; with the same-step flag its last
    view to ``final_obs`` / ``final_masks`` and the next episode is dealt (a
    seat drawn with the draw flag); a deal whose game is over before the
    learner's first decision is dealt again, at most 64 times (then
    ``ends[i]`` -1, ``DONE``)."""
    s, mask, probs = row_view(L.states, i), row_view(L.masks, i), row_view(L.probs, i)
    while True:
        st = L.stage[i]
        if st == PLAY or st == DEAL:
            seat = L.seats[i]
            if advance_row(g, s, params, seat, L.outside[i], probs, mask):
                return
            if not learner_out(s, seat):
                L.stage[i] = DONE
                return
            if st == PLAY:  # the learner's episode is over
                alive = (s[H_ALIVE] >> seat) & 1 == 1
                L.rewards[i] = s[H_RET + seat]
                L.ends[i] = 1 if s[H_STATUS] == TERMINATED or not alive else 2
                L.reasons[i] = s[H_REASON]
                L.lengths[i] = s[H_TURN]
                if extra[LOOP_SAME_STEP] == 0:
                    L.stage[i] = DONE
                    return
                observe_row(g, s, params, seat, mask, row_view(L.final_obs, i), row_view(L.final_masks, i))
                L.deals[i] = 0
            elif L.deals[i] >= 64:
                L.ends[i] = -1  # 64 deals ended the learner's episode first: observed as it is
                L.stage[i] = DONE
                return
        # (START, or an episode over:) the next deal
        L.seats[i] = deal_row(g, s, params, L.seats[i], extra[LOOP_DRAW] != 0, True, probs, mask)
        L.deals[i] += 1
        if extra[LOOP_PICKS] != 0:
            L.stage[i] = PICK
            return
        L.stage[i] = DEAL


@njit(cache=True)
def loop_out(g, L, i, params):
    """Row ``i``'s view where it stopped: the learner's in ``obs`` /
    ``out_masks`` (``DONE``), or the view of the opponent it waits for in
    ``wait_obs`` / ``wait_masks`` (``PLAY`` / ``DEAL``)."""
    s, mask = row_view(L.states, i), row_view(L.masks, i)
    if L.stage[i] == DONE:
        observe_row(g, s, params, L.seats[i], mask, row_view(L.obs, i), row_view(L.out_masks, i))
    elif L.stage[i] != PICK:
        observe_row(g, s, params, s[H_CURRENT], mask, row_view(L.wait_obs, i), row_view(L.wait_masks, i))


@njit(cache=True)
def loop_move(g, L, i, a, params, extra):
    """The learner of row ``i`` plays ``a`` (the learners' illegal_action
    mode, ``extra[LOOP_MODE]``: an illegal action, ``RANDOM_ACTION``
    included, is forfeited or replaced by a random legal one), flagged in
    ``illegal[i]``."""
    if a == RANDOM_ACTION:
        a = -1  # the row API's code is no learner's action
    flag = step_row(
        g, row_view(L.states, i), params, a, extra[LOOP_MODE], True, row_view(L.probs, i), row_view(L.masks, i)
    )
    L.illegal[i] = flag == STEP_ILLEGAL


@njit(cache=True)
def agent_step(g, whole, part, params, extra):
    """The learner loop, every single-agent view's step: in each row the
    learner in seat ``seats[i]`` plays ``actions[i]`` (:func:`loop_move`),
    then :func:`loop_on` (the opponents until it is to act again; its
    episode's end and, with the same-step flag, its next one).  A
    ``pending`` row (same-step off: its episode ended at the last step; or a
    first deal) starts its next episode instead of moving.  Opponents in the
    engine (random, or the bound one) play inside; a row whose opponent is
    ``outside`` stops where that opponent is to act, its view in
    ``wait_obs`` / ``wait_masks``, and :func:`agent_resume` goes on with its
    answer.  Every row that got to its learner: the learner's view in
    ``obs`` / ``out_masks``.  ``rewards``, ``ends``, ``reasons``,
    ``lengths``: 0 but in the rows whose episode ended."""
    part = _parts.LoopPart(*part)  # (a plain tuple from Python: see _parts)
    L = part
    for i in range(L.states.shape[0]):
        L.rewards[i] = 0.0
        L.ends[i] = 0
        L.reasons[i] = 0
        L.lengths[i] = 0
        L.illegal[i] = False
        if L.pending[i]:
            L.deals[i] = 0
            L.stage[i] = START
        else:
            loop_move(g, L, i, L.actions[i], params, extra)
            L.stage[i] = PLAY
        loop_on(g, L, i, params, extra)
        loop_out(g, L, i, params)


@njit(cache=True)
def agent_resume(g, whole, part, params, extra):
    """The learner loop goes on in the listed rows of ``whole`` (the
    :class:`LoopPart`), each from where :func:`agent_step` (or the last
    resume) stopped it: a row waiting for an opponent outside the engine
    plays ``actions[k]``, that opponent's answer (checked by the caller); a
    row waiting for a pick goes on with the opponent the caller picked
    (``outside`` updated).  Then as :func:`agent_step`."""
    whole, part = _parts.LoopPart(*whole), _parts.ResumePart(*part)  # (plain tuples from Python: see _parts)
    L = whole
    for k in range(part.rows.shape[0]):
        i = part.rows[k]
        if L.stage[i] == PICK:
            L.stage[i] = DEAL
        else:
            step_row(
                g,
                row_view(L.states, i),
                params,
                part.actions[k],
                ILLEGAL_LOSE,
                True,
                row_view(L.probs, i),
                row_view(L.masks, i),
            )
        loop_on(g, L, i, params, extra)
        loop_out(g, L, i, params)


NAMES = tuple(
    "reset_n step_n random_actions_n act_rows observe_rows reset_rows roll_rows agent_step agent_resume".split()
)
# every compiled function here (boardenvs.bind.uncached copies them for kernels no import reaches)
COMPILED = (
    *"fresh_game step_row settle_row observe_row deal_row learner_out advance_row loop_on loop_out loop_move".split(),
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
    # the row API's (VectorEnv.act_rows / observe_rows / reset_rows / roll_rows): listed rows only, no
    # auto-reset, observations for a given seat, chance settled or rolled one outcome at a time
    act_rows: object
    observe_rows: object
    reset_rows: object
    roll_rows: object
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
    drivers are one generic driver for every game (:mod:`boardenvs._threaded`)
    calling these by address, so nothing is compiled per game for threads.
    Chance nodes are resolved in-kernel from each row's own generator (the
    row API can stop at them and roll them one by one, for records).

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
        parallel = Drivers(*(_threaded.ThreadedDriver(fn, g) for fn in compiled))
    _BATCHED[slot] = found = Batched(serial, parallel, one)
    return found


_BATCHED: dict = {}  # (kernels, extras, opponent) -> Batched, built once per process
