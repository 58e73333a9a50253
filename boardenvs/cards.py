"""Env cards generated from a game's declaration, for the docs and for people.

:func:`env_card` writes a game's card in Markdown from what its class
declares and what its configured variants compute: its ids (the PettingZoo
module, the gymnasium id), players and variants, each variant's action
count, observation shape and bounds, its options with their types, ranges,
defaults and meaning, its end reasons, its rules and their ids, the picture
its docs show, and the game's own notes (its env card table: the action
and observation encodings in words).  Nothing in a card is written by hand,
so no card can drift from the code, and a new game gets its card for free.
"""
from __future__ import annotations

import sys

from .game import GENERIC_REASONS
from .registry import game_class, gym_id_of


def _variant_label(variant: dict) -> str:
    return ", ".join(f"`{k}={v!r}`" for k, v in variant.items()) or "defaults"


def _bounds(game) -> str:
    """The observation's value range, per plane where planes differ."""
    high = game.info.obs_high.reshape(-1, game.info.obs_shape[-1]).max(axis=0)
    low = game.info.obs_low.reshape(-1, game.info.obs_shape[-1]).min(axis=0)
    if (high == high[0]).all() and (low == low[0]).all():
        return f"{int(low[0])}..{int(high[0])}"
    groups = []
    for k, (lo, hi) in enumerate(zip(low, high)):
        if groups and groups[-1][2:] == [int(lo), int(hi)]:
            groups[-1][1] = k
        else:
            groups.append([k, k, int(lo), int(hi)])
    return ", ".join(f"{a}{'' if a == b else f'..{b}'}: {lo}..{hi}" for a, b, lo, hi in groups) + " (by last-axis index)"


def env_card(env_id: str) -> str:
    """The Markdown env card of ``env_id`` (see the module docstring)."""
    cls = game_class(env_id)
    default = cls()
    lines = [f"# {cls.title} — `{env_id}`", ""]
    module = sys.modules.get(cls.__module__)
    doc = (getattr(module, "__doc__", None) or "").strip()
    summary, _, notes = doc.partition("\n\n")
    lines += [" ".join(summary.replace("``", "`").split()) or cls.title, ""]
    lines += [
        "| | |",
        "|---|---|",
        f"| PettingZoo | `boardenvs.make({env_id!r})`, `boardenvs.{env_id}.env()` / `raw_env()` / `parallel_env()` |",
        f"| Gymnasium | `gymnasium.make({gym_id_of(cls)!r})` (one seat learns; `gymnasium.make_vec` for N games) |",
        f"| Batched | `boardenvs.make_vec({env_id!r}, num_envs=N)` |",
        f"| Players | {', '.join(map(str, cls.player_counts()))} |",
        f"| Chance | {f'{default.num_chance_outcomes} outcomes (resolved inside by the seeded die)' if default.num_chance_outcomes else 'none'} |",
        f"| Turns | {'chains of decisions by one seat' if cls.multi_decision_turns else 'one decision each'} |",
        f"| Rules | `boardenvs rules {env_id}` ({cls.rule_prefix}-1 ...) |",
        "",
        "## Variants",
        "",
        "| options | players | actions | observation | values |",
        "|---|---|---|---|---|",
    ]
    for variant in cls.variants:
        game = cls(**variant)
        lines.append(f"| {_variant_label(variant)} | {game.num_players} | `Discrete({game.num_actions})` | "
                     f"`int8 {game.obs_shape}` | {_bounds(game)} |")  # fmt: skip
    lines += ["", "## Options", "", "| option | allowed | default | meaning |", "|---|---|---|---|"]
    for opt in cls.option_specs:
        lines.append(f"| `{opt.name}` | {opt.allowed()} | `{opt.default!r}` | {opt.doc} |")
    lines += ["| `illegal_action` | one of 'lose', 'raise', 'random' | `'lose'` | what an illegal action does (C-6) |"]
    reasons = {**{k: v for k, v in GENERIC_REASONS.items() if k}, **cls.reason_names}
    lines += ["", "## End reasons", "", ", ".join(f"`{name}`" for _, name in sorted(reasons.items())), ""]
    if notes.strip():  # the game's own words: its card table (action and observation encodings), as written
        lines += ["## The game's notes", "", "```text", *notes.strip().splitlines(), "```", ""]
    shown = cls.doc_picture
    lines += ["## Picture", "",
              f"The docs show {_variant_label(shown.options)} after {shown.decisions} seeded random decisions "
              f"(seed {shown.seed}): `boardenvs picture {env_id} --random {shown.decisions} --seed {shown.seed}`.", ""]  # fmt: skip
    return "\n".join(lines)
