"""Board-shaped policies: every action's logit read off the cells it names.

A dense policy head flattens the board into a vector and learns one weight
row per action: Quess's 1,296 from-to actions then cost a 1,296-wide layer
that must learn "this square, then that one" separately for every pair.  The
board network keeps the board's shape to the end:

* **trunk** (:class:`BoardTrunk`): ``layers`` 3x3 convolutions of
  ``channels`` that keep the board's size (hex convolutions on hex boards,
  :class:`~.extractors.HexConv2d`), ReLU, so every cell ends with its own
  feature vector, which sees the cells around it;
* **action head** (:class:`BoardHead`): each game declares how its action
  ids relate to its cells (``TOOLS["training"]["actions"]``, a function of
  the game returning *segments*, below), and each segment reads its logits
  from the trunk's cell features:

  ``{"kind": "cells", "first": a, "taps": T}``
      actions ``a .. a + len(T) - 1``; ``T[k]`` lists ``(grid cell, output)``
      pairs (-1 where unused) and the action's logit is the sum of those
      outputs of a 1x1 layer over every cell (a placement: one tap on its
      cell; Hex Quoridor's fence: its four cells, one output per place in
      the fence);
  ``{"kind": "piece", "first": a, "count": m, "plane": p, "rank": r, "window": w}``
      ``m`` actions of one piece (the ``r``-th occupied cell, in reading
      order, of observation plane ``p``): a linear layer over the features
      in the ``w x w`` window centred on it (Quagmire's moves: piece x
      direction x kind; Quicksand's hops from the jumper);
  ``{"kind": "board", "first": a, "count": m}``
      ``m`` actions of the whole board (rotations, ``pass``): a small MLP on
      the features' mean and maximum over the cells;
  ``{"kind": "pairs", "first": a, "cells": C}``
      ``len(C)**2`` actions from cell ``C[i]`` to cell ``C[j]``
      (``a + i * len(C) + j``, Quess): ``q_i . k_j`` of two 32-dimensional
      projections plus a bias per from-cell and per to-cell.

  The segments tile the action ids exactly (checked when the network is
  built: :func:`action_layout`);
* **value head** (:class:`PooledValue`): an MLP on the features' mean and
  maximum over the cells.

Inputs are scaled to ``[0, 1]`` by the observation space's bounds.  The
policy is an sb3-contrib ``MaskableActorCriticPolicy`` (:class:`BoardPolicy`),
so ``MaskablePPO`` trains it, saved models load it and every opponent
interface takes it; its parameter count is known before anything is built
(:func:`board_parameters`).
"""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from .extractors import HexConv2d, input_scale, path_planes, path_seats
from .policies import OnePassMasking

PAIR_DIM = 32  # the from/to projections of a "pairs" segment
BOARD_HIDDEN = 64  # the MLP of a "board" segment
VALUE_HIDDEN = 128
SEGMENT_KINDS = ("cells", "piece", "board", "pairs")


