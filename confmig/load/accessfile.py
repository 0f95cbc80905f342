"""How Apache opens an access file (``.htaccess``), and whether confmig may read it.

Apache (``ap_parse_htaccess`` → ``ap_open_htaccess`` → ``ap_pcfg_openfile``, server/config.c
and server/util.c) does a plain ``open()`` of ``directory + name`` and then ``fstat()``:

* ``ENOENT``/``ENOTDIR`` (nothing there, a dangling symlink): the next AccessFileName is tried;
* any other error (unreadable, a symlink loop): **403** for the directory and below
  (AH00529 "unable to check htaccess file");
* opened but not a regular file — a directory, socket or device: **403** (AH00554 "not a
  regular file", then AH00529);
* a FIFO: ``open()`` blocks until something writes into it, so the request **hangs**;
* a symlink is simply followed: ``Options FollowSymLinks``/``SymLinksIfOwnerMatch`` apply to
  the path components ``ap_directory_walk`` walks (``resolve_symlink``), never to the access
  file itself, so a symlinked ``.htaccess`` is read wherever it points, under any Options.

All of it checked on Apache 2.4 (tests/test_access_files_apache.py).

confmig's own promise is stricter for reading: it never reads the contents of a file outside
the root it was given (a symlinked access file pointing out of it) unless the user asked
(``--follow-symlinks``), and never anything under ``/proc``, ``/sys`` or ``/dev``.  Such a file
is reported and, where an answer is needed, treated as denied — never as absent.
"""

from __future__ import annotations

import errno
import functools
import grp
import os
import pwd
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

# Never read (nor walked into), even with --follow-symlinks: kernel and device trees.
SPECIAL_TREES = ("/proc", "/sys", "/dev")
# The accounts Apache's workers run as (Debian/Ubuntu, RHEL/Fedora), for permission checks.
APACHE_USERS = ("www-data", "apache")


class AccessState(StrEnum):
    ABSENT = "absent"            # Apache tries the next name (ENOENT/ENOTDIR)
    REGULAR = "regular"          # read it
    NOT_REGULAR = "not-regular"  # directory, socket, device: Apache answers 403
    FIFO = "fifo"                # Apache's open() blocks: the request hangs
    UNREADABLE = "unreadable"    # open() fails otherwise (EACCES, ELOOP): Apache answers 403
    OUTSIDE_ROOT = "outside-root"  # a symlink out of the root: Apache reads it, confmig does not
    SPECIAL = "special"          # points into /proc, /sys or /dev: confmig never reads it


@dataclass(frozen=True, slots=True)
class AccessCheck:
    """What opening one access-file path gives."""

    path: str
    state: AccessState
    target: str | None = None  # the symlink's real target, when the path is a symlink
    detail: str = ""           # the file type or the error

    @property
    def exists(self) -> bool:
        return self.state is not AccessState.ABSENT

    @property
    def readable(self) -> bool:
        """confmig reads the file (Apache does too)."""
        return self.state is AccessState.REGULAR

    @property
    def status(self) -> int:
        """The status confmig answers for the directory: 0 when the file is read (or absent),
        403 otherwise — Apache's answer, or the safe one where confmig did not read it or
        Apache would hang."""
        return 0 if self.state in (AccessState.ABSENT, AccessState.REGULAR) else 403

    def apache_does(self) -> str:
        """What Apache does with this file, in a few words."""
        return {
            AccessState.NOT_REGULAR: f"Apache answers 403 for this directory and below (a "
                                     f"{self.detail}, not a regular file: AH00554)",
            AccessState.FIFO: "Apache's open() blocks on the FIFO: every request in this "
                              "directory and below hangs until something writes into it",
            AccessState.UNREADABLE: f"Apache cannot open it ({self.detail}) and answers 403 "
                                    "for this directory and below (AH00529)",
            AccessState.OUTSIDE_ROOT: f"it is {self.target} through a symlink, outside the "
                                      "root: Apache reads it (Options do not apply to the "
                                      "access file itself)",
            AccessState.SPECIAL: f"a symlink to {self.target}: Apache would open it",
        }.get(self.state, "")

    def message(self) -> str:
        """One line for notes and findings."""
        what = self.apache_does()
        if self.state is AccessState.OUTSIDE_ROOT:
            return (f"{what}; confmig did not read it (--follow-symlinks to read it) and "
                    "treats the directory as denied")
        if self.state is AccessState.SPECIAL:
            return f"{what}; confmig never reads under /proc, /sys or /dev (treated as denied)"
        return what


