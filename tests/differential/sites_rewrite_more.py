"""Sites for the mod_rewrite features issue #4 lists that the other modules leave out: ``[QSL]``,
``[CO]`` (Set-Cookie), ``%{ENV:…}`` (set by ``[E]``, SetEnvIf, SetEnv, a previous round),
``RewriteMap`` of type ``rnd:`` and ``prg:``, the ``-l``/``-eq``/``-s`` condition tests, and the
``[T]``/``[H]`` flags."""

from __future__ import annotations

from tests.differential.harness import Case, SiteSpec

COOKIE = ("Set-Cookie",)
CTYPE = ("Content-Type",)


def query_string_last() -> SiteSpec:
    """``[QSL]`` (2.4.19+): the *last* ``?`` of the substitution splits off the query, so a
    ``?`` a back-reference brought in (a decoded ``%3F`` in the URL-path) stays in the path —
    and, being followed by a literal ``?``, is no longer the "unsafe" one that 2.4.60+ refuses
    with 403.  A trailing ``?`` together with ``[QSA]`` implies ``[QSL]``."""
    return SiteSpec(
        "rw-qsl",
        {
            ".htaccess": (
                "RewriteEngine On\n"
                "RewriteRule ^files/(.*)$ /archive/$1?from=files [QSL,R=302,L]\n"
                "RewriteRule ^nofiles/(.*)$ /archive/$1?from=files [R=302,L]\n"
                "RewriteRule ^docs/(.*)$ archive/$1?from=docs [QSL,L]\n"
                "RewriteRule ^tag/(.*)$ /list?tag=$1 [QSL,QSA,R,L]\n"
                "RewriteRule ^keep/(.*)$ /list?page=$1? [QSA,R,L]\n"
            ),
            "archive/report.pdf": None,
            "archive/report": None,
            "archive/report?.pdf": None,
        },
        [
            Case("/files/report%3F.pdf", "QSL: the '?' from %3F stays in the path (escaped in "
                                         "the Location), the literal one splits"),
            Case("/files/report.pdf", "QSL with a single '?': as without the flag"),
            Case("/files/report.pdf?x=1", "QSL: the substitution's query replaces the "
                                          "request's"),
            Case("/nofiles/report%3F.pdf", "without QSL the first '?' comes from an "
                                           "expansion: 403 (UnsafeAllow3F not given)"),
            Case("/docs/report%3F.pdf", "QSL, internal: the redirect URL's first '?' splits "
                                        "again in the next round"),
            Case("/docs/report.pdf", "QSL, internal, nothing odd: the file is served"),
            Case("/tag/news?page=2", "QSL with QSA: the request's query is appended"),
            Case("/tag/a%3Fb?page=2", "QSL, but the last '?' is the back-reference's: 403 "
                                      "all the same"),
            Case("/keep/3?sort=asc", "a trailing '?' with QSA implies QSL"),
        ],
    )


