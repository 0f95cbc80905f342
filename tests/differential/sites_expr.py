"""Sites for ``ap_expr``: every documented operator and function, variables, back-references,
and the expressions Apache refuses (a 500 for the whole directory).

Each case is one directory whose ``.htaccess`` denies when the expression is true —
``<If "EXPR">Require all denied</If>`` — so Apache answers 403 for true, 200 for false and 500
when it cannot parse the expression.  The same file is asked of the model.
"""

from __future__ import annotations

from tests.differential.harness import Case, SiteSpec

# (directory, expression, request path suffix, headers); path suffix is appended to /dir/x.txt
EXPRESSIONS: list[tuple[str, str, str, dict[str, str]]] = [
    ("in-list", "'b' -in { 'a', 'b' }", "", {}),
    ("in-list-no", "'c' -in { 'a', 'b' }", "", {}),
    ("in-var", "%{REQUEST_METHOD} in {'POST', 'GET'}", "", {}),
    ("strmatch-slash", "'a/b' -strmatch 'a*b'", "", {}),
    ("fnmatch-slash", "'a/b' -fnmatch 'a*b'", "", {}),
    ("fnmatch-seg", "'a/b' -fnmatch 'a/*'", "", {}),
    ("strcmatch", "'ABC' -strcmatch 'a?c'", "", {}),
    ("strmatch-case", "'ABC' -strmatch 'a?c'", "", {}),
    ("strmatch-set", "'x7' -strmatch 'x[0-9]'", "", {}),
    ("strmatch-negset", "'x7' -strmatch 'x[!0-9]'", "", {}),
    ("ipmatch", "%{REMOTE_ADDR} -ipmatch '127.0.0.0/8'", "", {}),
    ("ipmatch-no", "%{REMOTE_ADDR} -ipmatch '10.0.0.0/255.0.0.0'", "", {}),
    ("remote-R", "-R '127.0.0.1'", "", {}),
    ("remote-R-no", "-R '192.168.0.0/16'", "", {}),
    ("n-query", "-n %{QUERY_STRING}", "?q=1", {}),
    ("z-query", "-z %{QUERY_STRING}", "", {}),
    ("T-off", "-T 'Off'", "", {}),
    ("T-zero", "-T '00'", "", {}),
    ("T-word", "-T 'yes'", "", {}),
    ("num-eq", "'010' -eq 10", "", {}),
    ("num-lt", "' -5' -lt '-4x'", "", {}),
    ("str-lt", "'abc' < 'abd'", "", {}),
    ("str-ge", "'b' >= 'a' && 'a' ge 'b'", "", {}),
    ("concat", "'a' . 'b' . %{REQUEST_METHOD} == 'abGET'", "", {}),
    ("tolower", "tolower(%{HTTP:X-Word}) == 'mixed'", "", {"X-Word": "MiXeD"}),
    ("toupper", "toupper('abc') == 'ABC'", "", {}),
    ("escape", "escape('a b/c?d#é') == 'a%20b/c%3fd%23%c3%a9'", "", {}),
    ("unescape", "unescape('a%20b%2Fc') == 'a b%2Fc'", "", {}),
    ("unescape-bad", "unescape('a%zz') == ''", "", {}),
    ("md5", "md5('x') == '9dd4e461268c8034f5c8564e155c67a6'", "", {}),
    ("sha1", "sha1('x') == '11f6ad8ec52a2984abaafd7c3b516503785c2072'", "", {}),
    ("base64", "base64('hi!') == 'aGkh'", "", {}),
    ("unbase64", "unbase64('aGkh') == 'hi!'", "", {}),
    ("req", "req('X-Word') == 'w' && http('x-word') == 'w'", "", {"X-Word": "w"}),
    ("nested", "%{tolower:%{HTTP:X-Word}} == 'abc'", "", {"X-Word": "ABC"}),
    ("func-nested", "toupper(tolower(%{HTTP:X-Word})) == 'ABC'", "", {"X-Word": "aBc"}),
    ("backref", "%{QUERY_STRING} =~ /id=([0-9]+)/ && $1 == '42'", "?id=42", {}),
    ("backref-string", "%{QUERY_STRING} =~ /id=([0-9]+)/ && 'n$1' == 'n42'", "?id=42", {}),
    ("backref-zero", "%{QUERY_STRING} =~ /i(d)=/ && $0 == 'id='", "?id=42", {}),
    ("backref-nogroup", "%{QUERY_STRING} =~ /id=([0-9]+)/ && 'x' =~ /x/ && $1 == '42'",
     "?id=42", {}),
    ("regex-i", "%{HTTP:X-Word} =~ m#^ab#i", "", {"X-Word": "ABC"}),
    ("nre", "%{HTTP:X-Word} !~ /^a/", "", {"X-Word": "ABC"}),
    ("api", "%{API_VERSION} -ge 20120211", "", {}),
    ("time", "%{TIME_YEAR} -ge 2020 && %{TIME_MON} -le 12 && -n %{TIME}", "", {}),
    ("not-not", "!!true", "", {}),
    ("and-or", "false || true && !false", "", {}),
    ("words", "true and not false or false", "", {}),
    ("header-var", "%{HTTP_USER_AGENT} == 'probe'", "", {"User-Agent": "probe"}),
    ("digits-concat", "1 . 2 == '12'", "", {}),
    ("escapes", "'a\\x' == 'ax' && '\\101' == 'A'", "", {}),
    ("f-file", "-f %{REQUEST_FILENAME}", "", {}),
    ("d-dir", "-d %{DOCUMENT_ROOT}", "", {}),
    ("filesize", "filesize(%{REQUEST_FILENAME}) -gt 0", "", {}),
    ("file", "file(%{REQUEST_FILENAME}) =~ /^FILE:/", "", {}),
    ("file-missing", "file('/nonexistent/x') == ''", "", {}),
    ("recursion", "tolower(tolower(tolower(tolower(tolower(tolower(tolower(tolower(tolower("
     "tolower(tolower(tolower(tolower(tolower(tolower(tolower(tolower(tolower(tolower(tolower("
     "'a')))))))))))))))))))) == 'a'", "", {}),
    # Apache refuses these when it reads the .htaccess: 500
    ("unknown-var", "%{NO_SUCH_VARIABLE} == 'x'", "", {}),
    ("unknown-header-var", "%{HTTP_X_WORD} == 'x'", "", {}),
    ("unknown-func", "nosuchfunc('x') == 'x'", "", {}),
    ("R-not-constant", "-R %{REMOTE_ADDR}", "", {}),
    ("ipmatch-bad", "'1.2.3.4' -ipmatch 'not-a-net'", "", {}),
    ("syntax", "'a' == ", "", {}),
    ("unterminated", "'a == 'a", "", {}),
    ("bad-regex", "'a' =~ /(/", "", {}),
    ("unknown-unary", "-Q 'x'", "", {}),
]


