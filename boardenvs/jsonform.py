"""Positions and moves as JSON (OpenSpiel 2.0 gives every state as a JSON
struct; this is ours): a versioned document that carries exactly what the
position text carries, the board in named fields.

The document, schema ``boardenvs/position`` version 1 (``SCHEMA``,
``VERSION``)::

    {"schema": "boardenvs/position", "version": 1,
     "game": "quess_v0", "options": {"max_turns": 3000, "superko_memory": 4096},
     "to_move": "player_1",            # or "chance" at a chance node
     "turn": 7, "status": "playing",   # playing / terminated / truncated
     "reason": "-",                    # the end reason, "-" while playing
     "alive": [true, true], "returns": [0, 0],
     "board": ["  1 2 3 4 5 6", "A . . t . c s", ...],   # the game's fields:
     "since_capture": ["E2-D2", "B5-B4", ...],          # its text form's lines
     "legal_moves": [{"move": "D5-F6", "actions": [1234]}, ...]}   # optional

The header keys are the position text's header (``boardenvs.game.HEADER_KEYS``),
typed.  The game's own fields are the lines of its text form's body, by name
and in order: a grid (``board:`` and the rows under it) is a list of its rows
as the text draws them; any other line ``name: value`` is a list of its words,
or, where the game declares the field in ``Game.json_fields``, a single word,
an int, a list of ints or a free text (``"-"`` read as ``null`` for the kinds
ending in ``?``).  ``legal_moves`` (written on request) lists every legal
whole turn in notation with its chain of action ids, and, at a chance node,
its probability.

Reading a document builds the position text's fields and lines from it and
hands them to the very checks a position text gets (``Game.from_text_fields``):
every document is a position the rules could reach or a
:class:`~boardenvs.errors.NotationError` naming what is wrong (C-6); a
document's ``legal_moves``, when present, must be the position's.
"""

from __future__ import annotations

import json
import re

import numpy as np

from .errors import NotationError, shown
from .textform import HEADER_KEYS, split_text

