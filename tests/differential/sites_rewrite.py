"""Sites for mod_alias, per-directory mod_rewrite (rounds, inheritance, flags), server-context
rewriting, URL decoding and normalisation."""

from __future__ import annotations

from tests.differential.harness import Case, SiteSpec


def alias_redirect() -> SiteSpec:
    """Server-context mod_alias: Alias/AliasMatch/ScriptAlias map URLs outside the docroot;
    Redirect*/RedirectMatch in the translate phase (before per-directory rewriting)."""
    return SiteSpec(
        "alias",
        {
            "www/index.html": None,
            "www/.htaccess": "RewriteEngine On\nRewriteRule ^moved$ index.html [L]\n",
            "www/moved": None,
            "assets/app.js": None,
            "assets/img/logo.png": None,
            "bin/tool.sh": None,
            "old/page.html": None,
        },
        [
            Case("/static/app.js", "Alias to a directory outside the docroot"),
            Case("/static//img/logo.png", "Alias with a doubled slash"),
            Case("/staticx/app.js", "Alias prefix must end at a slash"),
            Case("/images/logo.png", "AliasMatch with a back-reference"),
            Case("/cgi-bin/tool.sh", "ScriptAlias without mod_cgi: served as a file"),
            Case("/old/page.html", "Redirect: translate phase"),
            Case("/old/page.html?x=1&y=2", "Redirect keeps the query"),
            Case("/gone/thing", "Redirect gone: 410"),
            Case("/product/42", "RedirectMatch with a back-reference"),
            Case("/moved", "server Redirect runs before the .htaccess RewriteRule"),
            Case("/tmp-redirect/a%20b", "Redirect escapes the rest of the path"),
            Case("/perm/a", "RedirectPermanent"),
            Case("/seeother/a", "Redirect seeother"),
            Case("/loc-redirect/anything", "Location-form Redirect"),
        ],
        vhost_extra="""
Alias /static @ROOT@/assets
AliasMatch "^/images/(.*)$" "@ROOT@/assets/img/$1"
ScriptAlias /cgi-bin/ @ROOT@/bin/
Redirect /old http://example.com/new
Redirect gone /gone
RedirectMatch 301 "^/product/(\\d+)$" "/shop/item?id=$1"
Redirect 302 /moved /www/index.html
Redirect /tmp-redirect http://example.com/t
RedirectPermanent /perm /permanent
Redirect seeother /seeother /other
<Directory "@ROOT@/assets">
    Require all granted
</Directory>
<Directory "@ROOT@/bin">
    Require all granted
</Directory>
<Location "/loc-redirect">
    Redirect 307 http://example.com/elsewhere
</Location>
""",
    )


def htaccess_redirect_vs_rewrite() -> SiteSpec:
    """In .htaccess, mod_rewrite's fixup runs before mod_alias's: an [R] rule wins, but an
    internal rewrite still lets a Redirect match the original URL."""
    return SiteSpec(
        "redir-order",
        {
            ".htaccess": "RewriteEngine On\nRewriteRule ^a$ target.txt [L]\n"
                         "RewriteRule ^b$ /elsewhere [R=302,L]\n"
                         "Redirect 301 /a /redirected-a\nRedirect 301 /b /redirected-b\n"
                         "Redirect 301 /c /redirected-c\n"
                         "RedirectMatch 302 ^/d(.*)$ /dd$1\n",
            "target.txt": None,
            "c": None,
            "sub/.htaccess": "Redirect 301 /sub/x /sub-x\n",
            "sub/x": None,
            "sub/y": None,
        },
        [
            Case("/a", "internal rewrite, then the Redirect on the original URL"),
            Case("/b", "an [R] rule answers before mod_alias"),
            Case("/c", "plain Redirect in .htaccess"),
            Case("/c?q=1", "Redirect in .htaccess keeps the query"),
            Case("/d/e/f", "RedirectMatch in .htaccess"),
            Case("/sub/x", "child Redirect"),
            Case("/sub/y", "parent's RedirectMatch does not match"),
        ],
    )


