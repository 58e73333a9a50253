"""Files the package writes (saved games, pictures, recordings, models):
checked before any work is done, and written whole or not at all.

:func:`output_path` says what is wrong with a path to write (a folder that
does not exist, a folder where a file should be, an extension not accepted)
as a ValueError naming it, so a command can refuse before it plays a game;
:func:`write_atomically` writes through a temporary file in the same folder
and renames it into place, so a write that fails leaves nothing behind (and
an existing file as it was); the file's bytes reach the disk before the rename
and the rename before it returns (``fsync``), so a crash or a reboot finds the
old file or the new one, never a part of one.  A process killed during a write
leaves its temporary file (``.<stem>.<pid>-<hex>.tmp<suffix>``, a name nothing
reads as the file); :func:`remove_stale_temporaries` clears those of dead
processes.
"""

from __future__ import annotations

import errno
import os
import re
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
    extension; ``write`` creates the file), sync it to the disk, then move it
    to ``path`` and sync the folder.  If ``write`` (or the sync) raises, the
    temporary file is removed and ``path`` is untouched; an OSError (a full
    disk: ``ENOSPC``) becomes a ValueError naming ``what`` and the path."""
    path = output_path(path, what)
    # a fresh name the writer creates itself (so the file gets the usual permissions)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}-{secrets.token_hex(4)}.tmp{path.suffix}")
    try:
        write(tmp)
        _sync(tmp, os.O_RDWR if os.name == "nt" else os.O_RDONLY)  # the bytes on disk before the name
        os.replace(tmp, path)
        if os.name != "nt":  # the rename on disk too (Windows has no folder handle to sync)
            try:
                _sync(path.parent, os.O_RDONLY)
            except OSError as exc:  # a file system that cannot sync a folder: the file is written
                if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EACCES):
                    raise
    except OSError as exc:
        raise ValueError(f"cannot write {what} {str(path)!r}: {exc.strerror or exc}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _sync(path, flags: int) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_stale_temporaries(*paths) -> list[Path]:
    """Remove the temporary files :func:`write_atomically` left beside
    ``paths`` in processes that are gone (killed during a write: a run that
    goes on in the same place starts clean); a live process's, and every
    other file, are left alone.  Returns what was removed."""
    removed = []
    for path in map(Path, paths):
        pattern = re.compile(rf"\.{re.escape(path.stem)}\.(\d+)-[0-9a-f]{{8}}\.tmp{re.escape(path.suffix)}")
        try:
            names = os.listdir(path.parent)
        except OSError:
            continue
        for name in names:
            found = pattern.fullmatch(name)
            if found and not _alive(int(found.group(1))):
                try:
                    os.unlink(path.parent / name)
                    removed.append(path.parent / name)
                except OSError:  # (gone already, or not ours to remove)
                    pass
    return removed


def _alive(pid: int) -> bool:
    """Whether the process ``pid`` may run (ours does; on Windows, where
    ``os.kill`` would end it, every process is taken to)."""
    if pid == os.getpid() or os.name == "nt":
        return True
    try:
        os.kill(pid, 0)  # (signal 0: nothing is sent, only asked whether it exists)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's, or not a pid this system has
        return True
    return True


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
