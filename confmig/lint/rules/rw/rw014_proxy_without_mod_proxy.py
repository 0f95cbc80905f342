"""RW014: a [P] rule without mod_proxy (or without the module for the target's scheme)."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register

# Scheme of a proxy target → the mod_proxy sub-module that handles it.
SCHEME_MODULES = {
    "http": "proxy_http", "https": "proxy_http", "ws": "proxy_wstunnel",
    "wss": "proxy_wstunnel", "fcgi": "proxy_fcgi", "ajp": "proxy_ajp", "scgi": "proxy_scgi",
    "uwsgi": "proxy_uwsgi", "balancer": "proxy_balancer", "h2": "proxy_http2",
    "h2c": "proxy_http2", "ftp": "proxy_ftp",
}


def has_module(ctx: FileContext, short: str) -> bool:
    """Whether ``mod_<short>`` is loaded (by its manual name, its source file or its
    identifier)."""
    modules = ctx.modules
    return bool(modules.has_module(f"mod_{short}") or modules.has(f"mod_{short}.c")
                or modules.has(f"{short}_module"))


@register
class ProxyFlagWithoutModProxy(Rule):
    code = "RW014"
    name = "proxy-flag-without-mod-proxy"
    summary = "RewriteRule [P] but mod_proxy is not loaded: every matching request gets 403"
    rationale = (
        "[P] hands the request to mod_proxy. Without mod_proxy loaded, mod_rewrite logs "
        "'attempt to make remote request from mod_rewrite without proxy enabled' and answers "
        "403 Forbidden. With mod_proxy but without the module for the target's scheme "
        "(mod_proxy_http for http://, mod_proxy_fcgi for fcgi://…) it answers 500 with "
        "AH01144 'No protocol handler was valid for the URL'. Both verified on Apache 2.4."
    )
    bad = "RewriteEngine On\nRewriteRule ^api/(.*)$ http://127.0.0.1:8080/$1 [P,L]\n"
    good = "RewriteEngine On\nRewriteRule ^api/(.*)$ /api.php?path=$1 [L,QSA]\n"
    severity = Severity.error
    fix = "load mod_proxy and mod_proxy_http (a2enmod proxy_http), or do not proxy"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            for rule in scope.rewrite.rules:
                if rule.directive is None or not rule.proxy:
                    continue
                if not has_module(ctx, "proxy"):
                    yield self.finding(
                        rule.directive,
                        "RewriteRule [P] but mod_proxy is not loaded: Apache answers 403 for "
                        "every request this rule matches")
                    continue
                scheme = rule.substitution.partition("://")[0].lower()
                needed = SCHEME_MODULES.get(scheme)
                if needed and not has_module(ctx, needed):
                    yield self.finding(
                        rule.directive,
                        f"RewriteRule [P] to {scheme}:// but mod_{needed} is not loaded: Apache "
                        "answers 500 (AH01144, no protocol handler) for these requests")
