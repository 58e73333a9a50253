"""Ray RLlib (the rllib extra; ``make check`` runs this file in its own
environment, ``.venv-rllib``, where ``ray[rllib]`` pins gymnasium 1.2.2).

* RLlib's env checker passes on the multi-agent env of every id and variant;
* masks are honoured: training with ``illegal_action="raise"`` would raise
  on the first illegal action that reached the engine;
* chance, eliminations and teams through the multi-agent env: its rewards
  and ends are the game's (replayed by Position);
* the vectorised runners' NEXT_STEP episodes are the games played, step by
  step (RLlib would otherwise store a new game's first observation as the
  old game's last);
* self-play snapshots reach remote runners; ``opponent()`` round-trips a
  checkpoint (with ``trust=True``: a checkpoint runs code when loaded, and
  is refused without it) and is accepted wherever an opponent is named;
* a 3-node cluster (a head and two 1-CPU workers): env runners on the
  workers, a short masked PPO run on Quess through ``ppo_config`` that wins
  >= 90% of 200 games against random;
* APPO and IMPALA (``appo_config``) sample, update and play their learner's
  weights as opponents.
"""

from __future__ import annotations

import copy
import time
import warnings

import numpy as np
import pytest
import ray  # the rllib extra: conftest.py collects this file only where it is installed
from backstop import HANG_S  # noqa: E402 - the tests' one wall-clock backstop
from boardenvs.wrappers import evaluate  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402

import boardenvs  # noqa: E402
import boardenvs.rllib as brl  # noqa: E402
from boardenvs.registry import game_class, registered_ids  # noqa: E402

CASES = [
    pytest.param(e, v, id=f"{e}[{'-'.join(f'{k}={x}' for k, x in v.items()) or 'default'}]")
    for e in registered_ids()
    for v in game_class(e).variants
]


@pytest.fixture(scope="module")
def local_ray():
    warnings.simplefilter("ignore")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield
    ray.shutdown()


@pytest.mark.parametrize("env_id, variant", CASES)
def test_rllib_env_checker_passes_without_disabling_it(env_id, variant):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = brl.BoardMultiAgentEnv({"env_id": env_id, **variant})
    check_multiagent_environments(env)  # raises on any violation
    obs, infos = env.reset(seed=0)
    (agent,) = obs
    assert set(obs[agent]) == {"observations", "action_mask"} and obs[agent] in env.observation_spaces[agent]


def _play(env, seed, rng):
    """A random legal game through the multi-agent env; (actions, rewards, terminations, obs agents)."""
    obs, _ = env.reset(seed=seed)
    actions, got, ended = [], {a: 0.0 for a in env.possible_agents}, {}
    while obs:
        (agent,) = obs
        a = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        actions.append(a)
        obs, rewards, terms, truncs, infos = env.step({agent: a})
        assert agent in rewards  # the actor gets its step's reward (0 until the end)
        for k, r in rewards.items():
            got[k] += r
            if k in terms:
                ended.setdefault(k, (terms[k], truncs[k], len(actions)))
        # an agent that is done is not asked again; a truncated one gets its last observation, its mask empty
        assert set(obs) & set(ended) == {k for k in ended if truncs.get(k)}
        assert all(
            not obs[k]["action_mask"].any() and obs[k] in env.observation_spaces[k] for k in set(obs) & set(ended)
        )
        if terms["__all__"] or truncs["__all__"]:
            break
    assert terms["__all__"] or truncs["__all__"]
    return actions, got, ended


def test_a_truncated_game_gives_every_agent_its_last_observation():
    """At max_turns (C-3: truncation) every agent still in is truncated and gets a last
    observation with an empty mask: RLlib bootstraps the truncated agent's
    value from it and raises MultiAgentEnvError without one."""
    env = brl.BoardMultiAgentEnv({"env_id": "quess_v0", "max_turns": 6})
    rng = np.random.default_rng(0)
    for seed in range(3):
        actions, got, ended = _play(env, seed, rng)
        assert len(actions) == 6 and set(ended) == set(env.possible_agents)
        assert all(not term and trunc for term, trunc, _ in ended.values())


