"""mod_setenvif (``SetEnvIf``/``BrowserMatch`` against request attributes, headers or earlier
variables) and mod_env (``SetEnv``/``UnsetEnv``), each in the phase Apache runs it:

* the server-level SetEnvIf entries (written outside any section) at ``post_read_request``,
  before the URL is decoded or translated — so the server-context rewrite rules see them, and
  ``Request_URI`` is the URL-path as sent;
* the per-directory entries (``<Directory>``, ``<Location>``, ``<Files>``, .htaccess) at
  ``header_parser``, after the directory walk;
* neither in a sub-request (DirectoryIndex and FallbackResource candidates, MultiViews
  variants, mod_rewrite's ``-U``/``-F``/``%{LA-U:…}``): it runs no post_read_request and
  ``ap_process_request_internal`` runs ``header_parser`` "only on the main request"; it starts
  with a copy of its parent's ``r->subprocess_env`` instead (``ap_set_sub_req_protocol``), so
  it sees what SetEnvIf, ``[E]`` and SetEnv set in the parent before it was made;
* SetEnv/UnsetEnv in mod_env's fixup, after mod_rewrite's and mod_alias's: neither
  ``%{ENV:…}`` of a per-directory rule nor ``Require env`` sees them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from confmig.model.mapping import compile_config_regex, substitute
from confmig.model.merge import EnvDir, SetEnvIfDir, SetEnvIfEntry
from confmig.model.rewrite.regex import Captures, Regex
from confmig.model.round import Round
from confmig.model.variables import lookup_for

_NO_GROUPS = Captures(None, b"", 0, [])

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def post_read_request(ev: Evaluation, rnd: Round, conf: SetEnvIfDir, raw_path: str) -> None:
    """mod_setenvif's ``post_read_request`` hooks: the server config's entries, the
    ``--early`` ones first; ``Request_URI`` is the path as the request line gave it."""
    entries = conf.entries
    if any(e.early for e in entries):
        entries = (*[e for e in entries if e.early], *[e for e in entries if not e.early])
    match_entries(ev, rnd, entries, raw_path)


def header_parser(ev: Evaluation, rnd: Round) -> None:
    """mod_setenvif's ``header_parser`` hook: the per-directory entries (of a main request or
    an internal redirect: a sub-request runs no header_parser hook)."""
    conf: SetEnvIfDir | None = rnd.config.get("setenvif")
    if conf is not None and not conf.server:  # (the server's own ran at post_read_request)
        match_entries(ev, rnd, conf.entries, rnd.uri)


def match_entries(ev: Evaluation, rnd: Round, entries: Sequence[SetEnvIfEntry],
                  request_uri: str) -> None:
    """``match_headers`` over *entries*."""
    headers = ev.request.headers
    # Headers.get without its lower() (the entries' keys are lower-cased already).
    items = getattr(headers, "_items", None)  # a Headers (not isinstance: an ABC, slow)
    for entry in entries:
        if entry.expr is not None:
            _match_expr(ev, rnd, entry)
            continue
        # What the attribute names: a special request field, a header, or an earlier-set
        # variable (None: nothing to match).
        key = entry.key  # the attribute in lower case
        if key == "request_uri":
            subject: str | None = request_uri
        else:
            special = _SPECIAL.get(key)
            if special is not None:
                subject = special(ev, rnd)
            elif entry.header_regex:
                subject = _header_by_name_regex(headers, entry)
            else:
                if items is not None:
                    item = items.get(key)
                    subject = item[1] if item is not None else None
                else:
                    subject = headers.get(entry.attribute)
                if subject is None:
                    subject = rnd.env.get(entry.attribute)
        # a header or variable that is not there is matched as "" (^$ matches it); the
        # entry is its regex
        captures = (entry.empty_match if subject is None else entry.search(subject))
        if captures is None:
            continue
        _assign(ev, rnd, entry, None if entry.literal else captures)


def _header_by_name_regex(headers: Mapping[str, str], entry: SetEnvIfEntry) -> str | None:
    """``match_headers``' ``pnamereg``: the value of the last request header whose name the
    entry's attribute (a regex, case-insensitive for SetEnvIfNoCase) matches, or None."""
    nocase = entry.directive.lname.endswith("nocase")
    regex = _NAME_REGEXES.get((entry.attribute, nocase))
    if regex is None:
        regex = compile_config_regex(entry.attribute, nocase=nocase)
        if len(_NAME_REGEXES) < 256:
            _NAME_REGEXES[entry.attribute, nocase] = regex
    value = None
    for name in headers:
        if regex.matches(name):
            value = headers.get(name)
    return value


# (attribute, nocase) -> the compiled header-name regex (bounded)
_NAME_REGEXES: dict[tuple[str, bool], Regex] = {}


def _assign(ev: Evaluation, rnd: Round, entry: SetEnvIfEntry, captures: Captures | None
            ) -> None:
    """A matched entry's variables; ``$0``–``$9`` of *captures* substituted (``ap_pregsub``)
    unless the pattern is literal."""
    for name, value in entry.assignments:
        if value is None:
            rnd.env.pop(name, None)
        elif captures is not None and ("$" in value or "\\" in value):
            rnd.env[name] = substitute(value, captures)
        else:
            rnd.env[name] = value
    if ev.trace:
        names = ", ".join(n if v is not None else "!" + n for n, v in entry.assignments)
        ev.step("env", f"{entry.directive.name} matched: {names}", entry.directive)


def _match_expr(ev: Evaluation, rnd: Round, entry: SetEnvIfEntry) -> None:
    """``SetEnvIfExpr``: ``ap_expr_exec_re`` (its Vary added; an error is no match); the
    values' ``$N`` name the expression's last regex match."""
    # (the expression model is imported where an expression is met: issue 17)
    from confmig.model.expr.evaluate import Evaluation as ExprRun
    from confmig.model.expr.evaluate import ExprEvalError, ExprUnsupported

    run = ExprRun(lookup_for(ev, rnd), ev.now, subrequest=ev.expr_subrequest(rnd))
    try:
        matched = run.cond(entry.expr.tree)
    except ExprUnsupported as exc:
        ev.note(f"{entry.directive.name} at {entry.directive.file}:{entry.directive.line}: "
                f"cannot evaluate {exc} (taken as false)")
        return
    except ExprEvalError:
        return
    rnd.vary.extend(run.vary)
    if matched:
        _assign(ev, rnd, entry, run.source if run.source is not None else _NO_GROUPS)


def env_fixup(ev: Evaluation, rnd: Round) -> None:
    """mod_env's fixup: ``UnsetEnv``, then ``SetEnv``."""
    env: EnvDir | None = rnd.config.get("env")
    if env is not None:
        for name in env.unset:
            rnd.env.pop(name, None)
        rnd.env.update(env.set)


# SetEnvIf's special attributes (HostnameLookups Off: Remote_Host is the address).
_SPECIAL: dict[str, Callable[[Evaluation, Round], str]] = {
    "remote_addr": lambda ev, rnd: ev.request.remote_addr,
    "remote_host": lambda ev, rnd: ev.request.remote_addr,
    "server_addr": lambda ev, rnd: ev.request.local_addr,
    "request_method": lambda ev, rnd: ev.request.method,
    "request_protocol": lambda ev, rnd: ev.request.protocol,
}
#: The attribute names (lower case) that are not a request header: Request_URI and these.
SPECIAL_ATTRIBUTES = frozenset({"request_uri", *_SPECIAL})
