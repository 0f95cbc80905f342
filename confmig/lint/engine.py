"""Run the rules: load what was asked, build the contexts, collect and filter findings.

Each file (an access file or one file of a server config) is checked once by
:meth:`confmig.lint.dispatch.RuleSet.check_file` (its directives dispatched to the rules
that look at them, then the whole-file hooks), the tree rules once per linted PATH
(:func:`_check`, the one run loop; access files go through it via :func:`_lint_access_files`,
which adds the cache and the process pool).  Findings then go through inline suppressions,
``per-file-ignores`` and are sorted.  A rule that raises does not end the run: it becomes an
internal-error finding (``LINT000``) naming the rule, and the exit status is 2.  Access
files are cached per file (:mod:`confmig.lint.cache`); a cold lint of a large tree is
spread over a process pool.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from confmig.lint.cache import LintCache, cache_directory, code_fingerprint, digest
from confmig.lint.config import Settings, load_settings
from confmig.lint.context import (
    AccessEntry,
    Environment,
    FileContext,
    LintContext,
    Overrides,
    ServerLayout,
    file_roots,
    make_environment,
    make_overrides,
    split_lines,
)
from confmig.lint.dispatch import INTERNAL_CODE, RuleSet, without_repeats
from confmig.lint.finding import Finding, Findings, codes_of, forget_messages
from confmig.lint.rule import rule_codes
from confmig.lint.rules.ctx.ctx009_access_file_not_read import problem_findings
from confmig.lint.rules.docroot_walk import Collector, remember
from confmig.lint.suppress import Suppression, apply_suppressions, parse_suppressions
from confmig.load import LoadedConfig, ReadState, Workspace, load_config, load_htaccess
from confmig.load.accessfile import check_access_file
from confmig.load.docroot import scan_docroot
from confmig.load.workspace import PathKind, access_names, missing_message
from confmig.load.workspace import config_files as load_config_files
from confmig.load.workspace import path_kind as load_path_kind
from confmig.syntax.parser import decode

__all__ = ["INTERNAL_CODE", "LintResult", "lint_paths", "lint_text"]

PARALLEL_MIN_FILES = 400     # below this a process pool costs more than it saves
# Allocations between two runs of the cycle collector's youngest generation during a lint
# (Python's default: 700).  See _collect_less.
GC_THRESHOLD = 50_000


@dataclass
class LintResult:
    findings: Sequence[Finding] = field(default_factory=Findings)  # (lint_paths: Findings)
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)   # unreadable input: exit 2
    cached: int = 0

    @property
    def internal_errors(self) -> int:
        return sum(1 for code in codes_of(self.findings) if code == INTERNAL_CODE)

    @property
    def exit_code(self) -> int:
        if self.errors or self.internal_errors:
            return 2
        return 1 if self.findings else 0


# -- running rules ---------------------------------------------------------------------------


def enabled_rules(settings: Settings) -> RuleSet:
    return RuleSet.of(code for code in rule_codes() if settings.enabled(code))


# -- building contexts -----------------------------------------------------------------------


def htaccess_context(env: Environment, path: str, directory: str, overrides: Overrides,
                     loaded: LoadedConfig, source: bytes) -> FileContext:
    config = next(iter(loaded.files.values()))
    return FileContext(
        path=path, kind="htaccess", config=config, loaded=loaded, nodes=loaded.nodes,
        directory=directory, overrides=overrides, modules=env.state.modules,
        registry=env.registry, source=source, assumed_defaults=env.assumed,
        _info_cache=env.info_cache, _module_cache=env.module_cache,
        _not_modelled_cache=env.not_modelled_cache,
    )


def server_contexts(env: Environment, loaded: LoadedConfig) -> list[FileContext]:
    out: list[FileContext] = []
    module_cache: dict[str, bool] = {}  # one module set for all the files of this config
    not_modelled: dict[str, str | None] = {}
    layout: dict[str, ServerLayout] = {}
    for path, config in loaded.files.items():
        roots, parents = file_roots(loaded.nodes, path)
        try:
            source = Path(path).read_bytes()
        except OSError:
            source = b""
        out.append(FileContext(
            path=path, kind="server", config=config, loaded=loaded, nodes=roots,
            directory=None, overrides=Overrides(), modules=loaded.state.modules,
            registry=env.registry, source=source, assumed_defaults=False,
            parents=parents, _info_cache=env.info_cache, _module_cache=module_cache,
            _not_modelled_cache=not_modelled, _layout_cache=layout,
        ))
    return out


# -- the per-file plan for an access file ----------------------------------------------------


@dataclass
class AccessPlan:
    path: str
    directory: str
    overrides: Overrides
    data: bytes = b""
    key: str = ""
    findings: Findings | None = None
    summaries: dict[str, object] | None = None   # each tree rule's (Rule.summarize)
    real_parent: str | None = None                # the resolved directory holding it
    context: FileContext | None = None


def _file_key(plan: AccessPlan) -> str:
    o = plan.overrides
    return digest(plan.data, plan.directory, "\0".join(o.words), "\0".join(o.list_words))


def load_plan(env: Environment, plan: AccessPlan) -> FileContext:
    loaded = load_htaccess(plan.path, env.state, data=plan.data)
    return htaccess_context(env, plan.path, plan.directory, plan.overrides, loaded, plan.data)


def lint_plans(env: Environment, rules: RuleSet, plans: list[AccessPlan],
               summarize: bool, jobs: int | None) -> None:
    """Parse and check each plan (fills ``findings``, and ``summaries`` when the tree rules
    will run).  A large tree is spread over a process pool."""
    workers = _workers(jobs, len(plans))
    if workers > 1:
        _lint_plans_parallel(env, rules, plans, summarize, workers)
        return
    for plan in plans:
        ctx = load_plan(env, plan)
        ctx.at_hand = summarize  # (kept below for the tree rules)
        plan.findings, plan.summaries = _check_plan(rules, ctx, summarize)
        if summarize:
            ctx.forget_derived()   # (what the per-file rules needed: not the tree rules)
            plan.context = ctx     # at hand: a tree rule that wants it need not parse again


def _check_plan(rules: RuleSet, ctx: FileContext, summarize: bool
                ) -> tuple[Findings, dict[str, object] | None]:
    findings = rules.check_file(ctx)
    if not summarize:
        return findings, None
    summaries, errors = rules.summarize(ctx)
    findings += errors
    return findings, summaries


def _workers(jobs: int | None, files: int) -> int:
    if files < PARALLEL_MIN_FILES:
        return 1
    import multiprocessing as mp  # (here: linting a few files does not load it)

    if "fork" not in mp.get_all_start_methods():
        return 1
    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)
    return max(1, min(jobs or available, available, files // (PARALLEL_MIN_FILES // 2)))


_ChunkResult = list[tuple[Findings, dict[str, object] | None]]


@dataclass
class _Worker:
    """What a pool worker checks files with (given once, when the worker starts)."""

    env: Environment
    rules: RuleSet
    keep: bool


_worker: _Worker | None = None     # in a pool worker only: set by _start_worker


def _start_worker(state: _Worker) -> None:
    global _worker
    _worker = state


def _lint_chunk(chunk: list[AccessPlan]) -> _ChunkResult:
    assert _worker is not None, "called outside a worker started by _start_worker"
    return [_check_plan(_worker.rules, load_plan(_worker.env, plan), _worker.keep)
            for plan in chunk]


def _lint_plans_parallel(env: Environment, rules: RuleSet, plans: list[AccessPlan],
                         summarize: bool, workers: int) -> None:
    """Fork ``workers`` processes; each parses and checks a share of the files and sends
    back its findings and, for the tree rules, their summaries (not the parsed files:
    unpickling one costs more than parsing it again).  The environment and rules reach
    each worker as its initializer's argument (a forked worker receives it without
    pickling)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    size = max(50, len(plans) // (workers * 4))
    chunks = [plans[i:i + size] for i in range(0, len(plans), size)]
    with ProcessPoolExecutor(workers, mp_context=mp.get_context("fork"),
                             initializer=_start_worker,
                             initargs=(_Worker(env, rules, summarize),)) as pool:
        results = list(pool.map(_lint_chunk, chunks))
    for chunk, result in zip(chunks, results, strict=True):
        for plan, (findings, summaries) in zip(chunk, result, strict=True):
            plan.findings, plan.summaries = findings, summaries


# -- entry points ----------------------------------------------------------------------------


@contextmanager
def _collect_less() -> Iterator[None]:
    """Run Python's cycle collector less often while linting.  A lint allocates millions of
    small containers (nodes, argument lists, findings) that reference counting frees; the
    collector finds next to nothing in them (under 600 objects in a cold lint of 10,000
    files) but walked them often enough to take a quarter of the CPU time.  A forked pool
    worker inherits the setting; the caller's is restored afterwards."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def lint_paths(
    paths: Iterable[str | Path] | list[str | Path],
    config: str | Path | None = None,
    defines: Iterable[str] = (),
    settings: Settings | None = None,
    *,
    use_cache: bool | None = None,
    jobs: int | None = None,
    on_directory: Callable[[int], None] | None = None,
    follow_symlinks: bool = False,
) -> LintResult:
    """Lint each PATH (docroot, access file or server config) with ``config`` in force.

    What a PATH is linted as (:func:`path_kind`):

    * a directory is a docroot: every access file in it (``.htaccess``, or the
      AccessFileName of ``config``);
    * a file that is ``config`` itself or one of the files it Includes is linted as that
      server config, once, whatever else the command line names: ``config`` (or any PATH
      that is it) stands for all its files, an Included file alone for that file only (read
      in place: ServerRoot, Defines, ``<VirtualHost>`` and modules of ``config``);
    * another file named like an access file (``.htaccess``, ``htaccess.txt``,
      ``site.htaccess``, or the AccessFileName of ``config``) is an access file;
    * any other file is a server config of its own: the rule lint uses without
      ``config``.

    ``use_cache`` overrides the ``cache`` setting; ``jobs`` caps the process pool
    (default: the CPUs this process may use; 1 disables it).  A docroot's walk stays inside
    it unless ``follow_symlinks``; access files it does not read are CTX009 findings.
    """
    with _collect_less():
        try:
            return _lint_paths(paths, config, defines, settings, use_cache, jobs,
                               on_directory, follow_symlinks)
        finally:
            forget_messages()
            _forget_parsed()


def _forget_parsed() -> None:
    """Let go of the rules and expressions the lint and SEC002's model shared (and with them
    the tree of the file they came from)."""
    parsed = sys.modules.get("confmig.model.rewrite.parse")
    if parsed is not None:  # (imported only when a file had a mod_rewrite directive)
        parsed.forget_parsed()
    expressions = sys.modules.get("confmig.model.expr")
    if expressions is not None:  # (imported only when a file had an expression)
        expressions.forget_parsed()


def _lint_paths(paths: Iterable[str | Path] | list[str | Path], config: str | Path | None,
                defines: Iterable[str], settings: Settings | None, use_cache: bool | None,
                jobs: int | None, on_directory: Callable[[int], None] | None,
                follow_symlinks: bool) -> LintResult:
    if settings is None:
        settings = load_settings(Path(paths[0]) if paths else None)
    rules = enabled_rules(settings)
    defines = set(defines)
    env = make_environment(config, defines)
    result = LintResult(notes=list(env.notes))
    suppressions: dict[str, list[Suppression]] = {}
    raw = Findings()
    cache_on = settings.cache if use_cache is None else use_cache
    config_files = _config_files(env)
    asked = {real for p in paths if (real := _real(p)) in config_files and Path(p).is_file()}
    # The config itself stands for all its files; otherwise only the Included files named.
    main = _real(env.config_path) if env.config_path is not None else None
    only = None if main in asked else asked
    # Read it as the command line spells it (the same names as `confmig lint CONFIG`).
    spelled = next((Path(p) for p in paths if _real(p) == main), env.config_path)
    config_linted = False
    for path in paths:
        path = Path(path)
        kind = path_kind(path, env, config_files)
        if kind == "docroot":
            raw = _joined(raw, _lint_docroot(path, env, rules, settings, result, suppressions,
                                             cache_on, jobs, on_directory, follow_symlinks))
        elif kind == "config":
            if not config_linted:
                assert spelled is not None
                raw += _lint_server(Path(spelled), env, rules, result, suppressions,
                                    defines, only)
                config_linted = True
        elif kind == "htaccess" and not (check := check_access_file(
                str(path), [_real(path.parent)], follow_symlinks)).readable:
            raw += problem_findings([check], env, settings.enabled("CTX009"))
            result.files.append(str(path))
        elif kind == "htaccess":
            raw = _joined(raw, _lint_access_files(path, [path], env, rules, settings, result,
                                                  suppressions, cache_on, jobs, None))
        elif kind == "server":
            raw += _lint_server(path, env, rules, result, suppressions, defines)
        else:
            result.errors.append(f"{path}: {missing_message(path)}")
    _forget_parsed()  # (no rule runs from here on: the files' trees can go before the sort)
    known = rule_codes()
    kept = apply_suppressions(raw, suppressions, settings.enabled, known)
    del raw
    if settings.per_file_ignores:
        kept = Findings(f for f in kept if not settings.ignored_for_file(f.code, f.file))
    kept.sort()
    result.findings = kept
    return result


def path_kind(path: Path, env: Environment, config_files: set[str] | None = None) -> PathKind:
    """What a PATH given to :func:`lint_paths` is linted as: ``docroot``, ``config`` (the
    ``--config`` file or one it Includes), ``htaccess``, ``server`` (a config of its own)
    or ``missing`` — :func:`confmig.load.workspace.path_kind`, the rule ``confmig parse``
    and ``explain`` follow too."""
    if config_files is None:
        config_files = _config_files(env)
    return load_path_kind(path, env.server, config_files)


def _real(path: str | Path) -> str:
    return os.path.realpath(path)


def _config_files(env: Environment) -> set[str]:
    """The real paths of the ``--config`` file and every file it Includes."""
    return load_config_files(env.server, env.config_path)


def _lint_docroot(root: Path, env: Environment, rules: RuleSet, settings: Settings,
                  result: LintResult, suppressions: dict[str, list[Suppression]],
                  cache_on: bool, jobs: int | None,
                  on_directory: Callable[[int], None] | None,
                  follow_symlinks: bool = False) -> Findings:
    # The tree rules read the docroot too: from this walk's listings (docroot_walk) when
    # they will run; with a cache, which may hold their findings, they read it themselves.
    listing = Collector(str(root)) if rules.has_tree_rules and not cache_on else None
    scan = scan_docroot(root, access_names(env.server), on_directory, follow_symlinks,
                        on_listing=listing)
    problems = problem_findings(scan.problems, env, settings.enabled("CTX009"))
    for skipped, reason in scan.skipped:
        result.notes.append(f"skipped {skipped}: {reason}")
    if not scan.access_files and not scan.problems:
        result.notes.append(f"{root}: no access files ({', '.join(access_names(env.server))}) "
                            f"in {scan.directories} directories")
    result.files += [check.path for check in scan.problems]
    return _joined(Findings(problems), _lint_access_files(
        root, scan.access_files, env, rules, settings, result, suppressions, cache_on, jobs,
        scan, listing))


def _lint_access_files(linted: Path, files: list[Path], env: Environment, rules: RuleSet,
                       settings: Settings, result: LintResult,
                       suppressions: dict[str, list[Suppression]], cache_on: bool,
                       jobs: int | None, scan: object | None,
                       listing: Collector | None = None) -> Findings:
    docroot = linted if linted.is_dir() else None
    # The walk follows no symlink, so a directory's real path is the root's plus the rest.
    base = str(linted if docroot else linted.parent)
    real_base = os.path.realpath(base)
    plans: list[AccessPlan] = []
    for file in files:
        path = str(file)
        parent = os.path.dirname(path)
        real = (real_base + parent[len(base):] if parent.startswith(base)
                else os.path.realpath(parent))
        directory = env.server_directory(real, docroot)
        plan = AccessPlan(path, directory, env.overrides_for(directory), real_parent=real)
        try:
            with open(path, "rb") as handle:
                plan.data = handle.read()
        except OSError as exc:
            result.errors.append(f"{path}: cannot read: {exc.strerror or exc}")
            continue
        if cache_on:  # the cache's key: without a cache nothing asks for it
            plan.key = _file_key(plan)
        plans.append(plan)
        result.files.append(path)
        if b"confmig:" in plan.data:
            found = parse_suppressions(split_lines(decode(plan.data)))
            if found:
                suppressions[path] = found
    for note in env.mapping_notes():
        if note not in result.notes:
            result.notes.append(note)
    cache = _open_cache(settings, env, linted) if cache_on else None
    misses = []
    for plan in plans:
        plan.findings = cache.get_file(plan.path, plan.key) if cache else None
        if plan.findings is None:
            misses.append(plan)
    result.cached += len(plans) - len(misses)
    tree_rules = rules.has_tree_rules
    tree_key = digest(*(p.path + ":" + p.key for p in plans)) if cache and tree_rules else ""
    tree_findings = cache.get_tree(tree_key) if cache and tree_rules else None
    run_tree = tree_rules and tree_findings is None
    lint_plans(env, rules, misses, summarize=run_tree, jobs=jobs)
    if run_tree:
        workspace = Workspace(server=env.server, docroot=docroot,
                              scan=scan if scan is not None else None, state=env.state)
        lint_ctx = LintContext(
            files=[], workspace=workspace, docroot=docroot, assumed_defaults=env.assumed,
            server=env.server, registry=env.registry, modules=env.state.modules,
            notes=result.notes, access=[_entry(env, plan) for plan in plans],
        )
        if listing is not None:
            remember(lint_ctx, listing)
        tree_findings = without_repeats(rules.check_tree(lint_ctx),
                                        [p.findings for p in plans if p.findings],
                                        rules.deferring)
        # A tree rule's closure can put lint_ctx in a reference cycle, which only the cycle
        # collector frees (seldom during a lint, see _collect_less): let go of the files'
        # trees now (a 1 MB file's tree stayed alive through the sort of its findings).
        for entry in lint_ctx.access:
            entry.loaded_context = None
    out = Findings()
    for plan in plans:
        assert plan.findings is not None
        if cache:
            cache.put_file(plan.path, plan.key, plan.findings)
        out = _joined(out, plan.findings)
        plan.findings = None  # (in out now)
    if tree_rules and tree_findings is not None:
        out = _joined(out, tree_findings)
        if cache:
            cache.put_tree(tree_key, tree_findings)
    if cache:
        cache.save()
    return out


def _joined(found: Findings, more: Findings) -> Findings:
    """``found`` with ``more`` added; ``more`` itself when ``found`` is empty (the findings of
    a lint of one large file are not copied on their way)."""
    if not found:
        return more
    found += more
    return found


def _entry(env: Environment, plan: AccessPlan) -> AccessEntry:
    """An access file for the tree rules: its summaries, its context only if one asks."""
    entry = AccessEntry(plan.path, plan.directory, dict(plan.summaries or {}),
                        load=lambda: load_plan(env, plan), loaded_context=plan.context,
                        real_parent=plan.real_parent)
    plan.context = None
    return entry


def _open_cache(settings: Settings, env: Environment, linted: Path) -> LintCache:
    directory = cache_directory(settings.cache_dir, settings.root, linted.resolve())
    namespace = digest(code_fingerprint(), settings.key(), env.key, str(linted.resolve()))
    return LintCache(directory, namespace)


def _lint_server(path: Path, env: Environment, rules: RuleSet, result: LintResult,
                 suppressions: dict[str, list[Suppression]], defines: set[str],
                 only: set[str] | None = None) -> Findings:
    """Lint a server config and its Includes (``defines``: the ``-D`` names, not those the
    ``--config`` Defines).  ``only``: the real paths of the files to report on (the others
    are read, as Apache reads them, but not reported); None: all of them."""
    loaded = load_config(path, defines=set(defines))
    contexts = server_contexts(env, loaded)
    reported = [c for c in contexts if only is None or _real(c.path) in only]
    result.files += [c.path for c in reported]
    lint_ctx = LintContext(files=contexts, workspace=Workspace(server=loaded, state=loaded.state),
                           docroot=None, assumed_defaults=False, server=loaded,
                           registry=env.registry, modules=loaded.state.modules,
                           notes=result.notes)
    found = _check(rules, reported, lint_ctx, suppressions)
    return found if only is None else Findings(f for f in found if _real(f.file) in only)


def _check(rules: RuleSet, contexts: list[FileContext], tree: LintContext,
           suppressions: dict[str, list[Suppression]]) -> Findings:
    """The run loop: every file of ``contexts`` checked, its suppressions collected, then
    the tree rules over ``tree`` (their findings are not cached here: access files, which
    are, go through :func:`_lint_access_files`)."""
    out = Findings()
    for ctx in contexts:
        out += rules.check_file(ctx)
        found = parse_suppressions(ctx.lines) if b"confmig:" in ctx.source else None
        if found:
            suppressions[ctx.path] = found
    if rules.has_tree_rules:
        out += without_repeats(rules.check_tree(tree), [out], rules.deferring)
    return out


def lint_text(
    text: str,
    kind: str = "htaccess",
    allow_override: Iterable[str] = ("All",),
    modules: Iterable[str] | None = None,
    filename: str = ".htaccess",
    *,
    allow_override_list: Iterable[str] = (),
    settings: Settings | None = None,
    files: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Lint one text (tests and examples): an access file with ``allow_override`` in force,
    or a server config (``kind="server"``).  ``modules`` are the loaded modules (short
    names or identifiers; default: the assumed Debian set); ``files`` (name → text) are
    written next to it, in the directory that is then ServerRoot (a password file…)."""
    settings = settings or Settings()
    rules = enabled_rules(settings)
    env = make_environment(None, set(), modules=modules)
    overrides = make_overrides(allow_override, allow_override_list, source="<test>")
    import tempfile  # (tests' helper: the command line does not load it, issue 17)

    with tempfile.TemporaryDirectory(prefix="confmig-lint-") as tmp:
        for name, content in (files or {}).items():
            (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / name).write_text(content)
        if files:
            env.state.server_root = Path(tmp)
        path = Path(tmp) / Path(filename).name
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        if kind == "server":
            env.assumed = False
            loaded = load_config(path, state=ReadState(modules=env.state.modules.copy(),
                                                       server_root=Path(tmp)))
            contexts = server_contexts(env, loaded)
        else:
            loaded = load_htaccess(path, env.state, display_name=filename)
            contexts = [htaccess_context(env, filename, os.path.dirname(filename) or "/",
                                         overrides, loaded, path.read_bytes())]
        workspace = Workspace(server=loaded if kind == "server" else None, state=env.state)
        lint_ctx = LintContext(files=contexts, workspace=workspace, docroot=None,
                               assumed_defaults=env.assumed, server=workspace.server,
                               registry=env.registry, modules=env.state.modules)
        found: dict[str, list[Suppression]] = {}
        renamed = [_rename(f, str(path), filename)
                   for f in _check(rules, contexts, lint_ctx, found)]
        suppressions = {(filename if name in (str(path), filename) else name): items
                        for name, items in found.items()}
        findings = apply_suppressions(renamed, suppressions, settings.enabled,
                                      rule_codes())
    findings.sort()
    return list(findings)


def _rename(finding: Finding, old: str, new: str) -> Finding:
    if finding.file != old:
        return finding
    return Finding(finding.code, finding.message, new, finding.line, finding.column,
                   finding.severity, finding.hint, finding.end_column)
