"""Sites for authorization (Require, 2.2 Order/Allow/Deny), AllowOverride gating and
ErrorDocument."""

from __future__ import annotations

from tests.differential.harness import ROOT_TOKEN, Case, SiteSpec


def require_groups() -> SiteSpec:
    """<RequireAll>/<RequireAny>/<RequireNone>, negation, method limits (client 127.0.0.1)."""
    return SiteSpec(
        "require",
        {
            "all/x.txt": None,
            "all/.htaccess": "<RequireAll>\nRequire ip 127.0.0.1\nRequire not ip 10.0.0.0/8\n"
                             "</RequireAll>\n",
            "all-fail/x.txt": None,
            "all-fail/.htaccess": "<RequireAll>\nRequire all granted\nRequire not ip 127.0.0.1"
                                  "\n</RequireAll>\n",
            "any/x.txt": None,
            "any/.htaccess": "<RequireAny>\nRequire ip 10.1.2.3\nRequire local\n</RequireAny>\n",
            "none/x.txt": None,
            "none/.htaccess": "<RequireAll>\nRequire all granted\n<RequireNone>\n"
                              "Require ip 127.0.0.1\n</RequireNone>\n</RequireAll>\n",
            "neg-top/x.txt": None,
            "neg-top/.htaccess": "Require not ip 10.0.0.1\n",
            "ip-partial/x.txt": None,
            "ip-partial/.htaccess": "Require ip 127.0\n",
            "method/x.txt": None,
            "method/.htaccess": "Require method POST\n",
            "method-get/x.txt": None,
            "method-get/.htaccess": "Require method GET\n",
            "env/x.txt": None,
            "env/.htaccess": "SetEnvIf User-Agent ^good LET_IN\nRequire env LET_IN\n",
            # a header name that is not a token is a regex over the request's header names,
            # the last matching header's value tested (mod_setenvif match_headers)
            "envrx/x.txt": None,
            "envrx/.htaccess": "SetEnvIf ^X-Tok- ^yes$ LET_IN\nRequire env LET_IN\n",
            "limit/x.txt": None,
            "limit/.htaccess": "<Limit POST>\nRequire all denied\n</Limit>\n",
            "limitexcept/x.txt": None,
            "limitexcept/.htaccess": "<LimitExcept POST>\nRequire all denied\n</LimitExcept>\n",
            "unknown/x.txt": None,
            "unknown/.htaccess": "Require group admins\n",
            "expr/x.txt": None,
            "expr/.htaccess": "Require expr \"%{QUERY_STRING} == 'key=1'\"\n",
        },
        [
            Case("/all/x.txt", "RequireAll: ip and not ip"),
            Case("/all-fail/x.txt", "RequireAll with a failing negation"),
            Case("/any/x.txt", "RequireAny: Require local"),
            Case("/none/x.txt", "RequireNone inside RequireAll"),
            Case("/neg-top/x.txt", "negative Require directly at top level: 500"),
            Case("/ip-partial/x.txt", "partial IP address"),
            Case("/method/x.txt", "Require method POST refuses GET"),
            Case("/method-get/x.txt", "Require method GET admits HEAD", method="HEAD"),
            Case("/env/x.txt", "Require env without the variable", headers={"User-Agent":
                                                                           "bad"}),
            Case("/env/x.txt", "Require env with the variable from SetEnvIf",
                 headers={"User-Agent": "good-bot"}),
            Case("/envrx/x.txt", "SetEnvIf header-name regex: no header matches"),
            Case("/envrx/x.txt", "SetEnvIf header-name regex: one header matches",
                 headers={"X-Tok-A": "yes"}),
            Case("/envrx/x.txt", "SetEnvIf header-name regex: the last match counts (no)",
                 headers={"X-Tok-A": "yes", "X-Tok-B": "no"}),
            Case("/envrx/x.txt", "SetEnvIf header-name regex: the last match counts (yes)",
                 headers={"X-Tok-A": "no", "X-Tok-B": "yes"}),
            Case("/limit/x.txt", "<Limit POST> does not restrict GET"),
            Case("/limitexcept/x.txt", "<LimitExcept POST> restricts GET"),
            Case("/unknown/x.txt", "Require group without mod_authz_groupfile: 500"),
            Case("/expr/x.txt", "Require expr false"),
            Case("/expr/x.txt?key=1", "Require expr true"),
        ],
    )


