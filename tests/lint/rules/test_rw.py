"""RW rules: hits and misses at the edges of each rule's logic (no server needed).

What each rule claims Apache does is proven against real Apache in test_rw_apache.py.
"""

from __future__ import annotations

import pytest

from confmig.lint.finding import Severity
from confmig.lint.testing import finds

ON = "RewriteEngine On\n"


def msgs(code: str, text: str, **kwargs: object) -> list[str]:
    return [f.message for f in finds(code, text, **kwargs)]


# -- RW001 invalid regex --------------------------------------------------------------------


def test_rw001_reports_pcre2_message_offset_and_caret() -> None:
    [f] = finds("RW001", ON + "RewriteRule ^(a|b /x [L]\n")
    assert "missing closing parenthesis" in f.message and "offset 5" in f.message
    assert "500" in f.message
    assert f.line == 2 and f.column == len("RewriteRule ") + 1 + 5


def test_rw001_checks_conditions_but_not_tests_or_comparisons() -> None:
    assert finds("RW001", ON + "RewriteCond %{HTTP_HOST} ^[a-\n RewriteRule ^ - [L]\n")
    text = ON + ("RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{QUERY_STRING} =(\n"
                 "RewriteCond %{TIME_HOUR} <(\nRewriteCond expr \"%{HTTPS} == 'on'\"\n"
                 "RewriteRule ^ - [L]\n")
    assert not finds("RW001", text)


def test_rw001_uses_pcre_not_python_re() -> None:
    # Valid in PCRE2, invalid in Python's re: possessive quantifier and \K.
    assert not finds("RW001", ON + "RewriteRule ^a++\\Kb$ /x [L]\n")
    # Valid in Python's re, invalid in PCRE2: a lookbehind of unbounded length.
    assert finds("RW001", ON + "RewriteRule (?<=a+)b /x [L]\n")


def test_rw001_server_config_refuses_to_start() -> None:
    [m] = msgs("RW001", "RewriteEngine On\nRewriteRule ^/(x /y [L]\n", kind="server")
    assert "refuses to start" in m


# -- RW002 ^/ in per-directory context -----------------------------------------------------


def test_rw002_htaccess_and_directory_but_not_server_or_vhost() -> None:
    assert finds("RW002", ON + "RewriteRule ^/foo$ /bar [L]\n")
    assert finds("RW002", ON + "RewriteRule ^\\/foo$ /bar [L]\n")
    server = ("<Directory /var/www>\n RewriteEngine On\n RewriteRule ^/a$ /b [L]\n</Directory>\n"
              "<VirtualHost *:80>\n RewriteEngine On\n RewriteRule ^/a$ /b [L]\n</VirtualHost>\n"
              "RewriteEngine On\nRewriteRule ^/a$ /b [L]\n")
    assert [f.line for f in finds("RW002", server, kind="server")] == [3]


def test_rw002_misses_optional_slash_and_negation_is_always_true() -> None:
    assert not finds("RW002", ON + "RewriteRule ^/?foo$ /bar [L]\n")
    [m] = msgs("RW002", ON + "RewriteRule !^/foo$ /bar [L]\n")
    assert "always matches" in m


def test_rw002_not_in_directorymatch_where_nothing_is_stripped() -> None:
    text = ('<DirectoryMatch "^/var/www">\n RewriteEngine On\n RewriteRule ^/a$ /b\n'
            "</DirectoryMatch>\n")
    assert not finds("RW002", text, kind="server")


# -- RW003 dangling RewriteCond --------------------------------------------------------------


def test_rw003_condition_at_end_of_each_section() -> None:
    text = ("<Directory /a>\n RewriteEngine On\n RewriteCond %{HTTPS} off\n</Directory>\n"
            "<Directory /b>\n RewriteEngine On\n RewriteCond %{HTTPS} off\n"
            " RewriteRule ^ - [F]\n</Directory>\n")
    assert [f.line for f in finds("RW003", text, kind="server")] == [3]


