"""How many arguments common directives take, and what Apache says when they do not.

Each entry is the directive's ``command_rec`` type in httpd 2.4 (TAKE1, TAKE12,
ITERATE, FLAG …) written as (min, max); ``max=None`` is unbounded.  ``extra``
says what Apache does with words past ``max``: ``"error"`` (the directive fails:
500 in .htaccess, no start in a server config) or ``"ignored"`` (FLAG and
mod_rewrite's RewriteRule/RewriteCond read what they need and drop the rest).
Messages are Apache's own, checked on Apache 2.4 (tests/lint/test_apache_truth.py).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Arity:
    min: int
    max: int | None
    message: str                  # Apache's error text; {args} is the argument line
    extra: str = "error"          # "error" or "ignored"


def _take1(name: str, what: str) -> Arity:
    return Arity(1, 1, f"{name} takes one argument, {what}")


def _take2(name: str, what: str) -> Arity:
    return Arity(2, 2, f"{name} takes two arguments, {what}")


def _iterate(name: str, what: str) -> Arity:
    return Arity(1, None, f"{name} requires at least one argument, {what}")


def _iterate2(name: str, what: str) -> Arity:
    return Arity(2, None, f"{name} requires at least two arguments, {what}")


_EXT = "followed by one or more file extensions"

ARITY: dict[str, Arity] = {a_name.lower(): a for a_name, a in {
    "RewriteRule": Arity(2, 3, "RewriteRule: bad argument line '{args}'", "ignored"),
    "RewriteCond": Arity(2, 3, "RewriteCond: bad argument line '{args}'", "ignored"),
    "RewriteBase": _take1("RewriteBase", "the base URL of the per-directory context"),
    "RewriteOptions": _iterate("RewriteOptions", "List of option strings to set"),
    "Redirect": Arity(1, 3, "Redirect takes one, two or three arguments, an optional status, "
                            "then document to be redirected and destination URL"),
    "RedirectMatch": Arity(2, 3, "RedirectMatch takes two or three arguments, an optional "
                                 "status, then a regular expression and destination URL"),
    "RedirectPermanent": _take2("RedirectPermanent",
                                "a document to be redirected, then the destination URL"),
    "RedirectTemp": _take2("RedirectTemp",
                           "a document to be redirected, then the destination URL"),
    "ErrorDocument": _take2("ErrorDocument", "Change responses for HTTP errors"),
    "AddType": _iterate2("AddType", f"a mime type {_EXT}"),
    "AddHandler": _iterate2("AddHandler", f"a handler name {_EXT}"),
    "AddCharset": _iterate2("AddCharset", f"a charset (e.g., iso-2022-jp), {_EXT}"),
    "AddEncoding": _iterate2("AddEncoding", f"an encoding (e.g., gzip), {_EXT}"),
    "AddLanguage": _iterate2("AddLanguage", f"a language (e.g., fr), {_EXT}"),
    "AddOutputFilter": _iterate2("AddOutputFilter",
                                 f"output filter name {_EXT}"),
    "AddOutputFilterByType": Arity(2, None, "AddOutputFilterByType requires at least two "
                                            "arguments"),
    "RemoveHandler": _iterate("RemoveHandler", "one or more file extensions"),
    "RemoveType": _iterate("RemoveType", "one or more file extensions"),
    "AddDefaultCharset": _take1("AddDefaultCharset", "The name of the default charset to add "
                                "to any Content-Type without one or 'Off' to disable"),
    "DefaultLanguage": _take1("DefaultLanguage", "language to use for documents with no other "
                              "language file extension"),
    "ExpiresByType": _take2("ExpiresByType", "a MIME type followed by an expiry date code"),
    "ExpiresDefault": _take1("ExpiresDefault", "an expiry date code"),
    "SetEnv": Arity(1, 2, "SetEnv takes 1-2 arguments, an environment variable name and "
                          "optional value to pass to CGI."),
    "UnsetEnv": _iterate("UnsetEnv", "a list of variables to remove from the CGI environment."),
    "SetEnvIf": Arity(2, None, "Missing regular expression for SetEnvIf"),
    "SetEnvIfNoCase": Arity(2, None, "Missing regular expression for SetEnvIfNoCase"),
    "BrowserMatch": Arity(2, None, "Missing regular expression for BrowserMatch"),
    "Order": _take1("order", "'allow,deny', 'deny,allow', or 'mutual-failure'"),
    "Allow": _iterate2("allow", "'from' followed by hostnames or IP-address wildcards"),
    "Deny": _iterate2("deny", "'from' followed by hostnames or IP-address wildcards"),
    "Satisfy": _take1("Satisfy", "access policy if both allow and require used "
                                 "('all' or 'any')"),
    "Require": Arity(1, None, "Unknown Authz provider: "),
    "FallbackResource": _take1("FallbackResource", "Set a default handler"),
    "SetHandler": _take1("SetHandler", "a handler name that overrides any other configured "
                                       "handler"),
    "ForceType": _take1("ForceType", "a mime type that overrides other configured type"),
    "AuthType": _take1("AuthType", 'an HTTP authorization type (e.g., "Basic")'),
    "AuthName": _take1("AuthName", 'the authentication realm (e.g. "Members Only")'),
    "AuthUserFile": Arity(1, 2, "AuthUserFile takes one argument, text file containing user "
                                "IDs and passwords"),
    "IndexIgnore": _iterate("IndexIgnore", "one or more file extensions"),
    "AcceptPathInfo": _take1("AcceptPathInfo", "Set to on or off for PATH_INFO to be accepted "
                             "by handlers, or default for the per-handler preference"),
    "LimitRequestBody": _take1("LimitRequestBody", "Limit (in bytes) on maximum size of "
                               "request message body"),
    "AllowOverride": Arity(1, None, "AllowOverride requires at least one argument"),
    "DocumentRoot": _take1("DocumentRoot", "Root directory of the document tree"),
    "ServerName": _take1("ServerName", "The hostname and port of the server"),
}.items()}


def header_problem(args: list[str]) -> str | None:
    """``Header``/``RequestHeader`` argument check (mod_headers' ``header_cmd``)."""
    words = list(args)
    if words and words[0].lower() in ("always", "onsuccess"):
        words = words[1:]
    if not words:
        return "Header requires three arguments"
    action, rest = words[0].lower(), words[1:]
    if action in ("edit", "edit*"):
        if len(rest) < 3:
            return "Header edit requires a match and a substitution"
        return None if len(rest) <= 4 else "Header has too many arguments"
    if len(rest) > 4:
        return "Too many arguments to directive"
    if action in ("unset", "echo"):
        return None if len(rest) <= 1 else f"Unknown parameter: {rest[1]}"
    if len(rest) < 2:
        return "Header requires three arguments"
    if len(rest) == 4:
        return "Too many arguments to directive"
    if len(rest) == 3 and not rest[2].lower().startswith(("env=", "expr=", "early")):
        return f"Unknown parameter: {rest[2]}"
    return None


def arity_problem(name: str, args: list[str]) -> tuple[str, str] | None:
    """(``"error"`` or ``"ignored"``, Apache's message) when ``args`` do not fit ``name``."""
    lname = name.lower()
    if lname in ("header", "requestheader"):
        problem = header_problem(args)
        return ("error", problem) if problem else None
    arity = ARITY.get(lname)
    if arity is None:
        return None
    n = len(args)
    if n < arity.min:
        return "error", arity.message.format(args=" ".join(args))
    if arity.max is not None and n > arity.max:
        return arity.extra, arity.message.format(args=" ".join(args))
    return None


def is_flag(syntax: str | None) -> bool:
    """A FLAG directive: the manual's syntax is ``Name On|Off`` and nothing else."""
    if not syntax:
        return False
    words = syntax.split()
    return len(words) == 2 and words[1].lower() == "on|off"
