"""Untrusted files and one-line load errors.

* A format that runs code when it is loaded (an SB3 ``.zip``, an RLlib
  checkpoint folder: their loaders unpickle) loads only when the caller
  says it trusts the file (``load_opponent(path, trust=True)``, the CLI's
  ``--trust-files``); named anywhere else it is refused, the refusal names
  both, and nothing in the file runs (the files here would create a marker
  file when unpickled).
* Our own ``.pt`` + ``.json`` loads by default: the weights through
  ``torch.load(weights_only=True)``, the config checked before anything is
  built (fields typed, layers, widths and the parameter count bounded).
* Every failure of a model load is one ``ValueError`` line; the CLI prints
  it as one ``error:`` line with exit status 2; long names are shortened.
"""

from __future__ import annotations

import base64
import json
import pickle
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from backstop import HANG_S  # noqa: E402 - the tests' one wall-clock backstop
from boardenvs.baselines import networks

import boardenvs
from boardenvs import baselines
from boardenvs.cli import main
from boardenvs.errors import ModelFileError, UntrustedFileError
from boardenvs.opponents import load_opponent, make_opponent

MODEL = baselines.MODELS / "quess_v0"  # a committed model: its .json and .pt


class Payload:
    """Unpickled, it creates the file ``path`` (what a malicious pickle could do instead)."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def malicious_zip(path: Path, marker: Path) -> Path:
    """An SB3 zip whose serialized entry creates ``marker`` when SB3's loader reads it."""
    entry = base64.b64encode(pickle.dumps(Payload(marker))).decode()
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("data", json.dumps({"policy_class": {":type:": "<class>", ":serialized:": entry}}))
    return path


def malicious_checkpoint(folder: Path, marker: Path) -> Path:
    """An RLlib checkpoint folder whose ``class_and_ctor_args.pkl`` creates ``marker`` when unpickled."""
    folder.mkdir()
    (folder / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(Payload(marker)))
    (folder / "rllib_checkpoint.json").write_text("{}")
    return folder


def cli_error(capsys) -> str:
    """The CLI's stderr, checked to be one ``error:`` line without a traceback; that line."""
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    return lines[0]


# --- item 1: formats that run code load only with trust ------------------------------------------


def test_an_sb3_zip_named_by_a_string_is_refused_everywhere_and_never_loaded(tmp_path, monkeypatch, capsys):
    from boardenvs.wrappers import SB3VecEnv, evaluate

    from boardenvs.league import League

    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "ran"
    malicious_zip(tmp_path / "model.zip", marker)
    calls = {
        "make_opponent": lambda spec: make_opponent(spec),
        "load_opponent": lambda spec: load_opponent(spec, "quess_v0"),
        "gymnasium.make": lambda spec: gymnasium.make("boardenvs/Quess-v0", opponent=spec),
        "gymnasium.make_vec": lambda spec: gymnasium.make_vec("boardenvs/Quess-v0", num_envs=2, opponent=spec),
        "SB3VecEnv": lambda spec: SB3VecEnv("boardenvs/Quess-v0", num_envs=2, opponent=spec),
        "evaluate's opponent": lambda spec: evaluate("random", "quess_v0", games=2, opponent=spec),
        "evaluate's agent": lambda spec: evaluate(spec, "quess_v0", games=2),
        "League": lambda spec: League(initial=spec),
    }
    for spec in ("model.zip", "model", str(tmp_path / "model.zip")):  # ".zip" may be left out, as it may be loaded
        for name, call in calls.items():
            with pytest.raises(UntrustedFileError) as info:
                call(spec)
            message = str(info.value)
            assert "runs code when it is loaded" in message and "trust=True" in message, (name, message)
            assert "--trust-files" in message and "\n" not in message, (name, message)
    for argv in (["play", "quess_v0", "--vs", "model.zip"], ["watch", "quess_v0", "--vs", "random", "model"]):
        assert main(argv) == 2
        line = cli_error(capsys)
        assert "an SB3 .zip runs code when it is loaded" in line and "--trust-files" in line
    assert not marker.exists()  # nothing in the zip ran
    # trusted, it is loaded: its pickle runs (the marker appears; that is what trust means), and a zip
    # that is no model is then one error line naming it
    with pytest.raises(ModelFileError, match=r"opponent 'model.zip' is not a saved SB3 model \(") as info:
        load_opponent("model.zip", trust=True)
    assert marker.exists() and "\n" not in str(info.value)
    marker.unlink()
    assert main(["watch", "quess_v0", "--vs", "model.zip", "--trust-files", "--quiet"]) == 2
    assert "is not a saved SB3 model" in cli_error(capsys) and marker.exists()