def expressions() -> SiteSpec:
    files: dict[str, str | bytes | None] = {}
    cases = []
    for name, expr, suffix, headers in EXPRESSIONS:
        files[f"{name}/x.txt"] = None
        files[f"{name}/.htaccess"] = f'<If "{_quoted(expr)}">\nRequire all denied\n</If>\n'
        cases.append(Case(f"/{name}/x.txt{suffix}", expr, headers=headers))
    return SiteSpec("expr", files, cases)


def _quoted(expr: str) -> str:
    """The expression as a double-quoted directive argument."""
    return expr.replace("\\", "\\\\").replace('"', '\\"')


SITES = [expressions]


def rewrite_cond_expr() -> SiteSpec:
    """``RewriteCond expr``: evaluated as an ``ap_expr``; ``%N`` then name the expression's
    last regex match; an expression Apache cannot parse is a 500."""
    rules = "RewriteEngine On\n"
    return SiteSpec(
        "rwexpr",
        {
            "a/target.txt": None,
            "a/.htaccess": rules + "RewriteCond expr \"%{QUERY_STRING} =~ /go=(\\w+)/\"\n"
                                   "RewriteRule ^x$ target.txt?to=%1 [L]\n",
            "b/target.txt": None,
            "b/.htaccess": rules + "RewriteCond expr \"%{HTTP:X-Word} -strmatch 'a*'\"\n"
                                   "RewriteRule ^x$ - [F]\n",
            "c/x": None,
            "c/.htaccess": rules + "RewriteCond expr \"%{NOPE} == 1\"\nRewriteRule ^ - [F]\n",
            "d/target.txt": None,
            "d/.htaccess": rules + "RewriteCond expr \"!(-f %{REQUEST_FILENAME})\"\n"
                                   "RewriteRule ^ target.txt [L]\n",
        },
        [
            Case("/a/x?go=abc", "expr true, %1 from the expression's regex"),
            Case("/a/x?stay=1", "expr false"),
            Case("/b/x", "-strmatch on a header", headers={"X-Word": "abc"}),
            Case("/b/x", "-strmatch on a header, no match", headers={"X-Word": "zzz"}),
            Case("/c/x", "an unknown variable in RewriteCond expr: 500"),
            Case("/d/missing", "-f through an expression"),
        ],
    )