SCHEMA = "boardenvs/position"
VERSION = 1
# the largest JSON text read (a Quess record of 2**20 boards since the last capture writes ~9 MB)
MAX_JSON_CHARS = 32 * 2**20
MAX_DEPTH = 8  # a document nests 4 deep (legal_moves > move > actions > id); deeper is refused before it is read
MAX_NAME_CHARS = 100  # an env id, an option name
INT_BOUND = 2**63  # every int of a document fits a row's int64
KINDS = ("words", "word", "word?", "int", "int?", "ints", "text")
_KEY = re.compile(r"([a-z][a-z0-9_]*):(?: (.*))?")
_WORD = re.compile(r"[^\s\x00-\x1f\x7f]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_RESERVED = {"schema", "version", "legal_moves", *HEADER_KEYS}


def body_layout(game) -> tuple[tuple[str, str], ...]:
    """``((name, kind), ...)``: the fields of ``game``'s text body in order,
    each ``"rows"`` (a grid: ``name:`` and the lines under it) or a
    :data:`KINDS` kind (``json_fields`` of the game, else ``"words"``),
    read from the text of a new game (a configured game writes the same
    fields in every position)."""
    cached = getattr(game, "_json_layout", None)
    if cached is not None:
        return cached
    _, body = split_text(game.to_text(game.new_state(0)))
    declared = dict(getattr(game, "json_fields", {}) or {})
    out = []
    for k, line in enumerate(body):
        m = _KEY.fullmatch(line)
        if not m:
            continue
        name = m.group(1)
        grid = not m.group(2) and k + 1 < len(body) and not _KEY.fullmatch(body[k + 1])
        kind = "rows" if grid else declared.pop(name, "words")
        if name in _RESERVED or kind not in KINDS + ("rows",) or any(name == n for n, _ in out):
            raise TypeError(
                f"{game.env_id}: text field {name!r} cannot be a JSON field (kind {kind!r}, reserved "
                f"names {sorted(_RESERVED)}, kinds {KINDS})"
            )
        out.append((name, kind))
    if declared:
        raise TypeError(f"{game.env_id}: json_fields names {sorted(declared)}, which its text form does not write")
    game._json_layout = tuple(out)
    return game._json_layout


# --- writing --------------------------------------------------------------------------------------


def _value(kind: str, text: str):
    if kind in ("word?", "int?") and text == "-":
        return None
    if kind == "words":
        return text.split()
    if kind == "ints":
        return [int(t) for t in text.split()]
    if kind in ("int", "int?"):
        return int(text)
    return text


def _line(name: str, kind: str, value) -> str:
    """The text line of a checked field value."""
    if value is None:
        text = "-"
    elif kind in ("words", "ints"):
        text = " ".join(str(v) for v in value)
    else:
        text = str(value)
    return f"{name}: {text}".rstrip()


def to_dict(game, state, legal_moves: list | None = None) -> dict:
    """The JSON document (a dict of JSON types) of ``state``, a row of ``game``."""
    fields, body = split_text(game.to_text(state))
    n = game.num_players
    doc = {
        "schema": SCHEMA,
        "version": VERSION,
        "game": game.env_id,
        "options": {o.name: game.options[o.name] for o in game.option_specs if o.in_text},
        "to_move": fields["to_move"],
        "turn": int(fields["turn"]),
        "status": fields["status"],
        "reason": fields["reason"],
        "alive": [f == "1" for f in fields["alive"].split()],
        "returns": [int(r) for r in fields["returns"].split()],
    }
    assert len(doc["alive"]) == len(doc["returns"]) == n
    layout = body_layout(game)
    names = [name for name, _ in layout]
    k = 0
    for i, (name, kind) in enumerate(layout):
        line = body[k] if k < len(body) else ""
        m = _KEY.fullmatch(line)
        if not m or m.group(1) != name:
            raise RuntimeError(f"{game.env_id}: its text body does not follow its fields {names} at {line!r}")
        k += 1
        if kind == "rows":
            rows = []
            while k < len(body) and not (
                _KEY.fullmatch(body[k]) and _KEY.fullmatch(body[k]).group(1) in names[i + 1 :]
            ):
                rows.append(body[k])
                k += 1
            doc[name] = rows
        else:
            doc[name] = _value(kind, m.group(2) or "")
    if k != len(body) or _body_lines(game, doc) != body:  # the document reads back to the very same text
        raise RuntimeError(f"{game.env_id}: its text body does not map onto the JSON fields {names}")
    if legal_moves is not None:
        doc["legal_moves"] = legal_moves
    return doc


# --- reading --------------------------------------------------------------------------------------


def _fail(game_id: str, message: str) -> NotationError:
    return NotationError(f"position JSON{f' ({game_id})' if game_id else ''}: {message}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_value(gid: str, name: str, kind: str, value) -> None:
    """TypeError-free: NotationError unless ``value`` has the JSON type of ``kind``."""
    if value is None and kind in ("word?", "int?"):
        return
    if kind in ("words", "ints", "rows"):
        item = {"words": "a word (a str without spaces)", "ints": "an int", "rows": "a str (one text row)"}[kind]
        ok = isinstance(value, list) and all(
            (
                _is_int(v)
                if kind == "ints"
                else isinstance(v, str) and (_WORD.fullmatch(v) if kind == "words" else not _CONTROL.search(v))
            )
            for v in value
        )
        if not ok:
            raise _fail(gid, f"{name!r} must be a list, each item {item}; got {shown(value)}")
    elif kind in ("int", "int?"):
        if not _is_int(value):
            raise _fail(gid, f"{name!r} must be an int{' or null' if kind == 'int?' else ''}; got {shown(value)}")
    elif kind in ("word", "word?"):
        if not (isinstance(value, str) and _WORD.fullmatch(value)):
            raise _fail(
                gid,
                f"{name!r} must be a word (a str without spaces){' or null' if kind == 'word?' else ''}; "
                f"got {shown(value)}",
            )
    elif not (isinstance(value, str) and not _CONTROL.search(value)):
        raise _fail(gid, f"{name!r} must be a str of one line; got {shown(value)}")


def _body_lines(game, doc: dict) -> list[str]:
    lines = []
    for name, kind in body_layout(game):
        value = doc[name]
        if kind == "rows":
            lines += [f"{name}:"] + [row.rstrip() for row in value]
        else:
            lines.append(_line(name, kind, value))
    return lines


def parse(text) -> dict:
    """A JSON text (a str, at most :data:`MAX_JSON_CHARS`) as a dict, or NotationError."""
    if not isinstance(text, str):
        raise NotationError(f"position JSON must be a str (or a dict), got {type(text).__name__}")
    if len(text) > MAX_JSON_CHARS:
        raise NotationError(f"position JSON of {len(text):,} characters; at most {MAX_JSON_CHARS:,} are read")
    try:
        doc = json.loads(text)
    except RecursionError:
        raise NotationError("position JSON is nested too deeply") from None
    except ValueError as exc:  # json.JSONDecodeError, an int of too many digits
        raise NotationError(f"position JSON is not valid JSON: {exc}") from None
    return doc


def check_shape(doc) -> None:
    """NotationError unless ``doc`` is JSON data within the bounds a position
    document keeps: nested at most :data:`MAX_DEPTH` deep, every int within
    int64 (:data:`INT_BOUND`), every key a str, nothing but JSON types.  One
    pass with an explicit stack (no recursion, so no RecursionError), done
    before anything else reads the document: a dict handed to
    :func:`from_dict` meets the same bounds as a JSON text."""
    stack = [(doc, 1, "the document")]
    while stack:
        value, depth, where = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise NotationError(f"position JSON is nested more than {MAX_DEPTH} deep (at {where})")
            if isinstance(value, dict):
                for key, item in value.items():
                    if not isinstance(key, str):
                        raise NotationError(f"position JSON: a key must be a str, got {shown(key)} (in {where})")
                    stack.append((item, depth + 1, shown(key, 40)))
            else:
                inside = f"an item of {where}"  # (one str per list, not per item)
                stack.extend((item, depth + 1, inside) for item in value)
        elif isinstance(value, bool) or value is None or isinstance(value, (str, float)):
            continue
        elif isinstance(value, int):
            if not -INT_BOUND <= value < INT_BOUND:
                raise NotationError(
                    f"position JSON: an int at {where} is outside the int64 range a position holds ({shown(value)})"
                )
        else:
            raise NotationError(f"position JSON: {where} holds a {type(value).__name__}, which is no JSON type")


def from_dict(doc, setup: bool = False) -> tuple:
    """``(game, state)`` of a JSON document (a dict, as :func:`to_dict`
    writes it): checked like a position text, or NotationError (its
    ``legal_moves``: :func:`check_legal_moves`)."""
    from .registry import make_game

    if not isinstance(doc, dict):
        raise NotationError(f"position JSON must be an object, got {type(doc).__name__}")
    check_shape(doc)
    if doc.get("schema") != SCHEMA:
        raise _fail("", f"'schema' must be {SCHEMA!r}, got {shown(doc.get('schema'))}")
    version = doc.get("version")
    if not _is_int(version) or version != VERSION:
        raise _fail("", f"schema version {shown(version)} is not read by this boardenvs; it reads version {VERSION}")
    gid = doc.get("game")
    if not isinstance(gid, str) or len(gid) > MAX_NAME_CHARS:
        raise _fail("", f"'game' must be an env id (a str of at most {MAX_NAME_CHARS} characters), got {shown(gid)}")
    options = doc.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(k, str) and len(k) <= MAX_NAME_CHARS for k in options):
        raise _fail(
            gid,
            f"'options' must be an object of option names (strs of at most {MAX_NAME_CHARS} characters) "
            f"and values, got {shown(options)}",
        )
    try:
        game = make_game(gid, **options)
    except (TypeError, ValueError) as exc:
        raise _fail("", str(exc)) from None
    layout = body_layout(game)
    allowed = ["schema", "version", *HEADER_KEYS, *(name for name, _ in layout), "legal_moves"]
    unknown = sorted(set(doc) - set(allowed))
    if unknown:
        raise _fail(gid, f"unknown field(s) {shown(unknown)}; a document has {allowed}")
    missing = [k for k in allowed if k not in doc and k not in ("options", "legal_moves")]
    if missing:
        raise _fail(gid, f"missing field(s) {missing}")
    n = game.num_players
    for key in ("to_move", "status", "reason"):
        _check_value(gid, key, "word", doc[key])
    if not _is_int(doc["turn"]):
        raise _fail(gid, f"'turn' must be an int, got {shown(doc['turn'])}")
    alive, rets = doc["alive"], doc["returns"]
    if not (isinstance(alive, list) and len(alive) == n and all(isinstance(a, bool) for a in alive)):
        raise _fail(gid, f"'alive' must be a list of {n} booleans, got {shown(alive)}")
    if not (isinstance(rets, list) and len(rets) == n and all(_is_int(r) for r in rets)):
        raise _fail(gid, f"'returns' must be a list of {n} ints, got {shown(rets)}")
    for name, kind in layout:
        _check_value(gid, name, kind, doc[name])
    fields = {
        "game": gid,
        "to_move": doc["to_move"],
        "turn": str(doc["turn"]),
        "status": doc["status"],
        "reason": doc["reason"],
        "alive": " ".join("1" if a else "0" for a in alive),
        "returns": " ".join(str(r) for r in rets),
    }
    try:
        state = game.from_text_fields(fields, _body_lines(game, doc), setup)  # every check a position text gets
    except NotationError as exc:
        raise _fail("", str(exc)) from None
    return game, state


def check_legal_moves(doc: dict, pos) -> None:
    """A document's ``legal_moves``, when it has one, must be those of the
    position it describes (``pos``, read by :func:`from_dict`): else
    NotationError."""
    if "legal_moves" in doc:
        have = legal_moves(pos)
        if doc["legal_moves"] != have:
            raise _fail(
                pos.game.env_id,
                f"'legal_moves' is not the list of this position's legal moves "
                f"({len(have)} of them: {shown(have[:3])}...)",
            )


def legal_moves(pos) -> list[dict]:
    """``[{"move": notation, "actions": [ids]}, ...]``: every legal whole turn
    of ``pos`` (at a chance node each outcome, with its ``"probability"``)."""
    if pos.is_terminal:
        return []
    if pos.is_chance:
        probs = pos.game.chance_probs(pos.state)
        return [
            {"move": pos.action_to_move(int(a)), "actions": [int(a)], "probability": float(probs[a])}
            for a in np.flatnonzero(probs)
        ]
    state = pos.state
    return [{"move": pos.game.actions_to_move(state, chain), "actions": chain} for chain in pos.legal_turns()]