def rewrite_rounds() -> SiteSpec:
    """Per-directory rewriting: prefix stripping, RewriteBase, [L] restarts processing with the
    new URL (rounds) until nothing changes; loops end in 500 (LimitInternalRecursion)."""
    return SiteSpec(
        "rounds",
        {
            ".htaccess": "RewriteEngine On\n"
                         "RewriteRule ^one$ two [L]\nRewriteRule ^two$ three.txt [L]\n"
                         "RewriteRule ^loop/(.*)$ loop/x$1 [L]\n"
                         "RewriteRule ^end$ two [END]\n"
                         "RewriteRule ^base/(.*)$ /real/$1 [L]\n"
                         "RewriteRule ^qs$ three.txt?a=1 [L]\n",
            "three.txt": None,
            "two": None,
            "real/file.txt": None,
            "app/.htaccess": "RewriteEngine On\nRewriteBase /app/\n"
                             "RewriteCond %{REQUEST_FILENAME} !-f\n"
                             "RewriteCond %{REQUEST_FILENAME} !-d\n"
                             "RewriteRule ^(.*)$ index.php?path=$1 [QSA,L]\n",
            "app/index.php": None,
            "app/style.css": None,
            "app/dir/x.txt": None,
            "nobase/.htaccess": "RewriteEngine On\nRewriteRule ^x$ y.txt [L]\n",
            "nobase/y.txt": None,
        },
        [
            Case("/one", "two rounds: one → two → three.txt"),
            Case("/two", "one round"),
            Case("/loop/a", "a loop: 500 after LimitInternalRecursion"),
            Case("/end", "[END]: no further round, 'two' is served"),
            Case("/base/file.txt", "absolute substitution"),
            Case("/qs", "substitution with a query"),
            Case("/app/some/route", "front controller with RewriteBase"),
            Case("/app/style.css", "existing file: no rewrite"),
            Case("/app/dir/", "existing directory: no rewrite"),
            Case("/app/dir", "directory without slash: mod_dir 301"),
            Case("/app/?x=1", "DirectoryIndex is index.html: rewrite to the front controller"),
            Case("/nobase/x", "no RewriteBase: the directory prefix is added back"),
        ],
    )


def recursion_limit() -> SiteSpec:
    """LimitInternalRecursion 3 in the vhost."""
    return SiteSpec(
        "recursion",
        {
            ".htaccess": "RewriteEngine On\nRewriteRule ^r(\\d)$ r$1x [L]\n"
                         "RewriteRule ^r(\\d)(x+)$ r$1$2x [L]\n"
                         "RewriteRule ^s/a$ s/b [L]\nRewriteRule ^s/b$ s/c [L]\n"
                         "RewriteRule ^s/c$ s/d.txt [L]\n",
            "s/d.txt": None,
        },
        [
            Case("/r1", "endless: 500"),
            Case("/s/a", "three internal redirects within the limit"),
        ],
        vhost_extra="LimitInternalRecursion 3\n",
    )


def rewrite_inheritance() -> SiteSpec:
    """Which per-directory rules apply in a subdirectory: a child .htaccess without Rewrite*
    directives, with only RewriteEngine On, with rules, with RewriteOptions Inherit /
    InheritBefore."""
    parent = ("RewriteEngine On\nRewriteRule ^(.*)/p$ $1/parent.txt [L]\n"
              "RewriteRule ^top$ parent.txt [L]\n")
    return SiteSpec(
        "inherit",
        {
            ".htaccess": parent,
            "parent.txt": None,
            "plain/.htaccess": "Options -Indexes\n",
            "plain/x/parent.txt": None,
            "engine/.htaccess": "RewriteEngine On\n",
            "engine/x/parent.txt": None,
            "own/.htaccess": "RewriteEngine On\nRewriteRule ^o$ own.txt [L]\n",
            "own/own.txt": None,
            "own/x/parent.txt": None,
            "inh/.htaccess": "RewriteEngine On\nRewriteOptions Inherit\n"
                             "RewriteRule ^(.*)/p$ $1/child.txt [L]\n",
            "inh/x/child.txt": None,
            "inh/x/parent.txt": None,
            "inh/i.txt": None,
            "before/.htaccess": "RewriteEngine On\nRewriteOptions InheritBefore\n"
                                "RewriteRule ^(.*)/p$ $1/child.txt [L]\n",
            "before/x/child.txt": None,
            "before/x/parent.txt": None,
            "off/.htaccess": "RewriteEngine Off\n",
            "off/x/parent.txt": None,
            "none/x/parent.txt": None,
        },
        [
            Case("/plain/x/p", "no Rewrite* directive: the parent's rules, parent's prefix"),
            Case("/engine/x/p", "only RewriteEngine On: the parent's rules are gone"),
            Case("/own/x/p", "own rules replace the parent's"),
            Case("/own/o", "own rule"),
            Case("/inh/x/p", "Inherit: the child's rule first"),
            Case("/before/x/p", "InheritBefore: the parent's rule first"),
            Case("/off/x/p", "RewriteEngine Off"),
            Case("/none/x/p", "no .htaccess: parent's rules"),
            Case("/top", "parent's own rule"),
        ],
    )


