"""Access files (``.htaccess``) as ``ap_parse_htaccess`` reads them: the first existing name of
``AccessFileName`` in a directory, its directives checked against the AllowOverride /
AllowOverrideList in force (a directive they do not permit makes the request answer 500, unless
``AllowOverride Nonfatal`` turns it into a warning).  What opening the file gives — absent,
read, 403 for something that is not a regular file or cannot be opened, a hang for a FIFO, a
symlink out of the root confmig does not read — is :func:`confmig.load.accessfile.
check_access_file`, the one rule the docroot walk (lint, convert) follows too."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from confmig.apache.modules import ModuleSet
from confmig.apache.registry import AllowOverride, overrides_permit, registry
from confmig.load import LoadedConfig, ReadState, load_htaccess
from confmig.load.accessfile import AccessState
from confmig.model.mapping import StatCache
from confmig.model.merge import OptsState, SectionBuilder
from confmig.model.sections import (
    ConfigSection,
    Permit,
    SectionCollector,
    finish_section,
)
from confmig.model.wildcard import count_dirs
from confmig.syntax import Directive, Node, Section


@dataclass(frozen=True, slots=True)
class HtaccessResult:
    """An access file as the walk found it: its section, or the status it causes."""

    path: str | None
    section: ConfigSection | None
    status: int
    message: str
    # Apache never answers (its open() of a FIFO blocks): ``status`` is confmig's stand-in
    hangs: bool = False


def htaccess_permit(opts: OptsState, modules: ModuleSet) -> Permit:
    """Whether a directive (or section) may appear in an ``.htaccess`` under *opts*:
    None if so, else Apache's message; ``nonfatal:`` prefixed when AllowOverride Nonfatal
    turns the error into a warning (the directive is then skipped)."""
    allow = AllowOverride(classes=opts.override)
    listed = tuple(opts.override_list)
    # The answer depends on the name alone: worked out once per name (a file of 47,620
    # Header lines asked the registry and the overrides 47,620 times: 1.3 s of a profiled
    # lint, issue 10).
    answers: dict[tuple[bool, str], str | None] = {}

    def check(node: Directive | Section) -> str | None:
        key = (isinstance(node, Directive), node.name)
        if key in answers:
            return answers[key]
        answer = decide(node)
        if len(answers) < 1024:  # (names of unknown directives are unbounded)
            answers[key] = answer
        return answer

    def decide(node: Directive | Section) -> str | None:
        name = node.name if isinstance(node, Directive) else f"<{node.name}>"
        info = registry().get(name)
        if info is None or not any(modules.has_module(m) for m in info.modules):
            shown = name if isinstance(node, Directive) else f"<{node.name}"
            message = (f"Invalid command '{shown}', perhaps misspelled or defined by a module "
                       "not included in the server configuration")
            return "nonfatal:" + message if "Unknown" in opts.nonfatal else message
        if overrides_permit(info.name, allow, listed):
            return None
        shown = info.name.rstrip(">")
        message = f"{shown} not allowed here"
        return "nonfatal:" + message if "Override" in opts.nonfatal else message

    return check


def build_htaccess_section(path: str, directory: str, loaded: LoadedConfig, opts: OptsState,
                           state: ReadState, methods: frozenset[str] = frozenset()
                           ) -> ConfigSection:
    """The section of the access file *path* of *directory*, read under *opts*; *methods*:
    those the server config registered (an .htaccess ``<Limit>`` may name them)."""
    modules = state.modules
    builder = SectionBuilder("htaccess", directory, override_opts=opts.override_opts,
                             loaded_modules=modules.has_module)
    builder.known_methods = methods
    nonfatal: list[tuple[Node, str]] = []
    permit = htaccess_permit(opts, modules)
    SectionCollector(builder, "htaccess", permit, nonfatal).feed(loaded.nodes)
    return finish_section("htaccess", path, None, builder, nonfatal, file=path, line=0,
                          match=directory, components=count_dirs(directory))


class AccessFiles:
    """The access files of one site, parsed once per directory and overrides in force (the
    configuration and the filesystem do not change while a site is in use)."""

    def __init__(self, stat: StatCache, state: ReadState, roots: Sequence[str] | None = None,
                 follow_symlinks: bool = False) -> None:
        self.stat = stat
        self.state = state
        # Real paths below which a symlinked access file is read (None: anywhere).
        self.roots = list(roots) if roots is not None else None
        self.follow_symlinks = follow_symlinks
        self._found: dict[tuple[Any, ...], HtaccessResult] = {}
        # The methods the server config registered (merge.checks.registered_methods).
        self.methods: frozenset[str] = frozenset()
        self._preloaded: dict[str, LoadedConfig] = {}

    def preload(self, access: dict[str, LoadedConfig]) -> None:
        """Use access files a Workspace already read (keyed by path)."""
        self._preloaded.update(access)

    def lookup(self, directory: str, names: Sequence[str], opts: OptsState) -> HtaccessResult:
        """``ap_parse_htaccess``: the first existing access file of *directory* (ending with
        ``/``), parsed with the overrides in force."""
        key = (directory, opts.override, opts.nonfatal, opts.override_opts, opts.override_list,
               tuple(names))
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._load(directory, names, opts)
        return found

    def _load(self, directory: str, names: Sequence[str], opts: OptsState) -> HtaccessResult:
        for name in names:
            path = directory + name
            if self.stat.lstat(path) is None and path not in self._preloaded:
                continue
            check = self.stat.open_access_file(path, self.roots, self.follow_symlinks)
            if not check.exists:
                continue
            if not check.readable:
                return HtaccessResult(path, None, check.status, f"{path}: {check.message()}",
                                      hangs=check.state is AccessState.FIFO)
            loaded = self._preloaded.get(path) or load_htaccess(path, self.state)
            if loaded.errors:
                err = loaded.errors[0]
                return HtaccessResult(path, None, 500, f"{err}")
            section = build_htaccess_section(path, directory, loaded, opts, self.state,
                                             self.methods)
            if section.errors:
                node, message = section.errors[0]
                return HtaccessResult(path, section, 500,
                                      f"{node.file}:{node.line}: {message}")
            return HtaccessResult(path, section, 0, "")
        return HtaccessResult(None, None, 0, "")
