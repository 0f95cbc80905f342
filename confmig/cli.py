"""The ``confmig`` command line: parse arguments, call one function, print.

Every command exits 0 when clean, 1 when it found something (lint findings,
verify differences), 2 on bad input or usage — with a one-line message, never a
traceback.
"""

from __future__ import annotations

import math
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from confmig import __version__
from confmig.console import consoles, print_bytes_as_read, print_error, printable
from confmig.convert import registry as converters
from confmig.syntax.ast import ReadLimitError

if TYPE_CHECKING:
    from confmig.replay.summary import AfterConvert

app = typer.Typer(
    name="confmig",
    help="Read Apache httpd configuration the way Apache does: lint it, explain requests, "
         "convert .htaccess trees, and prove it on real servers.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
out, err = consoles()

DefinesOption = Annotated[
    list[str] | None,
    typer.Option("-D", "--define", help="Define NAME as `apache2 -D NAME` does (repeatable)."),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option("--config", "-c", help="Server config (httpd.conf/apache2.conf) in force "
                                        "(default: the server's own, when it serves PATH)."),
]
NoConfigOption = Annotated[
    bool,
    typer.Option("--no-config", help="Do not look for the server's own configuration: "
                                     "assume Debian's defaults (AllowOverride All)."),
]
FollowSymlinksOption = Annotated[
    bool,
    typer.Option("--follow-symlinks", help="Walk symlinked directories and read symlinked "
                                           ".htaccess files outside the root (never /proc, "
                                           "/sys, /dev; never in a loop)."),
]


def fail(message: str, code: int = 2) -> NoReturn:
    print_error(err, message)
    raise typer.Exit(code)


def check_paths(*given: tuple[str, Path | None]) -> None:
    """Every path of the command line (``(option, path)``, option ``""`` for an argument) can
    be looked up, or plainly does not exist: one that cannot — a name longer than the file
    system allows, a symlink loop, a directory on the way that may not be searched — is
    refused here, before anything asks ``Path.exists()`` of it (which raises for these,
    :func:`confmig.fs.lookup_error`)."""
    from confmig.fs import lookup_error

    for option, path in given:
        if path is not None and (reason := lookup_error(path)) is not None:
            fail(f"{option} {path}: {reason}" if option else f"{path}: {reason}")


def server_config(config: Path | None, paths: list[Path], no_config: bool) -> Path | None:
    """``--config``, or the server's own configuration when it serves every PATH, said on
    stderr when used (:func:`confmig.load.server_config.server_config`)."""
    from confmig.load.server_config import ConfigChoiceError
    from confmig.load.server_config import server_config as choose

    try:
        return choose(config, paths, no_config,
                      lambda note: err.print(printable(note), markup=False, highlight=False))
    except ConfigChoiceError as exc:
        fail(str(exc))


def version_callback(value: bool) -> None:
    if value:
        out.print(f"confmig {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[bool, typer.Option("--version", callback=version_callback,
                                          is_eager=True, help="Show the version.")] = False,
) -> None:
    """confmig: Apache configuration, read as Apache reads it."""
    print_bytes_as_read()


class ParseFormat(StrEnum):
    json = "json"
    tree = "tree"


@app.command()
def parse(
    path: Annotated[Path | None, typer.Argument(help="Docroot, .htaccess file or server config.")]
    = None,
    config: ConfigOption = None,
    define: DefinesOption = None,
    fmt: Annotated[ParseFormat, typer.Option("--format", "-f")] = ParseFormat.tree,
    no_config: NoConfigOption = False,
    follow_symlinks: FollowSymlinksOption = False,
) -> None:
    """Print the loaded configuration (includes resolved, errors collected)."""
    from confmig.load import load_path
    from confmig.load.report import print_tree, workspace_json_chunks
    from confmig.load.workspace import missing_message
    from confmig.progress import directory_progress

    check_paths(("", path), ("--config", config))
    if path is not None and not path.exists():
        fail(f"{path}: {missing_message(path)}")
    config = server_config(config, [path] if path is not None else [], no_config)
    if path is None and config is None:
        fail("give a PATH (docroot, .htaccess or server config) or --config FILE (no server "
             "configuration found)")
    with directory_progress(err) as on_directory:
        ws = load_path(path, config, set(define or []), on_directory, follow_symlinks)
    for note in ws.notes:
        err.print(f"note: {printable(note)}", markup=False, highlight=False)
    if fmt is ParseFormat.json:  # one line, as crossplane; streamed, one node at a time
        out.file.writelines(workspace_json_chunks(ws))
        out.file.write("\n")
    else:
        print_tree(ws, out)
    for error in ws.errors:
        err.print(printable(f"{error}"), markup=False)
    raise typer.Exit(2 if ws.errors else 0)


