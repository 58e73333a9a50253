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
  neighbours (a hexagonal convolution on the axial grid).
  ``split=(k, ...)`` adds, for each named plane ``k``, one plane per piece
  on it (``pieces`` of them) in reading order of the grid: where an action
  space names a player's pieces by that order (Quagmire's piece 0 and 1),
  the convolutions see which piece is which instead of having to count.
  ``around=True`` (with ``split``) also gives the linear layer each such
  piece's **own view**: the input planes in a window of twice the grid's
  size centred on the piece (so it holds the whole board wherever the piece
  stands).  A flattened board fed to a linear layer has to learn "the cells
  next to piece 0" once for every place piece 0 may stand; in the piece's
  own view "the cell east of it" is always the same input, as it is in the
  action space (piece x direction);
  :class:`HexPathsCNN` (``"hexpaths"``) adds to Hex Quoridor's planes what
  its rules turn on and a few convolutions cannot compute: every seat's
  goal distances, its pawn's shortest paths and the edges on them
  (a breadth-first search in torch on each forward pass);
* **tracks** ``(players, cells)`` (Tryasina): :class:`TrackMLP`, the planes
  flattened into a two-layer MLP.

Inputs are scaled to ``[0, 1]`` by the space's per-feature upper bound.
"""

from __future__ import annotations

import inspect

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from boardenvs.hexboard import DIRECTIONS


def input_scale(space: gymnasium.spaces.Box) -> torch.Tensor:
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
    flattened, then a linear layer of ``features_dim`` (ReLU).  ``split``:
    planes whose pieces get a plane each (``pieces`` per plane, first in
    reading order first), added to the input."""

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        features_dim: int = 128,
        channels: int = 32,
        layers: int = 3,
        hex: bool = False,
        split: tuple = (),
        pieces: int = 2,
        around: bool = False,
    ):
        if len(observation_space.shape) != 3:
            raise ValueError(f"BoardCNN takes (H, W, C) board planes, got shape {observation_space.shape}")
        super().__init__(observation_space, features_dim)
        h, w, c = observation_space.shape
        self.split = tuple(int(k) for k in split)
        if any(not 0 <= k < c for k in self.split) or pieces < 1:
            raise ValueError(f"split names planes 0..{c - 1} and pieces >= 1, got split={split}, pieces={pieces}")
        self.pieces = int(pieces)
        if around and not self.split:
            raise ValueError("around=True centres windows on the split planes' pieces: name them with split=(k, ...)")
        self.around = bool(around)
        self.register_buffer("scale", input_scale(observation_space))
        conv = HexConv2d if hex else (lambda i, o: nn.Conv2d(i, o, kernel_size=3, padding=1))
        c_in = c + len(self.split) * self.pieces + self.extra_planes
        blocks, width = [], c_in
        for _ in range(layers):
            blocks += [conv(width, channels), nn.ReLU()]
            width = channels
        self.cnn = nn.Sequential(*blocks, nn.Flatten())
        views = len(self.split) * self.pieces * (2 * h - 1) * (2 * w - 1) * c_in if self.around else 0
        self.linear = nn.Sequential(nn.Linear(channels * h * w + views + self.extra_scalars, features_dim), nn.ReLU())

    # what a subclass adds (set before this __init__): planes to the convolutions' input, numbers to the linear layer's
    extra_planes = 0
    extra_scalars = 0

    def _extra(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor] | None:
        """(planes (B, k, H, W), scalars (B, m)) computed from the raw observations, or None."""
        return None

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        x = (observations * self.scale).permute(0, 3, 1, 2)  # (B, H, W, C) -> (B, C, H, W)
        extra = self._extra(observations)
        if extra is not None:
            x = torch.cat([x, extra[0]], dim=1)
        if not self.split:
            features = self.cnn(x)
        else:
            pieces = self._split(x)
            x = torch.cat([x, pieces], dim=1)
            features = self.cnn(x)
            if self.around:
                features = torch.cat([features, self._views(x, pieces)], dim=1)
        if extra is not None:
            features = torch.cat([features, extra[1]], dim=1)
        return self.linear(features)

    def _views(self, x: torch.Tensor, pieces: torch.Tensor) -> torch.Tensor:
        """(B, pieces * (2H-1) * (2W-1) * C): for every split piece, ``x`` in
        the (2H-1, 2W-1) window centred on it (zeros off the grid, and all
        zeros for a piece not on the board)."""
        b, c, h, w = x.shape
        padded = nn.functional.pad(x, (w - 1, w - 1, h - 1, h - 1))
        flat = pieces.reshape(b, pieces.shape[1], h * w)
        at = flat.argmax(dim=2)  # (B, P): the piece's cell, 0 if none
        present = (flat.sum(dim=2) > 0).to(x.dtype)
        rows = (at // w)[:, :, None] + torch.arange(2 * h - 1)  # (B, P, 2H-1) in padded rows
        cols = (at % w)[:, :, None] + torch.arange(2 * w - 1)
        batch = torch.arange(b)[:, None, None, None]
        views = padded.permute(0, 2, 3, 1)[batch, rows[:, :, :, None], cols[:, :, None, :]]  # (B, P, 2H-1, 2W-1, C)
        return (views * present[:, :, None, None, None]).reshape(b, -1)

    def _split(self, x: torch.Tensor) -> torch.Tensor:
        """(B, len(split) * pieces, H, W): plane k's i-th occupied cell in
        reading order (row by row) on plane ``pieces * j + i``."""
        b, _, h, w = x.shape
        occupied = (x[:, list(self.split)] > 0).reshape(b, len(self.split), h * w)
        rank = torch.cumsum(occupied.to(torch.int32), dim=2)  # 1 on the first piece, 2 on the second, ...
        planes = [(occupied & (rank == i + 1)) for i in range(self.pieces)]
        return torch.stack(planes, dim=2).reshape(b, len(self.split) * self.pieces, h, w).to(x.dtype)


# the axial grid's six directions E, NE, NW, W, SW, SE (boardenvs.hexboard.DIRECTIONS, (dq, dr)) as
# (row, column) steps: cell (q, r) is at row r + R, column q + R
HEX_STEPS = tuple((dr, dq) for dq, dr in DIRECTIONS)


def _neighbours(padded: torch.Tensor, d: int) -> torch.Tensor:
    """For every cell, the value of its neighbour in direction ``d``, from a
    (..., H + 2, W + 2) tensor padded by one cell all round."""
    dr, dc = HEX_STEPS[d]
    h, w = padded.shape[-2] - 2, padded.shape[-1] - 2
    return padded[..., 1 + dr : 1 + dr + h, 1 + dc : 1 + dc + w]


def hex_distances(sources: torch.Tensor, blocked: torch.Tensor, far: float) -> torch.Tensor:
    """Steps from every cell to the nearest source cell through unblocked
    edges: ``sources`` (B, S, H, W) 0/1, ``blocked`` (B, 6, H, W) 0/1 (edge of
    the cell in direction d of :data:`HEX_STEPS`; a cell off the board or
    behind the rim is never reached), ``far`` where no path leads.  A
    breadth-first search as repeated relaxation, until nothing changes."""
    h, w = sources.shape[-2:]
    dist = torch.where(sources > 0, 0.0, far)
    open_ = (blocked == 0)[:, None]  # (B, 1, 6, H, W)
    for _ in range(h * w):
        padded = nn.functional.pad(dist, (1, 1, 1, 1), value=far)
        nearer = dist
        for d in range(6):
            nearer = torch.minimum(nearer, torch.where(open_[:, :, d], _neighbours(padded, d) + 1.0, far))
        if torch.equal(nearer, dist):
            break
        dist = nearer
    return dist


class HexPathsCNN(BoardCNN):
    """:class:`BoardCNN` (hex convolutions) on Hex Quoridor's planes plus
    what its rules turn on, the pawns' shortest paths (HQ-7, HQ-8; the
    greedy opponent ranks moves by them): for each seat, observer first,
    the goal distance of every cell (fences block, pawns do not; scaled by
    ``1 / scale_steps``, unreachable cells at ``far / scale_steps``), the
    cells on one of its pawn's shortest paths and, per direction, the edges
    on one (6 planes: a fence across one of them may lengthen the path); the
    linear layer also gets each pawn's distance.  The planes come from the
    observation's layout (``5n + 7`` planes for ``n`` seats, see the game's
    card): pawns at ``1..n``, blocked edges at ``n+1..n+6``, the observer's
    goal at ``n+7``, the others' at ``3n+8..4n+6``.  Computed in torch by
    :func:`hex_distances` on every forward pass (no state is needed)."""

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        features_dim: int = 128,
        channels: int = 32,
        layers: int = 3,
        hex: bool = True,
        scale_steps: int = 16,
        **kwargs,
    ):
        shape = observation_space.shape
        if len(shape) != 3 or (shape[2] - 7) % 5 or shape[2] < 17:
            raise ValueError(f"HexPathsCNN reads Hex Quoridor's (H, W, 5n + 7) planes, got shape {shape}")
        self.seats = (shape[2] - 7) // 5
        self.extra_planes, self.extra_scalars = 8 * self.seats, self.seats
        self.scale_steps = float(scale_steps)
        super().__init__(observation_space, features_dim, channels, layers, hex=hex, **kwargs)

    def _extra(self, observations):
        return path_planes(observations, self.seats, self.scale_steps)


