"""What Apache does with each .htaccess directive under the AllowOverride in force (each case
below was checked on Apache 2.4.71; tests/verify re-checks them on the real server)."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.convert.httpd.env import assumed_env
from confmig.convert.httpd.judge import Verdict
from confmig.convert.httpd.overrides import InForce
from confmig.convert.httpd.plan import FileStatus, plan_file
from confmig.convert.httpd.tree import AccessFile

CASES = [
    # AllowOverride words, AllowOverrideList, directive, verdict
    (["All"], [], "Options +MultiViews", Verdict.OK),
    (["Options"], [], "Options +MultiViews", Verdict.FATAL),  # OPT_ALL lacks MultiViews
    (["Options=Indexes,MultiViews"], [], "Options +MultiViews -Indexes", Verdict.OK),
    (["Options=Indexes"], [], "Options +ExecCGI", Verdict.FATAL),
    (["All"], [], "Options +Indexes FollowSymLinks", Verdict.FATAL),  # mixing +/- and plain
    (["FileInfo"], [], "Options -Indexes", Verdict.FATAL),
    (["FileInfo"], [], "RewriteEngine On", Verdict.OK),
    (["AuthConfig"], [], "RewriteEngine On", Verdict.FATAL),
    (["AuthConfig", "Nonfatal=Override"], [], "RewriteEngine On", Verdict.IGNORED),
    (["Nonfatal=All", "All"], [], "NoSuchDirective x", Verdict.FATAL),  # All resets Nonfatal
    (["All", "Nonfatal=All"], [], "NoSuchDirective x", Verdict.IGNORED),
    (["All", "Nonfatal=Unknown"], [], "ServerName x", Verdict.FATAL),
    (["None"], ["Redirect"], "Redirect /a /b", Verdict.OK),
    (["None"], ["Redirect"], "Header set X 1", Verdict.FATAL),
    (["Limit"], [], "Require all denied", Verdict.FATAL),  # Require needs AuthConfig
    (["Limit"], [], "Deny from all", Verdict.OK),
    (["All"], [], "AllowOverride All", Verdict.FATAL),
]


def in_force(words: list[str], listed: list[str]) -> InForce:
    result = InForce.default_none().with_allow_override(words, "test")
    return result.with_allow_override_list(listed) if listed else result


@pytest.mark.parametrize(("words", "listed", "line", "verdict"), CASES)
def test_directive_fate(tmp_path: Path, words: list[str], listed: list[str], line: str,
                        verdict: Verdict) -> None:
    path = tmp_path / ".htaccess"
    path.write_text(line + "\n")
    env = assumed_env()
    plan = plan_file(AccessFile(path, str(tmp_path)), in_force(words, listed), env.loaded,
                     env.state)
    (judgement,) = plan.decisions.values()
    assert judgement.verdict is verdict, judgement.reason


def test_allowoverride_none_means_the_file_is_never_read(tmp_path: Path) -> None:
    path = tmp_path / ".htaccess"
    path.write_text("Bogus directive\n")
    env = assumed_env()
    plan = plan_file(AccessFile(path, str(tmp_path)), InForce.default_none(), env.loaded,
                     env.state)
    assert plan.status is FileStatus.IGNORED and plan.decisions == {}


def test_an_ignored_rewrite_directive_still_replaces_the_parents_rules(tmp_path: Path) -> None:
    """Nonfatal=Override: Apache creates the module's per-dir config before it checks the
    override (ap_set_config_vectors), so the parent's rules stop applying here."""
    path = tmp_path / ".htaccess"
    path.write_text("RewriteRule ^x$ y.html\nHeader set X 1\n")
    env = assumed_env()
    plan = plan_file(AccessFile(path, str(tmp_path)),
                     in_force(["Indexes", "Nonfatal=Override"], []), env.loaded, env.state)
    assert [module for module, _node in plan.empty_configs] == ["mod_rewrite"]