class LintFormat(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class RulesFormat(StrEnum):
    text = "text"
    json = "json"


@app.command()
def lint(
    paths: Annotated[list[Path], typer.Argument(help="Docroots, .htaccess files or server "
                                                     "configs.", show_default=False)],
    config: ConfigOption = None,
    define: DefinesOption = None,
    fmt: Annotated[LintFormat, typer.Option("--format", "-f")] = LintFormat.text,
    select: Annotated[list[str] | None, typer.Option("--select", help="Only these rules "
                                                     "(codes or prefixes, e.g. RW,SEC001).")]
    = None,
    ignore: Annotated[list[str] | None, typer.Option("--ignore", help="Skip these rules.")]
    = None,
    extend_select: Annotated[list[str] | None, typer.Option("--extend-select", help="Add "
                                                            "rules to the selection.")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write "
                                                              ".confmig_cache/.")] = False,
    no_config: NoConfigOption = False,
    follow_symlinks: FollowSymlinksOption = False,
) -> None:
    """Lint Apache configuration: exit 0 clean, 1 findings, 2 bad input."""
    # (a plain lint command line is parsed without typer: confmig.lint.command, issue 17)
    from confmig.lint.command import LintArgs, run_lint
    from confmig.lint.reporters import LintUsageError

    try:
        code = run_lint(LintArgs(paths, config, define or [], fmt.value, select, ignore,
                                 extend_select, no_cache, no_config, follow_symlinks), out, err)
    except LintUsageError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@app.command()
def rules(
    fmt: Annotated[RulesFormat, typer.Option("--format", "-f")] = RulesFormat.text,
) -> None:
    """List every lint rule."""
    from confmig.lint.reporters.rules import print_rules, rules_json

    if fmt is RulesFormat.json:
        out.file.write(rules_json() + "\n")
    else:
        print_rules(out)


@app.command()
def rule(code: Annotated[str, typer.Argument(help="A rule code (SYN003) or name.")]) -> None:
    """Show one rule: what it finds, why, a bad and a good example."""
    from confmig.lint.reporters.rules import UnknownRule, print_rule

    try:
        print_rule(code, out)
    except UnknownRule as exc:
        fail(str(exc))


class ExplainFormat(StrEnum):
    text = "text"
    json = "json"


