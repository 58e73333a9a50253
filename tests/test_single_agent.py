"""The gymnasium ids and the single-agent view (boardenvs/wrappers/single_agent.py):
registered with each game's one registration line, gymnasium's check_env
passes, rewards are the learner's also when the game ends on an opponent's
move, seeds reproduce episodes, and 2-6 seats, teams, eliminations and chance
work."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import boardenvs
from boardenvs import IllegalActionError
from boardenvs.registry import game_class, gym_id_of, registered_ids

CASES = [
    pytest.param(env_id, variant, id=f"{env_id}[{'-'.join(f'{k}={v}' for k, v in variant.items()) or 'default'}]")
    for env_id in registered_ids()
    for variant in game_class(env_id).variants
]


def test_every_registered_game_has_its_gymnasium_id():
    ids = {gym_id_of(game_class(e)) for e in registered_ids()}
    assert {"boardenvs/Quess-v0", "boardenvs/Quagmire-v0", "boardenvs/ContractRace-v0"} <= ids
    assert ids <= set(gymnasium.registry)
    env = gymnasium.make("boardenvs:boardenvs/Quagmire-v0", radius=2)  # the module:id form
    assert env.unwrapped.game.options["radius"] == 2
    with pytest.raises(TypeError, match="unknown option"):
        gymnasium.make("boardenvs/Quess-v0", radius=2)


def _play(env, seed, policy=None):
    """One episode with random legal learner actions; every (reward, terminated, truncated, info)."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    while True:
        assert obs in env.observation_space
        mask = env.unwrapped.action_masks()
        assert np.array_equal(mask, info["action_mask"]) and mask.any()
        obs, reward, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        out.append((reward, term, trunc, info))
        if term or trunc:
            return out


def test_the_learner_loses_on_the_opponents_move():
    """QM-8 ends the game when the player to move is trapped: after an
    opponent's move that traps the learner, the learner gets -1."""
    env = gymnasium.make("boardenvs/Quagmire-v0", radius=2, seat=0)
    lost_on_their_move = won = 0
    for seed in range(40):
        steps = _play(env, seed)
        reward, term, trunc, info = steps[-1]
        pos = env.unwrapped.position()
        assert term and not trunc and reward == pos.returns[0] and info["end_reason"] == "no_legal_move"
        assert all(r == 0.0 for r, *_ in steps[:-1])
        if reward == -1.0:
            assert int(pos.state[boardenvs.engine.H_LAST_SEAT]) == 1, "the game ended on player_1's move"
            lost_on_their_move += 1
        else:
            won += 1
    assert lost_on_their_move > 3 and won > 3


def test_same_seed_same_episode_and_random_seat():
    env = gymnasium.make("boardenvs/Quess-v0", max_turns=60)
    first = [(r, t, u) for r, t, u, _ in _play(env, 5)]
    text = env.unwrapped.position().to_text()
    assert [(r, t, u) for r, t, u, _ in _play(env, 5)] == first
    assert env.unwrapped.position().to_text() == text
    seats = {env.reset(seed=s)[1]["seat"] for s in range(20)}
    assert seats == {0, 1}
    fixed = gymnasium.make("boardenvs/Quess-v0", seat=1)
    assert {fixed.reset(seed=s)[1]["seat"] for s in range(5)} == {1}


def test_four_players_three_opponents_eliminations_and_chance():
    env = gymnasium.make("boardenvs/ContractRace-v0", num_players=4, seat=2, goal=12)
    rewards = []
    eliminated = 0
    for seed in range(60):
        steps = _play(env, seed)
        reward, term, trunc, info = steps[-1]
        pos = env.unwrapped.position()
        if not pos.alive(2):
            eliminated += 1
            assert term and reward == -1.0
            assert not pos.is_terminal or pos.returns[2] == -1.0
        rewards.append(reward)
        assert reward == pos.returns[2]
    assert eliminated > 0 and set(rewards) >= {-1.0, 1.0}


