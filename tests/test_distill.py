"""Distillation (boardenvs.baselines.distill): the teacher's games are
recorded as they were played, the supervised fit learns a teacher it can
represent, and the result is a model load() and train --init take."""

from __future__ import annotations

import json

import numpy as np
import pytest
from boardenvs.baselines.distill import distill, main, new_policy
from boardenvs.baselines.imitation import collect, fit
from boardenvs.baselines.train import train
from boardenvs.wrappers import evaluate

import boardenvs
from boardenvs import baselines
from boardenvs.opponents import Opponent
from boardenvs.registry import make_game


class Lowest(Opponent):
    """The lowest legal action: a teacher the policy's last layer can copy."""

    name = "lowest"

    def act(self, batch):
        return batch.masks.argmax(axis=1)


def test_collect_records_every_teacher_decision_with_its_game_result():
    data = collect("quagmire_v0", Lowest(), games=6, num_envs=4, seed=1, random_share=0.0, opening=0)
    n = len(data["actions"])
    assert data["obs"].shape == (n, *make_game("quagmire_v0").obs_shape) and data["masks"].shape[0] == n
    assert sorted(set(data["game"])) == list(range(6))
    # every decision is the teacher's (no random seat, no opening) and legal
    assert (data["actions"] == data["masks"].argmax(axis=1)).all()
    assert data["masks"][np.arange(n), data["actions"]].all()
    for g in range(6):
        rows = data["game"] == g
        seats, returns = data["seat"][rows], data["returns"][rows]
        # QM-2: four placements, player_0 first; then both seats move until one cannot (QM-8: no draws)
        assert list(seats[:4]) == [0, 1, 1, 0]
        assert set(returns) == {-1.0, 1.0} and all(len(set(returns[seats == s])) == 1 for s in (0, 1))
        # replaying the recorded actions from the start gives the recorded observations and the result
        pos = boardenvs.position("quagmire_v0")
        for obs, act in zip(data["obs"][rows], data["actions"][rows]):
            assert (pos.observation(pos.to_move) == obs).all()
            pos = pos.play(int(act))
        assert pos.is_terminal and pos.returns[seats[0]] == returns[0]


class Highest(Opponent):
    name = "highest"

    def act(self, batch):
        return batch.masks.shape[1] - 1 - batch.masks[:, ::-1].argmax(axis=1)


def test_a_student_plays_and_the_teacher_labels():
    """DAgger: in the student's games the moves played are the student's,
    the labels recorded the teacher's."""
    data = collect(
        "quagmire_v0",
        Lowest(),
        games=4,
        num_envs=2,
        seed=4,
        random_share=0.0,
        opening=0,
        student=Highest(),
        student_share=1.0,
    )
    assert (data["actions"] == data["masks"].argmax(axis=1)).all()  # the teacher's labels
    for g in range(4):
        rows = data["game"] == g
        pos = boardenvs.position("quagmire_v0")
        for obs, mask in zip(data["obs"][rows], data["masks"][rows]):
            assert (pos.observation(pos.to_move) == obs).all()
            pos = pos.play(int(np.flatnonzero(mask)[-1]))  # the student's move
        assert pos.is_terminal
    # mixed: in each game either the student's moves or the teacher's were played
    mixed = collect(
        "quagmire_v0",
        Lowest(),
        games=8,
        num_envs=4,
        seed=5,
        random_share=0.0,
        opening=0,
        student=Highest(),
        student_share=0.5,
    )
    assert 0 < mixed["student_game"].sum() < 8
    for g in range(8):
        rows = mixed["game"] == g
        pos = boardenvs.position("quagmire_v0")
        for obs, mask in zip(mixed["obs"][rows], mixed["masks"][rows]):
            assert (pos.observation(pos.to_move) == obs).all()
            legal = np.flatnonzero(mask)
            pos = pos.play(int(legal[-1] if mixed["student_game"][g] else legal[0]))
        assert pos.is_terminal
    with pytest.raises(ValueError, match="needs a student"):
        collect("quagmire_v0", Lowest(), games=2, student_share=0.5)
    with pytest.raises(ValueError, match="student_share must be in"):
        collect("quagmire_v0", Lowest(), games=2, student=Highest(), student_share=2)


