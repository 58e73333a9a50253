"""Valid positions of Quess, Quicksand and Tryasina: what play from the
start implies beyond each game's consistency checks (its rules page's
*Valid positions*, ``Game.check_history``): QU-V1, QS-V1, TR-V1.

Each invariant is shown three ways: a crafted position that no game reaches
is refused as a text, a JSON document and a row, naming the invariant; the
same position is read when a set-up position is asked for (``setup=True``);
and seeded random games, played long and through ``make_vec``'s resets,
never break it (a false invariant would refuse a legal game).  Every
game's rules page, all five, states the invariants its check names."""

from __future__ import annotations

import numpy as np
import pytest

import boardenvs
from boardenvs import Position
from boardenvs.errors import NotationError


def _edit(text: str, *pairs) -> str:
    for old, new in pairs:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def _refused_everywhere_but_as_a_setup(text: str, inv: str, message: str) -> None:
    """``text`` refused from text, JSON and a row, naming ``inv``; read
    with ``setup=True`` at each of them."""
    with pytest.raises(NotationError, match=message):
        Position.from_text(text)
    setup = Position.from_text(text, setup=True)  # every other check is made: consistent
    with pytest.raises(NotationError, match=rf"\({inv}\)"):
        Position.from_json(setup.to_json())
    with pytest.raises(ValueError, match=rf"\({inv}\)"):
        Position(setup.game, setup.state)
    assert Position.from_json(setup.to_json(), setup=True) == setup
    assert Position(setup.game, setup.state, setup=True) == setup


def _start_text(env_id: str, **options) -> str:
    return boardenvs.position(env_id, first_player=0, **options).to_text()


def test_qu_v1_a_side_cannot_lose_more_pieces_than_the_other_side_moved():
    """QU-V1: Dark's two missing triangles at turn 2, Light to move, as Light
    moved first: Light made one move, so took one piece at most (the count
    of captures, two in two turns, fits the consistency check)."""
    text = _edit(
        _start_text("quess_v0"),
        ("turn: 0", "turn: 2"),
        ("A . . . t c s", "A . . . . c s"),
        ("B . . . . t c", "B . . . . . c"),
    )
    _refused_everywhere_but_as_a_setup(text, "QU-V1", r"player_1 lost 2 pieces, but player_0 made 1 moves .*\(QU-V1\)")
    # one of Light's at turn 2 fits QU-V1 (Dark's capture at turn 1): read; one of Dark's does not
    ok = _edit(_start_text("quess_v0"), ("turn: 0", "turn: 2"), ("D T . . . . .", "D . . . . . ."))
    assert Position.from_text(ok).turn == 2
    with pytest.raises(NotationError, match=r"turn 1, .* was player_1's capture, but player_0 has lost no piece"):
        Position.from_text(_edit(_start_text("quess_v0"), ("turn: 0", "turn: 2"), ("A . . . t c s", "A . . . . c s")))


def test_qu_v1_the_move_before_since_capture_took_a_piece_of_the_other_side():
    """QU-V1: turn 4, Light to move, one move (Dark's) since the last
    capture: the capture was Light's move at turn 2, so Dark has lost a
    piece; a board where only Light lost one is refused."""
    start = Position.from_text(_start_text("quess_v0"))
    text = _edit(
        start.to_text(),
        ("turn: 0", "turn: 4"),
        ("D T . . . . .", "D . . . . . ."),  # Light's D1 triangle taken
        ("C . . . . . t", "C . . . . t ."),  # Dark's C6 triangle on C5, its one move since
        ("since_capture:", "since_capture: C6-C5"),
    )
    _refused_everywhere_but_as_a_setup(
        text, "QU-V1", r"turn 2, .* was player_0's capture, but player_1 has lost no piece"
    )


def test_qs_v1_a_player_places_at_most_one_pyramid_a_turn_of_its_own():
    """QS-V1: two of player_0's pyramids on the board at turn 2, player_0 to
    move (it moved first): it has played one turn, so placed one at most
    (two placed in two turns fits the consistency check)."""
    text = _edit(
        _start_text("quicksand_v0"),
        ("turn: 0", "turn: 2"),
        ("1 . . . . . .", "1 S S . . . ."),
        ("reserve: 5 5 5 / 5 5 5", "reserve: 3 5 5 / 5 5 5"),
    )
    _refused_everywhere_but_as_a_setup(
        text, "QS-V1", r"player_0 has 2 pyramids out of its reserve .* but it played 1 \(QS-V1\)"
    )
    ok = _edit(text, ("1 S S . . . .", "1 S . . . . s"), ("reserve: 3 5 5 / 5 5 5", "reserve: 4 5 5 / 4 5 5"))
    assert Position.from_text(ok).turn == 2


