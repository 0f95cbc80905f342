"""CTX011: a line of an access file Apache refuses, so every request under it answers 500.

Apache reads an ``.htaccess`` on every request under its directory and answers 500 when a
line of it fails: an ``Options`` mixing ``+``/``-`` and plain keywords, an unknown
``Require`` provider or a bad address, a ``Redirect`` status or target it cannot use, a
``<Files>`` or ``<Limit>`` without arguments, a regex PCRE cannot compile, an ``<Else>``
without ``<If>``…  Which lines fail, and why, is the request model's answer
(:mod:`confmig.lint.access_model`: ``ap_parse_htaccess`` as ``explain`` and the converters
ask it, held to real Apache by the differential tests), not worked out again here.

A line another rule already reports as an error (CTX001/CTX002 for a directive
AllowOverride does not permit, SYN002 for its arguments, RW001 for a rewrite regex…) is
left to that rule (:attr:`~confmig.lint.rule.Rule.defers_to_errors`).

The answer needs the section the model builds of the file — SEC002 asks the model about
the same file, so it is asked once: in the tree phase from the context at hand (a serial
run), or in the worker that checked the file (a summary of the refusals).
"""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.access_model import Refusal, forget, refusals
from confmig.lint.context import FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register

UNDER = "Apache answers 500 for every request under this directory"


def _own(message: str) -> bool:
    """Not the model's AllowOverride/registry answer for a directive (``Invalid command``,
    ``… not allowed here``): SYN003, CTX001 and CTX002 always report those lines, and a run
    that ignores them (``--ignore SYN003``) must not get them back under this code."""
    return not message.startswith("Invalid command '") and \
        not message.endswith(" not allowed here")


@register
class HtaccessAnswers500(Rule):
    code = "CTX011"
    name = "htaccess-answers-500"
    summary = "a line Apache refuses in an .htaccess: every request under it answers 500"
    rationale = (
        "Apache reads an .htaccess file on every request under its directory and stops at "
        "the first line it cannot use: an Options line mixing +/- and plain keywords, an "
        "unknown Require provider or an invalid address, a Redirect status or target it "
        "cannot use, <Files> or <Limit> without arguments, a regex that does not compile, "
        "<Else> without <If>. The request then answers 500 Internal Server Error and the "
        "reason is only in the error log. Which lines fail is what the request model says "
        "(the answer `confmig explain` gives for a request there)."
    )
    bad = "Options -Indexes FollowSymLinks\n"
    good = "Options -Indexes +FollowSymLinks\n"
    severity = Severity.error
    fix = "correct the line as Apache's message says (`confmig explain` a URL there shows it)"
    kinds = frozenset({"htaccess"})
    defers_to_errors = True

    def summarize(self, ctx: FileContext) -> tuple[Refusal, ...] | None:
        """The refusals of one file, worked out where it was checked; None when its context is
        kept for the tree phase (:meth:`check_tree` asks it then, after the per-file rules'
        walks are let go, and SEC002 reads the same section)."""
        if ctx.at_hand:
            return None
        found = refusals(ctx)
        forget(ctx)
        return found

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        from confmig.load.workspace import access_names

        names = access_names(ctx.server)
        alone = len(ctx.access) == 1  # SEC002 asks the model about this file too
        for entry in ctx.access:
            found = ctx.summary(self, entry)
            if found is None:
                context = entry.context
                found = refusals(context, names)
                if not alone:
                    forget(context)
            for file, line, column, message in found:  # type: ignore[union-attr]
                if not _own(message):
                    continue
                yield Finding(self.code, f"{message.rstrip('.')}: {UNDER}", file, line, column,
                              self.severity, self.fix)
