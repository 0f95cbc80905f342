"""Ask real Apache whether it accepts the generated blocks, and take out what it refuses.

A directive whose *arguments* Apache rejects (a regex that does not compile, a bad ``Header``
action, an unknown ``Options`` keyword…) makes an ``.htaccess`` answer 500 — but in the server
configuration it stops Apache from starting at all.  The registry cannot know every handler's
checks, so the blocks are run through ``apache2 -t`` with the same modules, and each line it
refuses is traced back to its ``.htaccess`` node and marked as Apache's 500, until the blocks
load.  Directives of modules this machine does not have are left out of the test (commented)
and reported as unchecked.

Before that, what Apache refuses only in an ``.htaccess`` (``file()`` in an expression), which
``apache2 -t`` cannot see, is marked as Apache's 500 too (:func:`mark_htaccess_only_refusals`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from confmig.apache.modules import lookup
from confmig.convert.httpd.judge import Judgement, Verdict, refused_only_in_htaccess
from confmig.convert.httpd.plan import FilePlan, FileStatus, mark_dead
from confmig.convert.httpd.render import Block
from confmig.servers import ApacheBinary, ApacheServer, ServerError, find_apache, resolve_modules
from confmig.syntax import Directive, Node, Section

_SYNTAX_ERROR = re.compile(r"Syntax error on line (\d+) of ([^\n]+?):\s*\n(.*)", re.S)
MAX_ROUNDS = 200


@dataclass
class CheckOutcome:
    checked: bool = False
    rejected: list[tuple[FilePlan, Node, str]] = field(default_factory=list)
    unchecked_modules: set[str] = field(default_factory=set)
    problem: str | None = None  # Apache refused a line confmig generated itself


def check_with_apache(plans: list[FilePlan], render: Callable[[], Block],
                      module_names: Iterable[str], binary: ApacheBinary | None) -> CheckOutcome:
    """Run ``apache2 -t`` on ``render()`` until it passes, marking what it refuses as fatal."""
    outcome = CheckOutcome()
    mark_htaccess_only_refusals(plans)
    if binary is None:
        return outcome
    available = available_modules(binary, module_names)
    owner = {id(node): plan for plan in plans if plan.config for node in plan.config.walk()}
    for _ in range(MAX_ROUNDS):
        block = render()
        text = _testable(block, plans, available, outcome)
        server = ApacheServer(None, server_config=text, modules=available, binary=binary)
        ok, message = server.config_test()
        outcome.checked = True
        if ok:
            return outcome
        found = _SYNTAX_ERROR.search(message)
        line = int(found.group(1)) if found else 0
        source = block.sources[line - 1] if 0 < line <= len(block.sources) else None
        plan = owner.get(id(source)) if source is not None else None
        if plan is None or source is None:
            outcome.problem = message.strip()
            return outcome
        reason = " ".join(found.group(3).split()) if found else message.strip()
        plan.mark(source, Judgement(Verdict.FATAL, f"Apache rejects it: {reason}"))
        outcome.rejected.append((plan, source, reason))
        mark_dead(plans)
    outcome.problem = "too many lines rejected by apache2 -t"
    return outcome


def mark_htaccess_only_refusals(plans: list[FilePlan]) -> None:
    """Mark as Apache's 500 the lines only an ``.htaccess`` refuses (the model says which),
    in every file Apache reads; then the files below them are never read."""
    for plan in plans:
        if plan.status not in (FileStatus.OK, FileStatus.FATAL) or plan.config is None:
            continue
        found = refused_only_in_htaccess(plan.loaded.nodes, plan.access.directory,
                                         plan.loaded.state.modules.has_module)
        for node, message in found:
            current = plan.decisions.get((node.line, node.column))
            if current is None or current.verdict is Verdict.OK:
                plan.mark(node, Judgement(Verdict.FATAL, f"{message} (in an .htaccess only)"))
    mark_dead(plans)


def find_binary(explicit: str | None = None) -> ApacheBinary | None:
    try:
        return find_apache(explicit)
    except ServerError:
        return None


def available_modules(binary: ApacheBinary, names: Iterable[str]) -> list[str]:
    """The modules among *names* this machine's Apache can load."""
    out = []
    for name in names:
        try:
            resolve_modules(binary, [name])
        except (ServerError, ValueError):
            continue
        out.append(name)
    return out


def _testable(block: Block, plans: list[FilePlan], available: list[str],
              outcome: CheckOutcome) -> str:
    """The block's text with the lines of modules this machine lacks commented out."""
    owner = {id(node): plan for plan in plans if plan.config for node in plan.config.walk()}
    loadable = {f"mod_{n}" for n in available}
    lines = []
    for line, source in zip(block.lines, block.sources, strict=True):
        module = _module_of(source, owner.get(id(source)))
        if module and module not in loadable and not _static(module):
            outcome.unchecked_modules.add(module)
            lines.append("#\n")
        else:
            lines.append(line)
    return "".join(lines)


def _module_of(source: Node | None, plan: FilePlan | None) -> str | None:
    if plan is None or not isinstance(source, Directive | Section):
        return None
    judgement = plan.decisions.get((source.line, source.column))
    if judgement is None or judgement.verdict is not Verdict.OK:
        return None
    return judgement.module


def _static(module: str) -> bool:
    ident = lookup(module)
    return ident is not None and ident.static
