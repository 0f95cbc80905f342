"""Debian's ``envvars`` beside a configuration is applied by the loader itself, so every
consumer — explain, lint, convert, verify — reads ``${APACHE_RUN_DIR}`` and friends alike,
without the command line putting them into this process's environment (issue 10)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from confmig.convert import convert_config
from confmig.lint.engine import lint_paths
from confmig.load import load_config
from confmig.load.variables import server_environ
from confmig.model.explain import explain_request

NAME = "CONFMIG_TEST_DOCROOT"


@pytest.fixture
def debian_layout(tmp_path: Path) -> tuple[Path, Path]:
    """apache2.conf whose DocumentRoot and <Directory> come from envvars; the docroot's
    .htaccess denies everything (AllowOverride All there, None elsewhere)."""
    assert NAME not in os.environ
    etc = tmp_path / "apache2"
    etc.mkdir()
    www = tmp_path / "www"
    www.mkdir()
    (www / "index.html").write_text("hi\n")
    (www / ".htaccess").write_text("Require all denied\n")
    (etc / "envvars").write_text(f"unset HOME\nexport {NAME}={www}\n")
    conf = etc / "apache2.conf"
    conf.write_text(f'ServerRoot "{etc}"\nDocumentRoot "${{{NAME}}}"\n'
                    "<Directory />\n    AllowOverride None\n</Directory>\n"
                    f'<Directory "${{{NAME}}}">\n    AllowOverride All\n</Directory>\n')
    return conf, www


def test_server_environ_applies_envvars_over_the_base(tmp_path: Path) -> None:
    (tmp_path / "envvars").write_text("export A=from-envvars\nexport B=${KEEP}/x\n")
    env = server_environ(tmp_path / "apache2.conf", {"A": "old", "KEEP": "k"})
    assert env == {"A": "from-envvars", "KEEP": "k", "B": "k/x"}
    assert server_environ(tmp_path / "sub" / "httpd.conf", {"A": "old"}) == {"A": "old"}


def test_load_config_expands_envvars(debian_layout: tuple[Path, Path]) -> None:
    conf, www = debian_layout
    loaded = load_config(conf)
    assert loaded.ok, loaded.errors
    roots = [n.args for n in loaded.nodes if getattr(n, "lname", "") == "documentroot"]
    assert roots == [[str(www)]]
    assert NAME not in os.environ
    # an explicit environment still wins (a caller that knows better)
    other = load_config(conf, environ={NAME: "/elsewhere"})
    assert [n.args for n in other.nodes if getattr(n, "lname", "") == "documentroot"] == \
        [["/elsewhere"]]


def test_explain_reads_envvars(debian_layout: tuple[Path, Path]) -> None:
    conf, _ = debian_layout
    answer = explain_request("/index.html", config=conf)
    assert answer.status == 403, answer.as_json()
    assert NAME not in os.environ


def test_lint_reads_envvars(debian_layout: tuple[Path, Path]) -> None:
    conf, www = debian_layout
    codes = [f.code for f in lint_paths([www], config=conf, use_cache=False).findings]
    assert "CTX003" not in codes  # the .htaccess is read: AllowOverride All under ${NAME}


def test_convert_reads_envvars(debian_layout: tuple[Path, Path]) -> None:
    conf, www = debian_layout
    result = convert_config(conf)
    assert result.docroots == [str(www)]
    assert "Require all denied" in result.text, result.text


def test_verify_starts_apache_with_envvars(debian_layout: tuple[Path, Path],
                                           apache_binary: object) -> None:
    """verify runs the configuration on real Apache with the environment it was read with:
    the original's DocumentRoot is ${NAME} from envvars, and its .htaccess denies."""
    from confmig.verify import VerifyRequest, verify

    conf, _ = debian_layout
    report = verify(VerifyRequest(config=conf, max_requests=200))
    assert report.compared > 0 and report.statuses[403] > 0, report.statuses
    assert report.exit_code == 0, [(d.probe, d.differences) for d in report.differing][:3]
