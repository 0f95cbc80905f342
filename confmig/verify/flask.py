"""``confmig verify --to flask``: real Apache with the ``.htaccess`` tree against the generated
Flask module under a real gunicorn (or, ``--server mod_wsgi``, under Apache's mod_wsgi as the
classic deployment runs it: ``AllowOverride None``, ``WSGIScriptAlias /`` to the module — named
``.wsgi``, as a ``.py`` name would give a response without a Content-Type Apache's
``text/x-python`` — in a daemon process with this interpreter's site-packages on its path, and
``WSGIPassAuthorization On`` so that the rules see the header as Apache's do), on loopback, with
the httpd verifier's probes.  With ``--config`` the original is the user's configuration made
runnable privately (as for ``--to httpd``), the module is the one for the site it serves (its
only virtual host, or the one whose ``DocumentRoot`` is DOCROOT), and the probes carry that
virtual host's name.

Compared as for every target (:mod:`confmig.verify.compare`), with one allowance of
:mod:`confmig.verify.nginx` for what a server writes on its own: the page of an error or a
redirect that Apache made up (the generated app writes Apache's page without the
``<address>`` line, which names the server's version and port).  A directory listing is
compared byte for byte: the module writes mod_autoindex's plain listing (no dates, sizes or
icons: what Apache writes without ``IndexOptions``), so the names, their order and the HTML
around them must all be Apache's; where a mod_autoindex directive changes that listing the
module answers 403 and convert announces it.  ``Allow`` (405, 501, OPTIONS) is compared as a
set: Apache lists the methods in the order of a hash table.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from confmig.convert.flask import FlaskConversion, convert_config, convert_docroot
from confmig.convert.httpd import assumed_env
from confmig.model.target import DEBIAN_INDEX
from confmig.servers import (
    ApacheBinary,
    ApacheServer,
    ServerNotFound,
    assumed_modules,
    default_modules,
    find_apache,
    make_docroot,
)
from confmig.servers.gunicorn import MODULE_NAME, GunicornServer
from confmig.servers.under_test import ManagedUnderTest
from confmig.verify.compare import FieldDiff, Observed, differences
from confmig.verify.nginx import APACHE_PAGES, HARNESS_PRELUDE
from confmig.verify.probes import ProbeSite
from confmig.verify.targets import ApacheTarget, Target

if TYPE_CHECKING:
    from confmig.verify.session import Setup, VerifyRequest



class GunicornTarget(ManagedUnderTest):
    """The generated module under :class:`confmig.servers.gunicorn.GunicornServer`."""

    def __init__(self, label: str, module_text: str, docroot: Path) -> None:
        super().__init__(label, GunicornServer(module_text, docroot))


class ModWsgiTarget(Target):
    """The generated module under Apache's mod_wsgi (Debian's ``libapache2-mod-wsgi-py3``),
    with no access files read: the module alone decides."""

    def __init__(self, label: str, module_text: str, docroot: Path,
                 binary: ApacheBinary) -> None:
        self.label = label
        self.module_text = module_text
        self.docroot = docroot
        self.binary = binary
        self.app_dir: Path | None = None
        self.server: ApacheServer | None = None

    def start(self) -> None:
        if not (Path(self.binary.modules_dir) / "mod_wsgi.so").is_file():
            raise ServerNotFound("mod_wsgi is not installed (apt-get install -y "
                                 "libapache2-mod-wsgi-py3)")
        self.app_dir = make_docroot(prefix="confmig-wsgi-")
        # not .py: Apache would give a response without a Content-Type the script's type
        module = self.app_dir / f"{MODULE_NAME}.wsgi"
        module.write_text(self.module_text)
        module.chmod(0o644)
        config = mod_wsgi_config(self.app_dir, module)
        modules = [*default_modules(self.binary), "wsgi"]
        self.server = ApacheServer(docroot=self.docroot, allow_override="None",
                                   extra_config=config, binary=self.binary, modules=modules)
        self.server.start()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
        if self.app_dir is not None:
            shutil.rmtree(self.app_dir, ignore_errors=True)

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return self.server.base_url

    @property
    def port(self) -> int:
        assert self.server is not None
        return self.server.port

    def diagnostics(self) -> str:
        return self.server.error_log_text()[-2000:] if self.server is not None else ""


def mod_wsgi_config(app_dir: Path, module: Path, *, processes: int = 1,
                    threads: int = 4) -> str:
    """The server-context lines that run *module* (in *app_dir*) under mod_wsgi's daemon
    mode for every URL (also used by ``confmig bench``'s flask-mod_wsgi target)."""
    paths = ":".join([str(app_dir), *_site_packages()])
    return (f"WSGIDaemonProcess confmig processes={processes} threads={threads} "
            f"python-path={paths}\n"
            "WSGIProcessGroup confmig\nWSGIApplicationGroup %{GLOBAL}\n"
            "WSGIPassAuthorization On\n"
            f"WSGIScriptAlias / {module}\nWSGICallableObject app\n"
            f"<Directory {app_dir}>\n    Require all granted\n</Directory>\n")


def _site_packages() -> list[str]:
    """Where this interpreter finds Flask (mod_wsgi's own Python gets them on its path)."""
    import flask

    return [str(Path(flask.__file__).resolve().parent.parent)]


def prepare(request: VerifyRequest) -> Setup:
    """Convert the docroot (or the site of --config) and describe both servers (nothing is
    started here)."""
    from confmig.convert.result import ConvertError
    from confmig.verify.session import Setup

    apache = find_apache(request.apache)
    if request.config is not None:
        return _config_setup(request, apache)
    if request.docroot is None:
        raise ConvertError("give a DOCROOT, or --config httpd.conf")
    docroot = request.docroot.resolve()
    conversion = convert_docroot(docroot, None, request.defines)
    env = assumed_env(set(request.defines))
    # The original is what the plan assumed: Debian's modules, not this machine's extras.
    original = ApacheTarget("original", docroot=docroot, allow_override="All",
                            binary=apache, defines=request.defines, modules=assumed_modules(),
                            extra_config=f"DirectoryIndex {DEBIAN_INDEX}\n")
    site = ProbeSite(docroot, conversion.plan.document_root, state=env.state)
    return Setup(conversion.result, original, _converted(request, conversion, apache), [site],
                 compare=flask_differences)


def _config_setup(request: VerifyRequest, apache: ApacheBinary) -> Setup:
    """The user's configuration made runnable privately (as ``verify --to httpd --config``
    does) against the module for the site it serves (its only virtual host, or the one whose
    DocumentRoot is DOCROOT), probed with that virtual host's name."""
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
    conversion = convert_config(request.config, request.defines, request.docroot,
                                prelude=HARNESS_PRELUDE)
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
    plan = conversion.plan
    site = ProbeSite(Path(plan.document_root), plan.document_root, plan.server_name,
                state=env.state)
    return Setup(conversion.result, original, _converted(request, conversion, apache), [site],
                 compare=flask_differences)


def _converted(request: VerifyRequest, conversion: FlaskConversion,
               apache: ApacheBinary) -> Target:
    """The module under the WSGI server --server names."""
    from confmig.convert.result import ConvertError

    docroot = Path(conversion.plan.document_root)
    if request.server == "mod_wsgi":
        return ModWsgiTarget("converted", conversion.result.text, docroot, apache)
    if request.server == "gunicorn":
        return GunicornTarget("converted", conversion.result.text, docroot)
    raise ConvertError(f"--server {request.server}: gunicorn or mod_wsgi")


def flask_differences(original: Observed, converted: Observed) -> list[FieldDiff]:
    """:func:`confmig.verify.compare.differences` with the module docstring's allowances."""
    if _generated(original, converted):
        original, converted = _without_page(original), _without_page(converted)
    return differences(_allow_as_set(original), _allow_as_set(converted))


def _allow_as_set(o: Observed) -> Observed:
    if "allow" not in o.headers:
        return o
    methods = ",".join(sorted(m.strip() for m in o.headers["allow"].split(",")))
    return replace(o, headers={**o.headers, "allow": methods})


def _generated(a: Observed, b: Observed) -> bool:
    return (a.status >= 300 and a.status == b.status
            and a.body_preview.startswith(APACHE_PAGES)
            and b.body_preview.startswith(APACHE_PAGES))


def _without_page(o: Observed) -> Observed:
    return replace(o, body_sha256="", body_preview="")