@app.command()
def explain(
    url: Annotated[str | None, typer.Argument(help="http://host[:port]/path?query, or "
                                              "/path?query.", show_default=False)] = None,
    root: Annotated[Path | None, typer.Option("--root", help="Document root (its .htaccess "
                                              "tree; the server's config when it serves it, "
                                              "else Debian's defaults, AllowOverride All).")]
    = None,
    config: ConfigOption = None,
    host: Annotated[str | None, typer.Option("--host", help="Host header (chooses the "
                                             "virtual host).")] = None,
    header: Annotated[list[str] | None, typer.Option("-H", "--header", help="Request header "
                                                     "'Name: value' (repeatable).")] = None,
    method: Annotated[str, typer.Option("-X", "--method", help="Request method.")] = "GET",
    user: Annotated[str | None, typer.Option("--user", "-u", help="Send Basic credentials "
                                             "NAME:PASSWORD (never printed).")] = None,
    remote_addr: Annotated[str | None, typer.Option("--remote-addr", help="The client's "
                                                    "address (default 127.0.0.1).")] = None,
    no_dns: Annotated[bool, typer.Option("--no-dns", help="Do not look up host names for "
                                         "Require host / Allow from NAME (announced).")]
    = False,
    at: Annotated[str | None, typer.Option("--time", help="The time of the request for "
                                           "%{TIME_*} (e.g. 2026-01-01T10:00:00; default "
                                           "now).")] = None,
    define: DefinesOption = None,
    fmt: Annotated[ExplainFormat, typer.Option("--format", "-f")] = ExplainFormat.text,
    no_config: NoConfigOption = False,
    follow_symlinks: FollowSymlinksOption = False,
    requests: Annotated[Path | None, typer.Option("--requests", help="Many requests, one per "
                                                  "line: [METHOD] URL, or an access log in "
                                                  "Common/Combined Log Format. Prints JSON "
                                                  "Lines with --format json, else a "
                                                  "summary.")] = None,
    against: Annotated[str | None, typer.Option("--against", help="With --requests: also "
                                                "send every request to the original Apache "
                                                "and to the site converted --to TARGET (real "
                                                "servers, as verify --requests does) and list "
                                                "those that would answer differently.")]
    = None,
) -> None:
    """What Apache answers to one request, and every directive and rewrite step behind it;
    with --requests, to every request of a file or an access log."""
    from confmig.model.explain import ExplainError, explain_request, render_json, render_text

    check_paths(("--root", root), ("--config", config), ("--requests", requests))
    if root is None or root.is_dir():
        config = server_config(config, [root] if root is not None else [], no_config)
    if (url is None) == (requests is None):
        fail("give one URL, or --requests FILE")
    if against is not None and requests is None:
        fail("--against needs --requests FILE")
    if requests is not None:
        replay_requests(requests, root, config, define or [], follow_symlinks,
                        fmt is ExplainFormat.json, against)
        return
    assert url is not None
    try:
        answer = explain_request(url, root=root, config=config, host=host,
                                 headers=header or [], method=method, defines=define or [],
                                 user=user, remote_addr=remote_addr, dns=not no_dns, at=at,
                                 follow_symlinks=follow_symlinks)
    except ExplainError as exc:
        fail(str(exc))
    if fmt is ExplainFormat.json:
        import json

        out.file.write(json.dumps(render_json(answer), indent=2) + "\n")
    else:
        out.print(render_text(answer, f"{method.upper()} {url}"))


def replay_requests(path: Path, root: Path | None, config: Path | None, define: list[str],
                    follow_symlinks: bool, json_lines: bool, against: str | None = None
                    ) -> None:
    """``explain --requests``: every request of *path*, as JSON Lines or a summary; with
    *against*, also which of them would answer differently after ``convert --to`` it."""
    from confmig.model.explain import ExplainError, load_workspace
    from confmig.replay.command import print_summary, run_replay

    if not path.is_file():
        fail(f"{path}: not a regular file")
    after = (after_convert(path, root, config, define, follow_symlinks, against)
             if against is not None else None)
    try:
        workspace = load_workspace(root, config, define, follow_symlinks)
        summary = run_replay(workspace, path, json_lines=out.file if json_lines else None,
                             after_convert=after)
    except ExplainError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{path}: {exc.strerror or exc}")
    if not json_lines:
        print_summary(summary, out)
    for bad in summary.bad[:20]:
        err.print(printable(f"{path}:{bad.line}: not evaluated: {bad.why}"), markup=False)
    if len(summary.bad) > 20:
        err.print(printable(f"{path}: {len(summary.bad) - 20} more bad line(s)"), markup=False)


AGAINST_MAX_REQUESTS = 10_000  # distinct requests sent to both servers by --against


def after_convert(path: Path, root: Path | None, config: Path | None, define: list[str],
                  follow_symlinks: bool, target: str) -> AfterConvert:
    """``--against TARGET``: the requests of *path* sent to the original Apache and to the
    converted *target* (:func:`confmig.verify.verify` with only these requests)."""
    from confmig.replay.summary import AfterConvert, Difference
    from confmig.verify import VerifyError, VerifyRequest, verify

    if target not in converters.verifiable():
        fail(f"--against {target}: one of {', '.join(converters.verifiable())}")
    try:
        report = verify(VerifyRequest(target, docroot=root, config=config, log=path,
                                      generate=False, max_requests=AGAINST_MAX_REQUESTS,
                                      defines=tuple(define), follow_symlinks=follow_symlinks))
    except VerifyError as exc:
        fail(str(exc))
    differences = [Difference(r.probe.why, f"{r.probe.method} {r.probe.path}",
                              tuple((d.field, d.original, d.converted) for d in r.diffs),
                              r.announced) for r in report.differing]
    return AfterConvert(target, report.compared, report.sent, report.planned,
                        not (report.out_of_time or report.truncated), differences)


