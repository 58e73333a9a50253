"""Train a masked-PPO baseline for one game.

    python -m boardenvs.baselines.train quess_v0            # -> runs/quess_v0-<date>-<time>/quess_v0.pt
    python -m boardenvs.baselines.train hex_quoridor_v1 --players 4 --steps 400000
    python -m boardenvs.baselines.train quagmire_v0 --steps 50000 --out runs/q   # -> runs/q.pt, runs/q.json
    boardenvs play quagmire_v0 -i --vs runs/q.pt                                 # play against it

sb3-contrib's ``MaskablePPO`` through :class:`boardenvs.wrappers.SB3VecEnv`
(``--num-envs`` games stepped per call by the kernels).  Opponents, drawn
per episode: a share of the ``random``, ``greedy`` and ``mcts`` (100
simulations, or ``--mcts-simulations N``) reference opponents, else self-play, a :class:`~boardenvs.wrappers.SelfPlayPool` of frozen
snapshots of the learner (one every ``--snapshot-every`` steps).  The
learner's seat is drawn per episode.  The policy's features come from
:mod:`boardenvs.baselines.extractors` (a small CNN on board planes, hex
convolutions on hex boards, an MLP on Tryasina's tracks; ``--extractor-kwargs
JSON`` and ``--net-arch N ...`` change its sizes).  ``--shaping C``
adds potential-based reward shaping with the game's own heuristic (the greedy
opponent's evaluation; :class:`ShapedRewards`): a denser signal that leaves
the optimal policies as they were (Ng, Harada & Russell, 1999).

Writes ``<out>.pt`` (the policy's weights) and ``<out>.json`` (everything
:func:`boardenvs.baselines.load` needs, with the budget spent and the
win rates measured during training), TensorBoard logs under
``<out>_tb/`` (``tensorboard --logdir ...``), and shows a progress bar.
Without ``--out``, a new run folder in the current directory:
``runs/<name>-<date>-<time>/<name>`` (the committed models in the
package's ``models/`` are never written by a run; copy a model there to
commit it).  The ``.pt`` is an opponent wherever one is named
(``boardenvs play GAME --vs PATH.pt``, ``opponent="PATH.pt"``).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper

from .greedy import heuristic_of
from .networks import (SIZE_OPTIONS, check_extractor_kwargs, game_options, model_config, model_name,  # noqa: F401
                       new_policy, policy_kwargs, same_game, trainable_ids, training_defaults)

class OpponentMix:
    """The views' per-episode opponent picker: each fixed opponent with its
    share of the episodes, else one drawn from the self-play pool."""

    def __init__(self, pool, shares: dict):
        from boardenvs.opponents import make_opponent

        total = sum(shares.values())
        if any(s < 0 for s in shares.values()) or total > 1.0:
            raise ValueError(f"opponent shares must be >= 0 and add up to at most 1, got {shares}")
        self.pool = pool
        self.fixed = [(make_opponent(name), float(share)) for name, share in shares.items() if share > 0]

    def pick(self, rng):
        u = rng.random()
        for opponent, share in self.fixed:
            if u < share:
                return opponent
            u -= share
        return self.pool.pick(rng)

    def __repr__(self) -> str:
        parts = [f"{o.name} {s:.0%}" for o, s in self.fixed]
        return f"<OpponentMix {', '.join(parts)}, else {self.pool!r}>"


class ShapedRewards(VecEnvWrapper):
    """Potential-based reward shaping (Ng, Harada & Russell, 1999): the
    learner's reward becomes ``r + gamma * phi(s') - phi(s)`` with
    ``phi(s) = coef * tanh(h / scale)``, ``h`` the game's own heuristic (the
    greedy opponent's evaluation, ``TOOLS["greedy"]["heuristic"]``) of the state at the
    learner's decision, for the learner's seat, and ``phi = 0`` once the game
    is over.  Shaping of this form leaves the optimal policies unchanged; it
    only gives the learner a denser signal.  The episode statistics SB3 logs
    (``rollout/ep_rew_mean``) stay the game's own rewards."""

    def __init__(self, venv, coef: float, scale: float, gamma: float):
        super().__init__(venv)
        inner = venv.venv  # SB3VecEnv -> SingleAgentVectorEnv
        self.inner, self.coef, self.scale, self.gamma = inner, float(coef), float(scale), float(gamma)
        game = inner.game
        heuristic = heuristic_of(game)
        if heuristic is None:
            raise ValueError(f"{inner.env_id} has no heuristic to shape rewards with")
        self.heuristic, self.params = heuristic, game.params
        self.scratch = np.zeros(game.mask_size, np.int8)
        self.phi = np.zeros(venv.num_envs)

    def _potentials(self) -> np.ndarray:
        states, seats = np.array(self.inner.vec.states), self.inner.seats  # the heuristic kernels take writable rows
        h = np.array([self.heuristic(states[i], self.params, int(seats[i]), self.scratch) for i in range(len(seats))])
        return self.coef * np.tanh(h / self.scale)

    def reset(self):
        obs = self.venv.reset()
        self.phi = self._potentials()
        return obs

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        phi = self._potentials()  # a finished row is at its next game's start already
        rewards = rewards + (self.gamma * np.where(dones, 0.0, phi) - self.phi).astype(np.float32)
        self.phi = phi
        return obs, rewards, dones, infos