def action_layout(game) -> list[dict]:
    """The game's action segments (``TOOLS["training"]["actions"](game)``,
    see the module docstring), checked: they tile ``0 .. num_actions - 1``
    once, name cells of the observation's grid and planes it has.
    ValueError naming the game and what is wrong; None for a game that
    declares none (no board network for it)."""
    from boardenvs.registry import tool_settings

    declare = (tool_settings(game, "training") or {}).get("actions")
    if declare is None:
        return None
    segments = declare(game)
    shape = game.info.obs_low.shape
    where = f"{game.env_id}'s action layout"
    if len(shape) != 3:
        raise ValueError(f"{where}: a board network reads (H, W, C) planes, the observations are {shape}")
    cells, planes = shape[0] * shape[1], shape[2]
    seen = np.zeros(game.num_actions, np.int64)
    out = []
    for seg in segments:
        kind, first = seg.get("kind"), int(seg.get("first", -1))
        if kind not in SEGMENT_KINDS:
            raise ValueError(f"{where}: segment kind {kind!r} is none of {', '.join(SEGMENT_KINDS)}")
        seg = dict(seg, first=first)
        if kind == "cells":
            taps = np.asarray(seg["taps"], np.int64)
            if taps.ndim != 3 or taps.shape[2] != 2:
                raise ValueError(f"{where}: a cells segment's taps are (actions, taps, 2), got {taps.shape}")
            used = taps[..., 0] >= 0
            if (taps[..., 0] >= cells).any() or (taps[..., 1][used] < 0).any():
                raise ValueError(f"{where}: a tap names a cell off the {shape[0]}x{shape[1]} grid or no output")
            seg["taps"], count = taps, taps.shape[0]
        elif kind == "pairs":
            seg["cells"] = np.asarray(seg["cells"], np.int64)
            if seg["cells"].ndim != 1 or not ((seg["cells"] >= 0) & (seg["cells"] < cells)).all():
                raise ValueError(f"{where}: a pairs segment names cells of the grid")
            count = len(seg["cells"]) ** 2
        else:
            count = int(seg["count"])
            if kind == "piece" and not (0 <= int(seg["plane"]) < planes and int(seg["window"]) % 2 == 1):
                raise ValueError(f"{where}: a piece segment names one of the {planes} planes and an odd window")
        if not (0 <= first and first + count <= game.num_actions):
            raise ValueError(f"{where}: segment {kind} at {first} of {count} actions runs past {game.num_actions}")
        seen[first : first + count] += 1
        out.append(seg)
    if not (seen == 1).all():
        bad = int(np.flatnonzero(seen != 1)[0])
        raise ValueError(f"{where}: action {bad} is read by {int(seen[bad])} segments (each action by one)")
    return out


def _conv(hex_: bool):
    return HexConv2d if hex_ else (lambda i, o: nn.Conv2d(i, o, kernel_size=3, padding=1))


class BoardTrunk(BaseFeaturesExtractor):
    """The trunk: ``layers`` 3x3 convolutions (hex ones with ``hex``) of
    ``channels``, ReLU, the board's size kept; with ``paths`` (Hex Quoridor)
    its input also holds every seat's goal distances and shortest paths
    (:func:`.extractors.path_planes`, what ``greedy`` ranks moves by).  Its output is every cell's
    features, channel-major (``channels * H * W``), then for each ``pieces``
    entry ``(plane, rank)`` a one-hot of that piece's cell (all zeros when
    there is none), for the head's piece segments."""

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        channels: int = 32,
        layers: int = 3,
        hex: bool = False,
        paths: bool = False,
        pieces: tuple = (),
    ):
        if len(observation_space.shape) != 3:
            raise ValueError(f"BoardTrunk takes (H, W, C) board planes, got shape {observation_space.shape}")
        h, w, c = observation_space.shape
        self.pieces = tuple((int(p), int(r)) for p, r in pieces)
        self.path_seats = path_seats(observation_space.shape) if paths else 0
        super().__init__(observation_space, (channels + len(self.pieces)) * h * w)
        self.register_buffer("scale", input_scale(observation_space))
        conv = _conv(hex)
        blocks, width = [], c + 8 * self.path_seats
        for _ in range(layers):
            blocks += [conv(width, channels), nn.ReLU()]
            width = channels
        self.cnn = nn.Sequential(*blocks)
        self.channels, self.grid = int(channels), (h, w)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = (observations * self.scale).permute(0, 3, 1, 2)
        if self.path_seats:
            with torch.no_grad():
                planes, _ = path_planes(observations, self.path_seats)
            x = torch.cat([x, planes], dim=1)
        x = self.cnn(x)
        out = [x.flatten(1)]
        b = observations.shape[0]
        for plane, rank in self.pieces:
            occupied = (observations[..., plane] > 0).reshape(b, -1)
            order = torch.cumsum(occupied.to(torch.int32), dim=1)
            out.append((occupied & (order == rank + 1)).to(x.dtype))
        return torch.cat(out, dim=1)