def cookies() -> SiteSpec:
    """``[CO=name:value:domain[:lifetime[:path[:secure[:httponly[:samesite]]]]]]``: a
    Set-Cookie in ``err_headers_out`` (so sent with redirects and errors too), once per name
    per request (internal redirects and both contexts included), with ``;`` as separator when
    the value starts with one.  ``apr_pstrcat`` stops at the first NULL piece: a secure flag
    that is not "true"/"1"/"secure" drops a following HttpOnly."""
    return SiteSpec(
        "rw-cookie",
        {
            ".htaccess": (
                "RewriteEngine On\n"
                "RewriteRule ^login$ welcome.txt [CO=session:abc123:rw-cookie.test,L]\n"
                "RewriteRule ^prefs$ welcome.txt "
                "[CO=theme:dark:.rw-cookie.test:0:/app:secure:HttpOnly,L]\n"
                "RewriteRule ^lang/(\\w+)$ welcome.txt "
                "[CO=;lang;$1;rw-cookie.test;0;/;true;true;Strict,L]\n"
                "RewriteRule ^odd$ welcome.txt [CO=flag:on:rw-cookie.test:0:/:false:true,L]\n"
                "RewriteRule ^logout$ /bye.txt [CO=session:gone:rw-cookie.test:0:/,R=302,L]\n"
                "RewriteRule ^deny$ - [CO=tried:1:rw-cookie.test,F]\n"
                "RewriteRule ^twice$ - [CO=a:1:rw-cookie.test]\n"
                "RewriteRule ^twice$ welcome.txt "
                "[CO=a:2:rw-cookie.test,CO=b:3:rw-cookie.test,L]\n"
                "RewriteRule ^hop$ hop2 [CO=hop:1:rw-cookie.test,L]\n"
                "RewriteRule ^hop2$ welcome.txt "
                "[CO=hop:2:rw-cookie.test,CO=second:x:rw-cookie.test,L]\n"
                "RewriteRule ^short$ welcome.txt [CO=incomplete:1,L]\n"
                "RewriteRule ^track/welcome\\.txt$ welcome.txt [CO=vh:perdir:rw-cookie.test,L]\n"
            ),
            "welcome.txt": None,
            "bye.txt": None,
            "track/welcome.txt": None,
        },
        [
            Case("/login", "name:value:domain; path defaults to /", compare_headers=COOKIE),
            Case("/login/", "just missing the rule: no cookie", compare_headers=COOKIE),
            Case("/prefs", "lifetime 0 (no expires), path, secure, HttpOnly",
                 compare_headers=COOKIE),
            Case("/lang/de", "';' separator, back-reference value, SameSite",
                 compare_headers=COOKIE),
            Case("/odd", "secure 'false' ends apr_pstrcat: no HttpOnly either",
                 compare_headers=COOKIE),
            Case("/logout", "a cookie with an [R] redirect", compare_headers=COOKIE),
            Case("/deny", "a cookie with [F]: err_headers_out survives the 403",
                 compare_headers=COOKIE),
            Case("/twice", "the same name twice in one pass: the first wins; then a second "
                           "cookie", compare_headers=COOKIE),
            Case("/hop", "round 2 sets the same name again: skipped (one pool per request), "
                         "a new name is added", compare_headers=COOKIE),
            Case("/short", "fewer than three fields: no cookie", compare_headers=COOKIE),
            Case("/track/welcome.txt", "server context sets 'vh', the .htaccess's 'vh' is "
                                       "skipped", compare_headers=COOKIE),
            Case("/other/x.txt", "server-context cookie whose value took the Host's port: "
                                 "the fields split after expansion", compare_headers=COOKIE),
        ],
        vhost_extra="""
RewriteEngine On
RewriteRule ^/track/ - [CO=vh:server:rw-cookie.test]
RewriteRule ^/other/ - [CO=ref:%{HTTP_HOST}:rw-cookie.test]
""",
    )


