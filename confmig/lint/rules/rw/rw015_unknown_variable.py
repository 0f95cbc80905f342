"""RW015: a %{NAME} mod_rewrite does not know — it expands to the empty string."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.refs import is_known_variable, scan
from confmig.model.rewrite.parse import directive_arg_line
from confmig.syntax import Directive

# Variables set by other modules or CGI, which mod_rewrite only sees through ENV:.
_ENV_ONLY = frozenset({"REDIRECT_STATUS", "REDIRECT_URL", "UNIQUE_ID", "HTTPS_PROXY",
                       "GEOIP_COUNTRY_CODE", "SCRIPT_URL", "SCRIPT_URI", "PHP_SELF"})


def suggestion(name: str) -> str:
    """The spelling that works for an unknown ``%{name}``."""
    upper = name.upper()
    if upper.startswith("HTTP_") and len(upper) > 5:
        header = "-".join(p.capitalize() for p in upper[5:].split("_"))
        return f"%{{HTTP:{header}}}"
    if upper in _ENV_ONLY or upper.startswith("REDIRECT_"):
        return f"%{{ENV:{name}}}"
    return f"%{{ENV:{name}}} if it is an environment variable"


def expanded_texts(d: Directive) -> list[str]:
    """What mod_rewrite expands: a RewriteCond's test string, a RewriteRule's target."""
    parsed = directive_arg_line(d)
    if parsed is None:
        return []
    first, second, _ = parsed
    if d.lname == "rewritecond":
        return [] if first.lower() == "expr" else [first]
    return [second]


@register
class UnknownRewriteVariable(Rule):
    code = "RW015"
    name = "unknown-rewrite-variable"
    summary = "%{NAME} is not a mod_rewrite variable: it is always empty"
    rationale = (
        "mod_rewrite knows a fixed list of %{NAME} variables; any other name expands to "
        "the empty string without a warning. Only seven HTTP_* names exist (HTTP_HOST, "
        "HTTP_USER_AGENT, HTTP_REFERER, HTTP_COOKIE, HTTP_ACCEPT, HTTP_FORWARDED, "
        "HTTP_PROXY_CONNECTION); every other header needs %{HTTP:Name}. Behind a TLS "
        "proxy this bites: 'RewriteCond %{HTTP_X_FORWARDED_PROTO} !https' is true for "
        "every request, so the https redirect loops — verified on Apache 2.4, where the "
        "condition never sees the header and %{HTTP:X-Forwarded-Proto} does. Variables "
        "set by other modules (REDIRECT_STATUS…) need %{ENV:NAME}."
    )
    bad = ("RewriteEngine On\nRewriteCond %{HTTP_X_FORWARDED_PROTO} !=https\n"
           "RewriteRule ^ https://www.example.com%{REQUEST_URI} [R=301,L]\n")
    good = ("RewriteEngine On\nRewriteCond %{HTTP:X-Forwarded-Proto} !=https\n"
            "RewriteRule ^ https://www.example.com%{REQUEST_URI} [R=301,L]\n")
    fix = "use %{HTTP:Header-Name} for request headers and %{ENV:NAME} for variables"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            for d in scope.named("rewritecond", "rewriterule"):
                seen: set[str] = set()
                for text in expanded_texts(d):
                    for ref in scan(text):
                        if ref.kind != "var" or is_known_variable(ref.name):
                            continue
                        if ref.name in seen or "%{" in ref.name:
                            continue
                        seen.add(ref.name)
                        yield self.finding(
                            d, f"%{{{ref.name}}} is not a mod_rewrite variable: it expands "
                               f"to an empty string (did you mean {suggestion(ref.name)}?)")
