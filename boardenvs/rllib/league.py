"""Self-play on RLlib: the core's league on every runner, RLlib's snapshot factory and callbacks."""

from __future__ import annotations

from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from ..league import League
from .opponents import ModuleOpponent, _learned


def module_snapshot(spec, state, name: str = "snapshot") -> ModuleOpponent:
    """RLlib's snapshot factory for a :class:`boardenvs.league.League`: the
    module of ``spec`` with the learner's weights ``state`` (a state dict),
    frozen, playing as an opponent (its masked distribution)."""
    module = spec.build()
    module.set_state(state)
    return ModuleOpponent(module, deterministic=False, name=name)


def self_play_league(
    max_size: int = 8, latest_prob: float = 0.5, others=("random", "greedy"), others_prob: float = 0.2
):
    """The league ``opponent="self-play"`` puts on every runner: up to
    ``max_size`` snapshots of the learner (:class:`RLlibSelfPlayCallback`
    adds them on every runner) and, in ``others_prob`` of the episodes, one
    of the named ``others`` (:class:`boardenvs.league.League`)."""
    return League(max_size=max_size, latest_prob=latest_prob, initial="random", others=others, others_prob=others_prob)


class RLlibSelfPlayCallback(RLlibCallback):
    """Ray RLlib's self-play callback: every ``every`` training iterations, a
    snapshot of the learner's module (:func:`module_snapshot`) goes into the
    :class:`boardenvs.league.League` of every env runner (the local one and
    the remote ones).  Every iteration's result has
    ``"self_play_pool_sizes"``: the leagues' sizes after the last snapshot
    (``[]`` before the first)."""

    def __init__(self, every: int = 2):
        super().__init__()
        self.every = every
        self.sizes: list = []

    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs):
        if algorithm.iteration % self.every:
            result["self_play_pool_sizes"] = list(self.sizes)
            return
        spec, state = _learned(algorithm)

        def add(runner):
            pool = getattr(getattr(runner, "env", None), "unwrapped", None)
            pool = getattr(pool, "opponents", None)
            if isinstance(pool, League):
                pool.add(module_snapshot(spec, state, f"snapshot {pool.added + 1}"))
                return len(pool)
            return None  # a runner without env (the driver's, when remote runners sample)

        sizes = algorithm.env_runner_group.foreach_env_runner(add, local_env_runner=True)
        self.sizes = [n for n in sizes if n is not None]
        result["self_play_pool_sizes"] = list(self.sizes)


class LeagueMapping:
    """The native multi-agent route's self-play: in each episode one seat
    (drawn from the episode's id) is the trained module ``"main"``, every
    other seat one of the frozen snapshots (``"main"`` itself while there is
    none).  A picklable callable RLlib calls per agent and episode."""

    def __init__(self, snapshots=()):
        self.snapshots = list(snapshots)

    def __call__(self, agent_id, episode, **kwargs):
        seat = int(str(agent_id).rpartition("_")[2])
        players = len(getattr(episode, "agent_ids", ()) or ()) or 2
        key = hash(episode.id_)
        if seat == key % players or not self.snapshots:
            return "main"
        return self.snapshots[(key // players + seat) % len(self.snapshots)]


class LeagueCallback(RLlibCallback):
    """Every ``every`` iterations a frozen copy of ``"main"`` joins the
    league as a module of its own (``main_v1``, ``main_v2``, ...; RLlib's
    ``add_module``, on the learner and every env runner), and the mapping
    plays ``main`` against the snapshots."""

    def __init__(self, every: int = 2, max_snapshots: int = 8):
        super().__init__()
        self.every, self.max_snapshots, self.snapshots = every, max_snapshots, []

    def on_train_result(self, *, algorithm, metrics_logger=None, result, **kwargs):
        if algorithm.iteration % self.every:
            return
        main = algorithm.get_module("main")
        new_id = f"main_v{len(self.snapshots) + 1}"
        self.snapshots.append(new_id)
        algorithm.add_module(
            module_id=new_id,
            module_spec=RLModuleSpec.from_module(main),
            new_agent_to_module_mapping_fn=LeagueMapping(self.snapshots[-self.max_snapshots :]),
        )
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {new_id: main.get_state()}}}})
        result["league"] = list(self.snapshots)
