"""The OpenSpiel anchors: board games through pyspiel, one decision at a time.

OpenSpiel is what a researcher writing a board game in C++ gets: each row
plays random games of quoridor, amazons, breakthrough, backgammon, hex or
connect_four, asking for the legal actions and the observation tensor every
decision, as an RL loop must.  Each boardenvs game names its closest
OpenSpiel game (``TOOLS["bench"]``, read by ``hints.py``), and its
``make_vec`` rows are read against that one.  Needs the ``bench`` extra
(Linux, Python >= 3.11); skipped with the reason otherwise.
"""

from __future__ import annotations

from collections.abc import Callable

import bench_harness
import numpy as np
from bench_harness import Row, chunked
from hints import bench_hints


def closest(env_id: str):
    """The game's closest OpenSpiel game and why, ``(name, why)``, or None."""
    return bench_hints(env_id).closest


OPENSPIEL_GAMES = ("quoridor", "amazons", "breakthrough", "backgammon", "hex", "connect_four")


def openspiel_stepper(name: str, seed: int = 0, chunk: int = 64) -> Callable[[], int]:
    """Decisions of an OpenSpiel game through pyspiel, the legal-action list
    and the observation tensor every decision.  Chance outcomes (backgammon)
    are sampled by their probabilities and not counted, as make_vec resolves
    them inside a step."""
    pyspiel = bench_harness.optional_import("pyspiel")
    game = pyspiel.load_game(name)
    has_chance = game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
    rng = np.random.default_rng(seed)

    def play():
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if has_chance and state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(outcomes[rng.choice(len(outcomes), p=probs)])
                    continue
                legal = state.legal_actions()
                state.observation_tensor()
                state.apply_action(legal[rng.integers(len(legal))])
                yield

    return chunked(play(), chunk)


def openspiel_rows(sizes, env_ids, log=print) -> list[Row]:
    """One pyspiel row per anchor game (with ``env_ids``, only their closest games), or none with the reason logged."""
    rows = []
    try:
        bench_harness.optional_import("pyspiel")
    except Exception as exc:
        log(f"OpenSpiel anchors skipped: {exc}; pip install '.[bench]' (in a clone) (Linux, Python >= 3.11)")
    else:
        wanted = set(OPENSPIEL_GAMES) if env_ids is None else {closest(e)[0] for e in env_ids if closest(e)}
        for name in OPENSPIEL_GAMES:
            if name in wanted or env_ids is None:
                rows.append(Row("OpenSpiel", name, "pyspiel", 1, setup=lambda g=name: openspiel_stepper(g)))
    return rows
