"""mod_headers and mod_expires as nginx ``add_header`` and ``expires`` (with maps)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import pcre2

from confmig.convert.nginx.limits import PARAMETER_MAX, token_bytes
from confmig.convert.nginx.maps import HttpMaps
from confmig.convert.nginx.regex import Untranslatable, after, pcre_literal, url_path
from confmig.convert.nginx.rewrite import q
from confmig.model.expr import ExprError
from confmig.model.expr.nodes import Match, Variable
from confmig.model.expr.parse import parse_condition
from confmig.model.merge import error_document_kind
from confmig.model.plan import ANSWER_FIELDS, EnvCondition, PlanNote, Settings, Source


def _condition_fields(action: str, name: str) -> frozenset[str] | None:
    """What an untranslated ``Header`` line may change: its header, and ``Vary`` (an
    ``expr=`` reading a request header adds it); ``echo``'s NAME is a regex of request
    headers, so any field."""
    return None if action == "echo" else frozenset({name, "vary"})


class Note(Protocol):
    """Announce a line (source, directive, reason); ``fields``: the compared fields it may
    change (confmig.convert.result.Note), None for any; ``answer``: the status answered
    instead of Apache's."""

    def __call__(self, source: Source | None, directive: str, reason: str, /, *,
                 fields: frozenset[str] | None = None, answer: int = 0) -> None: ...
#: Response headers the servers make themselves: a ``Header unset`` of one has no
#: ``add_header`` form.
NATIVE_HEADERS = frozenset({"etag", "last-modified", "accept-ranges", "content-type",
                            "content-length", "server", "date", "cache-control", "expires",
                            "location", "vary"})


#: The statuses of the exact rows of the maps keyed on ``$status:$sent_http_content_type``.
EXACT_STATUSES = ("200", "304")


def expires_lines(settings: Settings, maps: HttpMaps, note: Note,
                  sent_types: Sequence[str] = ()) -> list[str]:
    """mod_expires in force as ``expires`` with a map on the status and the type.  The
    map's regex rows decide; *sent_types* (the types the location sends for the site's
    files) get exact rows with what those rows give them, which nginx finds in a hash
    before trying any regex (caseless, as the rows are)."""
    exp = settings.expires
    if exp is None:
        return []
    entries = []
    # mod_expires: the exact type first, then its major type's "type/*", then the default
    exact = [(m, c) for m, c in exp.by_type if not m.endswith("/*")]
    wild = [(m, c) for m, c in exp.by_type if m.endswith("/*")]
    for mime, code in exact:
        entries.append((f"~*^[1-3]\\d\\d:{pcre_literal(mime)}(?:;|\\z)", code))
    for mime, code in wild:
        entries.append((f"~*^[1-3]\\d\\d:{pcre_literal(mime[:-1])}[^;]*(?:;|\\z)", code))
    if exp.default:
        entries.append(("~^[1-3]\\d\\d:", exp.default))
    rows = []
    for key, code in entries:
        if not code.startswith("A"):
            note(None, "ExpiresByType", f"{code}: expiry from the modification "
                                              "time is not translated",
                 fields=frozenset({"expires", "cache-control"}))
            continue
        seconds = int("".join(ch for ch in code[1:] if ch.isdigit()) or "0")
        rows.append((key, str(seconds)))
    if not rows:
        return []
    name = maps.map('"$status:$sent_http_content_type"',
                    [*exact_rows(rows, sent_types, "off"), *rows], "off")
    return ["# ExpiresActive On: ExpiresByType/ExpiresDefault on every answer that is not "
            "an error", "# (mod_expires leaves out 4xx and 5xx; redirects get it too)",
            f"expires {name};"]


