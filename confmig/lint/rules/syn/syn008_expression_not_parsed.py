"""SYN008: an ``ap_expr`` Apache cannot parse.

Apache parses the expressions of ``<If>``/``<ElseIf>``, ``Require expr``, ``RewriteCond
expr``, ``Header … expr=`` and ``SetEnvIfExpr`` when it reads the configuration.  An unknown
variable (``%{HTTP_X_FORWARDED_FOR}``: only seven ``HTTP_*`` names exist, use
``%{HTTP:X-Forwarded-For}``), an unknown function, ``-R``/``-ipmatch`` without a constant
network, a regex that does not compile, or ``file()``/``filesize()`` in an ``.htaccess``
("not available in restricted context") make an ``.htaccess`` answer 500 for every request of
its directory, and keep a server config from starting.  The parser is the model's
(:mod:`confmig.model.expr`), which the differential suite holds to real Apache.
"""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.model.merge.authz import require_expr_text
from confmig.syntax import Directive, Section
from confmig.syntax.words import first_word


@register
class ExpressionNotParsed(Rule):
    code = "SYN008"
    name = "expression-not-parsed"
    summary = "Apache cannot parse this expression: the directory answers 500"
    rationale = (
        "ap_expr expressions are parsed when Apache reads the configuration. A variable or "
        "function Apache does not know (only seven %{HTTP_*} names exist: use "
        "%{HTTP:Header-Name}), a regex that does not compile, -R/-ipmatch with a network "
        "that is not a constant, or file()/filesize() in an .htaccess make Apache refuse the "
        "line: an .htaccess then answers 500 for every request of its directory, a server "
        "config does not start."
    )
    bad = ('<If "%{HTTP_X_FORWARDED_PROTO} == \'http\'">\n'
           "    Require all denied\n</If>\n")
    good = ('<If "%{HTTP:X-Forwarded-Proto} == \'http\'">\n'
            "    Require all denied\n</If>\n")
    severity = Severity.error
    fix = "use %{HTTP:Name} for request headers; check the expression with confmig explain"

    directives = frozenset({"<if", "<elseif", "require", "rewritecond", "header",
                            "requestheader", "setenvifexpr"})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        found = list(_expressions(d))
        if not found:
            return
        # (the expression model is loaded for a file that has an expression)
        from confmig.model.expr import ExprError, parse_cached, parse_string_cached

        for what, text, is_string in found:
            try:
                if is_string:
                    parse_string_cached(text, restricted=ctx.is_htaccess)
                else:
                    parse_cached(text, restricted=ctx.is_htaccess)
            except ExprError as exc:
                effect = ("every request of this directory answers 500" if ctx.is_htaccess
                          else "Apache refuses to start")
                yield self.finding(d, f"{what}: Apache cannot parse the expression "
                                      f"({exc}): {effect}")


def _expressions(d: Directive | Section) -> Iterator[tuple[str, str, bool]]:
    """(where, expression text, a string expression?) of each expression *d* holds (a
    ``Header`` value written ``expr=…`` is a string expression, a condition a boolean one)."""
    name = d.lname
    args = d.args
    if name in ("if", "elseif"):
        if args:
            yield f"<{d.name}>", args[0], False
    elif name == "require":
        word, rest = first_word(d.args_text)
        if word.lower() == "not":
            word, rest = first_word(rest)
        if word.lower() == "expr":
            yield "Require expr", require_expr_text(rest.strip()), False
    elif name == "rewritecond":
        if len(args) >= 2 and args[0].lower() == "expr":
            pattern = args[1][1:] if args[1].startswith("!") else args[1]
            yield "RewriteCond expr", pattern, False
    elif name == "setenvifexpr":
        if len(args) >= 2:  # fewer: an argument count error first (SYN002)
            yield "SetEnvIfExpr", args[0], False
    else:  # Header / RequestHeader [always|onsuccess] action header [value …] [condition]
        words = list(args)
        if words and words[0].lower() in ("always", "onsuccess"):
            words = words[1:]
        action = words[0].lower() if words else ""
        value_at = {"set": 2, "append": 2, "add": 2, "merge": 2, "setifempty": 2,
                    "note": 2}.get(action)
        condition_at = {"edit": 4, "edit*": 4, "unset": 2, "echo": 2}.get(
            action, 3 if value_at is not None else None)
        if value_at is not None and len(words) > value_at \
                and words[value_at].lower().startswith("expr="):
            yield f"{d.name} value expr=", words[value_at][5:], True
        if condition_at is not None and len(words) > condition_at \
                and words[condition_at].lower().startswith("expr="):
            yield f"{d.name} expr=", words[condition_at][5:], False