def env_variables() -> SiteSpec:
    """``%{ENV:name}``: set by an earlier ``[E]`` rule of the same pass, renamed ``REDIRECT_``
    by an internal redirect (and ``REDIRECT_STATUS`` added), set by SetEnvIf — server-level
    entries at post_read_request (seen by the server-context rules), per-directory ones at
    header_parser (after the server-context rules) — but not by SetEnv: mod_env's fixup runs
    after mod_rewrite's."""
    return SiteSpec(
        "rw-env",
        {
            ".htaccess": (
                "SetEnvIfNoCase X-Client ^mobile$ LATE=1 CLIENT=mobile\n"
                "SetEnv APP_STAGE beta\n"
                "RewriteEngine On\n"
                "RewriteRule ^mark$ - [E=MARKED:yes]\n"
                "RewriteCond %{ENV:MARKED} =yes\n"
                "RewriteRule ^mark$ marked.txt [L]\n"
                "RewriteCond %{ENV:CLIENT} =mobile\n"
                "RewriteRule ^home$ mobile.txt [L]\n"
                "RewriteRule ^home$ desktop.txt [L]\n"
                "RewriteCond %{ENV:APP_STAGE} =beta\n"
                "RewriteRule ^stage$ beta.txt [L]\n"
                "RewriteRule ^stage$ stable.txt [L]\n"
                "RewriteRule ^step1$ step2 [E=FROM:step1,L]\n"
                "RewriteCond %{ENV:REDIRECT_FROM} =step1\n"
                "RewriteRule ^step2$ via-step1.txt [L]\n"
                "RewriteRule ^step2$ direct.txt [L]\n"
                "RewriteCond %{ENV:REDIRECT_STATUS} ^$\n"
                "RewriteRule ^private\\.txt$ - [F]\n"
                "RewriteRule ^go/private$ private.txt [L]\n"
                "RewriteCond %{ENV:IS_BOT} =1\n"
                "RewriteRule ^robots-view$ bot.txt [L]\n"
                "RewriteRule ^whoami$ /who/%{ENV:CLIENT}?bot=%{ENV:IS_BOT} [R,L]\n"
                "RewriteRule ^forget\\.txt$ - [E=!CLIENT]\n"
                "RewriteRule ^forget$ - [E=!CLIENT]\n"
                "RewriteCond %{ENV:CLIENT} ^$\n"
                "RewriteRule ^forget$ desktop.txt [L]\n"
                "SetEnvIf Request_URI ^/dec-check$ DECODED=1\n"
                "RewriteCond %{ENV:DECODED} =1\n"
                "RewriteRule ^dec-check$ bot.txt [L]\n"
                "Header always set X-Stage %{APP_STAGE}e\n"
                "Header always set X-Client-Seen %{CLIENT}e\n"
            ),
            "marked.txt": None, "mobile.txt": None, "desktop.txt": None, "beta.txt": None,
            "stable.txt": None, "via-step1.txt": None, "direct.txt": None,
            "private.txt": None, "bot.txt": None, "forget.txt": None,
            "members/.htaccess": "SetEnv MEMBER 1\nRequire env MEMBER\n",
            "members/list.txt": None,
            "partners/.htaccess": "SetEnvIf X-Partner ^acme$ PARTNER=1\n"
                                  "Require env PARTNER\n",
            "partners/list.txt": None,
        },
        [
            Case("/mark", "[E] then %{ENV:…} in a later rule of the same pass"),
            Case("/home", "per-directory SetEnvIf seen by a per-directory condition",
                 headers={"X-Client": "Mobile"}),
            Case("/home", "SetEnvIf did not match: the next rule",
                 headers={"X-Client": "mobile-ish"}),
            Case("/stage", "SetEnv runs in mod_env's fixup, after mod_rewrite's: not seen"),
            Case("/step1", "[E=FROM] becomes REDIRECT_FROM in the next round"),
            Case("/step2", "asked directly: no REDIRECT_FROM"),
            Case("/private.txt", "no REDIRECT_STATUS on the first round: [F]"),
            Case("/go/private", "REDIRECT_STATUS is set after an internal redirect"),
            Case("/bots-only", "server-level SetEnvIf runs before the server-context rules",
                 headers={"User-Agent": "Googlebot/2.1"}),
            Case("/bots-only", "the same without the User-Agent: no rewrite, 404",
                 headers={"User-Agent": "curl/8"}),
            Case("/late", "per-directory SetEnvIf comes after the server-context rules",
                 headers={"X-Client": "mobile"}),
            Case("/robots-view", "server-level SetEnvIf seen by per-directory rules too",
                 headers={"User-Agent": "Googlebot/2.1"}),
            Case("/whoami", "%{ENV:…} in a substitution (redirect)",
                 headers={"X-Client": "mobile", "User-Agent": "Googlebot"}),
            Case("/forget", "[E=!name] unsets for the following rules",
                 headers={"X-Client": "mobile"}),
            Case("/forget.txt", "[E=!name] removes the variable from the request "
                                "(apr_table_unset): not in the response headers",
                 headers={"X-Client": "mobile"},
                 compare_headers=("X-Client-Seen",)),
            Case("/home", "a variable no rule unsets reaches the response headers",
                 headers={"X-Client": "mobile"}, compare_headers=("X-Client-Seen",)),
            Case("/beta.txt", "SetEnv is set by the time the response headers are made",
                 compare_headers=("X-Stage",)),
            Case("/members/list.txt", "SetEnv comes after the access check: Require env "
                                      "fails"),
            Case("/partners/list.txt", "per-directory SetEnvIf comes before it: granted",
                 headers={"X-Partner": "acme"}),
            Case("/partners/list.txt", "SetEnvIf did not match: denied",
                 headers={"X-Partner": "acme-corp"}),
            Case("/raw%2Dcheck", "server-level SetEnvIf Request_URI sees the URL-path as "
                                 "sent (%2D not yet decoded)"),
            Case("/dec%2Dcheck", "per-directory SetEnvIf Request_URI sees it decoded"),
        ],
        vhost_extra="""
SetEnvIf User-Agent ^Googlebot IS_BOT=1
SetEnvIf Request_URI ^/raw%2[dD]check$ RAW=1
RewriteEngine On
RewriteCond %{ENV:RAW} =1
RewriteRule ^/raw-check$ /bot.txt [L]
RewriteCond %{ENV:IS_BOT} =1
RewriteRule ^/bots-only$ /bot.txt [L]
RewriteCond %{ENV:LATE} =1
RewriteRule ^/late$ /bot.txt [L]
""",
    )


