"""``make_vec(env_id, num_envs, device="cuda")``: the same games on a CUDA
device, from the same kernels.

>>> vec = boardenvs.make_vec("quess_v0", num_envs=65536, device="cuda")
>>> obs, infos = vec.reset(seed=0)
>>> obs, rewards, terminations, truncations, infos = vec.step_random()
>>> torch.as_tensor(obs["observation"], device="cuda")   # no copy

The rows, the engine's masks, the observations and every result stay on the
device: ``reset`` / ``step`` / ``step_random`` / :meth:`DeviceVectorEnv.play_learners`
return numba device arrays, which ``torch.as_tensor(a, device="cuda")`` (or
CuPy, JAX, any reader of ``__cuda_array_interface__``) reads in place.  One
thread steps one row: it runs :mod:`boardenvs._drivers`' own drivers
(``step_n``, ``reset_n``, ``agent_step``, ...) on that row's one-row views,
the drivers, the game's kernels and the engine's helpers copied for the
device from their Python source (:mod:`boardenvs.retarget`), so the device plays the CPU's games decision
for decision, its dice and random actions drawn from the same per-row
generators (the tests compare them row for row under numba's CUDA
simulator, ``NUMBA_ENABLE_CUDASIM=1``).

What differs from the CPU face, and why:

* ``illegal_action`` is ``"lose"`` (default) or ``"random"``: ``"raise"``
  would read every mask back to the host each step;
* the learner loop plays random opponents only, in the kernel; opponents
  that run in Python (models, searches, ``greedy``) are a ValueError here;
* ``infos`` holds the codes (``end_reason_code``), not the names
  (:meth:`DeviceVectorEnv.reason_name` gives a code's name): names are
  Python strings on the host;
* ``states`` and ``position(i)`` are host copies, and a device env is
  neither copied nor pickled (TypeError): the CPU env is the one to save.

Without numba-cuda or an NVIDIA driver, ``device="cuda"`` raises a one-line
RuntimeError naming the extra (the ``cuda`` extra: ``pip install '.[cuda]'``
in a clone, :func:`boardenvs.errors.install_line`).
"""

from __future__ import annotations

import os
import threading
import warnings

import numpy as np

from . import _drivers, _parts
from . import engine as E
from .retarget import device_intrinsics, for_game
from .rows import describe_value
from .spec import check_choice, check_flag, check_size, is_int

DEVICES = ("cpu", "cuda")
THREADS_PER_BLOCK = 128  # (the simulator runs a block's threads as Python threads: it uses 8)


def _extra_help() -> str:
    from .errors import install_line

    return (
        f"make_vec(device='cuda') needs numba-cuda and an NVIDIA GPU with its driver: {install_line('cuda')} "
        "(NUMBA_ENABLE_CUDASIM=1 runs the device code in numba's CUDA simulator instead)"
    )


def simulated() -> bool:
    """Whether device code runs in numba's CUDA simulator."""
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def cuda_module():
    """``numba.cuda``, where a device (or the simulator) can run kernels;
    else the one-line RuntimeError naming the extra."""
    try:
        from numba import cuda
    except ImportError as exc:  # pragma: no cover (numba ships numba.cuda, numba-cuda replaces it)
        raise RuntimeError(f"{_extra_help()} ({exc})") from None
    try:
        available = cuda.is_available()
    except Exception:  # a driver that fails to load says so in its own words: the one line says what to do
        available = False
    if not available:
        raise RuntimeError(_extra_help())
    return cuda


PARTS = {"reset": _parts.ResetPart, "step": _parts.StepPart, "draw": _parts.DrawPart, "agent": _parts.LoopPart}
DRIVERS = {
    "reset": _drivers.reset_n,
    "step": _drivers.step_n,
    "draw": _drivers.random_actions_n,
    "agent": _drivers.agent_step,
}


