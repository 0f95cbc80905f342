"""The requests ``confmig verify`` sends to both servers.

Derived from the site itself, bounded in number:

* every file and directory (a directory with and without its trailing slash), and misses next
  to them (a name that does not exist in each directory, each file's name plus a character);
* for each ``RewriteRule``, ``RedirectMatch``, ``Redirect``, ``<Files>`` and ``<FilesMatch>``
  of every access file: URLs that match its pattern and URLs that just miss it
  (:mod:`confmig.verify.regexgen`), a query string where the rule has ``QSA``/``QSD`` or its
  substitution sets one, and Host, query, URI, header and method values generated for its
  ``RewriteCond`` tests;
* the user's own requests (``--requests FILE``): ``[METHOD] PATH [| Name: value]...``.
"""

from __future__ import annotations

import os
import string
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from confmig.convert.httpd import collect_access_files
from confmig.load import ReadState, load_htaccess
from confmig.model.rewrite.expand import TOKEN_VAR, tokenize
from confmig.model.rewrite.parse import Condition, RewriteConfig, RewriteRule
from confmig.syntax import Directive, Node, Section
from confmig.verify.regexgen import HOST_ALPHABET, PATH_ALPHABET, matches_pattern, samples

MAX_FS_ENTRIES = 400
NAME_ALPHABET = PATH_ALPHABET.replace("/", "")
QUERY_ALPHABET = string.ascii_letters + string.digits + "-._~=&"
METHOD_ALPHABET = string.ascii_uppercase
HEADER_ALPHABET = string.ascii_letters + string.digits + "-._~/ ;:()"
MISSING = "confmig-missing"

_HEADER_VARS = {
    "HTTP_USER_AGENT": "User-Agent", "HTTP_REFERER": "Referer", "HTTP_ACCEPT": "Accept",
    "HTTP_COOKIE": "Cookie", "HTTP_FORWARDED": "Forwarded", "HTTP_PROXY_CONNECTION": None,
}


def _request_header(var: str) -> str | None:
    """The request header a mod_rewrite variable reads (``HTTP:Name``, ``HTTP_REFERER``…),
    None for any other variable."""
    return (var[5:] or None) if var.startswith("HTTP:") else _HEADER_VARS.get(var)


_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"})


@dataclass(frozen=True)
class Probe:
    """One request: target exactly as sent, method, extra headers, and why it is sent."""

    path: str
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    why: str = ""
    directory: str | None = None  # the directory Apache walks for it (server path)

    @property
    def key(self) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        return (self.method, self.path, self.headers)

    def shown_headers(self) -> dict[str, str]:
        """The headers as they may be printed (:func:`shown`)."""
        return {n: shown(n, v) for n, v in self.headers}

    def describe(self) -> str:
        extra = "".join(f" [{n}: {shown(n, v)}]" for n, v in self.headers)
        method = "" if self.method == "GET" else f"{self.method} "
        return f"{method}{self.path}{extra}"


def shown(name: str, value: str) -> str:
    """A request header's value as it may be printed: a login (``verify --user``) only by
    its scheme, never its value."""
    return value.split(" ", 1)[0] + " …" if name.lower() == "authorization" else value


@dataclass
class ProbeSite:
    """One document root to probe: on disk, as the server names it, and the Host to send."""

    root: Path
    walk_root: str
    host: str | None = None
    access_names: tuple[str, ...] = (".htaccess",)
    state: ReadState | None = None  # modules and Defines the access files are read with

    def directory_of(self, target: str) -> str | None:
        """The deepest existing directory on the path of *target* (server path)."""
        parts: list[str] = []
        for part in unquote(urlsplit(target).path).split("/"):
            if part == "..":
                if not parts:
                    return None
                parts.pop()
            elif part not in ("", "."):
                parts.append(part)
        current, walked = self.root, self.walk_root
        for part in parts:
            nxt = current / part
            if not os.path.isdir(nxt):  # (False, never an error, for a name over NAME_MAX)
                break
            current, walked = nxt, f"{walked.rstrip('/')}/{part}"
        return walked

    def headers(self, extra: Iterable[tuple[str, str]] = ()) -> tuple[tuple[str, str], ...]:
        base = (("Host", self.host),) if self.host else ()
        extra = tuple(extra)
        if any(n.lower() == "host" for n, _ in extra):
            base = ()
        return base + extra


@dataclass
class ProbeSet:
    probes: list[Probe] = field(default_factory=list)
    truncated: int = 0
    out_of_time: bool = False  # generation was cut by the deadline
    _seen: set = field(default_factory=set)

    def add(self, probe: Probe, limit: int) -> None:
        if probe.key in self._seen:
            return
        if len(self.probes) >= limit:
            self.truncated += 1
            return
        self._seen.add(probe.key)
        self.probes.append(probe)


