"""Feature extractors for the baselines' MaskablePPO policies.

Every boardenvs observation is an ``int8`` array with known bounds
(``observation_space.high``).  Two shapes occur:

* **board planes** ``(H, W, C)``, channels last (Quess, Quicksand: the 6x6
  square board; Quagmire, Hex Quoridor: the hex board on its axial grid, see
  :mod:`boardenvs.hexboard`): :class:`BoardCNN`, a few 3x3 convolutions that
  keep the board's size, then one linear layer.  On a **hex board** the grid
  holds cell ``(q, r)`` at row ``r + R``, column ``q + R``; a cell's six
  neighbours are the 3x3 window minus two corners, the taps ``(-1, -1)`` and
  ``(+1, +1)`` (cells two steps away).  ``hex=True`` zeroes those two taps of
  every kernel, so each convolution sees exactly a cell and its six
  neighbours (a hexagonal convolution on the axial grid);
* **tracks** ``(players, cells)`` (Tryasina): :class:`TrackMLP`, the planes
  flattened into a two-layer MLP.

Inputs are scaled to ``[0, 1]`` by the space's per-feature upper bound.
"""
from __future__ import annotations

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


def _scale(space: gymnasium.spaces.Box) -> torch.Tensor:
    high = np.asarray(space.high, np.float32)
    return torch.as_tensor(1.0 / np.maximum(high, 1.0))


class HexConv2d(nn.Conv2d):
    """A 3x3 convolution whose kernel covers a hex cell and its six
    neighbours on the axial grid (the two taps two steps away are zero)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__(in_channels, out_channels, kernel_size=3, padding=1)
        mask = torch.ones(1, 1, 3, 3)
        mask[..., 0, 0] = 0.0  # (dq, dr) = (-1, -1)
        mask[..., 2, 2] = 0.0  # (dq, dr) = (+1, +1)
        self.register_buffer("hex_mask", mask)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._conv_forward(x, self.weight * self.hex_mask, self.bias)


class BoardCNN(BaseFeaturesExtractor):
    """``layers`` 3x3 convolutions of ``channels`` (ReLU, board size kept),
    flattened, then a linear layer of ``features_dim`` (ReLU)."""

    def __init__(self, observation_space: gymnasium.spaces.Box, features_dim: int = 128, channels: int = 32,
                 layers: int = 3, hex: bool = False):  # fmt: skip
        if len(observation_space.shape) != 3:
            raise ValueError(f"BoardCNN takes (H, W, C) board planes, got shape {observation_space.shape}")
        super().__init__(observation_space, features_dim)
        h, w, c = observation_space.shape
        self.register_buffer("scale", _scale(observation_space))
        conv = HexConv2d if hex else (lambda i, o: nn.Conv2d(i, o, kernel_size=3, padding=1))
        blocks, width = [], c
        for _ in range(layers):
            blocks += [conv(width, channels), nn.ReLU()]
            width = channels
        self.cnn = nn.Sequential(*blocks, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(channels * h * w, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = (observations * self.scale).permute(0, 3, 1, 2)  # (B, H, W, C) -> (B, C, H, W)
        return self.linear(self.cnn(x))


class TrackMLP(BaseFeaturesExtractor):
    """The planes flattened into two linear layers (ReLU)."""

    def __init__(self, observation_space: gymnasium.spaces.Box, features_dim: int = 128, hidden: int = 256):
        super().__init__(observation_space, features_dim)
        self.register_buffer("scale", _scale(observation_space))
        size = int(np.prod(observation_space.shape))
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(size, hidden), nn.ReLU(), nn.Linear(hidden, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations * self.scale)


EXTRACTORS = {"cnn": BoardCNN, "mlp": TrackMLP}
