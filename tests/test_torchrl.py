"""The native TorchRL env (``boardenvs.torchrl.BoardEnv``, the ``interop``
extra): TorchRL's ``check_env_specs`` on every registered id and variant in
both modes, its steps equal to the engine's views it is built on (the
gymnasium vector view against an opponent, ``make_vec`` in self-play) for the
same seed and actions, TorchRL's reset and seeding conventions, and the
errors a bad input gets (C-6)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from boardenvs.wrappers.vector import SingleAgentVectorEnv
from tensordict import TensorDict
from torchrl.envs.utils import check_env_specs

import boardenvs
from boardenvs.errors import IllegalActionError, ResetNeededError
from boardenvs.registry import game_class, registered_ids
from boardenvs.torchrl import BoardEnv

CASES = [(env_id, variant) for env_id in registered_ids() for variant in game_class(env_id).variants]


def _label(case) -> str:
    env_id, variant = case
    return env_id + "".join(f"-{k}={v}" for k, v in variant.items())


@pytest.mark.parametrize("case", CASES, ids=[_label(c) for c in CASES])
def test_check_env_specs_on_every_id_and_variant(case):
    env_id, variant = case
    players = game_class(env_id)(**variant).num_players
    for seat in ("random", "all"):
        env = BoardEnv(env_id, num_envs=2, seat=seat, illegal_action="raise", **variant)
        check_env_specs(env, seed=0)
        spec = env.full_observation_spec
        assert spec["observation"].dtype == torch.int8 and spec["action_mask"].shape == (2, env.game.num_actions)
        rewards = env.reward_keys
        assert rewards == (["reward"] if seat == "random" else [(a, "reward") for a in env.agents])
        assert len(env.agents) == players
        td = env.rollout(3)  # legal actions from the mask (illegal_action="raise" would raise)
        assert td.batch_size == (2, 3) or td["next", "done"].any()


def test_against_an_opponent_the_steps_are_the_gymnasium_vector_views():
    """Same seed, same actions: every reward, end, final and first
    observation and mask is the vector view's; the ended rows' ("next",
    "observation") is the ended episode's last view, the reset hands over
    the next one."""
    n, steps = 4, 200
    env = BoardEnv("quagmire_v0", num_envs=n, radius=2, illegal_action="raise")
    env.set_seed(3)
    td = env.rollout(steps, break_when_any_done=False)
    ref = SingleAgentVectorEnv("quagmire_v0", n, radius=2, illegal_action="raise")
    obs, info = ref.reset(seed=3)
    assert np.array_equal(td["observation"][:, 0].numpy(), obs)
    ended = 0
    for t in range(steps):
        obs, rewards, term, trunc, info = ref.step(td["action"][:, t].numpy())
        done = term | trunc
        ended += int(done.sum())
        assert np.array_equal(td["next", "reward"][:, t, 0].numpy(), rewards)
        assert np.array_equal(td["next", "terminated"][:, t, 0].numpy(), term)
        assert np.array_equal(td["next", "done"][:, t, 0].numpy(), done)
        assert np.array_equal(td["next", "seat"][:, t, 0].numpy()[~done], info["seat"][~done])
        for i in range(n):
            want = info["final_obs"][i] if done[i] else obs[i]
            assert np.array_equal(td["next", "observation"][i, t].numpy(), want)
            assert not done[i] or not td["next", "action_mask"][i, t].any()
            if t + 1 < steps:  # the root of the next step: the new episode's first view where one ended
                assert np.array_equal(td["observation"][i, t + 1].numpy(), obs[i])
                assert np.array_equal(td["action_mask"][i, t + 1].numpy(), info["action_mask"][i])
                assert td["seat"][i, t + 1, 0].item() == info["seat"][i]
    assert ended >= 20 and set(np.unique(td["next", "reward"].numpy())) == {-1.0, 0.0, 1.0}


def test_self_play_steps_are_make_vecs_with_rewards_per_seat():
    n, steps = 3, 150
    env = BoardEnv("quagmire_v0", num_envs=n, seat="all", radius=2, illegal_action="raise")
    env.set_seed(5)
    td = env.rollout(steps, break_when_any_done=False)
    vec = boardenvs.make_vec("quagmire_v0", num_envs=n, radius=2, illegal_action="raise")
    out, infos = vec.reset(seed=5)
    assert np.array_equal(td["observation"][:, 0].numpy(), out["observation"].reshape(n, -1))
    ended = 0
    for t in range(steps):
        out, rewards, term, trunc, infos = vec.step(td["action"][:, t].numpy())
        done = term | trunc
        ended += int(done.sum())
        for k, agent in enumerate(env.agents):
            assert np.array_equal(td["next", agent, "reward"][:, t, 0].numpy(), rewards[:, k])
        assert np.array_equal(td["next", "done"][:, t, 0].numpy(), done)
        live = ~done
        assert np.array_equal(td["next", "observation"][:, t].numpy()[live], out["observation"].reshape(n, -1)[live])
        assert np.array_equal(td["next", "turn"][:, t, 0].numpy()[live], infos["to_move"][live])
        assert not td["next", "observation"][:, t].numpy()[done].any()  # the ended game's view is not kept: zeros
        if t + 1 < steps:
            assert np.array_equal(td["observation"][:, t + 1].numpy(), out["observation"].reshape(n, -1))
            assert np.array_equal(td["action_mask"][:, t + 1].numpy(), out["action_mask"] == 1)
    assert ended >= 10
    done = td["next", "done"].squeeze(-1)
    finals = torch.cat([td["next", agent, "reward"][done] for agent in env.agents], -1)
    assert finals.abs().sum(-1).eq(2).all() and finals.sum(-1).eq(0).all()  # a winner and a loser each game


def test_seeding_follows_torchrls_set_seed():
    def rollout(seed):
        env = BoardEnv("quess_v0", num_envs=3, max_turns=40, superko_memory=16)
        env.set_seed(seed)
        torch.manual_seed(0)  # rand_action's draws
        return env.rollout(30, break_when_any_done=False)

    a, b, c = rollout(7), rollout(7), rollout(8)
    assert (a == b).all()
    assert not torch.equal(a["observation"], c["observation"])
    env = BoardEnv("quess_v0", num_envs=3)
    assert env.set_seed(7) != 7  # the next env's seed, TorchRL's seed_generator


def test_partial_resets():
    """Rows whose episode ended take the next one through '_reset' (no other
    row changes); a mid-episode row is restarted in self-play and refused
    against an opponent; a step over un-reset ended rows is refused."""
    env = BoardEnv("quagmire_v0", num_envs=4, radius=2)
    env.set_seed(0)
    td = env.reset()
    while True:
        td = env.rand_action(td)
        td = env.step(td)
        done = td["next", "done"].squeeze(-1)
        if done.any() and not done.all():
            break
        td = env.step_mdp(td)
    with pytest.raises(ValueError, match=r"ended at an earlier step and were not reset"):
        env.step(env.rand_action(env.step_mdp(td)))
    nxt = env.step_mdp(td)
    before = nxt["observation"].clone()
    after = env.reset(nxt.set("_reset", done.unsqueeze(-1).clone()))
    assert torch.equal(after["observation"][~done], before[~done])
    assert not after["done"].any() and after["action_mask"].any(-1).all()
    mid = (~done).clone()
    with pytest.raises(ValueError, match=r"mid-episode: reset every row"):
        env.reset(after.clone().set("_reset", mid.unsqueeze(-1)))
    env.rollout(5, auto_reset=False, tensordict=after)  # still steps after the refusal

    selfplay = BoardEnv("quagmire_v0", num_envs=4, radius=2, seat="all")
    selfplay.set_seed(0)
    td = selfplay.rollout(6)
    last = selfplay.step_mdp(td[:, -1])
    only = torch.tensor([True, False, False, False]).unsqueeze(-1)
    out = selfplay.reset(last.clone().set("_reset", only))
    assert torch.equal(out["observation"][1:], last["observation"][1:])
    # row 0 starts again: its view is a new game's first (every row's at the first reset: no chance at the start)
    assert torch.equal(out["observation"][0], td["observation"][0, 0]) and out["turn"][0].item() == 0
    assert not torch.equal(last["observation"][0], td["observation"][0, 0])


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match=r"seat='all' is self-play .* takes no opponent"):
        BoardEnv("quess_v0", seat="all", opponent="greedy")
    with pytest.raises(ValueError, match=r"seat must be a seat 0\.\.1"):
        BoardEnv("quess_v0", seat=2)
    with pytest.raises(ValueError, match=r"unknown id"):
        BoardEnv("chess_v0")
    with pytest.raises(ValueError, match=r"num_envs"):
        BoardEnv("quess_v0", num_envs=0)
    with pytest.raises(ValueError, match=r"flatten must be"):
        BoardEnv("quess_v0", flatten="no")
    env = BoardEnv("quagmire_v0", num_envs=2, radius=2, illegal_action="raise")
    with pytest.raises(ResetNeededError):
        env.step(TensorDict({"action": torch.zeros(2, dtype=torch.int64)}, batch_size=[2]))
    td = env.reset()
    with pytest.raises(IllegalActionError, match=r"integers"):
        env._step(td.clone().set("action", torch.zeros(2)))
    with pytest.raises(IllegalActionError, match=r"masked out"):
        env.step(td.clone().set("action", torch.full((2,), 10**6)))
    for action in ("x", [0, 1]):  # not a tensor: refused at once, nothing stepped (C-6)
        with pytest.raises(IllegalActionError, match=r"'action' entry must be a tensor"):
            env.step(td.clone().set_non_tensor("action", action))
    # a tensor numpy cannot hold, or that holds no data (C-6): the env's own error, nothing stepped
    before = env._vec.states.copy()
    for action in (
        torch.zeros(2, dtype=torch.bfloat16),
        torch.zeros(2, dtype=torch.complex32),
        torch.zeros(2, dtype=torch.int64).to_sparse(),
        torch.zeros(2, dtype=torch.int64, device="meta"),
    ):
        with pytest.raises(IllegalActionError, match=r"the 'action' entry (must be|is on the meta device)") as info:
            env.step(td.clone().set("action", action))
        assert "quagmire_v0 BoardEnv" in str(info.value) and "\n" not in str(info.value)
    for reset in (torch.ones(2, dtype=torch.bool, device="meta"), torch.ones(2, dtype=torch.bool).to_sparse()):
        with pytest.raises(ValueError, match=r"'_reset' (must be a dense tensor|is on the meta device)"):
            env.reset(td.clone().set("_reset", reset))
    assert np.array_equal(env._vec.states, before)
    assert env.step(env.rand_action(td.clone()))["next", "observation"].shape == td["observation"].shape  # steps on
    with pytest.raises(ValueError, match=r"'_reset' must be 2 bools"):
        env.reset(td.clone().set("_reset", torch.ones(2, 1, dtype=torch.int64)))
    lose = BoardEnv("quagmire_v0", num_envs=2, radius=2)
    td = lose.reset()
    with pytest.warns(UserWarning, match="forfeits"):
        out = lose.step(td.clone().set("action", torch.full((2,), -1)))
    assert out["next", "reward"].eq(-1).all() and out["next", "terminated"].all()
