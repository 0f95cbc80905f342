"""Sites for merge order, Options, mod_mime, mod_headers and mod_dir."""

from __future__ import annotations

from tests.differential.harness import Case, SiteSpec

H = ("X-Order",)


def merge_order() -> SiteSpec:
    """Which section wins: <Directory> shortest first with each level's .htaccess, then
    <DirectoryMatch>, <Files>, <Location>, <If> — seen through the last ``Header set``."""
    return SiteSpec(
        "merge-order",
        {
            "a/b/c/file.txt": None,
            "a/b/page.html": None,
            "a/other.txt": None,
            "a/.htaccess": "Header always set X-Order htaccess-a\n",
            "a/b/.htaccess": "Header always set X-Order htaccess-b\n",
            "a/b/c/.htaccess": "<Files file.txt>\nHeader always set X-Order files-in-htaccess\n"
                               "</Files>\n",
            "x/y/z.txt": None,
            "x/.htaccess": "Header always set X-Order htaccess-x\n",
            "q/q.txt": None,
            "q/.htaccess": "Header always set X-Order htaccess-q\n"
                           "<If \"%{QUERY_STRING} == 'if'\">\nHeader always set X-Order if-q\n"
                           "</If>\n",
        },
        [
            Case("/a/other.txt", "htaccess-a after <Directory a>", compare_headers=H),
            Case("/a/b/page.html", "deeper .htaccess wins over shallower <Directory>",
                 compare_headers=H),
            Case("/a/b/c/file.txt", "<Files> in .htaccess after all .htaccess",
                 compare_headers=H),
            Case("/x/y/z.txt", "<Directory x/y> (longer) after htaccess-x", compare_headers=H),
            Case("/x/", "directory request: listing", compare_headers=H),
            Case("/q/q.txt", "<Location /q> after <Files>", compare_headers=H),
            Case("/q/q.txt?if", "<If> after <Location>", compare_headers=H),
            Case("/a/b/c/", "DirectoryMatch a/b/c", compare_headers=H),
            Case("/a/b/c", "DirectoryMatch against the directory without slash",
                 compare_headers=H),
        ],
        vhost_extra="""
<Directory "@ROOT@/a">
    Header always set X-Order dir-a
</Directory>
<Directory "@ROOT@/x/y">
    Header always set X-Order dir-x-y
</Directory>
<Directory "@ROOT@/x">
    Header always set X-Order dir-x
</Directory>
<DirectoryMatch "/a/b/c/?$">
    Header always set X-Order dirmatch-abc
</DirectoryMatch>
<Location "/q">
    Header always set X-Order location-q
</Location>
""",
    )


def merge_order_access() -> SiteSpec:
    """Access decided by the last section that has Require lines."""
    return SiteSpec(
        "merge-access",
        {
            "open/index.html": None,
            "open/secret.txt": None,
            "open/.htaccess": "Require all granted\n<Files secret.txt>\nRequire all denied\n"
                              "</Files>\n",
            "closed/index.html": None,
            "closed/.htaccess": "Require all denied\n",
            "closed/sub/page.html": None,
            "closed/sub/.htaccess": "Require all granted\n",
            "loc/page.html": None,
            "loc/.htaccess": "Require all denied\n",
        },
        [
            Case("/open/index.html", ".htaccess grants"),
            Case("/open/secret.txt", "<Files> after .htaccess denies"),
            Case("/closed/index.html", ".htaccess denies"),
            Case("/closed/sub/page.html", "deeper .htaccess grants again (AuthMerging Off)"),
            Case("/closed/", "directory of a denied dir"),
            Case("/loc/page.html", "<Location> after .htaccess grants"),
        ],
        vhost_extra="""
<Location "/loc">
    Require all granted
</Location>
""",
    )


