"""One entry point for commands: a PATH (docroot, access file or server config)
and an optional server config, loaded into a :class:`Workspace`."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from confmig.load.accessfile import check_access_file, file_type
from confmig.load.conditions import ReadState
from confmig.load.config import LoadedConfig, load_config, load_htaccess
from confmig.load.docroot import DocrootScan, scan_docroot
from confmig.syntax import ParseError

ACCESS_FILE_HINTS = (".htaccess", "htaccess")


def looks_like_access_file(path: Path) -> bool:
    name = path.name.lower()
    return name.startswith(ACCESS_FILE_HINTS) or name.endswith(".htaccess")


@dataclass
class Workspace:
    """What a command works on: an optional server config and access files."""

    server: LoadedConfig | None = None
    docroot: Path | None = None
    access: dict[str, LoadedConfig] = field(default_factory=dict)
    scan: DocrootScan | None = None
    state: ReadState = field(default_factory=ReadState)
    follow_symlinks: bool = False
    notes: list[str] = field(default_factory=list)  # one line each, for stderr

    @property
    def errors(self) -> list[ParseError]:
        out = list(self.server.errors) if self.server else []
        for loaded in self.access.values():
            out.extend(loaded.errors)
        return out

    def loaded(self) -> list[LoadedConfig]:
        return ([self.server] if self.server else []) + list(self.access.values())


def access_names(server: LoadedConfig | None) -> list[str]:
    """The AccessFileName in force (the last one in the main server wins)."""
    names = [".htaccess"]
    if server is not None:
        for node in server.nodes:
            if getattr(node, "lname", "") == "accessfilename" and node.args:
                names = list(node.args)
    return names


PathKind = Literal["docroot", "config", "htaccess", "server", "special", "missing"]


def config_files(server: LoadedConfig | None, config_path: str | Path | None) -> set[str]:
    """The real paths of the ``--config`` file and of every file it Includes."""
    if server is None or config_path is None:
        return set()
    return {os.path.realpath(config_path)} | {os.path.realpath(p) for p in server.files}


def path_kind(path: Path, server: LoadedConfig | None = None,
              config_paths: set[str] | frozenset[str] = frozenset()) -> PathKind:
    """What a PATH named on the command line is, with ``--config`` ``server`` loaded (its
    files' real paths in ``config_paths``, see :func:`config_files`) — the one rule of
    ``confmig lint``, ``parse`` and ``explain``:

    * ``docroot``: a directory (every access file in it);
    * ``config``: the ``--config`` file itself or a file it Includes — part of that server
      config, never an access file of its own;
    * ``htaccess``: another file named like an access file (``.htaccess``,
      ``htaccess.txt``, ``site.htaccess``, or the AccessFileName of ``server``);
    * ``server``: any other file, a server config of its own (as without ``--config``);
    * ``special``: something that is neither a file nor a directory (a FIFO, socket or
      device): never opened, see :func:`missing_message`;
    * ``missing``: nothing there.
    """
    if path.is_dir():
        return "docroot"
    if not path.is_file():
        return "special" if os.path.lexists(path) and _exists(path) else "missing"
    if config_paths and os.path.realpath(path) in config_paths:
        return "config"
    if looks_like_access_file(path) or path.name in access_names(server):
        return "htaccess"
    return "server"


def _exists(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError:
        return False
    return True


def missing_message(path: Path) -> str:
    """Why PATH of kind ``special`` or ``missing`` is not read: "no such file or directory",
    "not a regular file (a FIFO)", or a dangling symlink."""
    try:
        info = os.stat(path)
    except OSError as exc:
        if os.path.islink(path):
            return f"a symlink to {os.readlink(path)}, which does not exist"
        return (exc.strerror or "no such file or directory").lower()
    return f"not a regular file (a {file_type(info.st_mode)}): not read"


def load_path(
    path: str | Path | None,
    config: str | Path | None = None,
    defines: set[str] | None = None,
    on_directory: Callable[[int], None] | None = None,
    follow_symlinks: bool = False,
) -> Workspace:
    """Load PATH the way the user means it (:func:`path_kind`, as ``confmig lint`` does).

    * a directory is a docroot: every access file in it;
    * ``config`` itself or a file it Includes is that server config, loaded once;
    * another file named like an access file (or the AccessFileName of ``config``) is one
      access file;
    * any other file is a server config of its own (with its Includes), read as without
      ``config``.
    ``config`` is a server config whose AccessFileName, Defines and modules apply.
    A docroot's walk stays inside it unless *follow_symlinks* (:func:`scan_docroot`); an
    access file it will not read is in ``ws.notes`` and in ``ws.scan.problems``.
    """
    ws = Workspace(follow_symlinks=follow_symlinks)
    if config is not None:
        ws.server = load_config(config, defines=defines)
        ws.state = ws.server.state
    else:
        ws.state.defines |= defines or set()
    if path is None:
        return ws
    path = Path(path)
    kind = path_kind(path, ws.server, config_files(ws.server, config))
    if kind == "docroot":
        ws.docroot = path
        ws.scan = scan_docroot(path, access_names(ws.server), on_directory, follow_symlinks)
        for access_file in ws.scan.access_files:
            ws.access[str(access_file)] = load_htaccess(access_file, ws.state)
        ws.notes += [f"{c.path}: {c.message()}" for c in ws.scan.problems]
    elif kind == "config":
        pass  # already loaded, Includes and all
    elif kind == "htaccess":
        check = check_access_file(str(path), [os.path.realpath(path.parent)], follow_symlinks)
        if check.readable:
            ws.access[str(path)] = load_htaccess(path, ws.state)
        else:
            _not_read(ws, path, check.message())
    elif kind == "server":
        ws.server = load_config(path, defines=defines)
        ws.state = ws.server.state
    else:
        _not_read(ws, path, missing_message(path))
    return ws


def _not_read(ws: Workspace, path: Path, message: str) -> None:
    """PATH named on the command line that is not read: an error for the file alone."""
    missing = LoadedConfig(main=str(path))
    missing.errors.append(ParseError(str(path), 0, 0, message))
    ws.access[str(path)] = missing