def auth_merging() -> SiteSpec:
    """AuthMerging Off/And/Or between a parent and a child .htaccess."""
    return SiteSpec(
        "authmerging",
        {
            ".htaccess": "Require ip 127.0.0.1\n",
            "off/x.txt": None,
            "off/.htaccess": "Require all denied\n",
            "and/x.txt": None,
            "and/.htaccess": "AuthMerging And\nRequire not ip 127.0.0.1\nRequire all granted\n",
            "and-ok/x.txt": None,
            "and-ok/.htaccess": "AuthMerging And\nRequire all granted\n",
            "or/x.txt": None,
            "or/.htaccess": "AuthMerging Or\nRequire all denied\n",
            "inherit/x.txt": None,
            "inherit/.htaccess": "Options -Indexes\n",
            "deny-parent/.htaccess": "Require all denied\n",
            "deny-parent/or/x.txt": None,
            "deny-parent/or/.htaccess": "AuthMerging Or\nRequire all granted\n",
            "deny-parent/and/x.txt": None,
            "deny-parent/and/.htaccess": "AuthMerging And\nRequire all granted\n",
        },
        [
            Case("/off/x.txt", "child replaces the parent (AuthMerging Off)"),
            Case("/and/x.txt", "And: parent grants, child denies"),
            Case("/and-ok/x.txt", "And: both grant"),
            Case("/or/x.txt", "Or: parent grants"),
            Case("/inherit/x.txt", "no Require in child: parent's apply"),
            Case("/deny-parent/or/x.txt", "Or with a denying parent"),
            Case("/deny-parent/and/x.txt", "And with a denying parent"),
        ],
    )


def access_compat() -> SiteSpec:
    """mod_access_compat: Order/Allow/Deny, Satisfy, and the most specific section that
    mentions them wins (no merger)."""
    return SiteSpec(
        "compat",
        {
            "deny/x.txt": None,
            "deny/.htaccess": "Order deny,allow\nDeny from all\n",
            "deny/allow-local/x.txt": None,
            "deny/allow-local/.htaccess": "Order deny,allow\nDeny from all\n"
                                          "Allow from 127.0.0.1\n",
            "deny/satisfy-only/x.txt": None,
            "deny/satisfy-only/.htaccess": "Satisfy All\n",
            "allowdeny/x.txt": None,
            "allowdeny/.htaccess": "Order allow,deny\nAllow from all\nDeny from 127.0.0.1\n",
            "noallow/x.txt": None,
            "noallow/.htaccess": "Order allow,deny\n",
            "mutual/x.txt": None,
            "mutual/.htaccess": "Order mutual-failure\nAllow from 127\n",
            "both/x.txt": None,
            "both/.htaccess": "Order deny,allow\nDeny from all\nRequire all granted\n",
            "any/x.txt": None,
            "any/.htaccess": "Order deny,allow\nDeny from all\nRequire all granted\n"
                             "Satisfy Any\n",
            "env/x.txt": None,
            "env/.htaccess": "SetEnvIf Request_URI x\\.txt$ OK_FILE\nOrder deny,allow\n"
                             "Deny from all\nAllow from env=OK_FILE\n",
            "bad/x.txt": None,
            "bad/.htaccess": "Allow 127.0.0.1\n",
            "netmask/x.txt": None,
            "netmask/.htaccess": "Order allow,deny\nAllow from 127.0.0.0/255.0.0.0\n",
        },
        [
            Case("/deny/x.txt", "Deny from all"),
            Case("/deny/allow-local/x.txt", "Allow overrides Deny with deny,allow"),
            Case("/deny/satisfy-only/x.txt", "a section with only Satisfy resets Order/Deny"),
            Case("/allowdeny/x.txt", "allow,deny: Deny wins"),
            Case("/noallow/x.txt", "allow,deny with no Allow: denied"),
            Case("/mutual/x.txt", "mutual-failure with partial IP"),
            Case("/both/x.txt", "Satisfy All: compat denies though Require grants"),
            Case("/any/x.txt", "Satisfy Any: Require grants"),
            Case("/env/x.txt", "Allow from env="),
            Case("/bad/x.txt", "Allow without 'from': 500"),
            Case("/netmask/x.txt", "network/netmask"),
        ],
    )


