"""SYN007: a directive of a loaded module confmig does not model (known to exist, not modelled)."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Section


@register
class NotModelledDirective(Rule):
    code = "SYN007"
    name = "directive-not-modelled"
    summary = "A directive of a loaded third-party or unknown module: known to exist, not modelled"
    rationale = (
        "Apache runs modules confmig has few or no facts for: mod_wsgi, mod_php, ModSecurity, "
        "PageSpeed, vendor modules. For the common ones confmig knows where each directive "
        "may appear and which AllowOverride class admits it in .htaccess (mod_wsgi's checked "
        "against Apache), so the context rules still apply; what the directive does to a "
        "request (WSGIScriptAlias answering /app, php_value changing PHP's settings) is not "
        "modelled: explain lists it under 'not modelled', convert and verify carry it as "
        "written. A name no known module defines, while a loaded module confmig has no facts "
        "for could define it, is reported here too instead of as 'Invalid command' (SYN003), "
        "unless it is spelt like a known directive. Reported once per directive name and file."
    )
    bad = ("LoadModule wsgi_module /usr/lib/apache2/modules/mod_wsgi.so\n"
           "WSGIDaemonProcess app\n"
           "WSGIScriptAlias /app /srv/app/app.wsgi process-group=app\n")
    good = ("LoadModule proxy_module /usr/lib/apache2/modules/mod_proxy.so\n"
            "LoadModule proxy_http_module /usr/lib/apache2/modules/mod_proxy_http.so\n"
            "ProxyPass /app http://127.0.0.1:8000/\n")
    example_kind = "server"
    severity = Severity.info
    fix = "check what it does by hand (or with confmig verify on real Apache)"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if not ctx.read_by_apache:
            return
        seen: dict[str, list[tuple[Directive | Section, str]]] = {}
        for node in ctx.walked_nodes():
            if not isinstance(node, Directive | Section):
                continue
            label = f"<{node.name}>" if isinstance(node, Section) else node.name
            reason = ctx.not_modelled(label)
            if reason is None or (ctx.info(node) is None and _typo(ctx, node.name)):
                continue
            seen.setdefault(label.lower(), []).append((node, reason))
        for found in seen.values():
            node, reason = found[0]
            more = len(found) - 1
            also = f"; {more} more line(s) with it in this file not reported" if more else ""
            known = ctx.info(node) is not None
            yield self.finding(
                node, f"{reason}{also}",
                severity=Severity.info if known else Severity.warning,
                hint=None if known else "if no loaded module defines it, Apache answers "
                                        "'Invalid command' (500 in .htaccess)")


def _typo(file: FileContext, name: str) -> bool:
    """Spelt like a known directive: SYN003 says "did you mean" instead."""
    return bool(file.registry.suggest(name))