@pytest.mark.parametrize(
    "env_id, options",
    [
        ("tryasina_v0", {"num_players": 3}),
        ("hex_quoridor_v1", {"num_players": 4, "radius": 2}),
        ("hex_quoridor_v1", {"num_players": 4, "teams": "2v2", "radius": 2}),
        ("contract_race_v0", {"num_players": 6, "teams": 3}),
    ],
)
def test_chance_eliminations_and_teams_are_the_games(env_id, options):
    """Replayed decision by decision with Position (the die as the row's
    generator rolls it), every agent's rewards are the game's returns, an
    eliminated agent ends with -1 when it leaves, team-mates end alike."""
    env = brl.BoardMultiAgentEnv({"env_id": env_id, **options})
    rng = np.random.default_rng(0)
    eliminated = 0
    for seed in range(8):
        actions, got, ended = _play(env, seed, rng)
        final = env.position()
        assert final.is_terminal and got == {f"player_{s}": r for s, r in enumerate(final.returns)}
        out = [a for a, (term, _, at) in ended.items() if at < len(actions)]
        eliminated += len(out)
        assert all(got[a] == -1.0 for a in out)
        game = final.game
        for s in range(game.num_players):
            for t in range(game.num_players):
                if game.team_of(s) == game.team_of(t) and final.alive(s) and final.alive(t):
                    assert final.returns[s] == final.returns[t]
    if options.get("teams") is None and env_id == "hex_quoridor_v1":
        assert eliminated > 0, "HQ-9: some pawn was cut off in 8 random 4-player games"


def test_masks_are_honoured_in_training(local_ray):
    """With illegal_action='raise' any illegal action reaching the engine
    would raise inside the runner: a clean run proves none did, on both routes
    (and with RLlib's own runner)."""
    for config in (
        brl.ppo_config("quagmire_v0", opponent="random", envs_per_runner=16, radius=2, illegal_action="raise"),
        brl.ppo_config(
            "quagmire_v0", opponent="random", envs_per_runner=16, radius=2, illegal_action="raise", env_runner="rllib"
        ),
        brl.ppo_config("quagmire_v0", multi_agent=True, radius=2, illegal_action="raise"),
    ):
        algo = config.training(train_batch_size_per_learner=512, minibatch_size=128, num_epochs=1).build_algo()
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 512
        algo.stop()


@pytest.mark.parametrize("algorithm", ["APPO", "IMPALA"])
def test_appo_and_impala_train_the_masked_module(local_ray, algorithm):
    """appo_config: RLlib's asynchronous algorithms on the masked module, a
    remote runner sampling while the learner trains; ``illegal_action="raise"``
    would stop the runner at the first illegal action, and APPO's learner
    builds the module's target network (masked like the module)."""
    algo = (
        brl.appo_config(
            "quagmire_v0",
            algorithm=algorithm,
            opponent="random",
            num_env_runners=1,
            envs_per_runner=16,
            radius=2,
            illegal_action="raise",
        )
        .training(train_batch_size_per_learner=512)
        .reporting(min_time_s_per_iteration=1)
        .build_algo()
    )
    try:
        # (asynchronous: how many iterations pass before the learner's first update depends on how fast the
        # runner samples, so on the machine's load: the loop waits for it, bounded only by the hang backstop)
        end = time.monotonic() + HANG_S
        result = algo.train()
        while "default_policy" not in result.get("learners", {}):
            assert time.monotonic() < end, "the learner never trained"
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] > 0
        assert algo.env_runner_group.num_healthy_remote_workers() == 1  # (an illegal action would have raised there)
        targets = algo.learner_group.foreach_learner(
            lambda learner: hasattr(learner.module["default_policy"].unwrapped(), "_old_pi")
        )
        assert [r.get() for r in targets] == [algorithm == "APPO"]
        # opponent(algo) plays the learner's weights (the driver's own runner is never synced by these algorithms)
        learned = algo.learner_group.get_weights(module_ids=["default_policy"])["default_policy"]
        bot = brl.opponent(algo).module.get_state()
        stale = algo.get_module().get_state()
        assert all(np.allclose(np.asarray(bot[k]), np.asarray(learned[k])) for k in bot)
        assert not all(np.allclose(np.asarray(stale[k]), np.asarray(learned[k])) for k in stale)
    finally:
        algo.stop()
    with pytest.raises(ValueError, match="'APPO' or 'IMPALA'"):
        brl.appo_config("quagmire_v0", algorithm="PPO")