def authn() -> SiteSpec:
    """Require valid-user: 500 without AuthType, 401 with AuthType Basic."""
    return SiteSpec(
        "authn",
        {
            "noauth/x.txt": None,
            "noauth/.htaccess": "Require valid-user\n",
            "basic/x.txt": None,
            "basic/.htaccess": "AuthType Basic\nAuthName \"private\"\nAuthUserFile /dev/null\n"
                               "Require valid-user\n",
            "basic-or/x.txt": None,
            "basic-or/.htaccess": "AuthType Basic\nAuthName \"private\"\n"
                                  "AuthUserFile /dev/null\nRequire valid-user\n"
                                  "Require ip 127.0.0.1\n",
            "typeonly/x.txt": None,
            "typeonly/.htaccess": "AuthType Basic\nAuthName \"x\"\n",
        },
        [
            Case("/noauth/x.txt", "valid-user without AuthType: 500"),
            Case("/basic/x.txt", "AuthType Basic: 401"),
            Case("/basic-or/x.txt", "valid-user OR ip: granted without credentials"),
            Case("/typeonly/x.txt", "AuthType with Require all granted inherited"),
        ],
        directory_extra="",
    )


def override_gating() -> SiteSpec:
    """AllowOverride classes gate each .htaccess directive (500 when forbidden);
    AllowOverride None: the file is not even read; AllowOverrideList; Nonfatal."""
    broken = "This is not a directive at all\n"
    return SiteSpec(
        "gating",
        {
            "none/.htaccess": broken,
            "none/x.txt": None,
            "none/sub/.htaccess": "Require all denied\n",
            "none/sub/y.txt": None,
            "fileinfo/.htaccess": "Options -Indexes\n",
            "fileinfo/x.txt": None,
            "fileinfo/ok/.htaccess": "RewriteEngine On\nRewriteRule ^a$ x.txt\n",
            "fileinfo/ok/x.txt": None,
            "authcfg/.htaccess": "Require all denied\n",
            "authcfg/x.txt": None,
            "authcfg/hdr/.htaccess": "Header set X-No yes\n",
            "authcfg/hdr/x.txt": None,
            "list/.htaccess": "Redirect 301 /list/old /list/x.txt\n",
            "list/x.txt": None,
            "list/other/.htaccess": "Header set X-Other 1\n",
            "list/other/x.txt": None,
            "nonfatal/.htaccess": "Options -Indexes\nHeader set X-Seen yes\nBogusDirective x\n",
            "nonfatal/x.txt": None,
            "unknown/.htaccess": "BogusDirective on\n",
            "unknown/x.txt": None,
            "php/.htaccess": "php_value upload_max_filesize 10M\n",
            "php/x.txt": None,
            "php-ifmodule/.htaccess": "<IfModule mod_php.c>\nphp_value upload_max_filesize 10M\n"
                                      "</IfModule>\n",
            "php-ifmodule/x.txt": None,
            "server-only/.htaccess": "Alias /foo /tmp\n",
            "server-only/x.txt": None,
            "dir-in-ht/.htaccess": "<Directory /tmp>\n</Directory>\n",
            "dir-in-ht/x.txt": None,
            "deep/a/b/.htaccess": "Header set X-Deep 1\n",
            "deep/a/b/x.txt": None,
            "deep/a/x.txt": None,
        },
        [
            Case("/none/x.txt", "AllowOverride None: a broken .htaccess is not read"),
            Case("/none/sub/y.txt", "nor any below"),
            Case("/fileinfo/x.txt", "Options needs AllowOverride Options: 500"),
            Case("/fileinfo/ok/a", "RewriteRule allowed by FileInfo"),
            Case("/authcfg/x.txt", "Require allowed by AuthConfig"),
            Case("/authcfg/hdr/x.txt", "Header needs FileInfo: 500"),
            Case("/list/old", "AllowOverrideList admits Redirect"),
            Case("/list/other/x.txt", "a directive not listed: 500"),
            Case("/nonfatal/x.txt", "Nonfatal=All: forbidden and unknown skipped",
                 compare_headers=("X-Seen",)),
            Case("/nonfatal/", "Nonfatal: Options -Indexes ignored"),
            Case("/unknown/x.txt", "unknown directive: 500"),
            Case("/php/x.txt", "php_value without mod_php: 500"),
            Case("/php-ifmodule/x.txt", "inside <IfModule mod_php.c>: skipped"),
            Case("/server-only/x.txt", "Alias in .htaccess: 500"),
            Case("/dir-in-ht/x.txt", "<Directory> in .htaccess: 500"),
            Case("/deep/a/x.txt", "AllowOverride None at deep/a"),
            Case("/deep/a/b/x.txt", "AllowOverride FileInfo again at deep/a/b"),
        ],
        vhost_extra="""
<Directory "@ROOT@/none">
    AllowOverride None
</Directory>
<Directory "@ROOT@/fileinfo">
    AllowOverride FileInfo
</Directory>
<Directory "@ROOT@/authcfg">
    AllowOverride AuthConfig
</Directory>
<Directory "@ROOT@/list">
    AllowOverride None
    AllowOverrideList Redirect RedirectMatch
</Directory>
<Directory "@ROOT@/nonfatal">
    AllowOverride FileInfo Nonfatal=All
</Directory>
<Directory "@ROOT@/deep/a">
    AllowOverride None
</Directory>
<Directory "@ROOT@/deep/a/b">
    AllowOverride FileInfo
</Directory>
""",
    )


