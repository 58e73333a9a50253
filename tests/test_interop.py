"""Other trainers' wrappers over boardenvs (the ``interop`` extra, installed
by ``make test``): TorchRL's ``PettingZooWrapper`` on the AEC env, TorchRL's
``GymWrapper`` and Tianshou's vector env on the gymnasium ids, and the
parallel view's ``idle_mask="ones"`` for learners that sample every agent's
action from a masked distribution.  Every env here raises on an illegal
action (the default ``illegal_action="raise"``), so a finished rollout means
every action the trainer's masked sampling chose was legal."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
import torch

import boardenvs

warnings.filterwarnings("ignore", message=".*PettingZoo in TorchRL is tested.*")


def test_torchrl_pettingzoo_wrapper_on_the_aec_env_plays_whole_games():
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    # (no names and no mask copy in the infos: the wrapper makes a tensor of each info it sees at reset)
    made = boardenvs.make("quagmire_v0", radius=2, infos="numbers")
    env = PettingZooWrapper(env=made, use_mask=True, categorical_actions=True)
    check_env_specs(env)
    td = env.rollout(200, break_when_any_done=True)
    assert bool(td["next", "done"][-1].all())
    # one agent acts per step: the one whose "mask" is set
    assert bool((td["player_0", "mask"] ^ td["player_1", "mask"]).all())
    rewards = td["next", "player_0", "reward"].sum().item(), td["next", "player_1", "reward"].sum().item()
    assert sorted(rewards) == [-1.0, 1.0]


def test_torchrl_gym_wrapper_with_the_mask_from_infos():
    from torchrl.data import Binary
    from torchrl.envs import GymWrapper, TransformedEnv
    from torchrl.envs.gym_like import default_info_dict_reader
    from torchrl.envs.transforms import ActionMask
    from torchrl.envs.utils import check_env_specs

    base = GymWrapper(gymnasium.make("boardenvs/Quagmire-v0", radius=2), categorical_action_encoding=True)
    base.set_info_dict_reader(
        default_info_dict_reader(["action_mask"], spec={"action_mask": Binary(n=103, dtype=torch.bool)})
    )
    env = TransformedEnv(base, ActionMask())
    check_env_specs(env)
    for seed in range(3):
        env.set_seed(seed)
        td = env.rollout(100, break_when_any_done=True)
        assert bool(td["next", "done"][-1]) and td["next", "reward"][-1].item() in (-1.0, 1.0)


def test_tianshou_vector_env_on_the_gymnasium_id():
    from tianshou.env import DummyVectorEnv

    envs = DummyVectorEnv([lambda: gymnasium.make("boardenvs/Quagmire-v0", radius=2) for _ in range(4)])
    obs, infos = envs.reset(seed=0)
    assert obs.shape == (4, 125)  # flat by default (flatten=False: the planes)
    masks = np.stack([i["action_mask"] for i in infos])
    finished = []
    rng = np.random.default_rng(0)
    for _ in range(200):
        obs, rewards, term, trunc, infos = envs.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        masks = np.stack([i["action_mask"] for i in infos])
        done = np.flatnonzero(term | trunc)
        finished += list(rewards[done])
        if len(done):
            _, fresh = envs.reset(done)
            masks[done] = np.stack([i["action_mask"] for i in fresh])
    assert len(finished) > 4 and set(finished) <= {-1.0, 1.0}


def test_the_parallel_views_idle_mask():
    """``idle_mask="ones"``: the agent not to act gets an all-ones mask and
    its action is ignored; the acting agent's mask is the legal one."""
    from pettingzoo.test import parallel_api_test

    parallel_api_test(boardenvs.quagmire_v0.parallel_env(radius=2, idle_mask="ones"), num_cycles=200)
    env = boardenvs.quagmire_v0.parallel_env(radius=2, idle_mask="ones")
    plain = boardenvs.quagmire_v0.parallel_env(radius=2)
    obs, infos = env.reset(seed=1)
    ref, _ = plain.reset(seed=1)
    rng = np.random.default_rng(1)
    while env.agents:
        active = infos[env.agents[0]]["active_agent"]
        for agent in env.agents:
            if agent == active:
                assert np.array_equal(obs[agent]["action_mask"], ref[agent]["action_mask"])
            else:
                assert obs[agent]["action_mask"].all() and not ref[agent]["action_mask"].any()
        legal = np.flatnonzero(obs[active]["action_mask"])
        actions = {a: int(rng.integers(103)) for a in env.agents}  # idle agents: anything
        actions[active] = int(rng.choice(legal))
        obs, rewards, term, trunc, infos = env.step(actions)
        ref, *_ = plain.step(actions)
        for agent in obs:
            assert np.array_equal(obs[agent]["observation"], ref[agent]["observation"])
    with pytest.raises(ValueError, match="idle_mask"):
        boardenvs.quess_v0.parallel_env(idle_mask="none")


