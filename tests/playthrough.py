"""Golden playthroughs (OpenSpiel's ``integration_tests/playthroughs`` are the
model): one text file per registered id and variant, and one per dice
variant, each recording a seeded game decision by decision.  A rules or
behaviour change shows up as a reviewed diff of these files.

    python tests/playthrough.py            # rewrite every file (``make playthroughs``)
    python tests/playthrough.py --check    # say which files differ, rewrite nothing

A file holds the game's options, then one block per decision: the position
text, the seat to act, the legal actions (ids and notation), the
observation (a digest) and the action taken; one block per chance outcome
(the outcomes with their probabilities, the one rolled); and the end (the
final position, each seat's return, the end reason and the length).

**The seeded game.**  ``seed`` fixes it as ``make_vec(id, 1).reset(seed)``
deals it: the row's generator is ``SeedSequence(seed)``'s first word, the
first seat and every die come from that generator (the engine's seeded
die), and the actions are drawn uniformly from the legal ones by
``numpy.random.default_rng(seed)``.  :func:`record` plays it from the
kernels, rolling the die as the engine does (``Game.draw_chance``).

**The faces** replay the file's actions and write the file again from what
they show (``tests/test_playthroughs.py`` compares line by line):

* ``Position``: every decision and chance outcome through ``play``;
* the AEC env (``boardenvs.make``; with ``chance_agent=True`` where the game
  has chance nodes, so each recorded outcome is stepped as the ``"chance"``
  agent's action), its first seat set by the ``first_player`` option;
* ``make_vec`` (one row, ``reset(seed)``): the decisions only; chance is
  rolled inside by the row's own generator and must give the recorded
  outcomes.  It shows no chance node and no final position (the row is
  reset as the game ends), so its file is compared without those lines.

The dice variant of a deterministic game (:class:`DiceVariant`) exists on
the AEC face only: its files (``<id>[dice].txt``) are recorded and replayed
there, the roll in every decision block.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

import boardenvs
from boardenvs import engine as E
from boardenvs.registry import game_class, make_game, registered_ids

FOLDER = Path(__file__).with_name("playthroughs")
MAX_DECISIONS = 120  # a file stops there if the game goes on (the end block says so)
SEED = 2026
FORMAT = "boardenvs playthrough 1"


# --- which files ----------------------------------------------------------------------------------------------


def variant_label(variant: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in variant.items()) or "default"


def cases():
    """``(file name, env id, variant, dice)`` of every file the registry calls for."""
    for env_id in registered_ids():
        cls = game_class(env_id)
        for variant in cls.variants:
            yield f"{env_id}[{variant_label(variant)}].txt", env_id, dict(variant), False
        if cls.action_class_names and not make_game(env_id).num_chance_outcomes:
            yield f"{env_id}[dice].txt", env_id, {}, True


# --- the lines every face writes -----------------------------------------------------------------------------


def digest(array) -> str:
    """``shape dtype sha1`` of an array; arrays of at most 32 entries in full."""
    a = np.ascontiguousarray(array)
    shape = "x".join(map(str, a.shape))
    if a.size <= 32:
        return f"{shape} {a.dtype} [{' '.join(str(v) for v in a.ravel().tolist())}]"
    return f"{shape} {a.dtype} sha1:{hashlib.sha1(a.tobytes()).hexdigest()[:16]}"


def seat_name(seat: int) -> str:
    return "chance" if seat == E.CHANCE else f"player_{seat}"


def header(env_id: str, variant: dict, seed: int, dice: bool, first: int) -> list[str]:
    game = make_game(env_id, **variant)
    return [
        f"# {FORMAT}: tests/playthrough.py wrote this file (make playthroughs); edit the rules, not this",
        f"game: {env_id}",
        f"variant: {variant_label(variant)}",
        f"options: {game.text_options()}",
        f"seed: {seed}",
        f"dice_variant: {'yes' if dice else 'no'}",
        f"first_seat: {seat_name(first)}",
        f"players: {game.num_players}",
        f"actions: {game.num_actions}",
        f"observation: {'x'.join(map(str, game.obs_shape))} int8",
    ]


def position_lines(pos) -> list[str]:
    return ["  | " + line for line in pos.to_text().rstrip("\n").split("\n")]


def decision_block(k: int, pos, seat: int, mask, obs, action: int, roll=None, roll_names=()) -> list[str]:
    """A decision: the position before it (as ``pos``, a Position, shows it),
    the seat to act, ``mask``'s legal ids with their notation, ``obs``
    (the seat's observation), the dice variant's roll if any, the action."""
    ids = [int(a) for a in np.flatnonzero(np.asarray(mask))]
    assert all(a < pos.game.num_actions for a in ids), f"a decision's mask allows a chance outcome's id: {ids}"
    lines = [f"== decision {k}", *position_lines(pos), f"to_move: {seat_name(seat)}"]
    if roll is not None:
        lines.append(f"roll: {roll_names[roll] if roll >= 0 else '-'}")
    lines += [
        f"mask: {len(ids)} of {pos.game.num_actions} legal",
        "legal: " + "; ".join(f"{a}={pos.action_to_move(a)}" for a in ids),
        f"observation: {digest(obs)}",
        f"action: {action} {pos.action_to_move(action)}",
    ]
    return lines


def chance_block(k: int, pos, outcomes: list[tuple[int, float]], outcome: int) -> list[str]:
    return [
        f"== chance {k}",
        *position_lines(pos),
        "outcomes: " + "; ".join(f"{a}={pos.action_to_move(a)}@{p:.4f}" for a, p in outcomes),
        f"outcome: {outcome} {pos.action_to_move(outcome)}",
    ]


def end_block(pos, playing: bool, decisions: int, returns, reason: str, length: int, end_infos: dict) -> list[str]:
    lines = ["== end", *position_lines(pos)]
    if playing:
        return lines + [f"stopped: after {decisions} decisions, the game goes on"]
    rets = " ".join(f"{float(r):+.0f}" for r in returns)
    lines.append(f"result: returns {rets}; end_reason {reason}; length {length} turns")
    if end_infos:
        lines.append("end_infos: " + " ".join(f"{k}={_plain(v)}" for k, v in sorted(end_infos.items())))
    return lines


def _plain(value) -> str:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return repr(value).replace(" ", "")


def start_state(game, seed: int) -> tuple[int, np.ndarray, list]:
    """The first seat of the game ``make_vec``'s ``reset(seed)`` deals, its row
    at the first decision, and the chance outcomes its deal rolled (``[(state before, outcomes, outcome), ...]``): the
    row's generator seeded by ``SeedSequence(seed)``, the first seat drawn
    from it when the game's is random, a deal that chance alone ends dealt
    again (the engine's ``fresh_game``)."""
    state = np.zeros(game.state_size, np.int64)
    state[E.H_RNG] = np.random.SeedSequence(seed).generate_state(1, np.uint64).view(np.int64)[0]
    for _ in range(64):
        first = int(E.first_seat_of(state, game.params))
        game.kernels.init(state, game.params, first)
        rolls = settle(game, state)
        if state[E.H_STATUS] == E.PLAYING:
            return first, state, rolls
    raise AssertionError(f"{game.env_id}: 64 deals of seed {seed} ended before a decision")


def settle(game, state) -> list:
    """Roll the seeded die (``Game.draw_chance``: the row's own generator, as
    the engine's ``settle_chance``) until a seat is to act or the game is
    over; returns ``[(state before, outcomes with probabilities, outcome)]``."""
    rolls = []
    while state[E.H_STATUS] == E.PLAYING and state[E.H_CURRENT] == E.CHANCE:
        before = state.copy()
        probs = game.chance_probs(state)
        outcome = game.draw_chance(state)
        rolls.append((before, [(int(a), float(probs[a])) for a in np.flatnonzero(probs)], outcome))
        game.kernels.apply(state, game.params, outcome)
    return rolls


# --- recording -------------------------------------------------------------------------------------------------


def record(env_id: str, variant: dict, seed: int = SEED, dice: bool = False) -> str:
    """The file of a seeded game (see the module docstring), played from the
    kernels; ``dice``: the dice variant's, played on the AEC face (the only
    face that has it)."""
    if dice:
        return render_file(env_id, variant, seed, True, *replay_dice(env_id, variant, seed, None))
    from boardenvs.position import Position

    game = make_game(env_id, **variant)
    pick = np.random.default_rng(seed)
    first, state, rolls = start_state(game, seed)
    events = []
    for before, outcomes, outcome in rolls:
        events.append(("chance", Position(game, before), outcomes, outcome))
    decisions = 0
    while state[E.H_STATUS] == E.PLAYING and decisions < MAX_DECISIONS:
        seat = int(state[E.H_CURRENT])
        mask = game.legal_mask(state)
        action = int(pick.choice(np.flatnonzero(mask)))
        events.append(("decision", Position(game, state), seat, mask, game.observe(state, seat), action))
        game.kernels.apply(state, game.params, action)
        decisions += 1
        for before, outcomes, outcome in settle(game, state):
            events.append(("chance", Position(game, before), outcomes, outcome))
    final = Position(game, state)
    playing = state[E.H_STATUS] == E.PLAYING
    events.append(
        (
            "end",
            final,
            playing,
            decisions,
            final.returns,
            final.end_reason,
            final.turn,
            {} if playing else game.end_infos(state),
        )
    )
    return render_file(env_id, variant, seed, False, first, events)


def render_file(env_id, variant, seed, dice, first, events) -> str:
    lines = header(env_id, variant, seed, dice, first)
    decisions = chances = 0
    for event in events:
        kind = event[0]
        if kind == "decision":
            decisions += 1
            lines += [""] + decision_block(decisions, *event[1:])
        elif kind == "chance":
            chances += 1
            lines += [""] + chance_block(chances, *event[1:])
        else:
            lines += [""] + end_block(*event[1:])
    return "\n".join(lines) + "\n"


# --- reading a file ---------------------------------------------------------------------------------------------


def parse(text: str) -> dict:
    """The header fields and the recorded actions of a file:
    ``{"game", "variant", "seed", "dice", "first", "actions": [(kind, action)]}``."""
    lines = text.split("\n")
    fields = {}
    for line in lines:
        if line.startswith("== "):
            break
        key, sep, value = line.partition(": ")
        if sep and not key.startswith("#"):
            fields[key] = value
    actions, current = [], None
    for line in lines:
        if line.startswith("== "):
            current = line.split()[1]
        elif line.startswith("action: ") and current == "decision":
            actions.append(("decision", int(line.split()[1])))
        elif line.startswith("outcome: ") and current == "chance":
            actions.append(("chance", int(line.split()[1])))
    variant = fields["variant"]
    return {
        "game": fields["game"],
        "variant": {} if variant == "default" else _variant(fields["game"], variant),
        "seed": int(fields["seed"]),
        "dice": fields["dice_variant"] == "yes",
        "actions": actions,
        "first": int(fields["first_seat"].removeprefix("player_")),
    }


def _variant(env_id, label) -> dict:
    for variant in game_class(env_id).variants:
        if variant_label(variant) == label:
            return dict(variant)
    raise ValueError(f"{env_id} declares no variant {label!r}")


# --- the faces replay a file ---------------------------------------------------------------------------------


def replay_position(env_id: str, variant: dict, seed: int, first: int, actions) -> str:
    """The file as ``Position`` shows the recorded game: every decision and
    chance outcome played with ``Position.play``."""
    from boardenvs.position import Position

    game = make_game(env_id, **variant)
    pos = Position(game, game.new_state(first))
    events = []
    decisions = 0
    for kind, action in actions:
        if kind == "chance":
            assert pos.is_chance, f"{env_id}: the file rolls {action}, Position is not at a chance node"
            outcomes = [(pos.move_to_action(m), p) for m, p in pos.chance_outcomes()]
            events.append(("chance", pos, outcomes, action))
        else:
            assert not pos.is_chance and not pos.is_terminal, f"{env_id}: the file decides, Position cannot"
            seat = pos.to_move
            events.append(("decision", pos, seat, pos.action_mask(), pos.observation(seat), action))
            decisions += 1
        pos = pos.play(action)
    playing = not pos.is_terminal
    events.append(
        (
            "end",
            pos,
            playing,
            decisions,
            pos.returns,
            pos.end_reason,
            pos.turn,
            {} if playing else pos.game.end_infos(pos.state),
        )
    )
    return render_file(env_id, variant, seed, False, first, events)


def _aec_options(env_id, variant, first) -> dict:
    """The AEC env's options for the seeded game: its first seat set."""
    game = make_game(env_id, **variant)
    options = dict(variant)
    if int(game.params[E.P_FIRST]) < 0:
        options["first_player"] = first
    if game.num_chance_outcomes:
        options["chance_agent"] = True
    return options


def replay_aec(env_id: str, variant: dict, seed: int, first: int, actions) -> str:
    """The file as the AEC env (``boardenvs.make``) shows the recorded game:
    its agent to act, observation and mask, the rewards it hands out and its
    end infos; positions through ``env.unwrapped.position()``."""
    env = boardenvs.make(env_id, **_aec_options(env_id, variant, first))
    env.reset(seed=seed)
    raw = env.unwrapped
    agents = list(raw.possible_agents)
    totals = {a: 0.0 for a in agents}
    events, decisions, ended = [], 0, {}
    for kind, action in actions:
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        assert not (term or trunc), f"{env_id}: the file plays {action}, but {agent} is done"
        pos = raw.position()
        if kind == "chance":
            assert agent == "chance", f"{env_id}: the file rolls, the AEC env asks {agent}"
            probs = obs["observation"]
            outcomes = [(int(a), float(probs[a])) for a in np.flatnonzero(obs["action_mask"])]
            events.append(("chance", pos, outcomes, action))
        else:
            seat = agents.index(agent)
            events.append(("decision", pos, seat, obs["action_mask"], obs["observation"], action))
            decisions += 1
        _finish_done(env, totals, ended, action)
    events.append(_aec_end(raw, totals, ended, decisions))
    return render_file(env_id, variant, seed, False, first, events)


def _aec_end(raw, totals, ended, decisions) -> tuple:
    """The end event of a game on the AEC env: its final position, each
    seat's rewards added up, the end infos of the agents that ended with
    the game."""
    pos = raw.position()
    playing = not pos.is_terminal
    infos = list(ended.values())[-1] if ended and not playing else {}  # those who ended with the game
    extra = {k: v for k, v in infos.items() if k not in ("end_reason", "length", "illegal_action")}
    returns = [totals[f"player_{s}"] for s in range(pos.game.num_players)]
    return ("end", pos, playing, decisions, returns, infos.get("end_reason", "-"), infos.get("length", pos.turn), extra)


def _finish_done(env, totals, ended, action) -> None:
    """Step ``action``, then the done agents out (their ``None`` steps),
    keeping their infos; every step's rewards add up in ``totals``."""
    env.step(action)
    for a in totals:
        totals[a] += env.rewards.get(a, 0.0)
    while env.agents:
        agent = env.agent_selection
        _, _, term, trunc, info = env.last(observe=False)
        if not (term or trunc):
            return
        if agent != "chance":
            ended[agent] = dict(info)
        env.step(None)
        for a in totals:
            totals[a] += env.rewards.get(a, 0.0)


def replay_vec(env_id: str, variant: dict, seed: int, first: int, actions) -> str:
    """The file as ``make_vec`` (one row, ``reset(seed)``) shows the recorded
    game: the decisions only, the chance outcomes rolled inside (so the
    file's chance blocks and final position are not part of it; see
    :func:`vec_view`)."""
    vec = boardenvs.make_vec(env_id, num_envs=1, **variant)
    obs, infos = vec.reset(seed=seed)
    events, decisions = [], 0
    end = None
    for kind, action in actions:
        if kind == "chance":
            continue
        assert end is None, f"{env_id}: the file plays on after make_vec's game ended"
        pos = vec.position(0)
        seat = int(infos["to_move"][0])
        events.append(("decision", pos, seat, obs["action_mask"][0].copy(), obs["observation"][0].copy(), action))
        decisions += 1
        obs, rewards, terms, truncs, infos = vec.step(np.array([action]))
        if terms[0] or truncs[0]:
            end = (rewards[0].tolist(), infos["end_reason"][0], int(infos["length"][0]))
    if end is None:
        events.append(("end", vec.position(0), True, decisions, None, None, None, {}))
    else:
        events.append(("end", vec.position(0), False, decisions, *end, {}))
    return render_file(env_id, variant, seed, False, first, events)


def vec_view(text: str) -> str:
    """What of a file ``make_vec`` shows: no chance block, and of an ended
    game's end block only its result (the row is dealt again as the game ends)."""
    out, block, keep = [], None, True
    for line in text.split("\n"):
        if line.startswith("== "):
            block = line.split()[1]
            keep = block != "chance"  # (its blank line after it goes with it)
        if not keep:
            continue
        if block == "end" and line.startswith("  | ") and "\nresult: " in text:
            continue
        if line.startswith("end_infos: "):
            continue
        out.append(line)
    return "\n".join(out)


def replay_dice(env_id: str, variant: dict, seed: int, actions) -> list:
    """The dice variant on the AEC env: the first seat and the events of the
    recorded game (``actions`` None: draw them, as :func:`record` does)."""
    from boardenvs.wrappers.dice import DiceVariant

    env = DiceVariant(boardenvs.make(env_id, **variant))
    env.reset(seed=seed)
    raw = env.unwrapped
    names = env.class_names
    pick = np.random.default_rng(seed)
    agents = list(raw.possible_agents)
    first = agents.index(env.agent_selection)
    totals = {a: 0.0 for a in agents}
    events, decisions, ended = [], 0, {}
    todo = None if actions is None else [a for kind, a in actions]
    while env.agents and (decisions < MAX_DECISIONS if todo is None else decisions < len(todo)):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        assert not (term or trunc)
        action = int(pick.choice(np.flatnonzero(obs["action_mask"]))) if todo is None else todo[decisions]
        roll = int(np.flatnonzero(obs["roll"])[0]) if obs["roll"].any() else -1
        events.append(
            (
                "decision",
                raw.position(),
                agents.index(agent),
                obs["action_mask"],
                obs["observation"],
                action,
                roll,
                names,
            )
        )
        decisions += 1
        _finish_done(env, totals, ended, action)
    events.append(_aec_end(raw, totals, ended, decisions))
    return first, events


def replay_dice_file(env_id, variant, seed, first, actions) -> str:
    """The dice variant's file as the AEC env shows the recorded game (its
    own generator seeds the first seat and the rolls: ``first`` is checked
    against the file's by the comparison)."""
    return render_file(env_id, variant, seed, True, *replay_dice(env_id, variant, seed, actions))


def register_test_games() -> None:
    """The tests' toy games, registered as the test suite registers them (conftest.py)."""
    sys.path.insert(0, str(Path(__file__).parent))
    import contract_game
    import tictactoe_game

    from boardenvs.registry import entry

    for cls in (contract_game.ContractRaceGame, tictactoe_game.TicTacToeGame):
        if entry(cls.env_id) is None:
            boardenvs.register(cls)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="name the files that differ; write nothing")
    parser.add_argument("names", nargs="*", help="only these files (names as in tests/playthroughs/)")
    args = parser.parse_args(argv)
    register_test_games()
    FOLDER.mkdir(exist_ok=True)
    wanted = set(args.names)
    stale = []
    for name, env_id, variant, dice in cases():
        if wanted and name not in wanted:
            continue
        text = record(env_id, variant, SEED, dice)
        path = FOLDER / name
        if not path.exists() or path.read_text() != text:
            stale.append(name)
            if not args.check:
                path.write_text(text)
        print(("differs: " if args.check and name in stale else "wrote: " if name in stale else "same: ") + name)
    known = {name for name, *_ in cases()}
    for path in sorted(FOLDER.glob("*.txt")):
        if path.name not in known:
            print(f"no registered variant: {path.name}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