@pytest.mark.parametrize("env_runner", ["boardenvs", "rllib"])
def test_next_step_episodes_are_the_games_played(local_ray, env_runner):
    """Both runners' episodes are the games played: RLlib's runner assumes
    NEXT_STEP autoreset (the view's ``autoreset_mode="next_step"``),
    BoardEnvRunner cuts same-step rows; either way every episode recorded
    ends on the game's last observation (the learner's mask all zeros, its
    return and learner_steps in the last info) and starts on a new game's
    first (a mask with a legal action), step for step."""
    algo = (
        brl.ppo_config(
            "tryasina_v0", opponent="random", envs_per_runner=8, num_players=2, max_turns=40, env_runner=env_runner
        )
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        .build_algo()
    )
    assert (
        type(algo.env_runner).__name__ == {"boardenvs": "BoardEnvRunner", "rllib": "SingleAgentEnvRunner"}[env_runner]
    )
    episodes = algo.env_runner.sample(num_timesteps=1500, random_actions=False)
    done = [e for e in episodes if e.is_done]
    assert len(done) > 5
    for e in done:
        masks, infos, rewards = e.get_observations()["action_mask"], e.get_infos(), np.asarray(e.get_rewards())
        assert len(masks) == len(e) + 1 and masks[0].any() and not masks[-1].any()
        last = infos[-1]
        assert last["learner_steps"] == len(e) and last["return"] == rewards[-1] == e.get_return()
        assert (rewards[:-1] == 0).all()
        acts = np.asarray(e.get_actions())
        assert masks[np.arange(len(e)), acts].all()  # every action legal where it was taken
    algo.stop()


def test_bulk_episodes_are_what_the_per_step_route_gives_the_learner(local_ray):
    """BoardEnvRunner cuts a whole sample's arrays into
    episodes at once; the same steps recorded step by step, as RLlib's
    SingleAgentEnvRunner records them (add_env_step, to_numpy, cut with its
    lookback), give PPO's learner connector (GAE, the value bootstrap of
    truncated and cut episodes) the same batch, episode for episode: games
    that end in the sample they began in and later ones, truncated ones
    (max_turns), and chunks that go on in the next sample."""
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode

    algo = (
        brl.ppo_config("quagmire_v0", opponent="random", envs_per_runner=8, radius=2, max_turns=13)
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        .debugging(seed=3)
        .build_algo()
    )
    runner, learner = algo.env_runner, algo.learner_group._learner
    env, n = runner.env, runner.env.num_envs
    log = []
    reset, step, actions_of = env.reset, env.step, runner._actions

    def copied(x):
        return {k: copied(v) for k, v in x.items()} if isinstance(x, dict) else np.array(x, copy=True)

    env.reset = lambda **kw: log.append(("reset", copied(reset(**kw)[0]))) or log[-1][1] and (log[-1][1], {})

    def rec_step(a):
        out = step(a)
        log.append(
            (
                "step",
                copied(out[0]),
                np.array(out[1]),
                np.array(out[2]),
                np.array(out[3]),
                {k: (list(v) if k == "final_obs" else v) for k, v in out[4].items()},
            )
        )
        return out

    def rec_actions(obs, masks, explore, ro, t):
        a = actions_of(obs, masks, explore, ro, t)
        log.append(("act", np.array(a), ro.dist[:, t].copy(), ro.logp[:, t].copy()))
        return a

    episodes_of = runner._episodes

    def rec_episodes(ro, keep_going):
        log.append(("cut",))
        return episodes_of(ro, keep_going)

    env.step, runner._actions, runner._episodes = rec_step, rec_actions, rec_episodes
    bulk, sizes = [], [8, 48, 16, 40] * 3  # 1-6 steps a row: episodes within a sample, and across samples
    for size in sizes:
        bulk += runner.sample(num_timesteps=size)
    # the same steps, episode by episode as RLlib's SingleAgentEnvRunner records them
    ref, ongoing = [], [None] * n
    horizon = runner.config.episode_lookback_horizon
    pending = None
    for entry in log:
        if entry[0] == "reset":
            ongoing = [
                SingleAgentEpisode(observation_space=env.single_observation_space, action_space=env.single_action_space)
                for _ in range(n)
            ]
            for i in range(n):
                ongoing[i].add_env_reset(observation={k: v[i] for k, v in entry[1].items()})
        elif entry[0] == "cut":  # the end of a sample
            nxt = [e.cut(len_lookback_buffer=horizon) for e in ongoing]
            ref += [e.to_numpy() for e in ongoing if e.t > e.t_started]
            ongoing = nxt
        elif entry[0] == "act":
            pending = entry
        else:
            _, obs, rewards, term, trunc, infos = entry
            _, acts, dist, logp = pending
            for i in range(n):
                extra = {Columns.ACTION_DIST_INPUTS: dist[i], Columns.ACTION_LOGP: logp[i], "weights_seq_no": 0}
                done = bool(term[i] or trunc[i])
                o = infos["final_obs"][i] if done else {k: v[i] for k, v in obs.items()}
                ongoing[i].add_env_step(
                    observation=o,
                    action=acts[i],
                    reward=rewards[i],
                    terminated=bool(term[i]),
                    truncated=bool(trunc[i]),
                    extra_model_outputs=extra,
                )
                if done:
                    ref.append(ongoing[i].to_numpy())
                    ongoing[i] = SingleAgentEpisode(
                        observation_space=env.single_observation_space, action_space=env.single_action_space
                    )
                    ongoing[i].add_env_reset(observation={k: v[i] for k, v in obs.items()})
    assert len(ref) == len(bulk) and sum(map(len, ref)) == sum(map(len, bulk)) == sum(sizes)

    def key(e):  # (identical episodes, in different rows, are interchangeable)
        return (
            e.t_started,
            e.is_terminated,
            e.is_truncated,
            e.get_actions().tobytes(),
            e.get_rewards().tobytes(),
            e.get_observations()["observations"].tobytes(),
            e.get_observations()["action_mask"].tobytes(),
        )

    kinds = {(e.is_terminated, e.is_truncated, e.t_started > 0) for e in bulk}
    # ended in the sample they started in, and after; truncated (max_turns: the value bootstrap); chunks going on
    assert {(True, False, False), (True, False, True), (False, True, True), (False, False, True)} <= kinds, kinds
    by_key = {}
    for e in bulk:
        by_key.setdefault(key(e), []).append(e)
    assert sorted(map(len, by_key.values())) == sorted(len(v) for v in _groups(ref, key).values())
    for r in ref:
        b = by_key[key(r)][0]
        assert (b.is_terminated, b.is_truncated, len(b)) == (r.is_terminated, r.is_truncated, len(r))
        outs = []
        for e in (b, r):
            batch = learner._learner_connector(
                rl_module=learner.module, batch={}, episodes=[copy.deepcopy(e)], shared_data={}, metrics=None
            )
            outs.append(batch["default_policy"])
        assert outs[0].keys() == outs[1].keys() and {"advantages", "value_targets", Columns.ACTION_LOGP} <= set(outs[0])
        for k in outs[0]:
            x, y = (
                (np.asarray(o[k]) for o in outs)
                if k != Columns.OBS
                else (np.asarray(o[k]["observations"]) for o in outs)
            )
            assert x.shape == y.shape and np.allclose(x, y), k
    algo.stop()


