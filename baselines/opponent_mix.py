"""Who a training run's learner plays: the opponent mix.

Each fixed opponent (``random``, ``greedy``, ``mcts:<n>``: the game's
declared shares, :attr:`.networks.TrainingDefaults.opponents`, or the run's
``--random-share`` / ``--greedy-share`` / ``--mcts-share``) gets its share
of the episodes; the rest are played against the self-play league's
snapshots (:class:`boardenvs.league.League`).  The views ask
:meth:`OpponentMix.pick` once per episode with their seeded generator; a
resumed run rebuilds the same mix and puts each row's opponent back
(:mod:`.resume`).
"""

from __future__ import annotations


class OpponentMix:
    """The views' per-episode opponent picker: each fixed opponent with its
    share of the episodes, else one drawn from the self-play pool."""

    def __init__(self, pool, shares: dict):
        from boardenvs.opponents import make_opponent

        total = sum(shares.values())
        if any(s < 0 for s in shares.values()) or total > 1.0:
            raise ValueError(f"opponent shares must be >= 0 and add up to at most 1, got {shares}")
        self.pool = pool
        self.fixed = [(make_opponent(name), float(share)) for name, share in shares.items() if share > 0]

    def pick(self, rng):
        u = rng.random()
        for opponent, share in self.fixed:
            if u < share:
                return opponent
            u -= share
        return self.pool.pick(rng)

    def __repr__(self) -> str:
        parts = [f"{o.name} {s:.0%}" for o, s in self.fixed]
        return f"<OpponentMix {', '.join(parts)}, else {self.pool!r}>"


def shares_of(defaults, random_share, greedy_share, mcts_name: str, mcts_share: float) -> dict:
    """The fixed opponents' shares of the episodes: the game's declared ones,
    each given share in its place; the rest is self-play."""
    shares = {"random": 0.0, "greedy": 0.0, **{k: float(v) for k, v in defaults.opponents.items()}}
    for name, share in (("random", random_share), ("greedy", greedy_share)):
        if share is not None:
            shares[name] = float(share)
    if mcts_share:
        shares[mcts_name] = float(mcts_share)
    return shares


def learner_opponent(mix: OpponentMix):
    """What the learner plays: one fixed opponent when it has every episode
    (``greedy`` then decides inside the engine), else the per-episode mix."""
    whole = [opponent for opponent, share in mix.fixed if share >= 1.0]
    return whole[0] if whole else mix
