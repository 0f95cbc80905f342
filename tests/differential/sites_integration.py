"""Sites for how request processing drives the rewrite engine: which port makes an absolute
substitution "ourselves" (the ServerName's), per-directory rewriting refused without
FollowSymLinks, broken rewrite configs, the status an ``[R]`` without ``[L]`` leaves behind, the
``D…`` flags; and, on an Apache of their own (:data:`MAIN_EXTRA` applies to every vhost),
main-server rules and vhosts."""

from __future__ import annotations

from tests.differential.harness import Case, SiteSpec


def server_name_port() -> SiteSpec:
    """``ap_matches_request_vhost``: an absolute URL is this server only when its port equals
    the ServerName's port (0 when ServerName has none; the ``<VirtualHost *:port>`` address
    does not count once ServerName is given), so ``http://name:port/`` redirects."""
    rules = ("RewriteEngine On\n"
             "RewriteRule ^/abs-noport$ http://snport.test/target.txt [L]\n"
             "RewriteRule ^/abs-port$ http://snport.test:${CONFMIG_PORT}/target.txt [L]\n"
             "RewriteRule ^/abs-other$ http://other.test/target.txt [L]\n"
             "RewriteRule ^/rel$ /target.txt [R,L]\n")
    return SiteSpec(
        "snport",
        {"target.txt": None, "dir/a.txt": None,
         "pd/.htaccess": "RewriteEngine On\nRewriteRule ^abs$ http://snport.test/target.txt\n",
         "pd/x": None},
        [
            Case("/abs-noport", "port 80 is not the ServerName's (none): redirect"),
            Case("/abs-port", "the connection's port is not the ServerName's either: redirect"),
            Case("/abs-other", "another host: redirect"),
            Case("/pd/abs", "per-directory: the same rule for http://name/"),
            Case("/pd-port/abs", "per-directory in <Directory>, http://name:port/"),
            Case("/rel", "[R] to a path: qualified with the Host header's port"),
            Case("/rel", "Host without a port: %{SERVER_PORT} is the ServerName's, else 80",
                 headers={"Host": "snport.test"}),
            Case("/dir", "DirectorySlash with a Host without port",
                 headers={"Host": "snport.test"}),
            Case("/moved", "mod_alias Redirect to a path, Host without port",
                 headers={"Host": "snport.test"}),
        ],
        vhost_extra=rules + """
Redirect /moved /target.txt
<Directory "@ROOT@/pd-port">
    RewriteEngine On
    RewriteRule ^abs$ http://snport.test:${CONFMIG_PORT}/target.txt
</Directory>
""",
    )


def server_name_with_port() -> SiteSpec:
    """``ServerName name:80``: then ``http://name/…`` (port 80) is this server and becomes a
    local path, though the request came in on another port."""
    return SiteSpec(
        "snport80",
        {"target.txt": None, "pd/.htaccess": "RewriteEngine On\n"
                                            "RewriteRule ^abs$ http://snport80.test/target.txt\n"},
        [
            Case("/abs-80", "http://name/ with ServerName name:80: local"),
            Case("/abs-port", "http://name:port/ with ServerName name:80: redirect"),
            Case("/pd/abs", "per-directory http://name/: local (internal redirect)"),
            Case("/rel", "[R] to a path, Host without port: ServerName's port",
                 headers={"Host": "snport80.test"}),
        ],
        vhost_extra="""
ServerName snport80.test:80
RewriteEngine On
RewriteRule ^/abs-80$ http://snport80.test/target.txt [L]
RewriteRule ^/abs-port$ http://snport80.test:${CONFMIG_PORT}/target.txt [L]
RewriteRule ^/rel$ /target.txt [R,L]
""",
    )


