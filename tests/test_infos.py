"""Infos a trainer's buffer can store, on every face and every registered id
and variant: every key an env ever reports is in every step's info, with one
type from the first step to the last (``end_reason`` ``""`` while the game
goes on), and ``info["action_mask"]`` is the observation's mask.

Trainers that keep infos in a replay buffer (Tianshou pads a key missing
from one step with None and then refuses the NaN) need one shape; learners
that read the mask from the info (AgileRL's IPPO) need it there.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from boardenvs.wrappers import MaskInObservation, ObservationWithoutMask, VectorMaskInObservation
from boardenvs.wrappers.dice import DiceVariant
from registry_cases import variant_cases

import boardenvs
from boardenvs.registry import game_class, gym_id_of, registered_ids

CASES = variant_cases()


def _shape(info) -> dict:
    return {k: type(v) for k, v in info.items()}


def _play_aec(env, seed, illegal_every=0):
    """Play ``env`` to the end with seeded random legal actions (and, every
    ``illegal_every`` decisions, an illegal one); yield each ``last()``."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for n, _ in enumerate(env.agent_iter(max_iter=3000)):
        obs, reward, term, trunc, info = env.last()
        yield obs, term, trunc, info
        if term or trunc:
            env.step(None)
        elif illegal_every and n % illegal_every == illegal_every - 1 and not obs["action_mask"].all():
            env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("env_id, variant", CASES)
def test_every_aec_info_has_every_key_with_one_type_and_the_observations_mask(env_id, variant):
    env = boardenvs.make(env_id, illegal_action="random", **variant)
    first = None
    reasons, illegal = set(), 0
    for obs, term, trunc, info in _play_aec(env, seed=3, illegal_every=7):
        first = first or _shape(info)
        assert _shape(info) == first
        assert {"end_reason", "length", "illegal_action", "action_mask"} <= info.keys()
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        assert info["action_mask"].dtype == obs["action_mask"].dtype
        assert (info["end_reason"] == "") == (not (term or trunc))  # "" exactly while the agent plays on
        reasons.add(info["end_reason"])
        illegal += info["illegal_action"]
    assert "" in reasons and len(reasons) >= 2  # the game reached its end within the cap
    assert illegal > 0  # the "random" mode's note, True after the offender's step
    for info in env.infos.values():  # the agents left at the end (the dead steps remove the others)
        assert _shape(info) == first


def test_the_illegal_action_note_is_false_again_at_the_offenders_next_step():
    env = boardenvs.make("quess_v0", illegal_action="random")
    env.reset(seed=0)
    obs, *_ = env.last()
    agent = env.agent_selection
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert env.infos[agent]["illegal_action"] is True
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))  # the other agent
    assert env.agent_selection == agent and env.infos[agent]["illegal_action"] is True
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert env.infos[agent]["illegal_action"] is False


def test_an_info_read_earlier_keeps_its_values_and_idle_masks_are_read_only():
    """Each step hands out new info dicts (a buffer that kept one is not
    rewritten), and the idle agents' all-zeros mask cannot be written into."""
    env = boardenvs.make("quess_v0")
    env.reset(seed=1)
    *_, info = env.last()
    kept = info["action_mask"].copy()
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    np.testing.assert_array_equal(info["action_mask"], kept)
    other = [a for a in env.agents if a != env.agent_selection][0]
    assert not env.infos[other]["action_mask"].any()
    with pytest.raises(ValueError, match="read-only"):
        env.infos[other]["action_mask"][0] = 1


def test_quicksands_scores_are_in_every_info():
    """A game's own end infos (Quicksand's scores, QS-12) are there from the
    first step, with the type they have at the end."""
    env = boardenvs.make("quicksand_v0")
    shapes = {tuple(_shape(info).items()) for *_, info in _play_aec(env, seed=5)}
    assert len(shapes) == 1 and "scores" in dict(next(iter(shapes)))


def test_the_chance_agents_infos_have_the_keys_too():
    env = boardenvs.make("tryasina_v0", chance_agent=True)
    seen = set()
    for obs, _, _, info in _play_aec(env, seed=2):
        seen.add(env.agent_selection)
        assert {"end_reason", "length", "illegal_action", "action_mask"} <= info.keys()
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
    assert "chance" in seen


def test_the_dice_variants_info_mask_keeps_only_the_rolled_class():
    env = DiceVariant(boardenvs.make("quess_v0"))
    restricted = 0
    for obs, _, _, info in _play_aec(env, seed=4):
        np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        full = env.unwrapped.legal_mask_of(env.agent_selection)
        restricted += full is not None and int(full.sum()) > int(obs["action_mask"].sum())
    assert restricted > 0


