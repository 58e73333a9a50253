"""Ray RLlib (new API stack): masked PPO on every game, on one machine or a cluster.

    pip install '.[rllib]'            # in a clone (boardenvs is on no index); make rllib-env: .venv-rllib

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
  (the core's :class:`boardenvs.league.League` on every runner: snapshots of
  the learner, made by :func:`module_snapshot` and added on every runner by
  :class:`RLlibSelfPlayCallback`, with the random and greedy players), runs the module once per step over every
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

try:
    import ray  # noqa: F401 - (the extra's check: an ImportError names what is missing)
    import ray.rllib  # noqa: F401
    import torch  # noqa: F401
except ImportError as exc:  # pragma: no cover - the extra is missing
    from ..errors import install_line

    raise ImportError(f"boardenvs.rllib needs Ray RLlib and torch: {install_line('rllib')}") from exc

from .config import appo_config, ppo_config, register_envs
from .env import BoardMultiAgentEnv
from .league import LeagueCallback, LeagueMapping, RLlibSelfPlayCallback, module_snapshot, self_play_league
from .module import MASK_KEY, MASKED_LOGIT, OBS_KEY, MaskedBoardModule, module_spec
from .opponents import ModuleOpponent, opponent
from .runner import BoardEnvRunner, SampledEpisodes

__all__ = [
    "BoardEnvRunner",
    "BoardMultiAgentEnv",
    "LeagueCallback",
    "LeagueMapping",
    "MASK_KEY",
    "MASKED_LOGIT",
    "MaskedBoardModule",
    "ModuleOpponent",
    "OBS_KEY",
    "RLlibSelfPlayCallback",
    "SampledEpisodes",
    "appo_config",
    "module_snapshot",
    "module_spec",
    "opponent",
    "ppo_config",
    "register_envs",
    "self_play_league",
]

register_envs()