def maps_rnd_prg() -> SiteSpec:
    """``RewriteMap rnd:`` (a txt map whose value is ``a|b|c``, one part picked at random:
    deterministic with one alternative, unpredictable with several) and ``prg:`` (a program
    answering on its stdout, which the model cannot run: reported as unsupported)."""
    return SiteSpec(
        "rw-maps",
        {
            ".htaccess": (
                "RewriteEngine On\n"
                "RewriteRule ^logo$ ${mirror:logo|missing.txt} [L]\n"
                "RewriteRule ^asset/(.*)$ ${mirror:$1|fallback.txt} [L]\n"
                "RewriteRule ^dl/(.*)$ ${mirror:$1} [R=302,L]\n"
                "RewriteRule ^who/(.*)$ ${lookup:$1|anonymous.txt} [L]\n"
            ),
            "mirrors.map": "# rnd: one part of a|b|c at random\n"
                           "logo /static/logo-a.txt\n"
                           "banner banner-1.txt\n"
                           "mirror m1.txt|m2.txt|m3.txt\n",
            "static/logo-a.txt": None, "banner-1.txt": None, "fallback.txt": None,
            "m1.txt": None, "m2.txt": None, "m3.txt": None,
            "alice.txt": None, "anonymous.txt": None,
            "bin/lookup.sh": "#!/bin/sh\n"
                             "while read key; do\n"
                             "  case \"$key\" in\n"
                             "    alice) echo alice.txt ;;\n"
                             "    *) echo NULL ;;\n"
                             "  esac\n"
                             "done\n",
        },
        [
            Case("/logo", "rnd: with a single alternative the value is certain"),
            Case("/asset/banner", "rnd: key from a back-reference, single alternative"),
            Case("/asset/unknown", "rnd: key not in the map: the default"),
            Case("/asset/mirror", "rnd: three alternatives, any of them served",
                 exact=False, unsupported="alternatives"),
            Case("/dl/mirror", "rnd: three alternatives in a redirect",
                 exact=False, unsupported="alternatives"),
            Case("/dl/banner", "rnd: single alternative in a redirect (a relative value gets "
                               "the directory prefix: no RewriteBase, so the filesystem path)"),
            Case("/who/alice", "prg: the program's answer is not known to the model",
                 exact=False, unsupported="prg"),
            Case("/who/bob", "prg: the program answers NULL: the default, as the model "
                             "assumes (still reported)", unsupported="prg"),
        ],
        modes={"bin/lookup.sh": 0o755},
        vhost_extra="""
RewriteEngine On
RewriteMap mirror "rnd:@ROOT@/mirrors.map"
RewriteMap lookup "prg:@ROOT@/bin/lookup.sh"
""",
    )