def exact_rows(rows: list[tuple[str, str]], sent_types: Sequence[str], default: str
               ) -> list[tuple[str, str]]:
    """Exact rows for the keys ``STATUS:TYPE`` (:data:`EXACT_STATUSES`, *sent_types*) of a
    map on ``$status:$sent_http_content_type`` whose regex *rows* ("~…" caseless, "~"
    with no letter to compare) are what decides: each with the value of the first row that
    matches it, as nginx would find it.  nginx compares exact keys without regard to case
    and tries them first, so a row's value must not depend on case: only caseless rows and
    rows without letters are taken (else there are none)."""
    compiled = []
    for key, value in rows:
        caseless = key.startswith("~*")
        pattern = key[2:] if caseless else key[1:]
        if not key.startswith("~") or (not caseless and any(c.isalpha() for c in
                                                            pattern.replace("\\d", ""))):
            return []
        compiled.append((pcre2.compile(pattern, pcre2.IGNORECASE if caseless else 0), value))
    out: dict[str, tuple[str, str]] = {}
    for status in EXACT_STATUSES:
        for mime in sent_types:
            key = f"{status}:{mime}"
            value = next((v for regex, v in compiled if regex.search(key)), default)
            out.setdefault(key.lower(), (key, value))
    return sorted(out.values())


def header_lines(settings: Settings, maps: HttpMaps, note: Note) -> list[str]:
    """mod_headers in force as ``add_header`` (the always table on every response, the
    onsuccess one through a map on the status)."""
    tables: dict[bool, list[tuple[str, str]]] = {True: [], False: []}
    by_type: list[tuple[bool, str, str, str, bool, Source]] = []
    by_env: list[tuple[bool, str, str, EnvCondition, Source]] = []
    lines_before: list[str] = []
    unset_etag: Source | None = None  # a Header unset ETag (nginx's own ETag: etag off)
    sources: dict[str, Source] = {}  # a header's name (lower case) → its last Header line
    expires = settings.expires is not None
    for header in settings.headers:
        entry = header.entry
        table = tables[entry.always]
        low = entry.name.lower()
        if header.refused:
            # check_headers (http_filters.c): Apache answers 500 for what carries it
            note(header.source, "Header", f"{entry.name}: {header.refused} — Apache answers "
                                          "500 where it would be sent; here every answer "
                                          "is 500",
                 # an `always` one also turns a <Files> denial's 403 into Apache's 500,
                 # which nginx's denial answers first: not only the 500 differs there
                 fields=ANSWER_FIELDS if entry.always else None,
                 answer=0 if entry.always else 500)
            lines_before.insert(0, "return 500;  # " + str(header.source)
                                + " a header Apache refuses to send")
            continue
        fixed = header.value is not None or entry.action == "unset"
        keyed = _content_type_condition(entry.expr) if entry.expr else None
        if keyed is not None and entry.action == "set" and not entry.env and fixed:
            by_type.append((entry.always, entry.name, header.value or "", *keyed,
                            header.source))
            continue
        if entry.env and header.env_condition is not None and entry.action == "set" \
                and not entry.expr and fixed and low not in NATIVE_HEADERS:
            by_env.append((entry.always, entry.name, header.value or "",
                           header.env_condition, header.source))
            continue
        if entry.env or entry.expr or entry.action in ("echo", "edit", "edit*", "note") \
                or not fixed:
            note(header.source, "Header", "a condition, format or edit: not "
                                                "translated",
                 fields=_condition_fields(entry.action, low))
            continue
        if low in ("cache-control", "expires") and expires and entry.action != "unset":
            note(header.source, "Header", f"{entry.name} together with "
                                                "mod_expires: nginx would send both",
                 fields=frozenset({low, "expires"}))
            continue
        if low == "content-type":
            note(header.source, "Header", "Content-Type: use AddType/ForceType",
                 fields=frozenset({low}))
            continue
        value = header.value or ""
        existing = [i for i, (n, _) in enumerate(table) if n.lower() == low]
        sources[low] = header.source
        if entry.action == "unset" and low == "etag" and not existing:
            unset_etag = unset_etag or header.source
            continue
        if entry.action == "unset" and low == "cache-control" and not expires:
            continue  # nothing here sends one (nginx sends it only for `expires`)
        if entry.action == "unset":
            if not existing and low in NATIVE_HEADERS:
                note(header.source, "Header", f"unset {entry.name}: a header the "
                                                    "server sends itself",
                     fields=frozenset({low}))
            table[:] = [(n, v) for n, v in table if n.lower() != low]
        elif entry.action == "set":
            table[:] = [(n, v) for n, v in table if n.lower() != low]
            table.append((entry.name, value))
        elif entry.action == "setifempty":
            if not existing:
                table.append((entry.name, value))
        elif entry.action == "add":
            table.append((entry.name, value))
        elif entry.action in ("append", "merge"):
            if existing:
                i = existing[0]
                old = table[i][1]
                parts = [p.strip() for p in old.split(",")]
                if entry.action == "append" or value not in parts:
                    table[i] = (table[i][0], f"{old}, {value}")
                table[:] = [t for j, t in enumerate(table) if j not in existing[1:]]
            else:
                table.append((entry.name, value))
    lines = []
    for table in tables.values():  # what nginx could not read, left out with a note
        table[:] = [(n, v) for n, v in table if _fits(n, v, sources[n.lower()], note)]
    for name, value in tables[True]:
        lines.append(f"add_header {name} {literal(value)} always;")
    # Apache's "onsuccess" headers reach what a handler served: 2xx, 304 and the
    # error documents it serves from a local path.
    served = "|".join(["2\\d\\d", "304", *(str(code) for code, target, _ in
                                             settings.error_documents
                                             if error_document_kind(target) == "path")])
    for name, value in tables[False]:
        var = maps.map("$status", [(f"~^(?:{served})\\z", literal(value))], '""')
        lines.append(f"add_header {name} {var} always;")
    touched = {n.lower() for table in tables.values() for n, _ in table}
    for always, name, value, pattern, nocase, source in by_type:
        if not _fits(name, value, source, note):
            continue
        if name.lower() in touched:
            note(source, "Header", f"{name} both with and without a Content-Type condition: "
                                   "not translated", fields=frozenset({name.lower()}))
            continue
        try:
            key = after("\\d{3}" if always else f"(?:{served})", pattern, nocase)
        except Untranslatable as exc:
            note(source, "Header", f"expr= pattern: {exc}", fields=frozenset({name.lower()}))
            continue
        var = maps.map('"$status:$sent_http_content_type"', [(f"~{key}", literal(value))], '""')
        lines.append(f"add_header {name} {var} always;  # {source}: expr= on the type")
    touched |= {name.lower() for _, name, *_ in by_type}
    conditioned = [name.lower() for _, name, *_ in by_env]
    for always, name, value, condition, source in by_env:
        if not _fits(name, value, source, note):
            continue
        if name.lower() in touched or conditioned.count(name.lower()) > 1:
            note(source, "Header", f"{name} set under more than one condition: not "
                                   "translated", fields=frozenset({name.lower()}))
            continue
        line = _env_line(always, served, name, value, condition, source, maps, note)
        if line:
            lines.append(line)
    if lines:
        lines.insert(0, "# Header (always: every response; onsuccess: 2xx and 304, "
                        "through a map)")
    return _etag_lines(settings, unset_etag) + lines_before + lines


