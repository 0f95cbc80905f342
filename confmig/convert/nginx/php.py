"""PHP through php-fpm (``convert --to nginx --php-fpm ADDR``): what a script sees under
Apache's ``mod_proxy_fcgi`` (``SetHandler "proxy:fcgi://ADDR"`` for ``.php``), as nginx
``fastcgi_pass`` locations.

Checked on real Apache, nginx and php-fpm (``tests/nginx/test_php_verify.py`` prints what
the application sees on both sides and compares):

* ``SCRIPT_NAME``/``SCRIPT_FILENAME``/``PATH_INFO``: the script is the first ``.php`` path
  component, the rest is PATH_INFO (decoded; unset when empty) — Apache's walk stops at the
  file, nginx needs ``fastcgi_split_path_info`` (and the PATH_INFO kept in a variable before
  ``try_files`` changes ``$uri``);
* ``REQUEST_URI`` is the request's own, ``QUERY_STRING`` the current one (after a rewrite);
* after an internal redirect (a rewrite to ``index.php``; not ``DirectoryIndex`` nor
  ``FallbackResource``, which mod_dir does as "fast" redirects: ``tests/nginx/
  test_php_fallback.py``), Apache adds ``REDIRECT_STATUS=200``, ``REDIRECT_URL`` (the
  request's decoded path), ``REDIRECT_QUERY_STRING`` (when it had one) and ``REDIRECT_<VAR>``
  for each variable the first pass set — so the request's own path and query are kept at the
  server level, across nginx's internal redirects, and the first scope the request met is
  remembered (and where a fallback left which path for which script);
* Apache never passes the ``Authorization`` header to a script (``CGIPassAuth Off``), nor
  ``Proxy``/``Proxy-Authorization``: only what ``[E=HTTP_AUTHORIZATION:%{HTTP:Authorization}]``
  set, possibly empty, or ``SetEnvIf Authorization "(.+)" HTTP_AUTHORIZATION=$1``.  nginx
  passes every header, so those are overridden here.

What cannot be carried over is announced, never dropped silently.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from confmig.convert.nginx.maps import HttpMaps
from confmig.convert.nginx.rewrite import SCRIPT_FIELDS, q
from confmig.model.plan import FilesScope, RewritePlan, Settings, SitePlan, Source

#: Which requests go to PHP: the first path component that ends in ``.php`` (then PATH_INFO).
LOCATION = "~ [^/]\\.php(/|$)"
SPLIT = "^(.+?\\.php)(/.*)$"
#: A FastCGI parameter set like Debian's ``fastcgi_params`` (self-contained: the output does
#: not depend on where nginx's prefix is), minus nginx's own ``DOCUMENT_URI`` and the
#: unconditional ``REDIRECT_STATUS`` (Apache sends it only after an internal redirect).
PARAMS = [
    ("QUERY_STRING", "$query_string"), ("REQUEST_METHOD", "$request_method"),
    ("CONTENT_TYPE", "$content_type"), ("CONTENT_LENGTH", "$content_length"),
    ("SCRIPT_NAME", "$fastcgi_script_name"),
    ("SCRIPT_FILENAME", "$document_root$fastcgi_script_name"),
    ("PATH_INFO", "$confmig_php_path_info if_not_empty"),
    ("REQUEST_URI", "$request_uri"), ("DOCUMENT_ROOT", "$document_root"),
    ("SERVER_PROTOCOL", "$server_protocol"), ("REQUEST_SCHEME", "$scheme"),
    ("HTTPS", "$https if_not_empty"), ("GATEWAY_INTERFACE", "CGI/1.1"),
    ("SERVER_SOFTWARE", "nginx/$nginx_version"), ("REMOTE_ADDR", "$remote_addr"),
    ("REMOTE_PORT", "$remote_port"), ("SERVER_ADDR", "$server_addr"),
    ("SERVER_PORT", "$server_port"), ("SERVER_NAME", "$server_name"),
    # Apache hands a script none of these headers (httpoxy, CGIPassAuth Off)
    ("HTTP_PROXY", '"" if_not_empty'), ("HTTP_PROXY_AUTHORIZATION", '"" if_not_empty'),
]
#: Handlers Apache runs PHP with (mod_php's, Debian's php-fpm configuration's).
PHP_HANDLERS = ("application/x-httpd-php", "php-script", "php8-script", "php7-script",
                "proxy:fcgi://", "proxy:unix:")
#: FallbackResource's record of its fast redirect (:meth:`PhpEmitter.fallback_lines`)
_FAST_COMMENT = ("# FallbackResource is a fast redirect for Apache: no REDIRECT_* for the "
                 "script it reaches")
_FAST_SET = "set $confmig_php_fast "
_REQUEST_FILENAME = re.compile(r"\$(?:\{request_filename\}|request_filename(?![A-Za-z0-9_]))")


def _filename(match: re.Match[str]) -> str:
    """``$confmig_php_filename`` (braced only where a name character follows: an ``if``
    takes no braces)."""
    rest = match.string[match.end():match.end() + 1]
    return "${confmig_php_filename}" if rest and (rest.isalnum() or rest == "_") \
        else "$confmig_php_filename"
_COPY = re.compile(r"^(HTTP_[A-Z0-9_]+):%\{HTTP:([A-Za-z0-9-]+)\}$")


def is_php_handler(handler: str) -> bool:
    """A handler that makes Apache run the file with PHP."""
    return handler.lower().startswith(PHP_HANDLERS)


def files_php(files: FilesScope) -> bool | None:
    r"""Whether a file a ``<Files>`` section matches runs as PHP, when the section decides it:
    its own ``SetHandler`` replaces the server's (``--php-fpm``: a ``<FilesMatch \.php$>``
    as Debian's php-fpm configuration, merged before the access files' sections).
    ``SetHandler none`` leaves it to mod_mime's ``AddHandler`` of ``.php``.  None: the
    section sets no handler (a ``.php`` name runs as PHP)."""
    if not files.sets_handler:
        return None
    settings = files.settings
    if settings.handler is not None:
        return is_php_handler(settings.handler)
    return any(ext == "php" and is_php_handler(h) for ext, h in settings.handlers)


#: What the value of the map :meth:`PhpEmitter._empty_authorization` makes send empty, and
#: how: nginx leaves out an ``HTTP_*`` parameter whose value is a constant "" (the way to
#: hide a header), so that one is the header's empty variable (the map saw it empty).
_EMPTY_PARAMS = {"1": ("REDIRECT_HTTP_AUTHORIZATION", '""'),
                 "2": ("HTTP_AUTHORIZATION", "$http_authorization")}
#: Debian's php-fpm configuration: ``<FilesMatch ".+\.php$"> SetHandler "proxy:fcgi://…"``
_PHP_FILES = re.compile(r".+\.php$")


def index_before_fallback(names: Iterable[str], settings: Settings,
                          php_fpm: bool) -> tuple[list[str], bool]:
    """The ``DirectoryIndex`` names mod_dir tries under ``FallbackResource``, and whether the
    fallback then answers for the directory.  Each name is a sub-request, and in it a missing
    file with no handler is ``fixup_dflt``'s: the fallback is served as that index (real
    Apache: ``/d/`` with only ``d/index.php`` serves ``/index.php`` under Debian's
    ``DirectoryIndex index.html …``).  A missing name that gets a handler (``SetHandler``,
    ``AddHandler`` of one of its extensions, PHP's ``<FilesMatch>`` with *php_fpm*) is not
    usable and the next is tried; when every name gets one, no fallback: the listing or 403
    (``tests/nginx/test_php_fallback.py``)."""
    tried: list[str] = []
    for name in names:
        tried.append(name)
        base = name.rsplit("/", 1)[-1]
        extensions = {e.lower() for e in base.split(".")[1:]}
        handled = settings.handler is not None \
            or any(ext.lower() in extensions for ext, _ in settings.handlers) \
            or (php_fpm and _PHP_FILES.match(base) is not None)
        if not handled:
            return tried, True
    return tried, False


MAX_NAME_FILES = 5000  # files of a directory looked at for names mod_mime gives .php's handler


def handler_notes(settings: Settings, php_fpm: bool, files: FilesScope | None,
                  directory: str) -> list[tuple[str, str]]:
    """(directive, reason) for each handler in force that the output does not run as Apache
    does: every handler but Apache's own file handler (``AddHandler``, a ``<Files>``
    section's ``SetHandler``), except — with ``--php-fpm`` — a PHP
    handler of ``.php`` (``AddHandler``, while no file of *directory* has ``.php`` before
    its last extension or in other letters, which mod_mime hands to it too) or of a
    ``<Files>`` section (*files*)."""
    out = []
    for ext, handler in settings.handlers:
        if handler == "default-handler":
            continue  # Apache's own file handler: the file is sent, as nginx sends it
        if not (php_fpm and is_php_handler(handler)):
            out.append(("AddHandler", f".{ext} → {handler}: not translated (nginx serves the "
                                      "file as it is)"))
        elif ext != "php":
            out.append(("AddHandler", f".{ext} → {handler}: nginx hands only names ending "
                                      "in .php to php-fpm"))
        else:
            other = _other_php_names(directory)
            if other:
                out.append(("AddHandler", f".php → {handler}: mod_mime also hands {other} "
                                          "to it (every extension counts, in any letters); "
                                          "nginx serves it as a file"))
    handler = settings.handler
    # Apache's file handler: a file is sent as nginx sends it (with --php-fpm a <Files>
    # section's PHP handler still wins over a directory's), and a directory without an index
    # file is its 404 (render: the last `index` leads to a 404 location) — but it also
    # turns FallbackResource off
    # (a name no module provides is the default handler's too: settings.handler_unknown)
    exact = (handler == "default-handler" or settings.handler_unknown) and not settings.fallback
    if handler is not None and not exact:
        if not php_fpm or not is_php_handler(handler):
            out.append(("SetHandler", f"{handler}: not translated"))
        elif files is None:
            out.append(("SetHandler", f"{handler} for every file of the directory: nginx "
                                      "hands only .php names to php-fpm"))
    return out


def handler_source(plan: SitePlan, directory: str, directive: str) -> Source | None:
    """The line of the deepest *directive* (SetHandler, AddHandler…) in force in
    *directory*: the plan's handler note of it or of a parent directory."""
    best = None
    for note in plan.notes:
        inside = directory == note.scope or directory.startswith(note.scope.rstrip("/") + "/")
        if note.handler and inside and note.directive.lower() == directive.lower() \
                and (best is None or len(note.scope) >= len(best.scope)):
            best = note
    return best.source if best is not None else None


@lru_cache(maxsize=64)  # asked for every location of a scope, within one conversion
def _other_php_names(directory: str) -> str:
    """A file below *directory* whose name mod_mime gives ``.php``'s handler but that does
    not end in ``.php`` (``a.php.jpg``, ``A.PHP``), or ""."""
    seen = 0
    for current, dirs, names in os.walk(directory):
        dirs.sort()
        for name in sorted(names):
            seen += 1
            if seen > MAX_NAME_FILES:
                return ""
            extensions = [e.lower() for e in name.split(".")[1:]]
            if "php" in extensions and not name.endswith(".php"):
                return os.path.relpath(os.path.join(current, name), directory)
    return ""


@dataclass(frozen=True)
class EnvCopy:
    """``[E=HTTP_X:%{HTTP:X}]``: a request header copied into the script's environment,
    ``always`` (also when empty: the variable is set to "") or only when ``present``."""

    name: str
    header: str
    always: bool

    @property
    def variable(self) -> str:
        return "$http_" + self.header.lower().replace("-", "_")


@dataclass
class ScopeEnv:
    """What the rules of one scope hand to a script through the environment."""

    copies: list[EnvCopy] = field(default_factory=list)
    #: rules whose every [E=…] is such a copy: nothing of them is lost
    handled: set[Source] = field(default_factory=set)
    #: (source, reason, the compared fields it changes) of what is not reproduced: what
    #: the script sees is its answer's body
    notes: list[tuple[Source | None, str, frozenset[str]]] = field(default_factory=list)

    @property
    def authorization(self) -> EnvCopy | None:
        return next((c for c in self.copies if c.name == "HTTP_AUTHORIZATION"), None)


def scope_env(settings: Settings) -> ScopeEnv:
    """The header copies of the rules in force (before any rule that ends the pass)."""
    out = ScopeEnv()
    rewrite: RewritePlan | None = settings.rewrite
    if rewrite is None:
        return out
    for rule in rewrite.rules:
        source = Source(rule.directive.file, rule.directive.line) if rule.directive else None
        copied = 0
        for entry in rule.env:
            copy = _COPY.match(entry.replace(" ", ""))
            if copy is None or not rule.nosub or rule.chain or rule.skip:
                out.notes.append((source, f"[E={entry}]: the variable is not handed to PHP",
                                  SCRIPT_FIELDS))
                continue
            header = copy.group(2)
            if copy.group(1) != "HTTP_" + header.upper().replace("-", "_"):
                out.notes.append((source, f"[E={entry}]: the variable is not handed to PHP",
                                  SCRIPT_FIELDS))
                continue
            copied += 1
            if not rule.conditions:
                out.copies.append(EnvCopy(copy.group(1), header, True))
            elif (len(rule.conditions) == 1 and not rule.conditions[0].negate
                  and rule.conditions[0].kind == "regex"
                  and rule.conditions[0].test.replace(" ", "").lower()
                  == f"%{{http:{header.lower()}}}"
                  and rule.conditions[0].pattern in (".", ".+", "^.+$", "^(.+)$", "(.+)")):
                out.copies.append(EnvCopy(copy.group(1), header, False))
                if not rule.conditions[0].novary:
                    out.notes.append((source, f"Apache adds 'Vary: {header}' to the answer "
                                              "when the header is sent: not reproduced",
                                      frozenset({"vary"})))
            else:
                copied -= 1
                out.notes.append((source, f"[E={entry}] under conditions: the variable is "
                                          "not handed to PHP", SCRIPT_FIELDS))
        if rule.env and copied == len(rule.env) and source is not None:
            out.handled.add(source)
        if rule.last or rule.end or rule.status_flag or rule.redirect:
            break
    always = [c for c in out.copies if c.always and c.name != "HTTP_AUTHORIZATION"]
    for each in always:
        out.notes.append((None, f"[E={each.name}:%{{HTTP:{each.header}}}] for every request: "
                                "an empty variable where the header is missing (nginx: none)",
                          SCRIPT_FIELDS))
    return out


class PhpEmitter:
    """The PHP locations of one server (one per scope and per ``<Files>`` location that
    may meet a ``.php`` request), the server-level lines and the ``map`` blocks."""

    def __init__(self, address: str, http: HttpMaps, scopes: Iterable[tuple[str, Settings]],
                 authorization: Iterable[str] = ()) -> None:
        """*authorization*: the scope ids where SetEnvIf hands the Authorization header to
        scripts as HTTP_AUTHORIZATION (when it is sent)."""
        self.address = address
        self.http = http
        scopes = list(scopes)
        #: scope id → its header copies (the first pass's decide the REDIRECT_ variables)
        self.envs = {sid: scope_env(settings) for sid, settings in scopes}
        #: a FallbackResource somewhere: its fast redirect is told from a rewrite's
        #: (:meth:`fallback_lines`)
        self.fallback = any((settings.fallback or "").startswith("/")
                            for _, settings in scopes)
        for sid in authorization:
            env = self.envs.get(sid)
            if env is not None and env.authorization is None:
                env.copies.append(EnvCopy("HTTP_AUTHORIZATION", "Authorization", False))
        self.named: dict[str, list[str]] = {}
        self.labels: dict[str, str] = {}  # named location → what it is for
        #: FallbackResource's try_files route → the lines that walk a missing script's
        #: directory (the renderer's), in a named location that then hands it to php-fpm:
        #: Apache runs the handler where its walk reaches the name, missing or not
        #: (php-fpm's 404), and falls back only before it
        self.script_walks: dict[str, list[str]] = {}

    def notes(self, sid: str) -> list[tuple[Source | None, str, frozenset[str]]]:
        return self.envs[sid].notes

    def server_lines(self) -> list[str]:
        return [
            "# PHP (--php-fpm): the request's own path and query, kept across nginx's",
            "# internal redirects (Apache's REDIRECT_URL and REDIRECT_QUERY_STRING)",
            "uninitialized_variable_warn off;",
            'if ($confmig_php_url = "") { set $confmig_php_url $uri; '
            "set $confmig_php_query $args;"
            + (' set $confmig_php_fast "";' if self.fallback else "") + " }",
            "# the URL at the last internal redirect (index, try_files): a rewrite … last",
            "# since then is an internal redirect for Apache, index's is not",
            "set $confmig_php_internal $uri;",
        ]

    def first_pass(self, sid: str) -> str:
        """The line every location of scope *sid* starts with: the first scope a request
        meets is the one whose variables Apache renames to REDIRECT_… ."""
        # appended, never tested with `if`: an `if` that matches takes try_files out
        return f'set $confmig_php_pass1 "${{confmig_php_pass1}}s{sid}";'

    def fallback_lines(self, target: str) -> list[str]:
        """The lines before a FallbackResource's ``try_files`` (after the rules: a rule's
        ``last``/``break`` skips them, its rewrite being Apache's internal redirect).
        mod_dir's fallback is a *fast* internal redirect (``ap_internal_fast_redirect``):
        the script sees no ``REDIRECT_*`` — unlike a rewrite to it.  The path the fallback
        leaves and the *target* are recorded; the script's location compares them with the
        request's own path and its own (:meth:`fastcgi_lines`)."""
        return [_FAST_COMMENT, f"{_FAST_SET}{q('$uri>' + target)};"]

    def location_lines(self, sid: str, lines: list[str], index: Iterable[str]) -> list[str]:
        """The lines of a PHP location: the scope's own *lines* (``try_files`` and the
        rules' ``$request_filename`` on the script's file, as Apache's ``-f`` sees it), then
        the FastCGI hand-over.  What the rules need is set before them: a rule's ``break``
        ends nginx's rewrite phase."""
        head, fastcgi, empty = self.fastcgi_lines(sid, index)
        body = ['set $confmig_php_filename "$document_root$fastcgi_script_name";']
        walk: list[str] = []
        fast: list[str] = []
        for line in lines:
            # Apache's %{REQUEST_FILENAME} of /x.php/info is the script (its walk stops at
            # the file), nginx's $request_filename the whole path
            line = _REQUEST_FILENAME.sub(_filename, line)
            if line == _FAST_COMMENT or line.startswith(_FAST_SET):
                # only where a missing script's walk falls back: nginx may run a location's
                # rewrite phase again, and the script's path is no fallback's
                fast.append(line)
                continue
            if line.startswith("try_files "):
                fallback = line.removesuffix(";").split()[-1]
                if fallback in self.script_walks:
                    # a missing script: its directory walked, then php-fpm's own 404
                    walk = self.script_walks[fallback]
                    fallback = f"@confmig_php_{len(self.named) + 1}"
                    self.named[fallback] = []
                    self.labels[fallback] = "PHP: a missing script under FallbackResource"
                line = f"try_files $fastcgi_script_name {fallback};"
            elif line.startswith(("index ", "autoindex ")):
                continue
            body.append(line)
        if walk:
            name = next(n for n, named in self.named.items() if not named)
            self.named[name] = [*head, *(line for line in body
                                        if not line.startswith("try_files ")),
                                *fast, *walk, *fastcgi]
        if not any(line.startswith("try_files ") for line in body):
            # Apache hands over only what its walk stops at (the script, or the first
            # missing component when it matches): in a missing directory, its own 404
            parent = self.http.map("$confmig_php_filename",
                                   [("~^(?<confmig_php_d>.*)/", "$confmig_php_d")], '""')
            body += ["# a script in a directory that does not exist: Apache's own 404",
                     f"if (!-d {parent}) {{ return 404; }}"]
        if empty is None:
            return [*head, *body, *fastcgi]
        # A parameter cannot be sent empty on a condition: the same location once more,
        # named, sends it — jumped to before the rules (whose break would skip the jump).
        variable, values = empty
        jumps = []
        for value in values:
            param = _EMPTY_PARAMS[value][0]
            jumps.append("# [E=HTTP_AUTHORIZATION:…] set it empty in the first pass: Apache "
                         f"hands {param} over empty" + (" (FallbackResource's fast redirect)"
                                                        if value == "2" else ""))
            name = f"@confmig_php_{len(self.named) + 1}"
            self.named[name] = [f"fastcgi_split_path_info {q(SPLIT)};", *body, *fastcgi,
                                f"fastcgi_param {param} {_EMPTY_PARAMS[value][1]};"]
            self.labels[name] = f"PHP: {param} set empty"
            code = 600 - int(value)
            jumps += [f"error_page {code} = {name};",
                      f"if ({variable} = {value}) {{ return {code}; }}"]
        return [*head, *jumps, *body, *fastcgi]

    def fastcgi_lines(self, sid: str, index: Iterable[str]
                      ) -> tuple[list[str], list[str], tuple[str, list[str]] | None]:
        """The lines that go before a location's own (the request's variables, taken before
        its rules may ``break``), the hand-over after them, and the variable that tells
        when a parameter must be sent empty, with its values (:data:`_EMPTY_PARAMS`; None:
        never)."""
        env = self.envs[sid]
        names = [re.escape(n) for n in index if n.lower().endswith(".php") and "/" not in n]
        same = "^(.*)\\|\\1\\|\\1$" + (
            f"|^(.*/)\\|(\\2(?:{'|'.join(names)}))\\|\\3$" if names else "")
        auth = env.authorization
        params = [*PARAMS]
        first = self._fast_authorization(sid)
        if auth is None and first:
            # FallbackResource's fast redirect keeps the variables of the request's first
            # pass under their own names (r->subprocess_env): another scope's copy counts
            rows = [(f"~^\\|s{other}(?:s|$)", "$http_authorization") for other in first]
            value = self.http.map('"$confmig_php_status|$confmig_php_pass1"', rows, '""')
            params.append(("HTTP_AUTHORIZATION", f"{value} if_not_empty"))
        elif auth is None:
            params.append(("HTTP_AUTHORIZATION", '"" if_not_empty'))
        else:
            params.append(("HTTP_AUTHORIZATION", "$http_authorization"
                           + ("" if auth.always else " if_not_empty")))
        # maps, not `if … { set }`: an `if` that matches takes try_files out of the location
        redirected = "200"
        if self.fallback:
            # FallbackResource's fast redirect: the path it left is the request's own and
            # the script is its target ("A|B" with A equal to B: one split only)
            redirected = self.http.map('"$confmig_php_url>$uri|$confmig_php_fast"',
                                       [("~^(.*)\\|\\1$", '""')], "200")
        redirected = self.http.map('"$confmig_php_url|$confmig_php_internal|$uri"',
                                   [(f"~{same}", '""')], redirected)
        status = "$confmig_php_status"  # set before try_files changes $uri
        params += [("REDIRECT_STATUS", f"{status} if_not_empty"),
                   ("REDIRECT_URL", self.http.map(status, [("200", "$confmig_php_url")], '""')
                    + " if_not_empty"),
                   ("REDIRECT_QUERY_STRING", self.http.map(
                       status, [("200", "$confmig_php_query")], '""') + " if_not_empty")]
        for name, var in self._redirect_copies(status):
            params.append((f"REDIRECT_{name}", f"{var} if_not_empty"))
        head = [
            "# PHP through php-fpm: what Apache's mod_proxy_fcgi hands to the script",
            f"fastcgi_split_path_info {q(SPLIT)};",
            "set $confmig_php_path_info $fastcgi_path_info;",
            "# after an internal redirect (not DirectoryIndex's): REDIRECT_STATUS, _URL…",
            f"set $confmig_php_status {redirected};",
        ]
        fastcgi = [f"fastcgi_pass {self.address};",
                   *(f"fastcgi_param {name} {value};" for name, value in params)]
        return head, fastcgi, self._empty_authorization(status, first)

    def named_locations(self, make: Callable[[str, list[str], list[str]], Any]) -> list[Any]:
        """The named locations :meth:`location_lines` jumps to (server level)."""
        return [make(name, [self.labels[name]], lines) for name, lines in self.named.items()]

    def _redirect_copies(self, status: str) -> list[tuple[str, str]]:
        """REDIRECT_<VAR> for every variable a first pass may set: a map of the redirect
        status and the first scope to the header's value."""
        names = sorted({c.name for env in self.envs.values() for c in env.copies})
        out = []
        for name in names:
            rows = [(f"~^200:s{sid}(?:s|$)", copy.variable) for sid, env in self.envs.items()
                    for copy in env.copies if copy.name == name]
            out.append((name, self.http.map(f'"{status}:$confmig_php_pass1"', rows, '""')))
        return out

    def _fast_authorization(self, sid: str) -> list[str]:
        """The other scopes whose rules hand the Authorization header to a script, when
        scope *sid*'s do not and a FallbackResource may bring a request from them."""
        if not self.fallback or self.envs[sid].authorization is not None:
            return []
        return [other for other, env in self.envs.items()
                if other != sid and env.authorization is not None]

    def _empty_authorization(self, status: str, first: list[str]
                             ) -> tuple[str, list[str]] | None:
        """An ``always`` copy and no header: REDIRECT_HTTP_AUTHORIZATION="" after an
        internal redirect ("1"), HTTP_AUTHORIZATION="" after a fast one from a scope of
        *first* ("2"); the map variable and the values it can take."""
        rows = [(f"~^200:s{sid}(?:s[^:]*)?:$", "1") for sid, env in self.envs.items()
                if env.authorization is not None and env.authorization.always]
        rows += [(f"~^:s{other}(?:s[^:]*)?:$", "2") for other in first
                 if (auth := self.envs[other].authorization) is not None and auth.always]
        if not rows:
            return None
        variable = self.http.map(f'"{status}:$confmig_php_pass1:$http_authorization"', rows,
                                 '""')
        return variable, sorted({value for _, value in rows})

    def add_locations(self, sid: str, locations: list[Any], index: Iterable[str],
                      make: Callable[[str, list[str], list[str]], Any],
                      files: dict[str, FilesScope] | None = None) -> None:
        """Make a scope's *locations* (``match``, ``lines``, ``nested``, ``front``; built by *make*)
        hand ``.php`` to php-fpm: a nested PHP location in the scope's own location and in
        each ``<Files>`` location (with their lines), the FastCGI lines in an exact
        location of a ``.php`` file; every location first records the scope as the
        request's first pass.  *files* maps a ``<Files>`` location's ``match`` to its
        section: one whose ``SetHandler`` switches PHP off gets no PHP location, and the
        scope's PHP location answers 404 for a script it matches followed by PATH_INFO
        (Apache's default handler does); one that switches it on hands every name to it."""
        sections = files or {}
        off = [m for m, f in sections.items() if files_php(f) is False]
        for location in locations:
            self._add(sid, location, list(index), make, False, sections, off)

    def _add(self, sid: str, location: Any, index: list[str],
             make: Callable[[str, list[str], list[str]], Any], nested: bool,
             sections: dict[str, FilesScope], off: list[str]) -> None:
        match: str = location.match
        if match.startswith("= "):
            if match.strip('= "').lower().endswith(".php"):
                location.lines[:] = self.location_lines(sid, _with_try_files(location),
                                                        index)
                location.front = None
            location.lines.insert(0, self.first_pass(sid))
            return
        for child in location.nested:
            self._add(sid, child, index, make, True, sections, off)
        section = sections.get(match) if nested else None
        runs = files_php(section) if section is not None else None
        if runs is not False and (not nested or match.startswith("~")):
            lines = [line for line in _with_try_files(location)
                     if not line.startswith(("# untranslatable:", "# note:"))]
            guard = []
            if not nested:
                for regex in off:  # "~ REGEX" of a <Files> location
                    guard.append(f"if ($fastcgi_script_name {regex}) {{ return 404; }}")
                if guard:
                    guard.insert(0, "# a script whose <Files> section switches PHP off, "
                                    "with PATH_INFO: Apache's default handler answers 404")
            where = "~ ^/" if runs else LOCATION  # the section's every name is a script
            location.nested.append(make(where, ["PHP scripts (--php-fpm)"],
                                        [self.first_pass(sid), *guard,
                                         *self.location_lines(sid, lines, index)]))
        location.lines.insert(0, self.first_pass(sid))


def _with_try_files(location: Any) -> list[str]:
    """A location's lines for its PHP location: with its front controller's ``try_files``,
    not the block that does its work by hand (render's ``Front``)."""
    front = location.front
    return [*location.lines, *([front.try_files] if front is not None else [])]


def uses_php(plan: SitePlan) -> bool:
    """Whether the site runs PHP: a rule, FallbackResource or handler names a ``.php``
    script, or the document root has an ``index.php``."""
    if os.path.isfile(os.path.join(plan.document_root, "index.php")):
        return True
    for scope in plan.scopes:
        for settings in (scope.settings, *(f.settings for f in scope.files)):
            rules = settings.rewrite.rules if settings.rewrite is not None else ()
            if any(".php" in rule.substitution for rule in rules) \
                    or (settings.fallback or "").endswith(".php") \
                    or any(is_php_handler(h) for _, h in settings.handlers) \
                    or is_php_handler(settings.handler or ""):
                return True
    return False
