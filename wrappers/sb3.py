"""stable-baselines3's ``VecEnv`` over the batched single-agent view.

>>> from sb3_contrib import MaskablePPO
>>> from boardenvs.wrappers import SB3VecEnv
>>> env = SB3VecEnv("boardenvs/Quess-v0", num_envs=64, opponent="random")
>>> MaskablePPO("MlpPolicy", env).learn(100_000)

:class:`SB3VecEnv` takes a :class:`~boardenvs.wrappers.vector.SingleAgentVectorEnv`
(or an id / env id and its options, and builds one) and speaks SB3's
protocol: ``step_async`` / ``step_wait`` with a list of per-env infos
holding ``terminal_observation`` and ``TimeLimit.truncated`` on the rows that
ended (SB3's bootstrapping reads both), ``env_method("action_masks")`` (what
``MaskablePPO`` calls; answered by one array for all rows), ``get_attr`` /
``has_attr`` / ``set_attr``, ``seed``.  Every ended row's info also holds
``episode`` = ``{"r", "l", "t"}``, so SB3 logs ``ep_rew_mean`` and
``ep_len_mean`` with no ``VecMonitor`` (wrapping it in one works too).
"""

from __future__ import annotations

import time

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from ..fresh import FreshArrays
from ..registry import env_id_of
from .vector import SingleAgentVectorEnv


class _MaskRow(np.ndarray):
    """The first row of ``SB3VecEnv.env_method("action_masks")``'s answer
    (the others are plain ndarray views of the same array, this step's
    mask): an ndarray whose presence makes numpy hand ``np.stack`` of the
    whole answer, in order (what sb3-contrib's ``get_action_masks`` does),
    to :meth:`__array_function__`, which returns one copy of that array
    instead of a stack of N rows (at N = 1024 the row-by-row stack took
    more time than the step).  Anything else is numpy's as for any array."""

    __slots__ = ()

    def __array_function__(self, func, types, args, kwargs):
        if func is np.stack and not kwargs and len(args) == 1 and type(args[0]) is _MaskRows:
            rows = args[0]
            out = rows.fresh.get() if rows.fresh is not None else np.empty_like(rows.whole)
            np.copyto(out, rows.whole)  # a new array, as np.stack's (see boardenvs.fresh)
            return out
        return super().__array_function__(func, types, args, kwargs)


class _MaskRows(tuple):
    """The rows of one ``(N, A)`` bool array, as :class:`_MaskRow` views;
    ``whole`` is that array (see :class:`_MaskRow`), ``fresh`` where the
    stack's copy comes from (None: a new allocation).  A tuple, so the rows
    stay the rows of ``whole``."""

    whole: np.ndarray
    fresh: FreshArrays | None


class SB3VecEnv(VecEnv):
    """See the module docstring."""

    def __init__(self, venv, num_envs: int | None = None, **kwargs):
        if isinstance(venv, str):
            venv = SingleAgentVectorEnv(env_id_of(venv), num_envs=1 if num_envs is None else num_envs, **kwargs)
        elif num_envs is not None or kwargs:
            raise TypeError("pass num_envs and options only with an id; a built env already has them")
        venv = getattr(venv, "unwrapped", venv)
        if not isinstance(venv, SingleAgentVectorEnv):
            raise TypeError(
                f"SB3VecEnv wraps a SingleAgentVectorEnv (gymnasium.make_vec of a boardenvs id), got {venv!r}"
            )
        self.venv = venv
        self._actions = None
        self._t0 = time.perf_counter()
        self._mask_copies = FreshArrays((venv.num_envs, venv.single_action_space.n), np.bool_)
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    # -- the VecEnv protocol -----------------------------------------------------------
    def reset(self):
        if any(self._options):
            raise ValueError(f"SB3VecEnv's games take no reset options; got {self._options[0]!r}")
        seed = self._seeds[0]
        obs, _ = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, truncated, infos = self.venv.step(self._actions)
        dones = terminated | truncated
        out = [{} for _ in range(self.num_envs)]
        if dones.any():
            now = round(time.perf_counter() - self._t0, 6)
            final, ep = infos["final_obs"], infos["final_info"]
            idx = np.flatnonzero(dones)
            cut = (truncated[idx] & ~terminated[idx]).tolist()
            for i, c, r, steps in zip(idx.tolist(), cut, ep["return"][idx].tolist(), ep["learner_steps"][idx].tolist()):
                out[i] = {
                    "terminal_observation": final[i],
                    "TimeLimit.truncated": c,
                    "episode": {"r": r, "l": steps, "t": now},
                }
        return obs, rewards.astype(np.float32, copy=False), dones, out

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every row, ``(N, A)`` booleans (what MaskablePPO asks for)."""
        return self.venv.action_masks()

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks":  # a row view per env of this step's masks; np.stack of them: one copy
            masks = self.venv.action_masks()  # (a new array each step, the engine's own never handed out)
            whole = masks if indices is None else masks[list(self._get_indices(indices))]
            # the first row is a _MaskRow, which is what numpy dispatches np.stack on; the
            # others plain views (a subclass's view costs more than a plain one, N of them a step)
            rows = _MaskRows((whole[0].view(_MaskRow), *whole[1:])) if len(whole) else _MaskRows()
            rows.whole, rows.fresh = whole, self._mask_copies if indices is None else None
            return rows
        rows = list(self._get_indices(indices))
        if indices is not None:
            raise ValueError(
                f"env_method({method_name!r}) runs on the whole batch; indices are only for 'action_masks'"
            )
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def get_attr(self, attr_name: str, indices=None) -> list:
        rows = list(self._get_indices(indices))
        if attr_name == "seat":
            seats = self.venv.seats
            return [int(seats[i]) for i in rows]
        value = getattr(self.venv, attr_name)
        return [value for _ in rows]

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self.venv, attr_name)

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        if indices is not None:
            raise ValueError(f"set_attr({attr_name!r}) sets it for the whole batch; indices are not supported")
        setattr(self.venv, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list:
        return [False for _ in self._get_indices(indices)]

    def get_images(self):
        frames = self.venv.render() if self.venv.render_mode == "rgb_array" else None
        return list(frames) if frames is not None else [None] * self.num_envs

    def close(self) -> None:
        self.venv.close()

    def __repr__(self) -> str:
        return f"<SB3VecEnv {self.venv!r}>"
