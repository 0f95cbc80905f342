"""``load_path`` (``confmig parse``, ``confmig explain``) classifies a PATH as ``confmig lint``
does (:func:`confmig.load.workspace.path_kind`): with ``--config``, the config itself or a file
it Includes is that server config (loaded once), another file named like an access file is an
access file, and any other file is a server config of its own — never "every file is an
access file"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.lint import engine
from confmig.lint.context import make_environment
from confmig.load import load_path
from confmig.load.workspace import config_files, path_kind

REPO = Path(__file__).resolve().parents[1]
CONF = "fixtures/demo-httpd.conf"
INCLUDED = "fixtures/conf.d/security.conf"
runner = CliRunner()


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def parse_json(*args: str) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, ["parse", "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def files(doc: dict) -> list[str]:  # type: ignore[type-arg]
    return [Path(f["file"]).resolve().relative_to(REPO).as_posix() for f in doc["config"]]


@pytest.mark.usefixtures("in_repo")
def test_parse_config_with_itself_as_config_prints_it_once() -> None:
    # the review's command; before: demo-httpd.conf, security.conf, demo-httpd.conf (the
    # second time parsed as an .htaccess)
    doc = parse_json(CONF, "--config", CONF)
    assert files(doc) == [CONF, INCLUDED]
    assert doc == parse_json(CONF)
    tree = runner.invoke(app, ["parse", CONF, "--config", CONF])
    assert tree.exit_code == 0 and tree.stdout.count("demo-httpd.conf ok") == 1


@pytest.mark.usefixtures("in_repo")
def test_parse_an_included_file_with_its_config_is_that_config() -> None:
    # before: security.conf alone, read as an .htaccess
    assert files(parse_json(INCLUDED, "--config", CONF)) == [CONF, INCLUDED]
    assert files(parse_json(f"./{CONF}", "--config", str(REPO / CONF))) == [CONF, INCLUDED]


def _tree(tmp_path: Path) -> Path:
    (tmp_path / "sites").mkdir()
    (tmp_path / "site").mkdir()
    conf = tmp_path / "main.conf"
    conf.write_text(f"ServerRoot {tmp_path}\nAccessFileName .acl\nInclude sites/*.conf\n")
    (tmp_path / "sites" / "a.conf").write_text("ServerTokens Full\n")
    (tmp_path / "other.conf").write_text("<VirtualHost *:80>\n    Include sites/*.conf\n"
                                         "</VirtualHost>\n")
    (tmp_path / "site" / ".acl").write_text("Options -Indexes\n")
    (tmp_path / "site" / ".htaccess").write_text("Options -Indexes\n")
    (tmp_path / "site" / "notes.txt").write_text("Options -Indexes\n")
    return conf


def test_other_files_with_config(tmp_path: Path) -> None:
    conf = _tree(tmp_path)
    other = load_path(tmp_path / "other.conf", conf)
    # a server config of its own (before: an access file under main.conf)
    assert other.server is not None and other.server.main == str(tmp_path / "other.conf")
    assert not other.access
    assert sorted(other.server.files) == [str(tmp_path / "other.conf"),
                                          str(tmp_path / "sites" / "a.conf")]
    for name in (".acl", ".htaccess"):   # the AccessFileName in force, and .htaccess
        ws = load_path(tmp_path / "site" / name, conf)
        assert list(ws.access) == [str(tmp_path / "site" / name)]
        assert ws.server is not None and ws.server.main == str(conf)
    config_itself = load_path(conf, conf)
    assert not config_itself.access and config_itself.server is not None
    assert sorted(config_itself.server.files) == [str(conf), str(tmp_path / "sites" / "a.conf")]


def test_without_config_nothing_changes(tmp_path: Path) -> None:
    _tree(tmp_path)
    htaccess = load_path(tmp_path / "site" / ".htaccess")
    assert list(htaccess.access) == [str(tmp_path / "site" / ".htaccess")]
    acl = load_path(tmp_path / "site" / ".acl")      # no AccessFileName: a server config
    assert acl.server is not None and not acl.access
    docroot = load_path(tmp_path / "site")
    assert docroot.docroot == tmp_path / "site"
    assert list(docroot.access) == [str(tmp_path / "site" / ".htaccess")]


def test_one_rule_for_lint_and_load(tmp_path: Path) -> None:
    conf = _tree(tmp_path)
    expected = {
        conf: "config", tmp_path / "sites" / "a.conf": "config",
        tmp_path / "other.conf": "server", tmp_path / "site" / ".acl": "htaccess",
        tmp_path / "site" / ".htaccess": "htaccess", tmp_path / "site" / "notes.txt": "server",
        tmp_path / "site": "docroot", tmp_path / "missing": "missing",
    }
    env = make_environment(conf, set())
    loaded = load_path(None, conf).server
    for path, kind in expected.items():
        assert engine.path_kind(path, env) == kind, path
        assert path_kind(path, loaded, config_files(loaded, conf)) == kind, path
    plain = make_environment(None, set())
    assert engine.path_kind(tmp_path / "site" / ".acl", plain) == "server"
    assert path_kind(tmp_path / "site" / ".acl") == "server"
    assert path_kind(conf) == "server"
