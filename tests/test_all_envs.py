"""Every registered id x every declared variant (player counts, teams, board
sizes) through the same suite, generated from the registry like PettingZoo's
``all_parameter_combs_test`` and OpenSpiel's ``RandomSimTest``: random games
with invariants, the text round trip, make_vec = Position row by row, the
dice variant and chance as an agent (PettingZoo's and gymnasium's checkers on
default options: tests/test_checkers.py).

The ids come from the registry: the package's games and the tests' toy game
(registered in conftest.py by the same one line).  A game added to the
catalog is tested here without touching this file.
"""

from __future__ import annotations

import functools
import types

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from registry_cases import variant_cases

import boardenvs
from boardenvs import engine as E
from boardenvs.position import Position
from boardenvs.registry import game_class, registered_ids

CASES = variant_cases()


def test_the_package_registers_every_catalog_game_and_the_tests_their_toy():
    from boardenvs.catalog import GAMES

    assert boardenvs.ENV_IDS == tuple(g.env_id for g in GAMES)
    assert set(registered_ids()) == set(boardenvs.ENV_IDS) | {"contract_race_v0", "tictactoe_v0"}
    for env_id in registered_ids():
        module = getattr(boardenvs, env_id)
        assert {"env", "raw_env", "parallel_env"} <= set(dir(module))
        import importlib

        assert importlib.import_module(f"boardenvs.{env_id}") is module


def _module(env_id, variant, illegal_action=None):
    """The id's PettingZoo module with the variant's options bound
    (``illegal_action="random"`` for tests that sample without the mask)."""
    module = getattr(boardenvs, env_id)
    extra = dict(variant)
    if illegal_action:
        extra["illegal_action"] = illegal_action
    return types.SimpleNamespace(
        env=functools.partial(module.env, **extra),
        raw_env=functools.partial(module.raw_env, **extra),
        parallel_env=functools.partial(module.parallel_env, **extra),
    )


# PettingZoo's own tests on default options: tests/test_checkers.py.  Its
# max_cycles_test cannot apply to a silent forced pass (the contract race's
# team play, CR-5) nor to a game won within its 4 cycles (tic-tac-toe), so
# max_cycles is checked here another way there.
from test_checkers import SHORT_OR_SILENT  # noqa: E402


@pytest.mark.parametrize("env_id, variant", SHORT_OR_SILENT)
def test_max_cycles_caps_every_agent(env_id, variant):
    """max_cycles where PettingZoo's test cannot apply: the parallel view
    stops after exactly max_cycles steps, and in the AEC env no agent is
    asked more than max_cycles times (plus its final dead step) while the
    most-asked one reaches the cap."""
    mod = _module(env_id, variant, "random")
    for seed in range(3):
        par = mod.parallel_env(max_cycles=4)
        par.reset(seed=seed)
        for k, a in enumerate(par.possible_agents):  # (seeded samples: the same games on every run)
            par.action_space(a).seed(seed * 100 + k)
        steps = 0
        while par.agents:
            par.step({a: par.action_space(a).sample() for a in par.agents})
            steps += 1
        assert steps == 4
        env = mod.env(max_cycles=4)
        env.reset(seed=seed)
        for k, a in enumerate(env.possible_agents):
            env.action_space(a).seed(seed * 100 + k)
        counts = dict.fromkeys(env.possible_agents, 0)
        for agent in env.agent_iter():
            counts[agent] += 1
            env.step(None if env.terminations[agent] or env.truncations[agent] else env.action_space(agent).sample())
        assert all(1 <= c <= 5 for c in counts.values())
        # the most-asked agent reaches the cap, unless the rules ended the game first (a short game)
        assert max(counts.values()) == 5 or env.unwrapped.end_reason != "max_cycles"
        assert env.unwrapped.end_reason == "max_cycles" or env_id == "tictactoe_v0"


