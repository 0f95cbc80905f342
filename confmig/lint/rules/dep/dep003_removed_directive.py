"""DEP003: directives Apache 2.4 removed, renamed or ignores."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Section


@dataclass(frozen=True)
class Removal:
    effect: str          # what 2.4 does with it
    replacement: str     # what to write instead
    severity: Severity


_REJECTED = "Apache 2.4 rejects it ('Invalid command')"
_AUTHZ = Removal(_REJECTED, "delete it: 2.4 combines authorization with <RequireAny>/"
                 "<RequireAll>", Severity.error)
_MUTEX = Removal(_REJECTED, "Mutex (e.g. 'Mutex file:${APACHE_LOCK_DIR} default')",
                 Severity.error)

REMOVED: dict[str, Removal] = {
    "namevirtualhost": Removal("2.4 ignores it (AH00548 'NameVirtualHost has no effect')",
                               "delete it: every <VirtualHost> is name-based in 2.4",
                               Severity.warning),
    "defaulttype": Removal("2.4 ignores it (AH00117 'Ignoring deprecated use of "
                           "DefaultType')", "ForceType, or AddType for the extensions",
                           Severity.warning),
    "lockfile": _MUTEX, "acceptmutex": _MUTEX, "sslmutex": _MUTEX,
    "rewritelock": Removal(_REJECTED, "Mutex ... rewrite-map", Severity.error),
    "rewritelog": Removal(_REJECTED, "LogLevel rewrite:trace3 (mod_rewrite logs to the "
                          "ErrorLog)", Severity.error),
    "rewriteloglevel": Removal(_REJECTED, "LogLevel rewrite:traceN", Severity.error),
    "authzldapauthoritative": _AUTHZ, "authzdbmauthoritative": _AUTHZ,
    "authzgroupfileauthoritative": _AUTHZ, "authzuserauthoritative": _AUTHZ,
    "authzownerauthoritative": _AUTHZ, "authzdefaultauthoritative": _AUTHZ,
    "authzdbdauthoritative": _AUTHZ,
    "port": Removal("2.4 rejects it ('Port was replaced with Listen in Apache 2.0')", "Listen",
                    Severity.error),
    "bindaddress": Removal(_REJECTED, "Listen", Severity.error),
    "servertype": Removal(_REJECTED, "delete it (httpd always runs standalone)",
                          Severity.error),
    "resourceconfig": Removal(_REJECTED, "Include", Severity.error),
    "accessconfig": Removal(_REJECTED, "Include", Severity.error),
    "clearmodulelist": Removal(_REJECTED, "delete it; LoadModule decides what is loaded",
                               Severity.error),
    "addmodule": Removal(_REJECTED, "LoadModule", Severity.error),
    "maxclients": Removal("2.4 still accepts it as an alias (AH00521 deprecated)",
                          "MaxRequestWorkers", Severity.info),
    "maxrequestsperchild": Removal("2.4 still accepts it as an alias (AH00545 deprecated)",
                                   "MaxConnectionsPerChild", Severity.info),
}


def applies(lname: str, args: list[str]) -> bool:
    """DefaultType None/Off is the one 2.4 spelling that is not deprecated."""
    return not (lname == "defaulttype" and args and args[0].lower() in ("none", "off"))


@register
class RemovedDirective(Rule):
    code = "DEP003"
    name = "removed-apache22-directive"
    summary = "directive from Apache 2.2 that 2.4 removed, renamed or ignores"
    rationale = (
        "Some 2.2 directives are gone in 2.4: LockFile/AcceptMutex/SSLMutex became Mutex, "
        "RewriteLog became LogLevel rewrite:traceN, the Authz*Authoritative switches "
        "disappeared with the new authorization model. httpd refuses to start on them (a "
        ".htaccess answers 500 — verified on Apache 2.4 with AuthzLDAPAuthoritative). Others "
        "are still accepted but do nothing: NameVirtualHost (AH00548), DefaultType other "
        "than None (AH00117; verified on Apache 2.4: 'DefaultType text/plain' leaves files "
        "without a known extension with no text/plain type). MaxClients and "
        "MaxRequestsPerChild still work under their new names."
    )
    bad = "DefaultType text/html\nAuthzLDAPAuthoritative off\n"
    good = "AddType text/html .shtml\n"
    severity = Severity.error
    fix = "use the 2.4 replacement named in the message"

    directives = frozenset({*REMOVED})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        removal = REMOVED[d.lname]
        if not applies(d.lname, d.args):
            return
        yield self.finding(d, f"{d.name} is Apache 2.2 syntax: {removal.effect}",
                           hint=f"use {removal.replacement}" if not removal.replacement
                           .startswith("delete") else removal.replacement,
                           severity=removal.severity)
