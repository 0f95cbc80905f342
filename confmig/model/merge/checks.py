"""Argument checks of the directives the model has no handler of its own for, and of
``<Limit>``/``<LimitExcept>``'s methods: what makes Apache refuse the line (500 in an
``.htaccess``, no start in a server config) although the model does not otherwise read it.

:func:`unhandled_problem` is what :meth:`SectionBuilder.directive` asks for a directive
without a handler: its argument count (``confmig.apache.arity``, measured on Apache), a FLAG's
On/Off (``server/config.c``: "X must be On or Off") and, for the directives in
:data:`VALUE_CHECKS`, the handler's own checks as read from httpd 2.4's source (core.c
``set_etag_bits``, ``set_signature_flag``, ``set_enable_mmap``, ``set_limit_req_body``,
``set_cgi_var``; mod_autoindex ``add_opts``/``set_default_order``; mod_mime
``multiviews_match``; mod_negotiation ``set_force_priority``; mod_deflate's inflate limits;
``Error``), and the core directives Linux builds do not have.
``apr_ipsubnet_create``'s refusal (Allow/Deny from, Require ip) is
:func:`confmig.model.netmatch.ipsubnet_problem`, beside its parse.
Checked on Apache by tests/model/test_htaccess_500_apache.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from confmig.syntax import Directive

# http_protocol.c ap_method_registry_init: the methods every server knows, case-sensitively
# (HEAD shares GET's number).  Others are known once registered: by a <Limit>/<LimitExcept>
# or RegisterHttpMethod of the server config, mod_actions' Script there, mod_dav (BIND,
# SEARCH) when loaded - never from an .htaccess.
BUILTIN_METHODS = frozenset({
    "GET", "HEAD", "PUT", "POST", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "PROPFIND",
    "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK", "VERSION-CONTROL", "CHECKOUT",
    "UNCHECKOUT", "CHECKIN", "UPDATE", "LABEL", "REPORT", "MKWORKSPACE", "MKACTIVITY",
    "BASELINE-CONTROL", "MERGE"})
# A <LimitExcept>'s set stands for "every other method": this member is the methods not named
# anywhere (Apache's bits past the registered ones).
OTHER_METHODS = "*"


def registered_methods(nodes: Iterable[object], has_module: Callable[[str], bool]
                       ) -> frozenset[str]:
    """The methods a server config registers besides :data:`BUILTIN_METHODS` (what an
    ``.htaccess`` ``<Limit>`` may then name)."""
    from confmig.syntax import Section

    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, Section):
            if node.lname in ("limit", "limitexcept"):
                found.update(node.args)
            stack.extend(node.children)
        elif isinstance(node, Directive) and node.args and \
                node.lname in ("registerhttpmethod", "script"):
            found.add(node.args[0])
    if has_module("mod_dav"):
        found.update(("BIND", "SEARCH"))
    return frozenset(found - BUILTIN_METHODS)


def limit_methods(name: str, words: list[str], outer: frozenset[str] | None, htaccess: bool,
                  known: frozenset[str]) -> tuple[frozenset[str] | None, str | None]:
    """``ap_limit_section``: the methods a ``<Limit>`` (*name* ``Limit``) or ``<LimitExcept>``
    inside *outer* (None: all) applies to, or Apache's error.  Method names are
    case-sensitive; one Apache does not know is registered, except in an ``.htaccess``
    (*htaccess*), where it is an error; *known* are those the server config registered."""
    if not words:
        return None, f"<{name}> requires at least one argument"
    named: set[str] = set()
    for method in words:
        if method == "TRACE" and name.lower() == "limit":
            return None, "TRACE cannot be controlled by <Limit>, see TraceEnable"
        if htaccess and method not in BUILTIN_METHODS and method not in known:
            return None, (f"Could not register method '{method}' for <{name} from .htaccess "
                          "configuration")
        named.add("GET" if method == "HEAD" else method)
    universe = (BUILTIN_METHODS - {"HEAD"}) | known
    # (names, all but them?): config.c's bit mask, a <LimitExcept> as a complement
    limited = (frozenset(named), name.lower() != "limit")
    if outer is not None:
        old = _as_pair(outer, universe)
        both = _meet(old, limited)
        if not both[0] and not both[1]:
            return None, f"<{name}> directive excludes all methods"
        if both == old:
            return None, f"<{name}> directive specifies methods already excluded"
        limited = both
    names, complement = limited
    out = (universe | {OTHER_METHODS}) - names if complement else names
    if "GET" in out:  # HEAD is M_GET
        out = out | {"HEAD"}
    return frozenset(out), None


def _as_pair(methods: frozenset[str], universe: frozenset[str]
             ) -> tuple[frozenset[str], bool]:
    """A method set as :func:`limit_methods` gives it back as (names, complement)."""
    names = frozenset("GET" if m == "HEAD" else m for m in methods)
    if OTHER_METHODS in names:
        return frozenset(universe - names), True
    return names, False


def _meet(a: tuple[frozenset[str], bool], b: tuple[frozenset[str], bool]
          ) -> tuple[frozenset[str], bool]:
    """``old_limited & limited`` on (names, complement) pairs."""
    (an, ac), (bn, bc) = a, b
    if ac and bc:
        return an | bn, True
    if ac:
        return bn - an, False
    if bc:
        return an - bn, False
    return an & bn, False


# -- values of directives the model has no handler for ---------------------------------------

_ETAG_KEYWORDS = ("none", "all", "size", "lmtime", "mtime", "lastmodified", "inode", "digest")


def _file_etag(name: str, args: list[str]) -> str | None:
    for word in args:
        action = word[:1] if word[:1] in "+-" else ""
        token = word[len(action):]
        if token.lower() not in _ETAG_KEYWORDS:
            return f"Unknown keyword '{token}' for {name} directive"
        if action and token.lower() in ("none", "all"):
            return f"{name} keyword '{token}' cannot be used with '+' or '-'"
    return None


_INDEX_OPTIONS = frozenset(w.lower() for w in (
    "FancyIndexing", "FoldersFirst", "HTMLTable", "IconsAreLinks", "IgnoreCase", "IgnoreClient",
    "ScanHTMLTitles", "SuppressColumnSorting", "SuppressDescription", "SuppressHTMLPreamble",
    "SuppressIcon", "SuppressLastModified", "SuppressSize", "SuppressRules", "TrackModified",
    "VersionSort", "XHTML", "ShowForbidden", "AddAltClass"))


def _atoi(text: str) -> int:
    """C's ``atoi``: leading blanks, a sign, then digits (0 when there are none)."""
    text = text.lstrip(" \t\n\v\f\r")
    sign = -1 if text[:1] == "-" else 1
    text = text[1:] if text[:1] in ("+", "-") and text else text
    digits = ""
    for c in text:
        if not (c.isdigit() and c.isascii()):
            break
        digits += c
    return sign * int(digits) if digits else 0