def access_file_name() -> SiteSpec:
    """AccessFileName: another name, the first existing one of several."""
    return SiteSpec(
        "accessname",
        {
            ".htaccess": "Require all denied\n",
            ".config": "Header set X-From config\n",
            "a.txt": None,
            "sub/.htaccess": "Require all denied\n",
            "sub/b.txt": None,
            "other/.acl": "Require all denied\n",
            "other/c.txt": None,
        },
        [
            Case("/a.txt", ".htaccess ignored, .config read", compare_headers=("X-From",)),
            Case("/sub/b.txt", "no .config in sub: .htaccess still ignored"),
            Case("/other/c.txt", "second name used when the first is absent"),
        ],
        vhost_extra="AccessFileName .config .acl\n",
    )


def error_documents() -> SiteSpec:
    """ErrorDocument: local path (status kept, body from that file), message, URL (302),
    missing document, per-directory override, 'default'."""
    return SiteSpec(
        "errordoc",
        {
            ".htaccess": "ErrorDocument 404 /errors/404.html\nErrorDocument 403 /errors/403.html"
                         "\n",
            "errors/404.html": None,
            "errors/403.html": None,
            "private/.htaccess": "Require all denied\n",
            "private/x.txt": None,
            "text/.htaccess": "ErrorDocument 404 \"Nothing here\"\n",
            "url/.htaccess": "ErrorDocument 404 http://example.com/notfound\n",
            "missing/.htaccess": "ErrorDocument 404 /errors/nope.html\n",
            "default/.htaccess": "ErrorDocument 404 default\n",
            "relative/.htaccess": "ErrorDocument 404 index.php\n",
            "locked/.htaccess": "ErrorDocument 403 /errors/private/403.html\n"
                                "Require all denied\n",
            "errors/private/403.html": None,
            "errors/private/.htaccess": "Require all denied\n",
        },
        [
            Case("/nope.html", "404 served from /errors/404.html"),
            Case("/private/x.txt", "403 served from /errors/403.html"),
            Case("/text/nope", "a message: status kept"),
            Case("/url/nope", "a URL: 302 to it"),
            Case("/missing/nope", "the ErrorDocument is missing: canned 404"),
            Case("/default/nope", "ErrorDocument default"),
            Case("/relative/nope", "not a path nor a URL: a message"),
            Case("/locked/x", "the error document itself is forbidden"),
            Case("/errors/404.html", "the error document itself"),
        ],
    )


SITES = [require_groups, auth_merging, access_compat, authn, override_gating,
         access_file_name, error_documents]