def test_an_rllib_checkpoint_folder_is_refused_before_any_plugin_reads_it(tmp_path, monkeypatch, capsys):
    """Named as an opponent string, a folder that looks like an RLlib
    checkpoint is refused by the core itself: the RLlib plugin is not even
    imported (it used to be, for any unknown name, and its resolver then
    unpickled the folder's ``class_and_ctor_args.pkl``)."""
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "ran"
    folder = malicious_checkpoint(tmp_path / "ckpt", marker)
    code = (
        "import sys\nfrom boardenvs import opponents\n"
        "try:\n    opponents.load_opponent(sys.argv[1])\nexcept opponents.UntrustedFileError as exc:\n"
        "    print('refused:', exc)\n"
        "print('plugins tried:', opponents._loaded, 'rllib imported:', 'boardenvs.rllib' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code, "ckpt"], capture_output=True, text=True, timeout=HANG_S)
    assert done.returncode == 0, done.stderr
    assert (
        "refused: opponent" in done.stdout and "an RLlib checkpoint folder runs code when it is loaded" in done.stdout
    )
    assert "plugins tried: ['boardenvs.baselines'] rllib imported: False" in done.stdout, done.stdout
    for call in (
        lambda: make_opponent(str(folder)),
        lambda: gymnasium.make("boardenvs/Quess-v0", opponent=str(folder)),
    ):
        with pytest.raises(UntrustedFileError, match=r"trust=True\).*--trust-files"):
            call()
    assert main(["watch", "quess_v0", "--vs", str(folder)]) == 2
    assert "an RLlib checkpoint folder runs code when it is loaded" in cli_error(capsys)
    assert not marker.exists()
    # any folder of pickles counts, marker files or not
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "state.pkl").write_bytes(pickle.dumps(Payload(marker)))
    with pytest.raises(UntrustedFileError, match="an RLlib checkpoint folder"):
        load_opponent(str(tmp_path / "other"))
    assert not marker.exists()
    # a folder of nothing loadable is named as a folder (it said "does not exist")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"opponent 'empty': .*/empty is a folder, not a saved model"):
        load_opponent("empty")


def test_our_pt_loads_without_trust_and_its_pickles_never_run(tmp_path, monkeypatch, capsys):
    """The .pt + .json format stays the default; a .pt whose pickle would
    run code (what ``torch.load`` without ``weights_only`` would do) is
    refused by the weights-only reader, as one line."""
    import torch

    monkeypatch.chdir(tmp_path)
    for ext in (".pt", ".json"):
        shutil.copy(MODEL.with_suffix(ext), tmp_path / f"good{ext}")
    assert load_opponent("good").name == "good" and load_opponent("good.pt").name == "good.pt"
    marker = tmp_path / "ran"
    torch.save({"policy": Payload(marker)}, tmp_path / "bad.pt")
    shutil.copy(MODEL.with_suffix(".json"), tmp_path / "bad.json")
    for spec in ("bad", "bad.pt", "bad.json", "baseline:bad", "search:4:bad"):
        with pytest.raises(
            ModelFileError, match=r"'bad.pt' is not a weights file torch can read \(UnpicklingError"
        ) as info:
            make_opponent(spec)
        assert str(info.value).startswith(f"opponent {spec!r}: ") and "\n" not in str(info.value)
        assert main(["watch", "quess_v0", "--vs", spec]) == 2
        assert "UnpicklingError" in cli_error(capsys)
    assert not marker.exists()
    torch.load(tmp_path / "bad.pt", weights_only=False)  # the file is what it claims: loaded with pickle, it runs
    assert marker.exists()


# --- item 1: a model's config is checked before anything is built ------------------------------------


def _config(**changes) -> dict:
    return {**json.loads(MODEL.with_suffix(".json").read_text()), **changes}


