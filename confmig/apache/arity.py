"""How many arguments directives take, and what Apache says when they do not: the one table
the model's directive handlers (:func:`confmig.model.merge.handlers.takes`) and lint's SYN002
read.

Apache checks a directive's argument count in ``server/config.c`` (``invoke_cmd``) by its
``command_rec`` type -- TAKE1, TAKE12, ITERATE, FLAG ... -- with fixed messages
("X takes one argument, <help>").  ``data/arity.json`` holds that type, the
counts it lets through and Apache's message for every directive of the registry whose module
Debian ships, *measured* on a real Apache by ``tools/probe_arity.py`` (its header names the
version).  Each entry here is (min, max) with ``max=None`` unbounded; ``extra`` says what
Apache does with words past ``max``: ``"error"`` (the directive fails: 500 in .htaccess, no
start in a server config) or ``"ignored"`` (FLAG reads one word and drops the rest;
mod_rewrite's RewriteRule/RewriteCond read what they need and drop the rest).

RAW_ARGS (and TAKE_ARGV) directives get their arguments unchecked: the module's own handler
judges them, so the probe cannot tell their counts.  :data:`HAND` writes down the ones worth
checking, from the handler's source, with the messages the probe saw (``seen`` in
arity.json); those .htaccess may carry are re-checked on Apache by
tests/lint/test_apache_truth.py and tests/lint/test_arity.py, the server-only ones were
checked with ``apache2 -t`` when written.  NB: httpd's ``AP_INIT_NO_ARGS`` declares RAW_ARGS,
so "no arguments" directives (SSLRequireSSL ...) silently accept any; they are not checked.

A quoted empty word ``""`` is a missing word to config.c where it requires one
(``AuthName ""`` fails), and ends an ITERATE loop (:func:`_config_c`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from confmig.apache import data_text


@dataclass(frozen=True, slots=True)
class Arity:
    min: int
    max: int | None
    message: str                  # Apache's error text; {args} is the argument line
    extra: str = "error"          # "error" or "ignored"
    type: str = "RAW_ARGS"        # config.c's args_how as measured (RAW_ARGS: by hand)
    few: tuple[str, ...] = ()     # a handler's own message for 0, 1, ... arguments (< min)

    def judge(self, args: list[str]) -> str | None:
        """``"error"``, ``"ignored"`` (Apache drops some words) or None for *args*."""
        if self.type in _CONFIG_C:
            return _config_c(self.type, args)
        n = len(args)
        if n < self.min:
            return "error"
        return self.extra if self.max is not None and n > self.max else None

    def ignored(self, args: list[str]) -> list[str]:
        """The words Apache reads past and drops (when :meth:`judge` says "ignored")."""
        if self.type in ("ITERATE", "ITERATE2"):
            start = 1 if self.type == "ITERATE2" else 0
            empty = args.index("", start) if "" in args[start:] else len(args)
            return args[empty + 1:]
        return args[self.max:] if self.max is not None else []

    def message_for(self, args: list[str]) -> str:
        n = len(args)
        text = self.few[n] if n < min(self.min, len(self.few)) else self.message
        return text.format(args=" ".join(args))


_CONFIG_C = frozenset({"NO_ARGS", "TAKE1", "TAKE2", "TAKE3", "TAKE12", "TAKE23", "TAKE123",
                       "TAKE13", "ITERATE", "ITERATE2", "FLAG"})


def _config_c(kind: str, args: list[str]) -> str | None:
    """What ``invoke_cmd`` (server/config.c) does with these words for an args_how *kind*:
    ``"error"`` (its fixed message), ``"ignored"`` (it stops reading: FLAG after the value,
    ITERATE/ITERATE2 at an empty word ``""``) or None.  A word may be an empty quoted string:
    ``ap_getword_conf`` returns ``""`` for it, which config.c takes for a missing word where
    one is required (``AuthName ""`` fails, ``SetEnv FOO ""`` does not)."""
    n = len(args)

    def given(i: int) -> bool:
        return i < n and args[i] != ""

    if kind == "NO_ARGS":
        bad = n > 0
    elif kind == "TAKE1":
        bad = n != 1 or not given(0)
    elif kind == "TAKE2":
        bad = n != 2 or not (given(0) and given(1))
    elif kind == "TAKE3":
        bad = n != 3 or not (given(0) and given(1) and given(2))
    elif kind == "TAKE12":
        bad = n > 2 or not given(0)
    elif kind == "TAKE23":
        bad = n > 3 or not (given(0) and given(1))
    elif kind == "TAKE123":
        bad = n > 3 or not given(0)
    elif kind == "TAKE13":
        bad = n > 3 or not given(0) or (n == 2 and given(1))
    elif kind == "ITERATE":
        if not given(0):
            return "error"
        return "ignored" if "" in args and args.index("") < n - 1 else None
    elif kind == "ITERATE2":
        if not given(0) or n < 2:
            return "error"
        rest = args[1:]
        return "ignored" if "" in rest and rest.index("") < len(rest) - 1 else None
    else:  # FLAG: the value itself is SYN004's business
        return "error" if n == 0 else "ignored" if n > 1 else None
    return "error" if bad else None


@cache
def measured() -> dict[str, dict[str, Any]]:
    """arity.json's entries (lower-case name -> type, min, max, message, extra, ...)."""
    return _data()["directives"]