def options() -> SiteSpec:
    """Options with +/-, plain resets, mixing is an error, Indexes decides listing vs 403,
    AllowOverride Options=… restricts what an .htaccess may set."""
    return SiteSpec(
        "options",
        {
            "list/a.txt": None,
            "noindex/a.txt": None,
            "noindex/.htaccess": "Options -Indexes\n",
            "noindex/again/b.txt": None,
            "noindex/again/.htaccess": "Options +Indexes\n",
            "noindex/plain/c.txt": None,
            "noindex/plain/.htaccess": "Options FollowSymLinks\n",
            "mixed/a.txt": None,
            "mixed/.htaccess": "Options Indexes +FollowSymLinks\n",
            "none-first/a.txt": None,
            "none-first/.htaccess": "Options None +Indexes\n",
            "all-bad/a.txt": None,
            "all-bad/.htaccess": "Options +All\n",
            "illegal/a.txt": None,
            "illegal/.htaccess": "Options +Bogus\n",
            "restricted/a.txt": None,
            "restricted/ok/x.txt": None,
            "restricted/ok/.htaccess": "Options -Indexes\n",
            "restricted/bad/x.txt": None,
            "restricted/bad/.htaccess": "Options +ExecCGI\n",
            "bare/x.txt": None,
            "bare/mv/x.txt": None,
            "bare/mv/.htaccess": "Options +MultiViews\n",
            "bare/idx/x.txt": None,
            "bare/idx/.htaccess": "Options -Indexes\n",
        },
        [
            Case("/list/", "Options Indexes from <Directory>: listing"),
            Case("/noindex/", "-Indexes: 403"),
            Case("/noindex/a.txt", "files still served"),
            Case("/noindex/again/", "+Indexes below -Indexes: listing"),
            Case("/noindex/plain/", "plain Options resets: no Indexes"),
            Case("/mixed/a.txt", "mixing +/- and plain: 500"),
            Case("/none-first/", "Options None +Indexes is allowed"),
            Case("/all-bad/a.txt", "Options +All is an error"),
            Case("/illegal/a.txt", "unknown option: 500"),
            Case("/restricted/ok/", "Options=Indexes allows -Indexes"),
            Case("/restricted/bad/x.txt", "Options=Indexes forbids ExecCGI: 500"),
            Case("/bare/mv/x.txt", "bare AllowOverride Options forbids MultiViews"),
            Case("/bare/idx/", "bare AllowOverride Options allows Indexes"),
        ],
        vhost_extra="""
<Directory "@ROOT@/restricted">
    AllowOverride Options=Indexes,FollowSymLinks
</Directory>
<Directory "@ROOT@/bare">
    AllowOverride Options
</Directory>
""",
    )


def symlinks() -> SiteSpec:
    """FollowSymLinks off: a symlinked file or directory is refused (403)."""
    return SiteSpec(
        "symlinks",
        {
            "real/target.txt": None,
            "follow/.keep": None,
            "nofollow/.keep": None,
            "nofollow/.htaccess": "Options -FollowSymLinks\n",
        },
        [
            Case("/follow/link.txt", "FollowSymLinks: served through the link"),
            Case("/nofollow/link.txt", "no FollowSymLinks: 403"),
            Case("/nofollow/linkdir/target.txt", "symlinked directory: 403"),
            Case("/follow/linkdir/target.txt", "symlinked directory followed"),
        ],
        symlinks={"follow/link.txt": "../real/target.txt", "nofollow/link.txt":
                  "../real/target.txt", "nofollow/linkdir": "../real",
                  "follow/linkdir": "../real"},
    )