SITES.append(rewrite_cond_expr)


def named_groups() -> SiteSpec:
    """``<LocationMatch>``, ``<DirectoryMatch>`` and ``<FilesMatch>`` export their named groups
    as ``MATCH_<NAME>`` (upper-cased) environment variables (``server/request.c``): a group
    that did not take part sets nothing; expressions (``Require expr``, ``<If>``,
    ``Header … expr=``) and ``%{…}e`` see them."""
    htaccess = (
        "<FilesMatch \"^(?<base>[a-z]+)(?<opt>_z)?\\.(?<Ext>txt|html)$\">\n"
        "Header set X-F \"%{MATCH_BASE}e.%{MATCH_EXT}e opt=%{MATCH_OPT}e\"\n"
        "Header set X-Txt yes \"expr=%{env:MATCH_EXT} == 'txt'\"\n"
        "Require expr \"%{env:MATCH_BASE} != 'secret'\"\n"
        "</FilesMatch>\n")
    vhost = (
        "<LocationMatch \"^/loc/(?<sect>[a-z]+)/\">\n"
        "    Header always set X-Sect \"%{MATCH_SECT}e\"\n"
        "    Require expr \"%{env:MATCH_SECT} != 'deny'\"\n"
        "    <If \"%{env:MATCH_SECT} == 'iff'\">\n"
        "        Header always set X-If matched\n"
        "    </If>\n"
        "</LocationMatch>\n"
        "<DirectoryMatch \"^@ROOT@/dm/(?<dname>[^/]+)\">\n"
        "    Header set X-D \"%{MATCH_DNAME}e\"\n"
        "    <If \"%{env:MATCH_DNAME} == 'closed'\">\n"
        "        Require all denied\n"
        "    </If>\n"
        "</DirectoryMatch>\n")
    return SiteSpec(
        "namedgroups",
        {"loc/open/x.txt": None, "loc/deny/x.txt": None, "loc/iff/x.txt": None,
         "dm/open/x.txt": None, "dm/closed/x.txt": None,
         "fm/.htaccess": htaccess, "fm/page.txt": None, "fm/page_z.html": None,
         "fm/secret.txt": None, "fm/other.css": None},
        [
            Case("/loc/open/x.txt", "LocationMatch: MATCH_SECT in a header"),
            Case("/loc/deny/x.txt", "LocationMatch: Require expr on MATCH_SECT"),
            Case("/loc/iff/x.txt", "LocationMatch: <If> on MATCH_SECT",
                 compare_headers=("X-If",)),
            Case("/dm/open/x.txt", "DirectoryMatch: MATCH_DNAME in a header"),
            Case("/dm/closed/x.txt", "DirectoryMatch: <If> on MATCH_DNAME"),
            Case("/fm/page.txt", "FilesMatch: two groups, the optional one unset",
                 compare_headers=("X-F", "X-Txt")),
            Case("/fm/page_z.html", "FilesMatch: the optional group set; expr= false",
                 compare_headers=("X-F", "X-Txt")),
            Case("/fm/secret.txt", "FilesMatch: Require expr on MATCH_BASE"),
            Case("/fm/other.css", "FilesMatch does not match: no MATCH_*",
                 compare_headers=("X-F",)),
        ],
        vhost_extra=vhost,
    )


SITES.append(named_groups)