# The targets come from the converter registry (planned ones answer "not available yet").
ConvertTarget = StrEnum("ConvertTarget", {name: name for name in converters.names()})  # type: ignore[misc]


@app.command()
def convert(
    docroot: Annotated[Path | None, typer.Argument(help="Document root whose .htaccess files "
                                                        "to convert (omit with --config to "
                                                        "rewrite the whole config).")] = None,
    to: Annotated[ConvertTarget, typer.Option("--to", help="Target.")] = ConvertTarget.httpd,
    config: ConfigOption = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write to FILE "
                                                "(atomically) instead of stdout.")] = None,
    write: Annotated[bool, typer.Option("--write", help="Rewrite --config in place (a "
                                        "numbered backup FILE.~N~ of every file changed).")]
    = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing -o FILE (never "
                                        "a file the command read, nor a non-regular file).")]
    = False,
    serve_500: Annotated[bool, typer.Option("--serve-500", help="Where Apache answered 500 "
                                            "for an .htaccess (forbidden or unknown "
                                            "directive, bad expression or syntax), serve the "
                                            "requests instead: the refused lines become "
                                            "comments. Announced on stderr, exit 1. Without "
                                            "it the converted block answers 500 too.")]
    = False,
    keep_500: Annotated[bool, typer.Option("--keep-500", help="Accepted for compatibility "
                                           "and does nothing: keeping the 500 is the "
                                           "default.")] = False,
    define: DefinesOption = None,
    listen: Annotated[str | None, typer.Option("--listen", help="nginx: the listen address "
                                               "(default 127.0.0.1:8080).")] = None,
    server_name: Annotated[str | None, typer.Option("--server-name", help="nginx: "
                                                    "server_name (default: ServerName and "
                                                    "ServerAlias).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Write and print nothing when "
                                         "anything is untranslatable (exit 1).")] = False,
    follow_symlinks: FollowSymlinksOption = False,
    app_module: Annotated[str | None, typer.Option("--app-module", help="flask: the name the "
                                                   "module is imported by (default: -o "
                                                   "FILE's name, else site_rules).")] = None,
    php_fpm: Annotated[str | None, typer.Option("--php-fpm", metavar="ADDR", help="nginx: "
                                                "hand .php to php-fpm at HOST:PORT or "
                                                "unix:/PATH, as Apache's mod_proxy_fcgi "
                                                "does.")] = None,
) -> None:
    """Fold .htaccess files into <Directory> blocks (--to httpd): a fragment for DOCROOT
    (AllowOverride All assumed, or as --config sets it), or with --config and no DOCROOT (or
    --write) the whole configuration; --to nginx: one server { } for DOCROOT; --to flask: one
    Python module (Flask) for DOCROOT (or --config's DocumentRoot); --to plan: the site
    plan as JSON. Exit 0, 1 if something could not be carried over faithfully (listed on
    stderr), 2 on bad input."""
    from confmig.convert import ConvertError, ConvertRequest, Options, WriteRefused, run
    from confmig.fs import os_error_line
    from confmig.servers import ServerError

    check_paths(("", docroot), ("--config", config), ("-o", output))
    if serve_500 and keep_500:
        fail("--serve-500 and --keep-500 contradict each other (keeping the 500 is the "
             "default)")
    request = ConvertRequest(to.value, docroot, config, output, write, force,
                             Options(keep_500=not serve_500, defines=tuple(define or ()),
                                     follow_symlinks=follow_symlinks),
                             listen=listen, server_name=server_name, strict=strict,
                             app_module=app_module, php_fpm=php_fpm)
    try:
        outcome = run(request)
    except OSError as exc:
        fail(os_error_line(exc))
    except (ConvertError, WriteRefused, ServerError) as exc:
        fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    outcome.print(out, err)
    raise typer.Exit(outcome.exit_code)


class WsgiServer(StrEnum):
    gunicorn = "gunicorn"
    mod_wsgi = "mod_wsgi"


class VerifyFormat(StrEnum):
    text = "text"
    json = "json"


