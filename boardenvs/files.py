"""Files the package writes (saved games, pictures, recordings, models):
checked before any work is done, and written whole or not at all.

:func:`output_path` says what is wrong with a path to write (a folder that
does not exist, a folder where a file should be, an extension not accepted)
as a ValueError naming it, so a command can refuse before it plays a game;
:func:`write_atomically` writes through a temporary file in the same folder
and renames it into place, so a write that fails leaves nothing behind (and
an existing file as it was).
"""

from __future__ import annotations

import os
import secrets
import stat
import zlib
from pathlib import Path


def output_path(path, what: str = "output file", suffixes=None) -> Path:
    """``path`` as a Path if a file can be written there: its folder exists,
    it is not itself a folder and (given ``suffixes``) its extension is one of
    them; else ValueError naming ``what``, the path and what is wrong."""
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise ValueError(f"{what} must be a file path, got {path!r}")
    path = Path(path)
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise ValueError(f"{what} {str(path)!r}: the file name must end in {' or '.join(sorted(suffixes))}")
    if path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a folder, not a file")
    # only a new file or an existing regular one is written: the write replaces the path with a
    # new regular file, so a symlink, a FIFO or a device node there would be replaced
    if path.is_symlink():
        raise ValueError(
            f"{what} {str(path)!r} is a symbolic link: refused (not followed, not replaced); "
            "give the path of a regular file"
        )
    if path.exists() and not path.is_file():
        raise ValueError(f"{what} {str(path)!r} is not a regular file (a device, FIFO or socket): refused")
    folder = path.parent
    if not folder.is_dir():
        problem = "is not a folder" if folder.exists() else "does not exist"
        raise ValueError(f"{what} {str(path)!r}: the folder {str(folder)!r} {problem}")
    _check_writable(folder, what, path)
    return path


def _check_writable(folder: Path, what: str, path: Path) -> None:
    """ValueError naming ``what`` unless a new file can be created in
    ``folder``: a file is created there and removed (a permission bit or a
    read-only mount says no even to root, whom ``os.access`` would not
    refuse), so a command learns it before it plays its games, not after."""
    probe = folder / f".{secrets.token_hex(6)}.probe"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise ValueError(
            f"{what} {str(path)!r}: cannot write in the folder {str(folder)!r} ({exc.strerror or exc})"
        ) from None
    os.close(fd)
    os.unlink(probe)


def write_atomically(path, write, what: str = "output file") -> Path:
    """Call ``write(tmp)`` with a temporary path in ``path``'s folder (same
    extension), then move it to ``path``.  If ``write`` raises, the temporary
    file is removed and ``path`` is untouched; an OSError becomes a
    ValueError naming ``what`` and the path."""
    path = output_path(path, what)
    # a fresh name the writer creates itself (so the file gets the usual permissions)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}-{secrets.token_hex(4)}.tmp{path.suffix}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except OSError as exc:
        raise ValueError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


MAX_READ_BYTES = 64 * 1024 * 1024  # what a reader of a user's file (a saved game) reads at most


def read_text_capped(path, what: str = "file", limit: int = MAX_READ_BYTES, *, opener=open) -> str:
    """The UTF-8 text of ``path``, a regular file of at most ``limit``
    bytes; else ValueError naming ``what`` and the path (``/dev/zero`` or a
    FIFO would otherwise be read without end).  UnicodeDecodeError for a
    file that is not UTF-8.  ``opener``: how the file is opened for reading
    bytes (``gzip.open``: ``limit`` then bounds the decompressed text, and a
    file that is not gzip, or is cut short, is the same ValueError)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # (before opening: a FIFO's open would wait for a writer)
            raise ValueError(f"cannot read {what} {str(path)!r}: not a regular file (a folder, device, FIFO or socket)")
        with opener(path, "rb") as f:
            data = f.read(limit + 1)
    except (OSError, EOFError, zlib.error) as exc:  # (EOFError: a compressed stream cut short; zlib: corrupt)
        why = getattr(exc, "strerror", None) or (
            f"corrupt compressed data ({exc})" if isinstance(exc, zlib.error) else exc
        )
        raise ValueError(f"cannot read {what} {str(path)!r}: {why}") from None
    if len(data) > limit:
        raise ValueError(f"{what} {str(path)!r} is larger than {limit:,} bytes: refused")
    return data.decode("utf-8")