def test_against_plays_every_other_seat_and_only_the_learner_is_recorded():
    """against="..." (here the highest legal action) plays every seat but one,
    drawn per game; only that seat's decisions are samples, labelled by the
    teacher, and with a student its moves are the student's."""
    data = collect(
        "quagmire_v0",
        Lowest(),
        games=8,
        num_envs=4,
        seed=6,
        random_share=1.0,
        opening=0,
        against=Highest(),
        against_share=1.0,
    )
    assert set(data["learner_seat"]) == {0, 1} and (data["random_seat"] == -1).all()  # no random seat in those games
    assert (data["actions"] == data["masks"].argmax(axis=1)).all()
    for g in range(8):
        rows = data["game"] == g
        assert (data["seat"][rows] == data["learner_seat"][g]).all()
        pos, recorded = boardenvs.position("quagmire_v0"), iter(data["obs"][rows])
        while not pos.is_terminal:
            legal = np.flatnonzero(pos.action_mask())
            if pos.to_move == data["learner_seat"][g]:  # the teacher's seat: recorded, the lowest action played
                assert (next(recorded) == pos.observation(pos.to_move)).all()
                pos = pos.play(int(legal[0]))
            else:  # against's seat: the highest, not recorded
                pos = pos.play(int(legal[-1]))
        assert next(recorded, None) is None
    # a student in the learner's seat: its moves played, the teacher's labels recorded
    dagger = collect(
        "quagmire_v0",
        Lowest(),
        games=4,
        num_envs=2,
        seed=7,
        random_share=0.0,
        opening=0,
        student=Highest(),
        student_share=1.0,
        against=Lowest(),
        against_share=1.0,
    )
    assert (dagger["actions"] == dagger["masks"].argmax(axis=1)).all()
    for g in range(4):
        rows, pos = dagger["game"] == g, boardenvs.position("quagmire_v0")
        while not pos.is_terminal:
            legal = np.flatnonzero(pos.action_mask())
            pos = pos.play(int(legal[-1] if pos.to_move == dagger["learner_seat"][g] else legal[0]))
        assert (dagger["seat"][rows] == dagger["learner_seat"][g]).all()
    # a share of the games: the others as without an opponent, and the same games as without one at share 0
    part = collect(
        "quagmire_v0",
        Lowest(),
        games=8,
        num_envs=4,
        seed=2,
        random_share=0.5,
        opening=2,
        against=Highest(),
        against_share=0.5,
    )
    assert (part["learner_seat"] >= 0).any() and (part["learner_seat"] == -1).any()
    assert ((part["learner_seat"] == -1) | (part["random_seat"] == -1)).all()
    plain = collect("quagmire_v0", Lowest(), games=8, num_envs=4, seed=2, random_share=0.5, opening=2)
    zero = collect(
        "quagmire_v0",
        Lowest(),
        games=8,
        num_envs=4,
        seed=2,
        random_share=0.5,
        opening=2,
        against=Highest(),
        against_share=0.0,
    )
    assert "learner_seat" not in plain and "learner_seat" not in zero
    for key in ("obs", "actions", "game", "seat", "random_seat", "opening"):  # no draw for an opponent: the same games
        assert (zero[key] == plain[key]).all()
    with pytest.raises(ValueError, match="needs an opponent to play against"):
        collect("quagmire_v0", Lowest(), games=2, against_share=0.5)
    with pytest.raises(ValueError, match="against_share must be in"):
        collect("quagmire_v0", Lowest(), games=2, against=Highest(), against_share=1.5)


