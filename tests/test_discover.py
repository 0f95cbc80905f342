"""Finding the server's own configuration (issue 10): ``apache2 -V``'s HTTPD_ROOT and
SERVER_CONFIG_FILE, Debian's /etc/apache2 with its envvars, RHEL's /etc/httpd — injected
here under a fake root, plus tests on this machine's real /etc/apache2 (skipped only when it
is absent) and a private Apache started from a copy of it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from confmig.lint.engine import lint_paths
from confmig.load.discover import (
    Discovery,
    choose_config,
    find_server_config,
    read_envvars,
)
from confmig.model.explain import explain_request

DEBIAN_ENVVARS = """\
# envvars - default environment variables for apache2ctl
unset HOME
if [ "${APACHE_CONFDIR##/etc/apache2-}" != "${APACHE_CONFDIR}" ] ; then
\tSUFFIX="-${APACHE_CONFDIR##/etc/apache2-}"
else
\tSUFFIX=
fi
export APACHE_RUN_USER=www-data
export APACHE_RUN_GROUP=www-data
export APACHE_PID_FILE=/var/run/apache2$SUFFIX/apache2.pid
export APACHE_RUN_DIR=/var/run/apache2$SUFFIX
export APACHE_LOCK_DIR=/var/lock/apache2$SUFFIX
export APACHE_LOG_DIR=/var/log/apache2$SUFFIX
export LANG=C
export LANG
"""
REAL = Path("/etc/apache2/apache2.conf")
needs_real = pytest.mark.skipif(not REAL.is_file(), reason="no /etc/apache2/apache2.conf here")


def fake_debian(tmp_path: Path, allow: str = "None") -> Path:
    """A Debian layout under tmp_path: etc/apache2/{apache2.conf,envvars,sites-enabled}."""
    etc = tmp_path / "etc" / "apache2"
    (etc / "sites-enabled").mkdir(parents=True)
    www = tmp_path / "var" / "www"
    (www / "html").mkdir(parents=True)
    (etc / "envvars").write_text(DEBIAN_ENVVARS)
    (etc / "apache2.conf").write_text(
        "DefaultRuntimeDir ${APACHE_RUN_DIR}\nErrorLog ${APACHE_LOG_DIR}/error.log\n"
        "AccessFileName .htaccess\n"
        f"<Directory />\n    AllowOverride None\n    Require all denied\n</Directory>\n"
        f"<Directory {www}/>\n    AllowOverride {allow}\n    Require all granted\n"
        "</Directory>\nIncludeOptional sites-enabled/*.conf\n")
    (etc / "sites-enabled" / "000-default.conf").write_text(
        f"<VirtualHost *:80>\n    DocumentRoot {www}/html\n</VirtualHost>\n")
    return etc / "apache2.conf"


def no_binary(tmp_path: Path, candidates: list[str]) -> Discovery:
    return Discovery(binaries=("no-such-apache-binary",), binary_dirs=(str(tmp_path),),
                     candidates=candidates)


def test_envvars_are_read_without_running_a_shell(tmp_path: Path) -> None:
    envvars = tmp_path / "envvars"
    marker = tmp_path / "ran"
    envvars.write_text(DEBIAN_ENVVARS + f"export EVIL=$(touch {marker})\n"
                       f"export EVIL2=`touch {marker}`\ntouch {marker}\n"
                       "export QUOTED='a b'\nexport DEFAULTED=${NOPE:-/srv/x}\n"
                       "NOT_EXPORTED=1\nexport BUILT=$APACHE_RUN_DIR/socks\n")
    env = read_envvars(envvars)
    assert env["APACHE_RUN_DIR"] == "/var/run/apache2"  # SUFFIX empty, as the shell does
    assert env["APACHE_LOG_DIR"] == "/var/log/apache2"
    assert env["APACHE_PID_FILE"] == "/var/run/apache2/apache2.pid"
    assert env["LANG"] == "C" and env["QUOTED"] == "a b" and env["DEFAULTED"] == "/srv/x"
    assert env["BUILT"] == "/var/run/apache2/socks"
    assert "EVIL" not in env and "EVIL2" not in env and "NOT_EXPORTED" not in env
    assert not marker.exists()


def test_debian_layout_found_with_its_envvars(tmp_path: Path) -> None:
    conf = fake_debian(tmp_path)
    found = find_server_config(no_binary(tmp_path, [str(tmp_path / "nope.conf"), str(conf)]))
    assert found is not None and found.path == conf
    assert found.server_root == conf.parent
    assert found.envvars == conf.parent / "envvars"
    assert found.environ["APACHE_RUN_DIR"] == "/var/run/apache2"
    assert "envvars" in found.describe()


def test_binary_v_output_names_the_config(tmp_path: Path) -> None:
    root = tmp_path / "etc" / "httpd"
    (root / "conf").mkdir(parents=True)
    (root / "conf" / "httpd.conf").write_text("ServerName x\n")
    (tmp_path / "bin").mkdir()
    fake = tmp_path / "bin" / "httpd"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    seen: list[str] = []

    def run_v(binary: str) -> str:
        seen.append(binary)
        return (f'Server version: Apache/2.4\n -D HTTPD_ROOT="{root}"\n'
                ' -D SERVER_CONFIG_FILE="conf/httpd.conf"\n')

    found = find_server_config(Discovery(binaries=("httpd",), binary_dirs=(str(tmp_path / "bin"),),
                                         candidates=(), run_v=run_v))
    assert seen == [str(fake)]
    assert found is not None and found.path == root / "conf" / "httpd.conf"
    assert found.server_root == root and found.envvars is None and "-V" in found.how


def test_nothing_found_means_assumed_defaults(tmp_path: Path) -> None:
    discovery = no_binary(tmp_path, [str(tmp_path / "etc/apache2/apache2.conf")])
    assert find_server_config(discovery) is None
    choice = choose_config([tmp_path], discovery=discovery)
    assert choice.config is None and "no server configuration found" in choice.note


def test_the_config_is_used_only_for_paths_it_serves(tmp_path: Path) -> None:
    conf = fake_debian(tmp_path)
    discovery = no_binary(tmp_path, [str(conf)])
    www = tmp_path / "var" / "www"
    used = choose_config([www], discovery=discovery)
    assert used.config == conf and str(conf) in used.note
    assert choose_config([], discovery=discovery).config == conf  # explain with no option
    other = tmp_path / "checkout"
    other.mkdir()
    assert choose_config([other], discovery=discovery).config is None
    forced = choose_config([www], discovery=discovery, no_config=True)
    assert forced.config is None and "--no-config" in forced.note


def test_lint_with_the_found_config_reports_the_ignored_htaccess(tmp_path: Path) -> None:
    conf = fake_debian(tmp_path)
    html = tmp_path / "var" / "www" / "html"
    (html / ".htaccess").write_text("Require all denied\n")
    choice = choose_config([html], discovery=no_binary(tmp_path, [str(conf)]))
    assert choice.config == conf
    result = lint_paths([html], choice.config, use_cache=False)
    assert [f.code for f in result.findings] == ["CTX003"]
    assumed = lint_paths([html], None, use_cache=False)
    assert "CTX003" not in [f.code for f in assumed.findings]


# -- this machine's real /etc/apache2 ----------------------------------------------------------

def confmig(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "confmig", *args], capture_output=True,
                          text=True, timeout=120, check=False, env=env)


@needs_real
def test_real_debian_config_is_found() -> None:
    found = find_server_config()
    assert found is not None and found.path.resolve() == REAL.resolve()
    assert found.environ.get("APACHE_RUN_DIR", "").startswith("/var/run/apache2")


@needs_real
def test_explain_without_options_uses_the_real_config_and_its_envvars() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("APACHE_")}
    result = confmig("explain", "/blog/x", "--format", "json", env=env)
    assert result.returncode == 0, result.stderr
    assert f"server config: {REAL}" in result.stderr
    data = json.loads(result.stdout)
    applied = json.dumps(data["applied"])
    assert "/etc/apache2/apache2.conf" in applied and "${APACHE_" not in result.stdout


@needs_real
@pytest.mark.skipif(not Path("/var/www").is_dir(), reason="no /var/www here")
def test_lint_var_www_uses_the_real_config(tmp_path: Path) -> None:
    result = confmig("lint", "/var/www", "--no-cache")
    assert f"server config: {REAL}" in result.stderr
    assert "assuming Debian's defaults" not in result.stdout
    assert "AllowOverride, AllowOverrideList and modules from it" in result.stdout
    forced = confmig("lint", "/var/www", "--no-cache", "--no-config")
    assert "assuming Debian's defaults" in forced.stdout


def _private_copy_of_real(tmp_path: Path) -> tuple[str, dict[str, str]]:
    """/etc/apache2 copied, with what a private server must not share with the system one
    taken out (Listen 80, PidFile, runtime/lock/log dirs, User): the site text to include and
    the environment (the copy's envvars, system paths pointed into tmp_path)."""
    copy = tmp_path / "apache2"
    shutil.copytree("/etc/apache2", copy, symlinks=True)
    conf = copy / "apache2.conf"
    drop = re.compile(r"^\s*(PidFile|Mutex|DefaultRuntimeDir|User|Group|Include\s+ports\.conf)\b",
                      re.I)
    conf.write_text("".join(line for line in conf.read_text().splitlines(keepends=True)
                            if not drop.match(line)))
    for site in (copy / "sites-enabled").glob("*.conf"):
        text = site.read_text().replace("<VirtualHost *:80>", "<VirtualHost *:${CONFMIG_PORT}>")
        site.unlink()
        site.write_text(text)
    logs = tmp_path / "logs"
    logs.mkdir()
    logs.chmod(0o777)
    env = {**read_envvars(copy / "envvars"), "APACHE_LOG_DIR": str(logs)}
    return f'ServerRoot "{copy}"\nInclude "{conf}"\n', env


@needs_real
def test_explain_on_the_real_config_answers_as_apache_started_from_a_copy(
        tmp_path: Path, apache_binary: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from confmig.servers import ApacheServer, http_get

    tmp_path.chmod(0o755)
    site, env = _private_copy_of_real(tmp_path)
    paths = ["/", "/index.html", "/blog/x", "/icons/", "/.htaccess", "/server-status"]
    with ApacheServer(None, server_config=site, modules=[], env=env) as server:
        apache = {p: http_get(server.base_url, p).status for p in paths}
    for name, value in read_envvars(REAL.parent / "envvars").items():
        monkeypatch.setenv(name, value)
    model = {p: explain_request(p, config=REAL).status for p in paths}
    assert model == apache, (model, apache)
    assert apache["/index.html"] == 200 and apache["/blog/x"] == 404
    # The key fact the issue is about: AllowOverride None is in force under /var/www.
    applied = explain_request("/index.html", config=REAL).as_json()["applied"]
    overrides = [(a["args"], a["section"]) for a in applied if a["directive"] == "AllowOverride"]
    assert overrides[-1][0] == ["None"] and "/var/www/" in overrides[-1][1], overrides
