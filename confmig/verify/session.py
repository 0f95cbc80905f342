"""One verification: convert, start both servers, send every probe to both, compare, stop.

Every server started here is stopped again on every way out — a difference, an error, the time
budget, or Ctrl-C (``KeyboardInterrupt`` passes through ``ExitStack`` after the servers are
stopped, and each ``ApacheServer`` also has a finalizer as a last resort).
"""

from __future__ import annotations

import contextlib
import http.client
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from confmig.convert import ConvertError, Options, convert_config, convert_docroot
from confmig.convert import registry as converters
from confmig.convert.httpd import (
    assumed_env,
    available_modules,
    config_env,
    config_sites,
    load_server_config,
    original_text,
)
from confmig.convert.result import ConversionResult
from confmig.servers import ApacheBinary, ServerError, find_apache, http_get
from confmig.verify.compare import FieldDiff, Observed, differences, failed, observe, wider
from confmig.verify.logprobes import log_probes
from confmig.verify.probes import Probe, ProbeFileError, ProbeSite, generate, read_requests
from confmig.verify.report import ProbeResult, VerifyReport
from confmig.verify.runconfig import HIDDEN_ACCESS_FILE, runnable
from confmig.verify.targets import ApacheTarget, Target, planned_message

REQUEST_TIMEOUT = 10.0
Progress = Callable[[int, int], None]


class VerifyError(Exception):
    """Bad input, a missing server or a server that would not start (exit 2)."""


@dataclass
class VerifyRequest:
    target: str = "httpd"
    docroot: Path | None = None
    config: Path | None = None
    requests: Path | None = None
    max_requests: int = 2000
    timeout: float = 120.0
    apache: str | None = None
    nginx: str | None = None
    keep_500: bool = True  # False: convert with --serve-500
    defines: tuple[str, ...] = ()
    follow_symlinks: bool = False  # convert with --follow-symlinks
    server: str = "gunicorn"  # --to flask: the WSGI server (gunicorn or mod_wsgi)
    php_fpm: bool = False  # --to nginx: both servers hand .php to one real php-fpm
    # --user NAME:PASSWORD: --to nginx sends these logins to every directory that asks for one
    logins: tuple[str, ...] = ()
    # explain --requests FILE --against: the requests of a URL list or an access log (read as
    # explain reads them), and only those (generate=False: no probes of the site's own)
    log: Path | None = None
    generate: bool = True


@dataclass
class Setup:
    """Everything needed to run the comparison."""

    conversion: ConversionResult
    original: Target
    converted: Target
    sites: list[ProbeSite]
    #: How two answers are compared (a target whose server writes its own pages differently
    #: brings its own: confmig.verify.nginx).
    compare: Callable[[Observed, Observed], list[FieldDiff]] = differences
    #: Requests of the target's own, sent before the generated probes (--php-fpm: scripts
    #: with PATH_INFO, a query, credentials).
    probes: list[Probe] = field(default_factory=list)


def verify(request: VerifyRequest, on_progress: Progress | None = None) -> VerifyReport:
    """Run one verification; raises :class:`VerifyError` for what is not a difference."""
    converter = converters.lookup(request.target)
    if converter is None or converter.planned or (converter.verify is None
                                                  and converter.name != "httpd"):
        if converter is not None and converter.name in converters.names():
            raise VerifyError(planned_message(request.target))
        raise VerifyError(f"unknown target {request.target!r}")
    if request.docroot is None and request.config is None:
        raise VerifyError("give a DOCROOT, or --config httpd.conf")
    own = converter.function("verify")
    try:
        setup = (own(request) if own is not None
                 else prepare(request, find_apache(request.apache)))
        requests = (read_requests(request.requests, setup.sites[0] if setup.sites else None)
                    if request.requests else [])
        if request.log is not None:
            requests += log_probes(request.log, setup.sites[0] if setup.sites else None)
        requests = [*setup.probes, *requests]
    except (ConvertError, ServerError, ProbeFileError) as exc:
        raise VerifyError(str(exc)) from exc
    # One budget for everything after the conversion: generating the probes (at most half
    # of it, so that some are sent), starting the servers and sending them.
    started = time.monotonic()
    deadline = started + request.timeout
    probes = generate(setup.sites if request.generate else [], requests, request.max_requests,
                      deadline=started + request.timeout / 2)
    report = VerifyReport(request.target, str(request.config or request.docroot),
                          setup.conversion, planned=len(probes.probes),
                          truncated=probes.truncated,
                          generation_out_of_time=probes.out_of_time)
    with contextlib.ExitStack() as stack:
        if probes.probes and time.monotonic() < deadline:
            for target in (setup.original, setup.converted):
                _start(stack, target)
        _run(report, setup, probes.probes, deadline, on_progress)
    report.elapsed = time.monotonic() - started
    return report


