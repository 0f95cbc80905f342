"""Safe file writing for commands that produce or rewrite configuration files.

The promise: nothing is ever lost.

* Every write is atomic: the text goes to a temp file in the target's own directory (same file
  system), is flushed and fsynced, and only then ``os.replace``\\ d over the target — a crash or
  an exception at any point leaves either the old file or the new one, never half of each.
* Only a regular file is ever replaced.  A device node (``/dev/null``, ``/dev/full``), a FIFO,
  a socket or a directory is refused even with ``force``; a symbolic link is followed (the file
  it points to is replaced, the link stays a link), and refused the same way when that is not a
  regular file.
* A file the command read (``inputs``: the configuration, its Includes, every ``.htaccess``) is
  never written over, even with ``force``: compared by device and inode, so a symlink, a hard
  link or another spelling of the same path is caught too.
* An existing output is overwritten only with ``force``.
* In-place rewrites (:func:`rewrite_in_place`) keep a backup of every file they change, named
  as ``cp --backup=numbered`` names them: ``httpd.conf.~1~``, then ``httpd.conf.~2~``…, the
  number one more than the highest already there.  A backup is never overwritten (the name is
  claimed with a hard link, which fails if it exists), so no ``force`` is ever needed for one.
* Every failure is a :class:`WriteRefused` whose message is one line naming the path and the
  reason (``cannot write /etc/x.conf: Read-only file system``), never a raw ``[Errno …]``.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

#: Highest backup number ever tried: a directory full of ``NAME.~N~`` files is refused
#: rather than walked forever.
MAX_BACKUPS = 100_000

StrPath = str | os.PathLike[str]


class WriteRefused(Exception):
    """A write that would overwrite something without ``force``, lose a file, or failed; the
    message is one line naming the path and what to do."""


@dataclass
class WriteReport:
    """What a write did: the files written and the backups made."""

    written: list[Path] = field(default_factory=list)
    backups: list[Path] = field(default_factory=list)


def numbered_backup(path: StrPath, number: int) -> Path:
    """``httpd.conf``, 3 -> ``httpd.conf.~3~`` (next to it)."""
    path = Path(path)
    return path.with_name(f"{path.name}.~{number}~")


def backup_path(path: StrPath) -> Path:
    """The backup a rewrite of *path* would make now: ``NAME.~N~``, N one more than the
    highest number already there (1 when there is none)."""
    return numbered_backup(path, _next_number(Path(path)))


def lookup_error(path: StrPath) -> str | None:
    """Why *path* cannot even be looked up, as the system says it (``File name too long``: a
    component over NAME_MAX or the whole over PATH_MAX; ``Too many levels of symbolic
    links``; ``Permission denied`` on a directory on the way); None when it can — it exists,
    or plainly does not (ENOENT, ENOTDIR).

    On Python 3.11 ``Path.exists()``, ``is_dir()``, ``is_file()`` and ``is_symlink()`` raise
    for most of these instead of answering, so a path given on the command line is checked
    here before anything asks them (:func:`confmig.cli.check_paths`)."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return _reason(exc)
    except ValueError as exc:  # an embedded NUL byte
        return str(exc)
    return None


def os_error_line(exc: OSError) -> str:
    """An OSError as one line, ``PATH: reason`` (never ``[Errno 36] …``)."""
    reason = _reason(exc)
    return f"{os.fsdecode(exc.filename)}: {reason}" if isinstance(exc.filename, (str, bytes)) \
        else reason


def check_output(path: StrPath, *, force: bool = False, inputs: Iterable[StrPath] = ()) -> Path:
    """Check, before any work, that *path* can be written as a new output; return the file
    that would be written (a symlink's target).  Raises :class:`WriteRefused`.

    *path* itself is looked up first, links followed by the kernel: ``/dev/stdout`` on a pipe
    is a link to ``pipe:[N]``, a name no path reaches, but it stats as the FIFO it is."""
    path = Path(path)
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        st = None  # the parent is checked below
    except OSError as exc:
        raise WriteRefused(f"cannot write {path}: {_reason(exc)}") from exc
    except ValueError as exc:
        raise WriteRefused(f"cannot write {path}: {exc}") from exc
    target = _real_target(path)
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise WriteRefused(f"{path}: {_kind(st.st_mode)}, not a regular file; refusing to "
                               "replace it")
        read = _same_as_input(st, inputs)
        if read is not None:
            also = "" if os.path.abspath(read) == os.path.abspath(path) else f" (it is {read})"
            raise WriteRefused(f"{path}: read by this command{also}; refusing to write over "
                               "its own input, even with --force")
        if not force:
            raise WriteRefused(f"{path} already exists (use --force to overwrite it)")
    parent = target.parent
    if not parent.exists():
        raise WriteRefused(f"{path}: directory {parent} does not exist")
    if not parent.is_dir():
        raise WriteRefused(f"{path}: {parent} is not a directory")
    try:  # the one honest test (root passes os.access where the kernel still says no)
        _write_temp(parent, target.name, b"", None).unlink()
    except OSError as exc:
        raise WriteRefused(f"cannot write {path}: {_reason(exc)}") from exc
    return target


