"""One pass of a ruleset: ``apply_rewrite_list``, ``apply_rewrite_rule`` and
``apply_rewrite_cond`` of mod_rewrite.c, with the URL helpers they call (``splitout_queryargs``,
``fully_qualify_uri``, ``reduce_uri``, cookies, environment)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from datetime import datetime, timedelta
from fnmatch import fnmatchcase

from confmig.model import limits
from confmig.model.rewrite.expand import (
    compile_template,
    compile_value,
    expand,
    expand_tracking,
    lone_header,
)
from confmig.model.rewrite.outcome import CondStep, Step
from confmig.model.rewrite.regex import Captures, to_bytes
from confmig.model.rewrite.request import RewriteRequest
from confmig.model.rewrite.rules import Condition, RewriteRule
from confmig.model.rewrite.state import EvalState
from confmig.model.rewrite.uri import (
    atoi,
    casecmp,
    compare_lexicography,
    is_absolute_uri,
)
from confmig.model.rewrite.variables import header_value, lookup_variable
from confmig.model.urlpath import url_base

# rule_return_type
_NOMATCH, _MATCH, _NOSUB, _STATUS_SET = 0, 1, 2, 3
# apply_rewrite_list results
ACTION_NONE, ACTION_NORMAL, ACTION_NOESCAPE, ACTION_STATUS, ACTION_STATUS_SET = (
    0, 1, 2, 4, 8)


class PassResult:
    """Result of one ``apply_rewrite_list``."""

    __slots__ = ("end", "lastsub", "status", "value")

    def __init__(self) -> None:
        self.value = ACTION_NONE
        self.lastsub: RewriteRule | None = None
        self.status: int | None = None  # r->status as the rules left it
        self.end = False


# -- conditions ----------------------------------------------------------------------------

# A condition's checker: called with the condition and the state (``c.check(c, st)``), so
# that one function serves every condition it fits (it reads the condition's regex, its test
# string's header name...), and a rule's conditions' one (``rule.conditions_check(conds,
# st)``): a module function, never a closure of its own.
CondCheck = Callable[[Condition, EvalState], bool]
ConditionsCheck = Callable[[Sequence[Condition], EvalState], bool]


# The condition checkers made so far, by what they are made of (:func:`_checker`): equal
# conditions share one function (a 1 MB file of 1,199 copies of three templates kept a closure
# per condition and per rule, ~0.9 MB at SEC002's requests, issue 10).  Bounded, the least
# recently used dropped first: a process that has linted many files still shares for the next
# one.
_SHARED_CHECKS: OrderedDict[tuple[str, str, str, bool, bool], CondCheck] = OrderedDict()
_MAX_SHARED_CHECKS = 1024


def _shared(table: OrderedDict, key: Hashable) -> CondCheck | None:
    """The function ``table`` keeps for ``key``, now the most recently used; None if none."""
    check = table.get(key)
    if check is not None:
        table.move_to_end(key)
    return check


def _share(table: OrderedDict, key: Hashable, check: CondCheck) -> None:
    """Keep ``check`` for ``key`` in ``table``, dropping the least recently used past
    :data:`_MAX_SHARED_CHECKS`."""
    table[key] = check
    if len(table) > _MAX_SHARED_CHECKS:
        table.popitem(last=False)


def _check_key(c: Condition) -> tuple[str, str, str, bool, bool]:
    """What a condition's checker is made of (:func:`_checker`): a regex condition's reads
    the pattern (compiled with ``[NC]``) from the condition, so its test string and ``!``."""
    kind = c.kind
    if kind == "regex":
        return c.test, kind, "", c.negate, False
    return c.test, kind, c.pattern, c.negate, c.nocase


def _checker(c: Condition) -> CondCheck:
    """``apply_rewrite_cond`` as one function of the condition and the state (no trace), chosen
    once per condition: the test string's expansion and the comparison chosen up front; one
    function for the conditions with the same test, kind, pattern (but a regex's), ``!`` and
    ``[NC]``.  A regex condition whose test string is one ``%{HTTP:NAME}`` gets
    :func:`_header_holds` (:func:`_header_fails`), which reads the name from the condition: a
    1 MB chain of 24,000 distinct ``RewriteCond %{HTTP:X-N} ^vN$ [OR]`` kept a checker and a
    header resolver, their bound methods and the name's lower case per condition that
    SEC002's requests reached, ~340 bytes (issue 10).  Kinds without a fast form go through
    :func:`_apply_cond`'s generic code."""
    if c.kind == "regex" and lone_header(c.test) is not None:
        return _header_fails if c.negate else _header_holds
    key = _check_key(c)
    check = _shared(_SHARED_CHECKS, key)
    if check is not None:
        return check
    check = _fast_checker(c)
    if check is None:
        return _apply_cond
    _share(_SHARED_CHECKS, key, check)
    return check


def _header_holds(c: Condition, st: EvalState) -> bool:
    """A regex condition on ``%{HTTP:NAME}`` (the name read from its test string on each
    evaluation: nothing kept per condition)."""
    captures = c.search(header_value(c.test[7:-1], st))
    if captures is None:
        return False
    st.br_cond = captures
    return True


def _header_fails(c: Condition, st: EvalState) -> bool:
    """``!`` of :func:`_header_holds`."""
    return c.search(header_value(c.test[7:-1], st)) is None


class _RegexCheck:
    """A regex condition's checker (its bound :meth:`holds`, or :meth:`fails` for ``!``): the
    condition's pattern searched in the test string's value; one for the conditions of the
    same test string."""

    __slots__ = ("value",)

    def __init__(self, value: Callable[[EvalState], str]) -> None:
        self.value = value

    def holds(self, c: Condition, st: EvalState) -> bool:
        captures = c.search(self.value(st))
        if captures is None:
            return False
        st.br_cond = captures
        return True

    def fails(self, c: Condition, st: EvalState) -> bool:
        return c.search(self.value(st)) is None


def _fast_checker(c: Condition) -> CondCheck | None:
    """:func:`_checker`'s function of the condition's test, kind, pattern, ``!`` and
    ``[NC]`` (a regex condition's reads its regex from the condition); None for the kinds
    that need the condition itself."""
    kind, negate, pattern = c.kind, c.negate, c.pattern
    value = compile_value(c.test)
    if kind == "regex":
        check = _RegexCheck(value)
        return check.fails if negate else check.holds
    if kind == "=" and not c.nocase:
        if c.test == "%{HTTPS}":  # the usual "=on"/"!=on": both answers known up front
            on, off = (pattern == "on") != negate, (pattern == "off") != negate
            return lambda c, st: on if st.request.https else off
        return lambda c, st: (value(st) == pattern) != negate
    if c.test in ("%{REQUEST_FILENAME}", "%{SCRIPT_FILENAME}"):  # the usual test string
        if kind == "-f":
            return lambda c, st: st.request.fs.is_file(st.filename) != negate
        if kind == "-d":
            return lambda c, st: st.request.fs.is_dir(st.filename) != negate
    if kind == "-f":
        return lambda c, st: st.request.fs.is_file(value(st)) != negate
    if kind == "-d":
        return lambda c, st: st.request.fs.is_dir(value(st)) != negate
    return None


def _expr_cond(c: Condition, st: EvalState) -> tuple[bool, Captures | None, str]:
    """``CONDPAT_AP_EXPR``: ``ap_expr_exec_re`` on the request as mod_rewrite sees it; an
    evaluation error is false (mod_rewrite logs it)."""
    from confmig.model.expr import ExprEvalError, ExprUnsupported
    from confmig.model.expr.evaluate import Evaluation

    assert c.expr is not None
    now = st.request.now.timestamp() if st.request.now is not None else None
    run = Evaluation(expr_lookup(st), now, subrequest=_expr_subrequest(st))
    try:
        result = run.cond(c.expr.tree)
        if run.vary and not c.novary:
            # ap_expr_exec_re merges the headers the expression read into Vary at once,
            # whatever the result ([NV]: AP_EXPR_FLAG_DONT_VARY)
            if not st.expr_vary:
                st.expr_vary = []
            st.expr_vary.extend(run.vary)
        return result, run.source, ""
    except ExprUnsupported as exc:
        st.note_unsupported(f"RewriteCond expr {c.pattern!r}: cannot evaluate {exc} (taken as "
                            "false)")
        return False, None, "not evaluated"
    except ExprEvalError as exc:
        return False, None, f"evaluation failed: {exc}"


# ap_expr variables whose value depends on the connection or the binary, not on the config.
_EXPR_UNKNOWN = frozenset({"CONN_LOG_ID", "REQUEST_LOG_ID", "REMOTE_PORT", "SERVER_SOFTWARE",
                           "LAST_MODIFIED"})


def _expr_subrequest(st: EvalState) -> Callable[[str, str], bool] | None:
    """``-F``/``-U``/``-A`` of a ``RewriteCond expr`` through the engine's look-ahead (as
    ``op_file_subr``/``op_url_subr``: a file below 300 that exists, a URL below 400)."""
    from confmig.model.expr import ExprUnsupported

    look = st.request.lookahead
    if look is None:
        return None

    def run(op: str, arg: str) -> bool:
        answer = look.status("file" if op == "F" else "uri", arg)
        if answer is None:
            raise ExprUnsupported(f"-{op} (a sub-request's answer)")
        status, filename = answer
        if op != "F":
            return status < 400
        fs = st.request.fs
        return status < 300 and filename is not None and (fs.is_file(filename)
                                                          or fs.is_dir(filename))
    return run


def expr_lookup(st: EvalState) -> Callable[[str], str | None]:
    """The ``%{NAME}`` and table lookups of an ``ap_expr`` evaluated inside mod_rewrite."""
    def lookup(name: str) -> str | None:
        table, sep, key = name.partition(":")
        if sep:
            upper = table.upper()
            if upper == "HTTP":  # (the expression's own Vary: see _expr_cond)
                return st.request.headers.get(key) or ""
            if upper == "ENV":
                return st.env.get(key, "")
            return "" if upper in ("RESP", "NOTE") else None
        if name in _EXPR_UNKNOWN:
            return None
        return lookup_variable(name, st)
    return lookup


def _template(c: Condition) -> Callable[..., str]:
    """The condition's test string expansion, for :func:`_apply_cond` (the traced code and the
    kinds without a fast checker): from the bounded cache of templates on each evaluation,
    not kept by the condition (a condition made it when parsed: a lint of a 1 MB chain of
    24,000 distinct conditions kept one per condition, with its tokens and resolver, though
    none was evaluated: 41.6x the file without SEC002; then made on the first evaluation and
    kept, in a slot of every condition; issue 10)."""
    return compile_template(c.test)


def _apply_cond(c: Condition, st: EvalState) -> bool:
    flags = c.flags  # (read once: the condition's attributes of the same names read it)
    kind = flags.kind
    detail = ""
    if kind == "regex":  # the common case first
        test = _template(c)(st, None)
        captures = c.search(test)
        rc = captures is not None
        if rc and not flags.negate:
            st.br_cond = captures
    elif kind == "expr":
        test = c.pattern
        rc, source, detail = _expr_cond(c, st)
        if rc and not flags.negate:  # %N now refer to the expression's last regex match
            st.br_cond = source
    else:
        test = _template(c)(st, None)
        fs = st.request.fs
        if kind == "-f":
            rc = fs.is_file(test)
        elif kind == "-d":
            rc = fs.is_dir(test)
        elif kind == "-s":
            size = fs.size(test) if fs.is_file(test) else None
            rc = bool(size)
        elif kind == "-l":
            rc = fs.is_symlink(test)
        elif kind == "-x":
            probe = getattr(fs, "is_executable", None)
            if probe is None:
                st.note_unsupported("-x: the filesystem callback cannot tell executability")
                rc = False
            else:
                rc = bool(probe(test))
        elif kind in ("-U", "-F"):
            rc = _lookahead_cond(kind, test, st)
        elif kind in ("<", "<=", ">", ">="):
            pattern = c.pattern
            cmp = casecmp(test, pattern) if flags.nocase else compare_lexicography(test, pattern)
            rc = {"<": cmp < 0, "<=": cmp <= 0, ">": cmp > 0, ">=": cmp >= 0}[kind]
        elif kind == "=":
            pattern = c.pattern
            rc = casecmp(test, pattern) == 0 if flags.nocase else test == pattern
        else:
            a, b = atoi(test), atoi(c.pattern)
            rc = {"-lt": a < b, "-le": a <= b, "-eq": a == b, "-gt": a > b, "-ge": a >= b}[kind]
    if flags.negate:
        rc = not rc
    if st.trace:
        st.steps[-1].conditions.append(CondStep(c, test, rc, detail))
    return rc


def _lookahead_cond(kind: str, test: str, st: EvalState) -> bool:
    req = st.request
    if not test or req.is_subrequest:
        return False
    look = req.lookahead
    answer = look.status("uri" if kind == "-U" else "file", test) if look is not None else None
    if answer is None:
        st.note_unsupported(f"RewriteCond {kind} on {test!r} needs a sub-request (not modelled)")
        return False
    status, filename = answer
    if kind == "-U":
        return status < 400
    return status < 300 and filename is not None and (
        req.fs.is_file(filename) or req.fs.is_dir(filename))


# -- one rule ------------------------------------------------------------------------------

def _conditions_hold(conds: Sequence[Condition], st: EvalState) -> bool:
    """The conditions of a matched rule, with ``[OR]`` chains and Vary bookkeeping."""
    trace = st.trace
    n = len(conds)
    i = 0
    while i < n:
        c = conds[i]
        if trace:
            rc = _apply_cond(c, st)
        else:
            check = c.check
            if check is None:
                check = c.check = _checker(c)
            rc = check(c, st)
        flags = c.flags
        if flags.novary and st.vary_this:
            st.vary_this = []
        if flags.ornext:
            if not rc:
                if st.vary_this:
                    st.vary_this = []
                i += 1
                continue
            while i < n and conds[i].flags.ornext:
                i += 1
        elif not rc:
            if trace:
                st.steps[-1].conds_ok = False
            return False
        if st.vary_this:
            st.vary.extend(st.vary_this)
            st.vary_this = []
        i += 1
    return True


def _conditions_checker(conds: Sequence[Condition]) -> ConditionsCheck:
    """A rule's conditions as one function of them and the state (no trace), chosen once per
    rule: without ``[OR]``, :func:`_every`, :func:`_conditions_hold`'s loop reduced to what
    such a list needs (its conditions' checkers made here).  A module function for every
    rule: a closure per rule (or one per set of checkers, shared) kept its checkers."""
    if not conds:
        return _always
    if any(c.ornext for c in conds):
        return _conditions_hold
    for c in conds:
        if c.check is None:
            c.check = _checker(c)
    return _every


def _every(conds: Sequence[Condition], st: EvalState) -> bool:
    """Conditions without ``[OR]``, whose checkers are made (:func:`_conditions_checker`)."""
    for c in conds:
        if not c.check(c, st):  # type: ignore[misc]
            return False
        if st.vary_this:
            if not c.flags.novary:
                st.vary.extend(st.vary_this)
            st.vary_this = []
    return True


def _always(conds: Sequence[Condition], st: EvalState) -> bool:
    return True


def _substitute(rule: RewriteRule, st: EvalState, result: PassResult) -> int:
    """``apply_rewrite_rule`` once the pattern matched and the conditions held (both tested by
    :func:`apply_list`): the substitution and the flags."""
    trace = st.trace
    flags = rule.flags
    newuri = ""
    if not flags.nosub:
        newuri, unsafe = expand_tracking(rule.substitution, st, rule,
                                         track=not flags.unsafe_allow_3f)
        if trace:
            st.steps[-1].result = newuri
        if unsafe > 0:
            if trace:
                st.steps[-1].note = ("a '?' produced by an expansion (e.g. a decoded %3F) without "
                                     "[UnsafeAllow3F]: 403")
            result.status = 403
            return _STATUS_SET

    if flags.env or flags.cookies:
        done: list[str] = []
        for spec in flags.env:
            value = compile_template(spec)(st, None)  # expand(), one call less
            _set_env(value, st)
            if trace:
                done.append(f"unset env {value[1:]}" if value.startswith("!") else
                            "env {}={!r}".format(*value.partition(":")[::2]))
        for spec in flags.cookies:
            value = expand(spec, st)
            _add_cookie(value, st)
            if trace:
                done.append(f"cookie {value}")
        if trace:
            _note(st, "; ".join(done))

    if flags.nosub:
        if flags.mime_type or flags.handler:
            _force_type_handler(rule, st)
        if flags.status_flag:
            result.status = flags.redirect_code
        return _NOSUB

    prefix_added = False
    perdir = st.perdir
    if not newuri.startswith("/") and not is_absolute_uri(newuri)[0]:
        if perdir is not None:
            newuri = perdir + newuri
            prefix_added = True
        elif not (flags.proxy or flags.redirect):
            newuri = "/" + newuri
            prefix_added = True

    st.filename = newuri
    if perdir is not None and flags.discard_path_info:
        st.path_info = ""
    _splitout_queryargs(rule, st)

    if flags.proxy:
        _fully_qualify(st)
        st.filename = "proxy:" + st.filename
        return _MATCH
    if flags.redirect:
        _fully_qualify(st)
        result.status = flags.redirect_code
        return _MATCH
    if not st.filename.startswith("/"):  # only "scheme://..." can be reduced or redirect
        _reduce_uri(st)
        if is_absolute_uri(st.filename)[0]:
            result.status = flags.redirect_code
            return _MATCH
    if (not (flags.unc or prefix_added) and st.filename.startswith("//")
            and rule.substitution[:2] != "//"):  # merge leading slashes unless written so
        st.filename = "/" + st.filename.lstrip("/")
    if flags.mime_type or flags.handler:
        _force_type_handler(rule, st)
    return _MATCH


def _set_env(spec: str, st: EvalState) -> None:
    """``[E=name:value]`` / ``[E=!name]`` on ``r->subprocess_env`` (see
    RewriteRequest.env_shared), recorded in ``env_changes`` for the outcome."""
    if st.env is st.request.env and not st.request.env_shared:
        st.env = dict(st.env)
    if spec.startswith("!"):
        st.env.pop(spec[1:], None)
        st.env_changes[spec[1:]] = None
        return
    name, _, value = spec.partition(":")
    st.env[name] = value
    st.env_changes[name] = value


def _add_cookie(spec: str, st: EvalState) -> None:
    """``add_cookie``: ``[;]name:value:domain[:lifetime[:path[:secure[:httponly[:samesite]]]]]``,
    once per name and request (``cookie_names``).  The pieces are joined as ``apr_pstrcat``
    does, which stops at the first NULL: no lifetime field ends the cookie after the domain,
    and a secure field that is not "true"/"1"/"secure" also drops the HttpOnly after it (the
    SameSite is appended on its own)."""
    sep = ":"
    if spec.startswith(";"):
        sep, spec = ";", spec[1:]
    parts = [p for p in spec.split(sep) if p]  # apr_strtok skips empty tokens
    if len(parts) < 3:
        return
    var, val, domain = parts[:3]
    names = st.request.cookie_names
    if names is None:
        names = st.cookie_names
        if names is None:
            names = st.cookie_names = set()
    if var in names:
        return
    rest: list[str | None] = [*parts[3:8]]
    expires, path, secure, httponly, samesite = rest + [None] * (5 - len(rest))
    cookie = f"{var}={val}; path={path or '/'}; domain={domain}"
    if expires is not None:
        minutes = atoi(expires)
        if minutes:
            when = (st.request.now or datetime.utcnow()) + timedelta(minutes=minutes)
            cookie += "; expires=" + when.strftime("%a, %d-%b-%Y %H:%M:%S GMT")
        if secure and (secure.lower() in ("true", "secure") or secure == "1"):
            cookie += "; secure"
            if httponly and (httponly.lower() in ("true", "httponly") or httponly == "1"):
                cookie += "; HttpOnly"
    if samesite and samesite != "0" and samesite.lower() != "false":
        cookie += f"; SameSite={samesite}"
    st.cookies = [*st.cookies, cookie]
    names.add(var)


def _force_type_handler(rule: RewriteRule, st: EvalState) -> None:
    flags = rule.flags
    if flags.mime_type:
        value = expand(flags.mime_type, st, rule)
        if value:
            st.mime_type = value.lower()
    if flags.handler:
        value = expand(flags.handler, st, rule)
        if value:
            st.handler = value.lower()


def _splitout_queryargs(rule: RewriteRule, st: EvalState) -> None:
    flags = rule.flags
    if flags.qsnone:
        st.args = None
        return
    fname = st.filename
    skip = 0
    if not fname.startswith("/"):
        skip, sqs = is_absolute_uri(fname)
        if skip and not sqs:
            st.args = None
            return
    if flags.qsdiscard:
        st.args = None
    q = fname.rfind("?", skip) if flags.qslast else fname.find("?", skip)
    if q < 0:
        return
    newq = fname[q + 1:]
    st.filename = fname[:q]
    if flags.qsappend:
        if newq:
            st.args = newq + "&" + (st.args or "")
    else:
        st.args = newq
    if st.args is not None:
        if not st.args:
            st.args = None
        elif st.args.endswith("&"):
            st.args = st.args[:-1]


def default_port(req: RewriteRequest) -> int:
    return 443 if req.https else 80


def _fully_qualify(st: EvalState) -> None:
    req = st.request
    if req.method == "CONNECT" or is_absolute_uri(st.filename)[0]:
        return
    slash = "" if st.filename.startswith("/") else "/"
    st.filename = url_base(req.https, req.host or req.server_name, req.port) + slash + \
        st.filename


def matches_request_vhost(req: RewriteRequest, host: str, port: int) -> bool:
    """``ap_matches_request_vhost``: is ``host:port`` this virtual host?  Note the port must
    equal the one in ``ServerName`` (0 when ServerName has none), so ``http://name/`` is only
    "ourselves" when ServerName says ``name:80``, or via a ``<VirtualHost name:port>`` address."""
    low = host.lower()
    for vhost, vport in req.vhost_addresses:
        if (vport == 0 or vport == port) and vhost.lower() == low:
            return True
    if port != req.server_name_port:
        return False
    if low == req.server_name.lower():
        return True
    return any(fnmatchcase(low, alias.lower()) for alias in req.server_aliases)


def _reduce_uri(st: EvalState) -> None:
    req = st.request
    scheme = req.scheme
    fname = st.filename
    n = len(scheme)
    if not (len(fname) > n + 3 and fname[:n].lower() == scheme and fname[n:n + 3] == "://"):
        return
    rest = fname[n + 3:]
    k = 0
    while k < len(rest) and rest[k] not in "/:":
        k += 1
    host = rest[:k]
    if k < len(rest) and rest[k] == ":":
        after = rest[k + 1:]
        slash = after.find("/")
        port = atoi(after if slash < 0 else after[:slash]) & 0xFFFF
        url = after[slash:] if slash >= 0 else "/"
    elif k < len(rest):
        port, url = default_port(req), rest[k:]
    else:
        port, url = default_port(req), "/"
    if matches_request_vhost(req, host, port):
        st.filename = url
        st.uri_reduced = True


# -- a whole ruleset -----------------------------------------------------------------------

def _subject(st: EvalState) -> str:
    """What a rule's pattern is matched against (``ctx->uri``): ``r->filename`` — in
    per-directory context with PATH_INFO appended and the directory prefix stripped."""
    subject = st.filename
    perdir = st.perdir
    if perdir is not None:
        if st.path_info:
            subject += st.path_info
        if subject.startswith(perdir):
            subject = subject[len(perdir):]
    st.match_uri = subject
    return subject


def apply_list(rules: list[RewriteRule], st: EvalState) -> PassResult:
    result = PassResult()
    req = st.request
    limit = 2 * req.limit_request_line
    subrequest = req.is_subrequest
    trace = st.trace
    n = len(rules)
    rounds = 1
    i = 0
    subject = _subject(st)  # made again only after a rule that matched (and may have changed it)
    while i < n:
        rule = rules[i]
        flags = rule.flags
        if subrequest and (flags.nosubreq or flags.redirect):
            i += 1
            continue
        if st.vary:
            st.vary = []
        # The pattern test of apply_rewrite_rule.
        captures = rule.search(subject)  # the rule is its own Regex (rule.regex)
        if trace:
            _add_step(st, Step(rule, subject, (captures is not None) != flags.negate))
        if (captures is not None) == flags.negate:
            rc = _NOMATCH
        else:
            # The conditions (most rules whose pattern matched stop here), then the rest of
            # apply_rewrite_rule.
            if st.vary_this:
                st.vary_this = []
            st.br_cond = None
            st.br_rule = None if flags.negate else captures
            if trace:
                holds = _conditions_hold(rule.conditions, st)
            else:
                conds = rule.conditions
                check = rule.conditions_check
                if check is None:
                    check = rule.conditions_check = _conditions_checker(conds)
                holds = check(conds, st)
            rc = _substitute(rule, st, result) if holds else _NOMATCH
        if rc == _NOMATCH:
            if flags.chain:
                while i < n and rules[i].chain:
                    if trace and i + 1 < n:
                        _add_step(st, Step(rules[i + 1], "", False,
                                             note="skipped: chained to a rule that did not "
                                                  "match"))
                    i += 1
            i += 1
            continue
        if rc != _NOSUB:  # a substitution ("-" leaves the filename alone)
            subject = _subject(st)
        if not flags.nosub:
            result.lastsub = rule
        if len(st.filename) > limit // 4 and len(to_bytes(st.filename)) > limit:
            # strlen(r->filename) > 2 * LimitRequestLine: bytes, not characters.
            result.status = 500
            result.value = ACTION_STATUS
            message = (f"rewritten URL longer than {limit} bytes (2 × LimitRequestLine) "
                       "→ 500")
            _note(st, message)
            limits.record(f"mod_rewrite: {message}")
            return result
        if st.vary:
            _merge_vary(st)
        if rc == _STATUS_SET:
            result.value = ACTION_STATUS_SET
            return result
        if flags.status_flag:
            result.value = ACTION_STATUS
            return result
        if rc != _NOSUB:
            result.value = ACTION_NOESCAPE if flags.noescape else ACTION_NORMAL
        if flags.passthrough:
            st.filename = "passthrough:" + st.filename
            result.value = ACTION_NORMAL
            _note(st, "[PT]: passed on to the next URL-to-filename translators")
            break
        if flags.end:
            result.end = True
            if st.trace:
                _note(st, "[END]: no more rewriting for this request")
            break
        if flags.proxy or flags.last:
            if st.trace:
                _note(st, "[L]: end of this pass" if flags.last else "[P]: proxy")
            break
        if flags.next:
            rounds += 1
            if rounds >= flags.max_rounds:
                result.status = 500
                result.value = ACTION_STATUS
                message = (f"exceeded maximum number of rounds ({flags.max_rounds}) via [N] "
                           "→ 500")
                _note(st, message)
                limits.record(f"mod_rewrite: {message}")
                return result
            if st.trace:
                _note(st, f"[N]: starting round {rounds}")
            i = 0
            continue
        if flags.skip > 0:
            _note(st, f"[S={flags.skip}]: skipping {flags.skip} rule(s)")
            i = min(i + flags.skip, n)
        i += 1
    return result


# The explanation of one pass keeps the first TRACE_HEAD rule steps and the last TRACE_TAIL;
# one marker in between counts the others (an [N] loop may try hundreds of thousands).
TRACE_HEAD = 40
TRACE_TAIL = 40


def _add_step(st: EvalState, step: Step) -> None:
    steps = st.steps
    assert isinstance(steps, list)
    if len(steps) >= TRACE_HEAD + TRACE_TAIL:
        marker = steps[TRACE_HEAD]
        if marker.omitted:
            del steps[TRACE_HEAD + 1]
            marker.omitted += 1
        else:
            steps[TRACE_HEAD] = Step(marker.rule, "", False, omitted=1)
    steps.append(step)


def _note(st: EvalState, text: str) -> None:
    if st.trace and st.steps:
        step = st.steps[-1]
        step.note = f"{step.note}; {text}" if step.note else text


def _merge_vary(st: EvalState) -> None:
    seen = st.request_vary
    if seen is None:
        seen = st.request_vary = {}
    for name in st.vary:
        if name.lower() not in seen:
            seen[name.lower()] = name