def start_from(init: str | Path, config: dict):
    """The saved model ``init`` (``<init>.pt``/``.json``, or a committed model's name) a run goes on from,
    loaded (:func:`boardenvs.baselines.load`), after checking it plays
    ``config``'s game; ``config`` takes its network and records it as
    ``config["init"]`` (whose budget :func:`save_model` adds)."""
    from . import load, model_path

    init = model_path(init)
    if not (init.with_suffix(".json").is_file() and init.with_suffix(".pt").is_file()):
        raise ValueError(f"--init {init}: no {init.with_suffix('.pt')} / {init.with_suffix('.json')} pair")
    start = load(init)
    env_id, options = config["env_id"], config["options"]
    if not same_game(env_id, options, start.env_id, start.options):
        raise ValueError(f"--init {init} plays {start.env_id} {start.options}, not {env_id} {options}")
    for key in ("extractor", "extractor_kwargs", "net_arch"):
        config[key] = start.config[key]
    config["init"] = start.config
    return start


def save_model(policy, config: dict, out: Path, steps: int, wall: float, cpu: float, final: bool, cli: str) -> None:
    """Write ``<out>.pt`` (the policy's weights) and ``<out>.json``
    (``config`` with the budget: this run's steps and seconds plus those of
    the model it started from, ``config["init"]``; the command line when
    run as ``python -m boardenvs.baselines.<cli>``)."""
    import torch

    prev = config.get("init", {}).get("budget", {"steps": 0, "wall_s": 0, "cpu_s": 0})
    config["budget"] = {"steps": prev["steps"] + int(steps), "wall_s": prev["wall_s"] + round(wall),
                        "cpu_s": prev["cpu_s"] + round(cpu), "this_run_steps": int(steps),
                        "finished": final, "machine": f"{platform.machine()}, {os.cpu_count()} cores"}  # fmt: skip
    main = sys.modules.get("__main__")
    ran_as = getattr(getattr(main, "__spec__", None), "name", None) == f"boardenvs.baselines.{cli}"
    config["command"] = f"python -m boardenvs.baselines.{cli} " + " ".join(sys.argv[1:]) if ran_as else None
    config["date"] = time.strftime("%Y-%m-%d")
    torch.save({k: v.detach().cpu() for k, v in policy.state_dict().items()}, out.with_suffix(".pt"))
    out.with_suffix(".json").write_text(json.dumps(config, indent=2) + "\n")


EVAL_OPPONENTS = ("random", "greedy", "mcts")


def _progress(model, env_id: str, options: dict, games: int, seed: int, opponents=EVAL_OPPONENTS) -> dict:
    from boardenvs.wrappers import evaluate

    out = {}
    for name in opponents:
        try:
            res = evaluate(model, env_id, games=games, opponent=name, seed=seed, **options)
        except ValueError:  # no such opponent in this install
            continue
        out[name] = round(res["win_rate"], 4)
    return out