def mime() -> SiteSpec:
    """mod_mime: TypesConfig, AddType per extension (child wins), RemoveType, ForceType,
    AddCharset, AddDefaultCharset, multiple extensions."""
    ct = ("Content-Type",)
    return SiteSpec(
        "mime",
        {
            "plain.txt": None,
            "page.html": None,
            "data.json": None,
            "archive.tar.gz": None,
            "noext": None,
            "style.css": None,
            "t/.htaccess": "AddType text/x-custom .txt\nAddType application/x-thing .thing\n"
                           "AddCharset UTF-8 .html\n",
            "t/a.txt": None,
            "t/b.thing": None,
            "t/c.html": None,
            "t/d.html.txt": None,
            "t/sub/.htaccess": "RemoveType .txt\n",
            "t/sub/e.txt": None,
            "t/sub/f.thing": None,
            "f/.htaccess": "<Files \"*.dat\">\nForceType text/plain\n</Files>\n",
            "f/x.dat": None,
            "f/y.css": None,
            "cs/.htaccess": "AddDefaultCharset utf-8\n",
            "cs/a.txt": None,
            "cs/b.css": None,
            "cs/c.html": None,
            "cs/off/.htaccess": "AddDefaultCharset Off\n",
            "cs/off/d.txt": None,
        },
        [
            Case("/plain.txt", "mime.types", compare_headers=ct),
            Case("/page.html", "mime.types", compare_headers=ct),
            Case("/data.json", "mime.types", compare_headers=ct),
            Case("/archive.tar.gz", "last extension with a type", compare_headers=ct),
            Case("/noext", "no type", compare_headers=ct),
            Case("/t/a.txt", "AddType overrides mime.types", compare_headers=ct),
            Case("/t/b.thing", "AddType new extension", compare_headers=ct),
            Case("/t/c.html", "AddCharset", compare_headers=ct),
            Case("/t/d.html.txt", "two extensions: charset from .html, type from .txt",
                 compare_headers=ct),
            Case("/t/sub/e.txt", "RemoveType hides mime.types too", compare_headers=ct),
            Case("/t/sub/f.thing", "parent AddType inherited", compare_headers=ct),
            Case("/f/x.dat", "ForceType in <Files>", compare_headers=ct),
            Case("/f/y.css", "ForceType not applied", compare_headers=ct),
            Case("/cs/a.txt", "AddDefaultCharset on text/plain", compare_headers=ct),
            Case("/cs/b.css", "AddDefaultCharset not on text/css", compare_headers=ct),
            Case("/cs/c.html", "AddDefaultCharset on text/html", compare_headers=ct),
            Case("/cs/off/d.txt", "AddDefaultCharset Off below", compare_headers=ct),
        ],
    )


def handlers() -> SiteSpec:
    """AddHandler/SetHandler for handlers no module serves: the default handler serves the
    file; SetHandler on a directory makes it 404; AcceptPathInfo."""
    return SiteSpec(
        "handlers",
        {
            "h/.htaccess": "AddHandler application/x-httpd-php .php\n",
            "h/index.php": None,
            "h/info.php": None,
            "s/.htaccess": "SetHandler none\n",
            "s/a.txt": None,
            "p/.htaccess": "AcceptPathInfo On\n",
            "p/file.txt": None,
            "np/file.txt": None,
            "dir/.htaccess": "SetHandler text/plain\n",
            "dir/sub/x.txt": None,
        },
        [
            Case("/h/info.php", "unknown handler: the file itself"),
            Case("/h/", "DirectoryIndex index.html only: listing"),
            Case("/s/a.txt", "SetHandler none"),
            Case("/p/file.txt/extra", "AcceptPathInfo On"),
            Case("/np/file.txt/extra", "PATH_INFO on a static file: 404"),
            Case("/dir/sub/", "SetHandler on a directory: not autoindex"),
        ],
    )


def headers() -> SiteSpec:
    """mod_headers: set/append/add/merge/unset accumulate in order across sections; always
    vs onsuccess on errors; env= conditions from SetEnvIf."""
    names = ("X-A", "X-B", "X-C", "X-Env", "X-Always", "X-Success", "Cache-Control")
    return SiteSpec(
        "headers",
        {
            ".htaccess": "Header set X-A one\nHeader append X-B first\nHeader always set "
                         "X-Always yes\nHeader set X-Success yes\n"
                         "SetEnvIf Request_URI \\.css$ IS_CSS\nHeader set X-Env css "
                         "env=IS_CSS\n",
            "a.txt": None,
            "b.css": None,
            "sub/.htaccess": "Header append X-B second\nHeader merge X-B first\n"
                             "Header unset X-A\nHeader add X-C c1\nHeader add X-C c2\n",
            "sub/page.html": None,
            "sub/deeper/.htaccess": "Header set X-A again\nHeader merge Cache-Control public\n"
                                    "Header merge Cache-Control public\n",
            "sub/deeper/x.txt": None,
        },
        [
            Case("/a.txt", "set + append", compare_headers=names),
            Case("/b.css", "env= from SetEnvIf", compare_headers=names),
            Case("/sub/page.html", "append, merge (no duplicate), unset, add twice",
                 compare_headers=names),
            Case("/sub/deeper/x.txt", "set after unset; merge once", compare_headers=names),
            Case("/missing.txt", "404: only 'always' headers", compare_headers=names),
            Case("/sub/", "listing is a success", compare_headers=names),
        ],
    )


