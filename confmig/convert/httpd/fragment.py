"""Docroot mode: the ``.htaccess`` tree of one document root as a configuration fragment."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from confmig import __version__
from confmig.convert.httpd.check import check_with_apache, find_binary
from confmig.convert.httpd.denied import add_denied
from confmig.convert.httpd.env import Env, assumed_env, config_env
from confmig.convert.httpd.layout import Layout, ServerContext, clean, read_layout, within
from confmig.convert.httpd.notes import add_check_notes, add_plan_notes, add_tree_notes
from confmig.convert.httpd.overrides import InForce
from confmig.convert.httpd.plan import FilePlan, mark_dead, plan_file
from confmig.convert.httpd.render import Block, render_group
from confmig.convert.httpd.templating import render
from confmig.convert.httpd.tree import Tree, collect
from confmig.convert.options import Options
from confmig.convert.result import ConversionResult, ConvertError, Note, NoteKind
from confmig.load import LoadedConfig, load_config


@dataclass
class TreePlan:
    """One document root, as one server context sees it, and its planned access files."""

    tree: Tree
    plans: list[FilePlan]
    context: ServerContext | None = None


def convert_docroot(docroot: str | os.PathLike[str], config: str | os.PathLike[str] | None = None,
                    options: Options | None = None) -> ConversionResult:
    """The fragment for *docroot*: AllowOverride All assumed, or what *config* says."""
    options = options or Options()
    root = Path(docroot)
    if not root.is_dir():
        raise ConvertError(f"{docroot}: not a directory")
    notes: list[Note] = []
    inputs: list[str] = []
    if config is None:
        env = assumed_env(set(options.defines))
        walk_root = clean(os.path.abspath(root))
        tree = collect(root, walk_root, follow_symlinks=options.follow_symlinks)
        planned = plan_tree(tree, lambda _d: InForce.assumed_all(), env)
        assumptions = ["Assumed (no --config): AllowOverride All for every directory; modules: "
                       + env.describe() + "."]
    else:
        loaded = load_server_config(config, options.defines)
        inputs += loaded.files
        env = config_env(loaded)
        layout = read_layout(loaded)
        context, walk_root = context_for(layout, root, notes)
        tree = collect(root, walk_root, layout.access_names(context), options.follow_symlinks)
        planned = plan_tree(tree, lambda d: layout.in_force(context, d), env, context)
        assumptions = [f"AllowOverride and modules as {config} sets them for "
                       f"{context.label}; modules: {env.describe()}."]
    inputs += [str(access.path) for access in tree.files]
    result = ConversionResult("httpd", str(docroot), "", docroots=[walk_root], inputs=inputs)
    result.warnings += notes
    check_trees([planned], env, options, result)
    group = render_group(walk_root, planned.plans, keep_500=options.keep_500)
    header = render("fragment_header.conf.j2", version=__version__, docroot=walk_root,
                    assumptions=assumptions)
    result.text = header + "\n" + group.text
    return result


def plan_tree(tree: Tree, in_force: Callable[[str], InForce], env: Env,
              context: ServerContext | None = None) -> TreePlan:
    plans = [plan_file(a, in_force(a.directory), env.loaded, env.state) for a in tree.files]
    mark_dead(plans)
    add_denied(tree, plans, in_force)
    return TreePlan(tree, plans, context)


def check_trees(trees: list[TreePlan], env: Env, options: Options,
                result: ConversionResult) -> None:
    """apache2 -t on every block (see :mod:`confmig.convert.httpd.check`), then the notes."""
    plans = [p for t in trees for p in t.plans]
    binary = find_binary(options.apache) if options.check else None

    def render_all() -> Block:
        block = Block()
        for planned in trees:
            block.extend(render_group(planned.tree.walk_root, planned.plans,
                                      keep_500=options.keep_500))
        return block

    outcome = check_with_apache(plans, render_all, env.server_module_names(), binary)
    for planned in trees:
        add_tree_notes(result, planned.tree)
    add_plan_notes(result, plans, keep_500=options.keep_500, env_loaded=env.loaded,
                   modules=env.modules)
    if options.check:
        add_check_notes(result, outcome, keep_500=options.keep_500,
                        apache_found=binary is not None)


def load_server_config(config: str | os.PathLike[str], defines: Sequence[str]) -> LoadedConfig:
    path = Path(config)
    if not path.is_file():
        raise ConvertError(f"{config}: no such file")
    loaded = load_config(path, defines=set(defines))
    if loaded.errors:
        raise ConvertError(str(loaded.errors[0]))
    return loaded


def context_for(layout: Layout, root: Path, notes: list[Note]) -> tuple[ServerContext, str]:
    """The server context whose DocumentRoot is *root* (or holds it), and *root* as that
    server names it."""
    wanted = clean(os.path.abspath(root))
    real = os.path.realpath(root)
    best: tuple[int, ServerContext, str] | None = None
    for context in layout.contexts:
        docroot = layout.document_root(context)
        if docroot is None:
            continue
        for candidate in (wanted, real):
            if within(candidate, docroot):
                depth = len(docroot.split("/"))
                if best is None or depth > best[0]:
                    best = (depth, context, candidate)
    if best is None:
        notes.append(Note(str(root), 0, "", "not below any DocumentRoot of the configuration; "
                          "its <Directory> sections are applied to this path as it is",
                          NoteKind.INFO))
        return layout.main, wanted
    return best[1], best[2]
