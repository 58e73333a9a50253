"""Plain text for people from docstrings: every command's ``--help`` (the
CLI's and the baselines' scripts') shows the first paragraph of its
docstring without reStructuredText markup."""

from __future__ import annotations

import re


def help_text(doc: str) -> str:
    """The first paragraph of a docstring as plain text for ``--help``: RST
    roles (a function, module or class named with a role), inline literals
    (in double backquotes) and interpreted text (in single backquotes)
    become their text; the lines become one paragraph."""
    first = (doc or "").strip().split("\n\n")[0]
    text = re.sub(
        r":[a-z]+(?::[a-z]+)?:`~?([^`<]*?)\s*(?:<[^`>]*>)?`",
        lambda m: m.group(1).rpartition(".")[2] if "~" in m.group(0) else m.group(1),
        first,
    )
    text = re.sub(r"``(.+?)``", r"\1", text, flags=re.S)
    text = re.sub(r"`([^`]+)`_{0,2}", r"\1", text)
    return " ".join(text.split())