def expression_vary() -> SiteSpec:
    """``ap_expr_exec`` adds the request headers an expression read (``req()``, ``http()``,
    ``%{HTTP_*}``; never Host, never ``req_novary()``) to the response's Vary
    (``add_vary``), for every caller that does not pass ``AP_EXPR_FLAG_DONT_VARY``
    (``RewriteCond … [NV]`` does); an error response drops ``headers_out`` and with it Vary."""
    rules = "RewriteEngine On\n"
    files: dict[str, str | bytes | None] = {
        "if/.htaccess": "<If \"req('X-A') == 'a'\">\nHeader set X-If 1\n</If>\n",
        "req/.htaccess": "Require expr \"%{HTTP_USER_AGENT} != 'bad'\"\n",
        "hdr/.htaccess": "Header set X-H yes \"expr=req('X-B') == 'b'\"\n",
        "rw/.htaccess": rules + "RewriteCond expr \"req('X-C') == 'c'\"\n"
                                "RewriteRule ^ - [E=FOO:1]\n",
        "rwnv/.htaccess": rules + "RewriteCond expr \"req('X-C') == 'c'\" [NV]\n"
                                  "RewriteRule ^ - [E=FOO:1]\n",
        "rwno/.htaccess": rules + "RewriteCond expr \"req('X-C') == 'c'\"\n"
                                  "RewriteRule ^nomatch$ - [E=FOO:1]\n",
        "host/.htaccess": "<If \"req('Host') =~ /zz/ || req_novary('X-N') == 'n'\">\n"
                          "Header set X-If 1\n</If>\n",
        "mix/.htaccess": "<If \"-n req('X-A')\">\nHeader set X-If 1\n</If>\n"
                         "Require expr \"http('X-D') != 'no'\"\n"
                         "Header set X-H yes \"expr=%{HTTP_REFERER} == ''\"\n" + rules
                         + "RewriteCond %{HTTP:X-E} ^e\nRewriteRule ^ - [E=FOO:1]\n",
    }
    for directory in ("if", "req", "hdr", "rw", "rwnv", "rwno", "host", "mix"):
        files[f"{directory}/x.txt"] = None
    vary = ("Vary",)
    return SiteSpec("exprvary", files, [
        Case("/if/x.txt", "<If> reading req(): Vary", {"X-A": "a"}, compare_headers=vary),
        Case("/if/x.txt", "<If> false still varies", compare_headers=vary),
        Case("/req/x.txt", "Require expr reading %{HTTP_USER_AGENT}: Vary",
             compare_headers=vary),
        Case("/req/x.txt", "Require expr denies: an error response, no Vary",
             {"User-Agent": "bad"}, compare_headers=vary),
        Case("/hdr/x.txt", "Header expr=", {"X-B": "b"}, compare_headers=vary),
        Case("/rw/x.txt", "RewriteCond expr", {"X-C": "c"}, compare_headers=vary),
        Case("/rw/x.txt", "RewriteCond expr false", compare_headers=vary),
        Case("/rwnv/x.txt", "RewriteCond expr [NV]", {"X-C": "c"}, compare_headers=vary),
        Case("/rwno/x.txt", "RewriteCond expr of a rule whose pattern does not match",
             compare_headers=vary),
        Case("/host/x.txt", "req('Host') and req_novary(): no Vary", compare_headers=vary),
        Case("/mix/x.txt", "<If>, Require expr, Header expr= and a RewriteCond: the order",
             {"X-A": "1", "X-E": "e"}, compare_headers=vary),
    ])


SITES.append(expression_vary)


def expression_subrequests() -> SiteSpec:
    """``-U``/``-A`` (a URL sub-request: true below 400) and ``-F`` (a file sub-request:
    true below 300 when the file exists) — ``op_url_subr``/``op_file_subr``.  Each directory
    denies when its expression is true.  ``-U`` of the request's own URI: the sub-request's
    own test is false (Apache's recursion guard), so the main request's is true."""
    deny = "<If \"{}\">\nRequire all denied\n</If>\n"
    tests = {
        "u-open": "-U '/t/open.txt'",
        "u-private": "-U '/t/private/x.txt'",
        "u-missing": "-U '/t/missing.txt'",
        "u-redirect": "-U '/t/moved.txt'",
        "a-open": "-A '/t/open.txt'",
        "u-relative": "-U 'y.txt'",
        "u-self": "-U %{REQUEST_URI}",
        "f-open": "-F '@ROOT@/t/open.txt'",
        "f-private": "-F '@ROOT@/t/private/x.txt'",
        "f-missing": "-F '@ROOT@/t/missing.txt'",
        "f-relative": "-F 'y.txt'",
    }
    files: dict[str, str | bytes | None] = {
        "t/open.txt": None, "t/private/x.txt": None,
        "t/private/.htaccess": "Require all denied\n",
        "t/.htaccess": "Redirect 301 /t/moved.txt /t/open.txt\n",
    }
    cases = []
    for name, expr in tests.items():
        files[f"{name}/x.txt"] = None
        files[f"{name}/.htaccess"] = deny.format(_quoted(expr))
        cases.append(Case(f"/{name}/x.txt", expr))
    files["u-relative/y.txt"] = None
    files["f-relative/y.txt"] = None
    files["rw/x.txt"] = None
    files["rw/.htaccess"] = ("RewriteEngine On\nRewriteCond expr \"-U '/t/private/x.txt' || "
                             "-F '@ROOT@/t/open.txt'\"\nRewriteRule ^ - [F]\n")
    cases.append(Case("/rw/x.txt", "RewriteCond expr with -U and -F"))
    files["hdr/x.txt"] = None
    files["hdr/.htaccess"] = "Header set X-U yes \"expr=-U '/t/open.txt'\"\n"
    cases.append(Case("/hdr/x.txt", "Header expr= with -U", compare_headers=("X-U",)))
    files["req/x.txt"] = None
    files["req/.htaccess"] = "Require expr \"-U '/t/private/x.txt'\"\n"
    cases.append(Case("/req/x.txt", "Require expr with -U on a denied URL"))
    return SiteSpec("exprsubreq", files, cases)


