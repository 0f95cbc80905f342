"""The differential harness: small sites served by one real Apache, asked the same requests
as the model, answers compared.

Every site is a name-based ``<VirtualHost>`` (``<name>.test``) with its own DocumentRoot below
one shared, worker-readable root, so one Apache start serves them all.  Files get a unique
body (``FILE:<path>``) unless the site gives their content, so the file Apache served is known
from the body.  The model reads the very configuration file Apache was started with
(``load_config`` on the generated ``httpd.conf``), so both sides see the same modules,
defines and sections.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from confmig.load import load_config
from confmig.model.evaluate import Answer, evaluate
from confmig.model.request import Request, RequestHeaders
from confmig.model.walk import Site, build_site
from confmig.servers import (
    ApacheServer,
    Response,
    default_modules,
    find_apache,
    http_get,
    make_docroot,
)

BODY_PREFIX = b"FILE:"
ROOT_TOKEN = "@ROOT@"  # in directory_extra / vhost_extra: the site's DocumentRoot


@dataclass(frozen=True)
class Case:
    """One request: a raw target (sent verbatim), optional headers and method; ``headers`` to
    compare both ways (names); ``why`` says what the case shows.

    ``unsupported`` is text the model must report in ``Answer.unsupported`` (what it cannot
    evaluate exactly); ``exact=False`` marks an answer Apache does not decide from the
    configuration alone (a random ``rnd:`` pick, a ``prg:`` program's reply): then only the
    status class is compared."""

    path: str
    why: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    method: str = "GET"
    compare_headers: tuple[str, ...] = ()
    unsupported: str = ""
    exact: bool = True


@dataclass
class SiteSpec:
    """A site: its files (relative path → content, None for an auto body), the ``Options``
    and ``AllowOverride`` of its DocumentRoot ``<Directory>``, text added inside that
    ``<Directory>`` and inside the ``<VirtualHost>``, symlinks (link → target), and cases."""

    name: str
    files: Mapping[str, str | bytes | None]
    cases: list[Case]
    options: str = "Indexes FollowSymLinks"
    allow_override: str = "All"
    directory_extra: str = ""
    vhost_extra: str = ""
    symlinks: Mapping[str, str] = field(default_factory=dict)
    modes: Mapping[str, int] = field(default_factory=dict)
    about: str = ""

    @property
    def host(self) -> str:
        return f"{self.name}.test"


DEFAULT_SITE = SiteSpec("default", {"index.html": None}, [])


def auto_body(rel: str) -> bytes:
    return BODY_PREFIX + rel.encode() + b"\n"


def write_site(root: Path, site: SiteSpec) -> Path:
    base = root / site.name
    base.mkdir(parents=True, exist_ok=True)
    for rel, content in site.files.items():
        target = base / rel
        if rel.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        data = auto_body(rel) if content is None else content
        if isinstance(data, str):
            data = data.replace(ROOT_TOKEN, str(base)).encode()
        target.write_bytes(data)
    for link, dest in site.symlinks.items():
        path = base / link
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(dest, path)
    for rel, mode in site.modes.items():
        (base / rel).chmod(mode)
    for dirpath, dirnames, _ in os.walk(base):
        for d in dirnames:
            p = Path(dirpath) / d
            if not p.is_symlink() and str(p.relative_to(base)) not in site.modes:
                p.chmod(0o755)
    return base


def vhost_text(root: Path, site: SiteSpec) -> str:
    docroot = root / site.name
    directory_extra = site.directory_extra.replace(ROOT_TOKEN, str(docroot))
    vhost_extra = site.vhost_extra.replace(ROOT_TOKEN, str(docroot))
    extra = "\n".join("        " + line for line in directory_extra.strip().splitlines())
    vextra = "\n".join("    " + line for line in vhost_extra.strip().splitlines())
    return (
        "<VirtualHost *:${CONFMIG_PORT}>\n"
        f"    ServerName {site.host}\n"
        f'    DocumentRoot "{docroot}"\n'
        f'    <Directory "{docroot}">\n'
        f"        Options {site.options}\n"
        f"        AllowOverride {site.allow_override}\n"
        "        Require all granted\n"
        f"{extra}\n"
        "    </Directory>\n"
        f"{vextra}\n"
        "</VirtualHost>\n"
    )


@dataclass
class Observed:
    status: int
    location: str | None
    file: str | None
    response: Response


@dataclass
class Outcome:
    """One case: what Apache answered, the model's answer with its explanation, and the
    model's answer without (``trace=False``, the fast path probes and benchmarks use)."""

    site: SiteSpec
    case: Case
    apache: Observed
    model: Answer
    fast: Answer
    # without the explanation nor the headers (``headers=False``: SEC002's question)
    status_only: Answer | None = None


class Harness:
    """Start Apache for *sites*, send every case, evaluate every case with the model."""

    def __init__(self, sites: Iterable[SiteSpec], main_extra: str = "",
                 extra_modules: Iterable[str] = ()) -> None:
        """*main_extra* is main-server configuration written before the vhosts (it then
        applies to every site of this harness: give such sites a harness of their own), and
        *extra_modules* are loaded besides the machine's default set."""
        self.sites = list(sites)
        self.main_extra = main_extra
        self.extra_modules = tuple(extra_modules)
        names = [s.name for s in self.sites]
        if len(set(names)) != len(names):
            raise ValueError("site names must be unique")
        self.root = make_docroot(prefix="confmig-diff-")
        self.server: ApacheServer | None = None
        self.site_model: Site | None = None

    def config_text(self) -> str:
        """The main server's extra text, then the vhosts, the default one (unknown Host
        names land there) first."""
        vhosts = [vhost_text(self.root, s) for s in [DEFAULT_SITE, *self.sites]]
        return "\n".join([self.main_extra.replace(ROOT_TOKEN, str(self.root)), *vhosts])

    def start(self) -> None:
        write_site(self.root, DEFAULT_SITE)
        for site in self.sites:
            write_site(self.root, site)
        modules = None
        if self.extra_modules:
            binary = find_apache()
            modules = [*default_modules(binary), *self.extra_modules]
        self.server = ApacheServer(self.root, server_config=self.config_text(), modules=modules)
        self.server.start()
        loaded = load_config(self.server.conf_path)
        assert loaded.ok, loaded.errors
        self.site_model = build_site(loaded)

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def headers(self, site: SiteSpec, case: Case) -> dict[str, str]:
        """The request headers: the site's Host (with the port, as curl sends it) unless the
        case gives its own."""
        assert self.server is not None
        return {"Host": f"{site.host}:{self.server.port}", **case.headers}

    def request(self, site: SiteSpec, case: Case) -> Request:
        assert self.server is not None
        return Request(case.path, case.method, RequestHeaders(self.headers(site, case)),
                       self.server.port)

    def observe(self, site: SiteSpec, case: Case) -> Observed:
        assert self.server is not None
        # 16 at a time on a busy machine: http_get's 10 s would fail the whole session's
        # fixture on one slow answer; this only bounds a hang
        resp = http_get(self.server.base_url, case.path, self.headers(site, case),
                        method=case.method, timeout=120)
        return Observed(resp.status, resp.headers.get("Location"), served_file(resp), resp)

    def run(self) -> list[Outcome]:
        assert self.site_model is not None
        pairs = [(s, c) for s in self.sites for c in s.cases]
        with ThreadPoolExecutor(max_workers=16) as pool:
            observed = list(pool.map(lambda p: self.observe(*p), pairs))
        return [Outcome(s, c, o, evaluate(self.site_model, self.request(s, c)),
                        evaluate(self.site_model, self.request(s, c), trace=False),
                        evaluate(self.site_model, self.request(s, c), trace=False,
                                 headers=False))
                for (s, c), o in zip(pairs, observed, strict=True)]


def served_file(resp: Response) -> str | None:
    """The file whose unique body Apache sent (``FILE:<path>``), else None."""
    body = resp.body
    if not body.startswith(BODY_PREFIX):
        return None
    return body[len(BODY_PREFIX):].split(b"\n", 1)[0].decode()


def real_file(model: Answer) -> str | None:
    """The model's ``file`` with symlinks resolved, relative to its DocumentRoot: the unique
    body Apache sends is the link target's."""
    if model.file is None or model.filename is None:
        return model.file
    root = os.path.realpath(model.document_root)
    real = os.path.realpath(model.filename)
    return os.path.relpath(real, root) if real.startswith(root + os.sep) else model.file


def describe(outcome: Outcome) -> str:
    a, m = outcome.apache, outcome.model
    lines = [
        f"site {outcome.site.name}: {outcome.case.method} {outcome.case.path} "
        f"({outcome.case.why})",
        f"  apache: {a.status} location={a.location} file={a.file}",
        f"  model:  {m.status} location={m.location} file={real_file(m)}",
        "  model steps:",
        *(f"    [{s.phase}] {s.message}" + "".join(f"\n        {d}" for d in s.detail)
          for s in m.steps),
    ]
    if m.unsupported:
        lines.append(f"  unsupported: {m.unsupported}")
    return "\n".join(lines)


def header_mismatches(outcome: Outcome) -> list[str]:
    """Headers the model says the config sets that Apache did not send as said, plus the
    case's ``compare_headers`` compared both ways."""
    got = outcome.apache.response.headers
    model = {k.lower(): v for k, v in outcome.model.headers.items()}
    problems = []
    for name, value in model.items():
        if name == "expires":
            if name not in got:
                problems.append(f"{name}: apache sent none")
            continue
        if got.get(name) != value:
            problems.append(f"{name}: model {value!r}, apache {got.get(name)!r}")
    for name in outcome.case.compare_headers:
        key = name.lower()
        if key == "content-type" and outcome.model.file is None:
            continue  # Apache's own error page or listing, not the configuration's
        if key not in model and key in got:
            problems.append(f"{name}: model none, apache {got.get(key)!r}")
    return problems