def test_callable_and_model_opponents():
    calls = []

    def first_legal(observations, masks):
        calls.append((observations.shape, masks.shape))
        return np.array([int(np.flatnonzero(m)[0]) for m in masks])

    env = gymnasium.make("boardenvs/Quagmire-v0", radius=2, seat=0, opponent=first_legal)
    _play(env, 0)
    assert calls and calls[0] == ((1, 125), (1, 103))  # the observations as the learner gets them: flat by default
    calls.clear()
    _play(gymnasium.make("boardenvs/Quagmire-v0", radius=2, seat=0, opponent=first_legal, flatten=False), 0)
    assert calls and calls[0] == ((1, 5, 5, 5), (1, 103))

    class Model:  # what SB3's MaskablePPO.predict looks like
        def predict(self, obs, action_masks=None, deterministic=False):
            return np.array(int(np.flatnonzero(action_masks)[-1])), None

    env = gymnasium.make("boardenvs/Quagmire-v0", radius=2, seat=1, opponent=Model())
    _play(env, 1)
    with pytest.raises(ValueError, match="opponent"):
        gymnasium.make("boardenvs/Quess-v0", opponent=42)


def test_bad_actions_and_seats():
    env = gymnasium.make("boardenvs/Quess-v0", seat=0, first_player=0, illegal_action="raise")
    env.reset(seed=0)
    for bad in (0, -1, 5000, 1.5, "F3-E3"):
        with pytest.raises(IllegalActionError, match="illegal_action='lose'"):
            env.step(bad)
    lose = gymnasium.make("boardenvs/Quess-v0", seat=0, first_player=0)  # "lose" is the default
    lose.reset(seed=0)
    _, reward, term, _, info = lose.step(0)
    assert (reward, term, info["end_reason"], info["illegal_action"]) == (-1.0, True, "illegal_action", True)
    assert info["learner_steps"] == 1 and info["length"] == 0
    for seat in (2, -1, 1.0, "0"):
        with pytest.raises(ValueError, match="seat"):
            gymnasium.make("boardenvs/Quess-v0", seat=seat)


@pytest.mark.parametrize("env_id", registered_ids())
def test_sb3_check_env_and_maskable_ppo_trains(env_id):
    """sb3-contrib's MaskablePPO trains 2048 steps on the default env, asking
    the env's action_masks() (SB3's own checker: tests/test_checkers.py)."""
    from sb3_contrib import MaskablePPO

    gym_id = gym_id_of(game_class(env_id))
    env = gymnasium.make(gym_id)
    asked = []
    original = env.unwrapped.action_masks
    env.unwrapped.action_masks = lambda: asked.append(1) or original()
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0, verbose=0)
    model.learn(2048)
    assert model.num_timesteps >= 2048 and len(asked) >= 2048


def test_a_failing_opponent_stops_the_step_and_asks_for_reset():
    """An opponent that raises (or answers an illegal action) stops the step
    where it was asked (the batched view at one row keeps no undo copy):
    the game shows the learner's move played and the opponent to act, every
    later step asks for reset(), and reset gives the seed's games again."""
    calls = {"n": 0}

    def flaky(observations, masks):
        calls["n"] += 1
        return np.array([9999 if calls["n"] == 2 else int(np.flatnonzero(masks[0])[0])])

    env = gymnasium.make("boardenvs/Quess-v0", opponent=flaky, seat=0, first_player=0).unwrapped
    obs0, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    before = env.position()
    action = int(np.flatnonzero(env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="opponent"):
        env.step(action)
    after = env.position()
    assert after.turn == before.turn + 1 and after.to_move == 1  # the learner's move, the opponent's answer refused
    with pytest.raises(boardenvs.errors.ResetNeededError, match="part-way .IllegalActionError"):
        env.step(action)
    obs, _ = env.reset(seed=0)
    assert np.array_equal(obs, obs0) and env.position().turn == 0
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert env.step(action)[1] == 0.0 and env.position().turn == before.turn + 2  # the opponent answers legally


def test_flat_learners_play_flat_opponents_and_numpy_seeds():
    shapes = []

    def policy(observations, masks):
        shapes.append(observations.shape)
        return np.array([int(np.flatnonzero(masks[0])[0])])

    env = gymnasium.make("boardenvs/Quagmire-v0", flatten=True, opponent=policy, seat=0, first_player=1)
    obs, _ = env.reset(seed=np.int64(3))
    assert obs.shape == (245,) and shapes == [(1, 245)]
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-2)
    with pytest.raises(boardenvs.errors.ResetNeededError):
        gymnasium.make("boardenvs/Quess-v0").unwrapped.position()


