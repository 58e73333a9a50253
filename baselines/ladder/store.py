"""Where the ladders are and what their members are: the committed folders
and files (a ladder's versions, its ratings, its games, the agents rated on
it), the committed models a ladder is named after, and the fingerprints
(SHA-256) of the files an agent loads, so that a ladder can tell when one of
its members changed since its games were played.

Nothing here plays or fits: the other modules of the package read and write
through these paths.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

from boardenvs.errors import shown
from boardenvs.spec import is_int

# the baselines folder (boardenvs.baselines), this package's parent: the ladders' data stays beside the models
HERE = Path(__file__).resolve().parent.parent
LADDERS = HERE / "ladders"
MODELS = (
    HERE / "models"
)  # (the package's MODELS: this package imports nothing of boardenvs.baselines' __init__, which imports it)
MODEL_PREFIXES = ("baseline:", "search:", "search-greedy:")  # opponent names whose last part names a committed model


def model_config(name: str) -> dict:
    """A committed model's config (its game and options); ValueError if there is none."""
    path = MODELS / f"{name}.json"
    if not path.is_file():
        have = sorted(p.stem for p in MODELS.glob("*.json"))
        raise ValueError(f"no committed model {name!r}; committed: {', '.join(have)}")
    return json.loads(path.read_text())


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fingerprint(spec: str) -> str | None:
    """The SHA-256 of the files an agent spec loads (a committed model's
    ``.pt``, a saved model, every file of a checkpoint folder in name
    order; a ``module:attribute`` already imported: its module's file);
    None for an agent made of the package's code alone (``random``,
    ``greedy``, ``mcts:<n>``)."""
    head, colon, _ = spec.partition(":")
    module = sys.modules.get(head) if colon and not spec.startswith((*MODEL_PREFIXES, "mcts:")) else None
    if module is not None and isinstance(getattr(module, "__file__", None), str) and Path(module.__file__).is_file():
        return sha256_of(Path(module.__file__))  # (never imported here: the opponent's loader did, with trust)
    model = spec.rpartition(":")[2] if spec.startswith(MODEL_PREFIXES) else spec
    if model and (MODELS / f"{model}.pt").is_file() and (MODELS / f"{model}.json").is_file():
        return sha256_of(MODELS / f"{model}.pt")
    path = Path(model)
    try:
        if path.is_file():
            return sha256_of(path)
        for suffix in (".pt", ".zip"):
            if path.with_name(path.name + suffix).is_file():
                return sha256_of(path.with_name(path.name + suffix))
        if path.is_dir():
            h = hashlib.sha256()
            for f in sorted(p for p in path.rglob("*") if p.is_file()):
                h.update(str(f.relative_to(path)).encode() + b"\0" + sha256_of(f).encode())
            return h.hexdigest()
    except (OSError, ValueError):
        return None
    return None


def ladder_path(name: str, version: int | None = None) -> Path:
    """``ladders/<name>/v<version>.json`` (the newest version by default)."""
    if version is None:
        versions = ladder_versions(name)
        if not versions:
            raise ValueError(f"no ladder {name!r}; ladders: {', '.join(ladder_names()) or '(none)'}")
        version = versions[-1]
    return LADDERS / name / f"v{version}.json"


def ladder_names() -> list[str]:
    """The games (model names) that have a committed ladder."""
    return (
        sorted(p.name for p in LADDERS.iterdir() if p.is_dir() and any(p.glob("v*.json"))) if LADDERS.is_dir() else []
    )


def ladder_versions(name: str) -> list[int]:
    folder = LADDERS / name
    found = [p.stem[1:] for p in folder.glob("v*.json")] if folder.is_dir() else []
    return sorted(int(v) for v in found if v.isdecimal())