def _launch(part_class, driver, cuda):
    """A grid function: device thread ``i`` runs ``driver`` (one of
    :mod:`boardenvs._drivers`' drivers over every row, the CPU's own) on
    row ``i`` alone, each of the part's arrays seen through its one-row
    view ``a[i:i + 1]`` (no copy, nothing allocated), so the CPU's loop
    runs once.  Its one line of arguments is written out from the part's
    fields."""
    views = "".join(f"part[{k}][i : i + 1], " for k in range(len(part_class._fields)))
    source = (
        "def rows(g, part, params, extra):\n"
        "    i = cuda.grid(1)\n"
        "    if i < part[0].shape[0]:\n"
        f"        DRIVER(g, (), ({views}), params, extra)\n"
    )
    space = {"cuda": cuda, "DRIVER": driver}
    exec(compile(source, f"<boardenvs.device launch {driver.__name__}>", "exec"), space)  # noqa: S102
    return space["rows"]


def launch_sources(kernels, cuda, intrinsics: bool = True) -> dict:
    """The grid functions of one game (name -> a plain Python function for
    ``cuda.jit``): :mod:`boardenvs._drivers`' drivers (:data:`DRIVERS`),
    copied for the device over the device copies of the game's kernels
    (:func:`boardenvs.retarget.for_game`), one thread per row.
    ``intrinsics``: the borrowed views as intrinsics (the CUDA compiler's;
    not the simulator's)."""
    retarget = for_game(kernels, cuda.jit(device=True), device_intrinsics() if intrinsics else None)
    return {name: _launch(PARTS[name], retarget.function(driver), cuda) for name, driver in DRIVERS.items()}


def allocate(game, n: int, zeros) -> dict:
    """The buffers of ``n`` rows, named as :data:`PARTS`' fields (``zeros(shape,
    dtype)`` makes each: on the device, or on the host for a signature)."""
    info, a = game.info, game.num_actions
    return {
        "states": zeros((n, info.state_size), np.int64),
        "probs": zeros((n, max(info.num_chance_outcomes, 1)), np.float64),
        "masks": zeros((n, info.mask_size), np.int8),  # the engine's own: actions are checked against them
        "seeds": zeros(n, np.int64),
        "actions": zeros(n, np.int64),
        "obs": zeros((n, info.obs_size), np.int8),
        "out_masks": zeros((n, a), np.int8),
        "rewards": zeros((n, game.num_players), np.float32),
        "terminated": zeros(n, np.bool_),
        "truncated": zeros(n, np.bool_),
        "reasons": zeros(n, np.int64),
        "lengths": zeros(n, np.int64),
        "to_move": zeros(n, np.int64),
        "illegal": zeros(n, np.bool_),
        "out": zeros(n, np.int64),
    }


def allocate_loop(game, n: int, zeros, rows: dict) -> dict:
    """The learner loop's buffers (:class:`boardenvs._parts.LoopPart`'s
    fields), sharing the rows, probabilities and masks of ``rows``."""
    obs, a = game.info.obs_size, game.num_actions
    shapes = {
        "actions": (n, np.int64),
        "seats": (n, np.int64),
        "pending": (n, np.bool_),
        "outside": (n, np.bool_),
        "stage": (n, np.int8),
        "deals": (n, np.int64),
        "obs": ((n, obs), np.int8),
        "out_masks": ((n, a), np.int8),
        "final_obs": ((n, obs), np.int8),
        "final_masks": ((n, a), np.int8),
        "rewards": (n, np.float32),
        "ends": (n, np.int8),
        "reasons": (n, np.int64),
        "lengths": (n, np.int64),
        "wait_obs": ((1, obs), np.int8),  # (no opponent waits outside the engine here)
        "wait_masks": ((1, a), np.int8),
        "illegal": (n, np.bool_),
    }
    out = {name: zeros(shape, dtype) for name, (shape, dtype) in shapes.items()}
    out.update(states=rows["states"], probs=rows["probs"], masks=rows["masks"])
    return out


