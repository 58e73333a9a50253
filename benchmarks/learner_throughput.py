"""How many env steps a second one PPO learner absorbs, for the capacity
model of docs/tutorials/rllib.md ("Running on a cluster"), on CPU or a GPU:

    python benchmarks/learner_throughput.py [--device cuda] [--game quess_v0] [--out F.json]

Only torch is needed (so it runs on a GPU machine without the rest of the
stack): the network is :class:`boardenvs.rllib.MaskedBoardModule`'s for the
game (3x3 convolutions, 32 channels, 3 layers, a 256-wide layer, linear
policy and value heads; its shapes are written below per game, and where
boardenvs' rllib extra is installed the script checks they are the module's,
parameter for parameter), and the update is PPO's loss as RLlib computes it
(masked logits, the clipped ratio, the KL to the sampling distribution, the
entropy, the value loss; Adam), over ``--epochs`` passes of minibatches of
``--minibatch`` steps of a batch of ``--batch``.  Reported: env steps a
second through the update (batch / seconds per batch, epochs included), the
median of ``--repeats`` batches after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import torch
from torch import nn

# the games' observation planes (H, W, C) and action counts (the registry's, written out for a torch-only machine)
GAMES = {"quess_v0": ((6, 6, 8), 1296), "quicksand_v0": ((6, 6, 19), 181)}


def network(planes, actions, channels=32, layers=3, hidden=256):
    h, w, c = planes
    blocks, cin = [], c
    for _ in range(layers):
        blocks += [nn.Conv2d(cin, channels, 3, padding=1), nn.ReLU()]
        cin = channels
    encoder = nn.Sequential(*blocks, nn.Flatten(), nn.Linear(channels * h * w, hidden), nn.ReLU())
    return nn.ModuleDict({"encoder": encoder, "pi": nn.Linear(hidden, actions), "vf": nn.Linear(hidden, 1)})


def check_against_module(net, game) -> str:
    """The parameter shapes against boardenvs.rllib's module, where it is installed."""
    try:
        import gymnasium

        import boardenvs.rllib as brl
    except ImportError:
        return "not checked (the rllib extra not installed here)"
    spec = brl.module_spec(game)
    view = gymnasium.make_vec(
        f"boardenvs:{brl.gym_id_of(brl.game_class(game))}",
        num_envs=1,
        action_mask_in_obs=True,
        vectorization_mode=gymnasium.VectorizeMode.VECTOR_ENTRY_POINT,
    )
    spec.observation_space, spec.action_space = view.single_observation_space, view.single_action_space
    module = spec.build()
    ours = [tuple(p.shape) for p in net.parameters()]
    theirs = [tuple(p.shape) for n, p in module.named_parameters() if not n.startswith("_old")]
    if ours != theirs:
        raise SystemExit(f"the network is not MaskedBoardModule's: {ours} vs {theirs}")
    return f"the module's shapes ({sum(p.numel() for p in net.parameters()):,} parameters)"


def ppo_update(net, opt, obs, masks, actions, old_logp, old_logits, adv, targets, epochs, minibatch):
    n = obs.shape[0]
    for _ in range(epochs):
        order = torch.randperm(n, device=obs.device)
        for k in range(0, n, minibatch):
            idx = order[k : k + minibatch]
            x = obs[idx].float().permute(0, 3, 1, 2)
            emb = net["encoder"](x)
            logits = torch.where(masks[idx], net["pi"](emb), torch.full((), -1e9, device=obs.device))
            logp_all = torch.log_softmax(logits, -1)
            logp = logp_all.gather(1, actions[idx, None]).squeeze(1)
            ratio = torch.exp(logp - old_logp[idx])
            a = adv[idx]
            surrogate = torch.min(a * ratio, a * ratio.clamp(0.8, 1.2))
            old = torch.log_softmax(old_logits[idx], -1)
            kl = (old.exp() * (old - logp_all)).sum(-1)
            entropy = -(logp_all.exp() * logp_all).sum(-1)
            value = net["vf"](emb).squeeze(-1)
            loss = (-surrogate + 0.2 * kl - 0.0 * entropy + 0.5 * (value - targets[idx]) ** 2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()


def measure(game, device, batch, minibatch, epochs, repeats):
    planes, actions = GAMES[game]
    torch.manual_seed(0)
    net = network(planes, actions).to(device)
    checked = check_against_module(network(planes, actions), game) if device == "cpu" else "not checked (GPU run)"
    opt = torch.optim.Adam(net.parameters(), lr=3e-4)
    obs = torch.randint(0, 2, (batch, *planes), dtype=torch.int8, device=device)
    masks = torch.rand(batch, actions, device=device) < 0.1
    masks[:, 0] = True
    act = torch.multinomial(masks.float(), 1).squeeze(1)
    old_logits = torch.where(masks, torch.randn(batch, actions, device=device), torch.full((), -1e9, device=device))
    old_logp = torch.log_softmax(old_logits, -1).gather(1, act[:, None]).squeeze(1)
    adv, targets = torch.randn(batch, device=device), torch.randn(batch, device=device)
    args = (net, opt, obs, masks, act, old_logp, old_logits, adv, targets, epochs, minibatch)
    ppo_update(*args)  # warm-up
    times = []
    for _ in range(repeats):
        if device != "cpu":
            torch.cuda.synchronize()
        t = time.perf_counter()
        ppo_update(*args)
        if device != "cpu":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return {
        "game": game,
        "device": device if device == "cpu" else torch.cuda.get_device_name(),
        "batch": batch,
        "minibatch": minibatch,
        "epochs": epochs,
        "threads": torch.get_num_threads(),
        "network": checked,
        "seconds_per_batch": statistics.median(times),
        "env_steps_s": batch / statistics.median(times),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="quess_v0", choices=list(GAMES))
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--batch", type=int, nargs="+", default=[4096])
    ap.add_argument("--minibatch", type=int, nargs="+", default=[512])
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rows = []
    for batch in args.batch:
        for minibatch in args.minibatch:
            row = measure(args.game, args.device, batch, min(minibatch, batch), args.epochs, args.repeats)
            print(
                f"{row['device']}: batch {batch}, minibatch {row['minibatch']}, {args.epochs} epochs: "
                f"{row['env_steps_s']:,.0f} env steps/s ({row['network']})",
                flush=True,
            )
            rows.append(row)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