@cache
def measured_meta() -> dict[str, Any]:
    return _data()["_meta"]


@cache
def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(data_text("arity.json"))
    return data


def measured_type(name: str) -> str | None:
    """Apache's args_how for *name* as probed (``"FLAG"``, ``"TAKE1"``, ``"RAW_ARGS"``,
    ``"unknown"``), or None when it was not probed."""
    entry = measured().get(name.lower())
    return entry["type"] if entry is not None else None


def _from_json(entry: dict[str, Any]) -> Arity | None:
    if entry["type"] in ("RAW_ARGS", "unknown") or entry["message"] is None:
        return None
    return Arity(entry["min"], entry["max"], entry["message"].replace("{", "{{")
                 .replace("}", "}}"), entry["extra"], entry["type"])


def _few(name: str, *what: str) -> tuple[str, ...]:
    return tuple(f"Missing {w} for {name}" for w in what)


# Hand-checked RAW_ARGS directives, from their handlers (httpd 2.4 source); each message is
# what the probe saw.  They override arity.json, where these are RAW_ARGS without counts.
HAND: dict[str, Arity] = {a_name.lower(): a for a_name, a in {
    # mod_rewrite parses pattern, substitution and [flags] itself and drops what follows.
    "RewriteRule": Arity(2, 3, "RewriteRule: bad argument line '{args}'", "ignored"),
    "RewriteCond": Arity(2, 3, "RewriteCond: bad argument line '{args}'", "ignored"),
    # mod_setenvif: header, regex, then at least one variable ("Missing envariable
    # expression"); BrowserMatch implies the User-Agent header.
    "SetEnvIf": Arity(3, None, "Missing envariable expression for SetEnvIf",
                      few=_few("SetEnvIf", "header-field name", "regular expression")),
    "SetEnvIfNoCase": Arity(3, None, "Missing envariable expression for SetEnvIfNoCase",
                            few=_few("SetEnvIfNoCase", "header-field name",
                                     "regular expression")),
    "BrowserMatch": Arity(2, None, "Missing envariable expression for BrowserMatch",
                          few=_few("BrowserMatch", "regular expression")),
    "BrowserMatchNoCase": Arity(2, None, "Missing envariable expression for BrowserMatchNoCase",
                                few=_few("BrowserMatchNoCase", "regular expression")),
    "SetEnvIfExpr": Arity(2, None, "Missing envariable expression for SetEnvIfExpr",
                          few=_few("SetEnvIfExpr", "expression")),
    # mod_authz_core: the first word names a provider.
    "Require": Arity(1, None, "Unknown Authz provider: "),
    # TAKE_ARGV, counted by the handler (server/listen.c).
    "Listen": Arity(1, 2, "Listen requires 1 or 2 arguments."),
    # Handlers that refuse an empty argument line.
    "UserDir": Arity(1, None, "UserDir requires an argument."),
    # (without arguments these read an uninitialised pointer: the worker may crash instead)
    "SessionCookieName": Arity(1, None, "SessionCookieName cannot be empty, or contain '=' or "
                                        "'&'."),
    "SessionCookieName2": Arity(1, None, "SessionCookieName2 cannot be empty, or contain '=' "
                                         "or '&'."),
    "SessionDBDCookieName": Arity(1, None, "SessionDBDCookieName requires at least one "
                                           "argument!"),
    "SessionDBDCookieName2": Arity(1, None, "SessionDBDCookieName2 requires at least one "
                                            "argument!"),
    "Error": Arity(1, None, "The Error directive was used with no message."),
    "AllowMethods": Arity(1, None, "AllowMethods: No method or 'reset' keyword given"),
    "Mutex": Arity(1, None, "Mutex requires at least a mechanism argument (Mutex mechanisms "
                            "are: 'none', 'default', 'flock:/path/to/file', "
                            "'fcntl:/path/to/file', 'file:/path/to/file', 'pthread', "
                            "'sysvsem', 'posixsem', 'sem')"),
    "RemoteIPProxyProtocolExceptions": Arity(1, None, "RemoteIPProxyProtocolExceptions "
                                                      "requires an argument"),
    "ProxyHCExpr": Arity(1, None, "Missing expression name for ProxyHCExpr"),
    "ProxyHCTemplate": Arity(1, None, "Missing template name for ProxyHCTemplate"),
    "AuthnzFcgiCheckAuthnProvider": Arity(1, None, "AuthnzFcgiCheckAuthnProvider: No provider "
                                                   "given"),
    "AuthnzFcgiDefineProvider": Arity(1, None, "AuthnzFcgiDefineProvider: No type given"),
    "MDomain": Arity(1, None, "needs at least one domain name"),
    "MDPrivateKeys": Arity(1, None, "needs to specify the private key type"),
    "SSLCARevocationCheck": Arity(1, None, "SSLCARevocationCheck: Invalid argument ''"),
    "SSLProxyCARevocationCheck": Arity(1, None, "SSLProxyCARevocationCheck: Invalid argument "
                                                "''"),
    "SSLOCSPEnable": Arity(1, None, "SSLOCSPEnable: Invalid argument ''"),
}.items()}


