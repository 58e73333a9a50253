"""The command lines' shared parts (the CLI's and the baselines'
scripts'): plain help text from docstrings (every ``--help`` shows the
first paragraph of its docstring without reStructuredText markup), a parser
whose errors are one line, the game positional every command takes, and
the numbers they take (seeds among them), checked as they are parsed."""

from __future__ import annotations

import argparse
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


class CommandParser(argparse.ArgumentParser):
    """argparse's parser with the command line's one-line errors: a typo
    or a bad value prints ``error: ... (see PROG --help)`` on stderr and
    exits with status 2, as every other failure of a command does (no
    usage block, terminal control characters of the input escaped)."""

    def error(self, message):
        from .errors import printable, shorten

        self.exit(2, f"error: {printable(shorten(message, 1000))} (see {self.prog} --help)\n")


def game_type(among=None):
    """An argparse ``type`` for the game positional: an env id or its
    gymnasium id (``boardenvs/Quess-v0``), as the env id; ``among``: the ids
    accepted (default every registered one).  An unknown name's error names
    the nearest id ("did you mean")."""
    from .errors import did_you_mean, shorten
    from .registry import env_id_of, game_class, gym_id_of, registered_ids

    def game(text: str) -> str:
        try:
            env_id = env_id_of(text)
        except ValueError:
            ids = list(registered_ids() if among is None else among)
            names = [*ids, *(gym_id_of(game_class(i)) for i in ids)]
            raise argparse.ArgumentTypeError(
                f"unknown game {shorten(repr(text))}{did_you_mean(text, names)}; games: {', '.join(ids)} "
                "(or their gymnasium ids)"
            ) from None
        if among is not None and env_id not in among:
            raise argparse.ArgumentTypeError(f"{env_id} is not one of {', '.join(among)}")
        return env_id

    game.__name__ = "game"  # (argparse names the type in some messages)
    return game


def number_type(kind, low, high, what: str):
    """An argparse ``type``: a ``kind`` (int or float) in ``low..high``;
    the error says what it is (``what``) and what was given."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or value != value or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what}, got {text!r}")
        return value

    parse.__name__ = kind.__name__
    return parse


# a training run's seed: stable-baselines3 seeds numpy's legacy generator with it, which takes 32 bits
TRAINING_SEED = number_type(int, 0, 2**32 - 1, "a training seed is an integer in 0..2**32-1")