class ProbeFileError(ValueError):
    """A line of ``--requests FILE`` that cannot be read (message starts with file:line)."""


def generate(sites: list[ProbeSite], requests: list[Probe], max_requests: int,
             deadline: float | None = None) -> ProbeSet:
    """The bounded, deterministic probe list: the user's requests first, then for each site
    its files, then the patterns of its access files.

    Bounded in time by *deadline* (``time.monotonic()``; what was generated by then is kept)
    and in size: no site contributes more than twice *max_requests* candidates, so
    ``truncated`` is then a lower bound."""
    result = ProbeSet()
    for probe in requests:
        result.add(probe, max_requests)
    per_site: list[list[Probe]] = []
    for site in sites:
        probes: list[Probe] = []
        per_site.append(probes)
        if result.out_of_time:
            break
        for probe in _site_probes(site):
            if deadline is not None and time.monotonic() >= deadline:
                result.out_of_time = True
                break
            probes.append(probe)
            if len(probes) >= 2 * max_requests:
                break
    # Interleave sites so that a small budget still covers every one of them.
    for index in range(max((len(p) for p in per_site), default=0)):
        for probes in per_site:
            if index < len(probes):
                result.add(probes[index], max_requests)
    return result


def read_requests(path: Path, site: ProbeSite | None) -> list[Probe]:
    """``--requests FILE``: ``[METHOD] PATH [| Name: value]...``; ``#`` comments.  UTF-8 text,
    as ``bench --urls`` reads its file: a byte of another encoding is refused with its
    ``file:line`` (percent-encoded, ``%E9``, it is a request to send)."""
    out = []
    try:
        data = path.read_bytes()
        lines = data.decode("utf-8").splitlines()
    except OSError as exc:
        raise ProbeFileError(f"{path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        number = data.count(b"\n", 0, exc.start) + 1
        raise ProbeFileError(f"{path}:{number}: not UTF-8 text (byte 0x{data[exc.start]:02x}: "
                             f"{exc.reason}); write such a byte percent-encoded, "
                             f"%{data[exc.start]:02X}") from exc
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        request, *header_parts = [p.strip() for p in text.split("|")]
        words = request.split()
        method = "GET"
        if len(words) == 2 and words[0].isupper():
            method, target = words
        elif len(words) == 1:
            target = words[0]
        else:
            raise ProbeFileError(f"{path}:{number}: expected [METHOD] PATH, got {request!r}")
        if not target.startswith("/"):
            raise ProbeFileError(f"{path}:{number}: the path must start with '/': {target!r}")
        headers = []
        for part in header_parts:
            name, sep, value = part.partition(":")
            if not sep or not name.strip():
                raise ProbeFileError(f"{path}:{number}: expected 'Name: value', got {part!r}")
            headers.append((name.strip(), value.strip()))
        hdrs = site.headers(headers) if site else tuple(headers)
        out.append(Probe(target, method, hdrs, f"{path.name}:{number}",
                         site.directory_of(target) if site else None))
    return out


# -- per site ------------------------------------------------------------------------------

def _site_probes(site: ProbeSite) -> Iterator[Probe]:
    yield from _filesystem(site)
    for access in collect_access_files(site.root, site.walk_root, site.access_names).files:
        loaded = load_htaccess(access.path, site.state)
        rel = os.path.relpath(access.directory, site.walk_root)
        prefix = "/" if rel == "." else "/" + quote(rel) + "/"
        subdirs = _subdirectories(site.root / rel if rel != "." else site.root)
        yield from _patterns(site, prefix, access.directory, loaded.nodes, subdirs)


def _subdirectories(directory: Path, limit: int = 8, depth: int = 3) -> list[str]:
    """A few directories below *directory* (relative), where a parent's rules still apply
    (or stop applying) — the cases nested access files change."""
    out: list[str] = []
    for current, dirs, _files in os.walk(directory):
        dirs.sort()
        rel = os.path.relpath(current, directory)
        if rel != ".":
            out.append(Path(rel).as_posix())
        if rel.count(os.sep) + 1 >= depth:
            dirs[:] = []
        if len(out) >= limit:
            break
    return out[:limit]


def _probe(site: ProbeSite, target: str, why: str, method: str = "GET",
           headers: Iterable[tuple[str, str]] = ()) -> Probe:
    return Probe(target, method, site.headers(headers), why, site.directory_of(target))


def _filesystem(site: ProbeSite) -> Iterator[Probe]:
    count = 0
    for current, dirs, files in os.walk(site.root):
        dirs.sort()
        rel = os.path.relpath(current, site.root)
        base = "/" if rel == "." else "/" + quote(Path(rel).as_posix()) + "/"
        if base != "/":
            yield _probe(site, base, "directory")
            yield _probe(site, base.rstrip("/"), "directory without its slash")
        else:
            yield _probe(site, "/", "document root")
        yield _probe(site, base + MISSING, "miss")
        yield _probe(site, base + MISSING + ".html", "miss")
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(current, d))]:
            yield _probe(site, base + quote(name), "file")
            yield _probe(site, base + quote(name) + "x", "miss next to a file")
            count += 1
            if count >= MAX_FS_ENTRIES:
                return


