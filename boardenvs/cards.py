"""Env cards generated from a game's declaration, for the docs and for people.

:func:`env_card` writes a game's card in Markdown from what its class
declares and what its configured variants compute: its ids (the PettingZoo
module, the gymnasium id), players and variants, each variant's action
count, observation shape and bounds, its options with their types, ranges,
defaults and meaning, its end reasons, its rules and their ids, the picture
its docs show, and the game's own notes (its module docstring: the action
and observation encodings, plane by plane, in words).  Nothing in a card is
written by hand, so no card can drift from the code, and a new game gets its
card for free.  The documentation site (``make docs``) has one card page per
registered id, made by this function.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field

from .game import GENERIC_REASON_DOCS, GENERIC_REASONS
from .registry import game_class, gym_id_of, tool_settings

__all__ = ["env_card", "notes_markdown"]


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
    return (
        ", ".join(f"{a}{'' if a == b else f'..{b}'}: {lo}..{hi}" for a, b, lo, hi in groups) + " (by last-axis index)"
    )


_ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|obj):`~?([^`]+)`")


def _inline(text: str) -> str:
    """reStructuredText's inline markup as Markdown: ````x```` and
    ``:class:`x``` become `` `x` ``."""
    return _ROLE.sub(r"`\1`", text.replace("``", "`"))


def _table(lines: list[str]) -> list[str]:
    """An RST simple table of two columns (``====  ====`` borders) as a
    Markdown table; a cell's bullet items (``* ...``) become lines of it."""
    border = lines[0]
    split = len(border) - len(border[border.index(" ") :].lstrip())  # where the second column starts
    rows: list[list[str]] = []
    for line in lines[1:-1]:
        head, body = line[:split].strip(), line[split:].strip()
        if head:
            rows.append([head, body])
        elif rows and body:
            joiner = "<br>• " if body.startswith("* ") else " "
            rows[-1][1] += joiner + (body[2:] if body.startswith("* ") else body)
    out = ["| what | how |", "|---|---|"]
    for head, body in rows:
        out.append(f"| {_inline(head)} | {_inline(body).replace('|', chr(92) + '|')} |")
    return out


def notes_markdown(text: str) -> str:
    """A game module's docstring notes (paragraphs, an RST simple table,
    ``::`` literal blocks) as Markdown."""
    lines = text.strip("\n").splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if re.fullmatch(r"=+ +=+", line.strip()):  # a simple table: up to its closing border
            j = i + 1
            while j < len(lines) and not re.fullmatch(r"=+ +=+", lines[j].strip()):
                j += 1
            out += _table(lines[i : j + 1]) + [""]
            i = j + 1
            continue
        if line.rstrip().endswith("::"):  # a paragraph introducing a literal block
            out.append(_inline(line.rstrip()[:-1]))
            j = i + 1
            block = []
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
                block.append(lines[j])
                j += 1
            while block and not block[-1].strip():
                block.pop()
            while block and not block[0].strip():
                block.pop(0)
            indent = min(len(b) - len(b.lstrip()) for b in block if b.strip()) if block else 0
            out += ["", "```text", *(b[indent:] for b in block), "```", ""]
            i = j
            continue
        out.append(_inline(line))
        i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n"


@dataclass(frozen=True)
class DocPicture:
    """The position a game's docs show (its env card, its rules page, the
    home page's table, ``make pictures``): the game's options, the seeded
    random decisions played from the start, and the seed.  A game's module
    sets them in ``TOOLS["doc_picture"]`` (:func:`boardenvs.registry.tool_settings`)."""

    options: dict = field(default_factory=dict)
    decisions: int = 12
    seed: int = 0


def doc_picture(game) -> DocPicture:
    """The :class:`DocPicture` of a game (class, instance or env id);
    TypeError naming the game for a key its ``TOOLS`` should not have."""
    settings = tool_settings(game, "doc_picture") or {}
    try:
        return DocPicture(**settings)
    except TypeError as exc:
        raise TypeError(f"TOOLS['doc_picture'] of {game}: {exc}") from None


# the options every game takes on a face, beside its own (the env card's second options table)
FACE_OPTIONS = (
    ("AEC", "render_mode", "None", "`'ansi'`, `'rgb_array'` or `'human'` (a pygame window; the render extra)"),
    ("AEC", "max_cycles", "None", "PettingZoo's limit: every seat asked at most this many times, then truncated"),
    ("AEC", "max_decisions", "None", "a limit on decisions in all (the parallel view's `max_cycles`)"),
    (
        "AEC",
        "chance_agent",
        "False",
        "chance nodes as an agent (`'chance'`) that the caller steps, instead of the seeded die",
    ),
    (
        "AEC",
        "infos",
        "'all'",
        "`'numbers'`: infos without the `end_reason` name and the mask's copy (for TorchRL's PettingZooWrapper)",
    ),
    (
        "AEC",
        "clock_seconds",
        "None",
        "a chess clock per agent (`clock_increment` seconds added each turn): a fallen flag loses",
    ),
    (
        "gymnasium",
        "opponent",
        "'random'",
        "who plays the other seats: a name, a policy, a model or a path (the opponents guide)",
    ),
    (
        "gymnasium",
        "seat",
        "'random'",
        "the learner's seat (an int), or `'random'`: drawn per episode from the reset seed",
    ),
    ("gymnasium", "flatten", "True", "the observation as one flat vector (below), or the planes"),
    ("gymnasium", "autoreset_mode", "'same_step'", "`gymnasium.make_vec`'s auto-reset, or `'next_step'`"),
    ("make_vec", "num_threads / parallel", "None", "the threads of the batched drivers (the Threads page)"),
)


