"""``confmig verify --to nginx``: real Apache with the ``.htaccess`` tree against real nginx
with the converted ``server { }``, on loopback, with the httpd verifier's probes.

What is compared is what the configuration decides (:mod:`confmig.verify.compare`), with four
allowances for what each server makes up on its own, which no configuration sets:

* the body and Content-Type of an error page or a redirect page the *server* wrote (Apache's
  ``<!DOCTYPE HTML PUBLIC …>`` page, nginx's ``<html><head><title>404 Not Found…``
  page) — an ``ErrorDocument``'s own page is compared like any other body;
* the body and Content-Type of a directory listing (mod_autoindex and nginx's autoindex both
  list the same names, in different HTML);
* ``Accept-Ranges``, ``Last-Modified`` and ``ETag``: each server's own metadata about a file
  (nginx leaves them out of an error page it serves from a file; no configuration sets them);
* the port in a ``Location``: the test servers listen on a high port, and nginx puts its
  listening port into the redirects it makes itself when the Host header has none (Apache
  does not); on port 80 both write none.

With ``--php-fpm`` both servers hand ``.php`` to one real php-fpm (Apache through
mod_proxy_fcgi, ``SetHandler "proxy:fcgi://…"`` in a ``<FilesMatch>`` as Debian's php-fpm
configuration does; nginx through the converted ``fastcgi_pass``), which runs
:data:`PHP_PROBE` instead of each script: the body is what the application sees, compared
like any other body.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from confmig.convert.httpd import assumed_env
from confmig.convert.nginx import NginxOptions, convert_config, convert_docroot
from confmig.model.plan import SitePlan
from confmig.model.target import DEBIAN_INDEX
from confmig.servers import (
    ApacheBinary,
    NginxServer,
    ServerUnderTest,
    assumed_modules,
    find_apache,
    find_nginx,
    free_port,
)
from confmig.servers.net import LOOPBACK
from confmig.servers.phpfpm import PhpFpmServer
from confmig.servers.under_test import ManagedUnderTest
from confmig.verify.compare import FieldDiff, Observed, differences
from confmig.verify.probes import Probe, ProbeSite
from confmig.verify.targets import ApacheTarget

if TYPE_CHECKING:
    from confmig.convert.httpd import Env
    from confmig.verify.session import Setup, VerifyRequest

APACHE_PAGES = ('<!DOCTYPE HTML PUBLIC "-//IETF//DTD HTML 2.0//EN">',
                '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" '
                '"http://www.w3.org/TR/html4/strict.dtd"> <html><head>')
#: Metadata each server adds to a file it sends, which no configuration sets.
SERVER_MADE = frozenset({"accept-ranges", "last-modified", "etag"})
NGINX_PAGE = "<html> <head><title>"  # then "<status> <reason></title>", <center>…
LISTING = "Index of /"
#: What the private Apache's template (confmig.servers) puts before a configuration it runs:
#: the converted side must be made from the same configuration.
HARNESS_PRELUDE = '<FilesMatch "^\\.ht">\n    Require all denied\n</FilesMatch>\n'
_PORT = re.compile(r"^(https?://[^/:]+):PORT(?=/|$)")
#: What php-fpm runs before (instead of) every script: what the application sees, one line
#: each, paths below a document root written from ``$DOCROOT``; REDIRECT_* sorted.
PHP_PROBE = r"""<?php
// confmig verify --php-fpm: what the application sees, instead of the script itself.
$roots = array_filter(explode(':', (string) getenv('CONFMIG_DOCROOTS')));
$keys = ['REQUEST_URI', 'SCRIPT_NAME', 'SCRIPT_FILENAME', 'PATH_INFO', 'QUERY_STRING',
         'PHP_SELF', 'HTTP_AUTHORIZATION', 'REQUEST_METHOD'];