def _fits(name: str, value: str, source: Source, note: Note) -> bool:
    """Whether nginx can read the header's name and value as parameters
    (:mod:`~confmig.convert.nginx.limits`); if not, the ``Header`` line is announced
    untranslatable and left out, as any other this converter cannot carry over."""
    size = max(token_bytes(name), token_bytes(literal(value)))
    if size <= PARAMETER_MAX:
        return True
    note(source, "Header", f"{name}: a value of {len(value)} characters is {size} bytes as "
                           f"an nginx parameter, and nginx refuses one longer than "
                           f"{PARAMETER_MAX} ('too long parameter'): not translated",
         fields=frozenset({name.lower()}))
    return False


def _etag_lines(settings: Settings, unset: Source | None) -> list[str]:
    """nginx's ``etag``: off where Apache sends no ETag for a file (``FileETag None``, or
    a ``Header unset ETag``), on again where a ``FileETag`` naming components is in force
    (a location below one with ``etag off`` would inherit it)."""
    why = [f"{unset} Header unset ETag"] if unset is not None else []
    if settings.etag_source is not None:
        why.append(f"{settings.etag_source} FileETag{'' if settings.etag else ' None'}")
    if not why:
        return []
    return [f"etag {'on' if settings.etag and unset is None else 'off'};  # {', '.join(why)}"]