def env_card(env_id: str, *, picture: str | None = None, rules: str | None = None) -> str:
    """The Markdown env card of ``env_id`` (see the module docstring).

    ``picture``: the address of the game's picture (the docs site passes
    its copy of ``boardenvs/rules/<game>.png``), shown under the summary;
    ``rules``: the address of its rules page, linked from the card."""
    cls = game_class(env_id)
    default = cls()
    lines = [f"# {cls.title} — `{env_id}`", ""]
    module = sys.modules.get(cls.__module__)
    doc = (getattr(module, "__doc__", None) or "").strip()
    summary, _, notes = doc.partition("\n\n")
    summary = " ".join(_inline(summary).split())
    summary = re.sub(rf"^{re.escape(cls.title)} — `{re.escape(env_id)}`: ", "", summary)
    lines += [summary[:1].upper() + summary[1:] if summary else cls.title, ""]
    shown = doc_picture(cls)
    if picture:
        lines += [
            f"![{cls.title}: {_variant_label(shown.options).replace('`', '')} after {shown.decisions} "
            f"seeded random decisions]({picture}){{ width=440 }}",
            "",
        ]
    rules_text = f"`boardenvs rules {env_id}` ({cls.rule_prefix}-1 ...)"
    if rules:
        rules_text = f"[the rules]({rules}), {rules_text}"
    chance = "none"
    if default.num_chance_outcomes:
        chance = f"{default.num_chance_outcomes} outcomes (resolved inside by the seeded die)"
    lines += [
        f"| env id | `{env_id}` |",
        "|---|---|",
        f"| PettingZoo | `boardenvs.make({env_id!r})`, `boardenvs.{env_id}.env()` / `raw_env()` / `parallel_env()` |",
        f"| Gymnasium | `gymnasium.make({gym_id_of(cls)!r})` (one seat learns; `gymnasium.make_vec` for N games) |",
        f"| Batched | `boardenvs.make_vec({env_id!r}, num_envs=N)` |",
        f"| Players | {', '.join(map(str, cls.player_counts()))} |",
        f"| Chance | {chance} |",
        f"| Turns | {'chains of decisions by one seat' if cls.multi_decision_turns else 'one decision each'} |",
        "| Illegal action | `illegal_action='lose'` (default: the offender loses, "
        "`info['illegal_action']`), `'raise'`, `'random'` |",
        f"| Rules | {rules_text} |",
        "",
        "## Variants",
        "",
        "| options | players | actions | observation | values |",
        "|---|---|---|---|---|",
    ]
    for variant in cls.variants:
        game = cls(**variant)
        lines.append(
            f"| {_variant_label(variant)} | {game.num_players} | `Discrete({game.num_actions})` | "
            f"`int8 {game.obs_shape}` | {_bounds(game)} |"
        )
    lines += ["", "## Options", "", "| option | allowed | default | meaning |", "|---|---|---|---|"]
    for opt in cls.option_specs:
        lines.append(f"| `{opt.name}` | {opt.allowed()} | `{opt.default!r}` | {opt.doc} |")
    lines += ["| `illegal_action` | one of 'lose', 'raise', 'random' | `'lose'` | what an illegal action does (C-6) |"]
    lines += [
        "",
        "The faces add their own options (every game takes them):",
        "",
        "| face | option | default | meaning |",
        "|---|---|---|---|",
    ]
    lines += [f"| {face} | `{name}` | `{value}` | {meaning} |" for face, name, value, meaning in FACE_OPTIONS]
    reasons = {**{k: v for k, v in GENERIC_REASONS.items() if k}, **cls.reason_names}
    docs = {**GENERIC_REASON_DOCS, **cls.reason_docs}
    lines += [
        "",
        "## End reasons",
        "",
        "`info['end_reason']` when a game ends (`Position.end_reason`):",
        "",
        "| end reason | meaning |",
        "|---|---|",
    ]
    lines += [f"| `{name}` | {docs.get(name, '')} |" for _, name in sorted(reasons.items())]
    lines += [
        "",
        "## Observations",
        "",
        f"The AEC env, `make_vec` and `Position` give the planes, `int8 {default.obs_shape}` (height, width, "
        "plane; the notes below say what each plane holds). The gymnasium ids give the same values flattened "
        f"in C order, an `int8` vector of {default.obs_size} (index `(row * width + column) * planes + plane`: "
        "SB3's convention for a non-image box); `flatten=False` keeps the planes, and the mask is "
        "`info['action_mask']` (`action_masks()` for MaskablePPO).",
        "",
    ]
    paragraphs = [p for p in notes.strip().split("\n\n") if not p.lstrip().startswith("Rules:")]
    if "\n\n".join(paragraphs).strip():  # the game's own words: encodings of actions and observations, notes
        lines += ["## The game's notes", "", notes_markdown("\n\n".join(paragraphs))]
    lines += [
        "## Picture",
        "",
        f"The docs show {_variant_label(shown.options)} after {shown.decisions} seeded random decisions "
        f"(seed {shown.seed}): `boardenvs picture {env_id} --random {shown.decisions} --seed {shown.seed}`.",
        "",
    ]
    return "\n".join(lines)
