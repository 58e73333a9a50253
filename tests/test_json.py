"""Positions and moves as JSON (boardenvs/jsonform.py):
every registered id and variant round-trips through ``to_json`` /
``from_json`` along seeded random games (chance nodes, multi-decision turns,
eliminations, Quess's superko record), legal moves carry notation and action
ids, and every malformed document is a NotationError naming what is wrong
(C-6), never another exception."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from test_all_envs import CASES, _random_game

import boardenvs
from boardenvs import jsonform
from boardenvs.errors import NotationError
from boardenvs.position import Position
from boardenvs.registry import registered_ids


def _sample(env_id, variant, seed=3, every=6):
    """Positions of a seeded random game: two of every ``every``, each chance node, and the end."""
    for k, (pos, action) in enumerate(_random_game(env_id, variant, seed)):
        if k % every in (0, 1) or pos.is_chance or action is None:
            yield pos


@pytest.mark.parametrize("env_id, variant", CASES)
def test_json_round_trips_along_random_games(env_id, variant):
    seen = set()
    for k, pos in enumerate(_sample(env_id, variant, every=15)):
        with_moves = k < 6 or pos.is_terminal  # (listing every whole turn is the slow part: a few)
        doc = pos.to_dict(legal_moves=with_moves)
        assert doc["schema"] == jsonform.SCHEMA and doc["version"] == jsonform.VERSION and doc["game"] == env_id
        text = json.dumps(doc)
        back = Position.from_json(text)
        assert back == pos and back.to_text() == pos.to_text()
        assert np.array_equal(back.action_mask(), pos.action_mask())
        assert Position.from_json(doc) == pos and json.loads(back.to_json(legal_moves=with_moves)) == doc
        # the named fields carry what the text carries, in the text's words
        assert doc["to_move"] == ("chance" if pos.to_move == -1 else f"player_{pos.to_move}")
        assert doc["turn"] == pos.turn and doc["returns"] == [int(r) for r in pos.returns]
        assert doc["alive"] == [pos.alive(s) for s in range(pos.game.num_players)]
        seen.add("chance" if pos.is_chance else "end" if pos.is_terminal else "move")
        if not with_moves:
            continue
        # legal moves: notation and the chain of action ids of each whole turn
        moves = doc["legal_moves"]
        assert moves == pos.legal_moves_json()
        if pos.is_chance:
            assert sum(m["probability"] for m in moves) == pytest.approx(1.0)
            assert [m["move"] for m in moves] == [o for o, _ in pos.chance_outcomes()]
        else:
            assert [m["move"] for m in moves] == pos.legal_moves()
            assert [m["actions"] for m in moves] == pos.legal_turns()
            for m in moves[:3]:
                assert pos.move_to_actions(m["move"]) == m["actions"]
    assert {"move", "end"} <= seen


def test_the_cases_cover_chance_several_decisions_eliminations_and_superko():
    """What the round trip above must meet is among the registered games."""
    games = [boardenvs.make_game(c.values[0], **c.values[1]) for c in CASES]
    assert any(g.num_chance_outcomes for g in games)
    assert any(g.multi_decision_turns for g in games)
    assert any(g.eliminations for g in games)
    assert "quess_v0" in registered_ids()


def test_quess_superko_record_round_trips_and_is_checked():
    """QU-8: the moves since the last capture are the ``since_capture`` field
    of the document; a record that does not lead back to the board, or that
    holds a move its side could not play, is refused like in the text form."""
    pos = boardenvs.position("quess_v0", first_player=0)
    for move in ["F3-E3", "A4-B4", "E3-F3"]:  # no capture; B4-A4 would bring back the start (QU-8)
        pos = pos.play(move)
    assert "B4-A4" not in pos.legal_moves()
    doc = pos.to_dict()
    assert doc["since_capture"] == ["F3-E3", "A4-B4", "E3-F3"]
    back = Position.from_json(json.dumps(doc))
    assert back == pos and back.legal_moves() == pos.legal_moves()  # the ban survives the round trip
    for bad in (["F3-E3", "A4-B4"], ["A4-B4", "F3-E3", "E3-F3"], ["F3-E3", "A4-B4", "E3-F3", "F3-E3"]):
        with pytest.raises(NotationError, match="since_capture"):
            Position.from_json({**doc, "since_capture": bad})


def _doc(env_id="quess_v0", **options):
    return boardenvs.position(env_id, first_player=0, **options).to_dict()


@pytest.mark.parametrize(
    "change, words",
    [
        ({"schema": "chess/fen"}, "'schema' must be 'boardenvs/position'"),
        ({"version": 2}, "version 2 is not read"),
        ({"version": "1"}, "version '1' is not read"),
        ({"version": True}, "version True is not read"),
        ({"game": 7}, "'game' must be an env id"),
        ({"game": "chess_v0"}, "chess_v0"),
        ({"options": [1]}, "'options' must be an object"),
        ({"options": {"max_turns": [3]}}, "max_turns"),
        ({"options": {"colour": "red"}}, "unknown option"),
        ({"turn": "0"}, "'turn' must be an int"),
        ({"turn": True}, "'turn' must be an int"),
        ({"turn": -1}, "turn must be an integer"),
        ({"turn": 10**30}, "an int at 'turn' is outside the int64 range"),  # refused before it is read
        ({"to_move": 0}, "'to_move' must be a word"),
        ({"to_move": "player_7"}, "to_move must be"),
        ({"to_move": "chance"}, "no chance nodes"),
        ({"status": "won"}, "status must be one of"),
        ({"alive": [1, 1]}, "'alive' must be a list of 2 booleans"),
        ({"alive": [True]}, "'alive' must be a list of 2 booleans"),
        ({"returns": [0.0, 0]}, "'returns' must be a list of 2 ints"),
        ({"returns": [1, -1]}, "returns must be 0"),
        ({"board": "A . . . . . ."}, "'board' must be a list"),
        ({"board": ["  1 2 3 4 5 6\nA t t t t t t"]}, "'board' must be a list"),
        ({"since_capture": ["F3-E3 A4-B4"]}, "'since_capture' must be a list, each item a word"),
        ({"since_capture": "F3-E3"}, "'since_capture' must be a list"),
        ({"colour": "red"}, "unknown field"),
        ({"legal_moves": [{"move": "F3-E3", "actions": [0]}]}, "'legal_moves' is not the list"),
    ],
)
def test_malformed_documents_name_what_is_wrong(change, words):
    doc = {**_doc(), **change}
    with pytest.raises(NotationError, match=words.replace("(", r"\(").replace("[", r"\[")):
        Position.from_json(doc)
    with pytest.raises(NotationError):  # the same as a JSON text
        Position.from_json(json.dumps(doc))


def test_missing_fields_inconsistent_boards_and_outside_input():
    doc = _doc()
    for key in ("schema", "version", "game", "to_move", "board", "since_capture"):
        with pytest.raises(NotationError, match=f"'?{key}'?"):
            Position.from_json({k: v for k, v in doc.items() if k != key})
    rows = list(doc["board"])
    rows[3] = "C t t t t t t"  # seven triangles of Dark: a board no game reaches (QU-2)
    with pytest.raises(NotationError, match="triangles"):
        Position.from_json({**doc, "board": rows})
    with pytest.raises(NotationError, match="status terminated needs"):
        Position.from_json({**doc, "status": "terminated"})
    with pytest.raises(NotationError, match="at most"):
        Position.from_json(" " * (jsonform.MAX_JSON_CHARS + 1))
    with pytest.raises(NotationError, match="nested too deeply"):
        Position.from_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(NotationError, match="not valid JSON"):
        Position.from_json('{"schema": ')
    with pytest.raises(NotationError, match="not valid JSON"):
        Position.from_json('{"turn": ' + "9" * 5000 + "}")
    for value in (None, b"{}", 3, [doc]):
        with pytest.raises(NotationError, match="must be"):
            Position.from_json(value)


def test_documents_beyond_the_bounds_are_notation_errors_not_crashes():
    """A dict handed to from_json meets the bounds a JSON text does (C-6):
    an int beyond int64 (which Python could not even turn into a str past
    4,300 digits), nesting beyond the schema's depth (a list nested 50,000
    deep, which repr could not show), names of any length; each is a
    NotationError naming what is wrong, not a ValueError or RecursionError
    from deep inside."""
    doc = _doc()
    for huge in (10**5000, 2**63, -(2**63) - 1):
        with pytest.raises(NotationError, match=r"outside the int64 range"):
            Position.from_json({**doc, "turn": huge})
    with pytest.raises(NotationError, match=r"outside the int64 range"):
        Position.from_json({**doc, "returns": [0, 10**5000]})
    deep = []
    for _ in range(50_000):
        deep = [deep]
    with pytest.raises(NotationError, match=r"nested more than 8 deep"):
        Position.from_json({**doc, "board": deep})
    with pytest.raises(NotationError, match=r"nested more than 8 deep"):  # a JSON text within the parser's limits
        Position.from_json(json.dumps({**doc, "options": {"x": [[[[[[[[[]]]]]]]]]}}))
    with pytest.raises(NotationError, match=r"at most 100 characters"):
        Position.from_json({**doc, "game": "q" * 1_000_000})
    with pytest.raises(NotationError, match=r"at most 100 characters"):
        Position.from_json({**doc, "options": {"m" * 101: 1}})
    with pytest.raises(NotationError, match=r"a key must be a str"):
        Position.from_json({**doc, "options": {3: 1}})
    with pytest.raises(NotationError, match=r"no JSON type"):
        Position.from_json({**doc, "turn": object()})
    assert Position.from_json({**doc, "turn": doc["turn"]}) == Position.from_json(doc)  # within bounds: read


@pytest.mark.parametrize("env_id", sorted(registered_ids()))
def test_mutated_documents_are_positions_or_notation_errors(env_id):
    """Seeded mutations of real documents (values swapped between fields and
    positions, items dropped, types changed): each reads back as a
    consistent position (whose document is the one given) or raises
    NotationError, never another exception (C-6)."""
    rng = np.random.default_rng(48)
    docs = [pos.to_dict() for pos in _sample(env_id, {}, seed=5, every=9)]
    pool = [v for d in docs for v in d.values()] + [None, True, 1.5, -1, 10**20, "", "x y", ["\n"], {}, [[]]]
    read = refused = 0
    for k in range(40):
        doc = copy.deepcopy(docs[k % len(docs)])
        key = list(doc)[int(rng.integers(2, len(doc)))]
        what = int(rng.integers(4))
        if what == 0:
            doc[key] = pool[int(rng.integers(len(pool)))]
        elif what == 1 and isinstance(doc[key], list) and doc[key]:
            del doc[key][int(rng.integers(len(doc[key])))]
        elif what == 2 and isinstance(doc[key], list) and doc[key]:
            i = int(rng.integers(len(doc[key])))
            doc[key][i] = pool[int(rng.integers(len(pool)))] if rng.random() < 0.5 else str(doc[key][i])[::-1]
        else:
            doc[key] = docs[int(rng.integers(len(docs)))][key]
        try:
            pos = Position.from_json(doc)
        except NotationError:
            refused += 1
            continue
        read += 1
        assert pos.to_dict() == {k: v for k, v in doc.items()}
    assert refused > 0


def test_each_game_names_its_fields_once_and_declared_kinds_are_typed():
    """The JSON fields are the text body's fields (one declaration: the text
    form); ``json_fields`` only types them."""
    doc = _doc("quicksand_v0")
    assert isinstance(doc["score"], list) and all(isinstance(v, int) for v in doc["score"])
    assert doc["phase"] == "place" and doc["jump"] is None and isinstance(doc["board"], list)
    tr = _doc("tryasina_v0", num_players=3)
    assert tr["roller"] == "player_0" and tr["origin"] == [4, 4, 4] and tr["quagmire"] == [0, 0, 0]
    with pytest.raises(NotationError, match="'score' must be a list, each item an int"):
        Position.from_json({**doc, "score": ["0", "0"]})
    with pytest.raises(NotationError, match="'roll' must be an int or null"):
        Position.from_json({**tr, "roll": "6"})
    for env_id in registered_ids():
        game = boardenvs.make_game(env_id)
        layout = jsonform.body_layout(game)
        assert [name for name, _ in layout] == [
            k for k in _doc(env_id) if k not in jsonform._RESERVED and k != "options"
        ]
