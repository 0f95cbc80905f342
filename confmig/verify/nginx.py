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
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from confmig.convert.httpd import assumed_env
from confmig.convert.nginx import NginxOptions, convert_config, convert_docroot
from confmig.model.target import DEBIAN_INDEX
from confmig.servers import ApacheBinary, NginxServer, find_apache, find_nginx, free_port
from confmig.servers.net import LOOPBACK
from confmig.servers.under_test import ManagedUnderTest
from confmig.verify.compare import FieldDiff, Observed, differences
from confmig.verify.probes import Site
from confmig.verify.targets import ApacheTarget

if TYPE_CHECKING:
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


class NginxTarget(ManagedUnderTest):
    """nginx through :class:`confmig.servers.NginxServer`, serving a converted body."""

    def __init__(self, label: str, body: str, http: str, docroot: Path | None,
                 binary: str | None = None, port: int | None = None) -> None:
        super().__init__(label, NginxServer(body, docroot, http_config=http, binary=binary,
                                            port=port))


def prepare(request: VerifyRequest) -> Setup:
    """Convert the docroot and describe both servers (nothing is started here)."""
    from confmig.convert.result import ConvertError
    from confmig.verify.session import Setup

    apache = find_apache(request.apache)
    nginx = find_nginx(request.nginx)
    if request.config is not None:
        if request.docroot is not None:
            raise ConvertError("--to nginx verifies a DOCROOT or a whole --config, not a "
                               "DOCROOT inside a --config yet")
        return _config_setup(request, apache, str(nginx.path))
    if request.docroot is None:
        raise ConvertError("give a DOCROOT")
    docroot = request.docroot.resolve()
    conversion = convert_docroot(docroot, None, NginxOptions(), request.defines)
    env = assumed_env(set(request.defines))
    # The original is what the plan assumed: Debian's defaults (its DirectoryIndex too).
    original = ApacheTarget("original", docroot=docroot, allow_override="All",
                            binary=apache, defines=request.defines,
                            extra_config=f"DirectoryIndex {DEBIAN_INDEX}\n")
    converted = NginxTarget("converted", conversion.output.body, conversion.output.http,
                            docroot, binary=str(nginx.path))
    site = Site(docroot, conversion.plan.document_root, state=env.state)
    return Setup(conversion.result, original, converted, [site], compare=nginx_differences)


def _config_setup(request: VerifyRequest, apache: ApacheBinary, nginx: str) -> Setup:
    """Every <VirtualHost>: the user's configuration made runnable privately (as
    ``verify --to httpd --config`` does) against one nginx with a server per virtual host,
    all listening on the port the test nginx gets."""
    from confmig.convert.httpd import (
        available_modules,
        config_env,
        load_server_config,
        original_text,
    )
    from confmig.convert.result import ConvertError
    from confmig.verify.runconfig import runnable
    from confmig.verify.session import Setup

    assert request.config is not None
    port = free_port()
    conversion = convert_config(request.config, NginxOptions(listen=f"{LOOPBACK}:{port}"),
                                request.defines, prelude=HARNESS_PRELUDE)
    loaded = load_server_config(request.config, request.defines)
    env = config_env(loaded)
    try:
        original_conf = runnable(original_text(request.config, request.defines),
                                 str(loaded.state.server_root))
    except ValueError as exc:
        raise ConvertError(f"{request.config}: {exc}") from exc
    original = ApacheTarget("original", server_config=original_conf, binary=apache,
                            defines=request.defines,
                            modules=available_modules(apache, env.server_module_names()),
                            env=dict(loaded.state.environ or {}))  # envvars, as read
    servers = "".join(c.output.server for c in conversion.conversions)
    converted = NginxTarget("converted", "", conversion.http + servers, None, binary=nginx,
                            port=port)
    sites = [Site(Path(c.plan.document_root), c.plan.document_root, c.plan.server_name,
                  state=env.state) for c in conversion.conversions]
    return Setup(conversion.result, original, converted, sites, compare=nginx_differences)


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
