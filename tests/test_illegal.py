"""Illegal actions reported one way on every face (C-6; boardenvs/illegal.py):
the AEC env, make_vec (its step and its rows), the learner loop and the
single-agent env word the refusal, the once-per-env warning and the info
from the engine's step flag through one module; no other module words them
(the RLlib env's own check is in tests/test_rllib.py, where Ray is)."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from boardenvs.wrappers import SingleAgentEnv

import boardenvs
from boardenvs import engine as E
from boardenvs import illegal
from boardenvs.errors import ILLEGAL_ACTION_HELP, IllegalActionError

ROOT = Path(__file__).resolve().parent.parent


def _said(record) -> list[str]:
    """The warnings' texts, without gymnasium's colour codes."""
    return [re.sub(r"\x1b\[\d+m", "", str(w.message)).removeprefix("WARN: ") for w in record]


def test_no_module_but_one_words_an_illegal_action():
    """The words of the refusal's help, the warning and the "not legal"
    reasons live in boardenvs/illegal.py (the help's text in errors.py)."""
    files = [
        *(ROOT / "boardenvs").rglob("*.py"),
        *(ROOT / "wrappers").rglob("*.py"),
        *(ROOT / "baselines").rglob("*.py"),
    ]
    assert len(files) > 60
    words = ("ILLEGAL_ACTION_HELP", "shown once per env", "not a legal action now", "masked out, not legal")
    found = sorted(
        (f.relative_to(ROOT).as_posix(), w)
        for f in files
        if f.name not in ("illegal.py", "errors.py")
        for w in words
        if w in f.read_text()
    )
    assert not found, f"illegal actions worded outside boardenvs/illegal.py: {found}"


def test_reported_raises_on_refused_warns_once_on_illegal_and_gives_the_info():
    env = type("Face", (), {"_warned_illegal": False})()
    with pytest.raises(IllegalActionError) as refused:
        illegal.reported(env, E.STEP_REFUSED, "x_v0", "player_0 sent 9: outside", "raise", "infos", help_=True)
    assert str(refused.value) == f"x_v0: player_0 sent 9: outside. {ILLEGAL_ACTION_HELP}" and not env._warned_illegal
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert illegal.reported(env, E.STEP_PLAYED, "x_v0", "never said", "lose", "infos") is False
        assert illegal.reported(env, E.STEP_ILLEGAL, "x_v0", lambda: "player_0 sent 9", "lose", "infos") is True
        assert illegal.reported(env, E.STEP_ILLEGAL, "x_v0", "a second one", "lose", "infos") is True
    assert _said(record) == [illegal.warning("x_v0", "player_0 sent 9", "lose", "infos")]
    env._warned_illegal = "yes"  # (a pickle's value is data: only True counts as said)
    with pytest.warns(UserWarning, match="random legal action"):
        illegal.reported(env, E.STEP_ILLEGAL, "x_v0", "again", "random", "infos")
    assert env._warned_illegal is True


@pytest.mark.parametrize("mode", ["lose", "random"])
def test_the_aec_env_says_an_illegal_action_in_the_shared_words(mode):
    env = boardenvs.make("quess_v0", illegal_action=mode)
    env.reset(seed=0)
    agent, mask = env.agent_selection, env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    why = illegal.why_not(bad, mask, lambda a: env.unwrapped.game.describe_action(env.unwrapped._state, a))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        env.step(bad)
    assert why.startswith("masked out, not legal now: ")
    expected = illegal.warning("quess_v0", f"{agent} sent {bad!r}: {why}", mode, 'infos[agent]["illegal_action"]')
    assert _said(record) == [expected] and env.infos[agent]["illegal_action"] is True


def test_the_aec_env_refuses_in_the_shared_words_and_changes_nothing():
    env = boardenvs.make("quess_v0", illegal_action="raise")
    env.reset(seed=0)
    agent, before = env.agent_selection, env.unwrapped.state_snapshot()
    with pytest.raises(IllegalActionError) as refused:
        env.step(10**6)
    what = f"{agent} sent {10**6!r}: {illegal.why_not(10**6, env.observe(agent)['action_mask'])}"
    assert str(refused.value) == str(illegal.refusal("quess_v0", what))
    assert np.array_equal(env.unwrapped.state_snapshot(), before) and env.agent_selection == agent


def test_make_vec_and_its_rows_say_illegal_actions_in_the_shared_words():
    vec = boardenvs.make_vec("quess_v0", 4)
    vec.reset(seed=0)
    actions = np.array([-1, 10**6, 0, 0])
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        *_, infos = vec.step(actions)
    flagged = np.flatnonzero(infos["illegal_action"])
    assert {0, 1} <= set(flagged.tolist())
    what = illegal.rows_in_words(flagged, actions, vec.num_actions)
    assert _said(record) == [illegal.warning("quess_v0 make_vec", what, "lose", 'infos["illegal_action"]')]
    strict = boardenvs.make_vec("quess_v0", 2, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError) as refused:
        strict.act_rows([1], [10**6])
    what = illegal.rows_in_words(np.array([0]), [10**6], strict.num_actions, np.array([1]))
    assert str(refused.value) == str(illegal.refusal("quess_v0 make_vec", f"{what}; no row was stepped"))


def test_the_single_agent_env_refuses_in_the_shared_words():
    env = SingleAgentEnv("quess_v0", seat=0, illegal_action="raise")
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError) as refused:
        env.step(bad)
    what = f"the learner (player_0) sent {bad!r}: masked out, not legal now"
    assert str(refused.value) == str(illegal.refusal("quess_v0", what))
    lenient = SingleAgentEnv("quess_v0", seat=0, illegal_action="random")
    lenient.reset(seed=0)
    with pytest.raises(IllegalActionError, match="an action is an int in 0..1295, not str") as refused:
        lenient.step("a1")  # (no action id to replace: only "lose" plays on)
    assert ILLEGAL_ACTION_HELP not in str(refused.value)