def test_qs_v1_taking_pyramids_costs_jumps():
    """QS-V1: a jump takes three pyramids at most, so player_0, with three
    pyramids on the board and three of player_1's taken (its score, QS-9),
    played at least four turns: turn 6 with player_0 to move (three turns
    each) is refused, turn 7 with player_1 to move (four of player_0's) is
    read; without the jump it took, three turns would do."""
    text = _edit(
        _start_text("quicksand_v0"),
        ("turn: 0", "turn: 6"),
        ("1 . . . . . .", "1 L L L . . ."),
        ("reserve: 5 5 5 / 5 5 5", "reserve: 5 5 2 / 2 5 5"),
        ("score: 0 0", "score: 3 0"),
    )
    _refused_everywhere_but_as_a_setup(
        text, "QS-V1", r"player_0 has 3 pyramids out of its reserve and took 3 of player_1's, which takes at least 4 "
    )
    later = _edit(text, ("turn: 6", "turn: 7"), ("to_move: player_0", "to_move: player_1"))
    assert Position.from_text(later).turn == 7


def _tryasina_edit(text: str, xy, token: str) -> str:
    """``text`` with the board cell at ``xy`` = (x, y) set to ``token``."""
    lines = text.splitlines()
    r = 11 + 6 - xy[1]
    row = lines[r].split()
    row[xy[0] + 6] = token
    lines[r] = " ".join(row)
    return "\n".join(lines) + "\n"


def test_tr_v1_a_pawn_past_c1_took_two_turns_of_its_owner():
    """TR-V1: player_0's pawn on C2 (the square left of its entry) at turn 2,
    player_0 to roll: player_0 has played one turn, which only took the pawn
    out onto C1 (TR-8); one pawn out in two turns fits the consistency
    check. On C1 it is read."""
    start = _edit(_start_text("tryasina_v0"), ("turn: 0", "turn: 2"), ("origin: 4 4", "origin: 3 4"))
    text = _tryasina_edit(start, (-1, -6), "A")
    _refused_everywhere_but_as_a_setup(
        text, "TR-V1", r"player_0 has 1 pawns out of its origin, which takes at least 2 .* played 1 \(TR-V1\)"
    )
    assert Position.from_text(_tryasina_edit(start, (0, -6), "A")).turn == 2
    # four players, player_2 to roll at turn 3: player_1 has played one turn (turn 2)
    four = _edit(
        _start_text("tryasina_v0", num_players=4),
        ("turn: 0", "turn: 3"),
        ("roller: player_0", "roller: player_2"),
        ("origin: 4 4 4 4", "origin: 4 3 4 4"),
    )
    with pytest.raises(NotationError, match=r"player_1 has 1 pawns .* played 1 \(TR-V1\)"):
        Position.from_text(_tryasina_edit(four, (-6, 1), "B"))  # the left side's C2
    assert Position.from_text(_tryasina_edit(four, (-6, 0), "B")).turn == 3  # its entry, C1


GAMES = [
    ("quess_v0", {}),
    ("quicksand_v0", {}),
    ("tryasina_v0", {"num_players": 2}),
    ("tryasina_v0", {"num_players": 3}),
    ("tryasina_v0", {"num_players": 4}),
]


@pytest.mark.parametrize("env_id, options", GAMES, ids=[f"{e}{o or ''}" for e, o in GAMES])
def test_seeded_random_games_never_break_qu_v1_qs_v1_tr_v1(env_id, options):
    """QU-V1, QS-V1, TR-V1 hold at every position of long seeded random
    games (either side first), which read back from their texts, JSON and
    rows without ``setup``."""
    checked = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        pos = boardenvs.position(env_id, seed=seed, first_player="random", **options)
        while not pos.is_terminal:
            pos = pos.play(int(rng.choice(pos.legal_actions())))
            pos.game.check_history(pos.state)
            checked += 1
        assert Position.from_text(pos.to_text()) == pos == Position.from_json(pos.to_json())
        assert Position(pos.game, pos.state) == pos
    assert checked > 300


@pytest.mark.parametrize("env_id, options", GAMES, ids=[f"{e}{o or ''}" for e, o in GAMES])
def test_make_vec_rows_through_resets_never_break_qu_v1_qs_v1_tr_v1(env_id, options):
    """QU-V1, QS-V1, TR-V1 hold at every row ``make_vec`` steps and resets
    (its first players drawn at random)."""
    vec = boardenvs.make_vec(env_id, num_envs=8, **options)
    vec.reset(seed=3)
    game = vec.game
    for _ in range(400):
        vec.step(vec.random_actions())
        for row in vec.states:
            game.check_history(row)


def test_every_rules_page_states_the_invariants_its_game_checks():
    """Each game's rules page has a *Valid positions* section, and every
    invariant id its ``check_history`` can name (``QU-V1``, ``HQ-V1``, ...)
    is stated there, with the ``setup=True`` way out: the page and the check
    cannot drift apart."""
    import inspect
    import re

    from boardenvs.registry import game_class

    for env_id in boardenvs.ENV_IDS:
        cls = game_class(env_id)
        page = cls.rules_path().read_text(encoding="utf-8")
        section = re.search(r"^(#{2,3}) Valid positions\n(.*?)(?=^#{1,3} |\Z)", page, re.S | re.M)
        assert section, f"{cls.rules_path().name}: no Valid positions section"
        named = set(re.findall(rf"\b{cls.rule_prefix}-V\d+\b", inspect.getsource(cls.check_history)))
        assert named, f"{env_id}: its check_history names no invariant"
        stated = set(re.findall(rf"\*\*({cls.rule_prefix}-V\d+)\b", section.group(2)))
        assert named == stated, (env_id, named, stated)
        assert "`setup=True`" in section.group(2), env_id
