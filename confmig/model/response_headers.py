"""The response headers the configuration sets: Content-Type (ForceType/AddType with
``AddDefaultCharset``), mod_rewrite's Vary and Set-Cookie (``[CO]``), mod_expires
(``Cache-Control``/``Expires``), and mod_headers' ``always`` and ``onsuccess`` tables in merge
order.  Without conditions on the request, the result is memoised per merged configuration.

Several Set-Cookie lines are joined with ``", "`` in the one value, as
:class:`confmig.servers.net.ResponseHeaders` shows a repeated field."""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from confmig.model.mapping import substitute
from confmig.model.merge import ExpiresDir, HeaderEntry, HeadersDir
from confmig.model.merge.headers import CONTROL_CHARACTER, line_name, name_kind
from confmig.model.request import Request
from confmig.model.rewrite.regex import Regex, from_bytes, to_bytes
from confmig.model.round import DIR_MAGIC_TYPE, Round
from confmig.model.variables import lookup_for
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


# The most fields a memoised header set holds: a configuration that sets more has its
# headers worked out for each request instead of kept for the site's life, once per content
# type asked (a file of 40,445 distinct Header lines: ~2.6 MB each, issue 10).
MEMO_FIELDS = 256


def response_headers(ev: Evaluation, rnd: Round, status: int) -> dict[str, str]:
    """The headers the configuration sets: Content-Type (with AddDefaultCharset) and
    mod_rewrite's Vary, mod_expires, then mod_headers' ``always`` entries (on
    ``err_headers_out``, which starts with mod_rewrite's cookies for a response the handler
    produced, empty for an error response: the cookies come after) and — for a response the
    handler produced — its ``onsuccess`` entries, in merge order.  Without conditions on the
    request (nor cookies), the result is memoised per configuration."""
    conf: HeadersDir | None = rnd.config.get("headers")
    key = None
    if not ev.trace and not ev.cookies and (conf is None or conf.static):
        env_key = (tuple([name in rnd.env for name in conf.env_names])
                   if conf is not None and conf.env_names else ())
        # (not the file: nothing here depends on it but an expiry from its mtime, which
        # is not memoised; requests for different files of one configuration share it)
        key = (id(rnd.config), rnd.content_type, rnd.served, rnd.listing, status < 400,
               tuple(rnd.vary) if rnd.vary else (), env_key)
        found = ev.site.header_sets.get(key)
        if found is not None:
            headers, expires_in = found
            result = dict(headers)
            if expires_in is not None:  # an "access plus N seconds" code
                result["Expires"] = http_date(int(ev.now + expires_in))
            return result
    code = expires_code(ev, rnd) if rnd.served and status < 400 else None
    if code is not None and code.startswith("M"):
        key = None  # the expiry depends on the file's mtime, not only on the configuration
    out: list[tuple[str, str]] = []
    cookies = [("Set-Cookie", c) for c in ev.cookies]
    # A response the handler produced: mod_headers' output filter edits err_headers_out with
    # mod_rewrite's cookies in it.  An error response (ap_send_error_response) first moves
    # err_headers_out to headers_out and clears it, so the ``always`` entries start from an
    # empty table and cannot unset, set nor edit the cookies (checked and sent all the same).
    err: list[tuple[str, str]] = cookies if rnd.served else []
    ctype = rnd.content_type
    if rnd.served and not rnd.listing and ctype and ctype != DIR_MAGIC_TYPE:
        out.append(("Content-Type", with_default_charset(ev, rnd, ctype)))
    if rnd.served and rnd.vary:
        out.append(("Vary", ",".join(rnd.vary)))
    expiry = expiry_time(ev, rnd, code) if code is not None else None
    if expiry is not None:
        out.append(("Cache-Control", f"max-age={max(0, int(expiry - ev.now))}"))
    if conf is not None:
        vary: list[str] = []  # what the expr= conditions read: Vary in headers_out
        apply_headers(ev, conf.always_parsed, conf.always_lines, err, rnd, vary, status)
        if rnd.served:
            apply_headers(ev, conf.onsuccess_parsed, conf.onsuccess_lines, out, rnd, vary,
                          status)
        if vary:
            out.append(("Vary", ", ".join(vary)))
    if not rnd.served:  # (the header filter overlays err_headers_out on headers_out)
        err.extend(cookies)
    merged: dict[str, str] = {}
    names: dict[str, str] = {}
    for name, value in [*err, *out]:
        low = name.lower()
        if low in names:
            merged[names[low]] += ", " + value
        else:
            names[low] = name
            merged[name] = value
    if "vary" in names:
        merged[names["vary"]] = fixup_vary(merged[names["vary"]])
    if key is not None and len(merged) <= MEMO_FIELDS:
        ev.site.header_sets[key] = (dict(merged),
                                    None if code is None else _leading_int(code[1:]))
    return with_expires(ev, rnd, status, merged, code)


