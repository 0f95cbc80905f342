"""mod_autoindex's directives that change its plain listing, and where a server configuration
sets them: the plan carries none of them (an ``.htaccess`` one is a plan note already), so a
server-level ``IndexOptions FancyIndexing`` (Debian's ``autoindex.conf``) would otherwise go
unseen by ``convert --to flask --config``, whose module writes the plain listing."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from confmig.load import load_path
from confmig.model.plan import PlanNote, Source
from confmig.syntax.ast import Directive, Node, Section

#: Which names are listed, in what order, and what comes around them: where one is in force
#: the module answers a listing 403 (the plain listing is all it writes).
LISTING_DIRECTIVES = frozenset({"indexignore", "indexignorereset", "indexoptions",
                                "indexorderdefault", "indexstylesheet", "indexheadinsert",
                                "headername", "readmename"})


def server_listing_notes(config: str | os.PathLike[str], defines: Iterable[str],
                         document_root: str) -> list[PlanNote]:
    """A note (scope: the document root) for each listing directive of *config* that may
    apply below *document_root*: at server level, in its virtual host, in a ``<Directory>``
    above or below it, or in a section this does not place (counted, to be safe)."""
    workspace = load_path(None, Path(config), set(defines))
    if workspace.server is None:
        return []
    root = document_root.rstrip("/") or "/"
    notes: list[PlanNote] = []
    stack: list[tuple[list[Node], bool]] = [(workspace.server.nodes, False)]
    while stack:
        nodes, elsewhere = stack.pop()
        for node in nodes:
            if isinstance(node, Directive) and node.lname in LISTING_DIRECTIVES \
                    and not elsewhere:
                notes.append(PlanNote(Source(node.file, node.line), node.name,
                                      "mod_autoindex's listing is reproduced without it: a "
                                      "listing answers 403", root))
            elif isinstance(node, Section):
                stack.append((node.children, elsewhere or _elsewhere(node, root)))
    return notes


def _elsewhere(section: Section, root: str) -> bool:
    """Does *section* certainly not apply to requests below *root*?"""
    if section.lname == "directory" and section.args and not section.args[0].startswith("~"):
        path = section.args[0].strip('"').rstrip("/") or "/"
        return not (path == "/" or root == path or root.startswith(path + "/")
                    or path.startswith(root + "/"))
    if section.lname == "virtualhost":
        roots = [c.args[0].strip('"').rstrip("/") for c in section.children
                 if isinstance(c, Directive) and c.lname == "documentroot" and c.args]
        return bool(roots) and roots[-1].startswith("/") and roots[-1] != root
    return False