# One convention for a seat that must pass: every package game asks
# it, with one legal action "pass" (TR-7, HQ-13), so every seat still in the
# game is asked once a turn and max_cycles caps each of them at exactly
# max_cycles decisions.  Hex Quoridor's crowded board (radius 2, six players,
# 15 fences each) makes its eliminations (HQ-9) and forced passes (HQ-13)
# common enough to come up in a few seeded games.
CROWDED_HQ = ("hex_quoridor_v1", {"num_players": 6, "radius": 2, "fences_per_player": 15})
PACKAGE_CASES = [(c.values[0], c.values[1]) for c in CASES if c.values[0] in boardenvs.ENV_IDS] + [CROWDED_HQ]


@pytest.mark.parametrize("env_id, variant", PACKAGE_CASES)
def test_max_cycles_asks_every_seat_in_the_game_exactly_max_cycles_times(env_id, variant):
    """max_cycles over many seeded random games of every package variant,
    eliminations and forced passes included: a game cut by max_cycles has
    asked every seat still in it exactly max_cycles times (a seat that left,
    at most that many; in a game whose turns can be several decisions of one
    seat, the most-asked seat exactly that many), one a game ends first no
    seat more; and every agent gets its one final dead step."""
    module = getattr(boardenvs, env_id)
    game = boardenvs.make_game(env_id, **variant)
    assert not game.forced_passes  # the package's convention: a seat that must pass is asked
    pass_action = game.num_actions - 1  # pass is the last action id where a game has one (TR-7, HQ-13)
    seen = {"max_cycles": 0, "out": 0, "passes": 0}
    for seed in range(90):
        cycles = (3, 10, 25)[seed % 3]
        env = module.env(max_cycles=cycles, **variant)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        asked = dict.fromkeys(env.possible_agents, 0)
        dead = dict.fromkeys(env.possible_agents, 0)
        for agent in env.agent_iter():
            if env.terminations[agent] or env.truncations[agent]:
                dead[agent] += 1
                env.step(None)
                continue
            asked[agent] += 1
            mask = env.observe(agent)["action_mask"]
            legal = np.flatnonzero(mask)
            if legal.tolist() == [pass_action]:
                seen["passes"] += 1
            env.step(int(rng.choice(legal)))
        raw = env.unwrapped
        alive = [raw.position().alive(s) for s in range(game.num_players)]
        assert all(n == 1 for n in dead.values()), (seed, dead)
        assert all(n <= cycles for n in asked.values()), (seed, asked)
        if raw.end_reason == "max_cycles":
            seen["max_cycles"] += 1
            seen["out"] += not all(alive)
            if game.multi_decision_turns:  # a turn is a chain of decisions (Quicksand): the most-asked seat is capped
                assert max(asked.values()) == cycles, (seed, asked)
                continue
            for seat, agent in enumerate(env.possible_agents):  # (a seat out: fewer, or its last one cut it off)
                assert asked[agent] == cycles or not alive[seat], (seed, agent, asked, alive)
    assert seen["max_cycles"] >= 5  # the cap was reached in enough of the games to mean something
    if (env_id, variant) == CROWDED_HQ:  # the awkward cases came up: seats out, and seats that had to pass
        assert seen["out"] >= 3 and seen["passes"] >= 1, seen


def _random_game(env_id, variant, seed):
    """A seeded random game through Position, chance included; yields every
    (position, action) before each decision."""
    game = boardenvs.make_game(env_id, **variant)
    pos = Position(game, game.new_state(seed % game.num_players, rng_seed=seed))
    rng = np.random.default_rng(seed)
    while not pos.is_terminal:
        if pos.is_chance:
            probs = game.chance_probs(pos.state)
            action = int(rng.choice(len(probs), p=probs))
        else:
            action = int(rng.choice(pos.legal_actions()))
        yield pos, action
        pos = pos.play(action)
    yield pos, None