@pytest.mark.parametrize("idle_mask", ["zeros", "ones"])
@pytest.mark.parametrize("env_id, variant", CASES)
def test_every_parallel_info_holds_the_observations_mask_array(env_id, variant, idle_mask):
    env = getattr(boardenvs, env_id).parallel_env(idle_mask=idle_mask, **variant)
    observations, infos = env.reset(seed=6)
    first = _shape(next(iter(infos.values())))
    rng = np.random.default_rng(6)
    for _ in range(2000):
        for agent, info in infos.items():
            assert _shape(info) == first, agent
            if agent in observations:
                assert info["action_mask"] is observations[agent]["action_mask"]
        if not env.agents:
            break
        active = next(iter(infos.values()))["active_agent"]
        masks = {a: observations[a]["action_mask"] for a in env.agents}
        actions = {a: int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for a, m in masks.items()}
        assert observations[active]["action_mask"].any()
        observations, _, _, _, infos = env.step(actions)
    assert not env.agents  # the game ended within the cap


@pytest.mark.parametrize("env_id", registered_ids())
def test_every_gymnasium_info_has_every_key_with_one_type(env_id):
    env = gymnasium.make(gym_id_of(game_class(env_id)))
    _, info = env.reset(seed=0)
    first = _shape(info)
    assert info["end_reason"] == "" and info["illegal_action"] is False
    rng = np.random.default_rng(0)
    for _ in range(3000):
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert _shape(info) == first
        if term or trunc:
            assert info["end_reason"] != "" and info["length"] > 0
            break
    else:
        raise AssertionError("no episode ended")


def test_mask_in_observation_gives_tianshous_obs_and_mask():
    env = MaskInObservation(gymnasium.make("boardenvs/Quess-v0"))
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["mask"], info["action_mask"].astype(bool))
    obs, *_, info = env.step(int(np.flatnonzero(obs["mask"])[0]))
    assert obs["mask"].dtype == np.bool_ and env.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["mask"], info["action_mask"].astype(bool))
    with pytest.raises(ValueError, match="two different strings"):
        MaskInObservation(gymnasium.make("boardenvs/Quess-v0"), obs_key="mask")
    # a Box of bools (the dtype it is given in; skrl tensorizes no MultiBinary)
    assert isinstance(env.observation_space["mask"], gymnasium.spaces.Box)
    assert env.observation_space["mask"].dtype == np.bool_


def test_vector_mask_in_observation_gives_every_rows_mask():
    """Over ``gymnasium.make_vec``: each row's mask is that row's
    ``infos["action_mask"]``, through auto-resets, and the observation is in
    the batched space (skrl's and PufferLib's vector routes)."""
    envs = VectorMaskInObservation(gymnasium.make_vec("boardenvs/Quagmire-v0", num_envs=3, opponent="random"))
    assert envs.single_observation_space["mask"].shape == (envs.single_action_space.n,)
    obs, infos = envs.reset(seed=1)
    rng, ended = np.random.default_rng(1), 0
    for _ in range(300):
        assert envs.observation_space.contains(obs) and obs["mask"].dtype == np.bool_
        np.testing.assert_array_equal(obs["mask"], infos["action_mask"])
        assert obs["mask"].any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["mask"]])
        obs, _, term, trunc, infos = envs.step(actions)
        assert not infos["illegal_action"].any()
        ended += int((term | trunc).sum())
    assert ended > 0  # the masks of new games, after a same-step reset, were checked too
    with pytest.raises(ValueError, match="two different strings"):
        VectorMaskInObservation(gymnasium.make_vec("boardenvs/Quess-v0", num_envs=2), mask_key="obs")


def test_infos_numbers_keeps_only_the_numbers():
    """``infos="numbers"``: no ``end_reason`` name and no copy of the mask
    (what TorchRL's PettingZooWrapper can make tensors of), still one shape."""
    env = boardenvs.make("quess_v0", infos="numbers")
    shapes = set()
    for *_, info in _play_aec(env, seed=8):
        shapes.add(tuple(sorted(info)))
        assert all(isinstance(v, (bool, int)) for v in info.values())
    assert shapes == {("illegal_action", "length")}
    with pytest.raises(ValueError, match="infos"):
        boardenvs.make("quess_v0", infos="strings")


def test_observation_without_mask_leaves_the_mask_in_the_infos():
    """AgileRL's IPPO refuses an observation holding ``action_mask`` and reads
    ``infos[agent]["action_mask"]``: the wrapper gives it that shape, and the
    infos' masks are the game's (every env here raises on an illegal action)."""
    par = boardenvs.quagmire_v0.parallel_env(radius=2, idle_mask="ones")
    env = ObservationWithoutMask(par)
    assert env.observation_space("player_0") == par.observation_space("player_0")["observation"]
    obs, infos = env.reset(seed=3)
    rng, steps = np.random.default_rng(3), 0
    while env.agents:
        assert all(isinstance(o, np.ndarray) and env.observation_space(a).contains(o) for a, o in obs.items())
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        obs, rewards, *_, infos = env.step(actions)
        steps += 1
    assert steps > 0 and sorted(rewards.values()) == [-1.0, 1.0]
    with pytest.raises(ValueError, match="observation"):
        ObservationWithoutMask(ObservationWithoutMask(boardenvs.quagmire_v0.parallel_env(radius=2)))
