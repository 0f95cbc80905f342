"""A filesystem holding nothing but a list of files (and their directories).

For questions about a DocumentRoot that cannot be looked into — it may not exist on the
machine running confmig, as when lint reads a server configuration for another host — the
request model runs over this instead of the disk: the listed files exist, as regular files,
with no ``.htaccess``, symlink or other file the local machine happens to have.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from confmig.model.mapping import FileKind, StatCache, StatInfo


class ListedFiles(StatCache):
    """The files of ``files`` (absolute paths) and the directories above them, nothing else."""

    def __init__(self, files: Iterable[str]) -> None:
        super().__init__()
        self.files = {os.path.normpath(f) for f in files}
        self.dirs = {"/"}
        for f in self.files:
            parent = os.path.dirname(f)
            while parent not in self.dirs:
                self.dirs.add(parent)
                parent = os.path.dirname(parent)

    def lstat(self, path: str) -> StatInfo | None:
        path = os.path.normpath(path) if path else path
        kind: FileKind | None = ("file" if path in self.files else
                                 "dir" if path in self.dirs else None)
        return None if kind is None else StatInfo(kind, kind, 0, 0, 1, 0.0)

    def is_executable(self, path: str) -> bool:
        return False