@app.command()
def verify(
    docroot: Annotated[Path | None, typer.Argument(help="Document root to verify (with "
                                                        "--config: only this tree).")] = None,
    to: Annotated[ConvertTarget, typer.Option("--to", help="Target.")] = ConvertTarget.httpd,
    config: ConfigOption = None,
    requests: Annotated[Path | None, typer.Option("--requests", help="Extra requests, one "
                                                  "per line: [METHOD] PATH [| Name: value]…")]
    = None,
    max_requests: Annotated[int, typer.Option("--max-requests", min=1)] = 2000,
    timeout: Annotated[float, typer.Option("--timeout", min=0, help="Time budget, in "
                                           "seconds, for generating and sending the probes "
                                           "(running out before every probe is compared "
                                           "is a failure).")] = 120.0,
    fmt: Annotated[VerifyFormat, typer.Option("--format", "-f")] = VerifyFormat.text,
    apache: Annotated[str | None, typer.Option("--apache", help="Apache httpd binary.")]
    = None,
    nginx: Annotated[str | None, typer.Option("--nginx", help="nginx binary.")] = None,
    serve_500: Annotated[bool, typer.Option("--serve-500", help="Convert with --serve-500: "
                                            "where Apache answered 500 the converted site "
                                            "serves, and those differences are announced.")]
    = False,
    keep_500: Annotated[bool, typer.Option("--keep-500", help="Accepted for compatibility "
                                           "and does nothing: keeping the 500 is the "
                                           "default.")] = False,
    define: DefinesOption = None,
    follow_symlinks: FollowSymlinksOption = False,
    server: Annotated[WsgiServer, typer.Option("--server", help="--to flask: run the module "
                                               "under gunicorn, or under Apache's mod_wsgi "
                                               "(the classic deployment).")]
    = WsgiServer.gunicorn,
    php_fpm: Annotated[bool, typer.Option("--php-fpm", help="--to nginx: both servers hand "
                                          ".php to one real php-fpm running a probe that "
                                          "prints what the script sees; compared too.")]
    = False,
    user: Annotated[list[str] | None, typer.Option("--user", "-u", help="--to nginx: a login "
                                                   "NAME:PASSWORD sent to every directory "
                                                   "that asks for one (repeatable; never "
                                                   "printed).")] = None,
) -> None:
    """Run the original and the converted site on real servers and compare their answers.
    Exit 0 when they agree (or differ only where convert said so), 1 on any other
    difference or when --timeout ran out before every probe was compared, 2 on bad input
    or a missing server."""
    from confmig.verify import VerifyError, VerifyRequest, run_verify

    check_paths(("", docroot), ("--config", config), ("--requests", requests))
    if math.isnan(timeout):  # (click's min=0 lets it through; inf is no limit)
        fail("--timeout nan: give a number of seconds, 0 or more (inf: no limit)")
    if serve_500 and keep_500:
        fail("--serve-500 and --keep-500 contradict each other (keeping the 500 is the "
             "default)")
    request = VerifyRequest(to.value, docroot, config, requests, max_requests, timeout,
                            apache, nginx, not serve_500, tuple(define or ()),
                            follow_symlinks, server.value, php_fpm, logins=tuple(user or ()))
    if any(":" not in login for login in request.logins):
        fail("--user takes NAME:PASSWORD")
    try:
        report = run_verify(request, progress=err)
    except VerifyError as exc:
        fail(str(exc))
    report.print(out, json_format=fmt is VerifyFormat.json)
    raise typer.Exit(report.exit_code)


