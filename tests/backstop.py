"""The one wall-clock limit the tests use: a subprocess that runs
longer than this is hung, not slow.  A backstop only, never a measure: the
suite's outcomes do not depend on the machine's load (a busy machine runs it
3-5x slower; the slowest subprocess takes about 2 minutes on a quiet one)."""

HANG_S = 3600
