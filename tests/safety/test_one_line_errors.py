"""Bad input is one line naming the file (and its line, where there is one) and exit 2, never a
traceback (issue 10, audit B4-B6): a path component over NAME_MAX given on the command line or
read from an ``Include``/``<IfFile>``, a requests or settings file that is not UTF-8, a
``--timeout`` that is not a number.

``Path.exists()``/``is_dir()``/``is_file()`` raise on Python 3.11 for ``File name too long``
(they answer False only for ENOENT, ENOTDIR, EBADF and ELOOP): every command checks the paths
of its command line first (``confmig.fs.lookup_error``), and the loader models Apache, which
the tests marked ``apache`` ask (``apache2 -t``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from confmig.load import load_config
from confmig.load.includes import IncludeError, expand_include
from confmig.servers import apache_config_test
from confmig.verify.probes import ProbeSite

ROOT = Path(__file__).resolve().parents[2]
NAME = "y" * 300  # one path component over NAME_MAX (255 bytes): ENAMETOOLONG
TOO_LONG = os.strerror(36)  # "File name too long"


def confmig(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``confmig ARGS`` as the console script runs it (the short lint path, then typer)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    return subprocess.run([sys.executable, "-m", "confmig", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300,
                          errors="surrogateescape")


def one_line_error(run: subprocess.CompletedProcess[str], *fragments: str) -> str:
    assert "Traceback" not in run.stderr, run.stderr[-3000:]
    assert run.returncode == 2, run.stderr[-3000:]
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr[-3000:]
    assert lines[0].startswith("error: ")
    assert "Errno" not in lines[0]
    for fragment in fragments:
        assert fragment in lines[0]
    return lines[0]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text("hi\n")
    return root


# -- a path argument over NAME_MAX ------------------------------------------------------------

ARGUMENTS = {  # the command line, and the option the message names with the path
    "parse PATH": (["parse", "{long}"], ""),
    "lint PATH": (["lint", "{long}"], ""),
    "lint --config": (["lint", "{site}", "--config", "{long}"], "--config"),
    "lint (typer) PATH": (["lint", "--", "{site}", "{long}"], ""),
    "explain --root": (["explain", "--root", "{long}", "/"], "--root"),
    "explain --config": (["explain", "--config", "{long}", "/"], "--config"),
    "explain --requests": (["explain", "--root", "{site}", "--requests", "{long}"],
                           "--requests"),
    "convert DOCROOT": (["convert", "{long}"], ""),
    "convert --config": (["convert", "--config", "{long}"], "--config"),
    "convert -o": (["convert", "{site}", "-o", "{long}"], "-o"),
    "verify DOCROOT": (["verify", "{long}"], ""),
    "verify --config": (["verify", "--config", "{long}"], "--config"),
    "verify --requests": (["verify", "{site}", "--requests", "{long}"], "--requests"),
    "bench --json": (["bench", "--quick", "--json", "{long}"], "--json"),
    "bench --html": (["bench", "--quick", "--html", "{long}"], "--html"),
    "bench --site": (["bench", "--quick", "--site", "{long}"], "--site"),
    "bench --nginx-config": (["bench", "--quick", "--nginx-config", "{long}"],
                             "--nginx-config"),
}


@pytest.mark.parametrize(("args", "option"), ARGUMENTS.values(), ids=ARGUMENTS.keys())
def test_a_path_argument_over_name_max_is_one_line(tmp_path: Path, site: Path,
                                                  args: list[str], option: str) -> None:
    long = tmp_path / NAME
    run = confmig(tmp_path, *(a.format(long=long, site=site) for a in args))
    line = one_line_error(run, f"{long}: {TOO_LONG}")
    assert line.startswith(f"error: {option} {long}: " if option else f"error: {long}: ")


def test_a_symlink_loop_given_as_a_path_says_so(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    for command in ("parse", "lint"):
        one_line_error(confmig(tmp_path, command, "a"), f"a: {os.strerror(40)}")


def test_convert_to_dev_stdout_on_a_pipe_says_it_is_a_fifo(tmp_path: Path, site: Path) -> None:
    """``/dev/stdout`` is a link to ``pipe:[N]``, which no path reaches: the output is looked up
    as the kernel follows it (a FIFO), not as its link's text (\"No such file or directory\")."""
    run = confmig(tmp_path, "convert", str(site), "-o", "/dev/stdout")  # stdout: a pipe
    one_line_error(run, "/dev/stdout: is a FIFO, not a regular file")


# -- Include / IncludeOptional / <IfFile> of a name over NAME_MAX ----------------------------

