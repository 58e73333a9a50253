"""The fields of a PufferLib-emulated observation, the action mask among them.

PufferLib's emulation (``pufferlib.emulation.GymnasiumPufferEnv`` and
``PettingZooPufferEnv``) writes a ``Dict`` observation into one flat row per
agent: the fields' bytes side by side in a numpy structured layout, read as
``uint8`` when the fields' dtypes differ.  Its vector envs hand back that
flat array only, and their infos are a list of whichever envs reported (not
one row per env), so a learner's mask comes back by un-flattening the
observation.  :func:`unflatten_emulated` does that for a whole batch, numpy
or torch, with PufferLib's own layout::

    fields = unflatten_emulated(observations, MaskInObservation(...).observation_space)
    fields["mask"]  # (rows, n) bools

It reads without copying (a view of the batch), so a policy can call it on
the observation tensor it is given.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces


def _layout(space: spaces.Dict) -> tuple[np.dtype, dict[str, tuple[int, int, np.dtype, tuple]]]:
    """(the flat row's element dtype, each field's (start, stop) in elements,
    its dtype and shape), from PufferLib's own emulation of ``space``."""
    from pufferlib.emulation import emulate_observation_space

    if not isinstance(space, spaces.Dict) or not all(isinstance(s, spaces.Box) for s in space.values()):
        raise ValueError(f"unflatten_emulated takes a Dict of Box spaces (an env's own observation space), got {space}")
    flat, struct = emulate_observation_space(space)
    size = flat.dtype.itemsize
    fields = {}
    for key, (dtype, offset) in struct.fields.items():
        base, shape = dtype.subdtype if dtype.subdtype else (dtype, ())
        if offset % size or dtype.itemsize % size:
            raise ValueError(f"field {key!r} does not sit on the flat row's {flat.dtype} elements")
        fields[key] = (offset // size, (offset + dtype.itemsize) // size, base, shape)
    return flat.dtype, fields


def unflatten_emulated(observations, space: spaces.Dict) -> dict:
    """The fields of PufferLib-emulated observations, as views of the batch.

    :param observations: the emulated rows, ``(rows, flat size)`` (a PufferLib
        vector env's observations, a numpy array or a torch tensor of them).
    :param space: the ``Dict`` observation space the env had before PufferLib
        flattened it: ``MaskInObservation(env).observation_space`` on the
        gymnasium route, ``parallel_env.observation_space(agent)`` on the
        PettingZoo route.
    :returns: ``{key: (rows, *shape) array of the field's own dtype}``, the
        same kind as ``observations`` (numpy in, numpy out; torch in, torch
        out); the mask fields come back as bools.
    """
    flat_dtype, fields = _layout(space)
    rows = observations.shape[0]
    if observations.shape[-1] != max(stop for _, stop, _, _ in fields.values()):
        raise ValueError(f"observations of shape {tuple(observations.shape)} are not rows of this space's emulation")
    given = str(observations.dtype).removeprefix("torch.")
    if given != flat_dtype.name:  # a converted copy (floats) no longer holds the fields' bytes
        raise ValueError(f"observations of dtype {given}: PufferLib emulates this space as {flat_dtype.name} rows")
    out = {}
    for key, (start, stop, dtype, shape) in fields.items():
        part = observations[:, start:stop]
        if isinstance(observations, np.ndarray):
            part = part.view(dtype)
        else:  # a torch tensor (torch is there: the caller made one)
            import torch

            part = part.view(getattr(torch, np.dtype(dtype).name))
        out[key] = part.reshape(rows, *shape)
    return out
