"""Golden playthroughs (tests/playthrough.py, files in tests/playthroughs/):
every registered id and variant, and every dice variant, has a file; each
face that can play the file's game writes it again, line for line.

A rules or behaviour change fails here first: rewrite the files with
``make playthroughs`` and review their diff.
"""

from __future__ import annotations

import difflib

import playthrough as P
import pytest

CASES = [
    pytest.param(name, env_id, variant, dice, id=name.removesuffix(".txt")) for name, env_id, variant, dice in P.cases()
]


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


def test_every_file_is_a_registered_variant():
    """A file whose id or variant is no longer registered is stale (renamed
    or removed variants leave none behind)."""
    known = {name for name, *_ in P.cases()}
    stray = sorted(p.name for p in P.FOLDER.glob("*.txt") if p.name not in known)
    assert not stray, f"golden playthroughs of no registered variant: {stray}"
    assert len(known) >= 29  # 22 variants of the five games, 4 dice variants, the tests' 7


@pytest.mark.parametrize("name, env_id, variant, dice", CASES)
def test_recording_gives_the_file(name, env_id, variant, dice):
    """The seeded game played from the kernels (and, for a dice variant, on
    the AEC env) is the recorded one."""
    _same(_file(name), P.record(env_id, variant, P.SEED, dice), f"record({env_id}, {variant})")


@pytest.mark.parametrize("name, env_id, variant, dice", CASES)
def test_faces_replay_the_file(name, env_id, variant, dice):
    """Position, the AEC env and make_vec, each replaying the file's actions,
    show what the file says: positions, seat to act, legal actions and
    their notation, observations, the rolls, the end and the returns."""
    text = _file(name)
    meta = P.parse(text)
    assert (meta["game"], meta["variant"], meta["dice"]) == (env_id, variant, dice)
    args = (env_id, variant, meta["seed"], meta["first"], meta["actions"])
    assert any(kind == "decision" for kind, _ in meta["actions"])
    if dice:
        _same(text, P.replay_dice_file(*args), "the AEC env with DiceVariant")
        return
    _same(text, P.replay_position(*args), "Position")
    _same(text, P.replay_aec(*args), "the AEC env")
    _same(P.vec_view(text), P.vec_view(P.replay_vec(*args)), "make_vec")


def test_a_changed_file_fails_the_comparison():
    """The comparison is not blind: a file with one observation digest
    changed, or one die roll changed, is not what the faces replay."""
    name, env_id, variant, _ = next(c for c in P.cases() if c[1] == "tryasina_v0")
    text = _file(name)
    meta = P.parse(text)
    args = (env_id, variant, meta["seed"], meta["first"])
    lines = text.split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("observation: ") and "sha1:" in line)
    digest = lines[k].rsplit(":", 1)[1]
    lines[k] = lines[k][: -len(digest)] + ("0" if digest[0] != "0" else "1") + digest[1:]
    tampered = "\n".join(lines)
    assert P.replay_position(*args, P.parse(tampered)["actions"]) != tampered
    assert P.vec_view(P.replay_vec(*args, meta["actions"])) != P.vec_view(tampered)
    # a roll changed to another possible outcome: the game that follows is not the file's
    k = next(i for i, line in enumerate(text.split("\n")) if line.startswith("outcome: "))
    lines = text.split("\n")
    possible = [int(item.split("=")[0]) for item in lines[k - 1].removeprefix("outcomes: ").split("; ")]
    rolled = int(lines[k].split()[1])
    other = next(a for a in possible if a != rolled)
    lines[k] = f"outcome: {other} roll"
    tampered = "\n".join(lines)
    replayed = P.replay_position(*args, P.parse(tampered)["actions"]) if P.parse(tampered)["actions"] else ""
    assert replayed != tampered