@cache
def _table() -> dict[str, Arity]:
    out = {}
    for lname, entry in measured().items():
        arity = _from_json(entry)
        if arity is not None:
            out[lname] = arity
    out.update(HAND)
    return out


@cache
def arity_of(lname: str) -> Arity | None:
    """The count of the directive with lower-case name *lname* (hand-checked, else measured),
    or None when it has none: only the directives a run meets are made (issue 17: a lint of
    one file met a dozen and paid for all ~640)."""
    if lname in HAND:
        return HAND[lname]
    entry = measured().get(lname)
    return _from_json(entry) if entry is not None else None


def __getattr__(name: str) -> Any:
    # ARITY, every directive with a known count (measured, then the hand-checked overrides),
    # is made when first asked for: the lint and the model ask arity_of.
    if name == "ARITY":
        return _table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

_HEADER_ACTIONS = ("add", "set", "setifempty", "append", "merge", "unset", "echo", "note",
                   "edit", "edit*")


def header_problem(args: list[str], name: str = "Header") -> str | None:
    """``Header``/``RequestHeader`` argument check (mod_headers' ``header_cmd`` and
    ``header_inout_cmd``, in their order)."""
    words = list(args)
    if name.lower() == "header" and words and words[0].lower() in ("always", "onsuccess"):
        words = words[1:]
    action, rest = (words[0].lower(), words[1:]) if words else ("", [])
    if len(rest) > 4:
        return f"{name} has too many arguments"
    if action not in _HEADER_ACTIONS:
        return ("first argument must be 'add', 'set', 'setifempty', 'append', 'merge', "
                "'unset', 'echo', 'note', 'edit', or 'edit*'.")
    if action in ("edit", "edit*"):
        return "Header edit requires a match and a substitution" if len(rest) < 3 else None
    if len(rest) == 4:
        return "Too many arguments to directive"
    if action in ("unset", "echo"):  # header [condition]
        if len(rest) == 3:
            return ("header unset takes two arguments" if action == "unset"
                    else "Header echo takes two arguments")
        clause = rest[1] if len(rest) == 2 else None
    elif len(rest) < 2:
        return "Header requires three arguments"
    else:
        clause = rest[2] if len(rest) == 3 else None
    if clause is not None and not clause.lower().startswith(("env=", "expr=", "early")):
        return f"Unknown parameter: {clause}"
    return None


def arity_problem(name: str, args: list[str]) -> tuple[str, str] | None:
    """(``"error"`` or ``"ignored"``, Apache's message) when ``args`` do not fit ``name``."""
    lname = name.lower()
    if lname in ("header", "requestheader"):
        problem = header_problem(args, "RequestHeader" if lname == "requestheader" else "Header")
        return ("error", problem) if problem else None
    arity = arity_of(lname)
    if arity is None:
        return None
    kind = arity.judge(args)
    return (kind, arity.message_for(args)) if kind is not None else None


@lru_cache(maxsize=2048)
def is_flag(syntax: str | None, name: str | None = None) -> bool:
    """An On/Off directive: Apache's FLAG type (measured), or the manual's syntax is
    ``Name On|Off`` and nothing else (some of those are TAKE1 with a handler that wants
    on/off, such as EnableSendfile)."""
    if name is not None and measured_type(name) == "FLAG":
        return True
    if not syntax:
        return False
    words = syntax.split()
    return len(words) == 2 and words[1].lower() == "on|off"


def reads_one_word(syntax: str | None, name: str) -> bool:
    """Whether Apache reads one word of *name* and ignores the rest (a FLAG).  The measured
    type decides; the manual's ``On|Off`` syntax only when *name* was not measured."""
    kind = measured_type(name)
    if kind not in (None, "unknown"):
        return kind == "FLAG"
    return is_flag(syntax)
