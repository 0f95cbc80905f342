"""The notes a conversion reports (on stderr, and to ``confmig verify``) for its file plans."""

from __future__ import annotations

from confmig.apache.modules import ModuleSet
from confmig.convert.httpd.check import CheckOutcome
from confmig.convert.httpd.judge import ModulePredicate, Verdict
from confmig.convert.httpd.plan import FilePlan, FileStatus
from confmig.convert.httpd.text import needs_fnmatch_escape
from confmig.convert.httpd.tree import Tree
from confmig.convert.result import ConversionResult, Note, NoteKind
from confmig.syntax import Directive, Section

_PHP = ("php_value", "php_flag", "php_admin_value", "php_admin_flag")


def add_plan_notes(result: ConversionResult, plans: list[FilePlan], *, keep_500: bool,
                   env_loaded: ModulePredicate, modules: ModuleSet | None = None) -> None:
    for plan in plans:
        _plan_notes(result, plan, keep_500, env_loaded)
        if modules is not None:
            _not_modelled_notes(result, plan, modules)


def _plan_notes(result: ConversionResult, plan: FilePlan, keep_500: bool,
                loaded: ModulePredicate) -> None:
    file = str(plan.access.path)
    scope = plan.access.directory
    here = f"{scope.rstrip('/')}/"
    if plan.status is FileStatus.DENIED:
        # Never by serving more, but the answers below may differ: Apache hangs on a FIFO,
        # reads what confmig did not, and its own 403 page adds "Server unable to read
        # htaccess file, denying access to be safe" (error-notes), which no directive writes.
        result.untranslatable.append(Note(
            file, 0, "", f"{plan.denied_reason}; {here} and below are denied (Require all "
            "denied), never served", NoteKind.UNTRANSLATABLE, scope))
        if plan.blocked_listing is not None:
            parent = f"{plan.blocked_listing.rstrip('/')}/"
            result.untranslatable.append(Note(
                file, 0, "", f"a FIFO: a request of {parent} that looks {here} up with a "
                "sub-request never answers in Apache (mod_autoindex's listing, a "
                f"DirectoryIndex into it); here {parent} is not listed and such a lookup is "
                "denied (403)", NoteKind.UNTRANSLATABLE, plan.blocked_listing))
        return
    if plan.status is FileStatus.DENIED_BELOW:
        result.warnings.append(Note(file, 0, "", f"never read by Apache: "
                                    f"{plan.denied_reason}; carried as comments",
                                    NoteKind.INFO, scope))
        return
    if plan.status is FileStatus.IGNORED:
        result.warnings.append(Note(
            file, 0, "", f"Apache never read it ({plan.in_force.describe()}, "
            f"{plan.in_force.source}); carried as comments", NoteKind.IGNORED, scope))
        return
    if plan.syntax_error:
        kind, tail = _fatal_kind(keep_500, here)
        target = result.warnings if keep_500 else result.untranslatable
        target.append(Note(file, 0, "", f"{plan.syntax_error}; {tail}", kind, scope))
    for node, judgement in plan.fatal():
        kind, tail = _fatal_kind(keep_500, here)
        target = result.warnings if keep_500 else result.untranslatable
        target.append(Note(file, node.line, _name(node), f"{judgement.reason}; {tail}",
                           kind, scope))
    for node, judgement in plan.ignored():
        result.warnings.append(Note(file, node.line, _name(node),
                                    f"{judgement.reason}; carried as a comment",
                                    NoteKind.IGNORED, scope))
    for module, node in plan.empty_configs:
        result.warnings.append(Note(
            file, node.line, node.name, f"ignored, but Apache still gave {here} an empty "
            f"{module} configuration (it replaces the parent's); reproduced with a neutral "
            "directive", NoteKind.TRANSFORMED, scope))
    if plan.status is FileStatus.DEAD:
        parent = plan.dead_because.path if plan.dead_because else "a parent .htaccess"
        what = ("carried as comments (the parent's 500 is kept)" if keep_500
                else "converted as if it had been; answers below change with the parent's "
                "(--serve-500)")
        result.warnings.append(Note(file, 0, "", f"never read by Apache: {parent} answered "
                                    f"500 first; {what}", NoteKind.INFO, scope))
    if plan.access.link:
        result.warnings.append(Note(
            file, 0, "", f"also governs {here} (reached through the symlink "
            f"{plan.access.link}): a <Directory> block of its own for that path",
            NoteKind.TRANSFORMED, scope))
    _rewrite_in_escaped_path(result, plan)
    _php_notes(result, plan, loaded)


