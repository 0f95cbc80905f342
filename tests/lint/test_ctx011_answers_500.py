"""CTX011: lint reports, as an error at its line, every ``.htaccess`` line the request model
says makes Apache answer 500 — so that lint, ``explain`` and the converters agree (issue 10,
audit B3: each line below was "No issues found" while Apache and ``explain`` said 500).

The table is linted as text (the line number pinned by a good line before it), as a docroot
under a server config, and served by a real Apache (each answers 500, and lint's error is
where it does).  A line another rule already reports as an error is left to it, and a lint of
one file asks the model for the file's section once (SEC002 reads the same one).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.engine import LintResult, lint_paths, lint_text
from confmig.lint.finding import Finding, Severity
from confmig.lint.testing import ApacheCases, HtaccessCase

NEST = "(" * 260 + "a" + ")" * 260  # PCRE's parentheses nesting limit is 250

# name -> the line (audit B3; all from one .htaccess each)
LINES: dict[str, str] = {
    "options_trailing_backslash": "Options -Indexes \\",
    "options_mixed": "Options -Indexes FollowSymLinks",
    "options_bogus": "Options Bogus",
    "options_minus_all": "Options -All",
    "options_plus_none": "Options +None",
    "errordocument_999": "ErrorDocument 999 /x",
    "redirect_999": "Redirect 999 /a /b",
    "redirect_relative": "Redirect 301 /a b",
    "redirect_gone_url": "Redirect gone /x /y",
    "require_ip_invalid": "Require ip 999.1.1.1",
    "require_ip_none": "Require ip",
    "require_bogus": "Require bogus thing",
    "require_trailing_backslash": "Require all denied \\",
    "require_method_bogus": "Require method BOGUS",
    "requireany_empty": "<RequireAny>\n</RequireAny>",
    "satisfy_sometimes": "Satisfy Sometimes",
    "files_no_argument": "<Files>\n</Files>",
    "files_bad_regex": '<Files ~ "(">\n</Files>',
    "filesmatch_no_argument": "<FilesMatch>\n</FilesMatch>",
    "else_alone": "<Else>\n</Else>",
    "elseif_alone": '<ElseIf "true">\n</ElseIf>',
    "limit_no_argument": "<Limit>\n</Limit>",
    "limitexcept_no_argument": "<LimitExcept>\n</LimitExcept>",
    "filesmatch_nested": f'<FilesMatch "{NEST}">\n</FilesMatch>',
    "redirectmatch_nested": f'RedirectMatch "{NEST}" /x',
    "setenvif_nested": f'SetEnvIf Request_URI "{NEST}" x=1',
    "rewritebase_relative": "RewriteBase x",
    "rewriteoptions_bogus": "RewriteOptions Bogus",
    "order_bad": "Order allow,deny,foo",
    "expiresdefault_bogus": 'ExpiresDefault "access plus bogus"',
    "allow_invalid_address": "Allow from 999.999.0.0",
}
GOOD = "Options -Indexes\n"
MODULES = ("mpm_event", "authz_core", "authz_host", "authz_user", "authn_core", "authn_file",
           "auth_basic", "access_compat", "alias", "autoindex", "dir", "env", "filter", "mime",
           "setenvif", "rewrite", "headers", "expires")


def _text(line: str) -> str:
    # (no newline after a trailing backslash: the audit's file ended there)
    return GOOD + line + ("" if line.endswith("\\") else "\n")


def _ctx011(findings: list[Finding] | object) -> list[Finding]:
    return [f for f in findings if f.code == "CTX011"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(LINES))
def test_the_line_apache_refuses_is_an_error_there(name: str) -> None:
    findings = lint_text(_text(LINES[name]))
    errors = [f for f in findings if f.severity is Severity.error]
    assert [(f.code, f.line) for f in errors] == [("CTX011", 2)], findings
    assert errors[0].message.endswith(
        ": Apache answers 500 for every request under this directory"), errors[0]


def test_every_refused_line_of_a_file_is_reported() -> None:
    text, starts = "", []
    for name, line in LINES.items():
        # (not Satisfy/Order/Allow: with Require beside them, DEP002's error is on the Require
        # line)
        if "backslash" not in name and not name.startswith(("satisfy", "order", "allow")):
            starts.append(text.count("\n") + 1)
            text += line + "\n"
    assert sorted({f.line for f in _ctx011(lint_text(text))}) == starts


@pytest.mark.parametrize("text", [
    GOOD,
    "Options +Indexes -MultiViews\nRequire ip 10.0.0.0/8\nRedirect 301 /a http://x/b\n",
    '<Files "x">\n</Files>\n<If "true">\n</If>\n<Else>\n</Else>\n',
    "RewriteEngine On\nRewriteBase /x/\nRewriteOptions Inherit\n",
])
def test_lines_apache_accepts_are_not_reported(text: str) -> None:
    assert _ctx011(lint_text(text)) == []


def test_a_file_apache_never_opens_is_not_reported() -> None:
    assert _ctx011(lint_text("Options Bogus\n", allow_override=("None",))) == []


def test_a_line_another_rule_reports_as_an_error_is_left_to_it() -> None:
    # The model refuses both (Alias is not allowed in .htaccess: CTX001 says so; a forbidden
    # class: CTX002); CTX011 adds nothing there, but does on its own.
    text = "Alias /a /tmp\nRequire bogus thing\n"
    found = lint_text(text)
    assert [(f.code, f.line) for f in found if f.severity is Severity.error] == [
        ("CTX001", 1), ("CTX011", 2)]
    assert [(f.code, f.line) for f in lint_text("Options -Indexes\n",
                                                allow_override=("AuthConfig",))
            if f.severity is Severity.error] == [("CTX002", 1)]
    # What AllowOverride or the registry refuses is CTX001/CTX002/SYN003's alone, even when
    # a run does not select them
    alone = lint_text(text + "RewriteEngin On\n", settings=Settings(select=("CTX011",)))
    assert [(f.code, f.line) for f in alone] == [("CTX011", 2)]


def test_nonfatal_lines_are_not_500s() -> None:
    # AllowOverride Nonfatal=Override: Apache logs and skips a forbidden directive
    text = "Options -Indexes\n"
    assert _ctx011(lint_text(text, allow_override=("AuthConfig", "Nonfatal=Override"))) == []


def _tree(root: Path) -> Path:
    site = root / "site"
    for name, line in LINES.items():
        (site / name).mkdir(parents=True)
        (site / name / ".htaccess").write_text(_text(line))
    conf = root / "httpd.conf"
    conf.write_text(f'DocumentRoot "{site}"\n<Directory "{site}">\n    AllowOverride All\n'
                    "</Directory>\n"
                    + "".join(f"LoadModule {m}_module modules/mod_{m}.so\n" for m in MODULES))
    return conf


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_docroot_under_a_server_config(tmp_path: Path, jobs: int,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # jobs=2 and no minimum: the refusals come from the workers' summaries
    from confmig.lint import engine

    monkeypatch.setattr(engine, "PARALLEL_MIN_FILES", 2)
    conf = _tree(tmp_path)
    result = lint_paths([tmp_path / "site"], conf, settings=Settings(cache=False), jobs=jobs)
    found = {Path(f.file).parent.name: f for f in _ctx011(result.findings)}
    assert sorted(found) == sorted(LINES)
    assert {f.line for f in found.values()} == {2}


def test_one_file_has_its_section_built_once(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """CTX011 and SEC002 both ask the model about a file linted alone: one section."""
    import confmig.model.htaccess as htaccess

    built: list[str] = []
    real = htaccess.build_htaccess_section

    def counted(path: str, *args: object, **kwargs: object) -> object:
        built.append(path)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(htaccess, "build_htaccess_section", counted)
    path = tmp_path / ".htaccess"
    path.write_text("Header set X-A b\n" * 50 + "Options Bogus\n")
    result = lint_paths([path], settings=Settings(cache=False, select=("CTX011", "SEC002")),
                        jobs=1)
    assert [(f.code, f.line) for f in result.findings] == [("CTX011", 51)]
    assert len(built) == 1, built
    built.clear()
    path.write_text("Header set X-A b\n")  # (SEC002 then answers the requests: same section)
    lint_paths([path], settings=Settings(cache=False, select=("CTX011", "SEC002")), jobs=1)
    assert len(built) == 1, built


# -- real Apache ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(apache_binary: object) -> Iterator[tuple[ApacheCases, LintResult]]:
    cases = [HtaccessCase(name, _text(line)) for name, line in LINES.items()]
    with ApacheCases(cases, modules=MODULES) as server:
        assert server.root is not None
        result = lint_paths([server.root], server.conf_path, settings=Settings(cache=False))
        yield server, result


@pytest.mark.apache
@pytest.mark.parametrize("name", sorted(LINES))
def test_apache_answers_500_where_lint_says_so(served: tuple[ApacheCases, LintResult],
                                               name: str) -> None:
    server, result = served
    answered = server.status(name)
    assert answered == 500, f"Apache answered {answered}"
    path = server.htaccess_path(name)
    errors = [f for f in result.findings
              if Path(f.file) == path and f.severity is Severity.error]
    assert [(f.code, f.line) for f in errors] == [("CTX011", 2)], server.error_log(name)