def _puffer_gymnasium_vecenv(num_envs):
    import pufferlib.emulation
    import pufferlib.vector
    from boardenvs.wrappers import MaskInObservation

    def inner():
        return MaskInObservation(gymnasium.make("boardenvs/Quagmire-v0", radius=2, opponent="random"))

    def make_env(buf=None, seed=0):
        return pufferlib.emulation.GymnasiumPufferEnv(env_creator=inner, buf=buf, seed=seed)

    return pufferlib.vector.make(make_env, num_envs=num_envs, backend=pufferlib.vector.Serial), inner()


def test_pufferlib_emulation_gives_the_mask_back():
    """PufferLib flattens ``MaskInObservation``'s ``{"mask", "obs"}`` into one
    uint8 row; :func:`unflatten_emulated` reads the mask and the board back
    (numpy and torch alike), and actions drawn from that mask are all legal
    (the env raises on an illegal one) through PufferLib's resets."""
    from boardenvs.wrappers import unflatten_emulated

    vec, inner = _puffer_gymnasium_vecenv(3)
    obs, _ = vec.reset(seed=0)
    assert obs.dtype == np.uint8 and obs.ndim == 2
    rng, ended, done = np.random.default_rng(0), 0, np.zeros(3, bool)
    for _ in range(150):
        fields = unflatten_emulated(obs, inner.observation_space)
        # a row whose game just ended shows its last board, no legal action: Serial resets it on the next call
        assert fields["mask"].dtype == np.bool_ and (fields["mask"].any(axis=1) == ~done).all()
        assert inner.observation_space["obs"].contains(fields["obs"][0])
        as_torch = unflatten_emulated(torch.as_tensor(obs), inner.observation_space)
        assert torch.equal(as_torch["mask"], torch.as_tensor(fields["mask"]))
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in fields["mask"]])
        obs, rewards, term, trunc, _ = vec.step(actions)
        done = term | trunc
        ended += int(done.sum())
        assert set(np.unique(rewards[done])) <= {-1.0, 0.0, 1.0}
    assert ended > 0
    with pytest.raises(ValueError, match="dtype float32"):
        unflatten_emulated(obs.astype(np.float32), inner.observation_space)
    with pytest.raises(ValueError, match="Dict of Box"):
        unflatten_emulated(obs, inner.observation_space["obs"])


def test_pufferlib_pettingzoo_emulation_of_the_parallel_view():
    """``PettingZooPufferEnv`` over ``parallel_env(idle_mask="ones")``: one
    row per agent; the acting agent's row has the game's mask, the waiting
    agent's an all-ones one (its action is ignored)."""
    import pufferlib.emulation
    from boardenvs.wrappers import unflatten_emulated

    par = boardenvs.quagmire_v0.parallel_env(radius=2, idle_mask="ones")
    env = pufferlib.emulation.PettingZooPufferEnv(env=par)
    _, infos = env.reset(seed=0)
    space = par.observation_space("player_0")
    rng = np.random.default_rng(0)
    for _ in range(200):
        fields = unflatten_emulated(env.observations, space)
        counts = fields["action_mask"].sum(axis=1)
        assert sorted(counts == space["action_mask"].shape[0]) == [False, True]  # one acts, one waits
        acting = env.possible_agents.index(infos["player_0"]["active_agent"])
        np.testing.assert_array_equal(fields["action_mask"][acting], infos[env.possible_agents[acting]]["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in fields["action_mask"]])
        _, _, _, _, infos = env.step(actions)
        if env.done:
            break
    else:
        raise AssertionError("no game ended")
