"""Ray RLlib (new API stack): masked PPO on every game, on one machine or a cluster.

    pip install "boardenvs[rllib]"

    import boardenvs.rllib as brl
    algo = brl.ppo_config("quess_v0", opponent="random", num_env_runners=2).build_algo()
    for _ in range(20):
        algo.train()
    bot = brl.opponent(algo)          # an opponent everywhere one is named

What this module gives (importing it registers every env id with Ray Tune's
registry, so ``config.environment("quess_v0", env_config={...options})``
works; the gymnasium ids work for the single-agent view):

* :class:`BoardMultiAgentEnv` — an RLlib ``MultiAgentEnv`` over a game's
  kernels: turn-based (an observation only for the agent to act), the action
  mask in the observation (``{"observations", "action_mask"}``), chance
  resolved inside by the seeded die, eliminations and teams, the game's
  rewards to every agent at the end (-1 to an eliminated one when it leaves),
  ``illegal_action`` as on every face ("lose" by default); RLlib's env
  checker passes without ``disable_env_checking``.
* :class:`MaskedBoardModule` — a torch RLModule for PPO whose logits of
  illegal actions are masked in exploration, inference and training; a
  board-shaped encoder (3x3 convolutions over the planes; on hex boards
  hexagonal ones, the two taps two steps away zeroed) where the game is a
  board, an MLP elsewhere.
* :class:`BoardEnvRunner` — RLlib's env runner over the engine's learner
  loop (``ppo_config``'s and ``appo_config``'s default): each runner steps
  ``envs_per_runner`` games per call (the single-agent view over
  ``make_vec``) against ``opponent``: a name (``"random"``, ``"greedy"``,
  ``"mcts"``, ``"baseline:<model>"``, a model path) or ``"self-play"``
  (:class:`SnapshotPool`: a league of snapshots of the learner, taken by
  :class:`SelfPlayCallback` and synced to every remote runner, with the
  random and greedy players), runs the module once per step over every
  game, and builds RLlib's episodes once per sample
  (:class:`SampledEpisodes`, which travel as a few arrays);
  ``env_runner="rllib"`` gives RLlib's own ``SingleAgentEnvRunner`` over
  the same view instead (NEXT_STEP auto-reset, step by step).
* :func:`ppo_config` — a ready ``PPOConfig`` (the module, the runners, the
  callbacks); :func:`appo_config` the same for APPO or IMPALA, RLlib's
  asynchronous algorithms; ``multi_agent=True`` builds the native multi-agent route
  instead (:class:`BoardMultiAgentEnv`, a policy per role, the main policy
  against frozen snapshots added as modules: RLlib's league tools).
* :func:`opponent` — a trained RLlib policy (an Algorithm, or a checkpoint
  folder with ``trust=True``: its loader unpickles) as an opponent for
  :func:`boardenvs.wrappers.evaluate`, ``gymnasium.make(..., opponent=...)``
  and ``boardenvs play --vs <folder> --trust-files``.
"""

from __future__ import annotations

import math
import threading
import time
import uuid
from pathlib import Path

import gymnasium
import numpy as np

try:
    import ray  # noqa: F401 - (the extra's check: an ImportError names what is missing)
    import torch
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.callbacks.utils import make_callback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
    from ray.rllib.core.learner.utils import make_target_network
    from ray.rllib.core.rl_module.apis import TARGET_NETWORK_ACTION_DIST_INPUTS, TargetNetworkAPI
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode
    from ray.rllib.utils.metrics import ENV_STEP_TIMER, RLMODULE_INFERENCE_TIMER, WEIGHTS_SEQ_NO
    from ray.tune.registry import register_env
    from torch import nn
except ImportError as exc:  # pragma: no cover - the extra is missing
    raise ImportError("boardenvs.rllib needs Ray RLlib and torch: pip install 'boardenvs[rllib]'") from exc

from . import engine as E
from .errors import ILLEGAL_ACTION_HELP, IllegalActionError, ModelFileError, first_line, shorten
from .fresh import FreshArrays
from .opponents import CHECKPOINT_FILES, Batch, Opponent, make_opponent, register_adapter, register_resolver, untrusted
from .registry import game_class, gym_id_of, make_game, registered_ids, tool_settings
from .spaces import LegalDiscrete, LegalOf
from .spec import ILLEGAL_ACTION_DEFAULT, check_flag, check_illegal_action, check_seed, check_size

OBS_KEY, MASK_KEY = "observations", "action_mask"
MASKED_LOGIT = -1e9  # an illegal action's logit: exp() of it is 0 in float32


# --- the multi-agent env ---------------------------------------------------------------