def rewrite_without_symlinks() -> SiteSpec:
    """``hook_fixup``: with FollowSymLinks and SymLinksIfOwnerMatch both off, a per-directory
    rewrite config whose engine is on answers 403 — with no rule matching, or no rule at all;
    an engine that is off (or never switched on) declines first."""
    return SiteSpec(
        "rw-nosym",
        {
            "norules/.htaccess": "RewriteEngine On\n", "norules/a.txt": None,
            "nomatch/.htaccess": "RewriteEngine On\nRewriteRule ^zzz$ a.txt\n",
            "nomatch/a.txt": None,
            "off/.htaccess": "RewriteEngine Off\nRewriteRule ^zzz$ a.txt\n", "off/a.txt": None,
            "noengine/.htaccess": "RewriteRule ^a\\.txt$ b.txt\n", "noengine/a.txt": None,
            "noengine/b.txt": None,
            "owner/.htaccess": "Options +SymLinksIfOwnerMatch\nRewriteEngine On\n"
                               "RewriteRule ^a\\.txt$ b.txt\n",
            "owner/a.txt": None, "owner/b.txt": None,
            "plain/a.txt": None,
        },
        [
            Case("/norules/a.txt", "RewriteEngine On and no rule: 403"),
            Case("/nomatch/a.txt", "no rule matches: 403 all the same"),
            Case("/nomatch", "the directory without slash: declined, mod_dir redirects"),
            Case("/off/a.txt", "RewriteEngine Off: declined before the Options check"),
            Case("/noengine/a.txt", "rules but the engine never on: declined"),
            Case("/owner/a.txt", "SymLinksIfOwnerMatch suffices"),
            Case("/plain/a.txt", "no rewrite config"),
        ],
        options="Indexes",
    )


def broken_rewrite_configs() -> SiteSpec:
    """A Rewrite* directive Apache refuses makes the ``.htaccess`` fail: 500 for every request
    below it, whatever ``RewriteEngine`` says."""
    return SiteSpec(
        "rw-broken",
        {
            "off/.htaccess": "RewriteEngine Off\nRewriteRule ^x$ y [BOGUS]\n",
            "off/a.txt": None,
            "cond/.htaccess": "RewriteCond %{HTTP_HOST} x [XX]\nRewriteRule ^ -\n",
            "cond/a.txt": None,
            "base/.htaccess": "RewriteEngine On\nRewriteRule ^x$ a.txt [L]\n",
            "base/a.txt": None,
            "base/child/.htaccess": "RewriteBase relative\n",
            "base/child/a.txt": None,
        },
        [
            Case("/off/a.txt", "a bad flag with RewriteEngine Off: 500"),
            Case("/cond/a.txt", "a bad RewriteCond flag, no RewriteEngine: 500"),
            Case("/base/a.txt", "the parent is fine"),
            Case("/base/child/a.txt", "a child's invalid RewriteBase: 500"),
        ],
    )


def redirect_status_kept() -> SiteSpec:
    """An ``[R]`` without ``[L]`` leaves ``r->status`` at its 3xx; a later rule that rewrites
    locally makes Apache serve the file with that status and no Location (an internal
    redirect inherits the status).  An error in the internally redirected request is then a
    "recursive error": Apache answers the first request's 3xx, without ErrorDocument."""
    return SiteSpec(
        "rw-status",
        {
            ".htaccess": "RewriteEngine On\n"
                         "RewriteRule ^first$ /second [R=301]\n"
                         "RewriteRule ^http://[^/]+/second$ target.txt [L]\n"
                         "RewriteRule ^other$ /else [R=303]\n"
                         "RewriteRule ^http://[^/]+/else$ missing.txt [L]\n",
            "target.txt": None,
        },
        [
            Case("/first", "per-directory [R=301] then a local rewrite: 301, the file"),
            Case("/first?q=1", "… with a query string"),
            Case("/other", "… to a missing file: the first request's 303, no Location"),
            Case("/sfirst", "server context [R=302] then a local rewrite: 302, the file"),
            Case("/smissing", "… to a missing file without an internal redirect: 404 and the "
                              "ErrorDocument (r->status is reset before ap_die)"),
            Case("/target.txt", "no redirect rule"),
            Case("/nothing", "a plain 404 uses the ErrorDocument"),
        ],
        vhost_extra="""
RewriteEngine On
RewriteRule ^/sfirst$ /ssecond [R=302]
RewriteRule ^http://[^/]+/ssecond$ /target.txt [L]
RewriteRule ^/smissing$ /ssecond [R=307]
RewriteRule ^http://[^/]+/ssecond$ /missing.txt [L]
ErrorDocument 404 /target.txt
""",
    )