SITES.append(expression_subrequests)


def header_control_characters() -> SiteSpec:
    """A response header whose value holds a control character (or a name that is not a
    token): ``check_headers`` (``http_filters.c``) clears the headers and ``ap_die(500)``s
    (AH02430); the error response's own check failing again ends in a bare 500.  (A value
    from the environment and a cookie of mod_rewrite's that fail: a site of their own,
    tests/model/test_headers_status_only_apache.py, which the converters are not asked.)"""
    files: dict[str, str | bytes | None] = {
        "set/.htaccess": "Header set X-T \"a\x1cb\"\n",
        "always/.htaccess": "Header always set X-T \"a\x1cb\"\n",
        "del/.htaccess": "Header set X-T \"a\x7fb\"\n",
        "tab/.htaccess": "Header set X-T \"a\tb\"\n",
        "doc/.htaccess": "Header set X-T \"a\x01b\"\nErrorDocument 500 /errors/500.txt\n",
        "msg/.htaccess": "Header set X-T \"a\x01b\"\nErrorDocument 500 \"oops\"\n",
        "missing/.htaccess": "Header always set X-T \"a\x1cb\"\n",
        "name/.htaccess": "Header set \"X(T)\" v\n",
        "redirect/.htaccess": "RewriteEngine On\nRewriteRule ^r/(.*)$ /target/$1 [R,NE]\n",
        "errors/500.txt": None,
    }
    cases = []
    for directory in ("set", "always", "del", "tab", "doc", "msg", "name"):
        files[f"{directory}/x.txt"] = None
        cases.append(Case(f"/{directory}/x.txt", repr(files[f"{directory}/.htaccess"])))
    cases.append(Case("/missing/nothing.txt", "Header always with a control character on a 404"))
    cases.append(Case("/redirect/r/a%1cb", "a Location with a control character ([NE])"))
    cases.append(Case("/redirect/r/ab", "a Location without"))
    return SiteSpec("headerctl", files, cases)


SITES.append(header_control_characters)