def rewrite_flags() -> SiteSpec:
    """Per-directory flags and conditions: R with codes, F, G, QSA, QSD, trailing '?', NC, OR,
    -f/-d, back-references %N and $N, C chains, S skips, env E= feeding a Header."""
    return SiteSpec(
        "flags",
        {
            ".htaccess": (
                "RewriteEngine On\n"
                "RewriteRule ^perm$ /target.txt [R=301,L]\n"
                "RewriteRule ^temp$ target.txt [R,L]\n"
                "RewriteRule ^abs$ http://example.org/x [R=302,L]\n"
                "RewriteRule ^forbid$ - [F]\n"
                "RewriteRule ^gone$ - [G]\n"
                "RewriteRule ^qsa$ target.txt?b=2 [QSA,R,L]\n"
                "RewriteRule ^qsd$ target.txt [QSD,R,L]\n"
                "RewriteRule ^drop$ target.txt? [R,L]\n"
                "RewriteRule ^CASE$ target.txt [NC,L]\n"
                "RewriteCond %{QUERY_STRING} (^|&)id=(\\d+)\n"
                "RewriteRule ^item$ items/%2.txt? [L]\n"
                "RewriteCond %{HTTP_HOST} ^nomatch [OR]\n"
                "RewriteCond %{REQUEST_URI} ^/or$\n"
                "RewriteRule ^or$ target.txt [L]\n"
                "RewriteRule ^chain$ - [C]\n"
                "RewriteRule ^(.*)$ items/1.txt [L]\n"
                "RewriteRule ^skip$ - [S=1]\n"
                "RewriteRule ^skip$ nothing.txt [L]\n"
                "RewriteRule ^skip$ target.txt [L]\n"
                "RewriteRule ^env$ target.txt [E=FROM_REWRITE:1,L]\n"
                "Header always set X-Env yes env=REDIRECT_FROM_REWRITE\n"
                "RewriteRule ^code$ - [R=403,L]\n"
                "RewriteRule ^ua$ target.txt [L]\n"
            ),
            "target.txt": None,
            "items/7.txt": None,
            "items/1.txt": None,
        },
        [
            Case("/perm", "R=301 to a path"),
            Case("/temp", "R: the directory prefix is added back"),
            Case("/abs", "absolute URL"),
            Case("/forbid", "F"),
            Case("/gone", "G"),
            Case("/qsa?a=1", "QSA appends"),
            Case("/qsd?a=1", "QSD drops"),
            Case("/drop?a=1", "trailing ? drops the query"),
            Case("/case", "NC"),
            Case("/item?x=1&id=7", "%2 from the last matched condition"),
            Case("/or", "OR"),
            Case("/chain", "C chains"),
            Case("/skip", "S=1 skips a rule"),
            Case("/env", "E= renamed REDIRECT_ after the internal redirect",
                 compare_headers=("X-Env",)),
            Case("/code", "R=403: a non-redirect status"),
        ],
    )


def server_rewrite() -> SiteSpec:
    """Server (vhost) context rules: the leading slash, DocumentRoot prefixing, [PT] into
    Alias, redirects, and per-directory rules applied afterwards."""
    return SiteSpec(
        "vhost-rw",
        {
            "index.html": None,
            "new/page.html": None,
            "api.php": None,
            "data/x.json": None,
            "sub/.htaccess": "RewriteEngine On\nRewriteRule ^y$ z.txt [L]\n",
            "sub/z.txt": None,
            "ext/file.txt": None,
        },
        [
            Case("/old/page.html", "vhost rule: R=301"),
            Case("/api/users/3", "vhost rule: internal, then served"),
            Case("/pt/x.json", "[PT] into an Alias"),
            Case("/sub/y", "per-directory rule after the vhost rules"),
            Case("/internal", "vhost rule to a URL-path under the docroot"),
            Case("/blocked", "vhost [F]"),
            Case("/index.html", "no rule"),
        ],
        vhost_extra="""
RewriteEngine On
RewriteRule ^/old/(.*)$ /new/$1 [R=301,L]
RewriteRule ^/api/(.*)$ /api.php?route=$1 [L]
RewriteRule ^/pt/(.*)$ /aliased/$1 [PT]
RewriteRule ^/internal$ /index.html [L]
RewriteRule ^/blocked$ - [F]
Alias /aliased @ROOT@/data
""",
    )


