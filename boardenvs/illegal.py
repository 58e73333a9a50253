"""Illegal actions, reported one way on every face.

The engine's one step (:func:`boardenvs._drivers.step_row`) decides what an
action the mask does not allow does, by the env's ``illegal_action`` mode,
and says so in its flag: ``STEP_ILLEGAL`` (forfeited, or a random legal
action played instead) or ``STEP_REFUSED`` (``"raise"``: nothing changed).
This module turns that flag into what the user sees, the same on every face
(the AEC env, ``make_vec`` and its rows, the single-agent and RLlib envs):

* :func:`why_not`: why one action is not legal, in words;
* :func:`rows_in_words`: which of a batch's actions were not (the first five);
* :func:`refusal`: the ``IllegalActionError`` of ``"raise"``, ending with
  the other modes (:data:`boardenvs.errors.ILLEGAL_ACTION_HELP`);
* :func:`reported`: after a step, from its flag: the refusal raised, or the
  first illegal action of the env warned once through gymnasium's logger,
  and the value of the ``illegal_action`` info.

A face keeps one attribute, ``_warned_illegal`` (a plain bool: copies and
pickles carry it as data), and calls these; no face words its own.
"""

from __future__ import annotations

import gymnasium
import numpy as np

from . import engine as E
from .errors import ILLEGAL_ACTION_HELP, IllegalActionError
from .spec import is_action_int

OUTCOMES = {
    "lose": "the offender forfeits: it loses the game",
    "random": "the engine plays a random legal action instead",
}
"""What an illegal action does under each mode that plays on (``"raise"`` refuses it)."""


def why_not(action, mask, describe=None) -> str:
    """Why ``action`` is not legal under ``mask`` (the 0/1 mask of the agent
    to act), or ``''`` if it is; ``describe(action)`` names a masked-out
    action in the game's words."""
    if action is None:
        return "None is only valid for an agent that is done"
    top = mask.shape[0]
    if not is_action_int(action):
        return f"an action is an int in 0..{top - 1}, not {type(action).__name__}"
    action = int(action)
    if not 0 <= action < top:
        return f"outside the action space 0..{top - 1}"
    if not mask[action]:
        return "masked out, not legal now" + (f": {describe(action)}" if describe is not None else "")
    return ""


def rows_in_words(bad, actions, num_actions: int, rows=None) -> str:
    """The illegal actions of a batch in words: ``bad`` their positions in
    ``actions`` (as the caller gave them), ``rows`` the rows they were for
    (None: position ``k`` is row ``k``); the first five are shown."""
    given = np.asarray(actions)
    row = (lambda k: k) if rows is None else (lambda k: int(rows[k]))
    shown = ", ".join(f"row {row(k)}: {given[k]}" for k in bad[:5]) + (" ..." if len(bad) > 5 else "")
    return f"{len(bad)} action(s) outside 0..{num_actions - 1} or masked out ({shown})"


def refusal(where: str, what: str, help_: bool = True) -> IllegalActionError:
    """The error that refuses an illegal action (nothing changed: C-6):
    ``where`` names the env, ``what`` the action and why; ``help_``: end
    with the other ``illegal_action`` modes (not for a chance outcome,
    which no mode replaces)."""
    return IllegalActionError(f"{where}: {what}." + (f" {ILLEGAL_ACTION_HELP}" if help_ else ""))


def warning(where: str, what: str, mode: str, marked: str) -> str:
    """The words of the once-per-env warning (``marked``: the info that
    marks the illegal action on this face)."""
    return (
        f"{where}: {what}; illegal_action={mode!r}: {OUTCOMES[mode]} "
        f"({marked} is True; this warning is shown once per env)"
    )


def reported(env, flag: int, where: str, what, mode: str, marked: str, help_: bool = True) -> bool:
    """What the step's ``flag`` tells the user, on any face: ``STEP_REFUSED``
    raises :func:`refusal` (``help_``: with the other modes); ``STEP_ILLEGAL``
    warns once per env (``env``'s ``_warned_illegal``) and returns True, the
    value of the ``illegal_action`` info; else False.  ``what`` (the action
    and why, in words) may be a function, called only when it is said."""
    if flag == E.STEP_REFUSED:
        raise refusal(where, what() if callable(what) else what, help_)
    if flag != E.STEP_ILLEGAL:
        return False
    if getattr(env, "_warned_illegal", False) is not True:  # (a pickle's value is data: only True counts)
        env._warned_illegal = True
        gymnasium.logger.warn(warning(where, what() if callable(what) else what, mode, marked))
    return True