def setenvif_expressions() -> SiteSpec:
    """``SetEnvIfExpr`` (its Vary added, ``$N`` from the expression's regex), and what
    ``match_headers`` does for every ``SetEnvIf``: a header that is not there is matched as
    "" (so ``^$`` matches), values get ``$N``/``&`` of the match (``ap_pregsub``) unless the
    pattern has no regex metacharacter (then they are set as written)."""
    show = "Header set X-V \"foo=%{FOO}e id=%{ID}e empty=%{EMPTY}e part=%{PART}e lit=%{LIT}e\"\n"
    files: dict[str, str | bytes | None] = {
        "expr/.htaccess": "SetEnvIfExpr \"req('X-A') == 'a'\" FOO=yes\n"
                          "SetEnvIfExpr \"%{QUERY_STRING} =~ /id=(\\d+)/\" ID=n$1\n" + show,
        "missing/.htaccess": "SetEnvIf X-Missing ^$ EMPTY=1\n" + show,
        "sub/.htaccess": "SetEnvIf Request_URI \"/(sub)/(x)\" PART=$2-$1&\n"
                         "SetEnvIf X-B abc LIT=$1\n" + show,
        "req/.htaccess": "SetEnvIfExpr \"%{HTTP:X-C} == 'c'\" OK\nRequire env OK\n",
        "bad/.htaccess": "SetEnvIfExpr \"%{NOPE} == 1\" FOO\n",
        "sub/&x.txt": None,
    }
    for directory in ("expr", "missing", "sub", "req", "bad"):
        files[f"{directory}/x.txt"] = None
    both = ("X-V", "Vary")
    return SiteSpec("setenvifexpr", files, [
        Case("/expr/x.txt?id=42", "SetEnvIfExpr true twice", {"X-A": "a"},
             compare_headers=both),
        Case("/expr/x.txt", "SetEnvIfExpr false: Vary all the same", compare_headers=both),
        Case("/missing/x.txt", "a missing header matches ^$", compare_headers=both),
        Case("/missing/x.txt", "a present one does not", {"X-Missing": "v"},
             compare_headers=both),
        Case("/sub/x.txt", "$N and & in SetEnvIf values; a literal pattern's as written",
             {"X-B": "xabcx"}, compare_headers=both),
        Case("/req/x.txt", "Require env of a SetEnvIfExpr variable", {"X-C": "c"}),
        Case("/req/x.txt", "Require env, the variable not set"),
        Case("/bad/x.txt", "SetEnvIfExpr Apache cannot parse: 500"),
        Case("/am/x.txt", "AliasMatch: & is an ordinary character in ap_pregsub"),
        Case("/am2/x.txt", "AliasMatch: a backslash makes the next character literal"),
    ], vhost_extra="AliasMatch ^/am/(x)\\.txt$ @ROOT@/sub/&$1.txt\n"
                   "AliasMatch ^/am2/(x)\\.txt$ @ROOT@/sub/\\&$1.t\\xt\n")


SITES.append(setenvif_expressions)


def expression_variables() -> SiteSpec:
    """The request variables of ``ap_expr`` the model once left unknown, read through
    ``SetEnvIfExpr … =~ /(.*)/ V=$1`` and shown in a header: SERVER_ADMIN, REMOTE_HOST
    (HostnameLookups Off: the address), CONN_REMOTE_ADDR, REQUEST_STATUS (200 while the
    request is processed, the answer's status in the output filter), CONTEXT_PREFIX and
    CONTEXT_DOCUMENT_ROOT (an Alias's), LAST_MODIFIED (``r->mtime``: 0 until the handler),
    SCRIPT_USER/SCRIPT_GROUP, IS_SUBREQ, DOCUMENT_URI."""
    names = ["SERVER_ADMIN", "REMOTE_HOST", "CONN_REMOTE_ADDR", "REQUEST_STATUS",
             "CONTEXT_PREFIX", "CONTEXT_DOCUMENT_ROOT", "LAST_MODIFIED", "SCRIPT_USER",
             "SCRIPT_GROUP", "IS_SUBREQ", "DOCUMENT_URI", "REMOTE_USER", "AUTH_TYPE"]
    capture = "".join(f"SetEnvIfExpr \"%{{{n}}} =~ /(.*)/\" V_{n}=$1\n" for n in names)
    show = "Header set X-V \"" + " ".join(f"{n}=%{{V_{n}}}e" for n in names) + "\"\n"
    late = ("Header set X-Late \"late\" \"expr=%{REQUEST_STATUS} == '200' && "
            "%{LAST_MODIFIED} != '19700101000000' && %{LAST_MODIFIED} =~ /^20/\"\n"
            "Header always set X-Missing yes \"expr=%{REQUEST_STATUS} == '404'\"\n")
    sub = "<If \"%{IS_SUBREQ} == 'true'\">\nRequire all denied\n</If>\n"
    return SiteSpec("exprvars", {
        "v/.htaccess": capture + show + late, "v/x.txt": None,
        "sq/.htaccess": sub, "sq/index.html": None,
    }, [
        Case("/v/x.txt", "the variables while processing; REQUEST_STATUS/LAST_MODIFIED late",
             compare_headers=("X-V", "X-Late")),
        Case("/al/x.txt", "through an Alias: CONTEXT_PREFIX, CONTEXT_DOCUMENT_ROOT",
             compare_headers=("X-V",)),
        Case("/v/missing.txt", "REQUEST_STATUS 404 in Header always",
             compare_headers=("X-Missing",)),
        Case("/sq/", "IS_SUBREQ in DirectoryIndex's sub-request: the index is refused"),
        Case("/sq/index.html", "IS_SUBREQ false in the main request"),
    ], vhost_extra="ServerAdmin admin@exprvars.test\nAlias /al @ROOT@/v\n")


