"""``confmig lint PATH... --config CONF``: what each PATH is linted as.

The ``--config`` file (or a file it Includes) named on the command line is a server config,
linted once; another file named like an access file is an access file; any other file is a
server config of its own, as without ``--config``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app

runner = CliRunner()
REPO = Path(__file__).resolve().parents[2]
CONF = "fixtures/demo-httpd.conf"
SITE = "fixtures/demo-site"


def lint_json(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    res = runner.invoke(app, ["lint", "--no-cache", "--format", "json", *args])
    assert res.exit_code in (0, 1), res.output
    return res.exit_code, json.loads(res.stdout)


def by_file(data: dict) -> Counter[tuple[str, str]]:  # type: ignore[type-arg]
    return Counter((f["file"], f["code"]) for f in data["findings"])


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


@pytest.mark.usefixtures("in_repo")
def test_config_on_the_command_line_is_linted_as_a_server_config() -> None:
    # the review's command: demo-httpd.conf used to be read as an .htaccess (CTX003 at :2)
    code, data = lint_json(CONF, SITE, "--config", CONF)
    found = by_file(data)
    assert code == 1
    assert (CONF, "CTX003") not in found
    for rule in ("SEC003", "SEC004", "CTX008"):
        assert found[(CONF, rule)] == 1, rule
    # the same findings as linting the config on its own
    _, alone = lint_json(CONF)
    assert {k: v for k, v in found.items() if k[0] == CONF} == by_file(alone)
    # <Directory demo-site> is /demo-site/: AllowOverride None from <Directory /> is in force
    access = sorted(str(p) for p in Path(SITE).rglob(".htaccess"))
    assert len(access) == 6
    unread = sorted(f for f, c in found if c == "CTX003")
    assert unread == access
    assert all(found[(f, "CTX003")] == 1 for f in access)
    # 6 access files, the config and its one Include: each once
    assert data["files_checked"] == 8


@pytest.mark.usefixtures("in_repo")
def test_config_named_twice_or_with_its_includes_is_linted_once() -> None:
    included = "fixtures/conf.d/security.conf"
    _, once = lint_json(CONF)
    for args in ([CONF, CONF], [f"./{CONF}", included, CONF], [included, CONF]):
        _, data = lint_json(*args, "--config", CONF)
        assert by_file(data) == by_file(once), args
        assert data["files_checked"] == once["files_checked"] == 2, args


@pytest.mark.usefixtures("in_repo")
def test_an_included_file_alone_is_read_in_its_config() -> None:
    # before: read as an .htaccess under <Directory /> AllowOverride None → CTX003
    code, data = lint_json("fixtures/conf.d/security.conf", "--config", CONF)
    assert code == 0 and data["findings"] == [] and data["files_checked"] == 1


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "sites").mkdir()
    (tmp_path / "site").mkdir()
    conf = tmp_path / "main.conf"
    conf.write_text(f"ServerRoot {tmp_path}\nDefine EXTRA\nServerSignature On\n"
                    "AccessFileName .acl\n"
                    f"<Directory />\n    AllowOverride None\n</Directory>\n"
                    f"<Directory {tmp_path}/site>\n    AllowOverride All\n</Directory>\n"
                    "<VirtualHost *:80>\n    DocumentRoot site\n"
                    "    Include sites/*.conf\n</VirtualHost>\n")
    (tmp_path / "sites" / "a.conf").write_text("ServerTokens Full\n")
    (tmp_path / "other.conf").write_text("<IfDefine EXTRA>\nServerTokens Full\n</IfDefine>\n"
                                         "TraceEnable On\n")
    (tmp_path / "site" / ".acl").write_text("RewriteEngin On\n")
    (tmp_path / "site" / ".htaccess").write_text("RewriteEngin On\n")
    return conf


def test_included_file_reports_only_its_own_findings(tmp_path: Path) -> None:
    conf = _tree(tmp_path)
    included = str(tmp_path / "sites" / "a.conf")
    _, data = lint_json(included, "--config", str(conf))
    assert by_file(data) == Counter({(included, "SEC004"): 1})   # not main.conf's SEC003
    assert data["files_checked"] == 1


def test_other_files_keep_the_rule_used_without_config(tmp_path: Path) -> None:
    conf = _tree(tmp_path)
    other = str(tmp_path / "other.conf")
    acl, htaccess = str(tmp_path / "site" / ".acl"), str(tmp_path / "site" / ".htaccess")
    _, data = lint_json(other, acl, htaccess, "--config", str(conf))
    found = by_file(data)
    # other.conf is a server config of its own: no CTX003, and main.conf's Define EXTRA
    # does not leak into it (only -D names do)
    assert found[(other, "SEC005")] == 1
    assert not any(f == other and c in ("CTX003", "SEC004") for f, c in found)
    # the AccessFileName in force and a file named .htaccess are access files
    assert found[(acl, "SYN003")] == 1 and found[(htaccess, "SYN003")] == 1
    _, defined = lint_json(other, "-D", "EXTRA", "--config", str(conf))
    assert (other, "SEC004") in by_file(defined)