def load_ladder(name: str, version: int | None = None) -> dict:
    """A committed ladder (its JSON: members with their frozen ratings,
    options, opening, seed, version); ValueError naming the ladders there
    are if there is none."""
    if name not in ladder_names():
        raise ValueError(f"no ladder for {name!r}; ladders: {', '.join(ladder_names()) or '(none)'}")
    path = ladder_path(name, version)
    if not path.is_file():
        raise ValueError(f"no version {version} of the {name} ladder; versions: {ladder_versions(name)}")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path.name} of the {name} ladder is no JSON: {exc}") from None
    return check_ladder_doc(doc, f"{path.name} of the {name} ladder")


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _count(x, low: int, high: int | None = None) -> bool:
    return is_int(x) and x >= low and (high is None or x <= high)


def check_ladder_doc(doc, where: str = "the ladder") -> dict:
    """``doc`` if it is a ladder as the package writes it (the fields every
    reader of a ladder uses, each of its type and range), else ValueError
    naming the first field that is not (``where``: what to call it): a
    ladder read from a file or handed to :func:`rate_traces` is checked
    here before anything reads it, as rows are at the engine's boundary."""
    if not isinstance(doc, dict):
        raise ValueError(f"{where}: a ladder is a JSON object, got {type(doc).__name__}")
    checks = {
        "version": (lambda v: _count(v, 1), "an int >= 1"),
        "env_id": (lambda v: isinstance(v, str) and v != "", "a game's env id"),
        "options": (lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v), "an object of options"),
        "make_options": (lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v), "an object of options"),
        "players": (lambda v: _count(v, 2, 6), "an int in 2..6"),
        "opening": (lambda v: _count(v, 0, 10_000), "an int in 0..10000"),
        "seed": (lambda v: _count(v, 0, 2**32 - 1), "an int in 0..2**32-1"),
        "anchor": (lambda v: isinstance(v, str), "a member's name"),
        "pairs": (lambda v: isinstance(v, dict), "an object of pair scores"),
        "members": (lambda v: isinstance(v, list) and len(v) > 0, "a non-empty list of members"),
    }
    for key, (ok, what) in checks.items():
        if key not in doc:
            raise ValueError(f"{where}: no field {key!r} ({what})")
        if not ok(doc[key]):
            raise ValueError(f"{where}: field {key!r} must be {what}, got {shown(doc[key])}")
    names = set()
    for k, m in enumerate(doc["members"]):
        at = f"{where}: member {k}"
        if not isinstance(m, dict):
            raise ValueError(f"{at} is not an object, got {shown(m)}")
        for key, ok, what in (
            ("name", lambda v: isinstance(v, str) and v != "", "an agent's name"),
            ("sha256", lambda v: v is None or isinstance(v, str), "a SHA-256 or null"),
            ("elo", _finite, "a finite number"),
            (
                "interval",
                lambda v: isinstance(v, list) and len(v) == 2 and all(map(_finite, v)) and v[0] <= v[1],
                "[low, high]",
            ),
        ):
            if key not in m:
                raise ValueError(f"{at}: no field {key!r} ({what})")
            if not ok(m[key]):
                raise ValueError(f"{at}: field {key!r} must be {what}, got {shown(m[key])}")
        if m["name"] in names:
            raise ValueError(f"{at}: {m['name']!r} is a member twice")
        names.add(m["name"])
    if doc["anchor"] not in names:
        raise ValueError(f"{where}: the anchor {shown(doc['anchor'])} is no member")
    return doc


def traces_path(name: str, version: int) -> Path:
    return LADDERS / name / f"v{version}.jsonl.gz"


def rated_path(name: str, version: int) -> Path:
    """``ladders/<name>/v<version>.rated.json``: agents rated on the ladder
    (:func:`record`), with their games in ``v<version>.rated.jsonl.gz``."""
    return LADDERS / name / f"v{version}.rated.json"


def rated_traces_path(name: str, version: int) -> Path:
    """``ladders/<name>/v<version>.rated.jsonl.gz``: the games of the agents rated on the ladder."""
    return LADDERS / name / f"v{version}.rated.jsonl.gz"