def _index_options(_name: str, args: list[str]) -> str | None:
    none = other = False
    for word in args:
        action = word[:1] if word[:1] in "+-" else ""
        w = word[len(action):].lower()
        if w in _INDEX_OPTIONS:
            other = other or not action
        elif w == "none":
            if action:
                return "Cannot combine '+' or '-' with 'None' keyword"
            none = True
        elif w in ("iconwidth", "iconheight", "useolddateformat") or \
                w.startswith(("type=", "charset=")):
            pass
        elif w.startswith(("iconwidth=", "iconheight=")):
            if action == "-":
                shown = "IconWidth" if w.startswith("iconw") else "IconHeight"
                return f"Cannot combine '-' with {shown}=n"
        elif w in ("namewidth", "descriptionwidth"):
            if action != "-":
                shown = "NameWidth" if w == "namewidth" else "DescriptionWidth"
                return f"{shown} with no value may only appear as '-{shown}'"
        elif w.startswith(("namewidth=", "descriptionwidth=")):
            shown, least = ("NameWidth", 5) if w.startswith("n") else ("DescriptionWidth", 12)
            if action == "-":
                return f"Cannot combine '-' with {shown}=n"
            value = w[w.index("=") + 1:]
            if value[:1] != "*":
                width = _atoi(value)
                if width and width < least:
                    return f"{shown} value must be greater than {least}"
        else:
            return "Invalid directory indexing option"
    if none and other:
        return "Cannot combine other IndexOptions keywords with 'None'"
    return None


def _index_order_default(_name: str, args: list[str]) -> str | None:
    if args[0].lower() not in ("ascending", "descending"):
        return "First keyword must be 'Ascending' or 'Descending'"
    if args[1].lower() not in ("name", "date", "size", "description"):
        return "Second keyword must be 'Name', 'Date', 'Size', or 'Description'"
    return None


def _server_signature(_name: str, args: list[str]) -> str | None:
    if args[0].lower() not in ("on", "off", "email"):
        return "ServerSignature: use one of: off | on | email"
    return None


def _on_off_word(_name: str, args: list[str]) -> str | None:
    return None if args[0].lower() in ("on", "off") else "parameter must be 'on' or 'off'"