def d_flags() -> SiteSpec:
    """``cmd_rewriterule_setflag``: ``D``, ``DPI`` and ``discardpath`` (any case) discard
    PATH_INFO; any other flag starting with D is accepted and ignored."""
    return SiteSpec(
        "rw-dflags",
        {
            ".htaccess": "RewriteEngine On\n"
                         "RewriteRule ^d1/(.*)$ a.txt [D]\n"
                         "RewriteRule ^d2/(.*)$ a.txt [DX]\n"
                         "RewriteRule ^d3/(.*)$ a.txt [discardpath]\n"
                         "RewriteRule ^d4/(.*)$ a.txt [dPi]\n"
                         "RewriteRule ^d5/(.*)$ a.txt [Dummy]\n"
                         "RewriteRule ^d6/(.*)$ a.txt\n"
                         "RewriteRule ^a\\.txt/x$ kept.txt [L]\n"
                         "RewriteRule ^a\\.txt$ dropped.txt [L]\n",
            "a.txt": None, "kept.txt": None, "dropped.txt": None,
        },
        [
            Case("/d1/x", "[D]: DPI"),
            Case("/d2/x", "[DX]: accepted, not DPI"),
            Case("/d3/x", "[discardpath]: DPI"),
            Case("/d4/x", "[dPi]: DPI (case-insensitive)"),
            Case("/d5/x", "[Dummy]: accepted, not DPI"),
            Case("/d6/x", "no flag: PATH_INFO kept"),
        ],
    )


SITES = [server_name_port, server_name_with_port, rewrite_without_symlinks,
         broken_rewrite_configs, redirect_status_kept, d_flags]


# -- the main server's rules and virtual hosts (an Apache of their own) ----------------------

MAIN_EXTRA = """
RewriteEngine On
RewriteRule ^/main-redirect$ http://example.com/from-main [R=302,L]
RewriteRule ^/main-local$ /main-target.txt [L]
"""


def _main_files(**more: str | None) -> dict[str, str | None]:
    return {"main-target.txt": None, "local.txt": None, **more}


def vhost_without_rewrite() -> SiteSpec:
    """A vhost without any Rewrite* directive runs none of the main server's rules
    (``conf->server != r->server``), but its per-directory engine state is the main server's
    (``RewriteEngine On`` in server context also sets the base directory config)."""
    return SiteSpec(
        "main-none",
        _main_files(**{"pd/.htaccess": "RewriteRule ^x$ local.txt [L]\n", "pd/local.txt": None}),
        [
            Case("/main-redirect", "the main server's [R] rule does not run: 404"),
            Case("/main-local", "nor its local rewrite"),
            Case("/pd/x", ".htaccess rules without RewriteEngine: on, from the main server"),
        ],
    )


def vhost_engine_only() -> SiteSpec:
    """A vhost with its own ``RewriteEngine On`` and rules: the main server's rules are not
    inherited without ``RewriteOptions Inherit``."""
    return SiteSpec(
        "main-own",
        _main_files(),
        [
            Case("/main-redirect", "main rules not inherited: 404"),
            Case("/own", "the vhost's own rule"),
        ],
        vhost_extra="RewriteEngine On\nRewriteRule ^/own$ /local.txt [L]\n",
    )


def vhost_inherit() -> SiteSpec:
    """``RewriteOptions Inherit`` in the vhost: the main server's rules run after the vhost's;
    ``RewriteEngine Off`` in a ``<Location>`` switches server-context rewriting off there (the
    engine state checked at translate time is the per-directory one)."""
    return SiteSpec(
        "main-inherit",
        _main_files(),
        [
            Case("/main-redirect", "inherited [R] rule"),
            Case("/main-local", "inherited local rule"),
            Case("/own", "the vhost's rule first"),
            Case("/off/main-local", "RewriteEngine Off in <Location /off>: no server rules"),
        ],
        vhost_extra="""
RewriteEngine On
RewriteOptions Inherit
RewriteRule ^/own$ /local.txt [L]
RewriteRule ^/off/main-local$ /main-local
<Location "/off">
    RewriteEngine Off
</Location>
""",
    )


def vhost_engine_off() -> SiteSpec:
    """``RewriteEngine Off`` alone in a vhost: nothing runs, even with Inherit."""
    return SiteSpec(
        "main-off",
        _main_files(),
        [Case("/main-redirect", "engine off in the vhost: 404")],
        vhost_extra="RewriteEngine Off\nRewriteOptions Inherit\n",
    )


MAIN_SERVER_SITES = [vhost_without_rewrite, vhost_engine_only, vhost_inherit, vhost_engine_off]
