"""The AEC env's hot path against the kernels it drives, every
registered id x variant: after each step the state is the Position's after
the same action and the same seeded chance rolls, every agent's observation
and mask are the Position's, the rewards an agent collects are the game's
returns, and the wrapper's read-outs are the raw env's."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import boardenvs
from boardenvs import engine as E
from boardenvs.aec_views import OrderEnforcing
from boardenvs.errors import ResetNeededError
from boardenvs.position import Position
from boardenvs.registry import game_class, registered_ids


def _cases():
    """Every id x variant in the plain mode and with ``illegal_action="random"``
    (some masked-out actions sent); games with chance nodes also in the raw
    ``chance_agent=True`` mode."""
    for env_id in registered_ids():
        for variant in game_class(env_id).variants:
            label = "-".join(f"{k}={v}" for k, v in variant.items()) or "default"
            modes = ["plain", "illegal_random"]
            if game_class(env_id)(**variant).num_chance_outcomes:
                modes.append("chance_agent")
            for mode in modes:
                yield pytest.param(env_id, variant, mode, id=f"{env_id}[{label}]-{mode}")


CASES = list(_cases())
READ_OUTS = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


def _check_faces(env, raw, game):
    """Every agent's observation and mask are the Position's of the env's state."""
    pos = Position(game, raw.state_snapshot())
    for agent in env.agents:
        seat = raw._seat[agent]
        obs = env.observe(agent)
        acting = agent == env.agent_selection and not (env.terminations[agent] or env.truncations[agent])
        if seat == E.CHANCE:
            assert obs["action_mask"].any() == (acting and pos.is_chance)
            continue
        assert obs["observation"].shape == game.obs_shape and obs["observation"].dtype == np.int8
        assert np.array_equal(obs["observation"], pos.observation(seat))
        if acting:
            assert np.array_equal(obs["action_mask"], pos.action_mask()[: game.num_actions])
            assert obs["action_mask"].any()
        else:
            assert not obs["action_mask"].any()


@pytest.mark.parametrize("env_id, variant, mode", CASES)
def test_each_step_is_the_kernels_step_and_faces_are_the_positions(env_id, variant, mode):
    options = dict(variant)
    if mode == "illegal_random":
        options["illegal_action"] = "random"
    if mode == "chance_agent":
        options["chance_agent"] = True
    env = boardenvs.make(env_id, **options)
    raw = env.unwrapped
    game = raw.game
    rng = np.random.default_rng(7)
    illegal_sent = decisions = seed = 0
    while seed < 2 or decisions < 40:  # two games at least, more of a short game
        env.reset(seed=seed)
        seed += 1
        collected = {a: 0.0 for a in env.agents}
        returns = None
        for agent in env.agent_iter():
            # the wrapper's read-outs are the raw env's, and last() is PettingZoo's
            for name in READ_OUTS:
                assert getattr(env, name) is getattr(raw, name)
            obs, reward, term, trunc, info = env.last()
            want = AECEnv.last(raw)
            assert np.array_equal(obs["observation"], want[0]["observation"])
            assert np.array_equal(obs["action_mask"], want[0]["action_mask"])
            assert (reward, term, trunc, info) == want[1:]
            collected[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            # the hot path relies on it: before a live step no reward is pending
            assert not any(raw.rewards.values())
            _check_faces(env, raw, game)
            before = raw.state_snapshot()
            decisions += 1
            legal = np.flatnonzero(obs["action_mask"])
            shadow = before.copy()
            masked = np.flatnonzero(obs["action_mask"] == 0)
            if mode == "illegal_random" and len(masked) and rng.random() < 0.2:
                action = int(rng.choice(masked))
                # the engine's draw, from the game row's own generator (which moves on with it)
                played = int(E.sample_mask(shadow, obs["action_mask"].astype(np.int8)))
                illegal_sent += 1
            else:
                action = played = int(rng.choice(legal))
            env.step(action)
            assert raw.infos.get(agent, {}).get("illegal_action", False) == (
                action != played or not obs["action_mask"][action]
            )
            # the step is the kernel's apply, then the seeded die (unless chance is an agent)
            game.kernels.apply(shadow, game.params, played)
            if not raw.chance_agent:
                game.settle(shadow, np.zeros(game.mask_size, np.int8))
            assert np.array_equal(shadow, raw.state_snapshot())
            if shadow[E.H_STATUS] != E.PLAYING and returns is None:
                returns = Position(game, shadow).returns
        assert returns is not None
        for agent, total in collected.items():
            if agent != "chance":
                assert total == returns[raw._seat[agent]], (agent, collected, returns)
    assert illegal_sent > 0 or mode != "illegal_random"


def test_order_enforcing_read_outs_refuse_before_reset_as_pettingzoos_do():
    ours = boardenvs.make("quess_v0")
    assert isinstance(ours, OrderEnforcing)
    theirs = OrderEnforcingWrapper(boardenvs.quess_v0.raw_env())
    for name in ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos", "num_agents"):
        for env in (ours, theirs):
            with pytest.raises(AttributeError, match="cannot be accessed before reset"):
                getattr(env, name)
            assert not hasattr(env, name)
    with pytest.raises(AttributeError, match="before reset"):
        ours.last()
    with pytest.raises(ResetNeededError):
        ours.step(0)
    ours.reset(seed=0)
    theirs.reset(seed=0)
    for name in READ_OUTS + ("num_agents",):
        if name == "infos":  # (each holds the agent's mask: arrays compared as arrays)
            assert ours.infos.keys() == theirs.infos.keys()
            for agent, info in ours.infos.items():
                assert info.keys() == theirs.infos[agent].keys()
                assert all(np.array_equal(v, theirs.infos[agent][k]) for k, v in info.items())
            continue
        assert getattr(ours, name) == getattr(theirs, name)
    assert ours.num_agents == 2 and ours.max_num_agents == 2