def test_ppo_config_samples_with_board_env_runner_and_reports_rllib_metrics(local_ray):
    """The default runner: whole episodes (num_episodes), random legal
    actions (illegal_action="raise" would stop at an illegal one), greedy
    inference, and RLlib's metrics from whole episodes across samples
    (length = the learner's steps of the game), with win_rate and
    illegal_actions."""
    from ray.rllib.utils.metrics import EPISODE_LEN_MEAN, EPISODE_RETURN_MEAN, NUM_ENV_STEPS_SAMPLED

    algo = (
        brl.ppo_config("quagmire_v0", opponent="random", envs_per_runner=8, radius=2, illegal_action="raise")
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        .debugging(seed=0)
        .build_algo()
    )
    runner = algo.env_runner
    assert isinstance(runner, brl.BoardEnvRunner)
    runner.get_metrics()  # (nothing sampled yet)
    whole = runner.sample(num_episodes=5)
    assert len(whole) >= 5 and all(e.is_done and e.t_started == 0 for e in whole)
    lengths, returns = [], []
    for kwargs in ({"random_actions": True}, {"explore": False}, {}):
        for _ in range(4):
            for e in runner.sample(num_timesteps=24, **kwargs):  # 3 steps a row: most games span samples
                masks, acts = e.get_observations()["action_mask"], e.get_actions()
                assert masks[np.arange(len(e)), acts].all()
                assert (Columns.ACTION_LOGP in e.extra_model_outputs) is not kwargs.get("random_actions", False)
                if e.is_done:
                    info = e.get_infos()[-1]
                    assert e.t_started + len(e) == info["learner_steps"] and not masks[-1].any()
                    lengths.append(info["learner_steps"])
                    returns.append(info["return"])
    metrics = {
        k: float(v.peek()) if hasattr(v, "peek") else v for k, v in runner.get_metrics().items()
    }  # (RLlib's Stats)
    assert metrics[NUM_ENV_STEPS_SAMPLED] > 0 and metrics["illegal_actions"] == 0
    assert len(lengths) > 10 and max(lengths) > 3
    # RLlib's smoothing window (100) covers every episode here: the means are the whole games'
    lengths, returns = [len(e) for e in whole] + lengths, [e.get_return() for e in whole] + returns
    assert len(lengths) < 100
    assert metrics[EPISODE_LEN_MEAN] == pytest.approx(np.mean(lengths)) and metrics[
        EPISODE_RETURN_MEAN
    ] == pytest.approx(np.mean(returns))
    assert metrics["win_rate"] == pytest.approx(np.mean(np.array(returns) > 0))
    # a sample travels as its arrays (pickled compact, rebuilt where unpickled); a changed one as a plain list
    import pickle

    sample = runner.sample(num_timesteps=32)
    again = pickle.loads(pickle.dumps(sample))
    assert type(again) is brl.SampledEpisodes and len(again) == len(sample) and len(pickle.dumps(sample)) < 60_000
    for x, y in zip(sample, again):
        assert (x.id_, x.t_started, len(x), x.is_terminated, x.is_truncated) == (
            y.id_,
            y.t_started,
            len(y),
            y.is_terminated,
            y.is_truncated,
        )
        for get in (
            lambda e: e.get_observations()["observations"],
            lambda e: e.get_actions(),
            lambda e: e.get_rewards(),
            lambda e: e.get_extra_model_outputs(Columns.ACTION_DIST_INPUTS),
        ):
            assert np.array_equal(get(x), get(y))
    sample[0].custom_data["seen"] = True
    changed = pickle.loads(pickle.dumps(sample))
    assert type(changed) is list and changed[0].custom_data == {"seen": True}
    algo.stop()