ABSURD = {  # config changes -> the words of the refusal
    "100,000 one-unit layers": (
        {"net_arch": [1] * 100_000},
        "net_arch must be a list of at most 16 layer sizes in 1..4096",
    ),
    "a layer of 10**9 units": ({"net_arch": [10**9]}, "net_arch must be a list of at most 16 layer sizes in 1..4096"),
    "a layer of 10**30 units": ({"net_arch": [10**30]}, "net_arch must be"),
    "a float width": ({"net_arch": [64.0]}, "net_arch must be"),
    "a bool width": ({"net_arch": [True]}, "net_arch must be"),
    "10**9 channels": ({"extractor_kwargs": {"channels": 10**9}}, "extractor option 'channels' must be at most 4_096"),
    "10**6 convolutions": ({"extractor_kwargs": {"layers": 10**6}}, "extractor option 'layers' must be at most 16"),
    "10**12 features": (
        {"extractor_kwargs": {"features_dim": 10**12}},
        "extractor option 'features_dim' must be at most",
    ),
    "100,000 split planes": ({"extractor_kwargs": {"split": [0] * 100_000}}, "extractor option 'split' must be a list"),
    "a string flag": ({"extractor_kwargs": {"hex": "yes"}}, "extractor option 'hex' must be true or false"),
    "an unknown option": ({"extractor_kwargs": {"zz": 1}}, "BoardCNN takes no 'zz'"),
    "every bound at once": ({"net_arch": [4096] * 16}, "parameters, more than 20_000_000"),
    "wide convolutions": ({"extractor_kwargs": {"channels": 4096, "layers": 16}}, "parameters, more than 20_000_000"),
    "an unknown game": ({"env_id": "nope_v0"}, "env_id 'nope_v0' is no registered game"),
    "an unknown extractor": ({"extractor": "transformer"}, "extractor 'transformer' is none of cnn, hexpaths, mlp"),
    "an extractor of another shape": ({"extractor": "hexpaths"}, "extractor 'hexpaths' reads Hex Quoridor's"),
    "options not a dict": ({"options": [1]}, "options must be a dict of game options"),
    "an unknown option of the game": ({"options": {"zz": 1}}, "options {'zz': 1}: TypeError: quess_v0: unknown option"),
}


@pytest.mark.parametrize("case", list(ABSURD))
def test_an_absurd_config_is_refused_before_anything_is_built(case, tmp_path, monkeypatch):
    import sb3_contrib.common.maskable.policies as policies
    import torch

    changes, words = ABSURD[case]

    def nothing_is_built(*args, **kwargs):
        raise AssertionError("a network was built or weights were read")

    monkeypatch.setattr(policies, "MaskableActorCriticPolicy", nothing_is_built)
    monkeypatch.setattr(torch, "load", nothing_is_built)
    with pytest.raises(ValueError) as info:
        networks.check_config(_config(**changes))
    assert words in str(info.value)
    with pytest.raises(ValueError, match="^" + "|".join(["net_arch", "extractor", "env_id", "options", "the network"])):
        networks.new_policy(_config(**changes))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.json").write_text(json.dumps(_config(**changes)))
    shutil.copy(MODEL.with_suffix(".pt"), tmp_path / "m.pt")
    with pytest.raises(ModelFileError) as info:
        baselines.load("m")
    message = str(info.value)
    assert message.startswith("model 'm': config 'm.json': ") and words in message
    assert len(message) < 400 and "\n" not in message


def test_the_parameter_count_is_the_built_network_s():
    """``check_config`` counts the parameters by arithmetic (nothing is
    allocated); the count is the policy's, for every committed model and
    for networks of every extractor option."""
    configs = [json.loads((baselines.MODELS / f"{name}.json").read_text()) for name in baselines.available()]
    configs += [
        _config(extractor_kwargs={"channels": 8, "layers": 2, "features_dim": 16}, net_arch=[32, 16, 8]),
        _config(net_arch=[]),
        {
            **json.loads((baselines.MODELS / "quagmire_v0.json").read_text()),
            "net_arch": [7],
            "extractor_kwargs": {"hex": True, "split": [2, 1], "pieces": 3, "around": True, "channels": 4, "layers": 1},
        },
        {
            **json.loads((baselines.MODELS / "hex_quoridor_v1.json").read_text()),
            "extractor_kwargs": {"layers": 1, "channels": 5, "split": [1], "around": True, "scale_steps": 3},
        },
        {
            **json.loads((baselines.MODELS / "tryasina_v0.json").read_text()),
            "extractor_kwargs": {"hidden": 9, "features_dim": 5},
        },
    ]
    for config in configs:
        built = sum(p.numel() for p in networks.new_policy(config).parameters())
        assert networks.check_config(config) == built, (
            config["env_id"],
            config["extractor_kwargs"],
            config["net_arch"],
        )


