"""What Apache does with each .htaccess directive under the AllowOverride in force (each case
below was checked on Apache 2.4.71; tests/verify re-checks them on the real server)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import confmig.apache.registry as registry_module
import confmig.convert.httpd.judge as judge_module
from confmig.apache.registry import Registry, overrides_permit, registry
from confmig.convert.httpd.env import assumed_env
from confmig.convert.httpd.judge import Verdict, judge
from confmig.convert.httpd.overrides import InForce
from confmig.convert.httpd.plan import FileStatus, plan_file
from confmig.convert.httpd.tree import AccessFile
from confmig.syntax import Directive, Section

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


# -- the converter asks the model's one decision -------------------------------------------

GRANTS = [["All"], ["None"], ["AuthConfig"], ["FileInfo"], ["Indexes"], ["Limit"],
          ["Options=Indexes"], ["FileInfo", "Limit"], ["AuthConfig", "Indexes", "Options"]]


@pytest.mark.parametrize("words", GRANTS, ids=" ".join)
def test_judge_admits_what_the_model_permits(words: list[str]) -> None:
    """For every directive the registry knows, the converter's verdict on "allowed here" is
    the model's overrides_permit (the decision CTX002 and the model's .htaccess reader ask)."""
    force = in_force(words, [])
    for info in registry():
        if info.name.lower() == "options":
            continue  # its keywords are checked after admission
        node = (Section("t", 1, 1, "", name=info.name.strip("<>"), args=["x"]) if info.section
                else Directive("t", 1, 1, "", name=info.name, args=["x"]))
        judgement = judge(node, force, lambda _module: True)
        admitted = overrides_permit(info.name, words)
        assert (judgement.verdict is Verdict.OK) == admitted, (info.name, judgement.reason)


UNKNOWN = "WSGIPassAuthorization"  # FileInfo in Apache; made unknown to confmig below


def test_judge_and_model_agree_for_an_unknown_class(monkeypatch: pytest.MonkeyPatch) -> None:
    """A third-party directive allowed in .htaccess whose class confmig does not know: Apache
    accepts it under AllowOverride All (every class granted) and refuses it under anything
    less unless AllowOverrideList names it — checked on Apache with mod_wsgi in
    tests/lint/rules/test_ctx_model_decisions.py::test_on_apache.  The converter used to
    answer 500 under All (its own class check)."""
    real = registry_module.registry()
    patched = Registry(dataclasses.replace(i, override_classes=frozenset())
                       if i.name == UNKNOWN else i for i in real)
    monkeypatch.setattr(registry_module, "registry", lambda: patched)
    monkeypatch.setattr(judge_module, "registry", lambda: patched)
    node = Directive("t", 1, 1, "", name=UNKNOWN, args=["On"])
    loaded = lambda _module: True  # noqa: E731
    assert judge(node, in_force(["All"], []), loaded).verdict is Verdict.OK
    assert judge(node, in_force(["AuthConfig"], []), loaded).verdict is Verdict.FATAL
    assert judge(node, in_force(["FileInfo"], []), loaded).verdict is Verdict.FATAL
    assert judge(node, in_force(["AuthConfig"], [UNKNOWN]), loaded).verdict is Verdict.OK