def with_default_charset(ev: Evaluation, rnd: Round, ctype: str) -> str:
    """``ap_make_content_type``: AddDefaultCharset for text/plain and text/html types."""
    setting = rnd.config["core"].default_charset
    if setting is None or not setting[0] or "charset=" in ctype:
        return ctype
    if "text/plain" in ctype or "text/html" in ctype:
        return f"{ctype}; charset={setting[1]}"
    return ctype


def expires_code(ev: Evaluation, rnd: Round) -> str | None:
    """mod_expires: the code (``A3600``, ``M60``) for this response's type, if any."""
    conf: ExpiresDir | None = rnd.config.get("expires")
    if conf is None or not conf.active:
        return None
    ctype = (rnd.content_type or "").split(";", 1)[0].strip().lower()
    code = conf.by_type.get(ctype)
    if code is None and conf.wildcards and "/" in ctype:
        code = conf.by_type.get(ctype.split("/", 1)[0] + "/*")
    return code if code is not None else conf.default


def expiry_time(ev: Evaluation, rnd: Round, code: str | None) -> float | None:
    """When the response expires under *code* (None: no Expires header)."""
    if code is None:
        return None
    seconds = _leading_int(code[1:])
    if code[0] == "M":
        info = ev.site.stat.lstat(rnd.filename) if rnd.filename else None
        return None if info is None else info.mtime + seconds
    return ev.now + seconds


def with_expires(ev: Evaluation, rnd: Round, status: int, headers: dict[str, str],
                 code: str | None) -> dict[str, str]:
    """Add the ``Expires`` date (the only value that depends on the time)."""
    if code is not None:
        expiry = expiry_time(ev, rnd, code)
        if expiry is not None:
            headers["Expires"] = http_date(int(expiry))
    return headers


_DATES: dict[int, str] = {}


def http_date(when: int) -> str:
    """``apr_rfc822_date`` of *when* (seconds since the epoch), formatted once per second."""
    found = _DATES.get(when)
    if found is None:
        if len(_DATES) > 4096:
            _DATES.clear()
        found = _DATES[when] = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(when))
    return found


def apply_headers(ev: Evaluation, entries: Sequence[HeaderEntry], lines: Sequence[Directive],
                  table: list[tuple[str, str]], rnd: Round, vary: list[str] | None = None,
                  status: int = 200) -> None:
    """``do_headers_fixup`` on one table (a list of (name, value) pairs, in order): the
    parsed *entries* of a :class:`HeadersDir` and their *lines* (in step: the directive an
    explanation names); *vary* receives the request headers the ``expr=`` conditions
    read."""
    # How many fields of each (lower-case) name the table holds: an action on a name the
    # table does not hold yet costs nothing more than an append, so a file of 50,000
    # distinct ``Header set`` lines is applied in linear time (each action scanning the
    # whole table made it quadratic: minutes for 1 MB).
    counts = Counter(n.lower() for n, _ in table)
    for index, h in enumerate(entries):
        if h.early:
            continue
        if h.expr is not None:
            # (the expression model is imported where an expression is met: issue 17)
            from confmig.model.expr import (
                ExprError,
                ExprEvalError,
                ExprUnsupported,
                parse_cached,
            )

            try:
                if not parse_cached(h.expr).evaluate(lookup_for(ev, rnd, table, status),
                                                     ev.now, vary,
                                                     ev.expr_subrequest(rnd)):
                    continue
            except ExprError:
                continue
            except ExprEvalError as exc:  # mod_headers: "Failed to evaluate … - ignoring"
                ev.step("fixups", f"{lines[index].name}: failed to evaluate expression ({exc})"
                                  " - the header is set anyway")
            except ExprUnsupported as exc:
                line = lines[index]
                ev.note(f"{line.name} at {line.file}:{line.line}: cannot evaluate {exc} "
                        "(entry skipped)")
                continue
        elif h.env is not None and (h.env.lstrip("!") in rnd.env) == h.env.startswith("!"):
            continue
        if h.value_expr is not None:
            from confmig.model.expr import ExprUnsupported

            try:
                value = _value_expression(ev, h, rnd, table, status)
            except ExprUnsupported as exc:
                line = lines[index]
                ev.note(f"{line.name} at {line.file}:{line.line}: cannot evaluate {exc} "
                        "(entry skipped)")
                continue
        elif h.value_at >= 0:  # (text read from the line: see HeaderEntry)
            value = lines[index].arg(h.value_at)
        else:
            value = format_value(ev, h.format, rnd)
        _apply_header(h, line_name(h, lines[index]), value, table, counts, rnd, ev.request)