@pytest.mark.parametrize("env_id, variant", CASES)
def test_random_games_keep_the_invariants(env_id, variant):
    """The contract's invariants on random games: a live game always has a
    mover with a legal action (or a chance node with outcomes summing to 1),
    observations stay within the declared bounds, returns are -1/0/+1 at the
    end only, turn and decision counters never go back, the text round-trips."""
    game = boardenvs.make_game(env_id, **variant)
    space_low, space_high = game.info.obs_low, game.info.obs_high
    for seed in range(4):
        last_turn = last_decisions = -1
        for k, (pos, action) in enumerate(_random_game(env_id, variant, seed)):
            assert pos.turn >= last_turn and pos.decisions > last_decisions
            last_turn, last_decisions = pos.turn, pos.decisions
            for seat in range(game.num_players):
                obs = pos.observation(seat)
                assert obs.shape == game.obs_shape and obs.dtype == np.int8
                assert (obs >= space_low).all() and (obs <= space_high).all()
            if action is None:
                assert pos.is_terminal and set(pos.returns) <= {-1.0, 0.0, 1.0}
                assert pos.end_reason != "-"
            elif pos.is_chance:
                assert sum(p for _, p in pos.chance_outcomes()) == pytest.approx(1.0)
            else:
                assert pos.legal_actions() and all(r == 0.0 or not pos.alive(s) for s, r in enumerate(pos.returns))
            if k % 7 == 0 or action is None:
                back = Position.from_text(pos.to_text())
                assert back == pos and np.array_equal(back.action_mask(), pos.action_mask())


@pytest.mark.parametrize("env_id, variant", CASES)
def test_legal_moves_are_whole_turns_that_play(env_id, variant):
    """Every listed move plays and ends the turn; its notation parses back to
    the same chain of actions."""
    checked = 0
    for pos, action in _random_game(env_id, variant, 1):
        if action is None or checked >= 12:
            break
        if pos.is_chance:
            continue
        for move, chain in list(zip(pos.legal_moves(), pos.legal_turns()))[:20]:
            assert pos.move_to_actions(move) == chain
            after = pos.play(move)
            assert after.is_terminal or after.turn > pos.turn or after.to_move != pos.to_move
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("env_id, variant", CASES)
def test_make_vec_equals_position_row_by_row(env_id, variant):
    """make_vec's driver is the kernels row by row: each row, stepped with the
    same action by Position (and its chance outcomes drawn from the row's own
    generator), ends in the same state, or, where the game ended, with the
    same returns."""
    # a short max_turns, so that every game's rows end (truncated if not by the rules) within the run
    vec = boardenvs.make_vec(env_id, num_envs=6, **{"max_turns": 12, **variant})
    game = vec.game
    obs, infos = vec.reset(seed=11)
    ended = 0
    for _ in range(60):
        actions = vec.random_actions()  # drawn from each row's generator, which moves on
        before = [vec.position(i) for i in range(vec.num_envs)]
        obs, rewards, term, trunc, infos = vec.step(actions)
        for i, pos in enumerate(before):
            after = pos.play(int(actions[i]))
            while after.is_chance:  # the row's generator decides, as in the kernel (and moves on)
                row = after.state  # a copy of the row
                outcome = int(E.sample_probs(row, game.chance_probs(row)))
                after = Position(game, row).play(outcome)
            if term[i] or trunc[i]:
                ended += 1
                assert after.is_terminal and rewards[i].tolist() == list(after.returns)
                assert infos["end_reason"][i] == after.end_reason == vec.reason_name(infos["end_reason_code"][i])
                assert infos["length"][i] == after.turn
            else:
                assert not after.is_terminal and (rewards[i] == 0).all()
                np.testing.assert_array_equal(vec.states[i], after.state)
                np.testing.assert_array_equal(obs["observation"][i], after.observation(after.to_move))
                np.testing.assert_array_equal(obs["action_mask"][i], after.action_mask()[: game.num_actions])
                assert infos["to_move"][i] == after.to_move
    assert ended


# --- dice: the dice variant of deterministic games, chance nodes as an agent -------------

DICE_CASES = [c for c in CASES if game_class(c.values[0]).action_class_names]
CHANCE_CASES = [c for c in CASES if boardenvs.make_game(c.values[0], **c.values[1]).num_chance_outcomes]