def path_seats(shape: tuple) -> int:
    """The seats of Hex Quoridor's ``(H, W, 5n + 7)`` planes (ValueError for other planes)."""
    if len(shape) != 3 or (shape[2] - 7) % 5 or shape[2] < 17:
        raise ValueError(f"path planes read Hex Quoridor's (H, W, 5n + 7) planes, got shape {shape}")
    return (shape[2] - 7) // 5


def path_planes(observations: torch.Tensor, n: int, scale_steps: float = 16.0) -> tuple[torch.Tensor, torch.Tensor]:
    """What Hex Quoridor's rules turn on, from its raw planes (``n`` seats,
    observer first): per seat, every cell's goal distance (fences block,
    pawns do not; scaled by ``1 / scale_steps``), the cells on one of its
    pawn's shortest paths and, per direction, the edges on one: ``8n``
    planes ``(B, 8n, H, W)``; and each pawn's distance ``(B, n)``."""
    obs = observations.permute(0, 3, 1, 2).float()  # unscaled 0/1 planes
    b, _, h, w = obs.shape
    far = float(h * w)
    pawns = obs[:, 1 : n + 1]
    blocked = torch.maximum(obs[:, n + 1 : n + 7], 1.0 - obs[:, 0:1])  # a cell off the board: every edge
    goals = torch.cat([obs[:, n + 7 : n + 8], obs[:, 3 * n + 8 : 4 * n + 7]], dim=1)
    both = hex_distances(torch.cat([goals, pawns], dim=1), blocked, far)
    to_goal, from_pawn = both[:, :n], both[:, n:]
    present = pawns.flatten(2).sum(dim=2) > 0  # (B, n): a seat out has no pawn
    length = torch.where(present, (to_goal * pawns).flatten(2).sum(dim=2), far)  # (B, n)
    target = length[:, :, None, None]
    reachable = target < far
    on_path = ((from_pawn + to_goal == target) & reachable).float()
    padded = nn.functional.pad(to_goal, (1, 1, 1, 1), value=far)
    edges = [
        (from_pawn + 1.0 + _neighbours(padded, d) == target) & (blocked[:, d : d + 1] == 0) & reachable
        for d in range(6)
    ]
    edge_planes = torch.stack(edges, dim=2).float().reshape(b, 6 * n, h, w)  # seat-major, then direction
    top = far / scale_steps
    planes = torch.cat([torch.clamp(to_goal / scale_steps, max=top), on_path, edge_planes], dim=1)
    return planes, torch.clamp(length / scale_steps, max=top)


class TrackMLP(BaseFeaturesExtractor):
    """The planes flattened into two linear layers (ReLU)."""

    def __init__(self, observation_space: gymnasium.spaces.Box, features_dim: int = 128, hidden: int = 256):
        super().__init__(observation_space, features_dim)
        self.register_buffer("scale", input_scale(observation_space))
        size = int(np.prod(observation_space.shape))
        self.net = nn.Sequential(
            nn.Flatten(), nn.Linear(size, hidden), nn.ReLU(), nn.Linear(hidden, features_dim), nn.ReLU()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations * self.scale)


EXTRACTORS = {"cnn": BoardCNN, "hexpaths": HexPathsCNN, "mlp": TrackMLP}


def option_names(extractor: type) -> set[str]:
    """The options an extractor class takes by name: its constructor's
    and, where it passes ``**kwargs`` on, its bases' (the observation space
    excluded)."""
    names = set()
    for klass in extractor.__mro__:
        if "__init__" not in vars(klass):
            continue
        params = list(inspect.signature(vars(klass)["__init__"]).parameters.values())[1:]
        names |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if not any(p.kind is p.VAR_KEYWORD for p in params):
            break
    return names - {"observation_space"}