def paths() -> SiteSpec:
    """URL decoding and normalisation: dot segments, doubled slashes, %-escapes, encoded
    slashes (404), bad escapes (400), climbing above the root (400)."""
    return SiteSpec(
        "paths",
        {
            "a/b.txt": None,
            "with space.txt": None,
            "pct%41.txt": None,
            "dir/index.html": None,
            "plus+sign.txt": None,
        },
        [
            Case("/a/./b.txt", "/./ removed"),
            Case("/x/../a/b.txt", ".. resolved"),
            Case("/../a/b.txt", ".. above the root: 400"),
            Case("/a/%2e%2e/a/b.txt", "encoded dots"),
            Case("/a/.%2e/a/b.txt", "mixed dots"),
            Case("//a//b.txt", "doubled slashes merged"),
            Case("/a%2Fb.txt", "%2F with AllowEncodedSlashes Off: 404"),
            Case("/a/b%2etxt", "%2e decoded"),
            Case("/with%20space.txt", "%20"),
            Case("/pct%2541.txt", "%25 decodes to a literal %"),
            Case("/a/%zz", "bad escape: 400"),
            Case("/a/b.txt%00", "%00: 404"),
            Case("/%61/b.txt", "unreserved letter decoded"),
            Case("/dir", "directory without slash"),
            Case("/dir/./", "directory with /./"),
            Case("/plus+sign.txt", "plus is literal in paths"),
            Case("/a/b.txt?q=%zz", "bad escape in the query is fine"),
            Case("/a/b.txt/", "a file with a trailing slash: 404"),
            Case("/a/b.txt", "HEAD is GET without a body", method="HEAD"),
            Case("/a/b.txt", "POST to a static file: served (deliver_script)", method="POST"),
            Case("/a/b.txt", "PUT to a static file: 405", method="PUT"),
            Case("/nope.txt", "POST to nothing: 404", method="POST"),
        ],
    )


def encoded_slashes() -> SiteSpec:
    """AllowEncodedSlashes On decodes %2F; NoDecode keeps it; MergeSlashes Off."""
    return SiteSpec(
        "slashes-on",
        {"a/b.txt": None, "a%2Fb.txt": None},
        [
            Case("/a%2Fb.txt", "On: decoded to /a/b.txt"),
            Case("/a%2fb.txt", "lower case too"),
            Case("//a/b.txt", "MergeSlashes Off: // kept, still found"),
        ],
        vhost_extra="AllowEncodedSlashes On\nMergeSlashes Off\n",
    )


def encoded_slashes_nodecode() -> SiteSpec:
    return SiteSpec(
        "slashes-nodecode",
        {"a/b.txt": None, "x/.htaccess": "RewriteEngine On\nRewriteRule ^(.*)$ ../a/b.txt [L]\n"},
        [
            Case("/a%2Fb.txt", "NoDecode: kept encoded, not found"),
            Case("/a/b.txt", "plain"),
        ],
        vhost_extra="AllowEncodedSlashes NoDecode\n",
    )


def locations() -> SiteSpec:
    """<Location>/<LocationMatch> apply after the directory walk and in config order."""
    return SiteSpec(
        "location",
        {
            "admin/index.html": None,
            "admin/public/ok.txt": None,
            "api/v1/x.json": None,
            "adminx/page.txt": None,
            "a.txt": None,
        },
        [
            Case("/admin/", "<Location /admin> denies"),
            Case("/admin/public/ok.txt", "a later <Location> grants"),
            Case("/adminx/page.txt", "/admin does not match /adminx"),
            Case("/api/v1/x.json", "LocationMatch sets a header",
                 compare_headers=("X-Api",)),
            Case("//admin/", "location walk merges slashes"),
            Case("/a.txt", "<Location /> covers everything", compare_headers=("X-Root",)),
        ],
        vhost_extra="""
<Location "/">
    Header always set X-Root yes
</Location>
<Location "/admin">
    Require all denied
</Location>
<Location "/admin/public">
    Require all granted
</Location>
<LocationMatch "^/api/v(\\d+)/">
    Header always set X-Api matched
</LocationMatch>
""",
    )