def test_include_of_a_name_over_name_max_is_an_error_at_its_line(tmp_path: Path) -> None:
    long = tmp_path / NAME
    conf = tmp_path / "inc.conf"
    conf.write_text(f"ServerRoot {tmp_path}\nInclude {long}\nIncludeOptional {long}\n"
                    f"IncludeOptional {long}/x.conf\nInclude {long}/x.conf\n")
    loaded = load_config(conf)
    message = f"Could not open configuration file {long}"
    assert [(e.line, e.message) for e in loaded.errors] == [
        (2, f"Include: {message}: {TOO_LONG}"), (5, f"Include: {message}/x.conf: {TOO_LONG}")]
    run = confmig(tmp_path, "parse", str(conf))
    assert "Traceback" not in run.stderr and run.returncode == 2
    assert f"{conf}:2:1: Include: {message}: {TOO_LONG}" in run.stderr.splitlines()
    run = confmig(tmp_path, "explain", "--config", str(conf), "/")
    one_line_error(run, f"{conf}:2:1: Include: {message}: {TOO_LONG}")
    run = confmig(tmp_path, "lint", "--no-cache", str(conf))
    assert "Traceback" not in run.stderr and run.returncode == 1, run.stderr[-3000:]
    assert f"{message}: {TOO_LONG}" in run.stdout


def test_include_wildcards_around_a_name_over_name_max(tmp_path: Path) -> None:
    (tmp_path / "conf.d").mkdir()
    long = tmp_path / NAME
    assert expand_include(f"{tmp_path}/*/{NAME}", tmp_path, optional=True) == []
    with pytest.raises(IncludeError, match=f"configuration file {tmp_path}/conf.d/{NAME}: "
                                           f"{TOO_LONG}"):
        expand_include(f"{tmp_path}/*/{NAME}", tmp_path, optional=False)
    for optional in (False, True):  # the directory a wildcard reads: an error either way
        with pytest.raises(IncludeError, match=f"Could not open directory {long}: {TOO_LONG}"):
            expand_include(f"{long}/*.conf", tmp_path, optional=optional)


def test_iffile_of_a_name_over_name_max_is_false(tmp_path: Path) -> None:
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"<IfFile {tmp_path}/{NAME}>\nA 1\n</IfFile>\n"
                    f"<IfFile !{tmp_path}/{NAME}>\nB 2\n</IfFile>\n")
    loaded = load_config(conf)
    assert loaded.ok
    assert [n.name for n in loaded.nodes] == ["B"]


@pytest.mark.apache
def test_apache_reads_names_over_name_max_so(apache_binary, tmp_path: Path) -> None:
    """The oracle of the three tests above."""
    long = tmp_path / NAME
    (tmp_path / "conf.d").mkdir()
    refused = apache_config_test(f"Include {long}\n")
    assert not refused.ok
    assert f"Could not open configuration file {long}: {TOO_LONG}" in refused.message
    assert apache_config_test(f"IncludeOptional {long}\n").ok
    assert apache_config_test(f"IncludeOptional {long}/x.conf\n").ok
    assert apache_config_test(f"IncludeOptional {tmp_path}/*/{NAME}\n").ok
    refused = apache_config_test(f"Include {tmp_path}/*/{NAME}\n")
    assert f"Could not open configuration file {tmp_path}/conf.d/{NAME}: {TOO_LONG}" \
        in refused.message
    refused = apache_config_test(f"IncludeOptional {long}/*.conf\n")
    assert f"Could not open directory {long}: {TOO_LONG}" in refused.message
    assert apache_config_test(f"<IfFile {long}>\nNoSuchDirective\n</IfFile>\n").ok
    refused = apache_config_test(f"<IfFile !{long}>\nNoSuchDirective\n</IfFile>\n")
    assert "Invalid command 'NoSuchDirective'" in refused.message


# -- a request over NAME_MAX -----------------------------------------------------------------

def test_the_directory_of_a_request_over_name_max_is_the_last_one_that_exists(
        site: Path) -> None:
    (site / "sub").mkdir()
    probe_site = ProbeSite(site, "/srv/www")
    assert probe_site.directory_of("/" + "a" * 300) == "/srv/www"
    assert probe_site.directory_of("/sub/" + "a" * 300 + "/x") == "/srv/www/sub"


# -- files that are not UTF-8 ----------------------------------------------------------------

def test_verify_requests_that_are_not_utf8_name_the_line(tmp_path: Path, site: Path) -> None:
    requests = tmp_path / "req.txt"
    requests.write_bytes(b"# mine\nGET /index.html\nGET /caf\xe9\n")
    run = confmig(tmp_path, "verify", str(site), "--requests", str(requests))
    one_line_error(run, f"{requests}:3: not UTF-8 text (byte 0xe9", "%E9")


@pytest.mark.parametrize("name", [".confmig.toml", "pyproject.toml"])
def test_lint_settings_that_are_not_utf8_name_the_file(tmp_path: Path, site: Path,
                                                       name: str) -> None:
    (tmp_path / name).write_bytes(b"# settings\n\xff\n")
    for args in (["lint", str(site)], ["lint", "--", str(site)]):  # (short path, typer)
        one_line_error(confmig(tmp_path, *args),
                       f"{tmp_path / name}:2: not UTF-8 text, as TOML must be (byte 0xff")


# -- --timeout -------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["nan", "NaN", "-nan"])
def test_verify_timeout_nan_is_refused(tmp_path: Path, site: Path, value: str) -> None:
    one_line_error(confmig(tmp_path, "verify", str(site), "--timeout", value),
                   "--timeout nan: give a number of seconds")
