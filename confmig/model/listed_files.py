"""A filesystem holding nothing but a list of files (and their directories).

For questions about a DocumentRoot that cannot be looked into — it may not exist on the
machine running confmig, as when lint reads a server configuration for another host, or lint
was given one ``.htaccess`` file and nothing else of its tree — the request model runs over
this instead of the disk: the listed files exist, as regular files, and so do the access files
given with their content (as the caller read them); no other ``.htaccess``, symlink or file the
local machine happens to have is looked at.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from confmig.load import LoadedConfig, ReadState
from confmig.load.accessfile import AccessCheck, AccessState
from confmig.model.mapping import FileKind, StatCache, StatInfo
from confmig.model.site import Site
from confmig.model.site_builder import build_site
from confmig.model.target import default_server_text, default_state, site_from_text


class ListedFiles(StatCache):
    """The files of ``files`` and the access files of ``access`` (absolute paths), the
    directories above them, nothing else.  ``access`` maps an access file's path to its
    content; any other path opened as an access file is absent (its content is unknown)."""

    def __init__(self, files: Iterable[str],
                 access: Mapping[str, LoadedConfig] | None = None) -> None:
        super().__init__()
        self.access = {os.path.normpath(p): loaded for p, loaded in (access or {}).items()}
        self.files = {os.path.normpath(f) for f in files} | set(self.access)
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

    def open_access_file(self, path: str, roots: list[str] | None,
                         follow_symlinks: bool) -> AccessCheck:
        """A listed access file is a regular file to read; nothing else is there."""
        found = os.path.normpath(path) in self.access
        return AccessCheck(path, AccessState.REGULAR if found else AccessState.ABSENT)


def listed_site(document_root: str, files: Iterable[str], access: Mapping[str, LoadedConfig],
                server: LoadedConfig | None, state: ReadState) -> Site:
    """The site requests for ``document_root`` see over :class:`ListedFiles` (``files`` and
    the access files of ``access``, whose content is used as given: none is read from the
    disk): ``server``'s configuration with ``document_root`` as the main server's
    DocumentRoot, or — without a server configuration — the one assumed for a docroot alone
    (:func:`~confmig.model.target.default_server_text`, access files read with *state*'s
    modules plus those every test server loads)."""
    filesystem = ListedFiles(files, access)
    root = os.path.normpath(document_root)
    if server is None:
        site = site_from_text(default_server_text(root), "<default server config>",
                              default_state(state), filesystem)
    else:
        site = build_site(server, filesystem)
        site.main.document_root = root  # before any request: nothing cached from it yet
    site.preload(dict(filesystem.access))
    return site