def _value_expression(ev: Evaluation, h: HeaderEntry, rnd: Round,
                      table: list[tuple[str, str]], status: int) -> str:
    """``process_tags`` of a value written ``expr=…``: ``ap_expr_str_exec`` (a string result
    adds nothing to Vary: ``ap_expr_exec_ctx`` merges it only for a condition); an
    evaluation error gives "" (AH02557)."""
    from confmig.model.expr import Evaluation as ExprRun
    from confmig.model.expr import ExprEvalError

    run = ExprRun(lookup_for(ev, rnd, table, status), ev.now,
                     subrequest=ev.expr_subrequest(rnd))
    try:
        return run.word(h.value_expr)
    except ExprEvalError:
        return ""


def format_value(ev: Evaluation, parts: tuple[tuple[str, str], ...], rnd: Round) -> str:
    """A value as mod_headers' ``process_tags`` makes it from its parsed format
    (:func:`confmig.model.merge.headers.parse_format`): text, ``%{VAR}e`` ("(null)" when
    unset), ``%t`` (``r->request_time`` in microseconds), ``%{VAR}s`` ("(null)" on a
    connection without TLS).  ``%D``, ``%l``, ``%i``, ``%b`` (the time taken, the server's
    load) are reported, kept as written."""
    if len(parts) == 1 and not parts[0][0]:
        return parts[0][1]
    out: list[str] = []
    for tag, arg in parts:
        if not tag:
            out.append(arg)
        elif tag == "e":
            out.append(rnd.env.get(arg, "(null)"))
        elif tag == "t":
            out.append(f"t={int(ev.now * 1_000_000)}")
        elif tag == "s" and not ev.request.https:
            out.append("(null)")
        else:
            shown = f"%{{{arg}}}{tag}" if arg else f"%{tag}"
            ev.note(f"Header format {shown}: depends on the server at the time of the "
                    "request (kept as written)")
            out.append(shown)
    return "".join(out)


def _apply_header(h: HeaderEntry, name: str, value: str, table: list[tuple[str, str]],
                  counts: Counter[str], rnd: Round, request: Request) -> None:
    """One mod_headers action (of the line setting field *name*) on a table; *counts*
    (fields per lower-case name) is kept up to date with it."""
    key = name.lower()
    action = h.action
    if action == "echo":  # the name is a regex over the request's header names
        echoed = [(n, v) for n, v in request.headers.items() if h.regex.search(n) is not None]
        table.extend(echoed)
        counts.update(n.lower() for n, _ in echoed)
        return
    present = counts[key] > 0
    # (set, add and unset do not read the fields there: not gathered for them)
    current = ([v for n, v in table if n.lower() == key]
               if present and action not in ("set", "add", "unset") else [])
    if action == "set" or (action == "setifempty" and not current):
        _remove(table, counts, key, present)
        _add(table, counts, name, value)
        if key == "content-type":
            rnd.content_type = value
    elif action == "add":
        _add(table, counts, name, value)
    elif action in ("append", "merge"):
        tokens = [t.strip() for v in current for t in v.split(",")]
        if action == "merge" and value in tokens:
            return
        if current:
            first = next(i for i, (n, _) in enumerate(table) if n.lower() == key)
            _remove(table, counts, key, present)
            table.insert(first, (name, ", ".join([*current, value])))
            counts[key] = 1
        else:
            _add(table, counts, name, value)
    elif action == "unset":
        _remove(table, counts, key, present)
    elif action in ("edit", "edit*"):
        if not current:
            return
        every = action == "edit*"
        edited = [_edit(h.regex, v, value, every) for v in current]
        _remove(table, counts, key, present)
        for v in edited:
            _add(table, counts, name, v)
        if key == "content-type" and rnd.content_type is not None:
            rnd.content_type = _edit(h.regex, rnd.content_type, value, every)


def _add(table: list[tuple[str, str]], counts: Counter[str], name: str, value: str) -> None:
    table.append((name, value))
    counts[name.lower()] += 1


def _remove(table: list[tuple[str, str]], counts: Counter[str], key: str,
            present: bool) -> None:
    """Drop every field named *key* (lower case); nothing to scan when none is there."""
    if present:
        table[:] = [(n, v) for n, v in table if n.lower() != key]
        counts[key] = 0


