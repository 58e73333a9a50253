"""What the compiled drivers take (:mod:`boardenvs._drivers`): one NamedTuple
per kind of rows, so no driver takes more than a handful of parameters and
the threaded drivers (:mod:`boardenvs._threaded`) slice any of them by the
rows, whatever its fields.  A ``part`` holds the arrays indexed by the rows
a driver works on (its first field says how many); :class:`Engine` (or the
learner loop's :class:`LoopPart`) is the ``whole`` a driver over listed rows
indexes by row.

From Python the drivers are handed each NamedTuple as a plain ``tuple``
(``VectorEnv._run``) and rebuild it on their first line: numba reads a plain
tuple's argument types by its fast path, a NamedTuple's field by field in
Python, which cost a make_vec step at N = 1 about a third of its time."""

from __future__ import annotations

from typing import NamedTuple


class Engine(NamedTuple):
    """The engine's own arrays, one row per game: the rows, the die's
    scratch, the legal masks the steps trust (a listed-rows driver's ``whole``)."""

    states: object
    probs: object
    masks: object


class ResetPart(NamedTuple):
    """:func:`reset_n`'s rows: a new game from each seed, its first view."""

    states: object
    probs: object
    masks: object
    seeds: object
    obs: object
    out_masks: object
    to_move: object


class StepPart(NamedTuple):
    """:func:`step_n`'s rows: an action each, the results, the next view."""

    states: object
    probs: object
    masks: object
    actions: object
    obs: object
    out_masks: object
    rewards: object
    terminated: object
    truncated: object
    reasons: object
    lengths: object
    to_move: object
    illegal: object


class DrawPart(NamedTuple):
    """:func:`random_actions_n`'s rows and their draws."""

    states: object
    masks: object
    out: object


class ActPart(NamedTuple):
    """:func:`act_rows`' listed rows, their actions and illegal flags."""

    rows: object
    actions: object
    illegal: object


class ObservePart(NamedTuple):
    """:func:`observe_rows`' listed rows, the seats that look and their views."""

    rows: object
    seats: object
    obs: object
    out_masks: object


class DealPart(NamedTuple):
    """:func:`reset_rows`' listed rows and their (learners') seats."""

    rows: object
    seats: object


class RollPart(NamedTuple):
    """:func:`roll_rows`' listed rows and the outcomes rolled."""

    rows: object
    outcomes: object


class LoopPart(NamedTuple):
    """The learner loop's arrays, one entry per row (:func:`agent_step`;
    :func:`agent_resume`'s ``whole``)."""

    states: object
    probs: object
    masks: object
    actions: object
    seats: object
    pending: object
    outside: object
    stage: object
    deals: object
    obs: object
    out_masks: object
    final_obs: object
    final_masks: object
    rewards: object
    ends: object
    reasons: object
    lengths: object
    wait_obs: object
    wait_masks: object
    illegal: object


class ResumePart(NamedTuple):
    """:func:`agent_resume`'s listed rows and the answers they go on with."""

    rows: object
    actions: object


# the learner loop's flags (its drivers' ``extra``): draw seats, start the next episode in the same step, wait
# for the caller's picks, the illegal_action mode of the learners' actions
LOOP_DRAW, LOOP_SAME_STEP, LOOP_PICKS, LOOP_MODE = 0, 1, 2, 3