def test_rw003_condition_separated_from_its_rule_by_other_directives_is_fine() -> None:
    assert not finds("RW003", ON + "RewriteCond %{HTTPS} off\nOptions -Indexes\n"
                                   "RewriteRule ^ - [F]\n")


def test_rw003_condition_and_rule_in_different_sections() -> None:
    text = ON + "RewriteCond %{HTTPS} off\n<Files x.php>\nRewriteRule ^ - [F]\n</Files>\n"
    assert [f.line for f in finds("RW003", text)] == [2]


# -- RW004 relative redirect without RewriteBase ------------------------------------------


@pytest.mark.parametrize("target", ["new", "$1/", "%{HTTP_HOST}/x"])
def test_rw004_relative_targets(target: str) -> None:
    assert finds("RW004", ON + f"RewriteRule ^(old)$ {target} [R=301,L]\n",
                 filename="site/sub/.htaccess")


@pytest.mark.parametrize("rule", [
    "RewriteRule ^old$ /new [R=301,L]",           # absolute path
    "RewriteRule ^old$ https://example.com/ [R]",  # absolute URL
    "RewriteRule ^old$ %{REQUEST_URI}x [R,L]",     # starts with a path variable
    "RewriteRule ^old$ new [L]",                   # internal rewrite: docroot is stripped
    "RewriteRule ^old$ new [R=403]",               # status only, no target
    "RewriteRule ^old$ %1 [R,L]",                  # cannot tell
])
def test_rw004_misses(rule: str) -> None:
    assert not finds("RW004", ON + rule + "\n")


def test_rw004_rewritebase_fixes_it_and_message_names_the_physical_path() -> None:
    assert not finds("RW004", ON + "RewriteBase /sub/\nRewriteRule ^old$ new [R=301,L]\n")
    text = ("<Directory /var/www/html/sub>\n RewriteEngine On\n RewriteRule ^a$ b [R,L]\n"
            "</Directory>\n")
    [m] = msgs("RW004", text, kind="server")
    assert "/var/www/html/sub/b" in m


# -- RW005 rules after a catch-all ----------------------------------------------------------


@pytest.mark.parametrize("catch", ["^ - [L]", ".* index.php [END]", "^(.*)$ - [F]", "^ - [G]",
                                   "(.*) - [R=404]", "^ http://backend/ [P]"])
def test_rw005_hits(catch: str) -> None:
    [f] = finds("RW005", ON + f"RewriteRule {catch}\nRewriteRule ^a$ b\nRewriteRule ^c$ d\n")
    assert f.line == 3 and "and 1 more" in f.message


@pytest.mark.parametrize("first", [
    "RewriteCond %{HTTPS} off\nRewriteRule ^ - [L]",  # conditional
    "RewriteRule . index.php [L]",                     # '.' needs one character
    "RewriteRule ^ /x [R=301,L]",                      # skipped in sub-requests
    "RewriteRule ^ - [L,NS]",
    "RewriteRule ^ - [C,L]",
    "RewriteRule !^ - [L]",
    "RewriteRule ^ - [E=X:1]",                         # does not stop
])
def test_rw005_misses(first: str) -> None:
    assert not finds("RW005", ON + first + "\nRewriteRule ^a$ b [L]\n")


def test_rw005_catch_all_last_is_fine() -> None:
    assert not finds("RW005", ON + "RewriteRule ^a$ b [L]\nRewriteRule ^ index.php [L]\n")


# -- RW006 unknown flags --------------------------------------------------------------------


@pytest.mark.parametrize("flags", ["[L,X]", "[R=999]", "L", "[QSAppend,Lastt]", "[BNE]"])
def test_rw006_rule_flags_apache_rejects(flags: str) -> None:
    [f] = finds("RW006", ON + f"RewriteRule ^a$ /b {flags}\n")
    assert f.severity is Severity.error


