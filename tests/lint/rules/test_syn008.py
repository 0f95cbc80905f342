"""SYN008: expressions Apache refuses.  That each of these makes an .htaccess answer 500 is
held to real Apache by tests/differential/sites_expr.py (same parser)."""

from __future__ import annotations

import pytest

from confmig.lint.testing import finds

REFUSED = [
    '<If "%{HTTP_X_FORWARDED_FOR} == \'a\'">\nRequire all denied\n</If>\n',
    '<If "true">\n</If>\n<ElseIf "nosuch(1) == 1">\n</ElseIf>\n',
    'Require expr "%{NOPE} == 1"\n',
    'Require not expr "-R %{REMOTE_ADDR}"\n',
    'RewriteEngine On\nRewriteCond expr "\'a\' =~ /(/"\nRewriteRule ^ - [F]\n',
    'Header set X-A 1 "expr=%{NOPE} == 1"\n',
    'Header set X-A "expr=%{NOPE}"\n',  # a value expression Apache cannot parse
    'SetEnvIfExpr "%{NOPE} == 1" x=1\n',
    '<If "filesize(\'/etc/hostname\') -gt 0">\n</If>\n',  # restricted in .htaccess
]
ACCEPTED = [
    '<If "%{HTTP:X-Forwarded-For} == \'a\'">\nRequire all denied\n</If>\n',
    'Require expr "%{QUERY_STRING} =~ /x/"\n',
    'RewriteEngine On\nRewriteCond expr "-f %{REQUEST_FILENAME}"\nRewriteRule ^ - [F]\n',
    'Header set X-A 1 "expr=%{REQUEST_STATUS} == 200"\n',
    'Header set X-A "expr=%{REQUEST_URI}"\n',  # a value expression: a string, served (200)
    'Header always set X-A "expr=%{REQUEST_URI}" "expr=-n %{QUERY_STRING}"\n',
]


@pytest.mark.parametrize("text", REFUSED)
def test_refused_expressions_are_errors_in_htaccess(text: str) -> None:
    found = finds("SYN008", text)
    assert len(found) == 1 and "answers 500" in found[0].message, text


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted_expressions_are_quiet(text: str) -> None:
    assert finds("SYN008", text) == []


def test_file_functions_are_allowed_in_the_server_config() -> None:
    text = '<Directory /srv>\n<If "filesize(\'/etc/hostname\') -gt 0">\n</If>\n</Directory>\n'
    assert finds("SYN008", text, kind="server", filename="httpd.conf") == []
    bad = '<Directory /srv>\n<If "%{NOPE} == 1">\n</If>\n</Directory>\n'
    found = finds("SYN008", bad, kind="server", filename="httpd.conf")
    assert len(found) == 1 and "refuses to start" in found[0].message