@app.command()
def bench(
    depth: Annotated[int, typer.Option(help="Depth of the generated directory chain.")] = 10,
    files: Annotated[int | None, typer.Option(help="Files per directory (N.foo even, N.bar "
                                              "odd); default 50.")] = None,
    htaccess: Annotated[str, typer.Option(help="Where .htaccess files go: leaf, every, or N "
                                          "(every Nth level).")] = "leaf",
    targets: Annotated[str | None, typer.Option(
        help="Comma-separated targets, or all: apache-htaccess (the baseline), apache-httpd, "
             "nginx, nginx-handwritten (with --nginx-config), flask-gunicorn, flask-mod_wsgi, "
             "flask-waitress; default apache-htaccess,apache-httpd.")] = None,
    mpm: Annotated[str | None, typer.Option(help="Apache MPMs, comma-separated; default "
                                            "event,prefork.")] = None,
    concurrency: Annotated[str, typer.Option(help="Connections, e.g. 1,2,4,10,50.")] = "10",
    depth_sweep: Annotated[str | None, typer.Option(help="Depths to sweep, e.g. 1,5,10,20 "
                                                    "(instead of --depth).")] = None,
    urls: Annotated[str, typer.Option(help="deepest, top or random files, or a file of URL "
                                      "paths (one per line; with --site: your own sample).")]
    = "deepest",
    duration: Annotated[str | None, typer.Option(help="Per run, e.g. 3s (default).")] = None,
    requests: Annotated[int | None, typer.Option(help="Per run, instead of --duration.")]
    = None,
    size: Annotated[str, typer.Option(help="small (128 B) or large (20-150 MB media) "
                                      "files.")] = "small",
    keepalive: Annotated[str, typer.Option(help="on, off or both.")] = "on",
    repeat: Annotated[int | None, typer.Option(help="Repetitions (runs alternate A B A B); "
                                               "default 3.")] = None,
    site: Annotated[Path | None, typer.Option(help="Benchmark this docroot instead of a "
                                             "generated tree.")] = None,
    keep: Annotated[bool, typer.Option(help="Keep the generated trees.")] = False,
    json_file: Annotated[Path | None, typer.Option("--json", help="Write every raw run as "
                                                   "JSON.")] = None,
    html_file: Annotated[Path | None, typer.Option("--html", help="Write a self-contained "
                                                   "HTML report.")] = None,
    client: Annotated[str | None, typer.Option(help="wrk, ab or builtin (default: the best "
                                               "installed).")] = None,
    wsgi_workers: Annotated[int | None, typer.Option(help="WSGI server worker processes "
                                                     "(default: one per server core).")]
    = None,
    wsgi_threads: Annotated[int, typer.Option(help="Threads per WSGI worker.")] = 1,
    quick: Annotated[bool, typer.Option(help="A smoke answer in seconds: every target, 6 files, "
                                        "event only, one 1 s run each.")] = False,
    nginx_config: Annotated[Path | None, typer.Option(
        help="A hand-written nginx configuration for the site (the nginx-handwritten "
             "target): an nginx.conf, or the text of its http { }, with one server { } "
             "block; includes are read relative to FILE's directory.")] = None,
) -> None:
    """Measure each migration on real servers: req/s, latency and .htaccess lookups per
    request, verified answers first. Exit 0, 1 if a target answered differently from the
    baseline (it is not measured), 2 on bad input or a missing server."""
    from confmig.bench import BenchError, BenchUsageError
    from confmig.bench import bench as run_bench
    from confmig.bench.options import options_from_cli
    from confmig.bench.summary import summary_renderable

    try:
        options = options_from_cli(
            depth=depth, files=files, htaccess=htaccess, targets=targets, mpm=mpm,
            concurrency=concurrency, depth_sweep=depth_sweep, urls=urls, duration=duration,
            requests=requests, size=size, keepalive=keepalive, repeat=repeat, site=site,
            keep=keep, json_path=json_file, html_path=html_file, client=client,
            wsgi_workers=wsgi_workers, wsgi_threads=wsgi_threads, quick=quick,
            nginx_config=nginx_config)
        report = run_bench(options, err)
    except (BenchUsageError, BenchError) as exc:
        fail(str(exc))
    out.print(summary_renderable(report))
    raise typer.Exit(1 if report.mismatched_targets else 0)


def main() -> None:
    """The typer app, as the console script ran it before ``confmig.__main__.main`` (which
    runs a plain ``confmig lint`` without building the app)."""
    print_bytes_as_read()
    try:
        app()
    except ReadLimitError as exc:  # input beyond confmig's own limits: file:line, exit 2
        err.print(f"error: {printable(str(exc))}", markup=False, highlight=False)
        sys.exit(2)
    except KeyboardInterrupt:
        err.print("interrupted")
        sys.exit(130)
    except BrokenPipeError:
        raise
    except OSError as exc:  # a file no check above foresaw: still one line, exit 2
        from confmig.fs import os_error_line

        print_error(err, os_error_line(exc))
        sys.exit(2)


if __name__ == "__main__":
    main()