def in_tree(path: str, root: str) -> bool:
    """*path* is *root* or below it (both real, absolute)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def is_special(real: str) -> bool:
    return any(in_tree(real, tree) for tree in SPECIAL_TREES)


def check_access_file(path: str, roots: Sequence[str] | None = None,
                      follow_symlinks: bool = False, real_parent: str | None = None
                      ) -> AccessCheck:
    """Open *path* as ``ap_pcfg_openfile`` would, without reading it (nor blocking on a FIFO).

    *roots* are the real paths confmig may read below; a symlink pointing elsewhere is
    :attr:`AccessState.OUTSIDE_ROOT` unless *follow_symlinks*.  ``None``: no boundary.
    *real_parent*: the real path of the directory holding *path*, when the caller knows it
    (a tree walk that follows no link): then it is not resolved again for every file."""
    try:
        link = os.lstat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return AccessCheck(path, AccessState.ABSENT)
        return AccessCheck(path, AccessState.UNREADABLE, detail=exc.strerror or str(exc))
    except ValueError:  # a NUL in the name: nothing Apache could open either
        return AccessCheck(path, AccessState.ABSENT)
    target = None
    info = link
    if stat.S_ISLNK(link.st_mode):
        target = os.path.realpath(path)
        try:
            info = os.stat(path)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return AccessCheck(path, AccessState.ABSENT, target)
            return AccessCheck(path, AccessState.UNREADABLE, target, exc.strerror or str(exc))
        if is_special(target):
            return AccessCheck(path, AccessState.SPECIAL, target)
    mode = info.st_mode
    if stat.S_ISFIFO(mode):
        return AccessCheck(path, AccessState.FIFO, target, "FIFO")
    if not stat.S_ISREG(mode):
        return AccessCheck(path, AccessState.NOT_REGULAR, target, file_type(mode))
    if roots is not None and not follow_symlinks:
        # The file itself or a directory on its path may be the link that leaves the root.
        if target is not None:
            real = target
        elif real_parent is not None:
            real = os.path.join(real_parent, os.path.basename(path))
        else:
            real = os.path.realpath(path)
        if not any(in_tree(real, root) for root in roots):
            return AccessCheck(path, AccessState.OUTSIDE_ROOT, real)
    if not os.access(path, os.R_OK):
        return AccessCheck(path, AccessState.UNREADABLE, target, "Permission denied")
    if not readable_by_apache(info):
        user = apache_user()
        assert user is not None
        return AccessCheck(path, AccessState.UNREADABLE, target, f"not readable by {user[0]}")
    return AccessCheck(path, AccessState.REGULAR, target)


@functools.cache
def apache_user() -> tuple[str, int, frozenset[int]] | None:
    """The account Apache's workers run as here (Debian's ``www-data``, RHEL's ``apache``):
    name, uid and groups; None when neither exists."""
    for name in APACHE_USERS:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        groups = {entry.pw_gid} | {g.gr_gid for g in grp.getgrall() if name in g.gr_mem}
        return name, entry.pw_uid, frozenset(groups)
    return None


def readable_by_apache(info: os.stat_result) -> bool:
    """The permission bits let Apache's worker user read the file (open() as that user
    fails with EACCES otherwise: 403).  Without such a user, what confmig may read counts."""
    user = apache_user()
    if user is None or user[1] == 0:
        return True
    _, uid, groups = user
    if info.st_uid == uid:
        return bool(info.st_mode & stat.S_IRUSR)
    if info.st_gid in groups:
        return bool(info.st_mode & stat.S_IRGRP)
    return bool(info.st_mode & stat.S_IROTH)


def file_type(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISFIFO(mode):
        return "FIFO"
    return "special file"