def host_names() -> SiteSpec:
    """``Require host``, ``Require forward-dns`` and ``Allow/Deny from name``: the client
    127.0.0.1 has the double-reverse name ``localhost`` (the system resolver's /etc/hosts),
    matched on label boundaries, case-insensitively."""
    def deny_allow(line: str) -> str:
        return f"Order deny,allow\nDeny from all\n{line}\n"
    return SiteSpec(
        "hostnames",
        {
            "host/x.txt": None,
            "host/.htaccess": "Require host localhost\n",
            "host-upper/x.txt": None,
            "host-upper/.htaccess": "Require host LOCALHOST\n",
            "host-other/x.txt": None,
            "host-other/.htaccess": "Require host example.com otherhost\n",
            "host-dot/x.txt": None,
            "host-dot/.htaccess": "Require host .localhost\n",
            "host-suffix/x.txt": None,
            "host-suffix/.htaccess": "Require host host\n",
            "fwd/x.txt": None,
            "fwd/.htaccess": "Require forward-dns localhost\n",
            "fwd-other/x.txt": None,
            "fwd-other/.htaccess": "Require forward-dns 127.0.0.2\n",
            "allow/x.txt": None,
            "allow/.htaccess": deny_allow("Allow from localhost"),
            "allow-other/x.txt": None,
            "allow-other/.htaccess": deny_allow("Allow from example.com"),
            "deny/x.txt": None,
            "deny/.htaccess": "Order allow,deny\nAllow from all\nDeny from localhost\n",
            "not-host/x.txt": None,
            "not-host/.htaccess": "<RequireAll>\nRequire all granted\n"
                                  "Require not host localhost\n</RequireAll>\n",
        },
        [
            Case("/host/x.txt", "Require host: the double-reverse name of 127.0.0.1"),
            Case("/host-upper/x.txt", "Require host compares case-insensitively"),
            Case("/host-other/x.txt", "Require host: other names"),
            Case("/host-dot/x.txt", "a leading dot needs a subdomain"),
            Case("/host-suffix/x.txt", "'host' is not a label suffix of 'localhost'"),
            Case("/fwd/x.txt", "Require forward-dns: the name resolves to the client"),
            Case("/fwd-other/x.txt", "Require forward-dns: a name that resolves elsewhere"),
            Case("/allow/x.txt", "Allow from a host name (double reverse)"),
            Case("/allow-other/x.txt", "Allow from another host name"),
            Case("/deny/x.txt", "Deny from a host name"),
            Case("/not-host/x.txt", "Require not host"),
        ],
    )


SITES.append(host_names)


def nonfatal_override_configs() -> SiteSpec:
    """``AllowOverride … Nonfatal=Override``: a directive the .htaccess may not use is skipped,
    but its module's config for the .htaccess exists all the same (``ap_set_config_vectors``
    runs before the override check) — so the parent's mod_rewrite rules (no Inherit) and
    mod_access_compat's Order/Deny (no merger) stop applying there."""
    return SiteSpec(
        "nonfatal-configs",
        {
            "old.txt": None, "new.txt": None,
            "sub/old.txt": None, "sub/new.txt": None,
            "sub/.htaccess": "RewriteRule ^nothing$ - [F]\n",
            "plain/old.txt": None, "plain/new.txt": None,
            "acc/x.txt": None, "acc/.htaccess": "Deny from 10.9.9.9\n",
            "acc2/x.txt": None,
            "unknown/old.txt": None, "unknown/new.txt": None,
            "unknown/.htaccess": "NoSuchDirective x\n",
        },
        [
            Case("/old.txt", "the parent's rule"),
            Case("/sub/old.txt", "a skipped RewriteRule still ends the parent's rules"),
            Case("/plain/old.txt", "no .htaccess: the parent's rule"),
            Case("/acc/x.txt", "a skipped Deny still replaces the parent's Deny from all"),
            Case("/acc2/x.txt", "the parent's Deny from all"),
            Case("/unknown/old.txt", "an unknown directive touches no module"),
        ],
        allow_override="AuthConfig Nonfatal=Any",
        directory_extra="RewriteEngine On\nRewriteRule old\\.txt$ new.txt [L]\n",
        vhost_extra=(f'<Directory "{ROOT_TOKEN}/acc">\nOrder allow,deny\nDeny from all\n'
                     f'</Directory>\n<Directory "{ROOT_TOKEN}/acc2">\nOrder allow,deny\n'
                     "Deny from all\n</Directory>\n"),
    )


SITES.append(nonfatal_override_configs)