def file_tests() -> SiteSpec:
    """Condition tests ``-l`` (``lstat``: a symlink, but not through a trailing slash, which
    follows it), ``-eq`` (``atoi`` on both sides), ``-s`` (a regular file of non-zero size)."""
    return SiteSpec(
        "rw-filetests",
        {
            ".htaccess": (
                "RewriteEngine On\n"
                "RewriteCond %{REQUEST_FILENAME} -l\n"
                "RewriteRule ^uploads/ - [F]\n"
                "RewriteCond %{HTTP:X-Api-Version} -eq2\n"
                "RewriteRule ^api/(.*)$ v2/$1 [L]\n"
                "RewriteCond %{HTTP:X-Api-Version} !-eq2\n"
                "RewriteRule ^api/(.*)$ v1/$1 [L]\n"
                "RewriteCond %{REQUEST_FILENAME} -s\n"
                "RewriteRule ^cache/ - [L]\n"
                "RewriteRule ^cache/(.+)$ generate.txt?f=$1 [L]\n"
                "RewriteCond %{DOCUMENT_ROOT}%{REQUEST_URI} !-f\n"
                "RewriteRule ^pages/ pages/fallback.txt [L]\n"
            ),
            "pages/about.txt": None, "pages/fallback.txt": None,
            "uploads/photo.jpg": None,
            "uploads/gallery/index.html": None,
            "uploads/gallery/photo2.jpg": None,
            "v1/users.txt": None, "v2/users.txt": None,
            "cache/page.html": None, "cache/empty.html": "", "cache/sub/x.txt": None,
            "generate.txt": None,
        },
        [
            Case("/uploads/photo.jpg", "-l on a regular file: false"),
            Case("/uploads/avatar.jpg", "-l on a symlink to a file: [F]"),
            Case("/uploads/shared", "-l on a symlink to a directory: [F] before mod_dir"),
            Case("/uploads/shared/", "-l with a trailing slash: lstat follows the link"),
            Case("/uploads/shared/photo2.jpg", "a file inside a linked directory: not a link"),
            Case("/uploads/broken.jpg", "a dangling symlink: the directory walk refuses it "
                                          "(403) before any rule"),
            Case("/api/users.txt", "-eq2 true", headers={"X-Api-Version": "2"}),
            Case("/api/users.txt", "-eq2 with '02': atoi", headers={"X-Api-Version": "02"}),
            Case("/api/users.txt", "-eq2 with '2.9': atoi stops at the dot",
                 headers={"X-Api-Version": "2.9"}),
            Case("/api/users.txt", "-eq2 false", headers={"X-Api-Version": "3"}),
            Case("/api/users.txt", "no header: atoi('') is 0"),
            Case("/cache/page.html", "-s on a non-empty file"),
            Case("/cache/empty.html", "-s on a zero-size file: false"),
            Case("/cache/none.html", "-s on a missing file: false"),
            Case("/cache/sub/", "-s on a directory: false"),
            Case("/pages/about.txt", "%{DOCUMENT_ROOT}%{REQUEST_URI} -f: the file"),
            Case("/pages/about.txt/", "the same path with a trailing slash: stat fails "
                                      "(ENOTDIR), not a file"),
            Case("/pages/missing", "no file: the fallback"),
        ],
        symlinks={"uploads/avatar.jpg": "photo.jpg", "uploads/shared": "gallery",
                  "uploads/broken.jpg": "nothing.jpg"},
    )