def part(name: str, buffers: dict) -> tuple:
    """The arguments of launch ``name``, in its part's field order."""
    return tuple(buffers[field] for field in PARTS[name]._fields)


class _Launchers:
    """One game's compiled grid functions (:func:`launch_sources`), built once
    per process and game."""

    def __init__(self, kernels, cuda):
        self.cuda = cuda
        for name, fn in launch_sources(kernels, cuda, intrinsics=not simulated()).items():
            setattr(self, name, cuda.jit(fn))


_LAUNCHERS: dict = {}


def launchers(kernels) -> _Launchers:
    cuda = cuda_module()
    found = _LAUNCHERS.get(id(kernels))
    if found is None or found[0] is not kernels:
        if simulated():  # the simulator runs the uint64 generator in numpy scalars, which warn as they wrap around
            warnings.filterwarnings("ignore", "overflow encountered in scalar", RuntimeWarning)
        found = _LAUNCHERS[id(kernels)] = (kernels, _Launchers(kernels, cuda))
    return found[1]


class DeviceVectorEnv:
    """``num_envs`` games of one id on a CUDA device (see the module docstring)."""

    def __init__(self, game_cls, num_envs: int, illegal_action: str = "lose", **options):
        from .vector import MAX_NUM_ENVS

        where = f"{game_cls.env_id} make_vec(device='cuda'): "
        n = check_size("num_envs", num_envs, MAX_NUM_ENVS, where)
        check_choice("illegal_action", illegal_action, ("lose", "random"), where)
        self.game = game = game_cls(**options)
        self._launch = launchers(game.kernels)
        cuda = self._cuda = self._launch.cuda
        self.env_id, self.num_envs, self.illegal_action = game.env_id, n, illegal_action
        self.num_players, self.num_actions, self.possible_agents = game.num_players, game.num_actions, game.agents
        self.device = "cuda"

        self._buf = b = allocate(game, n, self._zeros)
        self._states, self._masks, self._obs, self._out_masks = b["states"], b["masks"], b["obs"], b["out_masks"]
        self._params = cuda.to_device(np.ascontiguousarray(game.params))
        self._obs_view = self._obs.reshape((n, *game.obs_shape))
        self._blocks = (n + self._threads() - 1) // self._threads()
        self._loop = None  # the learner loop's buffers, made at its first call
        self._has_reset = False
        self._closed = False
        self._lock = threading.RLock()

    # -- the API ---------------------------------------------------------------------------------------------------
    def reset(self, seed=None):
        """A new game in every row (``seed`` as :meth:`boardenvs.vector.VectorEnv.reset`'s:
        the same seed deals the CPU's games)."""
        with self._lock:
            self._require_open("reset")
            from .vector import VectorEnv

            self._buf["seeds"].copy_to_device(VectorEnv._row_seeds(self, seed))
            self._stop_learners()
            self._run(self._launch.reset, part("reset", self._buf))
            for name in ("rewards", "terminated", "truncated", "reasons", "lengths", "illegal"):
                self._fill_zero(self._buf[name])
            self._has_reset = True
            return self._observations(), self._infos()

    def step(self, actions):
        """One action per row: ``num_envs`` integers, a host array or a
        device array (any reader of ``__cuda_array_interface__``), checked
        against each row's mask in the kernel (``illegal_action``)."""
        with self._lock:
            self._require_reset("step")
            self._take_actions(actions, self._buf["actions"], self.num_envs, "actions")
            return self._step(1 if self.illegal_action == "random" else 0)

    def step_random(self):
        """Every row plays a uniformly random legal action drawn from its
        generator (the CPU's ``step_random``: the same games)."""
        with self._lock:
            self._require_reset("step_random")
            return self._step(2)

    def random_actions(self):
        """A uniformly random legal action per row (a device array)."""
        with self._lock:
            self._require_reset("random_actions")
            out = self._zeros(self.num_envs, np.int64)  # (a new array, as the CPU's)
            self._run(self._launch.draw, part("draw", {**self._buf, "out": out}))
            return out

    def play_learners(self, actions=None, start: bool = False, opponent=None):
        """The learner loop against random opponents, in the kernel: one
        learner per row, its seat drawn from the row's generator for every
        episode (as ``play_learners(..., draw_seats=True)`` on the CPU).
        ``start``: every row starts a new episode (the learner's seat drawn,
        the opponents played up to its first decision; ``actions`` unread);
        else each row's learner plays ``actions[i]`` (checked in the kernel
        under ``illegal_action``), the opponents play until it is to act
        again, and a row whose episode ended starts the next one at once.
        Returns device arrays: ``observation``, ``action_mask`` (int8),
        ``seats``, ``rewards`` (the learner's return in the rows that
        ended), ``ended`` (0, 1 terminated, 2 truncated), ``end_reason_code``,
        ``length``, ``illegal_action``, ``final_observation`` /
        ``final_mask`` (an ended row's last view).  ``opponent``: None or
        ``"random"``; any other runs in Python (a ValueError here)."""
        with self._lock:
            self._require_reset("play_learners")
            if opponent not in (None, "random"):
                raise ValueError(
                    f"{self.env_id} make_vec(device='cuda'): the learner loop on the device plays random opponents "
                    f"only; {opponent!r} runs in Python: use the CPU make_vec"
                )
            start = check_flag("start", start, f"{self.env_id} make_vec(device='cuda'): ")
            loop = self._loop_buffers()
            if not start:
                if not loop["started"]:  # (a reset or a step since leaves the learners' seats unknown)
                    raise ValueError(
                        f"{self.env_id} make_vec(device='cuda'): play_learners(start=True) comes first, and again "
                        "after reset() or step()"
                    )
                self._take_actions(actions, loop["actions"], self.num_envs, "actions")
            loop["started"] = True
            # every row pending or none: one of two constant device arrays, nothing copied per call
            buffers = {**loop, "pending": loop["all_pending"]} if start else loop
            # the loop's flags: draw the seats, the next episode in the same step, no picks, the mode
            self._run(self._launch.agent, part("agent", buffers), (1, 1, 0, E.ILLEGAL_MODES[self.illegal_action]))
            return {
                "observation": loop["obs"].reshape((self.num_envs, *self.game.obs_shape)),
                "action_mask": loop["out_masks"],
                "seats": loop["seats"],
                "rewards": loop["rewards"],
                "ended": loop["ends"],
                "end_reason_code": loop["reasons"],
                "length": loop["lengths"],
                "illegal_action": loop["illegal"],
                "final_observation": loop["final_obs"],
                "final_mask": loop["final_masks"],
            }

    def observations(self) -> dict:
        self._require_reset("observations")
        return self._observations()

    def action_masks(self):
        """The masks of the seats to act, ``(num_envs, num_actions)`` int8 on the device."""
        return self._out_masks

    @property
    def states(self) -> np.ndarray:
        """The rows, a host copy (read-only)."""
        out = self._states.copy_to_host()
        out.flags.writeable = False
        return out

    def position(self, i):
        """A Position snapshot of row ``i`` (copied to the host)."""
        from .position import Position

        with self._lock:
            self._require_reset("position")
            if not is_int(i) or not -self.num_envs <= i < self.num_envs:
                raise IndexError(f"row must be an int in 0..{self.num_envs - 1}, got {i!r}")
            return Position._own(self.game, self._states[int(i) % self.num_envs].copy_to_host())

    def reason_name(self, code) -> str:
        """The name of an end-reason code of ``infos["end_reason_code"]``."""
        if not is_int(code):
            raise ValueError(f"{self.env_id}: an end-reason code is an int, got {code!r}")
        return self.game.reason_name(int(code))

    def close(self) -> None:
        self._closed = True

    def __repr__(self) -> str:
        return f"<DeviceVectorEnv {self.env_id} num_envs={self.num_envs} cuda>"

    def __reduce__(self):
        raise TypeError(
            f"{self.env_id} make_vec(device='cuda') is neither copied nor pickled: its rows live on the device "
            "(read them with .states and deal them into a CPU make_vec's rows)"
        )

    # -- inside ----------------------------------------------------------------------------------------------------
    def _threads(self) -> int:
        return min(self.num_envs, 8 if simulated() else THREADS_PER_BLOCK)

    def _run(self, kernel, part, extra=(0, 0, 0, 0)):
        kernel[self._blocks, self._threads()](0, tuple(part), self._params, tuple(int(x) for x in extra))

    def _step(self, draw: int):
        self._stop_learners()
        self._run(self._launch.step, part("step", self._buf), (draw, 0, 0, 0))
        b = self._buf
        return self._observations(), b["rewards"], b["terminated"], b["truncated"], self._infos()

    def _observations(self) -> dict:
        return {"observation": self._obs_view, "action_mask": self._out_masks}

    def _infos(self) -> dict:
        b = self._buf
        return {
            "to_move": b["to_move"],
            "end_reason_code": b["reasons"],
            "length": b["lengths"],
            "illegal_action": b["illegal"],
        }

    def _take_actions(self, actions, into, n: int, what: str) -> None:
        """``actions`` (host or device, ``n`` integers) into the engine's own
        buffer ``into``: shape and dtype checked here, values in the kernel."""
        where = f"{self.env_id} make_vec(device='cuda'): "
        if hasattr(actions, "copy_to_host") or hasattr(actions, "__cuda_array_interface__"):
            # (numba's device arrays, the simulator's included; any other reader of the interface: torch, CuPy)
            arr = actions if hasattr(actions, "copy_to_host") else self._cuda.as_cuda_array(actions)
            if arr.shape != (n,) or np.dtype(arr.dtype).kind not in "iu":
                raise ValueError(f"{where}{what} must be {n} integers, got a device array {arr.dtype} {arr.shape}")
            if arr.dtype != np.int64:
                raise ValueError(f"{where}device {what} must be int64 (cast them there), got {arr.dtype}")
            into.copy_to_device(arr)
            return
        arr = np.asarray(actions) if not isinstance(actions, (str, bytes)) else np.asarray(None)
        if arr.shape != (n,) or arr.dtype.kind not in "iu":
            raise ValueError(f"{where}{what} must be {n} integers, got {describe_value(actions)}")
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            raise ValueError(f"{where}{what} must be action ids; {int(arr.max())} is none")
        into.copy_to_device(np.ascontiguousarray(arr, np.int64))

    def _loop_buffers(self) -> dict:
        if self._loop is None:
            self._loop = allocate_loop(self.game, self.num_envs, self._zeros, self._buf)  # ("pending": none)
            self._loop["all_pending"] = self._cuda.to_device(np.ones(self.num_envs, np.bool_))
            self._loop["started"] = False
        return self._loop

    def _stop_learners(self) -> None:
        """A step or reset outside the learner loop: its next call starts again."""
        if self._loop is not None:
            self._loop["started"] = False

    def _zeros(self, shape, dtype):
        return self._cuda.to_device(np.zeros(shape, dtype))

    def _fill_zero(self, a) -> None:
        a.copy_to_device(np.zeros(a.shape, a.dtype))

    def _require_open(self, what: str) -> None:
        if self._closed:
            from gymnasium.error import ClosedEnvironmentError

            raise ClosedEnvironmentError(
                f"{self.env_id} make_vec(device='cuda'): {what}() after close(): make a new env"
            )

    def _require_reset(self, what: str) -> None:
        self._require_open(what)
        if not self._has_reset:
            from .errors import ResetNeededError

            raise ResetNeededError(
                f"{self.env_id} make_vec(device='cuda'): {what}() before reset(): call reset() first"
            )