SITES.append(expression_variables)


def header_actions() -> SiteSpec:
    """mod_headers' ``edit``/``edit*`` (``process_regexp``: ``$N`` in the replacement, ``edit*``
    again on the rest), ``echo`` (a regex over the request's header names), a value written
    ``expr=…`` (a string expression: it adds nothing to Vary), and the expressions Apache
    refuses when it reads the file (a 500 in .htaccess)."""
    files: dict[str, str | bytes | None] = {
        "edit/.htaccess": "Header set X-E \"a-b-c\"\nHeader edit X-E \"-(\\w)\" \"+$1\"\n"
                          "Header set X-F \"a-b-c\"\nHeader edit* X-F \"-(\\w)\" \"+$1\"\n"
                          "Header set X-G \"aaa\"\nHeader edit* X-G ^a b\n"
                          "Header edit Content-Type ^text/ \"x-text/\"\n",
        "echo/.htaccess": "Header echo ^X-Echo\n",
        "val/.htaccess": "Header set X-Val \"expr=%{REQUEST_URI} . '|' %{req:X-In}\"\n",
        "badval/.htaccess": "Header set X-Val \"expr=%{NOPE}\"\n",
        "badcond/.htaccess": "Header set X-Val v \"expr=%{NOPE} == 1\"\n",
    }
    for directory in ("edit", "echo", "val", "badval", "badcond"):
        files[f"{directory}/x.txt"] = None
    return SiteSpec("headeractions", files, [
        Case("/edit/x.txt", "edit, edit*, edit* with ^, edit of Content-Type",
             compare_headers=("X-E", "X-F", "X-G", "Content-Type")),
        Case("/echo/x.txt", "echo by a regex", {"X-Echo-A": "1", "X-Echo-B": "2", "X-No": "3"},
             compare_headers=("X-Echo-A", "X-Echo-B")),
        Case("/val/x.txt", "a value expression", {"X-In": "in"},
             compare_headers=("X-Val", "Vary")),
        Case("/badval/x.txt", "a value expression Apache cannot parse: 500"),
        Case("/badcond/x.txt", "a condition Apache cannot parse: 500"),
    ])


SITES.append(header_actions)


def header_formats() -> SiteSpec:
    """mod_headers' format (``parse_format_string``): ``\\t``/``\\n``/``\\r`` escapes in the
    text (an LF then fails the header filter's check: 500), other backslashes kept, ``%%``,
    ``%{VAR}s`` without TLS, and an unknown tag refused when the file is read (500)."""
    files: dict[str, str | bytes | None] = {
        "esc/.htaccess": "Header set X-Tab \"a\\tb\"\nHeader set X-Dir \"c:\\dir\"\n"
                         "Header set X-Pct \"100%%\"\nHeader set X-Ssl \"%{HTTPS}s\"\n",
        "tag/.htaccess": "Header set X-Q \"%q\"\n",
    }
    for directory in ("esc", "tag"):
        files[f"{directory}/x.txt"] = None
    return SiteSpec("headerformat", files, [
        Case("/esc/x.txt", "escapes, %%, %{…}s", compare_headers=("X-Tab", "X-Dir", "X-Pct",
                                                                  "X-Ssl")),
        Case("/tag/x.txt", "an unknown format tag: a configuration error → 500"),
    ])


def header_format_newline() -> SiteSpec:
    """``\\n`` in a ``Header`` value of the server config is an LF, which the header filter
    refuses: 500.  (The same line in an .htaccess answers the same; the nginx and flask
    converters do not yet turn the escape into the LF, so the docroot form is left to them.)"""
    return SiteSpec("headerformat-lf", {"x.txt": None, "ok.txt": None}, [
        Case("/x.txt", "\\n in a value: an LF, refused by the header filter → 500"),
        Case("/ok.txt", "the other file of the directory"),
    ], directory_extra="<Files x.txt>\nHeader set X-Lf \"a\\nb\"\n</Files>\n")


SITES.extend([header_formats, header_format_newline])