$redirect = array_filter(array_keys($_SERVER), fn($k) => strncmp($k, 'REDIRECT_', 9) === 0);
sort($redirect);
header('Content-Type: text/plain');
header('X-Confmig-Php: probe');
foreach (array_merge($keys, $redirect) as $k) {
    if (!array_key_exists($k, $_SERVER)) { echo "$k (unset)\n"; continue; }
    $v = (string) $_SERVER[$k];
    foreach ($roots as $r) {
        if (strncmp($v, $r . '/', strlen($r) + 1) === 0) {
            $v = '$DOCROOT' . substr($v, strlen($r));
            break;
        }
    }
    echo "$k=" . addcslashes($v, "\0..\37\177..\377\\") . "\n";
}
exit;
"""
#: At most this many scripts of a site get the PHP probes (with PATH_INFO, a query, a login).
PHP_PROBE_FILES = 40


class NginxTarget(ManagedUnderTest):
    """nginx through :class:`confmig.servers.NginxServer`, serving a converted body."""

    def __init__(self, label: str, body: str, http: str, docroot: Path | None,
                 binary: str | None = None, port: int | None = None) -> None:
        super().__init__(label, NginxServer(body, docroot, http_config=http, binary=binary,
                                            port=port))


class WithPhpFpm(ServerUnderTest):
    """A server under test that hands ``.php`` to *fpm*: php-fpm is started first and
    stopped last."""

    def __init__(self, server: ServerUnderTest, fpm: PhpFpmServer) -> None:
        self.label = server.label
        self.server = server
        self.fpm = fpm

    def start(self) -> None:
        if not self.fpm.running:
            self.fpm.start()
        self.server.start()

    def stop(self) -> None:
        try:
            self.server.stop()
        finally:
            self.fpm.stop()

    @property
    def base_url(self) -> str:
        return self.server.base_url

    @property
    def port(self) -> int:
        return self.server.port

    def diagnostics(self) -> str:
        return "\n".join(filter(None, (self.server.diagnostics(),
                                        self.fpm.error_log_text()[-1000:])))


@dataclass
class PhpSide:
    """One php-fpm for both servers, and what Apache needs to use it."""

    fpm: PhpFpmServer
    port: int

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def apache_config(self) -> str:
        return ("# --php-fpm: .php through mod_proxy_fcgi, as Debian's php-fpm configuration\n"
                '<FilesMatch ".+\\.php$">\n'
                f'    SetHandler "proxy:fcgi://{self.address}"\n'
                "</FilesMatch>\n")


def php_side(docroots: list[Path]) -> PhpSide:
    """A php-fpm on a port of its own that runs :data:`PHP_PROBE`."""
    port = free_port()
    return PhpSide(PhpFpmServer(port=port, prepend=PHP_PROBE, environment={
        "CONFMIG_DOCROOTS": ":".join(str(d) for d in docroots)}), port)


def php_probes(site: ProbeSite) -> list[Probe]:
    """For each script of the site (the first :data:`PHP_PROBE_FILES`): with PATH_INFO
    (encoded), with a query and with credentials; and a missing page with both (a front
    controller's REDIRECT_* variables)."""
    scripts: list[str] = []
    for top, dirs, files in os.walk(site.root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".php") and len(scripts) < PHP_PROBE_FILES:
                rel = os.path.relpath(os.path.join(top, name), site.root)
                scripts.append("/" + rel.replace(os.sep, "/"))
    login = ("Authorization", "Basic Y29uZm1pZzpwcm9iZQ==")
    out: list[Probe] = []
    for url in ["/confmig-missing/page", *scripts]:
        for target, headers in ((url, ()), (f"{url}?confmig=1&x=%20y", (login,)),
                                (f"{url}/path%20info/x", ())):
            out.append(Probe(target, "GET", site.headers(headers), "PHP: what the script sees",
                             site.directory_of(target)))
    return out


def prepare(request: VerifyRequest) -> Setup:
    """Convert the docroot and describe both servers (nothing is started here)."""
    from confmig.convert.result import ConvertError
    from confmig.verify.session import Setup

    apache = find_apache(request.apache)
    nginx = find_nginx(request.nginx)
    if request.config is not None:
        if request.docroot is not None:
            return _docroot_in_config_setup(request, apache, str(nginx.path))
        return _config_setup(request, apache, str(nginx.path))
    if request.docroot is None:
        raise ConvertError("give a DOCROOT")
    docroot = request.docroot.resolve()
    php = php_side([docroot]) if request.php_fpm else None
    conversion = convert_docroot(docroot, None, NginxOptions(php_fpm=php.address if php else None),
                                 request.defines)
    env = assumed_env(set(request.defines))
    # The original is what the plan assumed: Debian's defaults (its DirectoryIndex too).
    original: ServerUnderTest = ApacheTarget(
        "original", docroot=docroot, allow_override="All", binary=apache,
        defines=request.defines,
        extra_config=f"DirectoryIndex {DEBIAN_INDEX}\n" + (php.apache_config() if php else ""),
        modules=[*assumed_modules(), *(["proxy", "proxy_fcgi"] if php else [])])
    converted: ServerUnderTest = NginxTarget(
        "converted", conversion.output.body, conversion.output.http, docroot,
        binary=str(nginx.path))
    site = ProbeSite(docroot, conversion.plan.document_root, state=env.state)
    probes = plan_probes(site, conversion.plan, request.logins)
    if php is not None:
        original = WithPhpFpm(original, php.fpm)
        converted = WithPhpFpm(converted, php.fpm)
        probes += php_probes(site)
    return Setup(conversion.result, original, converted, [site], compare=nginx_differences,
                 probes=probes)


def plan_probes(site: ProbeSite, plan: SitePlan, logins: Sequence[str]) -> list[Probe]:
    """What the site's plan asks for beyond the generated probes, in either mode: the
    logins of :func:`login_probes` and the compressed answers of :func:`gzip_probes`."""
    return [*login_probes(site, plan, logins), *gzip_probes(site, plan)]


#: Files of a directory that asks for a login asked for with each login.
LOGIN_PROBE_FILES = 3
WRONG_PASSWORD = "confmig-wrong-password"


def login_probes(site: ProbeSite, plan: SitePlan, logins: Sequence[str]) -> list[Probe]:
    """For each directory that asks for a login: its URL, a few of its files and a miss,
    with each ``--user NAME:PASSWORD``, with a wrong password for the first two users of its
    password file and for an unknown user (the answers without one are generated anyway)."""
    out: list[Probe] = []
    for scope in plan.scopes:
        login = scope.settings.access.login
        if login is None:
            continue
        users = [f"{e.user}:{WRONG_PASSWORD}" for e in login.entries[:2]]
        tries = [*logins, *users, f"confmig-nobody:{WRONG_PASSWORD}"]
        try:
            names = sorted(n for n in os.listdir(scope.directory)
                           if os.path.isfile(os.path.join(scope.directory, n)))
        except OSError:
            names = []
        paths = [scope.url, *(scope.url + quote(n) for n in names[:LOGIN_PROBE_FILES]),
                 scope.url + "confmig-missing"]
        for path in paths:
            for credentials in tries:
                token = base64.b64encode(credentials.encode("utf-8", "surrogateescape"))
                header = ("Authorization", "Basic " + token.decode("ascii"))
                out.append(Probe(path, "GET", site.headers([header]), "a login",
                                 site.directory_of(path)))
    return out


#: Files of a directory with AddOutputFilterByType DEFLATE asked for compressed.
GZIP_PROBE_FILES = 6


def gzip_probes(site: ProbeSite, plan: SitePlan) -> list[Probe]:
    """For each directory whose answers Apache compresses: its URL, its first files and a
    miss, asked with ``Accept-Encoding: gzip``."""
    out: list[Probe] = []
    for scope in plan.scopes:
        if not scope.settings.deflate_types:
            continue
        try:
            names = sorted(n for n in os.listdir(scope.directory)
                           if os.path.isfile(os.path.join(scope.directory, n)))
        except OSError:
            names = []
        for path in [scope.url, *(scope.url + quote(n) for n in names[:GZIP_PROBE_FILES]),
                     scope.url + "confmig-missing"]:
            out.append(Probe(path, "GET", site.headers([("Accept-Encoding", "gzip")]),
                             "compressed", site.directory_of(path)))
    return out


def _config_setup(request: VerifyRequest, apache: ApacheBinary, nginx: str) -> Setup:
    """Every <VirtualHost>: the user's configuration made runnable privately (as
    ``verify --to httpd --config`` does) against one nginx with a server per virtual host,
    all listening on the port the test nginx gets."""
    from confmig.verify.session import Setup

    assert request.config is not None
    port = free_port()
    php = php_side([]) if request.php_fpm else None
    conversion = convert_config(request.config, NginxOptions(
        listen=f"{LOOPBACK}:{port}", php_fpm=php.address if php else None),
        request.defines, prelude=HARNESS_PRELUDE)
    original, env = _config_original(request, apache, php)
    servers = "".join(c.output.server for c in conversion.conversions)
    converted: ServerUnderTest = NginxTarget("converted", "", conversion.http + servers, None,
                                             binary=nginx, port=port)
    sites = [ProbeSite(Path(c.plan.document_root), c.plan.document_root, c.plan.server_name,
                  state=env.state) for c in conversion.conversions]
    # each virtual host's logins and compressed answers, asked with its name
    probes = [p for c, site in zip(conversion.conversions, sites, strict=True)
              for p in plan_probes(site, c.plan, request.logins)]
    if php is not None:
        php.fpm.environment["CONFMIG_DOCROOTS"] = ":".join(sorted(  # the deepest first
            {c.plan.document_root for c in conversion.conversions}, key=len, reverse=True))
        original = WithPhpFpm(original, php.fpm)
        converted = WithPhpFpm(converted, php.fpm)
        probes += [p for site in sites for p in php_probes(site)]
    return Setup(conversion.result, original, converted, sites, compare=nginx_differences,
                 probes=probes)


def _config_original(request: VerifyRequest, apache: ApacheBinary,
                     php: PhpSide | None) -> tuple[ServerUnderTest, Env]:
    """The user's configuration made runnable privately (as ``verify --to httpd --config``
    does: on loopback, its Listen lines rewritten), with --php-fpm's handler after its own,
    and the environment it was read with."""
    from confmig.convert.httpd import (
        available_modules,
        config_env,
        load_server_config,
        original_text,
    )
    from confmig.convert.result import ConvertError
    from confmig.verify.runconfig import runnable

    assert request.config is not None
    loaded = load_server_config(request.config, request.defines)
    env = config_env(loaded)
    try:
        original_conf = runnable(original_text(request.config, request.defines),
                                 str(loaded.state.server_root))
    except ValueError as exc:
        raise ConvertError(f"{request.config}: {exc}") from exc
    modules = available_modules(apache, env.server_module_names())
    if php is not None:
        # after the configuration's own: the last <FilesMatch> setting the handler wins
        original_conf += "\n" + php.apache_config()
        modules += ["proxy", "proxy_fcgi"]
    original = ApacheTarget(
        "original", server_config=original_conf, binary=apache, defines=request.defines,
        modules=modules, env=dict(loaded.state.environ or {}))  # envvars, as read
    return original, env


def _docroot_in_config_setup(request: VerifyRequest, apache: ApacheBinary,
                             nginx: str) -> Setup:
    """DOCROOT as --config serves it: the user's whole configuration made runnable
    privately (:func:`_config_original`) against nginx with ``convert --to nginx DOCROOT
    --config``'s output, probed with the name of DOCROOT's virtual host."""
    from confmig.verify.session import Setup

    assert request.docroot is not None
    docroot = request.docroot.resolve()
    php = php_side([docroot]) if request.php_fpm else None
    conversion = convert_docroot(docroot, request.config,
                                 NginxOptions(php_fpm=php.address if php else None),
                                 request.defines)
    original, env = _config_original(request, apache, php)
    plan = conversion.plan
    converted: ServerUnderTest = NginxTarget(
        "converted", conversion.output.body, conversion.output.http, docroot, binary=nginx)
    site = ProbeSite(docroot, plan.document_root, plan.server_name, state=env.state)
    probes = plan_probes(site, plan, request.logins)
    if php is not None:
        original = WithPhpFpm(original, php.fpm)
        converted = WithPhpFpm(converted, php.fpm)
        probes += php_probes(site)
    return Setup(conversion.result, original, converted, [site], compare=nginx_differences,
                 probes=probes)


def nginx_differences(original: Observed, converted: Observed) -> list[FieldDiff]:
    """:func:`confmig.verify.compare.differences` with the allowances of the module
    docstring."""
    original, converted = _configured(original), _configured(converted)
    if _generated(original, converted) or _listing(original, converted):
        original = _without_page(original)
        converted = _without_page(converted)
    if original.location and converted.location:
        converted = replace(converted, location=_PORT.sub(r"\1", converted.location)) \
            if _PORT.sub(r"\1", converted.location) == original.location else converted
    return differences(original, converted)


def _configured(o: Observed) -> Observed:
    return replace(o, headers={k: v for k, v in o.headers.items() if k not in SERVER_MADE})


def _generated(a: Observed, b: Observed) -> bool:
    return (a.status >= 300 and b.status == a.status
            and (a.body_preview.startswith(APACHE_PAGES) or not a.body_preview)
            and (b.body_preview.startswith(NGINX_PAGE) or not b.body_preview))


def _listing(a: Observed, b: Observed) -> bool:
    """mod_autoindex's page (its title is past the preview) against nginx's autoindex."""
    return (a.status == b.status == 200 and a.body_preview.startswith(APACHE_PAGES[1][:90])
            and b.body_preview.startswith("<html> <head><title>Index of /"))


def _without_page(o: Observed) -> Observed:
    headers = {k: v for k, v in o.headers.items() if k != "content-type"}
    return replace(o, body_sha256="", body_preview="", headers=headers)
