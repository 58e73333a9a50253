"""The masked RLModule of PPO, APPO and IMPALA: board planes through convolutions, illegal logits masked."""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.learner.utils import make_target_network
from ray.rllib.core.rl_module.apis import TARGET_NETWORK_ACTION_DIST_INPUTS, TargetNetworkAPI
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from ..registry import make_game, tool_settings

OBS_KEY, MASK_KEY = "observations", "action_mask"
MASKED_LOGIT = -1e9  # an illegal action's logit: exp() of it is 0 in float32


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