def type_and_handler() -> SiteSpec:
    """``[T=type]`` and ``[H=handler]``: kept in ``r->notes`` and applied by ``hook_mimetype``
    (the last fixup) — a forced handler even replaces the redirect handler of a per-directory
    rewrite; a type set before a per-directory internal redirect is lost with its notes."""
    return SiteSpec(
        "rw-typehandler",
        {
            ".htaccess": (
                "RewriteEngine On\n"
                "RewriteRule \\.data$ - [T=application/json]\n"
                "RewriteRule ^feeds/(\\w+)\\.xml$ - [T=application/$1+xml]\n"
                "RewriteRule ^plain\\.html$ - [T=text/plain]\n"
                "RewriteRule ^legacy\\.txt$ modern.txt [T=text/html,L]\n"
                "RewriteRule ^status-page$ - [H=server-status]\n"
                "RewriteRule ^bogus\\.txt$ - [H=no-such-handler]\n"
                "RewriteRule ^h-rewrite$ modern.txt [H=server-status,L]\n"
                "RewriteRule ^h-bogus-file\\.txt$ modern.txt [H=no-such-handler,L]\n"
                "RewriteRule ^h-bogus$ modern.txt [H=no-such-handler,L]\n"
                "RewriteRule ^$ - [T=text/plain]\n"
            ),
            "index.html": None, "h-bogus-file.txt": None,
            "forced/readme.txt": None, "forced/data.bin": None,
            "report.data": None, "feeds/atom.xml": None, "feeds/rss.xml": None,
            "plain.html": None, "legacy.txt": None, "modern.txt": None, "bogus.txt": None,
            "data/sales.csv": None,
        },
        [
            Case("/report.data", "[T] on a file", compare_headers=CTYPE),
            Case("/report.data/", "just missing: a trailing slash (404)",
                 compare_headers=CTYPE),
            Case("/feeds/atom.xml", "[T] with a back-reference", compare_headers=CTYPE),
            Case("/plain.html", "[T] overrides the extension's type", compare_headers=CTYPE),
            Case("/modern.txt", "no rule: the extension's type", compare_headers=CTYPE),
            Case("/legacy.txt", "[T] with an internal redirect: lost with r->notes",
                 compare_headers=CTYPE),
            Case("/status-page", "[H=server-status]: mod_status answers"),
            Case("/bogus.txt", "[H] naming no handler: the default handler serves the file",
                 compare_headers=CTYPE),
            Case("/h-rewrite", "[H] with a per-directory rewrite replaces the redirect "
                               "handler"),
            Case("/export/sales", "[T] in server context", compare_headers=CTYPE),
            Case("/export/nothing", "[T] in server context, no such file",
                 compare_headers=CTYPE),
            Case("/vh-status", "[H] in server context"),
            Case("/h-bogus-file.txt", "[H] naming no handler replaces the redirect handler: "
                                      "the default handler cannot open 'redirect:…'"),
            Case("/h-bogus", "the same on a missing file: 404"),
            Case("/", "[T] on the directory: applied after mod_dir's DirectoryIndex",
                 compare_headers=CTYPE),
            Case("/forced/readme.txt", "server-context [T] beats ForceType (hook_mimetype "
                                       "is the last fixup)", compare_headers=CTYPE),
            Case("/forced/data.bin", "no rule: ForceType", compare_headers=CTYPE),
        ],
        vhost_extra="""
RewriteEngine On
RewriteRule ^/export/(\\w+)$ /data/$1.csv [T=text/csv]
RewriteRule ^/vh-status$ - [H=server-status]
RewriteRule ^/forced/.*\\.txt$ - [T=text/x-forced]
<Directory "@ROOT@/forced">
    ForceType application/octet-stream
</Directory>
""",
    )


