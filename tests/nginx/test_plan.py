"""The target-neutral site plan: what the model says is in force per URL space (no servers).
Each expectation here is one the verify tests then hold against real Apache."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.model.plan import plan_docroot
from confmig.servers import make_docroot

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


@pytest.fixture
def site() -> Iterator[object]:
    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-plan-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


def test_demo_site_scopes() -> None:
    plan = plan_docroot(FIXTURES / "demo-site")
    by_url = {s.url: s for s in plan.scopes}
    assert sorted(by_url) == ["/", "/assets/", "/blog/", "/old/", "/private/", "/shop/"]
    private = by_url["/private/"].settings.access
    assert (private.decision, private.status) == ("denied", 403)
    assert private.source is not None and private.source.file.endswith("private/.htaccess")
    assert private.source.line == 3
    blog = by_url["/blog/"].settings.rewrite
    assert blog is not None and (blog.strip, blog.base) == ("/blog/", "/blog/")
    # assets/ has no rewrite directive: the root's rules apply there, with the root's prefix
    assets = by_url["/assets/"].settings.rewrite
    assert assets is not None and assets.strip == "/" and len(assets.rules) == 2
    # the server config's .ht* protection is in force in every scope
    for scope in plan.scopes:
        labels = [f.label for f in scope.files if f.settings.access.decision == "denied"]
        assert any("^\\.ht" in label for label in labels), scope.url
    old = by_url["/old/"].settings.redirects
    assert [(r.regex, r.status) for r in old] == [(False, 301), (True, 302)]
    root = by_url["/"].settings
    assert root.default_charset == "utf-8" and root.index == ("index.html",)
    assert [(code, target) for code, target, _ in root.error_documents] == [(404, "/404.html")]
    assert {h.entry.name for h in root.headers} == {"X-Content-Type-Options",
                                                   "X-Frame-Options"}


def test_inherit_appends_the_parents_rules_with_the_childs_prefix(site) -> None:
    root = site({
        ".htaccess": "RewriteEngine On\nRewriteRule ^p$ parent.html [L]\n",
        "a/.htaccess": "RewriteOptions Inherit\nRewriteRule ^c$ child.html [L]\n",
        "b/.htaccess": "RewriteRule ^c$ child.html [L]\n",
        "c/.htaccess": "Header set X-C 1\n",
    })
    by_url = {s.url: s for s in plan_docroot(root).scopes}
    a = by_url["/a/"].settings.rewrite
    assert a is not None and [r.pattern for r in a.rules] == ["^c$", "^p$"]
    assert a.strip == "/a/"
    b = by_url["/b/"].settings.rewrite
    assert b is not None and [r.pattern for r in b.rules] == ["^c$"]  # deepest wins
    c = by_url["/c/"].settings.rewrite  # no rewrite directive: the parent's, its prefix
    assert c is not None and c.strip == "/" and [r.pattern for r in c.rules] == ["^p$"]


def test_access_that_depends_on_the_client(site) -> None:
    root = site({"ip/.htaccess": "Require ip 10.1.2.3\n",
                 "old/.htaccess": "Order deny,allow\nDeny from all\nAllow from 127.0.0.1 10.2\n",
                 "not/.htaccess": "<RequireAll>\nRequire all granted\nRequire not ip 10.0.0.1\n"
                                  "</RequireAll>\n",
                 "env/.htaccess": "Require env FOO\n",
                 "neg/.htaccess": "<RequireAll>\nRequire ip 10.0.0.0/8\n"
                                  "Require not ip 10.1.0.0/16\n</RequireAll>\n",
                 "ord/.htaccess": "Order allow,deny\nAllow from 10.0.0.0/8\n"
                                  "Deny from 10.1.0.0/16\n",
                 "v6/.htaccess": "Require ip ::1 2001:db8::/32\n",
                 "all/.htaccess": "Require all denied\n"})
    by_url = {s.url: s.settings.access for s in plan_docroot(root).scopes}
    assert (by_url["/ip/"].decision, by_url["/ip/"].networks) == ("by-address",
                                                                  ("10.1.2.3/32",))
    assert by_url["/old/"].networks == ("127.0.0.1/32", "10.2.0.0/16")
    assert by_url["/not/"].decision == "conditional"  # a negation: not a set of networks
    assert by_url["/env/"].decision == "conditional"
    # a hole in a granted network (negated or denied): not one set of networks → denied
    assert by_url["/neg/"].decision == by_url["/ord/"].decision == "conditional"
    assert by_url["/v6/"].networks == ("::1/128", "2001:db8::/32")
    assert (by_url["/all/"].decision, by_url["/all/"].status) == ("denied", 403)
    assert by_url["/"].decision == "granted"


def test_a_broken_htaccess_is_a_500_scope(site) -> None:
    root = site({"bad/.htaccess": "NoSuchDirective on\n"})
    bad = {s.url: s.settings.access for s in plan_docroot(root).scopes}["/bad/"]
    assert (bad.decision, bad.status) == ("denied", 500)


def test_what_the_plan_cannot_carry_is_a_note(site) -> None:
    root = site({".htaccess": "SetEnvIf User-Agent bot IS_BOT\nHeader set X-A 1\n"})
    notes = plan_docroot(root).notes
    assert [(n.directive, n.source.line) for n in notes] == [("SetEnvIf", 1)]


def test_plan_as_json_on_the_command_line() -> None:
    result = CliRunner().invoke(app, ["convert", "--to", "plan", str(FIXTURES / "demo-site")])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    urls = [s["url"] for s in data["scopes"]]
    assert "/private/" in urls
    blog = next(s for s in data["scopes"] if s["url"] == "/blog/")
    rules = blog["settings"]["rewrite"]["rules"]
    assert rules[-1]["source"].endswith("blog/.htaccess:8") and "last" in rules[-1]["flags"]