class BoardHead(nn.Module):
    """The action logits from the trunk's output (see the module docstring)."""

    def __init__(self, channels: int, grid: tuple, num_actions: int, layout: list[dict]):
        super().__init__()
        self.c, (self.h, self.w), self.num_actions = channels, grid, num_actions
        self.n = self.h * self.w
        cells = [s for s in layout if s["kind"] == "cells"]
        self.outputs = 1 + max((int(s["taps"][..., 1].max()) for s in cells), default=-1)
        if cells:
            self.cell_out = nn.Linear(channels, self.outputs)
            taps = np.concatenate([_padded(s["taps"], max(t["taps"].shape[1] for t in cells)) for s in cells])
            index = np.where(taps[..., 0] >= 0, taps[..., 0] * self.outputs + taps[..., 1], self.n * self.outputs)
            self.register_buffer("tap_index", torch.as_tensor(index))
            ids = np.concatenate([s["first"] + np.arange(len(s["taps"])) for s in cells])
            self.register_buffer("tap_actions", torch.as_tensor(ids))
        self.piece_segments = [s for s in layout if s["kind"] == "piece"]
        self.piece_out = nn.ModuleList(nn.Linear(channels * s["window"] ** 2, s["count"]) for s in self.piece_segments)
        self.board_segments = [s for s in layout if s["kind"] == "board"]
        self.board_out = nn.ModuleList(
            nn.Sequential(nn.Linear(2 * channels, BOARD_HIDDEN), nn.ReLU(), nn.Linear(BOARD_HIDDEN, s["count"]))
            for s in self.board_segments
        )
        self.pair_segments = [s for s in layout if s["kind"] == "pairs"]
        self.pair_q = nn.ModuleList(nn.Linear(channels, PAIR_DIM + 1) for _ in self.pair_segments)
        self.pair_k = nn.ModuleList(nn.Linear(channels, PAIR_DIM + 1) for _ in self.pair_segments)
        for k, s in enumerate(self.pair_segments):
            self.register_buffer(f"pair_cells_{k}", torch.as_tensor(s["cells"]))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        b = latent.shape[0]
        features = latent[:, : self.c * self.n].view(b, self.c, self.n)
        cells = features.transpose(1, 2)  # (B, cells, C)
        logits = latent.new_zeros(b, self.num_actions)
        if hasattr(self, "cell_out"):
            out = torch.cat([self.cell_out(cells).reshape(b, -1), latent.new_zeros(b, 1)], dim=1)
            logits[:, self.tap_actions] = out[:, self.tap_index.flatten()].view(b, *self.tap_index.shape).sum(dim=2)
        at = self.c * self.n
        for seg, linear in zip(self.piece_segments, self.piece_out):
            onehot = latent[:, at : at + self.n]
            at += self.n
            logits[:, seg["first"] : seg["first"] + seg["count"]] = linear(
                self._window(features, onehot, seg["window"])
            )
        if self.board_segments:
            pooled = torch.cat([cells.mean(dim=1), cells.amax(dim=1)], dim=1)
            for seg, mlp in zip(self.board_segments, self.board_out):
                logits[:, seg["first"] : seg["first"] + seg["count"]] = mlp(pooled)
        for k, (seg, q, kk) in enumerate(zip(self.pair_segments, self.pair_q, self.pair_k)):
            x = cells[:, getattr(self, f"pair_cells_{k}")]
            qs, ks = q(x), kk(x)
            pairs = torch.einsum("bid,bjd->bij", qs[..., :-1], ks[..., :-1]) / math.sqrt(PAIR_DIM)
            pairs = pairs + qs[..., -1:] + ks[..., -1].unsqueeze(1)
            logits[:, seg["first"] : seg["first"] + pairs.shape[1] ** 2] = pairs.flatten(1)
        return logits

    def _window(self, features: torch.Tensor, onehot: torch.Tensor, size: int) -> torch.Tensor:
        """(B, C * size * size): the features in the window centred on each
        row's piece (zeros off the grid, all zeros without a piece)."""
        b = features.shape[0]
        if size == 1:
            return torch.einsum("bn,bcn->bc", onehot, features)
        r = size // 2
        side = self.w + 2 * r
        padded = nn.functional.pad(features.view(b, self.c, self.h, self.w), (r, r, r, r)).flatten(2)
        at = onehot.argmax(dim=1)
        corner = (at // self.w) * side + at % self.w  # the window's top-left cell in the padded grid
        offsets = torch.arange(size, device=features.device)
        offsets = (offsets[:, None] * side + offsets[None, :]).flatten()
        index = (corner[:, None] + offsets[None, :])[:, None, :].expand(b, self.c, size * size)
        return torch.gather(padded, 2, index).flatten(1) * onehot.sum(dim=1, keepdim=True)


def _padded(taps: np.ndarray, width: int) -> np.ndarray:
    if taps.shape[1] == width:
        return taps
    pad = np.full((taps.shape[0], width - taps.shape[1], 2), -1, np.int64)
    return np.concatenate([taps, pad], axis=1)


class PooledValue(nn.Module):
    """The value: an MLP on the cell features' mean and maximum."""

    def __init__(self, channels: int, cells: int, hidden: int = VALUE_HIDDEN):
        super().__init__()
        self.c, self.n = channels, cells
        self.net = nn.Sequential(nn.Linear(2 * channels, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        x = latent[:, : self.c * self.n].view(-1, self.c, self.n)
        return self.net(torch.cat([x.mean(dim=2), x.amax(dim=2)], dim=1))


class BoardPolicy(OnePassMasking, MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with the board network: the features
    extractor is :class:`BoardTrunk` (pass its options as
    ``features_extractor_kwargs``), ``layout`` the game's checked action
    segments (:func:`action_layout`); the policy and value heads replace
    SB3's (``net_arch`` is empty: the trunk's output goes to the heads);
    the update's log-probabilities and entropy in one pass
    (:class:`.policies.OnePassMasking`)."""

    def __init__(self, *args, layout=None, **kwargs):
        if not layout:
            raise ValueError("BoardPolicy needs the game's action layout (boardnet.action_layout)")
        self.layout = layout
        kwargs["net_arch"] = {"pi": [], "vf": []}
        kwargs.setdefault("features_extractor_class", BoardTrunk)
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        trunk = self.features_extractor
        self.action_net = BoardHead(trunk.channels, trunk.grid, self.action_space.n, self.layout)
        self.value_net = PooledValue(trunk.channels, trunk.grid[0] * trunk.grid[1])
        # (SB3's _build made the optimizer over the heads it replaced)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "layout": self.layout}


def trunk_pieces(layout: list[dict]) -> tuple:
    """The ``(plane, rank)`` of each piece segment, in order: the trunk's ``pieces``."""
    return tuple((int(s["plane"]), int(s["rank"])) for s in layout if s["kind"] == "piece")


def board_parameters(
    obs_shape: tuple, layout: list[dict], channels: int = 32, layers: int = 3, paths: bool = False
) -> int:
    """The board policy's parameter count, by arithmetic (nothing allocated)."""

    def linear(n_in, n_out):
        return n_in * n_out + n_out

    h, w, c = obs_shape
    c += 8 * path_seats(obs_shape) if paths else 0
    total = linear(9 * c, channels) + (layers - 1) * linear(9 * channels, channels)
    cells = [s for s in layout if s["kind"] == "cells"]
    if cells:
        total += linear(channels, 1 + max(int(s["taps"][..., 1].max()) for s in cells))
    for s in layout:
        if s["kind"] == "piece":
            total += linear(channels * s["window"] ** 2, s["count"])
        elif s["kind"] == "board":
            total += linear(2 * channels, BOARD_HIDDEN) + linear(BOARD_HIDDEN, s["count"])
        elif s["kind"] == "pairs":
            total += 2 * linear(channels, PAIR_DIM + 1)
    return total + linear(2 * channels, VALUE_HIDDEN) + linear(VALUE_HIDDEN, 1)
