"""Errors raised for bad input (rules/README.md C-6).

All are ``ValueError`` subclasses, so ``except ValueError`` catches them; a
rejected input never changes any state.
"""

import re


def shorten(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters (the end shown as ``...``): what an
    error message quotes of a caller's input or of another error."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shorten_words(text: str, limit: int = 80) -> str:
    """``text`` with every run of more than ``limit`` characters without a
    space cut to ``limit`` (a caller's 100,000-character name quoted in a
    message shows its start)."""
    return re.sub(rf"\S{{{limit + 1},}}", lambda m: shorten(m.group(0), limit), text)


def shown(value, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters: how a message quotes a
    caller's value.  A value that has no repr within Python's limits (an int
    of more than 4,300 digits, a list nested thousands deep) is described
    instead, so that quoting bad input never raises in its turn."""
    try:
        text = repr(value)
    except RecursionError:
        return f"<a {type(value).__name__} nested too deeply to show>"
    except ValueError:  # int -> str conversion limit
        return f"<an {type(value).__name__} of more than {_int_digits_shown():,} digits>"
    return shorten(text, limit)


def _int_digits_shown() -> int:
    import sys

    get = getattr(sys, "get_int_max_str_digits", None)
    return get() if get else 4300


def first_line(exc: BaseException, limit: int = 160) -> str:
    """``exc`` in one short line: its type and the first line of its message
    (a library's message may run over several lines, and colour its words
    with terminal escapes: those are dropped), cut to ``limit``."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", str(exc))
    lines = [re.sub(r"[\x00-\x1f\x7f]", " ", line).strip() for line in text.strip().splitlines()]
    return shorten(f"{type(exc).__name__}: {lines[0]}" if lines and lines[0] else type(exc).__name__, limit)


def did_you_mean(name: str, names) -> str:
    """`` (did you mean 'x'?)`` naming the entry of ``names`` nearest to
    ``name`` by spelling (difflib's ratio, at least 0.6), or ``""``: the hint
    an unknown name's error ends with."""
    import difflib

    if not isinstance(name, str) or len(name) > 200:  # (difflib's time grows with the lengths)
        return ""
    close = difflib.get_close_matches(name, [str(n) for n in names], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def install_line(extra: str) -> str:
    """The command that installs ``extra`` (``"train"``, ``"render,train"``)
    where users are: boardenvs is on no package index, so from a clone
    (``pip install '.[train]'``) or from the wheel built there; what every
    missing-extra message ends with."""
    import sys

    # (the package's version, read where the package is loaded: importing it here would loop)
    version = getattr(sys.modules.get(__package__), "__version__", None) or "<version>"
    return (
        f"pip install '.[{extra}]' in a clone of boardenvs (or pip install "
        f"'dist/boardenvs-{version}-py3-none-any.whl[{extra}]' from the wheel built there)"
    )


# C0 and C1 control characters but the tab and newline: a terminal acts on them
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` safe to print on a terminal: control characters (escapes that
    retitle or clear a terminal, a carriage return that overwrites a line)
    shown as ``\\xNN`` escapes, and a lone surrogate (valid in a JSON string,
    not encodable) as ``\\udNNN``, so a name read from a file can neither
    drive the terminal nor make the print fail."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", str(text))
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class BoardEnvsError(ValueError):
    """Base class of the package's input errors (their messages quote a
    caller's input cut to length: :func:`shorten_words`)."""

    def __init__(self, *args):
        if args and isinstance(args[0], str):
            args = (shorten_words(args[0]), *args[1:])
        super().__init__(*args)


class IllegalActionError(BoardEnvsError):
    """An AEC ``step`` got an action that is out of range, masked out, of the
    wrong type, or ``None`` while the agent is alive, or came after the end."""


class IllegalMoveError(BoardEnvsError):
    """``Position.play`` got a well-formed move that is not legal here."""


class NotationError(BoardEnvsError):
    """A move string or position text is malformed."""


class OptionError(BoardEnvsError):
    """An option has a value of the wrong type or outside its range."""


class ModelFileError(BoardEnvsError):
    """A saved model's files cannot be loaded: unreadable, malformed, too
    large, a network beyond the bounds, or a format that runs code when
    loaded, not trusted (:class:`UntrustedFileError`)."""


class UntrustedFileError(ModelFileError):
    """A file in a format that runs code when it is loaded (an SB3 ``.zip``,
    an RLlib checkpoint: pickles) was named without the caller saying it
    trusts it (``trust=True``, the CLI's ``--trust-files``)."""


class MissingExtraError(BoardEnvsError, ImportError):
    """What was asked for needs a package of an extra that is not installed
    (the message ends with the line that installs it: :func:`install_line`)."""


class UnknownNameError(BoardEnvsError):
    """A name that is none of those accepted (an opponent's): ``name`` is
    it and ``choices`` the names accepted, for a caller that words its own
    message (the command line's)."""

    def __init__(self, message: str, name: str = "", choices=()):
        super().__init__(message)
        self.name = name
        self.choices = tuple(choices)


class ResetNeededError(BoardEnvsError, RuntimeError):
    """An env was stepped, observed or asked for its position before ``reset()``."""


# what every "raise" mode's message ends with: the alternatives (C-6)
ILLEGAL_ACTION_HELP = (
    "This env was made with illegal_action='raise'; illegal_action='lose' (the default, "
    "PettingZoo classic's convention) ends the game as a loss for the offender, and "
    "illegal_action='random' plays a random legal action instead."
)