def atomic_write(path: StrPath, text: str, *, force: bool = False,
                 inputs: Iterable[StrPath] = (), encoding: str = "utf-8") -> Path:
    """Write *text* to *path* atomically, as :func:`check_output` allows.

    Text read with ``surrogateescape`` is written back byte for byte.  The new file keeps the
    mode of the file it replaces (0666 minus umask for a new one).
    """
    target = check_output(path, force=force, inputs=inputs)
    try:
        _replace_with(target, text.encode(encoding, errors="surrogateescape"))
    except OSError as exc:
        raise WriteRefused(f"cannot write {path}: {_reason(exc)}") from exc
    return target


def rewrite_in_place(changes: Mapping[StrPath, str], *,
                     encoding: str = "utf-8") -> WriteReport:
    """Replace every file in *changes* by its new text, keeping a numbered backup of each.

    All preconditions are checked first (each file exists and is a regular file, its directory
    is writable), so a refusal changes nothing.  Backups are all made before the first file is
    replaced; files whose text is unchanged are left alone (no backup either).
    """
    report = WriteReport()
    plan: list[tuple[Path, Path, bytes]] = []
    for path, text in changes.items():
        target = _real_target(Path(path))
        data = text.encode(encoding, errors="surrogateescape")
        if not target.is_file():
            raise WriteRefused(f"{path} is not an existing regular file")
        try:
            if target.read_bytes() == data:
                continue
        except OSError as exc:
            raise WriteRefused(f"cannot read {path}: {_reason(exc)}") from exc
        if not os.access(target.parent, os.W_OK | os.X_OK):
            raise WriteRefused(f"cannot write {path}: directory {target.parent} is not writable")
        plan.append((Path(path), target, data))
    for path, target, _ in plan:
        try:
            report.backups.append(_make_backup(target))
        except OSError as exc:
            raise WriteRefused(f"cannot back up {path}: {_reason(exc)}; nothing was "
                               "rewritten") from exc
    for path, target, data in plan:
        try:
            _replace_with(target, data)
        except OSError as exc:
            done = (f"; {len(report.written)} file(s) already rewritten, every backup kept"
                    if report.written else "")
            raise WriteRefused(f"cannot write {path}: {_reason(exc)}{done}") from exc
        report.written.append(target)
    return report


def _make_backup(target: Path) -> Path:
    """Copy *target* to the next free ``NAME.~N~`` without ever replacing a file: the copy is
    written to a temp file, then hard-linked to the name, which fails if the name exists (and
    the next number is tried).  Where hard links are not supported, ``O_EXCL`` does the same."""
    data = target.read_bytes()
    tmp = _write_temp(target.parent, target.name, data, target)
    try:
        number = _next_number(target)
        while number <= MAX_BACKUPS:
            candidate = numbered_backup(target, number)
            try:
                os.link(tmp, candidate)
            except FileExistsError:
                number += 1
                continue
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK):
                    raise
                if not _create_exclusive(candidate, data, target):
                    number += 1
                    continue
            _fsync_directory(target.parent)
            return candidate
        raise OSError(errno.EEXIST, f"{MAX_BACKUPS} numbered backups already exist")
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _create_exclusive(candidate: Path, data: bytes, source: Path) -> bool:
    """Create *candidate* with *data*; False when it already exists."""
    try:
        fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    _copy_metadata(source, candidate)
    return True


_BACKUP_NUMBER = re.compile(r"\.~([0-9]+)~\Z")


def _next_number(path: Path) -> int:
    highest = 0
    prefix = path.name
    with contextlib.suppress(OSError):
        for entry in os.scandir(path.parent):
            if entry.name.startswith(prefix):
                match = _BACKUP_NUMBER.fullmatch(entry.name[len(prefix):])
                if match:
                    highest = max(highest, int(match.group(1)))
    return highest + 1


def _same_as_input(st: os.stat_result, inputs: Iterable[StrPath]) -> str | None:
    for candidate in inputs:
        try:
            other = os.stat(candidate)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
            return os.fspath(candidate)
    return None


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return f"is {name}"
    return "is a special file"


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def _real_target(path: Path) -> Path:
    """The file a write of *path* replaces: a symlink's target (``os.path.islink`` answers
    False, never raises, for a path that cannot be looked up: the write then says why)."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def _write_temp(directory: Path, name: str, data: bytes, mode_from: Path | None) -> Path:
    import tempfile  # (here: lint imports this module for lookup_error only, issue 17)

    fd, tmp_name = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode_from is not None:
            _copy_metadata(mode_from, tmp)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return tmp


def _replace_with(target: Path, data: bytes) -> None:
    """The atomic step: temp file in the same directory, fsync, chmod, ``os.replace``."""
    tmp = _write_temp(target.parent, target.name, data, target)
    try:
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_directory(target.parent)


def _copy_metadata(source: Path, tmp: Path) -> None:
    if source.exists():
        import shutil  # (as tempfile above)

        shutil.copymode(source, tmp)
        st = source.stat()
        with contextlib.suppress(PermissionError):
            os.chown(tmp, st.st_uid, st.st_gid)
    else:
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o666 & ~umask)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (best effort: not every file system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