def test_collect_random_seats_and_openings_are_left_out():
    full = collect("quagmire_v0", Lowest(), games=8, num_envs=8, seed=2, random_share=0.0, opening=0)
    part = collect("quagmire_v0", Lowest(), games=8, num_envs=8, seed=2, random_share=1.0, opening=3)
    assert (part["random_seat"] >= 0).all() and (full["random_seat"] == -1).all() and (full["opening"] == 0).all()
    assert set(part["opening"]) <= {0, 1, 2, 3} and len(set(part["opening"])) > 1
    for g in range(8):
        rows = part["game"] == g
        # only the teacher's seat is recorded, never the random one
        assert (part["seat"][rows] == 1 - part["random_seat"][g]).all()
        # QM-2: a decision of the setup places one piece, so the pieces on the board at the first
        # sample count the decisions played before it: at least the game's random opening
        first = part["obs"][rows][0]
        pieces = int((first[..., 2] > 0).sum() + (first[..., 3] > 0).sum())
        assert pieces >= min(part["opening"][g], 4)
    assert len(part["actions"]) < len(full["actions"])


def test_fit_learns_a_teacher_it_can_represent():
    data = collect("quagmire_v0", Lowest(), games=40, num_envs=8, seed=3, random_share=0.0, opening=4)
    policy = new_policy(
        {"env_id": "quagmire_v0", "options": {}, "extractor": "mlp", "extractor_kwargs": {}, "net_arch": [64]}
    )
    result = fit(policy, data, epochs=8, batch_size=64, lr=3e-3, seed=0)
    first, last = result["history"][0], result["history"][-1]
    assert result["held_out_samples"] > 0 and result["train_samples"] > result["held_out_samples"]
    assert last["held_out_agreement"] >= 0.9
    assert last["held_out_policy_loss"] < first["held_out_policy_loss"]


def test_distill_saves_a_model_load_and_train_init_take(tmp_path):
    out, samples = tmp_path / "qd", tmp_path / "s.npz"
    config = distill(
        "quagmire_v0",
        "greedy",
        games=6,
        out=out,
        num_envs=3,
        epochs=1,
        samples=samples,
        extractor_kwargs={"layers": 1},
        verbose=0,
    )
    saved = json.loads(out.with_suffix(".json").read_text())
    assert saved == json.loads(json.dumps(config))
    assert saved["extractor"] == "board" and saved["extractor_kwargs"] == {"channels": 32, "layers": 1, "hex": True}
    # the samples file is read back (same samples) when the settings match, refused when they do not
    again = distill(
        "quagmire_v0", "greedy", games=6, out=tmp_path / "qd2", num_envs=3, epochs=1, samples=tmp_path / "s", verbose=0
    )
    assert again["distilled"]["samples"] == saved["distilled"]["samples"]
    with pytest.raises(ValueError, match="holds samples played with"):
        distill("quagmire_v0", "greedy", games=7, out=tmp_path / "qd3", epochs=1, samples=samples, verbose=0)
    assert not (tmp_path / "qd3.pt").exists()
    assert saved["distilled"]["teacher"] == "greedy" and saved["budget"]["steps"] == saved["distilled"]["samples"] > 0
    assert saved["budget"]["finished"] and saved["distilled"]["epochs"] == 1
    assert [e["epoch"] for e in saved["distilled"]["history"]] == [1]
    agent = baselines.load(out)
    res = evaluate(agent, "quagmire_v0", games=4, opponent="random", seed=0)
    assert res["wins"] + res["losses"] == 4
    more = train(
        "quagmire_v0",
        steps=128,
        num_envs=4,
        n_steps=32,
        batch_size=64,
        out=tmp_path / "q2",
        init=out,
        greedy_share=0.0,
        eval_every=0,
        progress_bar=False,
        verbose=0,
    )
    assert more["init"]["distilled"]["teacher"] == "greedy" and more["extractor_kwargs"]["layers"] == 1  # its network
    with pytest.raises(ValueError, match="plays quagmire_v0 {}, not quess_v0"):
        train("quess_v0", steps=64, num_envs=2, out=tmp_path / "q3", init=out, progress_bar=False, verbose=0)
    # a second round from the first: its network, its budget added, the student playing half the games
    third = distill(
        "quagmire_v0",
        "greedy",
        games=4,
        out=tmp_path / "qd4",
        num_envs=2,
        epochs=1,
        init=out,
        student_share=0.5,
        verbose=0,
    )
    assert third["extractor_kwargs"]["layers"] == 1 and third["init"]["name"] == "quagmire_v0"
    assert third["budget"]["steps"] == saved["budget"]["steps"] + third["budget"]["this_run_steps"]
    with pytest.raises(ValueError, match="plays quagmire_v0 {}, not quess_v0"):
        distill("quess_v0", "greedy", games=2, out=tmp_path / "x", init=out, verbose=0)
    with pytest.raises(ValueError, match="no .*missing.pt"):
        train(
            "quagmire_v0",
            steps=64,
            num_envs=2,
            out=tmp_path / "q3",
            init=tmp_path / "missing",
            progress_bar=False,
            verbose=0,
        )
    assert more["budget"]["steps"] == saved["budget"]["steps"] + more["budget"]["this_run_steps"]


