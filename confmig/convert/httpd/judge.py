"""Would Apache honour, ignore, or fail on one directive of an ``.htaccess`` file?

The order of the checks is Apache's (``server/config.c``: ``ap_walk_config_sub`` then
``invoke_cmd``, then the directive's own handler):

1. no loaded module knows the name → ``Invalid command`` (500), or a warning and nothing with
   ``Nonfatal=Unknown``;
2. neither an ``AllowOverrideList`` entry nor a granted AllowOverride class admits it →
   ``not allowed here`` (500), or a warning and nothing with ``Nonfatal=Override``;
3. ``Options`` checks its keywords against the ``Options=`` list (500, never non-fatal).

A 500 from any directive makes the whole file fail: every request for that directory and
everything below it gets 500 (verified on Apache 2.4.71).

Some lines Apache refuses only because they are read from an ``.htaccess``: an expression
calling ``file()`` or ``filesize()`` ("not available in restricted context"), which the same
line in a ``<Directory>`` block evaluates.  ``apache2 -t`` (:mod:`.check`) sees only the
server context, so :func:`refused_only_in_htaccess` asks the model, which reads the lines in
both contexts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from confmig.apache.registry import DirectiveInfo, overrides_permit, registry
from confmig.convert.httpd.overrides import InForce, options_problem
from confmig.model.merge import SectionBuilder
from confmig.model.sections import SectionCollector
from confmig.syntax import Directive, Node, Section

ModulePredicate = Callable[[str], bool]


class Verdict(StrEnum):
    OK = "ok"
    IGNORED = "ignored"  # Apache logged a warning and went on without it
    FATAL = "fatal"  # Apache answered 500


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    reason: str = ""
    info: DirectiveInfo | None = None

    @property
    def module(self) -> str | None:
        return self.info.module if self.info is not None else None


OK = Judgement(Verdict.OK)


def judge(node: Directive | Section, in_force: InForce, loaded: ModulePredicate) -> Judgement:
    """The fate of *node* (a directive, or a non-conditional section's opening line)."""
    name = f"<{node.name}>" if isinstance(node, Section) else node.name
    info = _known(name, loaded)
    if info is None:
        reason = (f"Invalid command '{node.name}', perhaps misspelled or defined by a module "
                  "not included in the server configuration")
        if in_force.nonfatal_unknown:
            return Judgement(Verdict.IGNORED, f"{reason} (ignored: Nonfatal=Unknown)")
        return Judgement(Verdict.FATAL, reason)
    if not _admitted(info, in_force):
        where = (f"forbidden by {in_force.describe()} ({in_force.source})"
                 if info.allowed_in_htaccess else "not allowed in .htaccess")
        reason = f"{info.name.strip('<>')} not allowed here: {where}"
        if in_force.nonfatal_override:
            return Judgement(Verdict.IGNORED, f"{reason} (ignored: Nonfatal=Override)", info)
        return Judgement(Verdict.FATAL, reason, info)
    if isinstance(node, Directive) and node.lname == "options":
        problem = options_problem(node.args, in_force.allow)
        if problem is not None:
            return Judgement(Verdict.FATAL, f"{problem} ({in_force.describe()})", info)
    return Judgement(Verdict.OK, "", info)


def _known(name: str, loaded: ModulePredicate) -> DirectiveInfo | None:
    """The registry entry of a module that is loaded and defines *name*."""
    for info in registry().get_all(name):
        if any(loaded(module) for module in info.modules):
            return info
    return None


def _admitted(info: DirectiveInfo, in_force: InForce) -> bool:
    """The model's decision (:func:`confmig.apache.registry.overrides_permit`), as lint's CTX002
    and the model's own ``.htaccess`` reader ask it."""
    return overrides_permit(info.name, in_force.allow, in_force.listed_words)


def refused_only_in_htaccess(nodes: Sequence[Node], directory: str,
                             loaded: ModulePredicate) -> list[tuple[Node, str]]:
    """Apache's errors for *nodes* read from the ``.htaccess`` of *directory* that the same
    nodes in a ``<Directory>`` block do not raise (the model's section builder, read in both
    contexts; the AllowOverride checks are :func:`judge`'s and left out of both)."""
    def errors(context: str) -> list[tuple[Node, str]]:
        builder = SectionBuilder(context, directory, loaded_modules=loaded)  # type: ignore[arg-type]
        SectionCollector(builder, context, None, []).feed(nodes)
        return builder.errors

    accepted = {(node.line, node.column, message) for node, message in errors("directory")}
    return [(node, message) for node, message in errors("htaccess")
            if (node.line, node.column, message) not in accepted]