def test_rw006_condition_flags() -> None:
    assert finds("RW006", ON + "RewriteCond %{HTTPS} off [NC,L]\nRewriteRule ^ - [F]\n")
    assert not finds("RW006", ON + "RewriteCond %{HTTPS} off [nocase,OR,NV]\n"
                                   "RewriteCond %{HTTPS} on\nRewriteRule ^ - [F]\n")


def test_rw006_d_flags_are_silently_ignored_not_errors() -> None:
    [f] = finds("RW006", ON + "RewriteRule ^a$ /b [L,Dummy]\n")
    assert f.severity is Severity.warning and "ignores" in f.message
    assert not finds("RW006", ON + "RewriteRule ^a$ /b [DPI,discardpath,D,L]\n")


def test_rw006_every_documented_flag_is_accepted() -> None:
    flags = ("B,BNP,BCTLS,BNE=x,C,CO=a:b:c,DPI,E=a:b,END,H=x,L,N=5,NC,NE,NS,PT,QSA,QSD,QSL,"
             "S=1,T=text/plain,UNC,UnsafeAllow3F,UnsafePrefixStat")
    assert not finds("RW006", ON + f"RewriteRule ^a$ /b [{flags}]\n")


# -- RW007 conflicting flags ----------------------------------------------------------------


@pytest.mark.parametrize("flags, fragment", [
    ("[F,R=301]", "301"), ("[F,G]", "[G]"), ("[P,R]", "proxied"), ("[R,PT]", "400"),
    ("[L,N]", "never restarted"), ("[QSA,QSD]", "QSA does nothing"), ("[C,L]", "chained"),
])
def test_rw007_hits(flags: str, fragment: str) -> None:
    [m] = msgs("RW007", ON + f"RewriteRule ^a$ http://x/ {flags}\n")
    assert fragment in m


@pytest.mark.parametrize("flags", ["[R=301,L]", "[F]", "[END,QSA]", "[C]", "[N,NC]", "[PT,L]"])
def test_rw007_misses(flags: str) -> None:
    assert not finds("RW007", ON + f"RewriteRule ^a$ /b {flags}\n")


# -- RW008 redirect to the Host header ------------------------------------------------------


@pytest.mark.parametrize("rule", [
    "RewriteRule ^ https://%{HTTP_HOST}%{REQUEST_URI} [R=301,L]",
    "RewriteRule ^ %{REQUEST_SCHEME}://%{HTTP_HOST}/ [R,L]",
    "RewriteRule ^ https://%{http:host}/ [L]",        # absolute URL: an implicit redirect
    "RewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\nRewriteRule ^ https://%1/ [R=301,L]",
    "RewriteCond %{HTTP_HOST} !^www\\. [NC]\nRewriteRule ^ https://www.%{HTTP_HOST}/ [R,L]",
])
def test_rw008_hits(rule: str) -> None:
    assert finds("RW008", ON + rule + "\n")


@pytest.mark.parametrize("rule", [
    "RewriteCond %{HTTP_HOST} ^(www\\.)?example\\.com$ [NC]\n"
    "RewriteRule ^ https://%{HTTP_HOST}/ [R,L]",
    "RewriteCond %{HTTP_HOST} =example.com\nRewriteRule ^ https://%{HTTP_HOST}/ [R,L]",
    "RewriteRule ^ https://example.com/%{HTTP_HOST} [R,L]",  # host is literal
    "RewriteCond %{HTTP_HOST} ^www\\.(.+)$\nRewriteRule ^ /%1 [R,L]",
    "RewriteRule ^ https://%{SERVER_NAME}/ [R,L]",
])
def test_rw008_misses(rule: str) -> None:
    assert not finds("RW008", ON + rule + "\n")


# -- RW009 engine off -------------------------------------------------------------------------


def test_rw009_engine_off_is_an_error_on_the_off_line() -> None:
    [f] = finds("RW009", "RewriteEngine Off\nRewriteRule ^a$ /b [L]\n")
    assert f.severity is Severity.error and f.line == 1


