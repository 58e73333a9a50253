"""The guided search as an opponent (``"search:<simulations>:<model>"``):
a model's priors and values (:func:`model_evaluator`) steering
:class:`.search.GuidedSearch` over batches of positions."""

from __future__ import annotations

import numpy as np

from boardenvs.opponents import Opponent

from .search import DEFAULT_SIMULATIONS, MAX_SIMULATIONS, PUCT_C, GuidedSearch


def model_evaluator(policy):
    """``evaluate(obs, masks) -> (priors, values)`` of an SB3 policy (a
    ``MaskableActorCriticPolicy``, a :class:`boardenvs.baselines.Baseline`'s
    or a model's ``.policy``): the masked policy's probabilities and the
    value head's estimate for the seat to act, one forward pass."""
    import torch

    from .networks import policy_value

    shape = tuple(policy.observation_space.shape)

    def evaluate(obs, masks):
        with torch.no_grad():
            o = torch.as_tensor(np.asarray(obs).reshape((len(obs), *shape))).float()
            log_p, values = policy_value(policy, o, torch.as_tensor(masks, dtype=torch.bool))
        return log_p.exp().numpy(), values.numpy().astype(np.float64)

    return evaluate


class SearchOpponent(Opponent):
    """PUCT guided by a model (see the module docstring); needs the state
    rows.  ``model``: a :class:`~boardenvs.baselines.Baseline`, an SB3
    model or policy with a value head, or an ``evaluate(obs, masks) ->
    (priors, values)`` callable; ``simulations`` per decision (200), ``c``
    the exploration constant (1.25), ``root_noise=(alpha, eps)`` Dirichlet
    noise at the root (off), ``parallel`` as in ``mcts``."""

    def __init__(
        self,
        model,
        simulations: int = DEFAULT_SIMULATIONS,
        c: float = PUCT_C,
        name: str | None = None,
        root_noise: tuple[float, float] | None = None,
        parallel: bool | None = None,
        others: str | None = None,
    ):
        from boardenvs.spec import is_int

        if not is_int(simulations) or simulations < 1:
            raise ValueError(f"search: simulations must be a positive int, got {simulations!r}")
        if simulations > MAX_SIMULATIONS:
            raise ValueError(f"search: simulations must be at most {MAX_SIMULATIONS:_}, got {simulations!r}")
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not c >= 0:
            raise ValueError(f"search: c must be a number >= 0, got {c!r}")
        if root_noise is not None:
            alpha, eps = root_noise
            if not (alpha > 0 and 0 <= eps <= 1):
                raise ValueError(f"search: root_noise is (alpha > 0, 0 <= eps <= 1), got {root_noise!r}")
        self.model = model
        policy = getattr(model, "policy", model)
        if hasattr(policy, "value_net") and hasattr(policy, "observation_space"):
            self.evaluate = model_evaluator(policy)
            self.policy = policy
        elif callable(model):
            self.evaluate, self.policy = model, None
        else:
            raise ValueError(
                f"search: the model must be a Baseline, an SB3 model or policy with a value head, or "
                f"an evaluate(obs, masks) -> (priors, values) callable; got {type(model).__name__}"
            )
        if others not in (None, "greedy"):
            raise ValueError(f"search: others is None (searched) or 'greedy' (played by greedy), got {others!r}")
        self.simulations, self.c, self.root_noise, self.parallel = int(simulations), float(c), root_noise, parallel
        self.others = others
        self.name = name or f"search:{self.simulations}"

    def _check_game(self, game) -> None:
        config = getattr(self.model, "config", None)
        if config is not None:
            from .networks import same_game

            if not same_game(config["env_id"], config["options"], game.env_id, game.options):
                model = config["env_id"] + (f" {config['options']}" if config["options"] else "")
                raise ValueError(f"{self.name}: the model plays {model}, this game is {game.env_id} {game.options}")
        elif self.policy is not None and self.policy.action_space.n != game.mask_size:
            raise ValueError(
                f"{self.name}: the model chooses among {self.policy.action_space.n} actions, "
                f"{game.env_id} has {game.mask_size}"
            )

    def act(self, batch) -> np.ndarray:
        """The batch's decisions, searched from copies of its rows (``batch.states``)."""
        return self.search_policy(batch)[0]

    def search_policy(self, batch) -> tuple[np.ndarray, np.ndarray]:
        """``(actions (k,), probs (k, mask_size))``: the most visited root
        edges and the root's visit shares (a forced decision: 1 on its action)."""
        game = batch.game
        self._check_game(game)
        states = np.ascontiguousarray(batch.states, dtype=np.int64)
        if len(states) == 0:
            return np.zeros(0, np.int64), np.zeros((0, game.mask_size))
        tree = GuidedSearch(
            game,
            states,
            self.evaluate,
            self.simulations,
            self.c,
            root_noise=self.root_noise,
            rng=batch.rng,
            parallel=self.parallel,
            others=self.others,
        )
        visits = tree.run()
        return tree.decisions(visits), visits / visits.sum(axis=1, keepdims=True)
