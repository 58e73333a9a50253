"""A sixth game costs one module and one line: tic-tac-toe
(``tests/tictactoe_game.py``, registered in conftest.py like the package's
games) gets, from its declaration alone: every generic test (the
parametrised suites run over every registered id), a benchmark row,
``boardenvs rules`` / ``picture`` / ``play`` / ``list``, a place among
``boardenvs.baselines.train``'s games, and its env card (the docs page).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import boardenvs
from boardenvs.registry import game_class, registered_ids

ENV = "tictactoe_v0"
TESTS = Path(__file__).parent


def test_registered_by_one_line_with_every_face():
    assert ENV in registered_ids()
    assert "register(tictactoe_game.TicTacToeGame)" in (TESTS / "conftest.py").read_text()
    module = importlib.import_module(f"boardenvs.{ENV}")
    assert {"env", "raw_env", "parallel_env"} <= set(dir(module))
    env = boardenvs.make(ENV)
    env.reset(seed=0)
    assert env.action_space("player_0").n == 9
    vec = boardenvs.make_vec(ENV, num_envs=8)
    vec.reset(seed=0)
    for _ in range(12):
        vec.step(vec.random_actions())
    single = gymnasium.make("boardenvs/TicTacToe-v0", opponent="random")
    obs, info = single.reset(seed=0)
    assert obs.shape == (18,) and info["action_mask"].sum() in (8, 9)


def test_every_generic_suite_runs_it():
    """The generic test files build their cases from the registry: the sixth
    game is among them without a line written for it."""
    import test_all_envs
    import test_checkers
    import test_faces

    for module in (test_all_envs, test_checkers, test_faces):
        assert any(c.values[0] == ENV for c in module.CASES), module.__name__
    assert any(
        c.values[0] == ENV for c in test_checkers.SHORT_OR_SILENT
    )  # max_cycles checked its own way (a short game)


def test_a_bench_row_from_its_declaration():
    sys.path.insert(0, str(TESTS.parent / "benchmarks"))
    try:
        import bench
    finally:
        sys.path.pop(0)
    assert bench.variants(ENV) == ({},)
    assert bench.closest(ENV) == ("connect_four", "lines of marks on a small grid")
    rows = bench.boardenvs_rows([ENV], [1, 64], sb3=False)
    assert rows and all(ENV in r.game for r in rows) and {"AEC", "make_vec"} <= {r.api for r in rows}
    step = bench.vec_stepper(ENV, 64, {})
    assert step() > 0  # it steps


def test_the_command_line_knows_it(tmp_path, capsys):
    from boardenvs.cli import main

    assert main(["rules", ENV]) == 0
    assert "TT-2 Line" in capsys.readouterr().out
    out = tmp_path / "t.png"
    assert main(["picture", ENV, "a1", "b2", "--out", str(out)]) == 0 and out.stat().st_size > 0
    assert main(["play", ENV, "a1", "b1", "a2", "b2", "a3"]) == 0
    shown = capsys.readouterr().out
    assert "player_0 (x) wins" in shown
    assert main(["list", "--all"]) == 0 and ENV in capsys.readouterr().out


def test_training_takes_it(tmp_path):
    from boardenvs.baselines.networks import trainable_ids
    from boardenvs.baselines.train import train

    assert ENV in trainable_ids()
    config = train(
        ENV,
        steps=256,
        num_envs=4,
        n_steps=64,
        batch_size=64,
        out=tmp_path / "t",
        eval_every=0,
        progress_bar=False,
        verbose=0,
    )
    assert config["extractor"] == "mlp" and (tmp_path / "t.pt").is_file()
    agent = boardenvs.baselines.load(tmp_path / "t")
    res = boardenvs.wrappers.evaluate(agent, ENV, games=10, seed=0)
    assert res["wins"] + res["draws"] + res["losses"] == 10


def test_its_env_card_is_generated_from_the_declaration():
    from boardenvs.cards import env_card

    card = env_card(ENV)
    assert card.startswith("# Tic-tac-toe — `tictactoe_v0`")
    assert "`gymnasium.make('boardenvs/TicTacToe-v0')`" in card
    assert "| defaults | 2 | `Discrete(9)` | `int8 (3, 3, 2)` | 0..1 |" in card
    assert "`line`" in card and "`full`" in card and "TT-1" in card


@pytest.mark.parametrize("env_id", boardenvs.ENV_IDS)
def test_every_package_game_has_a_card_too(env_id):
    from boardenvs.cards import env_card

    game = game_class(env_id)
    card = env_card(env_id)
    for variant in game.variants:
        g = game(**variant)
        assert f"`Discrete({g.num_actions})`" in card and f"`int8 {g.obs_shape}`" in card
    assert all(f"`{o.name}`" in card for o in game.option_specs)
    assert all(f"`{name}`" in card for name in game.reason_names.values())


def test_the_rules_of_a_game_the_docs_cannot_find_are_refused_when_defined():
    """Rules are required: a game naming no rules file fails at its class
    definition (before, `boardenvs rules` crashed with IsADirectoryError)."""
    import tictactoe_game

    with pytest.raises(TypeError, match="declares no rules file"):
        type("NoRules", (tictactoe_game.TicTacToeGame,), {"env_id": "norules_v0", "rules_file": ""})
    assert np.array_equal(boardenvs.position(ENV).action_mask(), np.ones(9, np.int8))


def shipped_game_gaps(env_ids, readme: str, root) -> list:
    """What a shipped game lacks beyond its package and catalog line: a row
    in the README's table of games (its picture and its id), and its
    picture beside its rules (``make pictures`` draws it); one message each,
    naming the game and what to do."""
    from pathlib import Path

    gaps = []
    for env_id in env_ids:
        cls = boardenvs.game_class(env_id)
        picture = f"boardenvs/rules/{Path(cls.rules_file).stem}.png"
        if not (Path(root) / picture).is_file():
            gaps.append(f"{env_id}: no picture {picture} (make pictures draws it)")
        rows = [line for line in readme.splitlines() if line.startswith("|") and f"`{env_id}`" in line]
        if not rows:
            gaps.append(
                f'{env_id}: no row in the README\'s table of games (| <img src="{picture}" ...> | ... | '
                f"`{env_id}` | ...)"
            )
        elif picture not in rows[0]:
            gaps.append(f"{env_id}: its README row shows no {picture}")
    return gaps


def test_every_shipped_game_has_its_readme_row_and_picture():
    """The sixth-game target: a game of the catalog (boardenvs.ENV_IDS)
    needs its package and one catalog line; its card is generated, and what
    is not generated (the README's row, the committed picture) is checked
    here with a message naming what is missing."""
    root = TESTS.parent
    readme = (root / "README.md").read_text()
    assert shipped_game_gaps(boardenvs.ENV_IDS, readme, root) == []
    # a sixth game (the test's tic-tac-toe, as if it were in the catalog): both gaps named
    gaps = shipped_game_gaps(["tictactoe_v0"], readme, root)
    assert len(gaps) == 2 and "tictactoe_v0: no picture boardenvs/rules/tictactoe.png" in gaps[0]
    assert "no row in the README's table of games" in gaps[1]
