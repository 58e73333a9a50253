"""Golden playthroughs (tests/playthrough.py, files in tests/playthroughs/):
every registered id and variant, every dice variant and every
``illegal_action`` mode has a file; each game runs to its end; each face
that can play the file's game writes it again, line for line (a face that
shows less: the lines it can show).

A rules or behaviour change fails here first: rewrite the files with
``make playthroughs`` and review their diff.
"""

from __future__ import annotations

import difflib
import importlib.util
import re

import playthrough as P
import pytest

CASES = [pytest.param(case, id=case.name.removesuffix(".txt")) for case in P.cases()]
PLAIN = [pytest.param(case, id=case.name.removesuffix(".txt")) for case in P.cases() if not case.aec_recorded]


def _same(expected: str, got: str, what: str) -> None:
    if expected != got:
        diff = "".join(
            list(difflib.unified_diff(expected.splitlines(True), got.splitlines(True), "file", what, n=2))[:60]
        )
        pytest.fail(f"{what} differs from the golden file (make playthroughs rewrites it; review the diff):\n{diff}")


def _file(name: str) -> str:
    path = P.FOLDER / name
    assert path.is_file(), f"no golden playthrough {path.name}: run `make playthroughs` and commit it"
    return path.read_text()


def _args(case, text: str) -> tuple:
    """The replay's arguments, once the file's header is the case's."""
    meta = P.parse(text)
    assert (meta["game"], meta["variant"], meta["options"], meta["policy"]) == (
        case.env_id,
        case.variant,
        case.options,
        case.policy,
    )
    assert (meta["dice"], meta["illegal"]) == (case.dice, case.illegal)
    assert any(kind == "decision" for kind, _ in meta["actions"])
    return case, meta["seed"], meta["first"], meta["actions"]


def test_every_file_is_a_registered_variant():
    """A file whose id or variant is no longer registered is stale (renamed
    or removed variants leave none behind)."""
    known = {case.name for case in P.cases()}
    stray = sorted(p.name for p in P.FOLDER.glob("*.txt") if p.name not in known)
    assert not stray, f"golden playthroughs of no registered variant: {stray}"
    assert len(known) >= 32  # 22 variants of the five games, 4 dice variants, the tests' 7, 3 illegal actions


def test_every_game_ends_and_the_set_covers_the_endings():
    """Every file's game ends (no file stops part-way); among them: a seat
    eliminated in Hex Quoridor with 3, 4 and 6 players (HQ-9), Tryasina
    ended by its rules (TR-15) and by ``max_turns`` (TR-16), and one
    illegal action under each ``illegal_action`` mode of the AEC env."""
    texts = {case.name: _file(case.name) for case in P.cases()}
    results = {name: re.search(r"^result: .*end_reason (\w+)", text, re.M) for name, text in texts.items()}
    assert all(results.values()), f"files that do not end: {[n for n, r in results.items() if not r]}"
    for players in (3, 4, 6):
        assert "\neliminated: player_" in texts[f"hex_quoridor_v1[num_players={players}].txt"], players
    tryasina = {r.group(1) for name, r in results.items() if name.startswith("tryasina_v0")}
    assert tryasina == {"all_home", "max_turns"}, tryasina
    env_id, variant = P.ILLEGAL_GAME
    for mode, reason in (("lose", "illegal_action"), ("raise", None), ("random", None)):
        text = texts[f"{env_id}[{P.variant_label(variant)}][illegal={mode}].txt"]
        assert f"\nillegal_action={mode}: " in text and "\nsent: " in text, mode
        assert reason is None or results[f"{env_id}[{P.variant_label(variant)}][illegal={mode}].txt"].group(1) == reason


@pytest.mark.parametrize("case", CASES)
def test_recording_gives_the_file(case):
    """The seeded game played from the kernels (and, for a dice variant or
    an illegal action, on the AEC env) is the recorded one."""
    _same(_file(case.name), P.record(case), f"record({case.name})")