def _patterns(site: ProbeSite, prefix: str, directory: str, nodes: list[Node],
              subdirs: list[str]) -> Iterator[Probe]:
    directives = [n for n in _walk(nodes) if isinstance(n, Directive)]
    config = RewriteConfig.from_directives(directives, "directory", directory)
    for rule in config.rules:
        yield from _rule_probes(site, prefix, rule, subdirs)
    for node in _walk(nodes):
        if isinstance(node, Directive) and node.lname == "redirectmatch":
            yield from _redirect_match(site, node)
        elif isinstance(node, Directive) and node.lname == "redirect":
            yield from _redirect(site, node)
        elif isinstance(node, Section) and node.lname in ("files", "filesmatch"):
            yield from _files_section(site, prefix, node)


def _rule_probes(site: ProbeSite, prefix: str, rule: RewriteRule, subdirs: list[str]
                 ) -> Iterator[Probe]:
    pattern = rule.pattern
    matches, misses = samples(pattern, rule.nocase, 4)
    if rule.negate:
        matches, misses = misses, matches
    why = f"RewriteRule {pattern}"
    urls = [prefix + m.lstrip("/") for m in matches]
    for url in urls:
        yield _probe(site, url, why)
    for sub in subdirs:
        for text in (*matches[:2], *_basenames(matches[:2])):
            candidate = f"{sub}/{text.lstrip('/')}"
            if matches_pattern(pattern, rule.nocase, candidate) != rule.negate:
                yield _probe(site, prefix + quote(candidate), why + f" (below, in {sub}/)")
    for miss in misses[:3]:
        yield _probe(site, prefix + miss.lstrip("/"), why + " (miss)")
    first = urls[0] if urls else prefix
    if rule.qsappend or rule.qsdiscard or "?" in (rule.substitution or ""):
        yield _probe(site, first + "?confmig=1&a=b", why + " with a query string")
    for cond in rule.conditions:
        yield from _condition_probes(site, first, cond)
    if _redirects_expansions(rule):
        yield from _escape_probes(site, prefix, first, matches[:1], rule)


#: Bytes a rule's expansions may bring that Apache %-escapes in a redirect's Location
#: (a '%', a space, a '?'), which nginx's redirect writes otherwise, or decodes again
#: after an internal rewrite (a %-escape), which nginx's ``rewrite … last`` does not.
ESCAPE_QUERY = "confmig=a%3Fb%7B"
ESCAPE_PATH = "%25"
#: A letter escaped twice: an internal rewrite's ``$N`` then holds ``%41``, which Apache's
#: internal redirect decodes again and nginx cannot (its announced 403).
ESCAPE_PATH_TWICE = "%2541"
ESCAPE_HEADER = "a b{%3F"


def _redirects_expansions(rule: RewriteRule) -> bool:
    """A rule whose substitution expands something: an ``[R]`` rule (Apache %-escapes what
    the expansions bring into its Location) or an internal rewrite (Apache's internal
    redirect %-decodes the new path again)."""
    subst = rule.substitution or ""
    return subst != "-" and any(mark in subst for mark in ("$", "%"))


