"""The leaderboard page's tables (:func:`markdown`, the docs' generated
block): every committed ladder's members with their ratings, and the agents
rated on it, from the committed files.
"""

from __future__ import annotations

import json

from .store import ladder_names, ladder_versions, load_ladder, rated_path


def _sweeps(ladder: dict, member: str) -> str:
    """The members ``member`` lost every game to (``< x``) or won every game
    against (``> x``): where the ladder's games separate two members
    completely, the distance between them comes from the prior and the
    others' games, a bound more than a measurement."""
    out = []
    for pair, (n, score) in ladder["pairs"].items():
        a, b = pair.split("|")
        if member in (a, b) and score in (0, n):
            other = b if member == a else a
            won = (score == n) == (member == a)
            out.append(f"{'>' if won else '<'} `{other}`")
    return ", ".join(out) or "-"


def markdown() -> str:
    """The leaderboard page's tables, from the committed ladders."""
    lines = []
    for name in ladder_names():
        for v in ladder_versions(name):
            ladder = load_ladder(name, v)
            lines.append(f"\n## {name} (ladder v{v})\n")
            opts = ", ".join(f"{k}={val}" for k, val in ladder["options"].items())
            opened = f", the first {ladder['opening']} decisions seeded random" if ladder["opening"] else ""
            lines.append(
                f"`{ladder['env_id']}` ({opts}); {ladder['players']} players; {ladder['games_per_pair']} games "
                f"per pairing{opened}; "
                f"built with boardenvs {ladder['package']} on {ladder['date']}.\n"
            )
            lines.append("| rank | member | Elo [95% interval] | games | swept by / swept |\n|---|---|---|---|---|")
            ranked = sorted(ladder["members"], key=lambda m: -m["elo"])
            for k, m in enumerate(ranked):
                lo, hi = m["interval"]
                shown = "0 (anchor)" if m["name"] == ladder["anchor"] else f"{m['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}]"
                lines.append(f"| {k + 1} | `{m['name']}` | {shown} | {m['games']:,} | {_sweeps(ladder, m['name'])} |")
            path = rated_path(name, v)
            if path.is_file():
                entries = json.loads(path.read_text())
                lines.append(
                    f"\nRated on this ladder with `boardenvs rate` (a member is rated against the others; "
                    f"games in `{name}/v{v}.rated.jsonl.gz`):\n"
                )
                lines.append(
                    "| agent | Elo [95% interval] | games | stopped | seconds | seed |\n|---|---|---|---|---|---|"
                )
                for agent, e in sorted(entries.items(), key=lambda kv: -kv[1]["rating"]):
                    lo, hi = e["interval"]
                    why = f"±{e['precision']:g} reached" if e["stopped"] == "precision" else "games cap"
                    lines.append(
                        f"| `{agent}` | {e['rating']:+.0f} [{lo:+.0f}, {hi:+.0f}] | {e['games']:,} | {why} | "
                        f"{e['seconds']:.0f} | {e['seed']} |"
                    )
    return "\n".join(lines) + "\n"
