"""Which variables, functions and operators ``ap_expr`` knows (``core_expr_lookup`` in
server/util_expr_eval.c, 2.4.x).  A name no provider knows makes the expression fail to parse,
with Apache's message ("Variable 'X' does not exist") — in an ``.htaccess`` file that is a 500.

mod_ssl adds the ``SSL_*`` variables when it is loaded; confmig knows them to exist (their
values depend on a TLS handshake, so evaluating one is reported, not guessed).
"""

from __future__ import annotations

MISC_VARIABLES = ("TIME_YEAR", "TIME_MON", "TIME_DAY", "TIME_HOUR", "TIME_MIN", "TIME_SEC",
                  "TIME_WDAY", "TIME", "SERVER_SOFTWARE", "API_VERSION")
# req_header_var_names and the header each one reads.
HEADER_VARIABLES = {"HTTP_USER_AGENT": "User-Agent", "HTTP_PROXY_CONNECTION": "Proxy-Connection",
                    "HTTP_REFERER": "Referer", "HTTP_COOKIE": "Cookie",
                    "HTTP_FORWARDED": "Forwarded", "HTTP_HOST": "Host",
                    "HTTP_ACCEPT": "Accept"}
REQUEST_VARIABLES = (
    "REQUEST_METHOD", "REQUEST_SCHEME", "REQUEST_URI", "REQUEST_FILENAME", "REMOTE_HOST",
    "REMOTE_IDENT", "REMOTE_USER", "SERVER_ADMIN", "SERVER_NAME", "SERVER_PORT",
    "SERVER_PROTOCOL", "SCRIPT_FILENAME", "PATH_INFO", "QUERY_STRING", "IS_SUBREQ",
    "DOCUMENT_ROOT", "AUTH_TYPE", "THE_REQUEST", "CONTENT_TYPE", "HANDLER", "REQUEST_LOG_ID",
    "SCRIPT_USER", "SCRIPT_GROUP", "DOCUMENT_URI", "LAST_MODIFIED", "CONTEXT_PREFIX",
    "CONTEXT_DOCUMENT_ROOT", "REQUEST_STATUS", "REMOTE_ADDR", "REMOTE_PORT")
CONNECTION_VARIABLES = ("HTTPS", "IPV6", "CONN_LOG_ID", "CONN_REMOTE_ADDR", "HTTP2")
VARIABLES = frozenset((*MISC_VARIABLES, *HEADER_VARIABLES, *REQUEST_VARIABLES,
                       *CONNECTION_VARIABLES))

# string_func_providers.
STRING_FUNCTIONS = frozenset({
    "osenv", "env", "resp", "req", "http", "note", "reqenv", "req_novary", "tolower",
    "toupper", "escape", "unescape", "file", "filesize", "base64", "unbase64", "sha1", "md5",
    "ldap"})
# The functions Apache 2.4.71 refuses in an .htaccess ("filesize not available in restricted
# context"); the file tests (-f, -d …) it allows there.  Checked on Apache in
# tests/differential/sites_expr.py.
RESTRICTED_FUNCTIONS = frozenset({"file", "filesize"})
UNARY_OPERATORS = frozenset({"n", "z", "R", "T", "d", "e", "f", "s", "L", "h", "x", "F", "U",
                             "A"})
BINARY_OPERATORS = frozenset({"ipmatch", "fnmatch", "strmatch", "strcmatch"})
# AP_EXPR_MAX_RECURSION: nested evaluations of words and conditions.
MAX_RECURSION = 20
# MODULE_MAGIC_NUMBER_MAJOR of Apache 2.4.
API_VERSION = "20120211"


def variable_known(name: str, ssl_loaded: bool = False) -> bool:
    upper = name.upper()
    return upper in VARIABLES or (ssl_loaded and upper.startswith("SSL_"))


def not_found(kind: str, name: str) -> str:
    """``expr_lookup_not_found``'s message."""
    prefix = "-" if kind in ("Unary operator", "Binary operator") else ""
    return f"{kind} '{prefix}{name}' does not exist"