def test_rw009_off_then_on_and_sections() -> None:
    assert not finds("RW009", "RewriteEngine Off\nRewriteEngine On\nRewriteRule ^a$ /b\n")
    text = ("RewriteEngine On\n<VirtualHost *:80>\n RewriteRule ^/a$ /b\n</VirtualHost>\n"
            "<Directory /x>\n RewriteEngine Off\n RewriteRule ^a$ /b\n</Directory>\n")
    assert [f.line for f in finds("RW009", text, kind="server")] == [6]


def test_rw009_server_config_without_any_engine_on() -> None:
    text = "<VirtualHost *:80>\n RewriteRule ^/a$ /b\n</VirtualHost>\n"
    [f] = finds("RW009", text, kind="server")
    assert f.severity is Severity.warning


def test_rw009_no_rules_no_finding() -> None:
    assert not finds("RW009", "RewriteEngine Off\n")


# -- RW010 parent rules dropped ---------------------------------------------------------------


def test_rw010_nested_directory_sections() -> None:
    parent = "<Directory /srv/a>\n RewriteEngine On\n RewriteRule ^x$ /y [L]\n</Directory>\n"
    assert finds("RW010", parent + "<Directory /srv/a/b>\n RewriteEngine On\n</Directory>\n",
                 kind="server")
    for child in ("<Directory /srv/a/b>\n Options -Indexes\n</Directory>\n",
                  "<Directory /srv/a/b>\n RewriteOptions Inherit\n</Directory>\n",
                  "<Directory /srv/ab>\n RewriteEngine On\n</Directory>\n"):
        assert not finds("RW010", parent + child, kind="server"), child


def test_rw010_inheritdown_in_parent() -> None:
    text = ("<Directory /srv/a>\n RewriteEngine On\n RewriteOptions InheritDown\n"
            " RewriteRule ^x$ /y [L]\n</Directory>\n"
            "<Directory /srv/a/b>\n RewriteEngine On\n</Directory>\n")
    assert not finds("RW010", text, kind="server")


# -- RW011 / RW012 redirects ----------------------------------------------------------------


def test_rw011_only_when_rules_follow() -> None:
    assert finds("RW011", ON + "RewriteRule ^a$ /b [R=301]\nRewriteRule ^c$ /d [L]\n")
    assert not finds("RW011", ON + "RewriteRule ^a$ /b [R=301]\n")
    assert not finds("RW011", ON + "RewriteRule ^a$ /b [R=301,END]\nRewriteRule ^c$ /d\n")
    assert not finds("RW011", ON + "RewriteRule ^a$ - [R=410]\nRewriteRule ^c$ /d\n")


@pytest.mark.parametrize("flags, hit", [("[R]", True), ("[redirect,L]", True), ("[R=,L]", True),
                                        ("[R=302,L]", False), ("[R=permanent]", False),
                                        ("[L]", False)])
def test_rw012(flags: str, hit: bool) -> None:
    assert bool(finds("RW012", ON + f"RewriteRule ^a$ /b {flags}\n")) is hit


# -- RW013 file tests before mapping ----------------------------------------------------------


def test_rw013_server_and_vhost_only() -> None:
    cond = " RewriteCond %{REQUEST_FILENAME} !-d\n RewriteRule ^ /index.php [L]\n"
    text = (ON + cond + "<VirtualHost *:80>\n RewriteEngine On\n" + cond + "</VirtualHost>\n"
            "<Directory /var/www>\n RewriteEngine On\n" + cond + "</Directory>\n")
    assert [f.line for f in finds("RW013", text, kind="server")] == [2, 6]
    assert not finds("RW013", ON + cond)