@pytest.mark.parametrize(
    "env_id, options",
    [
        ("hex_quoridor_v1", {"num_players": 4}),
        ("hex_quoridor_v1", {"num_players": 6}),
        ("tryasina_v0", {"num_players": 4}),
    ],
)
def test_self_play_in_the_batch_plays_every_other_seat_by_snapshot(local_ray, env_id, options):
    """With opponent="self-play" the runner's rows play
    the learner against the league (snapshots, random, greedy) in every
    other seat, 4 and 6 players included; a snapshot is asked once per
    round for all the rows it plays (batches of more than one row)."""
    pool = brl.self_play_league(others_prob=0.3)
    algo = (
        brl.ppo_config(env_id, opponent=pool, envs_per_runner=16, snapshot_every=1, illegal_action="raise", **options)
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        .debugging(seed=0)
        .build_algo()
    )
    try:
        assert algo.train()["self_play_pool_sizes"] == [1]
        env = algo.env_runner.env
        league = env.opponents
        assert len(league) == 1 and league is not pool  # (the runner's own copy, given its snapshot by the callback)
        sizes = []
        act = league.snapshots[0].act
        league.snapshots[0].act = lambda batch: sizes.append(len(batch)) or act(batch)
        episodes = algo.env_runner.sample(
            num_timesteps=16 * 40, force_reset=True
        )  # new games: their opponents from the league
        names = {env.opponent_of(i).name for i in range(env.num_envs)}
        assert "snapshot 1" in names, names
        assert sizes and max(sizes) > 1 and sum(sizes) > 16
        movers = {int(s) for s in env.seats}
        assert (
            movers <= set(range(options["num_players"])) and len(movers) > 1 and len(episodes) >= 16
        )  # the learner in several seats
    finally:
        algo.stop()
    with pytest.raises(ValueError, match="others_prob"):
        brl.self_play_league(others_prob=1.5)
    with pytest.raises(ValueError, match="unknown|opponent"):
        brl.self_play_league(others=("no-such-player",))


def test_self_play_snapshots_reach_remote_runners_and_opponent_round_trips(local_ray, tmp_path):
    config = brl.ppo_config(
        "quagmire_v0", opponent="self-play", num_env_runners=1, envs_per_runner=8, radius=2, snapshot_every=2
    ).training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
    algo = config.build_algo()
    # every result has the pools' sizes (the remote runner's: the driver's runner has no env when remote ones sample),
    # a snapshot every second iteration
    sizes = [algo.train()["self_play_pool_sizes"] for _ in range(4)]
    assert sizes == [[], [1], [1], [2]], sizes
    remote = algo.env_runner_group.foreach_env_runner(lambda r: len(r.env.unwrapped.opponents), local_env_runner=False)
    assert remote == [2]
    bot = brl.opponent(algo)
    path = tmp_path / "ckpt"
    algo.save(str(path))
    again = brl.opponent(path, trust=True)  # a checkpoint runs code when loaded: only with trust
    named = boardenvs.opponents.load_opponent(str(path), trust=True)  # what `--vs <folder> --trust-files` names
    pos = boardenvs.position("quagmire_v0", radius=2)
    rng = np.random.default_rng(0)
    for _ in range(6):
        batch = boardenvs.opponents.Batch.of_position(pos, rng)
        moves = {int(b.act(batch)[0]) for b in (bot, again, named)}
        assert len(moves) == 1
        pos = pos.play(moves.pop())
    res = evaluate(bot, "quagmire_v0", games=20, seed=0, radius=2)
    assert res["games"] == 20
    algo.stop()