def test_distill_extractor_swaps_the_network_and_keeps_the_options_it_takes(tmp_path):
    """Hex Quoridor's default network is the board network; its dense one is
    ``hexpaths`` (its goal distances); ``extractor="cnn"`` gives the plain
    CNN, still on the hex grid and as deep (the dense network's ``hex`` and
    ``layers`` carry over); a name that is not an extractor is refused
    before any game is played."""
    from boardenvs.baselines.extractors import EXTRACTORS, option_names

    assert {"hex", "layers", "split", "scale_steps"} <= option_names(EXTRACTORS["hexpaths"])  # BoardCNN's via **kwargs
    assert "scale_steps" not in option_names(EXTRACTORS["cnn"]) and "hex" not in option_names(EXTRACTORS["mlp"])
    default = distill(
        "hex_quoridor_v1",
        "greedy",
        games=2,
        out=tmp_path / "hp",
        num_envs=2,
        epochs=1,
        extractor_kwargs={"layers": 1},
        verbose=0,
    )
    assert default["extractor"] == "board" and default["extractor_kwargs"] == {
        "channels": 32,
        "hex": True,
        "layers": 1,
        "paths": True,
    }
    paths = distill(
        "hex_quoridor_v1",
        "greedy",
        games=2,
        out=tmp_path / "hq",
        num_envs=2,
        epochs=1,
        extractor="hexpaths",
        extractor_kwargs={"layers": 1},
        verbose=0,
    )
    assert paths["extractor"] == "hexpaths" and paths["extractor_kwargs"] == {"hex": True, "layers": 1}
    plain = distill(
        "hex_quoridor_v1", "greedy", games=2, out=tmp_path / "hc", num_envs=2, epochs=1, extractor="cnn", verbose=0
    )
    assert plain["extractor"] == "cnn" and plain["extractor_kwargs"] == {"hex": True, "layers": 6}
    agent = baselines.load(tmp_path / "hc")
    assert type(agent.policy.features_extractor).__name__ == "BoardCNN"
    assert evaluate(agent, "hex_quoridor_v1", games=2, opponent="random", seed=0)["games"] == 2
    mlp = distill(
        "quagmire_v0", "greedy", games=2, out=tmp_path / "qm", num_envs=2, epochs=1, extractor="mlp", verbose=0
    )
    assert mlp["extractor"] == "mlp" and mlp["extractor_kwargs"] == {}  # hex, split, around: the CNN's alone
    with pytest.raises(ValueError, match="extractor must be one of board, cnn, hexpaths, mlp, got 'gnn'"):
        distill("hex_quoridor_v1", "greedy", games=2, out=tmp_path / "new" / "m", extractor="gnn", verbose=0)
    assert not (tmp_path / "new").exists()