def if_sections() -> SiteSpec:
    """<If>/<ElseIf>/<Else> in .htaccess and <Directory>."""
    return SiteSpec(
        "if",
        {
            ".htaccess": "<If \"%{QUERY_STRING} =~ /deny/\">\nRequire all denied\n</If>\n"
                         "<ElseIf \"%{HTTP:X-Mode} == 'b'\">\nHeader always set X-Branch b\n"
                         "</ElseIf>\n<Else>\nHeader always set X-Branch else\n</Else>\n",
            "a.txt": None,
            "sub/.htaccess": "<If \"-f '%{REQUEST_FILENAME}'\">\n"
                             "Header always set X-Exists yes\n</If>\n",
            "sub/b.txt": None,
        },
        [
            Case("/a.txt", "<Else>", compare_headers=("X-Branch",)),
            Case("/a.txt?deny=1", "<If> denies"),
            Case("/a.txt", "<ElseIf>", headers={"X-Mode": "b"}, compare_headers=("X-Branch",)),
            Case("/sub/b.txt", "file test", compare_headers=("X-Exists",)),
            Case("/sub/none.txt", "file test false", compare_headers=("X-Exists",)),
        ],
    )


def files_sections() -> SiteSpec:
    """<Files>/<FilesMatch> in server and .htaccess context, wildcards, nested in
    <Directory>."""
    return SiteSpec(
        "files",
        {
            ".htaccess": "<FilesMatch \"\\.(bak|sql)$\">\nRequire all denied\n</FilesMatch>\n"
                         "<Files \"secret-*.txt\">\nRequire all denied\n</Files>\n",
            "db.sql": None,
            "copy.bak": None,
            "ok.txt": None,
            "secret-1.txt": None,
            "conf/app.ini": None,
            "conf/readme.txt": None,
            ".hidden": None,
            ".htpasswd": None,
        },
        [
            Case("/db.sql", "FilesMatch denies"),
            Case("/copy.bak", "FilesMatch denies"),
            Case("/ok.txt", "not matched"),
            Case("/secret-1.txt", "Files wildcard"),
            Case("/conf/app.ini", "<Files> inside <Directory>"),
            Case("/conf/readme.txt", "not matched"),
            Case("/.htpasswd", "server's ^\\.ht FilesMatch"),
            Case("/.hidden", "dot file not denied"),
        ],
        vhost_extra="""
<Directory "@ROOT@/conf">
    <Files "*.ini">
        Require all denied
    </Files>
</Directory>
""",
    )


def bad_redirect_code() -> SiteSpec:
    """[R=418] is refused when the .htaccess is read: every request below answers 500."""
    return SiteSpec(
        "bad-r-code",
        {".htaccess": "RewriteEngine On\nRewriteRule ^x$ - [R=418]\n", "a.txt": None},
        [Case("/a.txt", "R=418 is not a status httpd knows: 500")],
    )