def test_a_checkpoint_folder_loads_only_with_trust(tmp_path, monkeypatch):
    """RLlib's loader unpickles a checkpoint's files (its
    ``class_and_ctor_args.pkl`` first), so a checkpoint runs code when it
    is loaded: ``opponent(folder)``, a folder named as an opponent string
    and the resolver refuse it without ``trust=True``, naming it, and
    nothing in it runs (this one's pickle creates a marker file)."""
    import pickle

    from boardenvs.errors import ModelFileError, UntrustedFileError
    from boardenvs.opponents import load_opponent, make_opponent
    from boardenvs.rllib.opponents import _checkpoint as checkpoint_opponent

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "ran"
    folder = tmp_path / "ckpt"
    folder.mkdir()
    (folder / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(Payload()))
    calls = (
        lambda: brl.opponent(folder),
        lambda: brl.opponent("ckpt"),
        lambda: checkpoint_opponent("ckpt"),
        lambda: make_opponent("ckpt"),
        lambda: load_opponent("ckpt"),
    )
    for call in calls:
        with pytest.raises(
            UntrustedFileError, match=r"an RLlib checkpoint folder runs code when it is loaded.*trust=True"
        ):
            call()
    assert not marker.exists()
    # trusted, RLlib reads it (its pickle runs: the marker appears), and a folder that is no checkpoint is one line
    with pytest.raises(ModelFileError, match=r"^opponent 'ckpt': not an RLlib checkpoint RLlib can load \(") as info:
        load_opponent("ckpt", trust=True)
    assert marker.exists() and "\n" not in str(info.value)


def test_a_three_node_cluster_trains_quess_to_beat_random(tmp_path):
    """A head (no CPU) and two 1-CPU worker nodes on this machine: the env
    runners land on the workers, and masked PPO through ppo_config wins
    >= 90% of 200 games against random."""
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    workers = [cluster.add_node(num_cpus=1) for _ in range(2)]
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        cluster.wait_for_nodes()
        # ppo_config's own PPO settings (4096 steps a batch here, minibatches of 512, 4 epochs)
        # seeded (RLlib seeds each runner's envs and torch from it): one run in four or five unseeded
        # stalled at ~26% against random after 30 iterations
        algo = (
            brl.ppo_config("quess_v0", opponent="random", num_env_runners=2, envs_per_runner=64)
            .debugging(seed=0)
            .build_algo()
        )
        assert (algo.config.train_batch_size_per_learner, algo.config.minibatch_size, algo.config.num_epochs) == (
            4096,
            512,
            4,
        )
        nodes = algo.env_runner_group.foreach_env_runner(
            lambda r: ray.get_runtime_context().get_node_id(), local_env_runner=False
        )
        assert sorted(nodes) == sorted(w.node_id for w in workers)
        win = 0.0
        for _ in range(30):
            algo.train()
            if algo.iteration >= 10 and algo.iteration % 5 == 0:
                win = evaluate(brl.opponent(algo), "quess_v0", games=200, opponent="random", seed=1)["win_rate"]
                if win >= 0.9:
                    break
        assert win >= 0.9, win
        algo.stop()
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_the_native_multi_agent_route_plays_main_against_its_snapshots(local_ray):
    """multi_agent=True, opponent='self-play': frozen copies of 'main' join as
    modules of their own, and in each episode one seat is 'main', the others
    snapshots (RLlib's league tools)."""
    algo = (
        brl.ppo_config("quagmire_v0", multi_agent=True, opponent="self-play", snapshot_every=1, radius=2)
        .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1)
        .build_algo()
    )
    for _ in range(2):
        result = algo.train()
    assert result["league"] == ["main_v1", "main_v2"]
    assert all(algo.get_module(m) is not None for m in ("main", "main_v1", "main_v2"))
    mapping = brl.LeagueMapping(["main_v1", "main_v2"])

    class Episode:
        agent_ids = ("player_0", "player_1")

        def __init__(self, k):
            self.id_ = f"episode-{k}"

    for k in range(20):
        picks = [mapping(a, Episode(k)) for a in Episode.agent_ids]
        assert picks.count("main") == 1 and set(picks) - {"main"} <= {"main_v1", "main_v2"}
    trained = algo.get_module("main_v1").get_state()
    algo.train()
    assert all((trained[k] == v).all() for k, v in algo.get_module("main_v1").get_state().items())  # frozen
    algo.stop()