def _escape_probes(site: ProbeSite, prefix: str, url: str, matches: list[str],
                   rule: RewriteRule) -> Iterator[Probe]:
    """A redirect's or internal rewrite's target with such bytes: in the query
    (``%{QUERY_STRING}``, a condition's ``%N``), after a matching path (a capture), in the
    headers the substitution reads."""
    why = f"RewriteRule {rule.pattern} (bytes Apache escapes or decodes again)"
    yield _probe(site, f"{url}?{ESCAPE_QUERY}", why)
    # a capture with a bad %-escape (Apache's 400 where the internal redirect is made: at
    # this rule, or where the rules end for one in a chain, an [N] round or without [L])
    # and with a letter escaped twice
    redirect = rule.redirect or (rule.substitution or "").startswith(("http://", "https://"))
    for match in matches:
        if matches_pattern(rule.pattern, rule.nocase, match + unquote(ESCAPE_PATH)) \
                != rule.negate:
            yield _probe(site, prefix + match.lstrip("/") + ESCAPE_PATH, why)
        if not redirect and matches_pattern(rule.pattern, rule.nocase,
                                            match + unquote(ESCAPE_PATH_TWICE)) != rule.negate:
            yield _probe(site, prefix + match.lstrip("/") + ESCAPE_PATH_TWICE, why)
    for cond in rule.conditions:  # a condition's %N taken from the query
        if cond.kind == "regex" and cond.test.upper() == "%{QUERY_STRING}":
            for query in samples(cond.pattern, cond.nocase, 1, QUERY_ALPHABET)[0]:
                if matches_pattern(cond.pattern, cond.nocase, query + "%7B") != cond.negate:
                    yield _probe(site, f"{url}?{query}%7B", why)
    names = {t[1].upper() for t in tokenize(rule.substitution or "") if t[0] == TOKEN_VAR}
    for var in sorted(names):
        header = _request_header(var)
        if header:
            yield _probe(site, url, why, headers=[(header, ESCAPE_HEADER)])


def _condition_probes(site: ProbeSite, url: str, cond: Condition) -> Iterator[Probe]:
    if cond.kind != "regex":
        return
    test, pattern, nocase = cond.test, cond.pattern, cond.nocase
    why = f"RewriteCond {test} {pattern}"
    var = test[2:-1] if test.startswith("%{") and test.endswith("}") else None
    if var == "HTTP_HOST":
        matches, misses = samples(pattern, nocase, 2, HOST_ALPHABET)
        for host in (*matches, *misses):
            if host and not host.startswith((".", "-")):
                yield _probe(site, url, why, headers=[("Host", host)])
    elif var == "QUERY_STRING":
        matches, misses = samples(pattern, nocase, 2, QUERY_ALPHABET)
        for query in (*matches, *misses):
            yield _probe(site, f"{url}?{query}" if query else url, why)
    elif var == "REQUEST_URI":
        matches, misses = samples(pattern, nocase, 2)
        for path in (*matches, *misses):
            if path.startswith("/"):
                yield _probe(site, path, why)
    elif var == "REQUEST_METHOD":
        matches, _ = samples(pattern, nocase, 3, METHOD_ALPHABET)
        for method in matches:
            if method in _METHODS:
                yield _probe(site, url, why, method=method)
    elif var is not None and (name := _request_header(var)):
        matches, misses = samples(pattern, nocase, 2, HEADER_ALPHABET)
        for value in (*matches, *misses):
            if value.strip() == value and value:
                yield _probe(site, url, why, headers=[(name, value)])


def _redirect_match(site: ProbeSite, node: Directive) -> Iterator[Probe]:
    args = node.args
    pattern = args[1] if len(args) >= 3 or (len(args) == 2 and _is_status(args[0])) else \
        (args[0] if args else "")
    matches, misses = samples(pattern, False, 4)
    for path in (*matches, *misses[:2]):
        yield _probe(site, path if path.startswith("/") else "/" + path,
                     f"RedirectMatch {pattern}")


def _redirect(site: ProbeSite, node: Directive) -> Iterator[Probe]:
    args = [a for a in node.args if not _is_status(a)]
    if args and args[0].startswith("/"):
        path = args[0]
        for target in (path, path.rstrip("/") + "/confmig", path + "x"):
            yield _probe(site, quote(target), f"Redirect {path}")


def _files_section(site: ProbeSite, prefix: str, node: Section) -> Iterator[Probe]:
    args = node.args
    regex = node.lname == "filesmatch" or (args[:1] == ["~"])
    pattern = args[-1] if args else ""
    if regex:
        matches, misses = samples(pattern, True, 3, NAME_ALPHABET)
        names = [*matches, *misses[:2]]
    else:
        names = [pattern.replace("*", "confmig").replace("?", "x")] if pattern else []
    for name in names:
        if name and name not in (".", ".."):
            yield _probe(site, prefix + quote(name), f"<{node.name} {node.args_text}>")


def _basenames(texts: Iterable[str]) -> list[str]:
    return [t.rsplit("/", 1)[-1] for t in texts if "/" in t.strip("/")]


def _walk(nodes: list[Node]) -> Iterator[Node]:
    for node in nodes:
        yield node
        if isinstance(node, Section):
            yield from _walk(node.children)


def _is_status(word: str) -> bool:
    return word.isdigit() or word.lower() in ("permanent", "temp", "seeother", "gone")
