"""The baselines' SB3 policies: sb3-contrib's masked actor-critic, its PPO
update's log-probabilities and entropy computed in one pass.

In ``MaskablePPO``'s update, ``evaluate_actions`` builds a
``MaskableCategorical`` from the logits (one normalisation, an ``exp`` over
every action of every sample), masks it (a second normalisation) and takes
its entropy (a softmax: a third), with the distribution's checks and copies
and their backward passes.  :class:`OnePassMasking` computes the same three
results from one ``log_softmax`` of the masked logits (masked entries at
sb3-contrib's -1e8, the entropy over the legal actions only): the same
numbers and gradients (``tests/test_boardnet.py`` compares them) in fewer
passes over the logits.  Rollouts (``forward``, ``predict``) are
sb3-contrib's, unchanged.
"""

from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

MASKED_LOGIT = -1e8  # sb3-contrib's value for a masked-out action's logit


class OnePassMasking:
    """``evaluate_actions`` of a ``MaskableActorCriticPolicy`` from one
    ``log_softmax`` (see the module docstring)."""

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks=None):
        if action_masks is None:
            return super().evaluate_actions(obs, actions, action_masks)
        features = self.extract_features(obs)
        if self.share_features_extractor:
            latent_pi, latent_vf = self.mlp_extractor(features)
        else:
            latent_pi = self.mlp_extractor.forward_actor(features[0])
            latent_vf = self.mlp_extractor.forward_critic(features[1])
        logits = self.action_net(latent_pi)
        legal = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
        log_p = torch.log_softmax(logits.masked_fill(~legal, MASKED_LOGIT), dim=-1)
        log_prob = log_p.gather(1, actions.long().reshape(-1, 1)).squeeze(1)
        entropy = -(log_p.exp() * log_p).masked_fill(~legal, 0.0).sum(-1)
        return self.value_net(latent_vf), log_prob, entropy


class DensePolicy(OnePassMasking, MaskableActorCriticPolicy):
    """sb3-contrib's ``MaskableActorCriticPolicy`` (a features extractor,
    ``net_arch`` layers, a linear head over every action), its update in
    one pass; the same parameters, so every model saved from the parent
    class loads into it."""