@pytest.mark.parametrize("case", CASES)
def test_faces_replay_the_file(case):
    """Position, the AEC env and make_vec, each replaying the file's actions,
    show what the file says: positions, seat to act, legal actions and
    their notation, observations, the rolls, the eliminations, the end and
    the returns (the dice variant and the illegal actions: the AEC env,
    and make_vec the ``lose`` and ``raise`` files)."""
    text = _file(case.name)
    args = _args(case, text)
    if case.aec_recorded:
        _same(text, P.replay_aec_recorded(*args), "the AEC env")
        if case.illegal in ("lose", "raise"):
            _same(P.vec_view(text), P.vec_view(P.replay_vec(*args)), "make_vec")
        return
    _same(text, P.replay_position(*args), "Position")
    _same(text, P.replay_aec(*args), "the AEC env")
    _same(P.vec_view(text), P.vec_view(P.replay_vec(*args)), "make_vec")


@pytest.mark.parametrize("case", PLAIN)
def test_the_gymnasium_view_replays_the_file(case):
    """The gymnasium view (the learner in the seat of the file's last
    decision, every other seat replayed by an opponent) shows what the
    file says: positions, masks, observations, eliminations, the learner's
    return and the end."""
    text = _file(case.name)
    args = _args(case, text)
    seat = P.learner_seat(case, args[2], args[3])
    _same(P.gym_view(text, seat), P.gym_view(P.replay_gym(*args), seat), "the gymnasium view")


@pytest.mark.parametrize("case", PLAIN)
def test_the_torchrl_env_replays_the_file(case):
    """The TorchRL env in self-play (``seat="all"``) shows what the file says
    of each decision (the seat to act, mask, observation) and the returns."""
    pytest.importorskip("torchrl")  # (the interop extra; the main environment has it)
    text = _file(case.name)
    _same(P.torchrl_view(text), P.torchrl_view(P.replay_torchrl(*_args(case, text))), "the TorchRL env")


if importlib.util.find_spec("ray"):  # the rllib extra's environment (.venv-rllib), as test_rllib.py

    @pytest.mark.parametrize("case", PLAIN)
    def test_the_rllib_env_replays_the_file(case):
        """RLlib's multi-agent env (its row dealt as the file's) shows what the
        file says: positions, masks, observations, eliminations, rewards, the
        end and its infos."""
        text = _file(case.name)
        _same(P.rllib_view(text), P.rllib_view(P.replay_rllib(*_args(case, text))), "the RLlib env")


def test_a_changed_file_fails_the_comparison():
    """The comparison is not blind: a file with one observation digest
    changed, or one die roll changed, is not what the faces replay."""
    case = next(c for c in P.cases() if c.env_id == "tryasina_v0")
    text = _file(case.name)
    meta = P.parse(text)
    args = (case, meta["seed"], meta["first"])
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("observation: ") and "sha1:" in line)
    digest = lines[k].rsplit(":", 1)[1]
    lines[k] = lines[k][: -len(digest)] + ("0" if digest[0] != "0" else "1") + digest[1:]
    tampered = "\n".join(lines)
    assert P.replay_position(*args, P.parse(tampered)["actions"]) != tampered
    assert P.vec_view(P.replay_vec(*args, meta["actions"])) != P.vec_view(tampered)
    # one value of a fully written observation changed
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("  row 0: "))
    lines[k] = lines[k][:-1] + ("1" if lines[k][-1] == "0" else "0")
    assert P.replay_position(*args, meta["actions"]) != "\n".join(lines)
    # a roll changed to another possible outcome: the game that follows is not the file's
    k = next(i for i, line in enumerate(text.split("\n")) if line.startswith("outcome: "))
    lines = text.split("\n")
    possible = [int(item.split("=")[0]) for item in lines[k - 1].removeprefix("outcomes: ").split("; ")]
    rolled = int(lines[k].split()[1])
    other = next(a for a in possible if a != rolled)
    lines[k] = f"outcome: {other} roll"
    tampered = "\n".join(lines)
    try:
        replayed = P.replay_position(*args, P.parse(tampered)["actions"])
    except (AssertionError, ValueError):  # a decision of the file's not legal after the other roll
        replayed = None
    assert replayed != tampered