def test_the_ray_tutorial_runs(tmp_path):
    """docs/tutorials/rllib.md's python blocks, in order, in a fresh
    interpreter of this environment, with their ``# tests: N`` budgets, as
    pasted (the page's ``ray.init()`` finds no cluster here and starts a
    local Ray: ``address="auto"`` failed there); tests/test_docs.py
    runs every other page and checks this one is run here."""
    import subprocess
    import sys

    from test_docs import ROOT, code_of

    code, blocks, budgets = code_of(ROOT / "docs/tutorials/rllib.md")
    assert blocks >= 3 and budgets >= 3
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_S, cwd=tmp_path)
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    assert "win_rate" in done.stdout and "snapshots on each runner" in done.stdout and "main_v1" in done.stdout


def test_the_multi_agent_env_stepped_from_two_threads_takes_turns():
    """BoardMultiAgentEnv's step runs whole, one thread at
    a time: two threads stepping it are never inside the engine's step
    together (tests/test_threads.py's probe)."""
    from test_threads import _overlap

    env = brl.BoardMultiAgentEnv({"env_id": "quess_v0", "first_player": 0})
    env.reset(seed=0)
    action = int(np.flatnonzero(env.legal_mask_of("player_0"))[0])
    assert not _overlap(env.game, "step", lambda: env.step({"player_0": action}))
    assert env._state[boardenvs.engine.H_TURN] == 1  # one step played; the other thread's came after it


def test_flatten_takes_a_bool_only():
    """``flatten="no"`` was read as True; a flag is True or False."""
    for bad in ("no", 1, None):
        with pytest.raises(ValueError, match="flatten must be True or False"):
            brl.BoardMultiAgentEnv({"env_id": "quess_v0", "flatten": bad})
    assert brl.BoardMultiAgentEnv({"env_id": "quess_v0", "flatten": True}).flatten is True


def test_an_unpickled_multi_agent_env_checks_its_row_and_derives_its_mask():
    """A pickled BoardMultiAgentEnv (what Ray ships
    between processes) is checked when loaded: its row as a Position's, its
    mask computed again from the row, never taken from the pickle."""
    import pickle

    env = brl.BoardMultiAgentEnv({"env_id": "quess_v0", "first_player": 0})
    env.reset(seed=0)
    env.step({"player_0": int(np.flatnonzero(env.legal_mask_of("player_0"))[0])})
    twin = pickle.loads(pickle.dumps(env))
    assert np.array_equal(twin._state, env._state) and np.array_equal(twin._mask, env._mask)
    env._mask[:] = 1
    assert np.array_equal(pickle.loads(pickle.dumps(env))._mask, twin._mask)
    env._state[boardenvs.engine.H_ALIVE] = 1  # one seat left in a game still playing
    with pytest.raises(ValueError, match="unpickled env's row"):
        pickle.loads(pickle.dumps(env))


def _groups(episodes, key):
    out = {}
    for e in episodes:
        out.setdefault(key(e), []).append(e)
    return out