def prepare(request: VerifyRequest, binary: ApacheBinary) -> Setup:
    options = Options(keep_500=request.keep_500, apache=str(binary.path),
                      defines=request.defines, follow_symlinks=request.follow_symlinks)
    if request.config is None:
        assert request.docroot is not None
        return _docroot_setup(request.docroot, options, binary)
    return _config_setup(request.config, request.docroot, options, binary)


def _docroot_setup(docroot: Path, options: Options, binary: ApacheBinary) -> Setup:
    # The test servers' DocumentRoot is the resolved path, so the blocks must name that one.
    docroot = docroot.resolve()
    conversion = convert_docroot(docroot, None, options)
    env = assumed_env(set(options.defines))
    common = {"binary": binary, "defines": options.defines}
    original = ApacheTarget("original", docroot=docroot, allow_override="All", **common)
    converted = ApacheTarget(
        "converted", docroot=docroot, allow_override="All",
        extra_config=conversion.text + f"\nAccessFileName {HIDDEN_ACCESS_FILE}\n", **common)
    site = ProbeSite(docroot, conversion.docroots[0], state=env.state)
    return Setup(conversion, original, converted, [site])


def _config_setup(config: Path, docroot: Path | None, options: Options,
                  binary: ApacheBinary) -> Setup:
    conversion = convert_config(config, docroot, options)
    loaded = load_server_config(config, options.defines)
    env = config_env(loaded)
    root = str(loaded.state.server_root)
    # Apache starts with the environment the configuration was read with (Debian's envvars
    # applied, as apache2ctl does): ${APACHE_RUN_DIR} and friends mean the same to both.
    common = {"binary": binary, "defines": options.defines,
              "modules": available_modules(binary, env.server_module_names()),
              "env": dict(loaded.state.environ or {})}
    try:
        original_conf = runnable(original_text(config, options.defines), root)
        converted_conf = runnable(conversion.text, root, hide_access_files=True)
    except ValueError as exc:
        raise ConvertError(f"{config}: {exc}") from exc
    original = ApacheTarget("original", server_config=original_conf, **common)
    converted = ApacheTarget("converted", server_config=converted_conf, **common)
    sites = [ProbeSite(Path(s.root), s.root, s.host, s.access_names, env.state)
             for s in config_sites(loaded, docroot)]
    return Setup(conversion, original, converted, sites)


def _start(stack: contextlib.ExitStack, target: Target) -> None:
    stack.callback(target.stop)
    try:
        target.start()
    except ServerError as exc:
        raise VerifyError(f"the {target.label} server did not start: "
                          f"{' '.join(str(exc).split())[:600]}") from exc


def _run(report: VerifyReport, setup: Setup, probes: list[Probe], deadline: float,
         on_progress: Progress | None) -> None:
    for index, probe in enumerate(probes):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            report.out_of_time = True
            return
        timeout = min(REQUEST_TIMEOUT, remaining)
        original = _send(setup.original, probe, timeout)
        converted = _send(setup.converted, probe, timeout)
        report.sent += 1
        if original.error and converted.error:  # no answer to compare, or a differing error
            report.errored += 1
            report.first_error = report.first_error or original.error
        else:
            report.statuses[original.status] += 1
        diffs = setup.compare(original, converted)
        if diffs:
            report.differing.append(_result(setup.conversion, probe, original, converted,
                                            diffs))
        if on_progress is not None:
            on_progress(index + 1, len(probes))


def _result(conversion: ConversionResult, probe: Probe, original: Observed,
            converted: Observed, diffs: list[FieldDiff]) -> ProbeResult:
    """One differing answer: announced when every differing field is excused by a note
    covering the probe's directory — never when the converted answer is wider, but for the
    500 that ``--serve-500`` asked to serve."""
    widened = wider(original, converted) and not (
        original.status == 500 and probe.directory is not None
        and conversion.serves_500(probe.directory))
    statuses = (original.status, converted.status)
    announced = not widened and probe.directory is not None and all(
        conversion.excuses(probe.directory, d.field, d.added, statuses) for d in diffs)
    # a note naming its answer excuses too (ConversionResult.excuses): say which announced it
    by_note = False
    if announced and probe.directory is not None:
        untranslatable = replace(conversion, warnings=[])
        by_note = not all(untranslatable.excuses(probe.directory, d.field, d.added, statuses)
                          for d in diffs)
    return ProbeResult(probe, original, converted, diffs, announced, widened, by_note)


def _send(target: Target, probe: Probe, timeout: float) -> Observed:
    hosts = tuple(v for n, v in probe.headers if n.lower() == "host")
    try:
        response = http_get(target.base_url, probe.path, dict(probe.headers), probe.method,
                            timeout=timeout)
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return failed(exc)
    return observe(response, target.port, hosts)
