"""Access control: mod_access_compat (``Order``/``Allow``/``Deny``, ``check_dir_access``)
and mod_authz_core (``Require`` trees with ``<RequireAll/Any/None>``, ``AuthMerging``), combined
by ``Satisfy``, for an unauthenticated client.  A decision that depends only on the
configuration, the method and the client address is memoised per merged configuration."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from confmig.model.authn import authenticate, groups_of, in_required_group
from confmig.model.merge import AccessDir, AuthnDir, AuthzDir, AuthzNode, ip_matches
from confmig.model.merge.authz import require_expr_text
from confmig.model.remotehost import client_host_name, in_domain, resolves_to_client
from confmig.model.round import Round
from confmig.model.variables import lookup_for
from confmig.syntax.words import split_words

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation

NO_USER_PROVIDERS = frozenset({"user", "valid-user", "group", "file-owner", "file-group",
                               "ldap-user", "ldap-group", "dbd-group"})
# "error" is AUTHZ_GENERAL_ERROR: it ends the evaluation and the request answers 500.
AuthzResult = Literal["granted", "denied", "denied-no-user", "neutral", "error"]


def check_access(ev: Evaluation, rnd: Round, method: str) -> bool:
    """access_checker (mod_access_compat), access_checker_ex/authn/authz (mod_authz_core),
    combined by ``Satisfy``; True when the request is refused.  A decision that depends
    only on the configuration, the method and the client is memoised."""
    config = rnd.config
    if "access" not in config and "authz" not in config and "authn" not in config:
        return False
    key = (id(config), method, ev.request.remote_addr)
    if not ev.trace:
        status = ev.site.access_decisions.get(key)
        if status is not None:
            rnd.status = status
            return bool(status)
    dynamic: list[bool] = []
    status = access_status(ev, rnd, method, dynamic)
    if not dynamic:
        ev.site.access_decisions[key] = status
    rnd.status = status
    return bool(status)


def access_status(ev: Evaluation, rnd: Round, method: str, dynamic: list[bool]) -> int:
    """The status access control gives (0: allowed); *dynamic* gets an entry when the
    decision depends on more than the configuration, the method and the client."""
    access: AccessDir | None = rnd.config.get("access")
    authz: AuthzDir | None = rnd.config.get("authz")
    authn: AuthnDir | None = rnd.config.get("authn")
    satisfy = access.satisfy if access is not None and access.satisfy else "all"
    compat_ok = check_compat(ev, access, rnd, method, dynamic)
    if satisfy == "any" and compat_ok:
        ev.step("access", "Satisfy Any: Order/Allow/Deny allows → granted",
                _last_directive(access))
        return 0
    if satisfy == "all" and not compat_ok:
        ev.step("access", "Order/Allow/Deny denies → 403", _last_directive(access))
        return 403
    auth_type = authn.auth_type if authn is not None else None
    if authz is None or authz.section is None:
        if auth_type is not None:
            ev.step("access", "AuthType configured with no corresponding authorization "
                              "directives → 500")
            return 500
        return 0
    result = apply_authz(ev, authz.section, rnd, method, "and", dynamic)
    ev.step("access", f"authorization: {result}")
    if result == "error":
        return 500
    if result == "granted":
        return 0
    if result == "denied-no-user":
        if auth_type is None:
            ev.step("access", "a Require needs an authenticated user but no AuthType is "
                              "set → 500")
            return 500
        dynamic.append(True)  # the answer now depends on the Authorization header
        login = authenticate(ev, rnd)
        if login.user is not None:  # (r->user is set before the password is checked)
            rnd.user, rnd.auth_type = login.user, auth_type
        if login.status:
            return login.status
        result = apply_authz(ev, authz.section, rnd, method, "and", dynamic, login.user)
        ev.step("access", f"authorization of user {login.user!r}: {result}")
        if result == "error":
            return 500
        if result == "granted":
            return 0
        if result != "denied-no-user" and authz.forbidden_on_fail:
            ev.step("access", "AuthzSendForbiddenOnFailure On → 403")
            return 403
        ev.step("access", "authorization failure for the authenticated user → 401")
        return 401
    ev.step("access", "authorization denied → 403")
    return 403


def check_compat(ev: Evaluation, access: AccessDir | None, rnd: Round, method: str,
                 dynamic: list[bool]) -> bool:
    """``check_dir_access``: Order/Allow/Deny for this client."""
    if access is None:
        return True
    m = "GET" if method == "HEAD" else method

    def found(entries: Sequence[Any]) -> bool:
        for e in entries:
            if e.methods is not None and m not in e.methods:
                continue
            kind = e.kind
            if kind == "all":
                return True
            if kind == "ip":
                if ip_matches(e.value, ev.request.remote_addr):
                    return True
            elif kind in ("env", "nenv"):
                dynamic.append(True)
                if (e.value in rnd.env) == (kind == "env"):
                    return True
            else:
                dynamic.append(True)
                host = host_name_or_note(ev, f"Allow/Deny from {e.value}")
                if host is not None and in_domain(e.value, host):
                    return True
        return False

    if access.order == "allow,deny":
        ok = found(access.allows) and not found(access.denies)
    elif access.order == "deny,allow":
        ok = not found(access.denies) or found(access.allows)
    else:
        ok = found(access.allows) and not found(access.denies)
    if ev.trace:
        ev.step("access", f"Order {access.order}: {'allowed' if ok else 'denied'}",
                _last_directive(access))
    return ok


def apply_authz(ev: Evaluation, node: AuthzNode, rnd: Round, method: str, parent_op: str,
                dynamic: list[bool], user: str | None = None) -> AuthzResult:
    """``apply_authz_sections``: a group or a Require line, with its method limits; *user* is
    the authenticated user (None before authentication)."""
    if node.methods is not None and method not in node.methods and (
            method != "HEAD" or "GET" not in node.methods):
        return "granted" if parent_op == "and" else "neutral"
    result: AuthzResult
    if node.provider is not None:
        result = provider(ev, node, rnd, method, dynamic, user)
        if ev.trace:
            ev.step("access", f"{node.describe()} → {result}", node.directive)
    else:
        result = "neutral"
        for child in node.children:
            r = apply_authz(ev, child, rnd, method, node.op, dynamic, user)
            if r == "error":
                return r
            if r == "neutral":
                continue
            if node.op == "and":
                if r == "denied":
                    result = r
                    break
                if (r == "denied-no-user" and result != "denied") or result == "neutral":
                    result = r
            else:
                if r == "granted":
                    result = r
                    break
                if (r == "denied-no-user" and result == "denied") or result == "neutral":
                    result = r
    if node.negate:
        if result == "granted":
            result = "denied"
        elif result in ("denied", "denied-no-user"):
            result = "neutral"
    return result


def provider(ev: Evaluation, node: AuthzNode, rnd: Round, method: str,
             dynamic: list[bool], user: str | None = None) -> AuthzResult:
    """The authz providers; the user-based ones answer "denied-no-user" until *user* is
    known."""
    name, args = node.provider, node.args.split()
    req = ev.request
    if name == "all":
        return "granted" if args and args[0].lower() == "granted" else "denied"
    if name == "ip":
        return "granted" if any(ip_matches(a, req.remote_addr) for a in args) else "denied"
    if name == "local":
        local = ip_matches("127.0.0.0/8", req.remote_addr) or req.remote_addr in (
            "::1", req.local_addr)
        return "granted" if local else "denied"
    if name == "method":  # HEAD is M_GET to Apache
        wanted = "GET" if method == "HEAD" else method
        return "granted" if wanted in {a.upper() for a in args} else "denied"
    if name == "host":
        dynamic.append(True)
        host = host_name_or_note(ev, f"Require host {node.args}")
        if host is None:
            return "denied"
        return "granted" if any(in_domain(w, host) for w in split_words(node.args)) \
            else "denied"
    if name == "forward-dns":
        dynamic.append(True)
        if not ev.request.dns_lookups:
            ev.note(f"Require forward-dns {node.args}: DNS lookups are off (taken as no match)")
            return "denied"
        return "granted" if any(resolves_to_client(ev, w) for w in split_words(node.args)) \
            else "denied"
    if name in NO_USER_PROVIDERS:
        if user is None:
            return "denied-no-user"
        return user_provider(ev, name, node.args, rnd, user)
    dynamic.append(True)
    if name == "env":
        return "granted" if any(a in rnd.env for a in args) else "denied"
    if name == "expr":
        # (the expression model is imported where an expression is met: issue 17)
        from confmig.model.expr import ExprEvalError, ExprUnsupported, parse_cached

        try:
            ok = parse_cached(require_expr_text(node.args)).evaluate(
                lookup_for(ev, rnd), ev.now, rnd.vary, ev.expr_subrequest(rnd))
        except ExprEvalError as exc:
            ev.step("access", f"Require expr: Error evaluating expression: {exc}")
            return "error"
        except ExprUnsupported as exc:
            ev.note(f"Require expr: cannot evaluate {exc}")
            return "denied"
        return "granted" if ok else "denied"
    ev.note(f"Require {name}: not modelled (taken as denied)")
    return "denied"


def user_provider(ev: Evaluation, name: str, args: str, rnd: Round, user: str) -> AuthzResult:
    """``Require user``/``valid-user``/``group``/``file-owner``/``file-group`` for an
    authenticated *user* (mod_authz_user, mod_authz_groupfile, mod_authz_owner)."""
    if "%{" in args and name in ("user", "group"):
        # user_parse_config/group_parse_config: the line is a string expression, its
        # result split into words; an evaluation error denies
        from confmig.model.expr import Evaluation as ExprRun
        from confmig.model.expr import (
            ExprError,
            ExprEvalError,
            ExprUnsupported,
            parse_string_cached,
        )

        try:
            word = parse_string_cached(args)
        except ExprError as exc:
            ev.step("access", f"Require {name}: Cannot parse expression in require line: "
                              f"{exc} → 500")
            return "error"
        run = ExprRun(lookup_for(ev, rnd), ev.now, subrequest=ev.expr_subrequest(rnd))
        try:
            args = run.word(word)
        except ExprEvalError:
            return "denied"
        except ExprUnsupported as exc:
            ev.note(f"Require {name}: cannot evaluate {exc} (taken as denied)")
            return "denied"
    if name == "valid-user":
        return "granted"
    if name == "user":
        return "granted" if user in split_words(args) else "denied"
    if name == "group":
        groups = groups_of(ev, rnd, user)
        if not groups:
            return "denied"
        return "granted" if in_required_group(groups, split_words(args)) else "denied"
    if name in ("file-owner", "file-group"):
        return file_owner(ev, name, rnd, user)
    ev.note(f"Require {name}: not modelled (taken as denied)")
    return "denied"


def file_owner(ev: Evaluation, name: str, rnd: Round, user: str) -> AuthzResult:
    """mod_authz_owner: the file's owner (``file-owner``) or its group, which must then be
    one of the user's groups from AuthGroupFile (``file-group``)."""
    import grp
    import pwd

    filename = rnd.filename
    try:
        st = os.stat(filename) if filename else None
    except OSError:
        st = None
    if st is None:
        return "denied"
    if name == "file-owner":
        try:
            owner = pwd.getpwuid(st.st_uid).pw_name
        except KeyError:
            return "denied"
        return "granted" if owner == user else "denied"
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        return "denied"
    groups = groups_of(ev, rnd, user)
    return "granted" if groups and group in groups else "denied"


def host_name_or_note(ev: Evaluation, what: str) -> str | None:
    """The client's double-reverse host name; with lookups off, a note that *what* was taken
    as no match."""
    host = client_host_name(ev)
    if host is None and not ev.request.dns_lookups:
        ev.note(f"{what}: DNS lookups are off (taken as no match)")
    elif ev.trace:
        ev.step("access", f"client {ev.request.remote_addr}: double-reverse host name "
                          f"{host or '(none)'}")
    return host


def _last_directive(access: AccessDir | None) -> Any:
    return access.directives[-1] if access is not None and access.directives else None
