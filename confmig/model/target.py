"""The site a command works on: a workspace's server configuration, or — for a docroot alone —
the server configuration assumed for it (Debian's defaults with ``AllowOverride All`` on the
docroot), built once per workspace."""

from __future__ import annotations

import os
import weakref
from dataclasses import replace
from pathlib import Path

from confmig.load import LoadedConfig, ReadState, Workspace
from confmig.model.mapping import StatCache
from confmig.model.site import Site
from confmig.model.site_builder import build_site
from confmig.syntax import parse_text

DEBIAN_INDEX = "index.html index.cgi index.pl index.php index.xhtml index.htm"
# As confmig.servers' default Apache: Debian's module set plus what real .htaccess files lean
# on.  Access files are then read with this set, not the workspace's.
ALWAYS_LOADED = ("rewrite_module", "headers_module", "expires_module")


def default_server_text(document_root: str | Path) -> str:
    """The server configuration assumed when only a docroot is given: Debian's apache2.conf
    (``<Directory />`` locked down, ``.ht*`` denied, TypesConfig, DirectoryIndex of dir.conf)
    with a site whose ``<Directory>`` lets ``.htaccess`` files override (AllowOverride All)."""
    root = str(Path(document_root).resolve())
    return (
        "AccessFileName .htaccess\n"
        "TypesConfig /etc/mime.types\n"
        "<Directory />\n    Options FollowSymLinks\n    AllowOverride None\n"
        "    Require all denied\n</Directory>\n"
        '<FilesMatch "^\\.ht">\n    Require all denied\n</FilesMatch>\n'
        f'DocumentRoot "{root}"\n'
        f'<Directory "{root}">\n    Options Indexes FollowSymLinks\n    AllowOverride All\n'
        "    Require all granted\n</Directory>\n"
        f"DirectoryIndex {DEBIAN_INDEX}\n"
    )


def default_state(state: ReadState) -> ReadState:
    """The read state for access files of a docroot alone: the workspace's modules plus
    those every test server loads (:data:`ALWAYS_LOADED`)."""
    modules = state.modules.copy()
    for name in ALWAYS_LOADED:
        modules.add(name)
    return replace(state, modules=modules, defines=set(state.defines),
                   variables=dict(state.variables))


def site_from_text(text: str, name: str, state: ReadState,
                   filesystem: StatCache | None = None) -> Site:
    """The :class:`Site` of a server configuration given as text, over *filesystem* (default:
    the disk)."""
    config = parse_text(text, name)
    loaded = LoadedConfig(main=name, nodes=list(config.nodes), state=state)
    loaded.files[name] = config
    return build_site(loaded, filesystem)


# Workspace → Site, for as long as the workspace lives (a Workspace is not hashable).
_SITES: dict[int, tuple[weakref.ref[Workspace], Site]] = {}


def site_for(target: Workspace | Site | LoadedConfig) -> Site:
    """The :class:`Site` of a workspace (built once and remembered), a loaded server config,
    or a site as is.  A docroot without server config gets :func:`default_server_text`."""
    if isinstance(target, Site):
        return target
    if isinstance(target, LoadedConfig):
        return build_site(target)
    cached = _SITES.get(id(target))
    if cached is not None and cached[0]() is target:
        return cached[1]
    if target.server is not None:
        site = build_site(target.server)
        if target.docroot is not None and not any(
                d.lname == "documentroot" for d in site.main.server_directives):
            site.main.document_root = str(Path(target.docroot).resolve())
        site.preload(target.access)
    else:
        root = target.docroot or Path.cwd()
        site = site_from_text(default_server_text(root), "<default server config>",
                              default_state(target.state))
    _bound_access_files(site, target)
    _SITES[id(target)] = (weakref.ref(target), site)
    weakref.finalize(target, _SITES.pop, id(target), None)
    return site


def _bound_access_files(site: Site, workspace: Workspace) -> None:
    """Access files are read below the workspace's docroot and the trees its configuration
    serves only (DocumentRoots, Alias targets, <Directory> paths but ``/``; one reached
    through a symlink out of them is reported, not read), unless the user asked for
    ``--follow-symlinks`` (:func:`confmig.load.accessfile.check_access_file`)."""
    roots = {os.path.realpath(v.document_root)
             for v in (site.main, *site.vhosts) if v.document_root}
    if workspace.server is not None:  # its Alias targets and <Directory> trees too
        # (imported here: it brings subprocess, which a site over listed files never needs)
        from confmig.load.discover import served_trees

        roots.update(served_trees(workspace.server.nodes, str(workspace.state.server_root)))
    if workspace.docroot is not None:
        roots.add(os.path.realpath(workspace.docroot))
    site.access_files.roots = sorted(roots)
    site.access_files.follow_symlinks = workspace.follow_symlinks