def test_weights_larger_than_their_network_are_refused_before_torch_reads_them(tmp_path, monkeypatch):
    import torch

    shutil.copy(MODEL.with_suffix(".json"), tmp_path / "m.json")
    count = networks.check_config(_config())
    big = tmp_path / "m.pt"
    with open(big, "wb") as f:  # a sparse file: larger than 8 bytes per parameter, nothing written
        f.truncate(8 * count + (1 << 22) + 1)
    monkeypatch.setattr(torch, "load", lambda *a, **k: pytest.fail("torch read the weights"))
    with pytest.raises(ModelFileError, match=r"its weights file has [\d_]+ bytes, more than [\d_]+$"):
        baselines.load(tmp_path / "m")
    # a zip that declares more than that (a zip bomb's sizes) is refused from its directory
    with zipfile.ZipFile(big, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("m/data.pkl", b"\0" * (8 * count + (1 << 22) + 1))
    assert big.stat().st_size < 1 << 20
    with pytest.raises(
        ModelFileError, match=r"its weights file declares [\d_]+ bytes, more than [\d_]+ for this network"
    ):
        baselines.load(tmp_path / "m")


# --- item 4: every failure of a model load is one line, rc 2 on the command line ----------------------


def _torch_zip_of_text(path):
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", b"not a pickle")


def _torch_list(path):
    import torch

    torch.save([1, 2, 3], path)


def _torch_wrong_shapes(path):
    import torch

    saved = torch.load(MODEL.with_suffix(".pt"), weights_only=True)
    key = next(k for k, v in saved.items() if v.ndim == 2)
    saved[key] = torch.zeros(3, 3)
    torch.save(saved, path)


def _torch_strings(path):
    import torch

    torch.save({"policy": "weights"}, path)


BAD_FILES = {  # name -> (the .json's text or None: the committed one, the .pt's bytes / writer or None, words)
    "config not JSON": ("{not json", None, "its config is not JSON (Expecting property name"),
    "config empty": ("", None, "its config is not JSON (Expecting value, line 1 column 1)"),
    "config not UTF-8": (b"\xff\xfe{}", None, "its config is not UTF-8 text"),
    "config nested 100,000 deep": ("[" * 100_000 + "]" * 100_000, None, "nested too deeply"),
    "config a list": ("[1, 2]", None, "a model's config is a JSON object, got list"),
    "config without env_id": (
        lambda c: {k: v for k, v in c.items() if k != "env_id"},
        None,
        "the config has no 'env_id'",
    ),
    "config without name": (
        lambda c: {k: v for k, v in c.items() if k != "name"},
        None,
        "the config's name must be a str",
    ),
    "config with a bad extractor": (lambda c: {**c, "extractor": "zzz"}, None, "extractor 'zzz' is none of"),
    "config with net_arch a string": (lambda c: {**c, "net_arch": "abc"}, None, "net_arch must be a list"),
    "config of 2 MB": (lambda c: {**c, "padding": "x" * (2 << 20)}, None, "has 2_"),
    "weights empty": (None, b"", "'m.pt' is not a weights file torch.save wrote (not a zip archive)"),
    "weights junk": (None, b"junk" * 10, "not a zip archive"),
    "weights a broken zip": (None, b"PK\x03\x04junk", "not a zip archive"),
    "weights a zip of no pickle": (None, _torch_zip_of_text, "'m.pt' is not a weights file torch can read ("),
    "weights a list": (None, _torch_list, "'m.pt' holds no network's weights (a dict of tensors)"),
    "weights of other shapes": (None, _torch_wrong_shapes, "does not fit the network its config builds for quess_v0"),
    "weights a dict of strings": (None, _torch_strings, "'m.pt' holds no network's weights (a dict of tensors)"),
}
FORMS = ("{}", "{}.pt", "baseline:{}", "search:4:{}", "search-greedy:4:{}")


def _write_bad_model(folder: Path, case: str) -> Path:
    config, weights, _ = BAD_FILES[case]
    committed = json.loads(MODEL.with_suffix(".json").read_text())
    if config is None or callable(config):
        config = json.dumps(config(committed) if callable(config) else committed)
    (folder / "m.json").write_bytes(config if isinstance(config, bytes) else config.encode())
    if weights is None:
        shutil.copy(MODEL.with_suffix(".pt"), folder / "m.pt")
    elif callable(weights):
        weights(folder / "m.pt")
    else:
        (folder / "m.pt").write_bytes(weights)
    return folder / "m"


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_model_that_cannot_be_loaded_is_one_error_line_everywhere(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    path = _write_bad_model(tmp_path, case).name  # "m"
    words = BAD_FILES[case][2]
    with pytest.raises(ModelFileError) as info:
        baselines.load(path)
    assert words in str(info.value) and "\n" not in str(info.value), str(info.value)
    for form in FORMS:
        spec = form.format(path)
        with pytest.raises(ModelFileError) as info:
            load_opponent(spec)
        message = str(info.value)
        assert message.startswith(f"opponent {spec!r}: ") and words in message and "\n" not in message, message
        assert len(message) < 500, message
        assert main(["watch", "quess_v0", "--vs", spec, "--quiet"]) == 2
        assert words in cli_error(capsys)
    assert main(["play", "quess_v0", "--vs", path, "--out", "g.json"]) == 2
    assert words in cli_error(capsys) and not (tmp_path / "g.json").exists()


@pytest.mark.parametrize(
    "spec, words",
    [
        ("baseline:" + "x" * 100_000, "no baseline 'xxx"),
        ("search:4:" + "y" * 100_000, "no baseline 'yyy"),
        ("search-greedy:4:" + "y" * 100_000, "no baseline 'yyy"),
        ("z" * 100_000 + ".pt", "no such file"),
        ("w" * 100_000, "unknown opponent 'www"),
        ("baseline:/" + "d/" * 50_000, "no baseline '/d/d/"),
    ],
)
def test_long_names_are_shortened_in_the_errors(spec, words, capsys):
    with pytest.raises(ValueError) as info:
        load_opponent(spec)
    message = str(info.value)
    assert words in message and "..." in message and len(message) < 1000 and "\n" not in message, message[:300]
    assert main(["watch", "quess_v0", "--vs", spec]) == 2
    line = cli_error(capsys)
    assert words in line and len(line) < 1100


@pytest.mark.parametrize(
    "spec, sims",
    [
        ("search:1e9:quess_v0", "1e9"),
        ("search:-3:quess_v0", "-3"),
        ("search-greedy:2.5:quess_v0", "2.5"),
        ("search:x:quess_v0", "x"),
        ("search:0:quess_v0", "0"),
        ("search:999999999:quess_v0", "999999999"),
    ],
)
def test_a_bad_simulation_count_is_named_as_one_not_as_a_missing_model(spec, sims, capsys):
    with pytest.raises(ValueError, match=rf"takes 1..100_000 simulations.*got '{sims}'") as info:
        load_opponent(spec)
    assert "no baseline" not in str(info.value)
    assert main(["watch", "quess_v0", "--vs", spec]) == 2
    assert f"got '{sims}'" in cli_error(capsys)


def test_a_committed_model_and_a_path_with_a_colon_still_load(tmp_path):
    for ext in (".pt", ".json"):
        shutil.copy(MODEL.with_suffix(ext), tmp_path / f"a:b{ext}")
    assert make_opponent(f"search:4:{tmp_path / 'a:b'}").simulations == 4
    assert make_opponent("search:quess_v0").simulations == 200
    agent = baselines.load("quess_v0")
    assert agent.env_id == "quess_v0" and "after" in repr(agent)
    pos = boardenvs.position("quess_v0")
    from boardenvs.opponents import Batch

    act = make_opponent("baseline:quess_v0").act(Batch.of_position(pos, np.random.default_rng(0)))
    assert pos.action_mask()[int(act[0])]


def test_the_errors_a_loader_raises_become_one_line(monkeypatch, capsys):
    """Whatever a plugin's loader raises for a file (an OSError, a
    RecursionError, a KeyError, torch's multi-line RuntimeError) is one
    ModelFileError line naming the opponent, and one CLI line."""
    from boardenvs import opponents

    opponents._load_plugins(all_of_them=True)  # (a plugin imported now would register into the list replaced below)
    errors = [
        OSError(36, "File name too long"),
        RecursionError("maximum recursion depth exceeded"),
        KeyError("w"),
        RuntimeError("PytorchStreamReader failed\nThis is an internal miniz error.\nmore lines"),
        EOFError(),
    ]
    for exc in errors:

        def resolver(spec, trust, exc=exc):
            if spec == "from-the-plugin":
                raise exc
            return None

        monkeypatch.setattr(opponents, "_RESOLVERS", [resolver])
        with pytest.raises(
            ModelFileError, match=rf"^opponent 'from-the-plugin': cannot be loaded \({type(exc).__name__}"
        ) as info:
            load_opponent("from-the-plugin")
        assert "\n" not in str(info.value)
        assert main(["watch", "quess_v0", "--vs", "from-the-plugin"]) == 2
        line = cli_error(capsys)
        assert type(exc).__name__ in line and "more lines" not in line
