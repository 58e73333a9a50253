"""The package as users get it: ``make check`` runs this beside
the rest of its checks.

1. Build the sdist from this tree, then the wheel from the sdist (what pip
   does for a user who installs from the sdist).
2. Check the wheel's files: every ``.py`` of ``boardenvs/`` (each game's
   package: the packaging finds them, setup.py lists none), of
   ``wrappers/`` and ``baselines/`` (installed as ``boardenvs.wrappers`` and
   ``boardenvs.baselines``), and every data file pyproject.toml's
   ``package-data`` names; nothing else (no tests, no caches, no stray
   files) beside the wheel's own metadata.
3. Install the wheel (not editable) into a new virtual environment whose
   other packages are this environment's (a ``.pth`` line: no package of
   this checkout is on its path), and from a folder outside the checkout:
   import it from the new environment, make every registered id and
   variant on every face (``boardenvs.make``, PettingZoo's registry,
   ``gymnasium.make`` / ``make_vec``, ``make_vec``, ``Position``) and step
   each, run the CLI's ``list`` / ``rules`` / ``play --help``, and load and
   play every shipped model; find every model's rating ladder and its
   match traces.

``python tests/wheel_check.py`` prints one line per check and exits 1 at the
first failure (its output says which).
"""

from __future__ import annotations

import glob
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
from backstop import HANG_S  # noqa: E402 - the one wall-clock backstop (a step that runs longer is hung)


def run(args, cwd, **kw) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=HANG_S, **kw)
    if done.returncode != 0:
        sys.exit(
            f"wheel check: {' '.join(map(str, args))} failed (rc "
            f"{done.returncode}):\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return done


def expected_files() -> set[str]:
    """The wheel's files by the source tree and pyproject.toml (dist-info aside)."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    dirs = config["package-dir"]  # installed name -> folder of the tree
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    files = set()
    for name, folder in dirs.items():
        if name.count(".") == 1 and name.startswith("boardenvs.") or name == "boardenvs":
            where = name.replace(".", "/")
            files |= {
                f"{where}/{Path(p).relative_to(folder).as_posix()}"
                for p in tracked
                if p.startswith(folder + "/")
                and p.endswith(".py")
                and (name != "boardenvs" or not p.startswith(("wrappers/", "baselines/")))
            }
    for package, patterns in config["package-data"].items():
        folder = Path(dirs[package])
        for pattern in patterns:
            files |= {
                f"{package.replace('.', '/')}/{Path(p).relative_to(folder).as_posix()}"
                for p in glob.glob(str(folder / pattern), root_dir=REPO)
                if p in tracked
            }
    return files


def check_contents(wheel: Path) -> None:
    names = {n for n in zipfile.ZipFile(wheel).namelist() if ".dist-info/" not in n}
    want = expected_files()
    missing, extra = sorted(want - names), sorted(names - want)
    if missing or extra:
        sys.exit(f"wheel check: the wheel lacks {missing[:10]} and has what the tree does not ship {extra[:10]}")
    games = sorted({n.split("/")[2] for n in names if n.startswith("boardenvs/games/") and n.count("/") == 3})
    print(
        f"wheel check: {wheel.name} holds the {len(names)} files of the tree (games: {', '.join(games)}), nothing else"
    )


PROBE = r"""
import subprocess, sys, warnings
from pathlib import Path
import numpy as np
import gymnasium, pettingzoo
import boardenvs
from boardenvs.registry import game_class, gym_id_of, registered_ids

warnings.simplefilter("ignore")
venv = Path(sys.argv[1])
assert Path(boardenvs.__file__).resolve().is_relative_to(venv.resolve()), boardenvs.__file__
faces = 0
for env_id in registered_ids():
    cls = game_class(env_id)
    gym_id = gym_id_of(cls)
    for variant in map(dict, cls.variants):
        env = boardenvs.make(env_id, **variant)
        for made in (env, pettingzoo.make("aec", gym_id, **variant)):
            made.reset(seed=0)
            for _ in made.agent_iter(12):
                obs, _, term, trunc, _ = made.last()
                made.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        par = pettingzoo.make("parallel", gym_id, **variant)
        obs, _ = par.reset(seed=0)
        par.step({a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items() if o["action_mask"].any()})
        single = gymnasium.make(gym_id, **variant)
        _, info = single.reset(seed=0)
        single.step(int(np.flatnonzero(info["action_mask"])[0]))
        view = gymnasium.make_vec(gym_id, num_envs=2, **variant)
        _, info = view.reset(seed=0)
        view.step(info["action_mask"].argmax(1))
        vec = boardenvs.make_vec(env_id, 3, **variant)
        vec.reset(seed=0)
        vec.step(vec.random_actions())
        pos = boardenvs.position(env_id, **variant)
        pos = pos.play(pos.legal_moves()[0])
        assert boardenvs.Position.from_text(pos.to_text()) == pos
        faces += 7
print(f"{faces} faces made and stepped")
from boardenvs import baselines
names = baselines.available()
assert names, "no shipped model"
for name in names:
    model = baselines.load(name)
    pos = boardenvs.position(model.env_id, **model.options)
    obs = pos.game.observe(pos.state, pos.to_move)[None]
    actions, _ = model.predict(obs, deterministic=True, action_masks=pos.action_mask()[None].astype(bool))
    action = int(actions[0])
    assert action in pos.legal_actions(), (name, action)
print(f"{len(names)} shipped models loaded and played")
from boardenvs.baselines import ladder
from boardenvs.traces import read_traces
assert set(ladder.ladder_names()) == set(names), (ladder.ladder_names(), names)
for name in names:
    doc = ladder.load_ladder(name)
    assert ladder.traces_path(name, doc["version"]).is_file(), name
read_traces(ladder.traces_path("quagmire_v0", 1))  # (every game replayed to its result)
print(f"{len(names)} rating ladders with their match traces")
cli = venv / "bin" / "boardenvs"
for args in (["list"], ["rules", "quess_v0"], ["play", "--help"]):
    done = subprocess.run([str(cli), *args], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip(), (args, done.stderr[-2000:])
print("the CLI: list, rules, play --help")
"""


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="boardenvs-wheel-") as tmp:
        tmp = Path(tmp)
        out = tmp / "dist"
        run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", out, REPO], cwd=tmp)
        (sdist,) = out.glob("boardenvs-*.tar.gz")
        run(
            [sys.executable, "-m", "pip", "wheel", sdist, "--no-deps", "--no-build-isolation", "-q", "-w", out], cwd=tmp
        )
        (wheel,) = out.glob("boardenvs-*.whl")
        print(f"wheel check: built {sdist.name} and, from it, {wheel.name}")
        check_contents(wheel)
        venv = tmp / "venv"
        run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=tmp)
        python = venv / "bin" / "python"
        run(
            [sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", wheel],
            cwd=tmp,
        )
        site = run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp).stdout.strip()
        # this environment's packages (the dependencies) on the new one's path: a plain path line,
        # so this environment's own .pth files (the editable install of the checkout) are not read
        Path(site, "_boardenvs_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        (tmp / "probe.py").write_text(PROBE)
        done = run([python, tmp / "probe.py", venv], cwd=tmp, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp)})
        print("wheel check (installed, outside the checkout): " + "; ".join(done.stdout.split("\n")[:-1]))
    print("wheel check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