def _not_modelled_notes(result: ConversionResult, plan: FilePlan, modules: ModuleSet) -> None:
    """Directives of loaded modules confmig does not model, once per name and file: moved as
    written (or, for a name only a module without facts may define, judged "Invalid command"
    although that module may define it)."""
    if plan.config is None or plan.status is FileStatus.IGNORED:
        return
    found: dict[str, tuple[str, list[int], bool]] = {}
    for node in plan.config.walk():
        judgement = plan.decisions.get((node.line, node.column))
        if judgement is None or judgement.verdict is Verdict.IGNORED:
            continue
        reason = modules.not_modelled(_name(node))
        if reason is not None:
            _, lines, _ = found.setdefault(_name(node), (reason, [], judgement.verdict
                                                         is Verdict.OK))
            lines.append(node.line)
    for name, (reason, lines, moved) in found.items():
        head, text = reason.split(": ", 1)  # "php_value (mod_php)", "known to exist, …"
        if "(" in head:
            text = text.replace("known to exist", f"known to exist ({head.split('(')[1][:-1]})")
        what = ("moved as written; confmig does not check what it does" if moved else
                "judged 'Invalid command' above; if the module defines it, Apache did not "
                "answer 500: check by hand")
        at = f" (lines {', '.join(map(str, lines))})" if len(lines) > 1 else ""
        result.warnings.append(Note(str(plan.access.path), lines[0], name,
                                    f"{text}; {what}{at}", NoteKind.INFO,
                                    plan.access.directory))


def _fatal_kind(keep_500: bool, here: str) -> tuple[NoteKind, str]:
    if keep_500:
        return NoteKind.TRANSFORMED, f"Apache answered 500 for {here} and below; kept as 500"
    return NoteKind.FATAL, (f"Apache answered 500 for {here} and below; carried as a comment, "
                            "so the converted block serves them (--serve-500; without it the "
                            "500 is kept)")


def _rewrite_in_escaped_path(result: ConversionResult, plan: FilePlan) -> None:
    if not needs_fnmatch_escape(plan.access.directory) or plan.config is None:
        return
    for node in plan.config.directives():
        if node.lname.startswith("rewrite"):
            result.untranslatable.append(Note(
                str(plan.access.path), node.line, node.name,
                "the directory name has a wildcard character, which <Directory> must escape; "
                "mod_rewrite then cannot strip the directory prefix as it does for .htaccess",
                NoteKind.UNTRANSLATABLE, plan.access.directory))
            return


def _php_notes(result: ConversionResult, plan: FilePlan, loaded: ModulePredicate) -> None:
    if plan.config is None or loaded("mod_php"):
        return
    for node in plan.config.directives():
        key = (node.line, node.column)
        if node.lname in _PHP and key not in plan.decisions:
            result.warnings.append(Note(
                str(plan.access.path), node.line, node.name, "moved as written inside its "
                "conditional section; mod_php is not loaded, so Apache skips it there as it "
                "did in .htaccess", NoteKind.INFO, plan.access.directory))


def add_check_notes(result: ConversionResult, outcome: CheckOutcome, *, keep_500: bool,
                    apache_found: bool) -> None:
    if not apache_found:
        result.warnings.append(Note("", 0, "", "not checked with apache2 -t (Apache httpd not "
                                    "found; install it with: apt-get install -y apache2)",
                                    NoteKind.INFO))
    if outcome.unchecked_modules:
        result.warnings.append(Note("", 0, "", "not checked with apache2 -t (module not "
                                    "installed here): directives of "
                                    + ", ".join(sorted(outcome.unchecked_modules)),
                                    NoteKind.INFO))
    if outcome.problem:
        result.rejected = " ".join(outcome.problem.split())
        result.untranslatable.append(Note("", 0, "", "apache2 -t rejects the generated "
                                          f"configuration: {outcome.problem}",
                                          NoteKind.UNTRANSLATABLE, "/"))


def add_tree_notes(result: ConversionResult, tree: Tree) -> None:
    for path, reason in tree.notes:
        result.warnings.append(Note(str(path), 0, "", reason, NoteKind.INFO))


def _name(node: object) -> str:
    if isinstance(node, Section):
        return f"<{node.name}>"
    if isinstance(node, Directive):
        return node.name
    return ""