def expires() -> SiteSpec:
    """mod_expires: ExpiresByType / ExpiresDefault → Cache-Control max-age (and Expires)."""
    cc = ("Cache-Control",)
    return SiteSpec(
        "expires",
        {
            ".htaccess": "ExpiresActive On\nExpiresDefault \"access plus 1 hour\"\n"
                         "ExpiresByType text/css \"access plus 1 month\"\n"
                         "ExpiresByType image/* A600\n",
            "a.css": None,
            "b.txt": None,
            "c.png": None,
            "off/.htaccess": "ExpiresActive Off\n",
            "off/d.css": None,
            "sub/.htaccess": "ExpiresByType text/css \"access plus 2 days\"\n",
            "sub/e.css": None,
            "sub/f.txt": None,
        },
        [
            Case("/a.css", "ExpiresByType", compare_headers=cc),
            Case("/b.txt", "ExpiresDefault", compare_headers=cc),
            Case("/c.png", "wildcard type", compare_headers=cc),
            Case("/off/d.css", "ExpiresActive Off below", compare_headers=cc),
            Case("/sub/e.css", "child ExpiresByType overrides", compare_headers=cc),
            Case("/sub/f.txt", "ExpiresDefault inherited", compare_headers=cc),
            Case("/nothing.css", "no expiry on errors", compare_headers=cc),
        ],
    )


def dir_index() -> SiteSpec:
    """mod_dir: DirectoryIndex order and inheritance, DirectorySlash, sub-requests."""
    return SiteSpec(
        "dirindex",
        {
            "index.html": None,
            "two/index.htm": None,
            "two/home.html": None,
            "two/.htaccess": "DirectoryIndex missing.html home.html index.htm\n",
            "two/inherit/index.htm": None,
            "two/inherit/home.html": None,
            "none/a.txt": None,
            "none/.htaccess": "DirectoryIndex disabled\n",
            "noslash/a.txt": None,
            "noslash/.htaccess": "DirectorySlash Off\n",
            "noslash/sub/index.html": None,
            "denied/index.html": None,
            "denied/.htaccess": "<Files index.html>\nRequire all denied\n</Files>\n",
            "abs/.htaccess": "DirectoryIndex /index.html\n",
            "abs/sub/x.txt": None,
            "multi/.htaccess": "DirectoryIndex a.html\nDirectoryIndex b.html\n",
            "multi/b.html": None,
            "q/index.html": None,
        },
        [
            Case("/", "index.html"),
            Case("/two/", "first existing candidate"),
            Case("/two/inherit/", "inherited DirectoryIndex"),
            Case("/two", "DirectorySlash: 301"),
            Case("/two?x=1", "DirectorySlash keeps the query"),
            Case("/none/", "DirectoryIndex disabled: listing"),
            Case("/noslash/sub", "DirectorySlash Off inherited: no redirect"),
            Case("/noslash/", "listing"),
            Case("/denied/", "index denied by <Files>: 403 from the sub-request"),
            Case("/abs/sub/", "absolute DirectoryIndex path"),
            Case("/multi/", "two DirectoryIndex lines in one file accumulate"),
            Case("/q/?a=b", "query passed to the index"),
        ],
    )


