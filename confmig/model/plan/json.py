"""The site plan as JSON (``confmig convert --to plan``): what other tools would consume.

Rules are given as written (``RewriteRule`` text with source), with their flags decoded;
regexes are Apache's PCRE, unchanged."""

from __future__ import annotations

from typing import Any

from confmig.model.plan.types import (
    Access,
    FilesScope,
    RewritePlan,
    Scope,
    Settings,
    SitePlan,
    Source,
)
from confmig.model.rewrite.rules import RewriteRule

_FLAGS = ("last", "end", "chain", "nocase", "noescape", "qsappend", "qsdiscard", "qslast",
          "redirect", "status_flag", "passthrough", "proxy", "next", "nosub")


def plan_json(plan: SitePlan) -> dict[str, Any]:
    return {
        "document_root": plan.document_root,
        "server_name": plan.server_name,
        "server_aliases": list(plan.server_aliases),
        "scopes": [_scope(s) for s in plan.scopes],
        "links": [{"path": k.path, "target_missing": k.target_missing,
                   "same_owner": k.same_owner} for k in plan.links],
        "notes": [{"source": _src(n.source), "directive": n.directive, "reason": n.reason,
                   "scope": n.scope, "changes_behaviour": n.changes_behaviour,
                   "handler": n.handler}
                  for n in plan.notes],
    }


def _src(source: Source | None) -> str | None:
    return str(source) if source is not None else None


def _scope(scope: Scope) -> dict[str, Any]:
    return {"directory": scope.directory, "url": scope.url,
            "sources": [_src(s) for s in scope.sources],
            "settings": _settings(scope.settings),
            "files": [_files(f) for f in scope.files]}


def _files(files: FilesScope) -> dict[str, Any]:
    return {"section": files.label, "source": _src(files.source),
            "basename_regex": files.basename_regex, "only_access": files.only_access,
            "sets_handler": files.sets_handler,
            "matches_directory": files.matches_directory,
            "settings": _settings(files.settings)}


def _access(access: Access) -> dict[str, Any]:
    out = {"decision": access.decision, "status": access.status,
           "source": _src(access.source), "why": access.why}
    if access.login is not None:  # the users, never their hashes
        login = access.login
        out["login"] = {"realm": login.realm, "user_file": login.user_file,
                        "users": list(login.users) if login.users is not None else None,
                        "groups": list(login.groups),
                        "schemes": sorted({e.scheme for e in login.entries})}
    return out


def _rewrite(rw: RewritePlan | None) -> dict[str, Any] | None:
    if rw is None:
        return None
    return {"directory": rw.directory, "strip": rw.strip, "base": rw.base,
            "relative_to": rw.relative_to, "options": sorted(rw.options),
            "rules": [_rule(r) for r in rw.rules]}


def _rule(rule: RewriteRule) -> dict[str, Any]:
    d = rule.directive
    return {"source": f"{d.file}:{d.line}" if d is not None else None,
            "text": " ".join(str(rule).split()), "pattern": rule.pattern,
            "negate": rule.negate, "substitution": rule.substitution,
            "redirect_code": rule.redirect_code,
            "flags": [f for f in _FLAGS if getattr(rule, f)],
            "conditions": [{"test": c.test, "pattern": c.raw_pattern, "kind": c.kind,
                            "negate": c.negate, "nocase": c.nocase, "ornext": c.ornext}
                           for c in rule.conditions]}


def _settings(s: Settings) -> dict[str, Any]:
    return {
        "access": _access(s.access), "rewrite": _rewrite(s.rewrite),
        "redirects": [{"regex": r.regex, "pattern": r.pattern, "status": r.status,
                       "target": r.target, "source": _src(r.source)} for r in s.redirects],
        "error_documents": [{"status": c, "target": t, "source": _src(src)}
                            for c, t, src in s.error_documents],
        "index": list(s.index), "indexes": s.indexes, "multiviews": s.multiviews,
        "follow_symlinks": s.follow_symlinks, "symlinks_if_owner_match": s.symlinks_if_owner,
        "directory_slash": s.slash,
        "fallback": s.fallback,
        "headers": [{"action": h.entry.action, "name": h.entry.name, "value": h.entry.value,
                     "always": h.entry.always, "env": h.entry.env, "expr": h.entry.expr,
                     "source": _src(h.source)} for h in s.headers],
        "force_type": s.force_type, "handler": s.handler,
        "default_charset": s.default_charset, "types": dict(s.types),
        "charsets": dict(s.charsets), "charset_types": dict(s.charset_types),
        "handlers": dict(s.handlers),
        "expires": None if s.expires is None else {
            "default": s.expires.default, "by_type": dict(s.expires.by_type)},
    }