# check_header (http_filters.c): a name is a token (HttpProtocolOptions Strict) or VCHAR /
# obs-text (Unsafe) (merge.headers.name_kind); a value is field-content — no control
# character but HT (merge.headers.CONTROL_CHARACTER) — where CRLF followed by SP or HT is
# folding, sent as one space.
_FOLDING = re.compile(r"\r\n[ \t][ \t]*")


def check_headers(headers: dict[str, str], location: str | None, strict: bool = True
                  ) -> str | None:
    """``check_headers``: what makes Apache abort the response (None: nothing).  A value with
    only folding is unfolded in *headers*.  (Most values are printable ASCII, a name seen
    before is a token: those pass without a regex.)"""
    names_ok = _NAMES_STRICT if strict else _NAMES_UNSAFE
    for name, value in headers.items():
        if name in names_ok and value.isascii() and value.isprintable():
            continue
        problem = check_header(name, value, strict)
        if problem is not None:
            if problem:
                return problem
            headers[name] = _FOLDING.sub(" ", value)
    if location:
        return check_header("Location", location, strict) or None
    return None


def cannot_fail(ev: Evaluation, rnd: Round, strict: bool = True) -> bool:
    """Whether this response's headers pass ``check_headers`` whatever they turn out to be,
    without working them out: the fields set before mod_headers runs (Content-Type, Vary,
    mod_rewrite's cookies; Cache-Control and Expires are digits and dates) pass, and no
    ``Header`` entry of the configuration can add one that fails
    (:meth:`~confmig.model.merge.HeadersDir.cannot_fail`: values joined by append, merge or
    the merge of equal names then pass too).  The Location field is not one of them."""
    conf: HeadersDir | None = rnd.config.get("headers")
    if conf is not None and not conf.cannot_fail(strict):
        return False
    fields = [("Set-Cookie", c) for c in ev.cookies]
    ctype = rnd.content_type
    if rnd.served and not rnd.listing and ctype and ctype != DIR_MAGIC_TYPE:
        fields.append(("Content-Type", with_default_charset(ev, rnd, ctype)))
    if rnd.served and rnd.vary:
        fields.append(("Vary", ",".join(rnd.vary)))
    # (check_header's "" — passes once unfolded — is a pass)
    return not any(check_header(name, value, strict) for name, value in fields)


def valid_field_name(name: str, strict: bool) -> bool:
    """``check_header``'s test of a field name: a token (HttpProtocolOptions Strict) or
    VCHAR / obs-text (Unsafe)."""
    return name_kind(name) >= (2 if strict else 1)


# names seen to pass (they come from the configuration: a bounded set)
_NAMES_STRICT: set[str] = set()
_NAMES_UNSAFE: set[str] = set()


def check_header(name: str, value: str, strict: bool) -> str | None:
    """``check_header`` of one field: None when it passes, "" when it passes once unfolded,
    else Apache's complaint.  (The nginx emitter asks it too.)"""
    names_ok = _NAMES_STRICT if strict else _NAMES_UNSAFE
    if name not in names_ok:
        if not name:
            return "Empty response header name"
        if not valid_field_name(name, strict):
            return f"Response header name {name!r} contains invalid characters"
        if len(names_ok) < 4096:
            names_ok.add(name)
    if CONTROL_CHARACTER.search(value) is None:
        return None
    if CONTROL_CHARACTER.search(_FOLDING.sub(" ", value)) is None:
        return ""
    return f"Response header {name!r} value of {value!r} contains invalid characters"


def _edit(regex: Regex, value: str, replacement: str, every: bool) -> str:
    """``process_regexp``: the first match of *regex* replaced by *replacement* with its
    ``$N`` (``ap_pregsub``); ``edit*`` goes on with the rest of the value after the match
    (a new subject: ``^`` matches there again)."""
    data = to_bytes(value)
    out = bytearray()
    while True:
        found = regex.search_span(data)
        if found is None:
            break
        start, end, captures = found
        out += data[:start] + to_bytes(substitute(replacement, captures))
        data = data[end:]
        if not every or end == 0:  # (an empty match at the start: Apache recurses forever)
            break
    return from_bytes(bytes(out + data))


def fixup_vary(value: str) -> str:
    """``fixup_vary``: the Vary tokens, duplicates (case-insensitive) dropped, first kept."""
    seen: dict[str, str] = {}
    for token in value.split(","):
        token = token.strip()
        if token and token.lower() not in seen:
            seen[token.lower()] = token
    return ",".join(seen.values())


def _leading_int(text: str) -> int:
    """C ``atoi`` (mod_expires reads its codes that way: ``Access plus…`` gives 0)."""
    try:
        return int(text)
    except ValueError:
        digits = ""
        for ch in text.strip():
            if not ch.isdigit():
                break
            digits += ch
        return int(digits) if digits else 0