def test_distill_errors_are_clear(capsys, tmp_path):
    with pytest.raises(ValueError, match="games must be an int >= 1, got 0"):
        collect("quagmire_v0", "random", games=0)
    with pytest.raises(ValueError, match="random_share must be in"):
        collect("quagmire_v0", "random", games=2, random_share=1.5)
    with pytest.raises(ValueError, match="opponent"):
        collect("quagmire_v0", "nope", games=2)
    # the fit's settings are checked before any game is played or folder made
    for kwargs, message in (
        ({"epochs": 0}, "epochs must be a positive int"),
        ({"batch_size": 0}, "batch_size must be"),
        ({"lr": -1.0}, "lr must be a number > 0"),
    ):
        with pytest.raises(ValueError, match=message):
            distill("quagmire_v0", "greedy", games=2, out=tmp_path / "new" / "m", verbose=0, **kwargs)
    assert not (tmp_path / "new").exists()

    class Illegal(Opponent):
        def act(self, batch):
            return np.full(len(batch), -1)

    with pytest.raises(ValueError, match="chose an illegal action"):
        collect("quagmire_v0", Illegal(), games=2, random_share=0.0)
    for argv, message in (
        (["quagmire_v0", "--games", "0"], "--games must be a positive int"),
        (["quagmire_v0", "--opening", "-1"], "--opening must be >= 0"),
        (["quagmire_v0", "--lr", "0"], "--lr must be > 0"),
        (["quagmire_v0", "--layers", "0"], "--layers must be a positive int"),
        (["quagmire_v0", "--channels", "0"], "--channels must be a positive int"),
        (["quagmire_v0", "--student-share", "0.5"], "the student is the --init model"),
        (["tryasina_v0", "--layers", "2"], "extractor options"),
        (["quess_v0", "--players", "3"], "played by 2 players"),
        (["quagmire_v0", "--teacher", "nope", "--out", str(tmp_path / "x")], "nope"),
    ):
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


def test_collect_keeps_the_searchs_policy_and_fit_learns_soft_targets():
    data = collect("quagmire_v0", "mcts:20", games=3, num_envs=3, seed=0, random_share=0.0, opening=0)
    n = len(data["actions"])
    policy = data["policy"]
    assert policy.shape == data["masks"].shape and policy.dtype == np.float16
    np.testing.assert_allclose(policy.astype(np.float32).sum(axis=1), 1.0, atol=1e-2)
    assert (policy[data["masks"] == 0] == 0).all()
    assert (policy[np.arange(n), data["actions"]] == policy.max(axis=1)).all()  # the search plays its most visited
    assert "policy" not in collect("quagmire_v0", Lowest(), games=2, num_envs=2, random_share=0.0)  # not a search

    # soft targets: half on each of the two lowest legal actions; the fit learns the split, not only the argmax
    data = collect("quagmire_v0", Lowest(), games=40, num_envs=8, seed=3, random_share=0.0, opening=4)
    two = np.zeros(data["masks"].shape, np.float16)
    for row, mask in enumerate(data["masks"]):
        legal = np.flatnonzero(mask)[:2]
        two[row, legal] = 1.0 / len(legal)
    data["policy"] = two
    net = new_policy(
        {"env_id": "quagmire_v0", "options": {}, "extractor": "mlp", "extractor_kwargs": {}, "net_arch": [64]}
    )
    result = fit(net, data, epochs=8, batch_size=64, lr=3e-3, seed=0)
    assert result["targets"] == "visits"
    rows = np.flatnonzero(data["masks"].sum(axis=1) >= 2)
    import torch

    with torch.no_grad():
        dist = net.get_distribution(torch.as_tensor(data["obs"][rows]).float(), action_masks=data["masks"][rows])
        probs = dist.distribution.probs.numpy()
    lowest = data["masks"][rows].argmax(axis=1)
    second = np.array([np.flatnonzero(m)[1] for m in data["masks"][rows]])
    p1, p2 = probs[np.arange(len(rows)), lowest], probs[np.arange(len(rows)), second]
    assert np.median(p1 + p2) > 0.8 and 0.3 < np.median(p1 / (p1 + p2)) < 0.7
    hard = fit(
        new_policy(
            {"env_id": "quagmire_v0", "options": {}, "extractor": "mlp", "extractor_kwargs": {}, "net_arch": [64]}
        ),
        data,
        epochs=1,
        batch_size=64,
        targets="action",
    )
    assert hard["targets"] == "action"