def test_register_refuses_ids_that_are_not_env_ids():
    from boardenvs.games.quagmire import QuagmireGame

    for bad in ("engine", "Quess_v0", "quess", "x-y_v0", "engine_v0x"):
        game = type("Bad", (QuagmireGame,), {"env_id": bad, "title": "Bad"})
        with pytest.raises(ValueError, match="env id"):
            boardenvs.register(game)
    shadow = type("Shadow", (QuagmireGame,), {"env_id": "make_v0", "title": "Shadow"})
    boardenvs.make_v0 = object()
    try:
        with pytest.raises(ValueError, match="shadow"):
            boardenvs.register(shadow)
    finally:
        del boardenvs.make_v0
    assert "engine" not in boardenvs.registry.registered_ids()


def test_reset_never_returns_an_episode_that_is_already_over():
    """The toy game's team play can end before the learner's first decision
    (its seat passes, CR-5, while the others race home): such a game is dealt
    again, so after every reset the learner is to act (as in the batched view)."""
    env = gymnasium.make("boardenvs/ContractRace-v0", num_players=4, teams=2, goal=4, seat=3).unwrapped
    for seed in range(400):
        env.reset(seed=seed)
        pos = env.position()
        assert not pos.is_terminal and pos.to_move == 3 and env.action_masks().any(), seed


@pytest.mark.parametrize("opponent", ["random", "greedy", "policy"])
@pytest.mark.parametrize("env_id", ["quess_v0", "tryasina_v0", "hex_quoridor_v1"])
def test_the_single_agent_view_is_the_vector_view_at_one_row(env_id, opponent):
    """The single-agent view is the learner loop at N = 1, so a
    seed plays the same episodes (seats, observations, rewards, ends) in
    gymnasium.make and in gymnasium.make_vec(num_envs=1), whichever way the
    opponent plays (in the engine: random, greedy; outside it: a policy)."""

    def policy(observations, masks):
        return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)  # the last legal action

    gym_id = gym_id_of(game_class(env_id))
    opp = policy if opponent == "policy" else opponent
    options = {} if env_id == "tryasina_v0" else {"max_turns": 80}  # (the policy's games may run long)
    single = gymnasium.make(gym_id, opponent=opp, **options).unwrapped
    batch = gymnasium.make_vec(gym_id, num_envs=1, opponent=opp, autoreset_mode="next_step", **options)
    rng = np.random.default_rng(0)
    for seed in (1, 2, 3):
        obs, info = single.reset(seed=seed)
        vobs, vinfo = batch.reset(seed=seed)
        assert np.array_equal(obs, vobs[0]) and info["seat"] == vinfo["seat"][0]
        for _ in range(400):
            mask = info["action_mask"]
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, term, trunc, info = single.step(action)
            vobs, vreward, vterm, vtrunc, vinfo = batch.step(np.array([action]))
            assert np.array_equal(obs, vobs[0]) and np.array_equal(info["action_mask"], vinfo["action_mask"][0])
            assert (reward, term, trunc) == (vreward[0], vterm[0], vtrunc[0])
            if term or trunc:
                assert info["end_reason"] == vinfo["end_reason"][0] and info["length"] == vinfo["length"][0]
                break
        else:
            raise AssertionError("no episode end in 400 learner steps")