def fallback() -> SiteSpec:
    """FallbackResource for missing files; not for existing ones; disabled below."""
    return SiteSpec(
        "fallback",
        {
            ".htaccess": "FallbackResource /front.php\n",
            "front.php": None,
            "real.txt": None,
            "sub/page.html": None,
            "off/.htaccess": "FallbackResource disabled\n",
            "off/x.txt": None,
            "rel/.htaccess": "FallbackResource handler.txt\n",
            "rel/handler.txt": None,
        },
        [
            Case("/missing/page", "fallback serves front.php"),
            Case("/real.txt", "existing file"),
            Case("/sub/nope.html", "fallback in a subdirectory"),
            Case("/off/nope", "disabled: 404"),
            Case("/rel/nope", "relative fallback"),
            Case("/sub/", "directory without index: listing, no fallback"),
        ],
    )


def misc() -> SiteSpec:
    """Odds and ends real sites run into."""
    return SiteSpec(
        "misc",
        {
            "nosym/.htaccess": "Options -FollowSymLinks\nRewriteEngine On\n"
                               "RewriteRule ^a$ b.txt [L]\n",
            "nosym/b.txt": None,
            "owner/.htaccess": "Options -FollowSymLinks +SymLinksIfOwnerMatch\n"
                               "RewriteEngine On\nRewriteRule ^a$ b.txt [L]\n",
            "owner/b.txt": None,
            "filesdir/.htaccess": "<Files sub>\nRequire all denied\n</Files>\n",
            "filesdir/sub/x.txt": None,
            "mv/.htaccess": "Options +MultiViews\n",
            "mv/page.html": None,
            "mv/two.html": None,
            "mv/two.txt": None,
            "mv/three.css": "x" * 40,
            "mv/three.txt": "y" * 10,
            "mv/doc.en.html": None,
            "mvrm/.htaccess": "Options +MultiViews\nRemoveType .html\n",
            "mvrm/page.html": None,
            "mvrm/note.txt": None,
            "php/.htaccess": "AddHandler application/x-httpd-php .php\n"
                             "DirectoryIndex index.php\n",
            "php/index.php": None,
            "ifdir/x.txt": None,
            "wp/.htaccess": "ErrorDocument 404 /wp/404.html\nRewriteEngine On\n"
                            "RewriteRule ^go$ go.txt [L]\n",
            "wp/404.html": None,
            "wp/go.txt": None,
        },
        [
            Case("/nosym/a", "RewriteRule without FollowSymLinks: 403"),
            Case("/nosym/b.txt", "no rule matches: served"),
            Case("/owner/a", "SymLinksIfOwnerMatch is enough for rewriting"),
            Case("/filesdir/sub", "<Files> matches the directory name"),
            Case("/filesdir/sub/x.txt", "but not the files inside"),
            Case("/mv/page", "MultiViews finds page.html"),
            Case("/mv/doc", "MultiViews: .en is not a known extension here"),
            Case("/mv/two", "two variants, no Accept header"),
            Case("/mv/two", "two variants, Accept prefers text/html",
                 headers={"Accept": "text/html"}),
            Case("/mv/page.html", "an existing file is not negotiated"),
            Case("/mvrm/page", "RemoveType hides .html's type: not a variant"),
            Case("/mvrm/note", "another extension still negotiates"),
            Case("/php/", "DirectoryIndex index.php without PHP: the source"),
            Case("/ifdir/x.txt", "<If> inside a vhost <Directory>", compare_headers=("X-If",)),
            Case("/ifdir/x.txt?on", "<If> true", compare_headers=("X-If",)),
            Case("/wp/missing", "ErrorDocument with rewriting"),
            Case("/wp/go", "rewritten"),
            Case("/status", "SetHandler server-status (mod_status): a generated page"),
            Case("/status-denied", "server-status denied"),
        ],
        vhost_extra="""
<Location "/status">
    SetHandler server-status
</Location>
<Location "/status-denied">
    SetHandler server-status
    Require ip 10.9.9.9
</Location>
<Directory "@ROOT@/ifdir">
    <If "%{QUERY_STRING} == 'on'">
        Header always set X-If yes
    </If>
</Directory>
""",
    )


SITES = [misc, merge_order, merge_order_access, options, symlinks, mime, handlers, headers, expires,
         dir_index, fallback]
