"""``python -m boardenvs.baselines.ladder``: the maintainers' command line
(:func:`boardenvs.baselines.ladder.main`)."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