def rewrite_more() -> SiteSpec:
    """More of mod_rewrite: comparisons, variables, look-ahead tests, [NE], [B], [DPI], [P]
    without mod_proxy, RewriteMap in the vhost."""
    return SiteSpec(
        "rewrite-more",
        {
            ".htaccess": (
                "RewriteEngine On\n"
                "RewriteCond %{HTTP:X-Level} -gt10\n"
                "RewriteRule ^level$ high.txt [L]\n"
                "RewriteRule ^level$ low.txt [L]\n"
                "RewriteCond %{QUERY_STRING} <m\n"
                "RewriteRule ^lex$ low.txt [L]\n"
                "RewriteRule ^lex$ high.txt [L]\n"
                "RewriteCond %{THE_REQUEST} \\s/request-line\\?x=1\\s\n"
                "RewriteRule ^request-line$ high.txt [L]\n"
                "RewriteCond %{HTTPS} !=on\n"
                "RewriteRule ^secure$ https://%{HTTP_HOST}/secure [R=301,L]\n"
                "RewriteCond %{REQUEST_FILENAME} !-s\n"
                "RewriteRule ^(empty|sized)\\.txt$ high.txt [L]\n"
                "RewriteCond %{REQUEST_URI} -U\n"
                "RewriteRule ^lookahead/(.*)$ $1 [L]\n"
                "RewriteRule ^ne/(.*)$ /target?q=%20$1 [NE,R,L]\n"
                "RewriteRule ^esc/(.*)$ /target?q=$1 [R,L]\n"
                "RewriteRule ^b/(.*)$ high.txt?q=$1 [B,R,L]\n"
                "RewriteRule ^proxy/(.*)$ http://example.com/$1 [P]\n"
                "RewriteRule ^dpi/high\\.txt/more$ high.txt [DPI,L]\n"
                "RewriteRule ^map/(.*)$ /mapped/${lc:$1} [R,L]\n"
                "RewriteRule ^txtmap/(.*)$ /to/${pages:$1|default} [R,L]\n"
                "RewriteRule ^type$ low.txt [T=application/x-custom,L]\n"
            ),
            "high.txt": None, "low.txt": None, "sized.txt": None, "empty.txt": "",
            "target": None,
            "pages.map": "# page map\nabout /about-us.html\ncontact /contact.html\n",
        },
        [
            Case("/level", "integer comparison true", headers={"X-Level": "42"}),
            Case("/level", "integer comparison false", headers={"X-Level": "7"}),
            Case("/lex?a", "lexicographic comparison true"),
            Case("/lex?z", "lexicographic comparison false"),
            Case("/request-line?x=1", "THE_REQUEST"),
            Case("/secure", "HTTPS off: redirect to https"),
            Case("/sized.txt", "!-s on a non-empty file"),
            Case("/empty.txt", "!-s on an empty file"),
            Case("/lookahead/high.txt", "-U sub-request"),
            Case("/ne/a%20b", "NE: no escaping of the substitution"),
            Case("/esc/a%20b", "without NE the redirect is escaped"),
            Case("/b/a&b%20c", "B escapes the back-reference"),
            Case("/proxy/x", "[P] without mod_proxy"),
            Case("/dpi/high.txt/more", "DPI"),
            Case("/map/ABC", "RewriteMap int:tolower"),
            Case("/txtmap/about", "RewriteMap txt: found"),
            Case("/txtmap/nope", "RewriteMap txt: default"),
            Case("/type", "[T=]", compare_headers=("Content-Type",)),
        ],
        vhost_extra="""
RewriteEngine On
RewriteMap lc int:tolower
RewriteMap pages "txt:@ROOT@/pages.map"
""",
    )


def vhosts() -> SiteSpec:
    """Name-based virtual host selection: the Host header picks the vhost; an unknown name
    gets the first vhost of the address (the harness's default site)."""
    return SiteSpec(
        "vhost-a",
        {"only-a.txt": None},
        [
            Case("/only-a.txt", "ServerName match"),
            Case("/only-a.txt", "ServerAlias wildcard", headers={"Host": "x.alias-a.test"}),
            Case("/only-a.txt", "unknown host: the default vhost", headers={"Host": "nope"}),
            Case("/only-a.txt", "Host with a trailing dot", headers={"Host": "vhost-a.test."}),
            Case("/only-a.txt", "Host case-insensitive", headers={"Host": "VHOST-A.TEST"}),
        ],
        vhost_extra="ServerAlias *.alias-a.test\n",
    )


def bad_integer_condition() -> SiteSpec:
    """``-gt 10`` with a space: ``10`` is read as the flags field and refused (500); the
    integer comparisons are written ``-gt10``."""
    return SiteSpec(
        "bad-int-cond",
        {".htaccess": "RewriteEngine On\nRewriteCond %{HTTP:X-Level} -gt 10\n"
                      "RewriteRule ^x$ a.txt\n", "a.txt": None},
        [Case("/a.txt", "bad flag delimiters: 500")],
    )


SITES = [bad_integer_condition, rewrite_more, vhosts, bad_redirect_code, alias_redirect,
         htaccess_redirect_vs_rewrite, rewrite_rounds, recursion_limit, rewrite_inheritance,
         rewrite_flags, server_rewrite, paths, encoded_slashes, encoded_slashes_nodecode,
         locations, if_sections, files_sections]