def test_rw013_misses_prefixed_and_lookahead_tests() -> None:
    text = ON + ("RewriteCond %{DOCUMENT_ROOT}%{REQUEST_FILENAME} -f\n"
                 "RewriteCond %{REQUEST_FILENAME} -F\nRewriteCond %{LA-U:REQUEST_FILENAME} -f\n"
                 "RewriteRule ^ - [L]\n")
    assert not finds("RW013", text, kind="server")


# -- RW014 [P] without mod_proxy --------------------------------------------------------------


def test_rw014_proxy_missing() -> None:
    assert finds("RW014", ON + "RewriteRule ^a$ http://127.0.0.1/ [P]\n")
    assert not finds("RW014", ON + "RewriteRule ^a$ http://127.0.0.1/ [R]\n")


# -- RW015 unknown variables ------------------------------------------------------------------


@pytest.mark.parametrize("var, hint", [("HTTP_X_FORWARDED_PROTO", "%{HTTP:X-Forwarded-Proto}"),
                                       ("REDIRECT_STATUS", "%{ENV:REDIRECT_STATUS}"),
                                       ("HTTP_AUTHORIZATION", "%{HTTP:Authorization}"),
                                       ("ENV:", "")])
def test_rw015_hits(var: str, hint: str) -> None:
    [m] = msgs("RW015", ON + f"RewriteCond %{{{var}}} x\nRewriteRule ^ - [F]\n")
    assert hint in m


def test_rw015_known_names_any_case_prefixes_and_map_keys() -> None:
    text = ON + ("RewriteCond %{http_host}%{HTTPS}%{ENV:FOO}%{SSL:SSL_PROTOCOL}%{HTTP:X-A} x\n"
                 "RewriteCond %{LA-U:REQUEST_FILENAME}%{CONTEXT_DOCUMENT_ROOT} x\n"
                 "RewriteRule ^ /x?%{QUERY_STRING}&t=%{TIME_YEAR} [L]\n")
    assert not finds("RW015", text)
    assert finds("RW015", ON + "RewriteRule ^ /${m:%{HTTP_FOO}|x} [L]\n")


def test_rw015_cond_pattern_is_not_expanded() -> None:
    assert not finds("RW015", ON + "RewriteCond %{HTTP_HOST} %{NOT_EXPANDED}\n"
                                   "RewriteRule ^ - [F]\n")


# -- RW016 back-references --------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "RewriteRule ^a$ /x$1 [L]",
    "RewriteRule !^(a)$ /x$1 [L]",
    "RewriteRule ^(a)(b)$ /$3 [L]",
    "RewriteRule ^ /%1 [L]",
    "RewriteCond %{HTTP_HOST} ^(.+)$\nRewriteCond %{HTTPS} on\nRewriteCond %{REQUEST_URI} ^/x\n"
    "RewriteRule ^ /%1 [L]",
    "RewriteCond %{HTTP_HOST} !^(www)\nRewriteRule ^ /%1 [L]",
    "RewriteCond x$2 ^x$\nRewriteRule ^(a)$ /b [L]",
    "RewriteCond %{HTTP_HOST} ^(.+)$\nRewriteCond %{HTTPS} on\nRewriteRule ^ /%1 [L]",
])
def test_rw016_hits(text: str) -> None:
    assert finds("RW016", ON + text + "\n")


@pytest.mark.parametrize("text", [
    "RewriteRule ^(a)$ /x$1$0 [L]",
    "RewriteCond %{HTTP_HOST} ^(.+)$\nRewriteCond %{HTTPS} =on\n"
    "RewriteCond %{REQUEST_FILENAME} -f\nRewriteRule ^ /%1 [L]",
    "RewriteCond %{HTTP_HOST} ^(a)(b)$ [OR]\nRewriteCond %{HTTP_HOST} ^(c)$\n"
    "RewriteRule ^ /%2 [L]",
    "RewriteRule ^(?:a|b)(c)$ /\\$2 [L]",
])
def test_rw016_misses(text: str) -> None:
    assert not finds("RW016", ON + text + "\n")