class BoardMultiAgentEnv(MultiAgentEnv):
    """A game as an RLlib ``MultiAgentEnv`` (see the module docstring).

    ``env_config``: the game's options, and ``env_id`` (the game),
    ``illegal_action`` ("lose", "raise", "random"), ``flatten`` (False:
    the planes, True: one vector)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        env_id = config.pop("env_id", None)
        if env_id is None:
            raise ValueError(f"BoardMultiAgentEnv needs env_config['env_id'] (one of {', '.join(registered_ids())})")
        illegal = check_illegal_action(config.pop("illegal_action", ILLEGAL_ACTION_DEFAULT), f"{env_id}: ")
        flatten = check_flag("flatten", config.pop("flatten", False), f"{env_id}: ")  # ("no" is no False; issue 47)
        config.pop("num_envs", None)  # RLlib's vector hint: one game per env here
        self.game = game = make_game(env_id, **config)
        self.env_id, self.illegal_action, self.flatten = env_id, illegal, flatten
        info = game.info
        low, high = (info.obs_low.ravel(), info.obs_high.ravel()) if flatten else (info.obs_low, info.obs_high)
        obs_space = gymnasium.spaces.Dict(
            {
                OBS_KEY: gymnasium.spaces.Box(low, high, low.shape, np.int8),
                MASK_KEY: gymnasium.spaces.Box(0, 1, (info.num_actions,), np.int8),
            }
        )
        self.possible_agents = list(game.agents)
        self.agents = []
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: LegalDiscrete(info.num_actions, LegalOf(self, a)) for a in self.possible_agents}
        self._state = None
        self._mask = np.zeros(game.mask_size, np.int8)  # the engine's mask of the row, kept current by its step
        self._done: set = set()
        self.np_random = np.random.default_rng()
        self._call_lock = threading.RLock()  # reset / step take turns between threads (issue 47)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_call_lock", None)
        return state

    def __setstate__(self, state):
        """An unpickled env: its row checked as a Position's (C-6), its mask
        computed again from it (what the step trusts is never a pickle's)."""
        self.__dict__.update(state)
        self._call_lock = threading.RLock()
        game = self.game
        self._mask = np.zeros(game.mask_size, np.int8)
        if self._state is not None:
            self._state = row = self._state.copy() if isinstance(self._state, np.ndarray) else self._state
            game.check_row(row, "an unpickled env's row")
            game.settle(row, self._mask, resolve=False)

    # -- RLlib's API ------------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        with self._call_lock:
            return self._reset(seed)

    def step(self, action_dict):
        """The action of the agent to act (calls from two threads take turns)."""
        with self._call_lock:
            return self._step(action_dict)

    def _reset(self, seed):
        if seed is not None:
            self.np_random = np.random.default_rng(check_seed(seed))
        game = self.game
        first = int(game.params[E.P_FIRST])
        if first < 0:
            first = int(self.np_random.integers(game.num_players))
        self._state = game.new_state(first, rng_seed=int(self.np_random.integers(2**62)))
        game.settle(self._state, self._mask)  # the seeded die, the mask of whoever acts
        self.agents = list(self.possible_agents)
        self._done = set()
        return self._observe(), {a: {} for a in self._observe()}

    def _step(self, action_dict):
        if self._state is None:
            raise ValueError(f"{self.env_id}: step() before reset()")
        game, state = self.game, self._state
        agent = self._to_act()
        if agent is None or set(action_dict) != {agent}:
            raise IllegalActionError(
                f"{self.env_id}: step() takes the action of the agent to act, {agent!r}; got {sorted(action_dict)}"
            )
        action = action_dict[agent]
        mask = self._mask[: game.num_actions]
        legal = (
            isinstance(action, (int, np.integer))
            and not isinstance(action, bool)
            and 0 <= int(action) < mask.shape[0]
            and mask[int(action)]
        )
        infos = {}
        if not legal:
            if self.illegal_action == "raise":
                raise IllegalActionError(
                    f"{self.env_id}: {agent} sent {action!r}: not a legal action now. {ILLEGAL_ACTION_HELP}"
                )
            infos[agent] = {"illegal_action": True}
            # the engine's step: -1 forfeits the mover ("lose"); "random" plays a draw of the env's generator
            action = -1 if self.illegal_action == "lose" else int(self.np_random.choice(np.flatnonzero(mask)))
        game.step(state, int(action), self._mask)  # the engine's one step (chance by the seeded die)
        rewards, terminateds, truncateds = {agent: 0.0}, {}, {}  # the actor's step reward (RLlib wants one per action)
        over = state[E.H_STATUS] != E.PLAYING
        for s, a in enumerate(self.possible_agents):
            if a in self._done:
                continue
            out = not (int(state[E.H_ALIVE]) >> s) & 1
            if over or out:
                rewards[a] = float(state[E.H_RET + s])
                terminateds[a] = bool(out or state[E.H_STATUS] == E.TERMINATED)
                truncateds[a] = bool(not terminateds[a])
                infos.setdefault(a, {})["end_reason"] = game.end_reason(state) if over else "eliminated"
                self._done.add(a)
        terminateds["__all__"] = bool(over and state[E.H_STATUS] == E.TERMINATED)
        truncateds["__all__"] = bool(over and state[E.H_STATUS] == E.TRUNCATED)
        self.agents = [a for a in self.possible_agents if a not in self._done]
        # a truncated agent gets its last observation (RLlib bootstraps its value from it)
        obs = self._observe(last=[a for a, cut in truncateds.items() if cut and a != "__all__"])
        for a in obs:
            infos.setdefault(a, {})
        return obs, rewards, terminateds, truncateds, infos

    # -- inside ---------------------------------------------------------------------------
    def _to_act(self):
        state = self._state
        if state is None or state[E.H_STATUS] != E.PLAYING:
            return None
        return self.possible_agents[int(state[E.H_CURRENT])]

    def legal_mask_of(self, agent):
        """The int8 mask of ``agent`` if it is to act, else None (``action_space(agent).sample()``)."""
        if agent != self._to_act():
            return None
        return self._mask[: self.game.num_actions].copy()

    def _observe(self, last=()) -> dict:
        """The agent to act's observation, and the last one (an empty mask)
        of each agent in ``last``."""
        out = {}
        for agent in last:
            out[agent] = self._observation(agent, np.zeros(self.game.num_actions, np.int8))
        agent = self._to_act()
        if agent is not None:
            out[agent] = self._observation(agent, self.legal_mask_of(agent).astype(np.int8))
        return out

    def _observation(self, agent, mask) -> dict:
        obs = self.game.observe(self._state, self.possible_agents.index(agent))
        return {OBS_KEY: obs.ravel() if self.flatten else obs, MASK_KEY: mask}

    def position(self):
        """A Position snapshot of the game."""
        from .position import Position

        return Position._own(self.game, self._state.copy())


# --- the masked module -------------------------------------------------------------------


class _HexConv(nn.Conv2d):
    """A 3x3 convolution over a hex board's axial grid that sees a cell and
    its six neighbours: the two taps two steps away are zeroed."""

    def __init__(self, cin, cout):
        super().__init__(cin, cout, 3, padding=1)
        mask = torch.ones(1, 1, 3, 3)
        mask[..., 0, 0] = mask[..., 2, 2] = 0.0
        self.register_buffer("hex_mask", mask)

    def forward(self, x):
        return self._conv_forward(x, self.weight * self.hex_mask, self.bias)


class MaskedBoardModule(TorchRLModule, ValueFunctionAPI, TargetNetworkAPI):
    """PPO's, APPO's and IMPALA's torch RLModule with action masking (see the
    module docstring); APPO's target network (a copy of the encoder and the
    policy head, :class:`TargetNetworkAPI`) masks its logits the same way.

    ``model_config``: ``plane_shape`` (the observation's planes, channels
    last; the observation may come flat), ``hex`` (a hex board), ``high``
    (the observation's upper bounds, for scaling to [0, 1]), ``channels``
    (32), ``layers`` (3), ``hidden`` (256)."""

    def setup(self):
        cfg = dict(self.model_config or {})
        space = (
            self.observation_space[OBS_KEY]
            if isinstance(self.observation_space, gymnasium.spaces.Dict)
            else self.observation_space
        )
        self.plane_shape = tuple(cfg.get("plane_shape") or space.shape)
        high = np.asarray(cfg.get("high", space.high), np.float32).reshape(-1)
        self.register_buffer("scale", torch.as_tensor(1.0 / np.maximum(high, 1.0)))
        hidden = int(cfg.get("hidden", 256))
        n_actions = self.action_space.n
        if len(self.plane_shape) == 3:  # board planes (H, W, C): convolutions that keep the board's size
            channels, layers = int(cfg.get("channels", 32)), int(cfg.get("layers", 3))
            conv = _HexConv if cfg.get("hex") else (lambda i, o: nn.Conv2d(i, o, 3, padding=1))
            blocks, cin = [], self.plane_shape[2]
            for _ in range(layers):
                blocks += [conv(cin, channels), nn.ReLU()]
                cin = channels
            h, w = self.plane_shape[:2]
            self.encoder = nn.Sequential(*blocks, nn.Flatten(), nn.Linear(channels * h * w, hidden), nn.ReLU())
        else:  # tracks and other planes: an MLP
            self.encoder = nn.Sequential(
                nn.Linear(int(math.prod(self.plane_shape)), hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
            )
        self.pi = nn.Linear(hidden, n_actions)
        self.vf = nn.Linear(hidden, 1)

    def _planes(self, obs):
        x = obs.float().reshape(obs.shape[0], -1) * self.scale
        if len(self.plane_shape) == 3:
            x = x.reshape(obs.shape[0], *self.plane_shape).permute(0, 3, 1, 2)
        return x

    def _embed(self, obs):
        return self.encoder(self._planes(obs))

    def _masked(self, embeddings, mask):
        logits = self.pi(embeddings)
        return torch.where(mask.bool(), logits, torch.full_like(logits, MASKED_LOGIT))

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        return {Columns.ACTION_DIST_INPUTS: self._masked(self._embed(obs[OBS_KEY]), obs[MASK_KEY])}

    def _forward_train(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        emb = self._embed(obs[OBS_KEY])
        return {Columns.ACTION_DIST_INPUTS: self._masked(emb, obs[MASK_KEY]), Columns.EMBEDDINGS: emb}

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            embeddings = self._embed(batch[Columns.OBS][OBS_KEY])
        return self.vf(embeddings).squeeze(-1)

    # APPO's target network (its learner makes it; PPO and IMPALA never do)
    def make_target_networks(self):
        self._old_encoder = make_target_network(self.encoder)
        self._old_pi = make_target_network(self.pi)

    def get_target_network_pairs(self):
        return [(self.encoder, self._old_encoder), (self.pi, self._old_pi)]

    def forward_target(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        logits = self._old_pi(self._old_encoder(self._planes(obs[OBS_KEY])))
        return {
            TARGET_NETWORK_ACTION_DIST_INPUTS: torch.where(
                obs[MASK_KEY].bool(), logits, torch.full_like(logits, MASKED_LOGIT)
            )
        }

    def get_non_inference_attributes(self):
        return [*super().get_non_inference_attributes(), "_old_encoder", "_old_pi"]


def module_spec(env_id: str, **options) -> RLModuleSpec:
    """The :class:`MaskedBoardModule` spec of a game (its planes, bounds and board kind)."""
    game = make_game(env_id, **options)
    training = tool_settings(game, "training") or {}
    return RLModuleSpec(
        module_class=MaskedBoardModule,
        model_config={
            "plane_shape": list(game.obs_shape),
            "high": game.info.obs_high.reshape(-1).tolist(),
            "hex": bool(training.get("extractor_kwargs", {}).get("hex")),
        },
    )


# --- an RLlib policy as an opponent -------------------------------------------------------


class ModuleOpponent(Opponent):
    """An RLlib :class:`MaskedBoardModule` (its weights) as an opponent: its
    most likely legal action (``deterministic``), else a draw from its
    masked distribution with the batch's generator."""

    def __init__(self, module, deterministic: bool = True, name: str = "rllib"):
        self.module, self.deterministic, self.name = module, deterministic, name
        self.module.eval()

    def act(self, batch: Batch) -> np.ndarray:
        obs = np.asarray(batch.observations).reshape(len(batch), -1)
        with torch.no_grad():
            out = self.module.forward_inference(
                {Columns.OBS: {OBS_KEY: torch.as_tensor(obs), MASK_KEY: torch.as_tensor(batch.masks.astype(np.int8))}}
            )
            logits = out[Columns.ACTION_DIST_INPUTS].double().numpy()
        logits = np.where(batch.masks, logits, -np.inf)
        if self.deterministic:
            return np.argmax(logits, axis=1).astype(np.int64)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs /= probs.sum(axis=1, keepdims=True)
        u = batch.rng.random((len(batch), 1))
        return np.minimum((np.cumsum(probs, axis=1) < u).sum(axis=1), batch.masks.shape[1] - 1).astype(np.int64)


def opponent(source, deterministic: bool = True, *, trust: bool = False) -> ModuleOpponent:
    """A trained RLlib policy as an opponent: ``source`` an Algorithm (its
    default module, with its learner's weights), an RLModule, or a checkpoint folder (of an Algorithm
    saved with ``algo.save(path)``, or of the module itself).  A checkpoint
    loads only with ``trust=True``: RLlib's loader unpickles its files, so
    a checkpoint runs code when loaded (:class:`~boardenvs.errors.UntrustedFileError`
    without it).  Accepted wherever an opponent is named:
    :func:`boardenvs.wrappers.evaluate`, ``gymnasium.make(...,
    opponent=...)``; ``boardenvs play --vs <folder> --trust-files``."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    if hasattr(source, "get_module"):
        spec, state = _learned(source)
        module = spec.build()
        module.set_state(state)
        return ModuleOpponent(module, deterministic, name="rllib")
    if isinstance(source, RLModule):
        return ModuleOpponent(source, deterministic, name="rllib")
    if not isinstance(source, (str, Path)):
        raise ValueError(f"{shorten(repr(source))} is no RLlib Algorithm, RLModule or checkpoint folder")
    shown = shorten(repr(str(source)))
    path = Path(source)
    for candidate in (path / "learner_group" / "learner" / "rl_module" / "default_policy", path):
        try:
            found = (candidate / "module_state.pt").is_file() or (candidate / "class_and_ctor_args.pkl").is_file()
        except (OSError, ValueError):  # a name too long for the system, a NUL byte: nothing there
            found = False
        if not found:
            continue
        if trust is not True:
            raise untrusted(str(source), "an RLlib checkpoint folder")
        try:
            module = RLModule.from_checkpoint(str(candidate.resolve()))
        except Exception as exc:  # whatever a checkpoint that is not one makes RLlib raise
            raise ModelFileError(
                f"opponent {shown}: not an RLlib checkpoint RLlib can load ({first_line(exc)})"
            ) from None
        return ModuleOpponent(module, deterministic, name=str(source))
    raise ValueError(
        f"{shown} is no RLlib Algorithm, RLModule or checkpoint folder (of algo.save(path) or of a module)"
    )


def _learned(algorithm) -> tuple:
    """An Algorithm's default module: its spec and the learner's weights (an
    asynchronous algorithm, APPO or IMPALA, syncs only its remote runners:
    the driver's own module is stale there)."""
    local = algorithm.get_module()
    if local is None:
        raise ValueError(f"{algorithm!r} has no local module; build it with a local learner or load a checkpoint")
    state = local.get_state()
    group = getattr(algorithm, "learner_group", None)
    if group is not None:
        from ray.rllib.core import DEFAULT_MODULE_ID

        learned = group.get_weights(module_ids=[DEFAULT_MODULE_ID]).get(DEFAULT_MODULE_ID)
        if learned is not None:
            state = {k: learned[k] for k in state}  # (the learner's module may hold more: APPO's target network)
    return RLModuleSpec.from_module(local), {
        k: v.detach().cpu() if hasattr(v, "detach") else v for k, v in state.items()
    }


def _checkpoint(spec: str, trust: bool = False):
    """The core's resolver for RLlib checkpoint folders named as opponents
    (``boardenvs play GAME --vs <folder> --trust-files``): only with
    ``trust`` (else :func:`boardenvs.opponents.untrusted`'s error); None
    for anything else."""
    path = Path(spec)
    try:
        if not path.is_dir() or not any((path / f).exists() for f in CHECKPOINT_FILES):
            return None
    except (OSError, ValueError):
        return None
    if trust is not True:
        raise untrusted(spec, "an RLlib checkpoint folder")
    return opponent(path, trust=True)


def _module_adapter(obj):
    from ray.rllib.core.rl_module.rl_module import RLModule

    if isinstance(obj, RLModule) or (hasattr(obj, "get_module") and hasattr(obj, "train")):
        return opponent(obj)
    return None


register_adapter(_module_adapter)
register_resolver(_checkpoint)


# --- self-play across the cluster ----------------------------------------------------------


class SnapshotPool:
    """Self-play opponents on the env runners: a league of up to
    ``max_size`` frozen snapshots of the learner (module weights) and the
    named opponents ``others`` (``"random"``, ``"greedy"``, anything
    :func:`~boardenvs.opponents.make_opponent` takes), one picked per
    episode: one of ``others`` (uniformly) with probability ``others_prob``,
    else the latest snapshot with probability ``latest_prob``, else one of
    the pool's snapshots uniformly; ``initial`` while there is no snapshot
    yet.  :class:`SelfPlayCallback` adds snapshots on the driver and every
    remote runner; the pool goes to the runners in the env config.  Each
    round of a step asks each opponent once, over every row where it is to
    move (one forward per snapshot; every seat but the learner's, 2 to 6
    players)."""

    def __init__(
        self,
        max_size: int = 8,
        latest_prob: float = 0.5,
        initial="random",
        others=("random", "greedy"),
        others_prob: float = 0.2,
    ):
        self.max_size = check_size("max_size", max_size, 1000)
        for name, p in (("latest_prob", latest_prob), ("others_prob", others_prob)):
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
                raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
        if isinstance(others, str) or not all(isinstance(o, str) for o in others):
            raise ValueError(f"others must be a sequence of opponent names, got {others!r}")
        self.latest_prob, self.others_prob = float(latest_prob), float(others_prob)
        self.initial_name, self.other_names = initial, tuple(others)
        self.spec = None
        self.added = 0
        self._opponents: list = []
        self._initial = None
        self._others = [make_opponent(o) for o in self.other_names]  # (a bad name: its error, here)

    def add(self, spec, state) -> None:
        """Add a snapshot: the module's spec and its weights (a state dict)."""
        self.spec = spec
        module = spec.build()
        module.set_state(state)
        self.added += 1
        self._opponents.append(ModuleOpponent(module, deterministic=False, name=f"snapshot {self.added}"))
        del self._opponents[: -self.max_size]

    def pick(self, rng) -> Opponent:
        if not self._opponents:
            if self._initial is None:
                self._initial = make_opponent(self.initial_name)
            return self._initial
        if self._others and rng.random() < self.others_prob:
            return self._others[int(rng.integers(len(self._others)))]
        if rng.random() < self.latest_prob:
            return self._opponents[-1]
        return self._opponents[int(rng.integers(len(self._opponents)))]

    def __len__(self) -> int:
        return len(self._opponents)

    def __getstate__(self):  # sent to the runners empty: snapshots come by the callback
        return {
            "max_size": self.max_size,
            "latest_prob": self.latest_prob,
            "initial_name": self.initial_name,
            "other_names": self.other_names,
            "others_prob": self.others_prob,
        }

    def __setstate__(self, state):
        self.__init__(
            state["max_size"], state["latest_prob"], state["initial_name"], state["other_names"], state["others_prob"]
        )


class SelfPlayCallback(RLlibCallback):
    """Every ``every`` training iterations, a snapshot of the learner's module
    goes into the :class:`SnapshotPool` of every env runner (the local one
    and the remote ones).  Every iteration's result has
    ``"self_play_pool_sizes"``: the pools' sizes after the last snapshot
    (``[]`` before the first)."""

    def __init__(self, every: int = 2):
        super().__init__()
        self.every = every
        self.sizes: list = []

    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs):
        if algorithm.iteration % self.every:
            result["self_play_pool_sizes"] = list(self.sizes)
            return
        spec, state = _learned(algorithm)

        def add(runner):
            pool = getattr(getattr(runner, "env", None), "unwrapped", None)
            pool = getattr(pool, "opponents", None)
            if isinstance(pool, SnapshotPool):
                pool.add(spec, state)
                return len(pool)
            return None  # a runner without env (the driver's, when remote runners sample)

        sizes = algorithm.env_runner_group.foreach_env_runner(add, local_env_runner=True)
        self.sizes = [n for n in sizes if n is not None]
        result["self_play_pool_sizes"] = list(self.sizes)


class LeagueMapping:
    """The native multi-agent route's self-play: in each episode one seat
    (drawn from the episode's id) is the trained module ``"main"``, every
    other seat one of the frozen snapshots (``"main"`` itself while there is
    none).  A picklable callable RLlib calls per agent and episode."""

    def __init__(self, snapshots=()):
        self.snapshots = list(snapshots)

    def __call__(self, agent_id, episode, **kwargs):
        seat = int(str(agent_id).rpartition("_")[2])
        players = len(getattr(episode, "agent_ids", ()) or ()) or 2
        key = hash(episode.id_)
        if seat == key % players or not self.snapshots:
            return "main"
        return self.snapshots[(key // players + seat) % len(self.snapshots)]


class LeagueCallback(RLlibCallback):
    """Every ``every`` iterations a frozen copy of ``"main"`` joins the
    league as a module of its own (``main_v1``, ``main_v2``, ...; RLlib's
    ``add_module``, on the learner and every env runner), and the mapping
    plays ``main`` against the snapshots."""

    def __init__(self, every: int = 2, max_snapshots: int = 8):
        super().__init__()
        self.every, self.max_snapshots, self.snapshots = every, max_snapshots, []

    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs):
        if algorithm.iteration % self.every:
            return
        main = algorithm.get_module("main")
        new_id = f"main_v{len(self.snapshots) + 1}"
        self.snapshots.append(new_id)
        algorithm.add_module(
            module_id=new_id,
            module_spec=RLModuleSpec.from_module(main),
            new_agent_to_module_mapping_fn=LeagueMapping(self.snapshots[-self.max_snapshots :]),
        )
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {new_id: main.get_state()}}}})
        result["league"] = list(self.snapshots)


# --- the env runner over the engine's learner loop -------------------------------------------


class _Rollout:
    """One sample's arrays, a row's steps contiguous (``[row, step, ...]``,
    so an episode's columns are views, not copies): the learner's view
    before each step (``obs`` / ``masks``, one more step: the view after
    the last), its actions, rewards, the module's outputs, and how each
    step ended the row's episode (``ends``: 0 not, 1 terminated, 2
    truncated; that episode's last view and info in ``finals``)."""

    def __init__(self, n: int, obs_shape: tuple, num_actions: int, capacity: int, model_outputs: bool, pools: dict):
        def get(shape, dtype):  # an array no episode of an earlier sample still holds (boardenvs.fresh)
            key = (shape, dtype)
            if key not in pools:
                pools[key] = FreshArrays(shape, dtype, keep=2)
            return pools[key].get()

        self.n, self.t, self.capacity = n, 0, capacity
        self.obs = get((n, capacity + 1, *obs_shape), np.int8)
        self.masks = get((n, capacity + 1, num_actions), np.int8)
        self.actions = get((n, capacity), np.int64)
        self.rewards = get((n, capacity), np.float32)
        self.ends = get((n, capacity), np.int8)
        self.ends[:] = 0
        self.logp = get((n, capacity), np.float32) if model_outputs else None
        self.dist = get((n, capacity, num_actions), np.float32) if model_outputs else None
        self.finals: dict = {}

    def grow(self) -> None:
        """Twice the steps (sampling episodes, whose length is not known ahead)."""

        def wider(a, extra):
            return None if a is None else np.concatenate([a, np.empty_like(a[:, :extra])], axis=1)

        k = self.capacity
        self.obs, self.masks = wider(self.obs, k), wider(self.masks, k)
        self.actions, self.rewards, self.logp, self.dist = (
            wider(a, k) for a in (self.actions, self.rewards, self.logp, self.dist)
        )
        self.ends = np.concatenate([self.ends, np.zeros_like(self.ends)], axis=1)
        self.capacity = 2 * k


class BoardEnvRunner(SingleAgentEnvRunner):
    """RLlib's env runner (new API stack) over the engine's learner loop,
    what :func:`ppo_config` and :func:`appo_config` use by default
    (``config.env_runners(env_runner_cls=BoardEnvRunner)``).

    Its env is the single-agent view batched
    (:class:`boardenvs.wrappers.vector.SingleAgentVectorEnv`, N =
    ``num_envs_per_env_runner`` rows, same-step auto-reset): one ``step``
    plays the learner's action in every row and every opponent until the
    learner is to act again (in the engine, or one batch per opponent:
    models, searches, a :class:`SnapshotPool`'s snapshots).  Each step of a
    sample runs the RLModule once over all N rows (``forward_exploration``
    or ``forward_inference``; the mask is applied in the module) and draws
    the actions from its action distribution class, as RLlib's default
    connectors do; the arrays of the whole sample are kept row by row and
    cut into :class:`SingleAgentEpisode` objects once, at the end, already
    numpy (what ``SingleAgentEnvRunner`` returns after ``to_numpy()``): an
    ended episode's last observation is its game's last view (the learner's
    mask all zeros), an episode still going is returned as a chunk whose
    last observation is the one the next sample starts from, and its next
    chunk keeps its id.  So RLlib's learner connectors (GAE, the value
    bootstrap of a cut chunk) see what the per-step runner gives them.

    Not per step: no env-to-module / module-to-env connector pipelines run
    (their custom pieces are RLlib's per-step route:
    ``env_runner="rllib"``), and of the episode callbacks only
    ``on_episode_end`` is called (for each finished episode, after the
    sample).  Metrics are RLlib's (episode return, length, steps sampled)
    and ``win_rate`` (the share of finished episodes the learner won) and
    ``illegal_actions`` (actions the engine refused, a sum)."""

    def make_env(self) -> None:
        if self.env is not None:
            self.env.close()
        env_config = {**dict(self.config.env_config), "autoreset_mode": "same_step", "action_mask_in_obs": True}
        self.env = gymnasium.make_vec(
            self.config.env,
            num_envs=self.config.num_envs_per_env_runner,
            vectorization_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
            **env_config,
        )
        if not hasattr(self.env, "vec"):
            raise ValueError(f"BoardEnvRunner steps boardenvs' own batched view; {self.config.env!r} made {self.env!r}")
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = True
        make_callback(
            "on_environment_created",
            callbacks_objects=self._callbacks,
            callbacks_functions=self.config.callbacks_on_environment_created,
            kwargs=dict(env_runner=self, metrics_logger=self.metrics, env=self.env, env_context=self.config.env_config),
        )

    def _sample(
        self,
        *,
        num_timesteps=None,
        num_episodes=None,
        explore: bool,
        random_actions: bool = False,
        force_reset: bool = False,
    ) -> list:
        env, n = self.env, self.num_envs
        if force_reset or num_episodes is not None or self._needs_initial_reset:
            self._start(self._seed if self._needs_initial_reset else None)
        if num_episodes is not None:
            self._needs_initial_reset = True  # (the next sample starts new games, as RLlib's runner)
        steps = -(-num_timesteps // n) if num_timesteps is not None else max(8, 2 * -(-num_episodes // n))
        space = env.single_observation_space
        ro = _Rollout(
            n,
            space[OBS_KEY].shape,
            env.single_action_space.n,
            max(steps, 1),
            not random_actions,
            self.__dict__.setdefault("_pools", {}),
        )
        new = self._obs
        obs, masks = new[OBS_KEY], new[MASK_KEY]
        ro.obs[:, 0], ro.masks[:, 0] = obs, masks
        ended_count, illegal = 0, 0
        rng = self._rng
        while (ro.t < steps) if num_timesteps is not None else (ended_count < num_episodes):
            t = ro.t
            if t == ro.capacity:
                ro.grow()
            if random_actions:
                actions = np.argmax(masks * rng.random(masks.shape), axis=1)
            else:
                actions = self._actions(obs, masks, explore, ro, t)
            with self.metrics.log_time(ENV_STEP_TIMER):
                new, rewards, terminated, truncated, infos = env.step(actions)
            obs, masks = new[OBS_KEY], new[MASK_KEY]
            ro.actions[:, t], ro.rewards[:, t] = actions, rewards
            ro.obs[:, t + 1], ro.masks[:, t + 1] = obs, masks
            if "_final_obs" in infos:
                ended = np.flatnonzero(infos["_final_obs"])
                ro.ends[ended, t] = np.where(truncated[ended], 2, 1)
                final, info = infos["final_obs"], infos["final_info"]
                for i in ended.tolist():
                    ro.finals[i, t] = (
                        final[i],
                        {k: info[k][i] for k in ("return", "end_reason", "length", "learner_steps")},
                    )
                ended_count += ended.size
            illegal += int(infos["illegal_action"].sum())
            ro.t = t + 1
        self._obs = new
        sample, finished = self._episodes(ro, keep_going=num_timesteps is not None)
        done = [e for e in sample if e.is_done]
        ts = ro.t * n
        if self._callbacks or self.config.callbacks_on_episode_end:
            for e in done:  # (the episode's earlier chunks are not kept: prev_episode_chunks is empty)
                make_callback(
                    "on_episode_end",
                    callbacks_objects=self._callbacks,
                    callbacks_functions=self.config.callbacks_on_episode_end,
                    kwargs=dict(
                        episode=e,
                        env_runner=self,
                        metrics_logger=self.metrics,
                        env=env,
                        rl_module=self.module,
                        env_index=-1,
                        prev_episode_chunks=[],
                    ),
                )
        win = max(1, math.ceil(self.config.metrics_num_episodes_for_smoothing / (self.config.num_env_runners or 1)))
        for length, ret, seconds in finished:
            self._log_episode_metrics(length, ret, seconds)
            self.metrics.log_value("win_rate", float(ret > 0), window=win)
        self.metrics.log_value("illegal_actions", illegal, reduce="sum")
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, len(done))
        return sample

    def _start(self, seed) -> None:
        """New games in every row (new episodes, their ids)."""
        self._obs, _ = self._try_env_reset(seed=seed, options=None)
        self._needs_initial_reset = False
        self._ids = [uuid.uuid4().hex for _ in range(self.num_envs)]
        self._t_started = np.zeros(self.num_envs, np.int64)
        self._returns = np.zeros(self.num_envs)  # the rewards of the episode's earlier chunks
        self._since = np.full(self.num_envs, time.perf_counter())  # when the row's episode started
        self._rng = np.random.default_rng(seed)

    def _actions(self, obs, masks, explore: bool, ro: _Rollout, t: int) -> np.ndarray:
        """The module's actions in every row (one forward), its distribution
        inputs and the actions' log-probabilities kept in ``ro`` at step ``t``."""
        module = self.module
        batch = {Columns.OBS: {OBS_KEY: torch.from_numpy(obs), MASK_KEY: torch.from_numpy(masks)}}
        with torch.no_grad(), self.metrics.log_time(RLMODULE_INFERENCE_TIMER):
            if explore:
                lifetime = (
                    self.num_env_steps_sampled_lifetime // (self.config.num_env_runners or 1) + t * self.num_envs
                ) * (self.config.num_env_runners or 1)
                out = module.forward_exploration(batch, t=lifetime)
                cls = module.get_exploration_action_dist_cls()
            else:
                out = module.forward_inference(batch)
                cls = module.get_inference_action_dist_cls()
            inputs = out[Columns.ACTION_DIST_INPUTS]
            if cls is TorchCategorical:  # the masked module's: drawn by its CDF (torch.multinomial is 20x slower here)
                logp = torch.log_softmax(inputs, -1)
                if explore:
                    cdf = torch.cumsum(torch.softmax(inputs, -1), -1)
                    u = (1.0 - torch.rand((inputs.shape[0], 1))) * cdf[
                        :, -1:
                    ]  # in (0, total]: never a 0-probability action
                    actions = torch.searchsorted(cdf, u).squeeze(1).clamp_(max=inputs.shape[1] - 1)
                else:
                    actions = inputs.argmax(-1)
                ro.logp[:, t] = logp.gather(1, actions[:, None]).squeeze(1).numpy()
            else:
                dist = cls.from_logits(inputs)
                actions = (dist if explore else dist.to_deterministic()).sample()
                ro.logp[:, t] = dist.logp(actions).numpy()
        ro.dist[:, t] = inputs.numpy()
        return actions.numpy()

    def _episodes(self, ro: _Rollout, keep_going: bool) -> tuple[SampledEpisodes, list]:
        """The sample cut into episodes at every row's ends: the finished
        ones, and (``keep_going``) each row's unfinished chunk, whose
        episode goes on in the next sample under the same id; and the
        finished games' (length, return, seconds), RLlib's episode metrics."""
        T, seg, ids, finals, infos, finished = ro.t, [], [], [], [], []
        rows, steps = np.nonzero(ro.ends[:, :T])
        k, now = 0, time.perf_counter()
        for i in range(ro.n):
            a = 0
            while k < rows.shape[0] and rows[k] == i:
                b = int(steps[k]) + 1
                last, info = ro.finals[i, b - 1]
                seg.append((i, a, b, int(ro.ends[i, b - 1]), int(self._t_started[i])))
                ids.append(self._ids[i])
                finals.append(last)
                infos.append(info)
                finished.append(
                    (
                        int(self._t_started[i]) + b - a,
                        float(self._returns[i] + ro.rewards[i, a:b].sum()),
                        now - self._since[i],
                    )
                )
                self._ids[i], self._t_started[i], self._returns[i], self._since[i] = uuid.uuid4().hex, 0, 0.0, now
                a, k = b, k + 1
            if keep_going and a < T:
                seg.append((i, a, T, 0, int(self._t_started[i])))
                ids.append(self._ids[i])
                self._t_started[i] += T - a
                self._returns[i] += ro.rewards[i, a:T].sum()
        m = len(finals)
        space = self.env.single_observation_space
        parts = {
            "obs": ro.obs[:, : T + 1],
            "masks": ro.masks[:, : T + 1],
            "actions": ro.actions[:, :T],
            "rewards": ro.rewards[:, :T],
            "logp": None if ro.logp is None else ro.logp[:, :T],
            "dist": None if ro.dist is None else ro.dist[:, :T],
            "segments": np.array(seg, np.int64).reshape(-1, 5),
            "ids": ids,
            "infos": infos,
            "final_obs": np.array([f[OBS_KEY] for f in finals]).reshape(m, *space[OBS_KEY].shape),
            "final_masks": np.array([f[MASK_KEY] for f in finals]).reshape(m, *space[MASK_KEY].shape),
            "seq": self._weights_seq_no,
            "spaces": (space, self.env.single_action_space),
        }
        return SampledEpisodes(parts), finished


class SampledEpisodes(list):
    """What :class:`BoardEnvRunner` samples: a list of numpy
    :class:`SingleAgentEpisode` objects, the finished episodes then the
    chunks that go on, built in bulk from one sample's arrays (each
    episode's columns are views of them).  It travels compact: pickled (a
    remote runner's sample on its way to the driver, a learner, an
    aggregator) as those few arrays and where each episode lies in them,
    and rebuilt where it is unpickled, not as thousands of small objects.
    A list whose episodes were changed or replaced since (more steps, custom
    data, other items) pickles as a plain list."""

    def __init__(self, parts: dict):
        super().__init__(_cut(parts))
        self._parts = parts
        self._shape = [(e, len(e), e.is_done) for e in self]

    def __reduce__(self):
        if len(self) == len(self._shape) and all(
            x is e and len(e) == n and e.is_done == d and not e.custom_data for x, (e, n, d) in zip(self, self._shape)
        ):
            return (SampledEpisodes, (self._parts,))
        return (list, (list(self),))


def _cut(parts: dict) -> list:
    """The episodes of a sample's ``parts`` (see :meth:`BoardEnvRunner._episodes`)."""
    obs, masks, actions, rewards, logp, dist = (
        parts[k] for k in ("obs", "masks", "actions", "rewards", "logp", "dist")
    )
    space, action_space = parts["spaces"]
    out, f = [], 0
    for (i, a, b, kind, t_started), id_ in zip(parts["segments"].tolist(), parts["ids"]):
        length = b - a
        infos = [{} for _ in range(length + 1)]
        if kind:
            observations = {
                OBS_KEY: np.concatenate([obs[i, a:b], parts["final_obs"][f : f + 1]]),
                MASK_KEY: np.concatenate([masks[i, a:b], parts["final_masks"][f : f + 1]]),
            }
            infos[-1] = parts["infos"][f]
            f += 1
        else:
            observations = {OBS_KEY: obs[i, a : b + 1], MASK_KEY: masks[i, a : b + 1]}
        extra = {WEIGHTS_SEQ_NO: np.full(length, parts["seq"], np.int64)}
        if dist is not None:
            extra[Columns.ACTION_DIST_INPUTS], extra[Columns.ACTION_LOGP] = dist[i, a:b], logp[i, a:b]
        out.append(
            SingleAgentEpisode(
                id_=id_,
                observations=observations,
                observation_space=space,
                infos=infos,
                actions=actions[i, a:b],
                action_space=action_space,
                rewards=rewards[i, a:b],
                terminated=kind == 1,
                truncated=kind == 2,
                extra_model_outputs=extra,
                t_started=t_started,
                len_lookback_buffer=0,
            )
        )
    return out


# --- one call ----------------------------------------------------------------------------


def ppo_config(
    env_id: str,
    *,
    opponent="random",
    num_env_runners: int = 0,
    envs_per_runner: int = 64,
    seat="random",
    multi_agent: bool = False,
    snapshot_every: int = 2,
    env_runner: str = "boardenvs",
    **options,
) -> PPOConfig:
    """A ready ``PPOConfig`` for ``env_id`` (see the module docstring): the
    masked module, vectorised runners (``envs_per_runner`` games stepped per
    call by each of ``num_env_runners`` runners; 0: the driver samples), the
    opponent (a name, a saved model, or ``"self-play"``), the game's options.
    ``multi_agent=True``: the native multi-agent route, every seat an agent
    of :class:`BoardMultiAgentEnv`: all played by the one module being
    trained (``"main"``, parameter sharing), or with
    ``opponent="self-play"`` one seat per episode by ``"main"`` and the
    others by frozen snapshots added as modules (:class:`LeagueCallback`,
    RLlib's league tools).

    PPO's settings start from what trains these games (call
    ``.training(...)`` on the result to change them): a batch of 32 steps
    per game sampled (``train_batch_size_per_learner = 32 x runners x
    envs_per_runner``, at least 4096), minibatches of an eighth of it (at
    least 512), 4 epochs, ``lr=3e-4``; RLlib's own defaults (30 epochs over
    minibatches of 128) spend most of an iteration in the learner."""
    config = _setup(PPOConfig(), env_id, num_env_runners, envs_per_runner)
    batch = max(4096, 32 * max(num_env_runners, 1) * (1 if multi_agent else envs_per_runner))
    config = config.training(
        train_batch_size_per_learner=batch, minibatch_size=max(512, batch // 8), num_epochs=4, lr=3e-4
    )
    return _routes(
        config,
        env_id,
        opponent,
        num_env_runners,
        envs_per_runner,
        seat,
        multi_agent,
        snapshot_every,
        options,
        env_runner,
    )


def appo_config(
    env_id: str,
    *,
    algorithm: str = "APPO",
    opponent="random",
    num_env_runners: int = 1,
    envs_per_runner: int = 64,
    seat="random",
    multi_agent: bool = False,
    snapshot_every: int = 2,
    env_runner: str = "boardenvs",
    **options,
):
    """A ready ``APPOConfig`` (``algorithm="IMPALA"``: an ``IMPALAConfig``)
    for ``env_id``: what :func:`ppo_config` sets up (the masked module, with
    APPO's target network; the vectorised runners; the opponent or
    self-play; the native multi-agent route), for RLlib's asynchronous
    algorithms: the runners sample while the learner trains on what they
    sent (V-trace corrects for the policy lag), so adding runners adds
    samples without waiting for the slowest.  ``num_env_runners`` defaults
    to 1 (0 samples on the driver, one batch at a time).

    Their settings start from RLlib's own for each algorithm, with 512 steps
    per learner update and ``lr=1e-3`` (one gradient step per batch, so
    small batches: with 2048 and ``lr=3e-4`` neither learned Quess in 30
    iterations; with these both won over 90% against random); change them
    with ``.training(...)``.  Both run their learner as a remote actor by
    default (one CPU besides the runners': on 2 CPUs, one runner)."""
    from ray.rllib.algorithms.appo import APPOConfig
    from ray.rllib.algorithms.impala import IMPALAConfig

    kinds = {"APPO": APPOConfig, "IMPALA": IMPALAConfig}
    if algorithm not in kinds:
        raise ValueError(f"algorithm must be 'APPO' or 'IMPALA', got {algorithm!r}")
    config = _setup(kinds[algorithm](), env_id, num_env_runners, envs_per_runner)
    config = config.training(train_batch_size_per_learner=512, lr=1e-3)
    return _routes(
        config,
        env_id,
        opponent,
        num_env_runners,
        envs_per_runner,
        seat,
        multi_agent,
        snapshot_every,
        options,
        env_runner,
    )


def _setup(config, env_id: str, num_env_runners: int, envs_per_runner: int):
    """The checks and the settings every algorithm shares."""
    if env_id not in registered_ids():
        raise ValueError(f"unknown env id {env_id!r}; available: {', '.join(registered_ids())}")
    check_size("num_env_runners", num_env_runners, 1024, low=0)
    check_size("envs_per_runner", envs_per_runner, 1 << 16)
    config = config.api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
    return config.framework("torch")


def _routes(
    config,
    env_id,
    opponent,
    num_env_runners,
    envs_per_runner,
    seat,
    multi_agent,
    snapshot_every,
    options,
    env_runner="boardenvs",
):
    """The module, the env runners and the opponents of either route (see :func:`ppo_config`)."""
    names = {o.name for o in game_class(env_id).option_specs}
    spec = module_spec(
        env_id, **{k: v for k, v in options.items() if k in names}
    )  # the game's options (not the faces')
    if multi_agent:
        config = config.environment(BoardMultiAgentEnv, env_config={"env_id": env_id, **options})
        from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

        config = config.multi_agent(policies={"main"}, policy_mapping_fn=LeagueMapping(), policies_to_train=["main"])
        config = config.rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"main": spec}))
        config = config.env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=1)
        if opponent == "self-play":
            config = config.callbacks(lambda: LeagueCallback(every=snapshot_every))
        elif opponent != "random":
            raise ValueError(
                "multi_agent=True: opponent is 'random' (every seat the trained module) or 'self-play' "
                f"(the trained module against its snapshots), got {opponent!r}"
            )
        return config
    if isinstance(opponent, str) and opponent == "self-play":
        opponent = SnapshotPool()
    self_play = isinstance(opponent, SnapshotPool)
    if env_runner not in ("boardenvs", "rllib"):
        raise ValueError(
            f"env_runner must be 'boardenvs' (BoardEnvRunner, the engine's learner loop) or 'rllib' "
            f"(RLlib's SingleAgentEnvRunner, step by step), got {env_runner!r}"
        )
    ours = env_runner == "boardenvs"
    env_config = {
        "opponent": opponent,
        "seat": seat,
        "autoreset_mode": "same_step" if ours else "next_step",
        "action_mask_in_obs": True,
        "flatten": True,
        **options,
    }
    # "module:id": a remote runner imports boardenvs (which registers the id) before gymnasium looks it up
    config = config.environment(f"boardenvs:{gym_id_of(game_class(env_id))}", env_config=env_config)
    config = config.env_runners(
        num_env_runners=num_env_runners,
        num_envs_per_env_runner=envs_per_runner,
        gym_env_vectorize_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
    )
    if ours:
        config = config.env_runners(env_runner_cls=BoardEnvRunner)
    config = config.rl_module(rl_module_spec=spec)
    if self_play:
        config = config.callbacks(lambda: SelfPlayCallback(every=snapshot_every))
    return config


def _env_creator(env_id):
    def create(env_config):
        return BoardMultiAgentEnv({"env_id": env_id, **dict(env_config or {})})

    return create


def register_envs() -> None:
    """Register every env id with Ray Tune's registry (the multi-agent env);
    done at import, again for games registered since."""
    for env_id in registered_ids():
        register_env(env_id, _env_creator(env_id))


register_envs()