def default_out(name: str) -> Path:
    """Where a run writes without ``--out``: ``runs/<name>-<date>-<time>/<name>``
    in the current directory (a new folder per run, never the package's
    committed models)."""
    return Path("runs") / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}" / name


def train(env_id: str, steps: int | None = None, num_envs: int = 64, seed: int = 0, players: int | None = None,
          out: str | Path | None = None, random_share: float = 0.2, greedy_share: float = 0.2,
          mcts_share: float = 0.0, mcts_simulations: int = 100, snapshot_every: int = 20_000,
          eval_every: int = 50_000, eval_games: int = 100,
          eval_opponents=EVAL_OPPONENTS, n_steps: int = 128, batch_size: int = 1024, n_epochs: int = 5,
          learning_rate: float = 5e-4, ent_coef: float = 0.01, gamma: float = 0.99,
          save_every: int = 25_000, init: str | Path | None = None, shaping: float = 0.0, progress_bar: bool = True,
          extractor_kwargs: dict | None = None, net_arch: list[int] | None = None, verbose: int = 1) -> dict:  # fmt: skip
    """Train one baseline; returns its config (also written to ``<out>.json``).
    ``extractor_kwargs``: change the game's extractor options (e.g.
    ``{"hidden": 512}`` for Tryasina's :class:`TrackMLP`, ``{"layers": 6}``
    for a board CNN); ``net_arch``: the policy and value heads' layers
    (default ``[128]``).  Both come from the model with ``init``.
    ``mcts_simulations``: the simulations per decision of the ``mcts``
    opponent that plays ``mcts_share`` of the episodes (saved under the
    opponent's name: ``mcts`` at its default 100, else ``mcts:<n>``)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from boardenvs.wrappers import SB3VecEnv, SelfPlayCallback, SelfPlayPool

    defaults = training_defaults(env_id)  # ValueError naming the games for another id
    if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not shaping >= 0:
        raise ValueError(f"--shaping must be a number >= 0 (the potential's size), got {shaping!r}")
    if shaping and defaults.shaping_scale is None:  # before anything is built
        raise ValueError(f"--shaping: no shaping scale for {env_id} (its Game.training declares none)")
    from boardenvs.opponents import make_opponent

    for opponent in eval_opponents:  # a misspelt name fails now, not after the first eval_every steps
        make_opponent(opponent)
    from boardenvs.spec import is_int
    from boardenvs.wrappers.evaluation import MAX_GAMES

    if eval_every and not (is_int(eval_games) and 1 <= eval_games <= MAX_GAMES):  # now, not at the first check
        raise ValueError(f"eval_games must be an int in 1..{MAX_GAMES:_} (evaluate's bound), got {eval_games!r}")
    steps = int(steps or defaults.steps)
    config = model_config(env_id, players)
    name, options = config["name"], config["options"]

    if init is not None and (extractor_kwargs or net_arch):
        raise ValueError("the network comes from the --init model: extractor options (--extractor-kwargs) and "
                         "net_arch (--net-arch) cannot change it")  # fmt: skip
    config["extractor_kwargs"] = {**config["extractor_kwargs"], **check_extractor_kwargs(extractor_kwargs or {})}
    if net_arch is not None:
        if not net_arch or not all(is_int(n) and n >= 1 for n in net_arch):
            raise ValueError(f"net_arch must be layer sizes >= 1, got {net_arch!r}")
        config["net_arch"] = [int(n) for n in net_arch]
    if init is None:
        new_policy(config)  # a bad extractor option fails now (ValueError), before anything is built
    out = Path(out) if out is not None else default_out(name)

    if isinstance(mcts_simulations, bool) or not is_int(mcts_simulations) or mcts_simulations < 1:
        raise ValueError(f"mcts_simulations must be a positive int (simulations per decision), got {mcts_simulations!r}")
    mcts_name = make_opponent(f"mcts:{int(mcts_simulations)}").name  # mcts' own bound and name ("mcts" at its default)
    shares = {"random": random_share, "greedy": greedy_share, mcts_name: mcts_share}  # the rest: self-play
    config |= {
        "hyperparameters": {"num_envs": num_envs, "n_steps": n_steps, "batch_size": batch_size, "n_epochs": n_epochs,
                            "learning_rate": learning_rate, "ent_coef": ent_coef, "gamma": gamma, "seed": seed},
        "opponents": shares | {"self-play": round(1.0 - sum(shares.values()), 4), "snapshot_every": snapshot_every},
    }  # fmt: skip
    # the network is the saved model's (its extractor options may differ from the game's defaults)
    start = start_from(init, config) if init is not None else None
    pool = SelfPlayPool(max_size=20, latest_prob=0.5)
    mix = OpponentMix(pool, shares)
    # the board extractors read the planes (flatten=False); seeded by MaskablePPO(seed=...)
    env = SB3VecEnv(env_id, num_envs=num_envs, opponent=mix, flatten=False, **options)
    if shaping:
        env = ShapedRewards(env, shaping, defaults.shaping_scale, gamma)
        config["shaping"] = {"coef": shaping, "scale": defaults.shaping_scale, "potential": "coef * tanh(heuristic / scale)"}
    out.parent.mkdir(parents=True, exist_ok=True)  # once everything is checked: a refused run makes no folder
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=batch_size, n_epochs=n_epochs, learning_rate=learning_rate,
                        ent_coef=ent_coef, gamma=gamma, seed=seed, policy_kwargs=policy_kwargs(config),
                        tensorboard_log=str(out.parent / f"{out.name}_tb"), verbose=0, device="cpu")  # fmt: skip
    if start is not None:  # go on from a saved policy (its budget is added to this run's)
        model.policy.load_state_dict(start.policy.state_dict())
    history = []

    class Progress(BaseCallback):
        def __init__(self):
            super().__init__()
            self.next = eval_every

        def _on_step(self) -> bool:
            if eval_every and self.num_timesteps >= self.next:
                self.next += eval_every
                rates = _progress(self.model, env_id, options, eval_games, seed + 7, eval_opponents)
                history.append({"steps": self.num_timesteps, "wall_s": round(time.perf_counter() - t0), **rates})
                for k, v in rates.items():
                    self.logger.record(f"eval/win_rate_vs_{k}", v)
                if verbose:
                    print(f"[{name}] {self.num_timesteps} steps, {time.perf_counter() - t0:.0f} s: win rate {rates}",
                          flush=True)  # fmt: skip
            return True

    def save(final: bool) -> None:
        config["history"] = history
        save_model(model.policy, config, out, model.num_timesteps, time.perf_counter() - t0, time.process_time() - c0,
                   final, "train")  # fmt: skip

    class Checkpoint(BaseCallback):
        """The weights and config so far, every ``save_every`` steps (a run
        stopped early keeps its last checkpoint)."""

        def __init__(self):
            super().__init__()
            self.next = save_every

        def _on_step(self) -> bool:
            if save_every and self.num_timesteps >= self.next:
                self.next += save_every
                save(final=False)
            return True

    c0, t0 = time.process_time(), time.perf_counter()
    callbacks = [SelfPlayCallback(pool, every=snapshot_every), Progress(), Checkpoint()]
    model.learn(steps, callback=callbacks, progress_bar=progress_bar)
    save(final=True)
    if verbose:
        b = config["budget"]
        print(f"[{name}] saved {out.with_suffix('.pt')} ({out.with_suffix('.pt').stat().st_size / 1e6:.2f} MB) "
              f"after {b['steps']} steps, {b['wall_s']} s wall, {b['cpu_s']} s CPU")  # fmt: skip
    return config


def main(argv=None, prog: str = "python -m boardenvs.baselines.train") -> int:
    from boardenvs.helptext import help_text

    ap = argparse.ArgumentParser(prog=prog, description=help_text(__doc__))
    ap.add_argument("game", choices=sorted(trainable_ids()), help="the env id")
    ap.add_argument("--steps", type=int, default=None, help="environment steps (default: the committed model's budget)")
    ap.add_argument("--num-envs", type=int, default=64, help="games stepped per call (default 64)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--players", type=int, default=None, help="player count (Hex Quoridor, Tryasina)")
    ap.add_argument("--out", default=None, help="where to write <out>.pt/.json and <out>_tb/ (default: a new run "
                    "folder, runs/<name>-<date>-<time>/<name>; the package's committed models are never overwritten)")  # fmt: skip
    ap.add_argument("--random-share", type=float, default=0.2, help="share of episodes against random (default 0.2)")
    ap.add_argument("--greedy-share", type=float, default=0.2, help="share of episodes against greedy (default 0.2)")
    ap.add_argument("--mcts-share", type=float, default=0.0,
                    help="share of episodes against mcts (default 0)")
    ap.add_argument("--mcts-simulations", type=int, default=100,
                    help="simulations per decision of that mcts opponent (default 100)")
    ap.add_argument("--snapshot-every", type=int, default=20_000, help="steps between self-play snapshots")
    ap.add_argument("--eval-every", type=int, default=50_000, help="steps between win-rate checks (0: none)")
    ap.add_argument("--eval-games", type=int, default=100,
                    help="games per opponent in each win-rate check (default 100, at most 10,000,000)")
    ap.add_argument("--eval-vs", nargs="+", default=list(EVAL_OPPONENTS), metavar="NAME",
                    help="the opponents of the win-rate checks (default: random greedy mcts)")
    ap.add_argument("--batch-size", type=int, default=1024, help="PPO minibatch (default 1024)")
    ap.add_argument("--epochs", type=int, default=5, help="PPO epochs per rollout (default 5)")
    ap.add_argument("--lr", type=float, default=5e-4, help="learning rate (default 5e-4)")
    ap.add_argument("--gamma", type=float, default=0.99, help="discount (default 0.99)")
    ap.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus (default 0.01)")
    ap.add_argument("--shaping", type=float, default=0.0,
                    help="potential-based reward shaping with the game's heuristic, this big at most (default 0: none)")
    ap.add_argument("--init", default=None, help="start from this saved model (<path>.pt/.json) instead of from scratch")
    ap.add_argument("--extractor-kwargs", default=None, metavar="JSON",
                    help='the game\'s extractor options changed, e.g. \'{"hidden": 512}\' (Tryasina) or \'{"layers": 6}\'')
    ap.add_argument("--net-arch", type=int, nargs="+", default=None, metavar="N",
                    help="the policy and value heads' layer sizes (default 128)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    for flag in ("steps", "num_envs", "snapshot_every", "batch_size", "epochs", "eval_games"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            ap.error(f"--{flag.replace('_', '-')} must be a positive int, got {value}")
    if not 0.0 < args.gamma <= 1.0:
        ap.error(f"--gamma must be in (0, 1], got {args.gamma}")
    if not args.ent_coef >= 0.0:
        ap.error(f"--ent-coef must be >= 0, got {args.ent_coef}")
    extractor_kwargs = None
    if args.extractor_kwargs is not None:
        try:
            extractor_kwargs = json.loads(args.extractor_kwargs)
        except json.JSONDecodeError as exc:
            ap.error(f"--extractor-kwargs must be a JSON object, got {args.extractor_kwargs!r} ({exc.msg})")
        if not isinstance(extractor_kwargs, dict):
            ap.error(f"--extractor-kwargs must be a JSON object, got {args.extractor_kwargs!r}")
    try:
        train(args.game, steps=args.steps, num_envs=args.num_envs, seed=args.seed, players=args.players, out=args.out,
              random_share=args.random_share, greedy_share=args.greedy_share, mcts_share=args.mcts_share,
              mcts_simulations=args.mcts_simulations, snapshot_every=args.snapshot_every,
              eval_every=args.eval_every, eval_games=args.eval_games,
              eval_opponents=tuple(args.eval_vs), batch_size=args.batch_size, n_epochs=args.epochs, learning_rate=args.lr,
              gamma=args.gamma, ent_coef=args.ent_coef, init=args.init, shaping=args.shaping,
              progress_bar=not args.no_progress, extractor_kwargs=extractor_kwargs, net_arch=args.net_arch)  # fmt: skip
    except ValueError as exc:
        ap.error(str(exc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
