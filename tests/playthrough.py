"""Golden playthroughs (OpenSpiel's ``integration_tests/playthroughs`` are the
model): one text file per registered id and variant, one per dice variant,
and one per ``illegal_action`` mode of the AEC env, each recording a seeded
game decision by decision, to its end.  A rules or behaviour change shows
up as a reviewed diff of these files.

    python tests/playthrough.py            # rewrite every file (``make playthroughs``)
    python tests/playthrough.py --check    # say which files differ, rewrite nothing

A file holds the game's options (``file_options``: what the file adds to
its variant, a ``max_turns`` low enough that its game ends; ``policy``: how
its actions were chosen), then one block per decision: the position text,
the seat to act, the legal actions (ids and notation), the observation (a
digest; in the first :data:`FULL_OBSERVATIONS` decisions also every value,
one line per row, a plane at a time), the action taken, and each seat it
took out of a game that goes on (``eliminated: player_2 -1``, with the
seat's return); one block per chance outcome (the outcomes with their
probabilities, the one rolled, the seats it took out); and the end (the
final position, each seat's return, the end reason and the length).  Every
game ends: by its rules, by its ``max_turns`` (end reason ``max_turns``),
or by an illegal action.

**The seeded game.**  ``seed`` fixes it as ``make_vec(id, 1).reset(seed)``
deals it: the row's generator is ``SeedSequence(seed)``'s first word, the
first seat and every die come from that generator (the engine's seeded
die).  The actions follow the file's policy, which draws from
``numpy.random.default_rng(seed)``:

* ``uniform``: uniformly among the legal actions;
* ``greedy``: the reference ``"greedy"`` opponent's decision (one ply on
  the game's heuristic, :mod:`boardenvs.baselines.greedy`; its ties drawn
  from that generator), for every seat.  Hex Quoridor's files with
  eliminations (3, 4 and 6 players without teams, HQ-9) and Tryasina's
  with two players (a game that ends by its rules, TR-15) play it.

:func:`record` plays it from the kernels, rolling the die as the engine
does (``Game.draw_chance``).

**The dice variant and the illegal actions** exist on the AEC face: their
files (``<id>[dice].txt``; ``<id>[<variant>][illegal=<mode>].txt``) are
recorded and replayed there, ``env.reset(seed)`` dealing the game (the AEC
env's own generator: its first seat, the dice variant's rolls, the legal
action ``illegal_action="random"`` plays), the actions drawn uniformly by
``default_rng(seed)``.  In an illegal-action file the agent to act sends,
at decision :data:`ILLEGAL_AT`, the lowest action id its mask rules out,
under ``illegal_action=<mode>``; the block says what was sent and what the
env did: ``lose``: the sender forfeits (the end follows), ``raise``: an
IllegalActionError and nothing changed (the block's action follows), or
``random``: a random legal action played instead.

**The faces** replay the file's actions and write the file again from what
they show (``tests/test_playthroughs.py`` compares line by line); a face
that shows less is compared with the file's lines it can show
(:func:`view`):

* ``Position``: every decision and chance outcome through ``play``;
* the AEC env (``boardenvs.make``; with ``chance_agent=True`` where the game
  has chance nodes, so each recorded outcome is stepped as the ``"chance"``
  agent's action), its first seat set by the ``first_player`` option; the
  eliminations are its agents' ends (``end_reason`` ``"eliminated"``);
* ``make_vec`` (one row, ``reset(seed)``): the decisions only; chance is
  rolled inside by the row's own generator and must give the recorded
  outcomes.  It shows no chance node, no final position (the row is dealt
  again as the game ends) and no end infos;
* the gymnasium view (``gymnasium.make("boardenvs/<Name>-v<N>")``, one row
  dealt by ``reset(seed)`` as ``make_vec``'s): the learner plays the seat of
  the file's last decision (it is in the game to its end), every other seat
  is a :class:`Replaying` opponent that plays the file's actions and shows
  the decisions it is asked (the position, its mask and observation in the
  opponent protocol's :class:`~boardenvs.opponents.Batch`).  It shows no
  chance node, no end infos, and of the result the learner's return only;
* the RLlib multi-agent env (``boardenvs.rllib.BoardMultiAgentEnv``, in the
  environment with Ray): its first seat set by ``first_player``, and its
  row's generator the recorded deal's (its reset draws the generator's
  word from ``env.np_random``: :class:`Dealt` hands it the word
  ``make_vec``'s row had at the deal), so its seeded die rolls the file's
  outcomes inside.  It shows no chance node; the eliminations are its
  agents' terminations;
* the TorchRL env (``boardenvs.torchrl.BoardEnv``, ``seat="all"``:
  self-play over ``make_vec``, ``set_seed(seed)``): the seat to act
  (``"turn"``), the mask and the observation of every decision, each
  agent's rewards; no position, notation, chance node, elimination or end
  reason.

The dice variant of a deterministic game (:class:`DiceVariant`) and the
illegal actions are replayed on the AEC face (and the ``lose`` and
``raise`` files on ``make_vec`` too: its ``"random"`` draws from its own
row's generator, another action than the AEC env's).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import warnings
from pathlib import Path
from typing import NamedTuple

import numpy as np

import boardenvs
from boardenvs import engine as E
from boardenvs.errors import IllegalActionError
from boardenvs.opponents import Opponent
from boardenvs.registry import game_class, gym_id_of, make_game, registered_ids

FOLDER = Path(__file__).with_name("playthroughs")
SEED = 2026
FORMAT = "boardenvs playthrough 2"
FULL_OBSERVATIONS = 3  # the first decisions whose observation is written out in full
MAX_DECISIONS = 3000  # a game that goes on longer is a mistake in its file's limits (AssertionError)
ILLEGAL_AT = 3  # the decision at which an illegal-action file's agent sends an illegal action
ILLEGAL_MODES = ("lose", "raise", "random")
ILLEGAL_GAME = ("quagmire_v0", {"radius": 2})  # the game of the illegal-action files

# what a file adds to its variant (a limit low enough that its game ends, and keeps the file
# short) and its policy; the files not named here: no options added, policy "uniform"
SETTINGS = {
    ("hex_quoridor_v1", "num_players=2"): ({"max_turns": 100}, "uniform"),
    ("hex_quoridor_v1", "num_players=3"): ({"max_turns": 100}, "greedy"),
    ("hex_quoridor_v1", "num_players=4"): ({"max_turns": 100}, "greedy"),
    ("hex_quoridor_v1", "num_players=6"): ({"max_turns": 100}, "greedy"),
    ("hex_quoridor_v1", "num_players=4-teams=2v2"): ({"max_turns": 100}, "uniform"),
    ("hex_quoridor_v1", "num_players=6-teams=3x2"): ({"max_turns": 100}, "uniform"),
    ("hex_quoridor_v1", "num_players=6-teams=2x3"): ({"max_turns": 100}, "uniform"),
    ("hex_quoridor_v1", "dice"): ({"max_turns": 100}, "uniform"),
    ("quess_v0", "default"): ({"max_turns": 150}, "uniform"),
    ("quicksand_v0", "default"): ({"max_turns": 60}, "uniform"),
    ("quicksand_v0", "dice"): ({"max_turns": 60}, "uniform"),
    ("tryasina_v0", "num_players=2"): ({}, "greedy"),
    ("tryasina_v0", "num_players=3"): ({"max_turns": 60}, "uniform"),
    ("tryasina_v0", "num_players=4"): ({"max_turns": 60}, "uniform"),
}

# a file's own seed where SEED's game would not show what the set must cover (an elimination, HQ-9)
SEEDS = {
    ("hex_quoridor_v1", "num_players=4"): 2038,
    ("hex_quoridor_v1", "num_players=6"): 2027,
}


# --- which files ----------------------------------------------------------------------------------------------


class Case(NamedTuple):
    """One golden file: its name, the game (id, registered variant, the
    file's own options on top), its policy, and whether it is the dice
    variant's or an illegal-action file's (the mode)."""

    name: str
    env_id: str
    variant: dict
    options: dict
    policy: str
    dice: bool = False
    illegal: str | None = None
    seed: int = SEED

    @property
    def aec_recorded(self) -> bool:
        """Recorded and replayed on the AEC face only (see the module docstring)."""
        return self.dice or self.illegal is not None

    @property
    def game_options(self) -> dict:
        """The options the file's game is played with: the variant's and the file's own."""
        return {**self.variant, **self.options}


def variant_label(variant: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in variant.items()) or "default"


def _case(env_id: str, variant: dict, label: str, name: str, **kind) -> Case:
    options, policy = SETTINGS.get((env_id, label), ({}, "uniform"))
    seed = SEEDS.get((env_id, label), SEED) if not kind else SEED
    return Case(name, env_id, dict(variant), dict(options), policy, seed=seed, **kind)


def cases():
    """Every file the registry calls for (:class:`Case`)."""
    for env_id in registered_ids():
        cls = game_class(env_id)
        for variant in cls.variants:
            label = variant_label(variant)
            yield _case(env_id, variant, label, f"{env_id}[{label}].txt")
        if cls.action_class_names and not make_game(env_id).num_chance_outcomes:
            yield _case(env_id, {}, "dice", f"{env_id}[dice].txt", dice=True)
    env_id, variant = ILLEGAL_GAME
    label = variant_label(variant)
    for mode in ILLEGAL_MODES:
        yield _case(env_id, variant, label, f"{env_id}[{label}][illegal={mode}].txt", illegal=mode)


def case_named(name: str) -> Case:
    return next(c for c in cases() if c.name == name)


# --- the lines every face writes -----------------------------------------------------------------------------


def digest(array) -> str:
    """``shape dtype sha1`` of an array; arrays of at most 32 entries in full."""
    a = np.ascontiguousarray(array)
    shape = "x".join(map(str, a.shape))
    if a.size <= 32:
        return f"{shape} {a.dtype} [{' '.join(str(v) for v in a.ravel().tolist())}]"
    return f"{shape} {a.dtype} sha1:{hashlib.sha1(a.tobytes()).hexdigest()[:16]}"


def full_observation(array) -> list[str]:
    """Every value of an observation (one of more than 32 entries): a 2-D
    one row by row, a 3-D one plane by plane (its last axis holds the
    planes, :func:`boardenvs.spec.obs_bounds`), each plane row by row."""
    a = np.asarray(array)
    if a.ndim <= 2:
        return [f"  row {r}: " + " ".join(map(str, row)) for r, row in enumerate(a.reshape(-1, a.shape[-1]).tolist())]
    planes = a.reshape(-1, a.shape[-2], a.shape[-1])
    lines = []
    for p in range(a.shape[-1]):
        lines.append(f"  plane {p}:")
        lines += ["    " + " ".join(map(str, row)) for row in planes[:, :, p].tolist()]
    return lines


def seat_name(seat: int) -> str:
    return "chance" if seat == E.CHANCE else f"player_{seat}"


def _options_label(options: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in options.items()) or "-"


def header(case: Case, seed: int, first: int) -> list[str]:
    game = make_game(case.env_id, **case.game_options)
    return [
        f"# {FORMAT}: tests/playthrough.py wrote this file (make playthroughs); edit the rules, not this",
        f"game: {case.env_id}",
        f"variant: {variant_label(case.variant)}",
        f"file_options: {_options_label(case.options)}",
        f"options: {game.text_options()}",
        f"policy: {case.policy}",
        f"seed: {seed}",
        f"dice_variant: {'yes' if case.dice else 'no'}",
        f"illegal_action: {case.illegal or '-'}",
        f"first_seat: {seat_name(first)}",
        f"players: {game.num_players}",
        f"actions: {game.num_actions}",
        f"observation: {'x'.join(map(str, game.obs_shape))} int8",
    ]


def position_lines(pos) -> list[str]:
    return ["  | " + line for line in pos.to_text().rstrip("\n").split("\n")]


def _named(pos, action: int) -> str:
    """``action`` and its notation where the face shows a position (``pos``), else the id alone."""
    return str(action) if pos is None else f"{action} {pos.action_to_move(action)}"


def decision(pos, seat, mask, obs, action, **extra) -> dict:
    """A decision event: ``pos`` (a Position, or None where the face shows
    none) before it, the seat to act, its mask and observation, the action
    (None: an illegal one the env replaced or ended the game on).  ``extra``:
    ``roll`` (the dice variant's: ``(roll, names)``), ``illegal`` (``(sent,
    why, what the env did)``), ``eliminated`` (``[(seat, return)]`` the
    face saw leave; None: read off the positions, :func:`render_file`)."""
    return {"kind": "decision", "pos": pos, "seat": seat, "mask": mask, "obs": obs, "action": action, **extra}


def chance(pos, outcomes, outcome, eliminated=None) -> dict:
    return {"kind": "chance", "pos": pos, "outcomes": outcomes, "outcome": outcome, "eliminated": eliminated}


def end(pos, returns, reason, length, infos) -> dict:
    """The end event: the final position (None where the face shows none),
    each seat's return (None for a seat the face does not see), the end
    reason and length (None where the face does not say), the end infos."""
    return {"kind": "end", "pos": pos, "returns": returns, "reason": reason, "length": length, "infos": infos}


def decision_block(k: int, game, ev: dict) -> list[str]:
    pos, mask = ev["pos"], np.asarray(ev["mask"])
    ids = [int(a) for a in np.flatnonzero(mask)]
    assert all(a < game.num_actions for a in ids), f"a decision's mask allows a chance outcome's id: {ids}"
    lines = [f"== decision {k}", *(position_lines(pos) if pos is not None else []), f"to_move: {seat_name(ev['seat'])}"]
    if ev.get("roll") is not None:
        roll, names = ev["roll"]
        lines.append(f"roll: {names[roll] if roll >= 0 else '-'}")
    lines += [
        f"mask: {len(ids)} of {game.num_actions} legal",
        "legal: " + "; ".join(_named(pos, a).replace(" ", "=", 1) for a in ids),
        f"observation: {digest(ev['obs'])}",
    ]
    if k <= FULL_OBSERVATIONS and np.asarray(ev["obs"]).size > 32:
        lines += full_observation(ev["obs"])
    if ev.get("illegal") is not None:
        sent, why, did = ev["illegal"]
        lines += [f"sent: {sent} ({why})", did]
    if ev["action"] is not None:
        lines.append(f"action: {_named(pos, ev['action'])}")
    return lines


def chance_block(k: int, ev: dict) -> list[str]:
    pos = ev["pos"]
    return [
        f"== chance {k}",
        *position_lines(pos),
        "outcomes: " + "; ".join(f"{a}={pos.action_to_move(a)}@{p:.4f}" for a, p in ev["outcomes"]),
        f"outcome: {_named(pos, ev['outcome'])}",
    ]


def end_block(ev: dict) -> list[str]:
    lines = ["== end", *(position_lines(ev["pos"]) if ev["pos"] is not None else [])]
    rets = " ".join("?" if r is None else f"{float(r):+.0f}" for r in ev["returns"])
    result = f"result: returns {rets}"
    if ev["reason"] is not None:
        result += f"; end_reason {ev['reason']}; length {ev['length']} turns"
    lines.append(result)
    if ev["infos"]:
        lines.append("end_infos: " + " ".join(f"{k}={_plain(v)}" for k, v in sorted(ev["infos"].items())))
    return lines


def _plain(value) -> str:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    return repr(value).replace(" ", "")


def _left(pos, after) -> list:
    """The seats in ``pos`` that are out of the game ``after`` shows going on
    (eliminated in between), with their returns there."""
    if pos is None or after is None or after.is_terminal:
        return []
    return [(s, after.returns[s]) for s in range(pos.game.num_players) if pos.alive(s) and not after.alive(s)]


def render_file(case: Case, seed: int, first: int, events: list) -> str:
    """The file of ``events`` (:func:`decision`, :func:`chance`, :func:`end`)
    as one face saw them; an event whose eliminations the face does not say
    itself (``eliminated`` None) has them read off its position and the
    next event's."""
    game = make_game(case.env_id, **case.game_options)
    lines = header(case, seed, first)
    decisions = chances = 0
    for i, ev in enumerate(events):
        kind = ev["kind"]
        if kind == "decision":
            decisions += 1
            lines += [""] + decision_block(decisions, game, ev)
        elif kind == "chance":
            chances += 1
            lines += [""] + chance_block(chances, ev)
        else:
            lines += [""] + end_block(ev)
            continue
        left = ev.get("eliminated")
        if left is None:
            left = _left(ev["pos"], events[i + 1]["pos"] if i + 1 < len(events) else None)
        lines += [f"eliminated: {seat_name(s)} {float(r):+.0f}" for s, r in left]
    return "\n".join(lines) + "\n"


def start_state(game, seed: int) -> tuple[int, np.ndarray, list, int]:
    """The first seat of the game ``make_vec``'s ``reset(seed)`` deals, its row
    at the first decision, the chance outcomes its deal rolled (``[(state
    before, outcomes, outcome), ...]``) and its generator's word as the deal
    began (after the first seat's draw): the row's generator seeded by
    ``SeedSequence(seed)``, the first seat drawn from it when the game's is
    random, a deal that chance alone ends dealt again (the engine's
    ``fresh_game``)."""
    state = np.zeros(game.state_size, np.int64)
    state[E.H_RNG] = np.random.SeedSequence(seed).generate_state(1, np.uint64).view(np.int64)[0]
    for _ in range(64):
        first = int(E.first_seat_of(state, game.params))
        word = int(state[E.H_RNG])
        game.kernels.init(state, game.params, first)
        rolls = settle(game, state)
        if state[E.H_STATUS] == E.PLAYING:
            return first, state, rolls, word
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


def chooser(policy: str, game, seed: int):
    """``choose(state, mask) -> action`` of the file's policy (see the module
    docstring), drawing from ``default_rng(seed)``."""
    pick = np.random.default_rng(seed)
    if policy == "uniform":
        return lambda state, mask: int(pick.choice(np.flatnonzero(mask)))
    if policy == "greedy":
        from boardenvs.opponents import Batch, decide, make_opponent

        greedy = make_opponent("greedy")
        return lambda state, mask: int(decide(greedy, Batch.of_states(game, state[None], pick))[0])
    raise ValueError(f"no policy {policy!r}")


def record(case: Case, seed: int | None = None) -> str:
    """The file of a seeded game (see the module docstring), played from the
    kernels; the dice variant's and an illegal-action file's on the AEC
    face (the only face that has them).  ``seed``: the case's own by default."""
    seed = case.seed if seed is None else seed
    if case.aec_recorded:
        return render_file(case, seed, *aec_recorded(case, seed, None))
    from boardenvs.position import Position

    game = make_game(case.env_id, **case.game_options)
    choose = chooser(case.policy, game, seed)
    first, state, rolls, _ = start_state(game, seed)
    events = [chance(Position(game, before), outcomes, outcome) for before, outcomes, outcome in rolls]
    while state[E.H_STATUS] == E.PLAYING:
        assert len(events) < 2 * MAX_DECISIONS, f"{case.name}: the game goes on after {MAX_DECISIONS} decisions"
        seat = int(state[E.H_CURRENT])
        mask = game.legal_mask(state)[: game.num_actions]
        action = choose(state, mask)
        events.append(decision(Position(game, state), seat, mask, game.observe(state, seat), action))
        game.kernels.apply(state, game.params, action)
        for before, outcomes, outcome in settle(game, state):
            events.append(chance(Position(game, before), outcomes, outcome))
    final = Position(game, state)
    events.append(end(final, final.returns, final.end_reason, final.turn, game.end_infos(state)))
    return render_file(case, seed, first, events)


# --- reading a file ---------------------------------------------------------------------------------------------


def parse(text: str) -> dict:
    """The header fields and the recorded actions of a file: ``{"game",
    "variant", "options", "policy", "seed", "dice", "illegal", "first",
    "actions"}``, the actions as ``[(kind, action)]``: ``"decision"``,
    ``"chance"`` (an outcome) or ``"illegal"`` (an id sent under the
    file's ``illegal_action`` mode)."""
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
        elif line.startswith("sent: ") and current == "decision":
            actions.append(("illegal", int(line.split()[1])))
        elif line.startswith("outcome: ") and current == "chance":
            actions.append(("chance", int(line.split()[1])))
    env_id, variant = fields["game"], fields["variant"]
    options = {} if fields["file_options"] == "-" else dict(item.split("=") for item in fields["file_options"].split())
    return {
        "game": env_id,
        "variant": {} if variant in ("default", "dice") else _variant(env_id, variant),
        "options": {k: int(v) for k, v in options.items()},
        "policy": fields["policy"],
        "seed": int(fields["seed"]),
        "dice": fields["dice_variant"] == "yes",
        "illegal": None if fields["illegal_action"] == "-" else fields["illegal_action"],
        "actions": actions,
        "first": int(fields["first_seat"].removeprefix("player_")),
    }


def _variant(env_id, label) -> dict:
    for variant in game_class(env_id).variants:
        if variant_label(variant) == label:
            return dict(variant)
    raise ValueError(f"{env_id} declares no variant {label!r}")


def view(
    text: str,
    *,
    chance: bool = True,
    positions: bool = True,
    final: bool = True,
    end_infos: bool = True,
    notation: bool = True,
    eliminated: bool = True,
    reason: bool = True,
    seat: int | None = None,
) -> str:
    """What of a file a face shows: without ``chance`` no chance block (the
    seats a roll took out are said after the decision before it, where a
    face that rolls inside sees them leave); without ``positions`` /
    ``final`` no position text in the decision blocks / the end block; no
    ``end_infos`` line; without ``notation`` the action ids alone; no
    ``eliminated`` lines; without ``reason`` the result's returns alone;
    with ``seat`` only that seat's return."""
    out, block, moved = [], None, []
    for line in text.split("\n"):
        if line.startswith("== "):
            block = line.split()[1]
            if not chance and block != "chance" and moved:  # (after the decision block's blank line)
                out[-1:-1] = moved
                moved = []
        if block == "chance" and not chance:
            if line.startswith("eliminated: ") and eliminated:
                moved.append(line)
            continue  # (its blank line after it goes with it)
        if line.startswith("  | ") and not (positions if block != "end" else final):
            continue
        if (line.startswith("end_infos: ") and not end_infos) or (line.startswith("eliminated: ") and not eliminated):
            continue
        if not notation and line.startswith("legal: "):
            line = "legal: " + "; ".join(item.split("=")[0] for item in line.removeprefix("legal: ").split("; "))
        if not notation and line.startswith(("action: ", "outcome: ")):
            line = " ".join(line.split()[:2])
        if line.startswith("result: "):
            returns, *rest = line.removeprefix("result: returns ").split("; ")
            if seat is not None:
                returns = " ".join(r if s == seat else "?" for s, r in enumerate(returns.split()))
            line = "; ".join([f"result: returns {returns}", *(rest if reason else [])])
        out.append(line)
    return "\n".join(out)


# --- the faces replay a file ---------------------------------------------------------------------------------


def replay_position(case: Case, seed: int, first: int, actions) -> str:
    """The file as ``Position`` shows the recorded game: every decision and
    chance outcome played with ``Position.play``."""
    from boardenvs.position import Position

    game = make_game(case.env_id, **case.game_options)
    pos = Position(game, game.new_state(first))
    events = []
    for kind, action in actions:
        if kind == "chance":
            assert pos.is_chance, f"{case.name}: the file rolls {action}, Position is not at a chance node"
            outcomes = [(pos.move_to_action(m), p) for m, p in pos.chance_outcomes()]
            events.append(chance(pos, outcomes, action))
        else:
            assert not pos.is_chance and not pos.is_terminal, f"{case.name}: the file decides, Position cannot"
            seat = pos.to_move
            events.append(decision(pos, seat, pos.action_mask(), pos.observation(seat), action))
        pos = pos.play(action)
    assert pos.is_terminal, f"{case.name}: the file's actions are over, the game Position shows goes on"
    events.append(end(pos, pos.returns, pos.end_reason, pos.turn, pos.game.end_infos(pos.state)))
    return render_file(case, seed, first, events)


def _aec_options(case: Case, first) -> dict:
    """The AEC env's options for the seeded game: its first seat set."""
    game = make_game(case.env_id, **case.game_options)
    options = dict(case.game_options)
    if int(game.params[E.P_FIRST]) < 0:
        options["first_player"] = first
    if game.num_chance_outcomes:
        options["chance_agent"] = True
    return options


def replay_aec(case: Case, seed: int, first: int, actions) -> str:
    """The file as the AEC env (``boardenvs.make``) shows the recorded game:
    its agent to act, observation and mask, the rewards it hands out, the
    agents it ends (eliminated, or with the game) and their end infos;
    positions through ``env.unwrapped.position()``."""
    env = boardenvs.make(case.env_id, **_aec_options(case, first))
    env.reset(seed=seed)
    raw = env.unwrapped
    agents = list(raw.possible_agents)
    totals = {a: 0.0 for a in agents}
    events, ended = [], {}
    for kind, action in actions:
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        assert not (term or trunc), f"{case.name}: the file plays {action}, but {agent} is done"
        pos = raw.position()
        if kind == "chance":
            assert agent == "chance", f"{case.name}: the file rolls, the AEC env asks {agent}"
            probs = obs["observation"]
            outcomes = [(int(a), float(probs[a])) for a in np.flatnonzero(obs["action_mask"])]
            events.append(chance(pos, outcomes, action))
        else:
            seat = agents.index(agent)
            events.append(decision(pos, seat, obs["action_mask"], obs["observation"], action))
        events[-1]["eliminated"] = _finish_done(env, totals, ended, action)
    events.append(_aec_end(raw, totals, ended))
    return render_file(case, seed, first, events)


def _aec_end(raw, totals, ended) -> dict:
    """The end event of a game on the AEC env: its final position, each
    seat's rewards added up, the end infos of the agents that ended with
    the game."""
    pos = raw.position()
    assert pos.is_terminal, "the file's actions are over, the game the AEC env shows goes on"
    infos = list(ended.values())[-1]  # those who ended with the game
    extra = {k: v for k, v in infos.items() if k not in ("end_reason", "length", "illegal_action", "action_mask")}
    returns = [totals[f"player_{s}"] for s in range(pos.game.num_players)]
    return end(pos, returns, infos["end_reason"], infos["length"], extra)


def _finish_done(env, totals, ended, action) -> list:
    """Step ``action``, then the done agents out (their ``None`` steps),
    keeping their infos; every step's rewards add up in ``totals``.  Returns
    the agents eliminated (out of a game that goes on) as ``[(seat, return)]``."""
    env.step(action)
    return _dead_steps(env, totals, ended)


def _dead_steps(env, totals, ended) -> list:
    for a in totals:
        totals[a] += env.rewards.get(a, 0.0)
    left = []
    while env.agents:
        agent = env.agent_selection
        _, _, term, trunc, info = env.last(observe=False)
        if not (term or trunc):
            break
        if agent != "chance":
            ended[agent] = dict(info)
            if info.get("end_reason") == "eliminated":
                left.append(agent)
        env.step(None)
        for a in totals:
            totals[a] += env.rewards.get(a, 0.0)
    return [(int(a.removeprefix("player_")), totals[a]) for a in left]


def replay_vec(case: Case, seed: int, first: int, actions, device: str = "cpu") -> str:
    """The file as ``make_vec`` (one row, ``reset(seed)``) shows the recorded
    game: the decisions only, the chance outcomes rolled inside (see
    :func:`vec_view`); an illegal-action file's ``lose`` or ``raise`` under
    that mode (``random`` draws another action there).  ``device="cuda"``:
    the device face (``lose`` files only: it has no ``raise``), its arrays
    read back to the host."""
    assert case.illegal != "random", "make_vec's illegal_action='random' draws from its own row's generator"
    mode = case.illegal or ("raise" if device == "cpu" else "lose")
    vec = boardenvs.make_vec(case.env_id, num_envs=1, illegal_action=mode, device=device, **case.game_options)
    obs, infos = _host(vec.reset(seed=seed))
    events, done, refused = [], None, None
    for kind, action in actions:
        if kind == "chance":
            continue
        assert done is None, f"{case.name}: the file plays on after make_vec's game ended"
        if refused is None:
            pos, mask = vec.position(0), obs["action_mask"][0].copy()
            events.append(decision(pos, int(infos["to_move"][0]), mask, obs["observation"][0].copy(), None))
        ev, refused = events[-1], None
        if kind == "illegal":
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # (the one warning of an illegal action)
                    obs, rewards, terms, truncs, infos = _host(vec.step(np.array([action])))
            except IllegalActionError:
                ev["illegal"], refused = (action, _why(mask, action), _refused(vec.position(0) == pos)), ev
                continue
            who = seat_name(ev["seat"])
            did = f"illegal_action=lose: {who} forfeits; infos illegal_action {infos['illegal_action'][0]}"
            ev["illegal"] = (action, _why(mask, action), did)
        else:
            ev["action"] = action
            obs, rewards, terms, truncs, infos = _host(vec.step(np.array([action])))
        if terms[0] or truncs[0]:
            # (the device face's infos hold the codes; the CPU's the names too)
            reason = (
                infos["end_reason"][0] if "end_reason" in infos else vec.reason_name(int(infos["end_reason_code"][0]))
            )
            done = (rewards[0].tolist(), reason, int(infos["length"][0]))
    assert done is not None, f"{case.name}: the file's actions are over, make_vec's game goes on"
    events.append(end(vec.position(0), *done, {}))
    return render_file(case, seed, first, events)


def _host(value):
    """``value`` with every device array (``make_vec(device="cuda")``'s) read back to the host."""
    if isinstance(value, tuple):
        return tuple(_host(v) for v in value)
    if isinstance(value, dict):
        return {k: _host(v) for k, v in value.items()}
    return value.copy_to_host() if hasattr(value, "copy_to_host") else value


def vec_view(text: str) -> str:
    """What of a file ``make_vec`` shows: no chance block, no final position
    (the row is dealt again as the game ends), no end infos."""
    return view(text, chance=False, final=False, end_infos=False)


def _why(mask, action) -> str:
    return "masked out" if 0 <= action < len(mask) else f"outside 0..{len(mask) - 1}"


def _refused(same: bool) -> str:
    return "illegal_action=raise: IllegalActionError, " + ("nothing changed" if same else "BUT THE GAME CHANGED")


def aec_recorded(case: Case, seed: int, actions) -> tuple:
    """The dice variant's or an illegal-action file's game on the AEC env:
    the first seat and the events (``actions`` None: drawn as the module
    docstring says; else the file's, replayed)."""
    env = boardenvs.make(case.env_id, **case.game_options, illegal_action=case.illegal or "raise")
    names = ()
    if case.dice:
        from boardenvs.wrappers.dice import DiceVariant

        env = DiceVariant(env)
        names = env.class_names
    env.reset(seed=seed)
    raw = env.unwrapped
    pick = np.random.default_rng(seed)
    agents = list(raw.possible_agents)
    first = agents.index(env.agent_selection)
    totals = {a: 0.0 for a in agents}
    events, ended = [], {}
    todo = None if actions is None else list(actions)
    while env.agents and (todo is None or todo):
        assert len(events) < MAX_DECISIONS, f"{case.name}: the game goes on after {MAX_DECISIONS} decisions"
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        assert not (term or trunc)
        mask = obs["action_mask"]
        ev = decision(raw.position(), agents.index(agent), mask, obs["observation"], None)
        if case.dice:
            ev["roll"] = (int(np.flatnonzero(obs["roll"])[0]) if obs["roll"].any() else -1, names)
        events.append(ev)
        if todo is None:
            sent = int(np.flatnonzero(mask == 0)[0]) if case.illegal and len(events) == ILLEGAL_AT else None
        else:
            sent = todo.pop(0)[1] if todo[0][0] == "illegal" else None
        if sent is not None:
            before = raw.position()
            ev["illegal"] = (sent, _why(mask, sent), None)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # (the one warning of an illegal action)
                try:
                    env.step(sent)
                except IllegalActionError:
                    ev["illegal"] = (sent, ev["illegal"][1], _refused(raw.position() == before))
                else:
                    note = env.infos[agent].get("illegal_action")
                    if case.illegal == "random":
                        did = f"illegal_action=random: {_named(before, raw.position().last_action)} played instead"
                    else:
                        did = f"illegal_action=lose: {agent} forfeits"
                    ev["illegal"] = (sent, ev["illegal"][1], did + f"; infos illegal_action {note}")
                    ev["eliminated"] = _dead_steps(env, totals, ended)
                    continue
        if todo is None:
            action = int(pick.choice(np.flatnonzero(mask)))
        else:
            kind, action = todo.pop(0)
            assert kind == "decision", f"{case.name}: the file's {kind} where the AEC env asks {agent}"
        ev["action"] = action
        ev["eliminated"] = _finish_done(env, totals, ended, action)
    events.append(_aec_end(raw, totals, ended))
    return first, events


def replay_aec_recorded(case: Case, seed: int, first: int, actions) -> str:
    """The dice variant's or an illegal-action file as the AEC env shows the
    recorded game (its own generator seeds the first seat, the rolls and
    ``"random"``'s action: ``first`` is checked against the file's by the
    comparison)."""
    return render_file(case, seed, *aec_recorded(case, seed, actions))


class Replaying(Opponent):
    """An opponent that plays the file's decisions in order (``todo``, an
    iterator shared with the learner's side) and writes each decision it is
    asked into ``events`` as the opponent protocol shows it: the position
    of ``batch.states``, the seat, mask and observation."""

    name = "replaying"

    def __init__(self, todo, events):
        self.todo, self.events = todo, events

    def act(self, batch) -> np.ndarray:
        from boardenvs.position import Position

        assert len(batch) == 1
        action = next(self.todo)
        pos = Position(batch.game, batch.states[0])
        seat = int(batch.seats[0])
        self.events.append(decision(pos, seat, batch.masks[0], batch.observations[0], action))
        return np.array([action], np.int64)


def learner_seat(case: Case, first: int, actions) -> int:
    """The seat the gymnasium view's learner plays: the file's last decision's
    (read off the file by :func:`replay_position`'s positions)."""
    from boardenvs.position import Position

    game = make_game(case.env_id, **case.game_options)
    pos, seat = Position(game, game.new_state(first)), None
    for kind, action in actions:
        if kind == "decision":
            seat = pos.to_move
        pos = pos.play(action)
    return seat


def replay_gym(case: Case, seed: int, first: int, actions) -> str:
    """The file as the gymnasium view shows the recorded game (see the
    module docstring: the learner plays :func:`learner_seat`, a
    :class:`Replaying` opponent the others)."""
    import gymnasium

    seat = learner_seat(case, first, actions)
    todo = iter([a for kind, a in actions if kind == "decision"])
    events = []
    env = gymnasium.make(
        gym_id_of(game_class(case.env_id)),
        opponent=Replaying(todo, events),
        seat=seat,
        flatten=False,
        illegal_action="raise",
        **case.game_options,
    )
    obs, info = env.reset(seed=seed)
    view_env = env.unwrapped
    while True:
        assert info["seat"] == seat
        action = next(todo, None)
        assert action is not None, f"{case.name}: the file's actions are over, the gymnasium view's game goes on"
        events.append(decision(view_env.position(), seat, info["action_mask"], obs, action))
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    assert next(todo, None) is None, f"{case.name}: the file plays on after the gymnasium view's game ended"
    game = view_env.game
    returns = [reward if s == seat else None for s in range(game.num_players)]
    events.append(end(view_env.position(), returns, info["end_reason"], info["length"], {}))
    env.close()
    return render_file(case, seed, first, events)


def gym_view(text: str, seat: int) -> str:
    """What of a file the gymnasium view shows: no chance block, no end
    infos, the learner's return only."""
    return view(text, chance=False, end_infos=False, seat=seat)


class Dealt:
    """What the RLlib env's ``reset`` draws its row's generator word from
    (``env.np_random.integers``): the words given, in order."""

    def __init__(self, *words):
        self.words = list(words)

    def integers(self, high):
        return self.words.pop(0)


def replay_rllib(case: Case, seed: int, first: int, actions) -> str:
    """The file as RLlib's multi-agent env shows the recorded game: the agent
    to act and its observation and mask, the rewards, the agents it ends
    (eliminated: terminated while the game goes on) and their infos;
    positions through ``env.position()``."""
    from boardenvs.rllib import BoardMultiAgentEnv

    game = make_game(case.env_id, **case.game_options)
    config = {"env_id": case.env_id, **case.game_options, "flatten": False, "illegal_action": "raise"}
    if int(game.params[E.P_FIRST]) < 0:
        config["first_player"] = first
    env = BoardMultiAgentEnv(config)
    env.np_random = Dealt(start_state(game, seed)[3])  # the recorded deal's generator: its die rolls the file's
    obs, infos = env.reset()
    agents = list(env.possible_agents)
    totals = {a: 0.0 for a in agents}
    events, last = [], None
    for kind, action in actions:
        if kind == "chance":
            continue
        assert last is None, f"{case.name}: the file plays on after the RLlib env's game ended"
        (agent,) = obs
        events.append(
            decision(env.position(), agents.index(agent), obs[agent]["action_mask"], obs[agent]["observations"], action)
        )
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        for a, r in rewards.items():
            totals[a] += r
        over = terms["__all__"] or truncs["__all__"]
        events[-1]["eliminated"] = [] if over else [(agents.index(a), totals[a]) for a in terms if a != "__all__"]
        if over:
            last = next(infos[a] for a in agents if a in terms or a in truncs)
    assert last is not None, f"{case.name}: the file's actions are over, the RLlib env's game goes on"
    extra = {k: v for k, v in last.items() if k not in ("end_reason", "length", "illegal_action")}
    events.append(end(env.position(), [totals[a] for a in agents], last["end_reason"], last["length"], extra))
    return render_file(case, seed, first, events)


def rllib_view(text: str) -> str:
    """What of a file RLlib's multi-agent env shows: no chance block."""
    return view(text, chance=False)


def replay_torchrl(case: Case, seed: int, first: int, actions) -> str:
    """The file as the TorchRL env (``seat="all"``: self-play over
    ``make_vec``) shows the recorded game: the seat to act, mask and
    observation of each decision, each agent's rewards added up."""
    import torch

    from boardenvs.torchrl import BoardEnv

    env = BoardEnv(case.env_id, num_envs=1, seat="all", flatten=False, illegal_action="raise", **case.game_options)
    env.set_seed(seed)
    td = env.reset()
    totals = np.zeros(len(env.agents))
    events, done = [], False
    for kind, action in actions:
        if kind == "chance":
            continue
        assert not done, f"{case.name}: the file plays on after the TorchRL env's game ended"
        seat = int(td["turn"][0, 0])
        events.append(decision(None, seat, td["action_mask"][0].numpy(), td["observation"][0].numpy(), action))
        td.set("action", torch.tensor([action]))
        td = env.step(td)["next"]
        totals += [float(td[agent, "reward"][0, 0]) for agent in env.agents]
        done = bool(td["done"][0, 0])
    assert done, f"{case.name}: the file's actions are over, the TorchRL env's game goes on"
    events.append(end(None, totals.tolist(), None, None, {}))
    env.close()
    return render_file(case, seed, first, events)


def torchrl_view(text: str) -> str:
    """What of a file the TorchRL env shows: the seats to act, masks,
    observations, action ids and the returns."""
    return view(
        text,
        chance=False,
        positions=False,
        final=False,
        end_infos=False,
        notation=False,
        eliminated=False,
        reason=False,
    )


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
    for case in cases():
        name = case.name
        if wanted and name not in wanted:
            continue
        text = record(case)
        path = FOLDER / name
        if not path.exists() or path.read_text() != text:
            stale.append(name)
            if not args.check:
                path.write_text(text)
        print(("differs: " if args.check and name in stale else "wrote: " if name in stale else "same: ") + name)
    known = {case.name for case in cases()}
    for path in sorted(FOLDER.glob("*.txt")):
        if path.name not in known:
            print(f"no registered variant: {path.name}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