def test_the_cluster_files_install_this_ray_and_their_script_configures():
    """docs/cluster: Ray's cluster launcher config and the KubeRay RayJob
    (docs/tutorials/rllib.md, "Running on a cluster") install
    boardenvs[rllib] with the Ray this suite runs, keep runners off the head,
    and the RayJob's train.py configures (its settings build a config here)."""
    import ast

    import yaml
    from test_docs import ROOT

    launcher = yaml.safe_load((ROOT / "docs/cluster/ray-cluster.yaml").read_text())
    assert any(
        "boardenvs[rllib] @ file://" in c and f"ray[rllib]=={ray.__version__}" in c for c in launcher["setup_commands"]
    )
    assert any(target.endswith(".whl") for target in launcher["file_mounts"])
    head = launcher["available_node_types"][launcher["head_node_type"]]
    assert head["resources"] == {"CPU": 0} and any("--num-cpus=0" in c for c in launcher["head_start_ray_commands"])
    workers = launcher["available_node_types"]["workers"]
    assert workers["min_workers"] == workers["max_workers"] == launcher["max_workers"] == 10
    config_map, job = yaml.safe_load_all((ROOT / "docs/cluster/kuberay.yaml").read_text())
    assert (job["apiVersion"], job["kind"]) == ("ray.io/v1", "RayJob")
    spec = job["spec"]["rayClusterSpec"]
    (wheel,) = yaml.safe_load(job["spec"]["runtimeEnvYAML"])["pip"]  # (on no index: the wheel built in a clone)
    assert spec["rayVersion"] == ray.__version__ and wheel.startswith("boardenvs[rllib] @ ") and wheel.endswith(".whl")
    images = [
        c["image"]
        for g in [spec["headGroupSpec"], *spec["workerGroupSpecs"]]
        for c in g["template"]["spec"]["containers"]
    ]
    assert all(i.startswith(f"rayproject/ray:{ray.__version__}-py311") for i in images)
    assert spec["headGroupSpec"]["rayStartParams"]["num-cpus"] == "0"
    script = config_map["data"]["train.py"]
    assert job["spec"]["entrypoint"] == "python /home/ray/train/train.py"
    tree = ast.parse(script)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "appo_config"]
    assert len(calls) == 1
    kwargs = {k.arg: ast.literal_eval(k.value) for k in calls[0].keywords if k.arg != "num_env_runners"}
    config = brl.appo_config(*[ast.literal_eval(a) for a in calls[0].args], num_env_runners=160, **kwargs)
    config = config.learners(num_learners=1, num_gpus_per_learner=1)
    assert config.num_env_runners == 160 and config.num_envs_per_env_runner == kwargs["envs_per_runner"]
    assert config.env_runner_cls is brl.BoardEnvRunner


@pytest.mark.parametrize("mode", ["lose", "raise"])
def test_an_illegal_action_is_reported_in_the_words_every_face_uses(mode):
    """C-6 on the RLlib env, worded by boardenvs.illegal as on every face:
    "lose" forfeits, marks the info and warns once; "raise" refuses with
    the reason and the other modes, and nothing changes."""
    from boardenvs import illegal
    from boardenvs.errors import IllegalActionError

    env = brl.BoardMultiAgentEnv({"env_id": "quess_v0", "illegal_action": mode})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    bad = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    what = f"{agent} sent {bad!r}: masked out, not legal now"
    if mode == "raise":
        before = env._state.copy()
        with pytest.raises(IllegalActionError) as refused:
            env.step({agent: bad})
        assert str(refused.value) == str(illegal.refusal("quess_v0", what))
        assert np.array_equal(env._state, before)
        return
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        _, rewards, terminateds, _, infos = env.step({agent: bad})
    said = [str(w.message) for w in record]
    assert len(said) == 1 and illegal.warning("quess_v0", what, "lose", 'infos[agent]["illegal_action"]') in said[0]
    assert infos[agent]["illegal_action"] is True and terminateds["__all__"] and rewards[agent] == -1.0


def test_a_killed_env_runner_is_restarted_and_training_reaches_its_iterations(local_ray):
    """Reliability: one of two env runners SIGKILLed mid-training (its
    process, as a lost node would be): ppo_config's fault tolerance (on by
    default) goes on with the healthy runner, Ray restarts the dead one and
    the learner's weights reach it; the run reaches its iteration count, and
    the steps counted are the steps sampled, none twice."""
    import os
    import signal

    config = brl.ppo_config("quagmire_v0", opponent="random", num_env_runners=2, envs_per_runner=8, radius=2)
    assert config.restart_failed_env_runners is True
    algo = config.training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1).build_algo()
    try:
        group = algo.env_runner_group
        pids = group.foreach_env_runner(lambda r: os.getpid(), local_env_runner=False)
        assert len(set(pids)) == 2 and os.getpid() not in pids
        sampled = [algo.train()["env_runners"]["num_env_steps_sampled"]]
        os.kill(pids[0], signal.SIGKILL)
        end = time.monotonic() + HANG_S  # (the tests' backstop against a hang, not a timing)
        while group.num_healthy_remote_workers() < 2 or len(sampled) < 4:
            assert time.monotonic() < end, "the killed runner was never restored"
            result = algo.train()
            sampled.append(result["env_runners"]["num_env_steps_sampled"])
        assert group.num_remote_worker_restarts() >= 1 and algo.iteration == len(sampled) >= 4
        new = group.foreach_env_runner(lambda r: os.getpid(), local_env_runner=False)
        assert pids[0] not in new and pids[1] in new  # the dead one restarted in a new process
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] == sum(sampled)
        assert all(n >= 256 for n in sampled)
    finally:
        algo.stop()