def test_soft_target_errors_are_clear(capsys, tmp_path):
    data = collect("quagmire_v0", Lowest(), games=2, num_envs=2, seed=0, random_share=0.0)
    net = new_policy(
        {"env_id": "quagmire_v0", "options": {}, "extractor": "mlp", "extractor_kwargs": {}, "net_arch": [8]}
    )
    with pytest.raises(ValueError, match="no search policy"):
        fit(net, data, epochs=1, targets="visits")
    with pytest.raises(ValueError, match="targets must be 'visits' or 'action', got 'soft'"):
        fit(net, data, epochs=1, targets="soft")
    with pytest.raises(ValueError, match="targets must be 'visits' or 'action', got 'soft'"):
        distill("quagmire_v0", "greedy", games=2, out=tmp_path / "m", targets="soft", verbose=0)
    with pytest.raises(ValueError, match="'greedy' is not a search"):  # before any game is played
        distill("quagmire_v0", "greedy", games=2, out=tmp_path / "m", targets="visits", verbose=0)
    assert not (tmp_path / "m.pt").exists()
    with pytest.raises(SystemExit):
        main(["quagmire_v0", "--teacher", "greedy", "--targets", "visits", "--out", str(tmp_path / "m")])
    assert "is not a search" in capsys.readouterr().err


