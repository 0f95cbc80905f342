"""Decide, for every node of one ``.htaccess`` file, what becomes of it in its ``<Directory>``
block: moved as written, or carried as a comment (with the reason).

Decisions are keyed by the node's ``(line, column)``, which the lossless tree (what is written,
conditionals kept) and the effective tree (what Apache reads, false ``<IfModule>`` bodies
dropped, ``${VAR}`` substituted) share.  Nodes only in the lossless tree are inside a false
conditional section: they are moved as written, and the server evaluates the condition the
same way when it reads the block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from confmig.convert.httpd.judge import Judgement, ModulePredicate, Verdict, judge
from confmig.convert.httpd.overrides import InForce
from confmig.convert.httpd.tree import AccessFile
from confmig.load import LoadedConfig, ReadState, load_htaccess
from confmig.load.conditions import CONDITIONAL_SECTIONS
from confmig.syntax import ConfigFile, Directive, Node, Section

Key = tuple[int, int]

# A directive that gives a directory its own, empty, per-dir config of the module — which is
# what Apache does for a directive it then ignores under ``Nonfatal=Override``
# (``ap_set_config_vectors`` runs before the override check).  Only modules whose merge is
# not neutral for an empty config need it: mod_rewrite (a config of its own replaces the
# parent's rules) and mod_access_compat (no merger: the most specific config wins).
EMPTY_CONFIG = {
    "mod_rewrite": "RewriteCond %{REQUEST_URI} ^",
    "mod_access_compat": "Order Deny,Allow",
}


class FileStatus(StrEnum):
    OK = "ok"
    IGNORED = "ignored"  # AllowOverride None: Apache never reads it
    FATAL = "fatal"  # Apache answers 500 below this directory
    DEAD = "dead"  # below a directory whose .htaccess answers 500: never read
    DENIED = "denied"  # Apache cannot read it as an access file (403, a hang) or confmig
    # did not read it (outside the root): the directory is denied (convert.httpd.denied)
    DENIED_BELOW = "denied-below"  # below a denied directory: never read


@dataclass
class FilePlan:
    """One access file, what is in force for it, and the fate of each of its nodes."""

    access: AccessFile
    loaded: LoadedConfig
    in_force: InForce
    decisions: dict[Key, Judgement] = field(default_factory=dict)
    status: FileStatus = FileStatus.OK
    syntax_error: str | None = None
    empty_configs: list[tuple[str, Directive]] = field(default_factory=list)
    dead_because: AccessFile | None = None
    denied_reason: str | None = None
    #: DENIED for a FIFO: the parent directory whose listing Apache never answers
    #: (mod_autoindex's sub-request for this one blocks on the FIFO), None otherwise.
    blocked_listing: str | None = None

    @property
    def config(self) -> ConfigFile | None:
        return self.loaded.files.get(str(self.access.path))

    @property
    def text(self) -> str:
        try:
            return self.access.path.read_text(encoding="utf-8", errors="surrogateescape")
        except OSError:
            return ""

    def fatal(self) -> list[tuple[Node, Judgement]]:
        return self._with(Verdict.FATAL)

    def ignored(self) -> list[tuple[Node, Judgement]]:
        return self._with(Verdict.IGNORED)

    def _with(self, verdict: Verdict) -> list[tuple[Node, Judgement]]:
        config = self.config
        if config is None:
            return []
        out = []
        for node in config.walk():
            found = self.decisions.get((node.line, node.column))
            if found is not None and found.verdict is verdict:
                out.append((node, found))
        return out

    def mark(self, node: Node, judgement: Judgement) -> None:
        self.decisions[(node.line, node.column)] = judgement
        if judgement.verdict is Verdict.FATAL and self.status is FileStatus.OK:
            self.status = FileStatus.FATAL


def plan_file(access: AccessFile, in_force: InForce, loaded_modules: ModulePredicate,
              state: ReadState | None = None) -> FilePlan:
    """Read *access* as Apache would under *in_force* and judge every node."""
    loaded = load_htaccess(access.path, state)
    plan = FilePlan(access, loaded, in_force)
    if not in_force.reads_htaccess:
        plan.status = FileStatus.IGNORED
        return plan
    if loaded.errors:
        plan.status = FileStatus.FATAL
        plan.syntax_error = str(loaded.errors[0])
        return plan
    _judge_nodes(plan, loaded.nodes, in_force, loaded_modules)
    _empty_configs(plan)
    return plan


def _judge_nodes(plan: FilePlan, nodes: list[Node], in_force: InForce,
                 loaded_modules: ModulePredicate) -> None:
    for node in nodes:
        if isinstance(node, Section):
            if node.lname in CONDITIONAL_SECTIONS:  # only if the loader kept one
                _judge_nodes(plan, node.children, in_force, loaded_modules)
                continue
            judgement = judge(node, in_force, loaded_modules)
            plan.mark(node, judgement)
            if judgement.verdict is Verdict.OK:
                _judge_nodes(plan, node.children, in_force, loaded_modules)
        elif isinstance(node, Directive):
            plan.mark(node, judge(node, in_force, loaded_modules))


def _empty_configs(plan: FilePlan) -> None:
    """Modules whose every directive here was ignored under ``Nonfatal=Override``."""
    kept: set[str] = set()
    ignored: dict[str, Directive] = {}
    config = plan.config
    if config is None:
        return
    for node in config.walk():
        found = plan.decisions.get((node.line, node.column))
        if found is None or found.module is None or not isinstance(node, Directive):
            continue
        if found.verdict is Verdict.OK:
            kept.add(found.module)
        elif found.verdict is Verdict.IGNORED and "Nonfatal=Override" in found.reason:
            ignored.setdefault(found.module, node)
    plan.empty_configs = [(module, node) for module, node in ignored.items()
                          if module not in kept and module in EMPTY_CONFIG]


def mark_dead(plans: list[FilePlan]) -> None:
    """Files below a directory whose access file answers 500 are never read by Apache."""
    fatal = [p for p in plans if p.status is FileStatus.FATAL]
    for plan in plans:
        if plan.status is FileStatus.FATAL or plan.status is FileStatus.IGNORED:
            continue
        for parent in fatal:
            if _below(plan.access.directory, parent.access.directory):
                plan.status = FileStatus.DEAD
                plan.dead_because = parent.access
                break


def below(directory: str, parent: str) -> bool:
    """*directory* is strictly below *parent* (both absolute, no trailing slash)."""
    return _below(directory, parent)


def _below(directory: str, parent: str) -> bool:
    if parent == "/":
        return directory != "/"
    return directory.startswith(parent + "/")