#: Directives whose plan note may say that only a script sees what they do (fields: the
#: body): a request header edited after the server read it, a variable no module reads.
SCRIPT_ONLY_DIRECTIVES = frozenset({"requestheader", "setenv", "unsetenv", "passenv",
                                    "setenvif", "setenvifnocase", "setenvifexpr",
                                    "browsermatch", "browsermatchnocase"})


def script_only_note(note: PlanNote, runs_scripts: bool) -> PlanNote:
    """The plan's note for a ``RequestHeader`` or an environment variable only a script
    reads (its fields: the body; a ``Header``/``Require``/rule reading the variable is
    reported on its own), where nginx runs no script (no ``--php-fpm``; the site's PHP
    note says scripts are sent as they are): it changes nothing nginx answers."""
    low = note.directive.lower()
    if runs_scripts or low not in SCRIPT_ONLY_DIRECTIVES \
            or note.fields != frozenset({"body"}) or not note.changes_behaviour:
        return note
    what = ("only a script sees the header it edits (mod_headers runs after the server has "
            "read the request)" if low == "requestheader" else "the variable is for scripts "
            "(a line of the configuration reading it is announced on its own)")
    return replace(note, reason=f"{what}: nginx runs none here without --php-fpm (left out)",
                   changes_behaviour=False)


#: A literal ``$`` for a value nginx reads variables in (``geo`` values are plain text).
DOLLAR = "${confmig_dollar}"
DOLLAR_GEO = ["# a literal $ in a header value (nginx reads variables there)",
              "geo $confmig_dollar {", '    default "$";', "}"]


def literal(value: str) -> str:
    """*value* as a quoted nginx argument that means exactly these characters (``add_header``
    and ``map`` values interpolate variables: a ``$`` becomes :data:`DOLLAR`)."""
    return q(value).replace("$", DOLLAR)


def _env_line(always: bool, served: str, name: str, value: str, condition: EnvCondition,
              source: Source, maps: HttpMaps, note: Note) -> str:
    """``Header set NAME VALUE env=VAR`` where ``SetEnvIf HEADER PATTERN VAR`` alone sets
    VAR: a map on the request header gives 1 when VAR is set, a map on the status and that
    gives the value (nginx sends no header with an empty value).  nginx's ``$http_…`` is
    the first of repeated request headers, Apache matches them joined with ", "."""
    try:
        regex = url_path(condition.pattern, condition.nocase)
    except Untranslatable as exc:
        note(condition.source, "SetEnvIf", f"{exc}: the Header {name} it decides is not "
                                           "translated", fields=frozenset({name.lower()}))
        return ""
    variable = "$http_" + condition.header.lower().replace("-", "_")
    hit, miss = ("1", '""') if condition.present else ('""', "1")
    is_set = maps.map(variable, [(f"~{regex}", hit)], miss)
    statuses = "\\d{3}" if always else f"(?:{served})"
    chosen = maps.map(f'"$status:{is_set}"', [(f"~^{statuses}:1\\z", literal(value))], '""')
    return (f"add_header {name} {chosen} always;  # {source}: env="
            f"{'' if condition.present else '!'}… of {condition.source} SetEnvIf "
            f"{condition.header}")


def _content_type_condition(expr: str) -> tuple[str, bool] | None:
    """(regex, caseless) of an ``expr=`` that only tests the response's Content-Type
    (``%{CONTENT_TYPE} =~ m#…#i``, the form h5bp keys headers on), read by the model's
    ``ap_expr`` parser."""
    text = expr.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    try:
        tree = parse_condition(text)
    except ExprError:
        return None
    if isinstance(tree, Match) and not tree.negate and tree.subject == Variable("CONTENT_TYPE"):
        return tree.regex.source, tree.regex.nocase
    return None