def test_distill_fits_several_sample_files_together(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    first = distill(
        "quagmire_v0",
        "greedy",
        games=3,
        out=tmp_path / "ma",
        num_envs=3,
        seed=1,
        epochs=1,
        samples=a,
        extractor_kwargs={"layers": 1},
        verbose=0,
    )
    second = distill(
        "quagmire_v0",
        "greedy",
        games=2,
        out=tmp_path / "mb",
        num_envs=2,
        seed=2,
        epochs=1,
        samples=b,
        extractor_kwargs={"layers": 1},
        verbose=0,
    )
    both = distill(
        "quagmire_v0",
        "greedy",
        games=3,
        out=tmp_path / "mab",
        num_envs=3,
        seed=1,
        epochs=1,
        samples=a,
        add_samples=[b],
        extractor_kwargs={"layers": 1},
        verbose=0,
    )
    d = both["distilled"]
    assert d["samples_read_back"] and d["games"] == 5
    assert d["samples"] == first["distilled"]["samples"] + second["distilled"]["samples"]
    assert d["added_samples"] == [{"file": str(b), "games": 2, "seed": 2}]
    assert d["train_samples"] + d["held_out_samples"] == d["samples"]
    # the second file's games are numbered after the first's: five games, one held out
    with np.load(a) as fa, np.load(b) as fb:
        from boardenvs.baselines.distill import join_samples

        da, db = ({k: f[k] for k in f.files if k != "settings"} for f in (fa, fb))
    joined = join_samples(da, db)
    assert sorted(set(joined["game"])) == [0, 1, 2, 3, 4] and len(joined["opening"]) == 5
    three = join_samples(da, db, db)  # several files in one go: each after the ones before
    assert sorted(set(three["game"])) == list(range(7)) and (three["game"][-len(db["game"]) :] == db["game"] + 5).all()
    # a file played against an opponent: its settings say so, and it fits with the others (their games: -1)
    c = tmp_path / "c.npz"
    versus = distill(
        "quagmire_v0",
        "greedy",
        games=2,
        out=tmp_path / "mc",
        num_envs=2,
        seed=3,
        epochs=1,
        samples=c,
        against="random",
        against_share=1.0,
        add_samples=[a],
        extractor_kwargs={"layers": 1},
        verbose=0,
    )
    assert versus["distilled"]["against"] == "random" and versus["distilled"]["against_share"] == 1.0
    with pytest.raises(ValueError, match="holds samples played with"):  # read back only with the same opponent
        distill(
            "quagmire_v0",
            "greedy",
            games=2,
            out=tmp_path / "md",
            num_envs=2,
            seed=3,
            epochs=1,
            samples=c,
            extractor_kwargs={"layers": 1},
            verbose=0,
        )
    with np.load(c) as fc:
        dc = {k: fc[k] for k in fc.files if k != "settings"}
    mixed = join_samples(da, dc)
    assert list(mixed["learner_seat"]) == [-1, -1, -1] + list(dc["learner_seat"]) and (dc["learner_seat"] >= 0).all()
    assert list(join_samples(dc, da)["learner_seat"]) == list(dc["learner_seat"]) + [-1, -1, -1]
    with pytest.raises(ValueError, match="played by greedy, not quagmire_v0 {} by random"):
        distill("quagmire_v0", "random", games=2, out=tmp_path / "x", add_samples=[b], verbose=0)
    with pytest.raises(ValueError, match="no samples file"):
        distill("quagmire_v0", "greedy", games=2, out=tmp_path / "x", add_samples=[tmp_path / "none.npz"], verbose=0)
    assert not (tmp_path / "x.pt").exists()


def test_budget_counts_each_samples_file_once_along_the_init_chain(tmp_path):
    """A DAgger round refits the earlier rounds' files (add_samples) from the
    model they made: its budget adds only the decisions no model before it
    counted (was: every decision fitted, again each round)."""
    a, b, c = tmp_path / "a.npz", tmp_path / "b.npz", tmp_path / "c.npz"
    kw = dict(num_envs=2, epochs=1, verbose=0)
    first = distill(
        "quagmire_v0", "greedy", games=2, out=tmp_path / "m1", seed=1, samples=a, extractor_kwargs={"layers": 1}, **kw
    )
    n_a = first["distilled"]["samples"]
    assert first["budget"]["steps"] == first["budget"]["this_run_steps"] == n_a
    second = distill(
        "quagmire_v0",
        "greedy",
        games=2,
        out=tmp_path / "m2",
        seed=2,
        samples=b,
        add_samples=[a],
        init=tmp_path / "m1",
        **kw,
    )
    n_b = second["distilled"]["samples"] - n_a
    assert n_b > 0 and second["budget"]["this_run_steps"] == n_b and second["budget"]["steps"] == n_a + n_b
    # b read back (from the same init, as its settings require) with a added twice: a counted once
    again = distill(
        "quagmire_v0",
        "greedy",
        games=2,
        out=tmp_path / "m3",
        seed=2,
        samples=b,
        add_samples=[a, a],
        init=tmp_path / "m1",
        **kw,
    )
    assert again["distilled"]["samples_read_back"] and again["budget"]["this_run_steps"] == n_b
    assert again["budget"]["steps"] == n_a + n_b
    # c played, a and b added along the chain m1 -> m2 (b spelt another way): only c is new
    third = distill(
        "quagmire_v0",
        "greedy",
        games=2,
        out=tmp_path / "m4",
        seed=3,
        samples=c,
        add_samples=[a, f"{tmp_path}/./b.npz"],
        init=tmp_path / "m2",
        **kw,
    )
    n_c = third["distilled"]["samples"] - n_a - n_b
    assert n_c > 0 and third["budget"]["this_run_steps"] == n_c and third["budget"]["steps"] == n_a + n_b + n_c
    # a model off the chain: every file's decisions are new to it
    fresh = distill(
        "quagmire_v0",
        "greedy",
        games=2,
        out=tmp_path / "m5",
        seed=4,
        samples=tmp_path / "d.npz",
        add_samples=[b, c],
        extractor_kwargs={"layers": 1},
        **kw,
    )
    assert fresh["budget"]["steps"] == fresh["budget"]["this_run_steps"] == fresh["distilled"]["samples"]
    assert fresh["distilled"]["samples"] > n_b + n_c