def _dice_env(env_id, variant, **extra):
    from boardenvs.wrappers.dice import DiceVariant

    return DiceVariant(getattr(boardenvs, env_id).env(**variant, **extra))


def test_dice_variant_cases_cover_the_declared_games():
    assert {"quess_v0", "quagmire_v0"} <= {c.values[0] for c in DICE_CASES}


@pytest.mark.parametrize("env_id, variant", DICE_CASES)
def test_dice_variant_api_and_seed_tests(env_id, variant):
    api_test(_dice_env(env_id, variant, first_player="random"), num_cycles=150)
    seed_test(functools.partial(_dice_env, env_id, variant, first_player="random"), num_cycles=100)


@pytest.mark.parametrize("env_id, variant", DICE_CASES)
def test_dice_variant_restricts_each_turn_to_the_rolled_class(env_id, variant):
    """At every turn's first decision the mask is the game's mask cut to the
    rolled class (never empty: an empty class is re-rolled), the roll is in
    the observation, and an action of another class is refused unchanged;
    the later decisions of the same turn (Quicksand's hops and rotation) keep
    the roll in the observation and are free."""
    from boardenvs.errors import IllegalActionError
    from boardenvs.position import turn_over

    env = _dice_env(env_id, variant, illegal_action="raise")
    game = env.unwrapped.game
    rolled = set()
    for seed in range(3):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        turn_start = None
        for _agent in env.agent_iter(max_iter=300):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            state = env.unwrapped._state
            full = game.legal_mask(state)[: game.num_actions]
            first = turn_start is None or turn_over(turn_start, state)
            if first:
                turn_start = state.copy()
            if env.roll >= 0 and not first:
                assert obs["roll"].any()
                np.testing.assert_array_equal(obs["action_mask"], full)
            elif env.roll >= 0:
                rolled.add(env.roll)
                classes = np.asarray(game.action_classes(state))[: game.num_actions]
                assert obs["roll"].tolist() == [int(k == env.roll) for k in range(len(game.action_class_names))]
                np.testing.assert_array_equal(obs["action_mask"], full & (classes == env.roll))
                assert obs["action_mask"].any()
                others = np.flatnonzero(full & (classes != env.roll))
                if others.size:
                    before = state.copy()
                    with pytest.raises(IllegalActionError, match="rolled class"):
                        env.step(int(others[0]))
                    np.testing.assert_array_equal(env.unwrapped._state, before)
            else:
                assert not obs["roll"].any()
                np.testing.assert_array_equal(obs["action_mask"], full)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len(rolled) >= 2


@pytest.mark.parametrize("env_id", [i for i in registered_ids() if not game_class(i).action_class_names])
def test_dice_variant_refuses_games_without_action_classes(env_id):
    from boardenvs.wrappers.dice import DiceVariant

    with pytest.raises(ValueError, match="no dice variant"):
        DiceVariant(getattr(boardenvs, env_id).env())


@pytest.mark.parametrize("env_id, variant", CHANCE_CASES)
def test_chance_agent_raw_mode_and_the_seeded_die(env_id, variant):
    """raw_env(chance_agent=True) passes PettingZoo's api_test with the
    ``chance`` agent; ResolveChance over it plays exactly what the default
    env (which rolls inside with the same die) plays for the same seed."""
    from boardenvs.wrappers.dice import ResolveChance

    module = getattr(boardenvs, env_id)
    api_test(module.raw_env(chance_agent=True, **variant), num_cycles=150)
    for seed in range(2):
        runs = []
        for env in (module.raw_env(**variant), ResolveChance(module.raw_env(chance_agent=True, **variant))):
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            trace = []
            for agent in env.agent_iter(max_iter=400):
                obs, reward, term, trunc, _ = env.last()
                assert agent != "chance"
                action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
                # (a dead step may come before or after the next roll; decisions see the same state)
                trace.append((agent, action, reward, None if action is None else env.unwrapped.position().to_text()))
                env.step(action)
            runs.append(trace)
        assert runs[0] == runs[1]