def subrequest_env() -> SiteSpec:
    """What a sub-request (a DirectoryIndex candidate, a ``-U`` look-ahead) sees of the
    environment: a copy of its parent's ``r->subprocess_env`` as it is when the sub-request is
    made (``ap_set_sub_req_protocol``) — server-level and per-directory SetEnvIf, ``[E]`` of the
    rules before, SetEnv (mod_env's fixup runs before mod_dir's), ``REDIRECT_*`` — and no
    SetEnvIf of its own: post_read_request does not run for it, and ``ap_process_request_internal``
    runs ``header_parser`` only on the main request, so neither a server-level nor a
    per-directory ``SetEnvIf Request_URI`` ever sees the sub-request's URI.  Each ``gN/``
    refuses its ``index.html`` with ``[F]`` unless a variable is set, so the answer is
    ``index.html`` when the candidate saw the variable and ``fallback.txt`` otherwise."""
    deny_index = "RewriteEngine On\nRewriteCond %{{ENV:{}}} !=1\nRewriteRule ^index\\.html$ - [F]\n"
    files: dict[str, str | None] = {
        "g1/.htaccess": deny_index.format("IS_BOT"),
        "g2/.htaccess": "RewriteEngine On\nRewriteRule ^$ - [E=SEEN:1]\n"
                        "RewriteRule ^index\\.html$ - [E=IN_SUB:yes]\n"
                        + deny_index.format("SEEN").replace("RewriteEngine On\n", ""),
        "g3/.htaccess": "SetEnvIf Request_URI index\\.html$ IDX=1\n" + deny_index.format("IDX"),
        "g4/.htaccess": deny_index.format("SIDX"),
        "g5/.htaccess": "<Files index.html>\nRequire env IS_BOT\n</Files>\n",
        "g6/.htaccess": "SetEnv STAGE 1\n" + deny_index.format("STAGE"),
        "g7/.htaccess": deny_index.format("REDIRECT_FROM"),
        "g8/.htaccess": "SetEnvIf X-Tok ^yes$ TOK=1\n" + deny_index.format("TOK"),
        ".htaccess": (
            "RewriteEngine On\n"
            "RewriteRule ^hop$ g7/ [E=FROM:1,L]\n"
            "RewriteCond /lk/secret.txt -U\n"
            "RewriteRule ^look$ ok.txt [L]\n"
            "RewriteRule ^look$ no.txt [L]\n"
            "RewriteCond /lk2/secret.txt -U\n"
            "RewriteRule ^look2$ ok.txt [L]\n"
            "RewriteRule ^look2$ no.txt [L]\n"
            "RewriteRule ^mark$ - [E=MK:1]\n"
            "RewriteCond /lk3/secret.txt -U\n"
            "RewriteRule ^mark$ ok.txt [L]\n"
            "RewriteRule ^mark$ no.txt [L]\n"
        ),
        "lk/.htaccess": "Require env IS_BOT\n", "lk/secret.txt": None,
        "lk2/.htaccess": "SetEnvIf Request_URI secret IN_SUB=1\nRequire env IN_SUB\n",
        "lk2/secret.txt": None,
        "lk3/.htaccess": "Require env MK\n", "lk3/secret.txt": None,
        "ok.txt": None, "no.txt": None,
    }
    for n in range(1, 9):
        files[f"g{n}/index.html"] = None
        files[f"g{n}/fallback.txt"] = None
    return SiteSpec(
        "rw-subenv",
        files,
        [
            Case("/g1/", "server-level SetEnvIf of the main request seen by %{ENV:…} in the "
                         "candidate's .htaccess rules", headers={"User-Agent": "bot/1"}),
            Case("/g1/", "the same without a match: the candidate is refused, the next one "
                         "served", headers={"User-Agent": "curl/8"}),
            Case("/g2/", "[E] of the main request's per-directory pass is copied into the "
                         "candidate's sub-request; the sub-request's own [E] comes back with "
                         "ap_internal_fast_redirect", compare_headers=("X-Sub",)),
            Case("/g3/", "per-directory SetEnvIf is not run in the sub-request: Request_URI "
                         "index.html never matches"),
            Case("/g4/", "nor is server-level SetEnvIf: the sub-request's URI is not matched",
                 compare_headers=("X-Sidx",)),
            Case("/g5/", "Require env in the candidate's <Files>: granted with the "
                         "parent's variable", headers={"User-Agent": "bot/1"}),
            Case("/g5/", "Require env in the candidate's <Files>: denied, the next candidate",
                 headers={"User-Agent": "curl/8"}),
            Case("/g6/", "SetEnv of the main request (mod_env's fixup runs before mod_dir's) "
                         "is seen by the candidate's rules"),
            Case("/hop", "[E] becomes REDIRECT_FROM in the next round, and the DirectoryIndex "
                         "sub-request of that round sees it"),
            Case("/g7/", "asked directly: no REDIRECT_FROM, the candidate is refused"),
            Case("/g8/", "per-directory SetEnvIf on a header: set in the main request, "
                         "copied into the candidate's", headers={"X-Tok": "yes"}),
            Case("/g8/", "the header does not match: refused", headers={"X-Tok": "no"}),
            Case("/look", "-U look-ahead: Require env in the target's .htaccess sees the "
                          "server-level SetEnvIf variable", headers={"User-Agent": "bot/1"}),
            Case("/look", "-U look-ahead without it: 403, the condition fails",
                 headers={"User-Agent": "curl/8"}),
            Case("/look2", "-U look-ahead: the target's own SetEnvIf does not run in the "
                           "sub-request, Require env fails"),
            Case("/mark", "-U look-ahead sees [E] of an earlier rule of the same pass"),
        ],
        directory_extra="DirectoryIndex index.html fallback.txt",
        vhost_extra="""
SetEnvIf User-Agent ^bot IS_BOT=1
SetEnvIf Request_URI ^/g4/index\\.html$ SIDX=1
Header always set X-Sidx "%{SIDX}e"
Header always set X-Sub "%{IN_SUB}e"
""",
    )


SITES = [query_string_last, cookies, env_variables, maps_rnd_prg, file_tests, type_and_handler,
         subrequest_env]
