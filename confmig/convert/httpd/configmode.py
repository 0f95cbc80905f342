"""Config mode: rewrite a whole server configuration so every DocumentRoot tree's ``.htaccess``
files are ``<Directory>`` blocks and ``AllowOverride`` is ``None`` where they were allowed.

A tree confmig converted before (its marker block there, no access file Apache still reads:
:mod:`~confmig.convert.httpd.converted`) is left alone; when every tree is, the result says
there is nothing to do (:attr:`ConversionResult.nothing_to_do`) and nothing is written.

Only two kinds of change are made, everything else prints back byte for byte:

* the blocks of each tree are inserted in the server context (main server or
  ``<VirtualHost>``) that serves it, after the last node of that context that holds its
  DocumentRoot or a ``<Directory>`` section for the tree — Apache reads an ``.htaccess`` after
  every ``<Directory>`` for the same path, so the blocks must come after those;
* each ``AllowOverride`` / ``AllowOverrideList`` in a ``<Directory>`` section for the tree
  (or below it) that allowed something becomes ``None``, with the original in a comment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from confmig.convert.httpd.converted import already_converted, find_marker
from confmig.convert.httpd.edit import Edits, flatten, pos, print_file
from confmig.convert.httpd.env import config_env
from confmig.convert.httpd.fragment import (
    Options,
    TreePlan,
    check_trees,
    load_server_config,
    plan_tree,
)
from confmig.convert.httpd.layout import Layout, ServerContext, clean, read_layout
from confmig.convert.httpd.plan import FileStatus
from confmig.convert.httpd.render import render_group
from confmig.convert.httpd.templating import render
from confmig.convert.httpd.tree import collect
from confmig.convert.result import ConversionResult, ConvertError, Note, NoteKind
from confmig.load import LoadedConfig
from confmig.syntax import Directive, Node, Section
from confmig.syntax.parser import logical_text

INDENT = "    "


def convert_config(config: str | os.PathLike[str], docroot: str | os.PathLike[str] | None = None,
                   options: Options | None = None) -> ConversionResult:
    """Rewrite *config* (every DocumentRoot tree, or only *docroot*'s)."""
    options = options or Options()
    loaded = load_server_config(config, options.defines)
    env = config_env(loaded)
    layout = read_layout(loaded)
    result = ConversionResult("httpd", str(config), "", inputs=list(loaded.files))
    _relative_notes(layout, result)
    trees: list[TreePlan] = []
    for context, root in targets(layout, docroot, result):
        tree = collect(Path(root), root, layout.access_names(context),
                       options.follow_symlinks)
        planned = plan_tree(tree, _in_force_for(layout, context), env, context)
        result.inputs += [str(access.path) for access in tree.files]
        marker = find_marker(loaded, layout, context, root)
        statuses = [(str(p.access.path), p.status,
                     f"{p.in_force.describe()}, {p.in_force.source}") for p in planned.plans]
        if already_converted(marker, root, statuses):
            assert marker is not None
            result.already_converted.append(root)
            result.warnings.append(Note(marker.file, marker.line, "", (
                f"{root}: already converted by confmig (its blocks are here and Apache reads "
                "none of its access files); left as it is"), NoteKind.INFO))
            continue
        trees.append(planned)
        result.docroots.append(root)
    if trees or not result.already_converted:
        check_trees(trees, env, options, result)
    if options.keep_500:
        for planned in trees:
            _keep_500_conflicts(layout, planned, result)
    edits = Edits()
    for planned in trees:
        _place(loaded, planned, edits, options.keep_500)
        _disable_overrides(layout, planned, edits)
    result.files = {path: print_file(loaded, path, edits) for path in sorted(
        edits.changed_files())}
    result.text = flatten(loaded, edits)
    return result


def original_text(config: str | os.PathLike[str], defines: tuple[str, ...] = ()) -> str:
    """The configuration as one file, unchanged (what ``confmig verify`` starts as original)."""
    return flatten(load_server_config(config, defines), Edits())


@dataclass(frozen=True)
class ConfigSite:
    """One DocumentRoot tree of a server configuration that the conversion walks: its root,
    the first ServerName of its server (None: the main server without one) and the access
    file names in force there."""

    root: str
    host: str | None
    access_names: tuple[str, ...]


def config_sites(loaded: LoadedConfig, docroot: str | os.PathLike[str] | None = None
                 ) -> list[ConfigSite]:
    """The trees :func:`convert_config` converts for *loaded* (only *docroot*'s if given)."""
    layout = read_layout(loaded)
    return [ConfigSite(root, context.server_names[0] if context.server_names else None,
                       tuple(layout.access_names(context)))
            for context, root in targets(layout, docroot, ConversionResult("", "", ""))]


def targets(layout: Layout, docroot: str | os.PathLike[str] | None,
            result: ConversionResult) -> list[tuple[ServerContext, str]]:
    """The (server context, DocumentRoot) pairs whose trees are converted."""
    out: list[tuple[ServerContext, str]] = []
    main_root = layout.main.document_root
    if main_root is not None:
        out.append((layout.main, main_root))
    for vhost in layout.vhosts:
        root = vhost.document_root
        if root is None or root == main_root:
            continue  # the main server's blocks apply to it as well
        out.append((vhost, root))
    if docroot is not None:
        wanted = {clean(os.path.abspath(docroot)), clean(os.path.realpath(docroot))}
        out = [(c, r) for c, r in out if r in wanted]
        if not out:
            raise ConvertError(f"{docroot}: not the DocumentRoot of any server in "
                               f"{layout.config.main}")
    kept = []
    for context, root in out:
        if os.path.isdir(root):  # (False, not an error, for a name over NAME_MAX)
            kept.append((context, root))
        else:
            node = context.document_root_node
            result.warnings.append(Note(node.file if node else layout.config.main,
                                        node.line if node else 0, "DocumentRoot",
                                        f"{root} does not exist here; not converted",
                                        NoteKind.INFO))
    return kept


def _in_force_for(layout: Layout, context: ServerContext):
    return lambda directory: layout.in_force(context, directory)


def _relative_notes(layout: Layout, result: ConversionResult) -> None:
    for section in layout.relative_sections:
        node = section.node
        result.warnings.append(Note(
            node.file, node.line, f"<Directory {section.written}>",
            f"a relative path: Apache resolves it against its working directory when it reads "
            f"the configuration (/ once daemonised), not ServerRoot, so it means "
            f"{section.path}/", NoteKind.INFO))


def _place(config: LoadedConfig, planned: TreePlan, edits: Edits, keep_500: bool) -> None:
    """Insert the tree's blocks after the last node of its context that holds the
    DocumentRoot or a <Directory> for the tree."""
    context = planned.context
    assert context is not None
    container, nodes, file = _container(config, context)
    anchors: list[Node] = [s.node for s in context.sections if s.within(planned.tree.walk_root)]
    if context.document_root_node is not None:
        anchors.append(context.document_root_node)
    index = None
    for i, child in enumerate(nodes):
        if any(_contains(config, child, anchor) for anchor in anchors):
            index = i
    indent = INDENT if container is not None else ""
    if index is not None:
        raw = nodes[index].raw
        indent = raw[: len(raw) - len(raw.lstrip(" \t"))]
    text = "\n" + render_group(planned.tree.walk_root, planned.plans, keep_500=keep_500,
                               indent=indent).text
    if index is None:
        edits.insert_at_end(container, file, text)
    else:
        edits.insert_after(nodes[index], text)


def _container(config: LoadedConfig, context: ServerContext) -> tuple[Section | None,
                                                                      list[Node], str]:
    """The lossless node list a context's blocks go into: the ``<VirtualHost>`` section's
    children, or the main file's top level."""
    if context.section is None:
        main = config.files[config.main]
        return None, main.nodes, config.main
    wanted = pos(context.section)
    for node in config.files[context.section.file].walk():
        if isinstance(node, Section) and pos(node) == wanted:
            return node, node.children, node.file
    raise ConvertError(f"{context.section.file}:{context.section.line}: <VirtualHost> not "
                       "found in its file")


def _contains(config: LoadedConfig, node: Node, target: Node) -> bool:
    """Is *target* (an effective node) *node* itself or somewhere inside it, includes too?"""
    if pos(node) == pos(target):
        return True
    if isinstance(node, Section):
        return any(_contains(config, child, target) for child in node.children)
    if isinstance(node, Directive) and node.lname in ("include", "includeoptional"):
        return target.file in _included_files(config, node)
    return False


def _included_files(config: LoadedConfig, node: Directive) -> set[str]:
    edges = {(e.file, e.line): e.targets for e in config.includes}
    seen: set[str] = set()
    pending = list(edges.get((node.file, node.line), []))
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        pending += [t for (f, _), targets in edges.items() if f == path for t in targets]
    return seen


_AUTHZ = frozenset({"require", "satisfy", "allow", "deny", "order", "authmerging"})


def _keep_500_conflicts(layout: Layout, planned: TreePlan, result: ConversionResult) -> None:
    """--keep-500 answers 500 through ``Require``; a server ``<Directory>`` further down with
    authorization of its own replaces it (AuthMerging Off), and answers instead."""
    context = planned.context
    assert context is not None
    fatal = [p.access.directory for p in planned.plans if p.status is FileStatus.FATAL]
    for section in layout.sections_for(context):
        below = [d for d in fatal if section.path != d and section.within(d)]
        authz = next((c for c in section.node.children if isinstance(c, Directive)
                      and c.lname in _AUTHZ), None)
        if below and authz is not None:
            result.untranslatable.append(Note(
                authz.file, authz.line, authz.name,
                f"--keep-500 cannot keep the 500 below {below[0]}/ here: this <Directory> "
                "authorizes requests itself, which replaces the kept 500",
                NoteKind.UNTRANSLATABLE, section.path))


def _disable_overrides(layout: Layout, planned: TreePlan, edits: Edits) -> None:
    context = planned.context
    assert context is not None
    for section in layout.sections_for(context):
        if not section.within(planned.tree.walk_root):
            continue
        for child in section.node.children:
            if (isinstance(child, Directive)
                    and child.lname in ("allowoverride", "allowoverridelist")
                    and [a.lower() for a in child.args] != ["none"]):
                raw = child.raw.lstrip("\n")
                indent = raw[: len(raw) - len(raw.lstrip(" \t"))]
                edits.replace[pos(child)] = render(
                    "allowoverride_edit.conf.j2", indent=indent, directive=child.name,
                    original=logical_text(child.raw).replace('"', "'"))