def _strtoff(text: str) -> tuple[int | None, str]:
    """``apr_strtoff`` base 10: (the number, or None when it overflows; what follows it)."""
    stripped = text.lstrip(" \t\n\v\f\r")
    i = 1 if stripped[:1] in ("+", "-") and stripped else 0
    j = i
    while j < len(stripped) and stripped[j].isascii() and stripped[j].isdigit():
        j += 1
    if j == i:
        return 0, text  # no digits: strtol gives 0, the end is the start
    value = int(stripped[:j])
    if not -(1 << 63) <= value < (1 << 63):
        return None, stripped[j:]
    return value, stripped[j:]


def _non_negative(label: str) -> Callable[[str, list[str]], str | None]:
    def check(_name: str, args: list[str]) -> str | None:
        value, rest = _strtoff(args[0])
        if value is None:
            return f"{label} is not parsable."
        if rest or value < 0:
            return f"{label.removesuffix(' argument')} requires a non-negative integer."
        return None
    return check


def _positive(message: str) -> Callable[[str, list[str]], str | None]:
    def check(_name: str, args: list[str]) -> str | None:
        return message if _atoi(args[0]) <= 0 else None
    return check


def _cgi_var(_name: str, args: list[str]) -> str | None:
    if args[0] != "REQUEST_URI":
        return f'Unrecognized CGI variable: "{args[0]}"'
    if args[1].lower() not in ("current-uri", "original-uri"):
        return "Valid rules for REQUEST_URI are 'current-uri' and 'original-uri'"
    return None


def _multiviews_match(_name: str, args: list[str]) -> str | None:
    seen: set[str] = set()
    for word in args:
        w = word.lower()
        if w not in ("any", "negotiatedonly", "filters", "handlers"):
            return f"Unrecognized option '{word}'"
        if w == "any" and seen - {"any"}:
            return "Any is incompatible with NegotiatedOnly, Filters and Handlers"
        if w == "negotiatedonly" and seen - {"negotiatedonly"}:
            return "NegotiatedOnly is incompatible with Any, Filters and Handlers"
        if w in ("filters", "handlers") and seen & {"any", "negotiatedonly"}:
            shown = "Filters" if w == "filters" else "Handlers"
            return f"{shown} is incompatible with Any and NegotiatedOnly"
        seen.add(w)
    return None


def _force_language_priority(_name: str, args: list[str]) -> str | None:
    seen: set[str] = set()
    for word in args:
        w = word.lower()
        if w == "none":
            if seen - {"none"}:
                return "Cannot combine ForceLanguagePriority options with None"
        elif w in ("prefer", "fallback"):
            if "none" in seen:
                return ("Cannot combine ForceLanguagePriority options None and "
                        f"{'Prefer' if w == 'prefer' else 'Fallback'}")
        else:
            return f"Invalid ForceLanguagePriority option {word}"
        seen.add(w)
    return None


# lower-case name -> check of the words (called once the count is right)
VALUE_CHECKS: dict[str, Callable[[str, list[str]], str | None]] = {
    "fileetag": _file_etag,
    "indexoptions": _index_options,
    "indexorderdefault": _index_order_default,
    "serversignature": _server_signature,
    "enablemmap": _on_off_word,
    "enablesendfile": _on_off_word,
    "limitrequestbody": _non_negative("LimitRequestBody argument"),
    "deflateinflatelimitrequestbody": _non_negative("DeflateInflateLimitRequestBody"),
    "deflateinflateratiolimit": _positive("DeflateInflateRatioLimit must be positive"),
    "deflateinflateratioburst": _positive("DeflateInflateRatioBurst must be positive"),
    "cgivar": _cgi_var,
    "multiviewsmatch": _multiviews_match,
    "forcelanguagepriority": _force_language_priority,
    # generate_message: Error stops the reading of its file (Warning only logs)
    "error": lambda _name, _args: "Configuration processing stopped by Error directive",
}
# core.c declares these only on Windows (ScriptInterpreterSource) and NetWare
# (CGIMapExtension): on the Apache the model is, they are unknown commands.
_NOT_ON_THIS_PLATFORM = frozenset({"scriptinterpretersource", "cgimapextension"})


def unhandled_problem(d: Directive) -> str | None:
    """Apache's error for the arguments of *d*, a directive the model has no handler for,
    or None (see the module docstring)."""
    from confmig.apache.arity import arity_problem, measured_type

    lname = d.lname
    if lname in _NOT_ON_THIS_PLATFORM:
        return (f"Invalid command '{d.name}', perhaps misspelled or defined by a module not "
                "included in the server configuration")
    args = d.args
    problem = arity_problem(d.name, args)
    if problem is not None and problem[0] == "error":
        return problem[1]
    check = VALUE_CHECKS.get(lname)
    if check is not None:
        return check(d.name, args)
    if args and measured_type(lname) == "FLAG" and args[0].lower() not in ("on", "off"):
        return f"{d.name} must be On or Off"
    return None
