"""Differential tests: the mod_rewrite model against a real Apache httpd.

One private Apache (:class:`confmig.servers.ApacheServer`: 127.0.0.1, a free port, config in
a temp dir) serves four name-based virtual hosts:

* ``main.test`` (alias ``www.main.test``) — server-context rules under ``/vh/`` and one
  directory per per-directory scenario, each with its ``.htaccess``;
* ``wp.test`` / ``laravel.test`` — the WordPress and Laravel front-controller ``.htaccess``
  files, read from the shared corpus at test time;
* ``self.test:80`` — a ServerName with a port, where ``http://self.test/...`` is "ourselves".

Every file's body names the file, so for a 200 the body says which file Apache served.  For
each request the model (:func:`confmig.model.evaluate.evaluate` over the configuration Apache
runs: server rules, the directory walk, merged per-dir rules, internal-redirect rounds, mod_dir
and the handler) predicts status, Location, body and Set-Cookie; Apache must agree.
``expect`` documents the status each case is about.
"""

from __future__ import annotations

import http.client
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from confmig.apache.modules import ModuleSet
from confmig.load import ReadState, load_config
from confmig.model.evaluate import Answer, evaluate
from confmig.model.request import Request, RequestHeaders
from confmig.model.rewrite import RewriteConfig
from confmig.model.site import Site as ModelSite
from confmig.model.site_builder import build_site
from confmig.servers import (
    ApacheBinary,
    ApacheServer,
    ServerNotFound,
    find_apache,
    make_docroot,
)
from confmig.syntax import Directive, parse_text
from tests.corpus import CORPUS

WORDPRESS_HTACCESS = CORPUS / "wordpress" / "generated" / ".htaccess"
LARAVEL_HTACCESS = CORPUS / "laravel" / "public" / ".htaccess"


def _find_apache() -> ApacheBinary | None:
    try:
        return find_apache()
    except ServerNotFound:
        return None


APACHE = _find_apache()
pytestmark = [pytest.mark.apache,
              pytest.mark.skipif(APACHE is None, reason="apache2/httpd is not installed")]

# --------------------------------------------------------------------------- the sites --

VARS = ("u=%{REQUEST_URI}&f=%{SCRIPT_FILENAME}&rf=%{REQUEST_FILENAME}&pi=%{PATH_INFO}"
        "&q=%{QUERY_STRING}&n=%{SERVER_NAME}&p=%{SERVER_PORT}&h=%{HTTP_HOST}"
        "&ra=%{REMOTE_ADDR}&sa=%{SERVER_ADDR}&s=%{HTTPS}&sc=%{REQUEST_SCHEME}"
        "&m=%{REQUEST_METHOD}&t=%{THE_REQUEST}&d=%{DOCUMENT_ROOT}"
        "&cd=%{CONTEXT_DOCUMENT_ROOT}&cp=%{CONTEXT_PREFIX}&sub=%{IS_SUBREQ}"
        "&pr=%{SERVER_PROTOCOL}&ad=%{SERVER_ADMIN}&rh=%{REMOTE_HOST}"
        "&x=%{HTTP_X_FORWARDED_FOR}&xf=%{HTTP:X-Forwarded-For}&ua=%{HTTP_USER_AGENT}"
        "&ck=%{HTTP_COOKIE}&e=%{ENV:nosuch}&ac=%{HTTP_ACCEPT}")

SERVER_RULES = r"""
RewriteEngine On
RewriteMap lc int:tolower
RewriteRule ^/vh/old$ /vh/new.html [L]
RewriteRule ^/vh/perm/(.*)$ /vh/$1 [R=301,L]
RewriteRule ^/vh/p308$ /vh/new.html [R=308,L]
RewriteRule ^/vh/seeother$ /vh/new.html [R=seeother,L]
RewriteRule ^/vh/forbid - [F]
RewriteRule ^/vh/gone - [G]
RewriteRule ^/vh/r404$ - [R=404]
RewriteCond %{HTTP_HOST} ^www\.(.+)$ [NC]
RewriteRule ^/vh/www/(.*)$ http://%1/vh/$1 [R=301,L]
RewriteRule ^/vh/skip/ - [S=1]
RewriteRule ^/vh/skip/(.*)$ /vh/skipped.html [L]
RewriteRule ^/vh/skip/(.*)$ /vh/new.html [L]
RewriteRule ^/vh/chain/(a|b)$ - [C]
RewriteRule ^(.*)$ /vh/chained.html [L]
RewriteRule ^/vh/nc/abc$ /vh/new.html [NC,L]
RewriteRule ^/vh/qsa$ /vh/q.html?a=1 [QSA,R,L]
RewriteRule ^/vh/qs$ /vh/q.html?a=1 [R,L]
RewriteRule ^/vh/qsd$ /vh/q.html [QSD,R,L]
RewriteRule ^/vh/drop$ /vh/q.html? [R,L]
RewriteCond %{QUERY_STRING} (?:^|&)id=(\d+)
RewriteRule ^/vh/item$ /vh/item-%1.html? [L]
RewriteCond %{HTTP_USER_AGENT} bot [NC,OR]
RewriteCond %{HTTP_REFERER} ^http://spam
RewriteRule ^/vh/or$ - [F]
RewriteCond %{HTTP_X_TEST} yes
RewriteRule ^/vh/xtest$ - [F]
RewriteCond %{HTTP:X-Test} yes
RewriteRule ^/vh/xtest2$ - [F]
RewriteRule ^/vh/env$ - [E=FOO:bar]
RewriteCond %{ENV:FOO} ^bar$
RewriteRule ^/vh/env$ /vh/new.html [R,L]
RewriteRule ^/vh/end$ /vh/endtarget/x.html [END]
RewriteRule ^/vh/notend$ /vh/endtarget/x.html [L]
RewriteRule ^/vh/self$ http://main.test/vh/new.html
RewriteRule ^/vh/unsafe/(.*)$ /vh/$1 [L]
RewriteRule ^/vh/b/(.*)$ /vh/q.html?x=$1 [B,R,L]
RewriteRule ^/vh/ne/(.*)$ /vh/q.html#$1 [NE,R,L]
RewriteRule ^/vh/esc$ /vh/q.html#frag [R,L]
RewriteRule ^/vh/n/(x{0,3})$ /vh/n/$1x [N]
RewriteRule ^/vh/n/xxxx$ /vh/new.html [L]
RewriteRule ^/vh/nlim/(x*)$ /vh/nlim/$1x [N=5]
RewriteRule ^/vh/pt$ /vh/new.html [PT,L]
RewriteRule ^/vh/cookie$ /vh/new.html [CO=k:v:main.test:0:/vh,R,L]
RewriteRule ^/vh/rel$ vh/new.html [L]
RewriteRule ^/vh/lower/(.*)$ /vh/${lc:$1}.html [L]
RewriteRule ^/vh/docroot$ %{DOCUMENT_ROOT}/vh/new.html [L]
RewriteRule ^/vh/fsprefix$ /tmp/confmig-no-such-file.html [L]
RewriteRule ^/vh/fsdyn/(.*)$ /$1 [L]
""" + f"RewriteRule ^/vh/vars /t?{VARS} [R,L]\n"

# The main server (outside every <VirtualHost>).
MAIN_SERVER_RULES = "RewriteEngine On\nRewriteRule ^/mainrule$ /index.html [R=301,L]\n"

# main.test: relative path -> content (None: a directory; "->x": a symlink to x)
MAIN_TREE: dict[str, str | None] = {
    "index.html": "main/index.html",
    # server context targets
    "vh/new.html": "vh/new.html", "vh/q.html": "vh/q.html",
    "vh/skipped.html": "vh/skipped.html", "vh/chained.html": "vh/chained.html",
    "vh/item-42.html": "vh/item-42.html", "vh/mixed.html": "vh/mixed.html",
    "vh/endtarget/x.html": "vh/endtarget/x.html", "vh/endtarget/y.html": "endtarget/y.html",
    "vh/endtarget/.htaccess": "RewriteEngine On\nRewriteRule ^x\\.html$ y.html [L]\n",
    # per-dir prefix stripping, ^/ never matching
    "strip/.htaccess": "RewriteEngine On\n"
                       "RewriteRule ^/abs$ target.html [L]\n"
                       "RewriteRule ^rel$ target.html [L]\n"
                       "RewriteRule ^deep/(\\w+)$ $1.html [L]\n"
                       "RewriteRule ^strip/self$ target.html [L]\n",
    "strip/target.html": "strip/target.html", "strip/other.html": "strip/other.html",
    # RewriteBase
    "base/.htaccess": "RewriteEngine On\nRewriteBase /base/\n"
                      "RewriteRule ^go$ target.html [R=301,L]\n"
                      "RewriteRule ^int$ target.html [L]\n"
                      "RewriteRule ^abs$ /base/target.html [L]\n",
    "base/target.html": "base/target.html",
    "rebase/.htaccess": "RewriteEngine On\nRewriteBase /elsewhere/\nRewriteRule ^x$ y.html [L]\n",
    "elsewhere/y.html": "elsewhere/y.html",
    # relative substitution without RewriteBase
    "nobase/.htaccess": "RewriteEngine On\n"
                        "RewriteRule ^go$ target.html [R,L]\n"
                        "RewriteRule ^int$ target.html [L]\n",
    "nobase/target.html": "nobase/target.html",
    # internal-redirect rounds
    "loop/.htaccess": "RewriteEngine On\nRewriteRule ^(.+)$ x/$1 [L]\n",
    "loopguard/.htaccess": "RewriteEngine On\nRewriteCond %{REQUEST_URI} !^/loopguard/x/\n"
                           "RewriteRule ^(.+)$ x/$1 [L]\n",
    "loopguard/x/a.html": "loopguard/x/a.html",
    "ci/.htaccess": "RewriteEngine On\nRewriteRule ^(.*)$ index.php/$1 [L]\n",
    "ci/index.php": "ci/index.php",
    "cifix/.htaccess": "RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
                       "RewriteRule ^(.*)$ index.php?r=$1 [L,QSA]\n",
    "cifix/index.php": "cifix/index.php",
    "end/.htaccess": "RewriteEngine On\n"
                     "RewriteRule ^a$ b.html [END]\n"
                     "RewriteRule ^b\\.html$ c.html [L]\n"
                     "RewriteRule ^l$ b.html [L]\n",
    "end/b.html": "end/b.html", "end/c.html": "end/c.html",
    # -f -d -s -l
    "cond/.htaccess": "RewriteEngine On\n"
                      "RewriteCond %{REQUEST_FILENAME} -s\n"
                      "RewriteRule \\.txt$ nonempty.html [L]\n"
                      "RewriteCond %{REQUEST_FILENAME} -l\n"
                      "RewriteRule ^link islink.html [L]\n"
                      "RewriteCond %{REQUEST_FILENAME} !-f\n"
                      "RewriteCond %{REQUEST_FILENAME} !-d\n"
                      "RewriteRule ^ fallback.html [L]\n",
    "cond/index.html": "cond/index.html", "cond/real.html": "cond/real.html",
    "cond/fallback.html": "cond/fallback.html", "cond/nonempty.html": "cond/nonempty.html",
    "cond/islink.html": "cond/islink.html", "cond/full.txt": "cond/full.txt",
    "cond/empty.txt": "", "cond/link.html": "->real.html",
    "cond/sub/index.html": "cond/sub/index.html",
    # inheritance
    "parent/.htaccess": "RewriteEngine On\n"
                        "RewriteRule ^p\\.html$ parent-p.html [L]\n"
                        "RewriteRule (^|/)q$ parent-q.html [L]\n",
    "parent/parent-p.html": "parent/parent-p.html", "parent/parent-q.html": "parent/parent-q.html",
    "parent/none/.htaccess": "# nothing about rewriting here\nOptions FollowSymLinks\n",
    "parent/none/keep.html": "parent/none/keep.html",
    "parent/nohtaccess/keep.html": "parent/nohtaccess/keep.html",
    "parent/engineonly/.htaccess": "RewriteEngine On\n",
    "parent/rulesonly/.htaccess": "RewriteRule ^q$ child-q.html [L]\n",
    "parent/rulesonly/child-q.html": "parent/rulesonly/child-q.html",
    "parent/off/.htaccess": "RewriteEngine Off\nRewriteOptions Inherit\n",
    "parent/inherit/.htaccess": "RewriteEngine On\nRewriteOptions Inherit\n"
                                "RewriteRule ^q$ own-q.html [L]\n"
                                "RewriteRule ^own$ own.html [L]\n",
    "parent/inherit/own.html": "parent/inherit/own.html",
    "parent/inherit/own-q.html": "parent/inherit/own-q.html",
    "parent/inherit/parent-p.html": "parent/inherit/parent-p.html",
    "parent/inheritbefore/.htaccess": "RewriteEngine On\nRewriteOptions InheritBefore\n"
                                      "RewriteRule ^q$ own-q.html [L]\n",
    "parent/inheritbefore/own-q.html": "parent/inheritbefore/own-q.html",
    "parent/inheritbefore/parent-q.html": "parent/inheritbefore/parent-q.html",
    "parent2/.htaccess": "RewriteEngine On\nRewriteOptions Inherit\n"
                         "RewriteRule ^pp$ parent2-pp.html [L]\n",
    "parent2/kid/.htaccess": "RewriteRule ^k$ kid-k.html [L]\n",
    "parent2/kid/kid-k.html": "parent2/kid/kid-k.html",
    "parent2/kid/parent2-pp.html": "parent2/kid/parent2-pp.html",
    "down/.htaccess": "RewriteEngine On\nRewriteOptions InheritDown\n"
                      "RewriteRule (^|/)d$ down-d.html [L]\n",
    "down/kid/.htaccess": "RewriteRule ^k$ kid-k.html [L]\n",
    "down/kid/kid-k.html": "down/kid/kid-k.html", "down/kid/down-d.html": "down/kid/down-d.html",
    "down/kid2/.htaccess": "RewriteOptions IgnoreInherit\nRewriteRule ^k$ kid-k.html [L]\n",
    "down/kid2/down-d.html": "down/kid2/down-d.html",
    # HTTP_HOST
    "www/.htaccess": "RewriteEngine On\nRewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\n"
                     "RewriteRule ^(.*)$ http://%1/www/$1 [R=301,L]\n",
    "www/page.html": "www/page.html",
    # query strings, escaping
    "qs/.htaccess": "RewriteEngine On\nRewriteBase /qs/\n"
                    "RewriteRule ^qsa$ t.html?a=1 [QSA,R,L]\n"
                    "RewriteRule ^plain$ t.html?a=1 [R,L]\n"
                    "RewriteRule ^qsd$ t.html [QSD,R,L]\n"
                    "RewriteRule ^keep$ t.html [R,L]\n"
                    "RewriteRule ^drop$ t.html? [R,L]\n"
                    "RewriteRule ^qsaq$ t.html? [QSA,R,L]\n"
                    "RewriteCond %{QUERY_STRING} (?:^|&)id=(\\d+)\n"
                    "RewriteRule ^item$ item-%1.html? [R,L]\n"
                    "RewriteRule ^b/(.*)$ t.html?q=$1 [B,R,L]\n"
                    "RewriteRule ^nob/(.*)$ t.html?q=$1 [R,L]\n"
                    "RewriteRule ^ne/(.*)$ t.html#$1 [NE,R,L]\n"
                    "RewriteRule ^esc$ t.html#frag [R,L]\n"
                    "RewriteRule ^3f/(.*)$ t.html$1 [R,L]\n"
                    "RewriteRule ^3fok/(.*)$ t.html$1 [UnsafeAllow3F,R,L]\n"
                    "RewriteRule ^3fsafe/(.*)$ t.html?q=$1 [R,L]\n"
                    "RewriteRule ^int$ t.html?z=1 [QSA,L]\n",
    "qs/t.html": "qs/t.html",
    # S, C, NC, OR, F, G, R=4xx, %N of the last matched RewriteCond
    "flags/.htaccess": "RewriteEngine On\n"
                       "RewriteRule ^skip/ - [S=1]\n"
                       "RewriteRule ^skip/(.*)$ skipped.html [L]\n"
                       "RewriteRule ^skip/(.*)$ s-target.html [L]\n"
                       "RewriteRule ^chain/(a|b)$ - [C]\n"
                       "RewriteRule ^chain/(.*)$ chained.html [L]\n"
                       "RewriteRule ^chain/ notchained.html [L]\n"
                       "RewriteRule ^nc$ nc.html [NC,L]\n"
                       "RewriteCond %{HTTP_USER_AGENT} bot [NC,OR]\n"
                       "RewriteCond %{HTTP_REFERER} ^http://spam\n"
                       "RewriteRule ^or$ - [F]\n"
                       "RewriteRule ^gone$ - [G]\n"
                       "RewriteRule ^r410$ - [R=410]\n"
                       "RewriteCond %{HTTP:X-A} ^(a+)$\n"
                       "RewriteCond %{HTTP:X-B} ^(b+)$\n"
                       "RewriteRule ^lastcond$ pc-%1.html [L]\n"
                       "RewriteCond %{HTTP:X-A} ^(a+)$\n"
                       "RewriteCond %{HTTP:X-B} !^(c+)$\n"
                       "RewriteRule ^negcond$ pc-%1.html [L]\n"
                       "RewriteCond %{HTTP:X-A} ^(a+)$ [OR]\n"
                       "RewriteCond %{HTTP:X-B} ^(b+)$\n"
                       "RewriteRule ^orcond$ pc-%1.html [L]\n"
                       "RewriteCond %{HTTP:X-None} . [OR]\n"
                       "RewriteRule ^lastor$ nc.html [L]\n"
                       "RewriteCond %{HTTP:X-N} <10\n"
                       "RewriteRule ^lt$ nc.html [L]\n"
                       "RewriteCond %{HTTP:X-N} -eq10\n"
                       "RewriteRule ^eq$ nc.html [L]\n"
                       "RewriteCond %{HTTP:X-None} =\"\"\n"
                       "RewriteRule ^empty$ nc.html [L]\n"
                       "RewriteCond %{HTTP:X-S} =abc [NC]\n"
                       "RewriteRule ^eqnc$ nc.html [L]\n",
    "flags/skipped.html": "flags/skipped.html", "flags/s-target.html": "flags/s-target.html",
    "flags/chained.html": "flags/chained.html", "flags/notchained.html": "flags/notchained.html",
    "flags/nc.html": "flags/nc.html", "flags/pc-bbb.html": "flags/pc-bbb.html",
    "flags/pc-aa.html": "flags/pc-aa.html",
    # mod_dir and AllowNoSlash
    "noslash/.htaccess": "RewriteEngine On\nRewriteRule ^$ target.html [L]\n",
    "noslash/target.html": "noslash/target.html",
    # environment across rounds
    "env/.htaccess": "RewriteEngine On\n"
                     "RewriteRule ^set$ - [E=FOO:bar]\n"
                     "RewriteCond %{ENV:FOO} ^bar$\n"
                     "RewriteRule ^set$ ok.html [L]\n"
                     "RewriteRule ^r1$ r2 [E=X:1,L]\n"
                     "RewriteCond %{ENV:REDIRECT_X} ^1$\n"
                     "RewriteRule ^r2$ renv.html [L]\n"
                     "RewriteRule ^cookie$ ok.html [CO=c1:v1:main.test:0:/env:secure:httponly,R]\n",
    "env/ok.html": "env/ok.html", "env/renv.html": "env/renv.html",
    # server variables, as seen by a per-directory rule
    "vars/.htaccess": "RewriteEngine On\nRewriteRule ^x /t?VARS [R]\n".replace("VARS", VARS),
    "bad-option/.htaccess": "RewriteEngine On\nRewriteOptions LongURLOptimization\n",
    "env2/.htaccess": "RewriteEngine On\n"
                      "RewriteRule ^unset$ - [E=FOO:bar]\n"
                      "RewriteRule ^unset$ - [E=!FOO]\n"
                      "RewriteCond %{ENV:FOO} ^$\n"
                      "RewriteRule ^unset$ ok.html [L]\n"
                      "RewriteRule ^typed\\.html$ - [T=text/x-Custom]\n",
    "env2/ok.html": "env2/ok.html", "env2/typed.html": "env2/typed.html",
    # PATH_INFO is re-appended for every rule of a pass, unless [DPI]
    "dpi/.htaccess": "RewriteEngine On\nRewriteRule ^a\\.html/(.*)$ c.html\n"
                     "RewriteRule ^c\\.html/x$ d.html [L]\n",
    "dpi2/.htaccess": "RewriteEngine On\nRewriteRule ^a\\.html/(.*)$ c.html [DPI]\n"
                      "RewriteRule ^c\\.html/x$ d.html [L]\n",
    "dpi/a.html": "dpi/a.html", "dpi/c.html": "dpi/c.html", "dpi/d.html": "dpi/d.html",
    "dpi2/a.html": "dpi2/a.html", "dpi2/c.html": "dpi2/c.html", "dpi2/d.html": "dpi2/d.html",
    "allowns/sub/.htaccess": "RewriteEngine On\nRewriteOptions AllowNoSlash\n"
                             "RewriteRule /allowns/sub$ hit.html [L]\n",
    "allowns/sub/hit.html": "allowns/sub/hit.html",
    # more flags: R without L, "-" with R, N per directory
    "more/.htaccess": "RewriteEngine On\n"
                      "RewriteRule ^rnol$ rtarget.html [R]\n"
                      "RewriteRule rtarget\\.html$ other.html\n"
                      "RewriteRule ^dashr$ - [R=301]\n"
                      "RewriteRule ^n/([^-]*)-(.*)$ n/$1_$2 [N=10]\n"
                      "RewriteRule ^n/(.*)$ nn-$1 [L]\n"
                      "RewriteRule ^nd/([^-]*)-(.*)$ nd/$1_$2 [N,DPI]\n"
                      "RewriteRule ^nd/(.*)$ nn-$1 [L]\n"
                      "RewriteRule ^sp/(.*)$ other.html?q=$1 [L]\n"
                      "RewriteRule ^spb/(.*)$ other.html?q=$1 [B,L]\n"
                      "RewriteRule ^same\\.html$ same.html?changed=1 [L]\n"
                      "RewriteRule ^café$ other.html [L]\n"
                      "RewriteRule ^CAFÉ2$ other.html [NC,L]\n"
                      "RewriteRule ^(caf.)3$ other.html?x=$1 [B,R,L]\n"
                      "RewriteRule ^hex\\x{41}$ other.html [L]\n",
    "more/other.html": "more/other.html", "more/nn-a_b_c.html": "more/nn-a_b_c.html",
    "more/same.html": "more/same.html",
    # parse errors: Apache answers 500 for everything below a broken .htaccess
    "bad-empty/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html []\n",
    "bad-comma/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html [L,]\n",
    "bad-space/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html [ L , R ]\n",
    "bad-comment/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html # why\n",
    "bad-code/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html [R=399]\n",
    "bad-args/.htaccess": "RewriteEngine On\nRewriteRule ^x$\n",
    "bad-regex/.htaccess": "RewriteEngine On\nRewriteRule ^(x$ /index.html\n",
    "bad-base/.htaccess": "RewriteEngine On\nRewriteBase elsewhere\n",
    "bad-map/.htaccess": "RewriteEngine On\nRewriteMap m int:tolower\n",
    "bad-escape/.htaccess": "RewriteEngine On\nRewriteRule ^\\u0041$ /index.html\n",
    "ok-junk/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html [L] trailing junk\n",
    "ok-dx/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html [DX]\n",
    "ok-rfoo/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html [R=foo]\n",
    "ok-dangling/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /index.html\n"
                             "RewriteCond %{HTTP_HOST} .\n",
    "ok-dangling/y.html": "ok-dangling/y.html",
    "ok-quoted/.htaccess": "RewriteEngine On\nRewriteRule \"^x y$\" /index.html\n"
                           "RewriteRule ^x\\ z$ /index.html\n",
}

WP_TREE: dict[str, str | None] = {
    "index.php": "wp/index.php", "wp-login.php": "wp/wp-login.php",
    "wp-admin/index.php": "wp/wp-admin/index.php",
    "wp-content/uploads/a.png": "wp/wp-content/uploads/a.png",
    "noengine/.htaccess": "RewriteRule ^x$ y.html [L]\n", "noengine/y.html": "wp/noengine/y.html",
}
LARAVEL_TREE: dict[str, str | None] = {
    "index.php": "laravel/index.php", "robots.txt": "laravel/robots.txt",
    "css/app.css": "laravel/css/app.css",
}
SELF_TREE: dict[str, str | None] = {"target.html": "self/target.html"}
SELF_RULES = "RewriteEngine On\nRewriteOptions Inherit\n" \
             "RewriteRule ^/self$ http://self.test/target.html\n" \
             "RewriteRule ^/other$ http://self.test:8080/target.html\n"


@dataclass
class Vhost:
    name: str
    root_rel: str
    tree: dict[str, str | None]
    rules: str = ""
    aliases: tuple[str, ...] = ()
    port_in_name: int = 0
    index: tuple[str, ...] = ("index.html",)
    htaccess_from: Path | None = None
    docroot: Path = field(default_factory=Path)


VHOSTS = [
    Vhost("main.test", "main", MAIN_TREE, SERVER_RULES, aliases=("www.main.test",)),
    Vhost("wp.test", "wp", WP_TREE, index=("index.php", "index.html"),
          htaccess_from=WORDPRESS_HTACCESS),
    Vhost("laravel.test", "laravel/public", LARAVEL_TREE, index=("index.php", "index.html"),
          htaccess_from=LARAVEL_HTACCESS),
    Vhost("self.test", "self", SELF_TREE, SELF_RULES, port_in_name=80),
]


@dataclass(frozen=True)
class Case:
    target: str
    expect: int
    host: str = "main.test"
    headers: tuple[tuple[str, str], ...] = ()
    why: str = ""

    @property
    def id(self) -> str:
        extra = f"@{self.host}" if self.host != "main.test" else ""
        return f"{self.target}{extra}"[:60]


def case(target: str, expect: int, why: str = "", host: str = "main.test",
         **headers: str) -> Case:
    return Case(target, expect, host, tuple((k.replace("_", "-"), v) for k, v in headers.items()),
                why)


CASES = [
    # server (vhost) context
    case("/vh/old", 200, "server rewrite to a URL-path: DocumentRoot is prefixed"),
    case("/vh/perm/new.html", 301, "R=301"),
    case("/vh/p308", 308, "R=308"),
    case("/vh/seeother", 303, "R=seeother"),
    case("/vh/forbid", 403, "F"),
    case("/vh/gone", 410, "G"),
    case("/vh/r404", 404, "R=404 is a status, not a redirect"),
    case("/vh/www/new.html", 301, "HTTP_HOST condition, %1", host="www.main.test"),
    case("/vh/www/new.html", 404, "no www: the rule does not apply"),
    case("/vh/skip/x", 200, "S=1 skips the next rule"),
    case("/vh/chain/a", 200, "C: the chained rule runs"),
    case("/vh/chain/c", 404, "C: the chained rule is skipped"),
    case("/vh/NC/ABC", 200, "NC"),
    case("/vh/qsa?x=2", 302, "QSA"),
    case("/vh/qs?x=2", 302, "query from the substitution replaces the request's"),
    case("/vh/qsd?x=2", 302, "QSD"),
    case("/vh/drop?x=2", 302, "trailing ? drops the query"),
    case("/vh/item?foo=1&id=42", 200, "%1 from the condition"),
    case("/vh/or", 403, "OR: first condition", User_Agent="GoodBot/1.0"),
    case("/vh/or", 403, "OR: second condition", Referer="http://spam.example/"),
    case("/vh/or", 404, "OR: neither", User_Agent="Mozilla"),
    case("/vh/xtest", 404, "%{HTTP_X_TEST} is not a header lookup", X_Test="yes"),
    case("/vh/xtest2", 403, "%{HTTP:X-Test} is", X_Test="yes"),
    case("/vh/env", 302, "E= is visible to the next rule's conditions"),
    case("/vh/end", 200, "END: the .htaccess of the target does not run"),
    case("/vh/notend", 200, "L: the .htaccess of the target runs"),
    case("/vh/self", 302, "http://ServerName/ is not reduced without a port in ServerName"),
    case("/vh/unsafe/a%3Fb", 403, "a ? from a back-reference without UnsafeAllow3F"),
    case("/vh/unsafe/new.html", 200, "no ? in the back-reference"),
    case("/vh/b/a%20b&c", 302, "B escapes the back-reference"),
    case("/vh/ne/x", 302, "NE keeps #"),
    case("/vh/esc", 302, "# is escaped without NE"),
    case("/vh/n/", 200, "N loops until the pattern stops matching"),
    case("/vh/nlim/", 500, "N=5 exceeded"),
    case("/vh/pt", 200, "PT"),
    case("/vh/cookie", 302, "CO"),
    case("/vh/lower/MiXeD", 200, "int:tolower map"),
    case("/vh/rel", 200, "relative substitution in server context gets a leading /"),
    case("/vh/docroot", 200, "%{DOCUMENT_ROOT} result is used as a filesystem path"),
    case("/vh/fsprefix", 403, "first segment exists and is literal: a filesystem path "
                              "(outside every <Directory> that grants access)"),
    case("/vh/fsdyn/tmp/x.html", 404, "from a back-reference: DocumentRoot-prefixed"),
    case("/mainrule", 404, "the main server's rules do not reach a vhost with its own"),
    case("/mainrule", 200, "... nor a vhost without any Rewrite directive (WordPress's front "
                           "controller answers)", host="wp.test"),
    case("/mainrule", 301, "... unless it says RewriteOptions Inherit", host="self.test"),
    case("/noengine/x", 200, "RewriteEngine On of the main server reaches the .htaccess of a "
                             "vhost without Rewrite directives", host="wp.test"),
    case("/vh/vars/a%20b?q=1", 302, "server variables in server context",
         X_Forwarded_For="10.0.0.1", User_Agent="UA/1", Cookie="c=1", Accept="text/html"),
    case("/self", 200, "http://self.test/ is reduced when ServerName is self.test:80",
         host="self.test"),
    case("/other", 302, "a different port is not ourselves", host="self.test"),
    # per-directory prefix stripping
    case("/strip/abs", 404, "^/ never matches in per-dir context"),
    case("/strip/rel", 200, "relative substitution: directory prefix re-added"),
    case("/strip/deep/other", 200, "capture from the stripped path"),
    case("/strip/strip/self", 200, "only the directory prefix is stripped"),
    case("/strip/self", 404, ""),
    case("/base/go", 301, "RewriteBase in a redirect"),
    case("/base/int", 200, "RewriteBase in an internal redirect"),
    case("/base/abs", 200, "absolute substitution in per-dir context"),
    case("/rebase/x", 200, "RewriteBase pointing elsewhere"),
    case("/nobase/go", 302, "no RewriteBase: the filesystem path leaks into the redirect"),
    case("/nobase/int", 200, "no RewriteBase: DocumentRoot stripped"),
    # rounds
    case("/loop/a", 500, "no guard: LimitInternalRecursion"),
    case("/loopguard/a.html", 200, "guarded by REQUEST_URI"),
    case("/ci/foo", 500, "index.php/$1 without a -f guard loops"),
    case("/cifix/foo?y=2", 200, "the -f guard stops it"),
    case("/end/a", 200, "END stops the next round"),
    case("/end/l", 200, "L does not"),
    case("/end/b.html", 200, ""),
    # file tests
    case("/cond/real.html", 200, "-f"),
    case("/cond/missing", 200, "!-f !-d fallback"),
    case("/cond/missing/deeper/path", 200, "path info"),
    case("/cond/sub/", 200, "-d"),
    case("/cond/sub", 301, "a directory without slash: mod_dir"),
    case("/cond/", 200, "the directory itself"),
    case("/cond/full.txt", 200, "-s"),
    case("/cond/empty.txt", 200, "-s on an empty file"),
    case("/cond/link.html", 200, "-l"),
    # inheritance
    case("/parent/q", 200, "the parent's own rules"),
    case("/parent/none/q", 200, ".htaccess without rewrite directives: parent's rules apply"),
    case("/parent/none/p.html", 404, "... relative to the parent's directory"),
    case("/parent/none/keep.html", 200, ""),
    case("/parent/nohtaccess/q", 200, "no .htaccess: parent's rules"),
    case("/parent/engineonly/q", 404, "RewriteEngine On alone disables the parent's rules"),
    case("/parent/rulesonly/q", 200, "rules without RewriteEngine: state inherited"),
    case("/parent/off/q", 404, "RewriteEngine Off"),
    case("/parent/inherit/own", 200, "Inherit: own rules"),
    case("/parent/inherit/q", 200, "Inherit: child's rules first"),
    case("/parent/inherit/p.html", 200, "Inherit: parent's rules with the child's prefix"),
    case("/parent/inheritbefore/q", 200, "InheritBefore: parent's rules first"),
    case("/parent2/kid/pp", 200, "options are inherited too: the kid inherits Inherit"),
    case("/parent2/kid/k", 200, ""),
    case("/down/kid/d", 200, "InheritDown"),
    case("/down/kid2/d", 404, "IgnoreInherit"),
    # HTTP_HOST
    case("/www/page?x=1", 301, "www redirect", host="www.main.test"),
    case("/www/page", 301, "HTTP_HOST is the raw header", host="WWW.Main.test"),
    case("/www/page.html", 200, "no www"),
    # query strings
    case("/qs/qsa?x=2", 302, "QSA"),
    case("/qs/plain?x=2", 302, ""),
    case("/qs/qsd?x=2", 302, "QSD"),
    case("/qs/keep?x=2", 302, "the query is kept"),
    case("/qs/drop?x=2", 302, "trailing ?"),
    case("/qs/qsaq?x=2", 302, "trailing ? with QSA"),
    case("/qs/item?foo=1&id=42", 302, "%1"),
    case("/qs/b/a%20b&c", 302, "B"),
    case("/qs/nob/a%20b", 302, "no B"),
    case("/qs/ne/x", 302, "NE"),
    case("/qs/esc", 302, "# escaped"),
    case("/qs/3f/%3Fq=1", 403, "the first ? comes from a back-reference"),
    case("/qs/3fok/%3Fq=1", 302, "UnsafeAllow3F"),
    case("/qs/3fsafe/a%3Fb", 302, "the first ? is literal: safe"),
    case("/qs/int?x=1", 200, "QSA on an internal redirect"),
    # flags
    case("/flags/skip/x", 200, "S=1"),
    case("/flags/chain/a", 200, "C"),
    case("/flags/chain/c", 200, "C skipped"),
    case("/flags/NC", 200, "NC"),
    case("/flags/or", 403, "OR", User_Agent="crawler-BOT"),
    case("/flags/or", 404, "OR none"),
    case("/flags/gone", 410, "G"),
    case("/flags/r410", 410, "R=410"),
    case("/flags/lastcond", 200, "%1 from the last matched condition", X_A="aa", X_B="bbb"),
    case("/flags/negcond", 200, "a negated condition does not set %N", X_A="aa", X_B="bbb"),
    case("/flags/orcond", 200, "OR: the matched condition's %1", X_A="aa", X_B="bbb"),
    case("/flags/lastor", 200, "[OR] on the last condition: the rule applies anyway"),
    case("/flags/lt", 200, "'<' compares lengths first: 9 < 10", X_N="9"),
    case("/flags/lt", 404, "... and bytes for equal lengths", X_N="11"),
    case("/flags/eq", 200, "-eq is atoi()", X_N="010"),
    case("/flags/empty", 200, '="" is the empty string'),
    case("/flags/eqnc", 200, "= with NC", X_S="ABC"),
    # mod_dir interplay
    case("/noslash", 301, "directory without slash: rules declined, mod_dir redirects"),
    case("/noslash/", 200, "empty per-dir subject"),
    # environment
    case("/env/set", 200, "E= within one pass"),
    case("/env/r1", 200, "E= becomes REDIRECT_X after the internal redirect"),
    case("/env/cookie", 302, "CO with secure and httponly"),
    case("/env2/unset", 200, "E=!VAR unsets"),
    case("/env2/typed.html", 200, "T= (lower-cased)"),
    # path info
    case("/dpi/a.html/x", 200, "PATH_INFO is re-appended for the next rule"),
    case("/dpi2/a.html/x", 200, "DPI discards it"),
    case("/allowns/sub", 301, "AllowNoSlash: the rules run on the unstripped path, but "
                              "mod_dir's slash redirect still wins"),
    case("/more/rnol", 302, "R without L, then a local rewrite: the file is served with the "
                            "status R left (and no Location)"),
    case("/more/dashr", 404, "'-' with R: nothing happens"),
    case("/more/n/a-b-c", 500, "N per directory: PATH_INFO re-appended every round, N=10 hit"),
    case("/more/nd/a-b-c.html", 200, "N with DPI"),
    case("/more/sp/a%20b", 403, "a space in the rewritten query string"),
    case("/more/spb/a%20b", 200, "B escapes it"),
    case("/more/same.html", 200, "rewritten to itself: served without a redirect"),
    case("/more/caf%C3%A9", 200, "UTF-8 in pattern and path"),
    case("/more/hexA", 200, "\\x{41} is an escape for httpd's PCRE2"),
    case("/more/caf%C3%A92", 404, "NC folds ASCII only: PCRE runs without UTF"),
    case("/more/caf%C3%A93", 404, "'.' is one byte, not one character"),
    case("/more/caf%E93", 302, "... so a lone (non-UTF-8) byte matches it; B escapes it"),
    case("/bad-empty/x", 500, "[] is an unknown flag ''"),
    case("/bad-comma/x", 500, "[L,] too"),
    case("/bad-space/x", 500, "the flags end at the first space: bad flag delimiters"),
    case("/bad-comment/x", 500, "a trailing comment is taken as the flags"),
    case("/bad-code/x", 500, "R=399 is not a status httpd knows"),
    case("/bad-args/x", 500, "a RewriteRule needs two arguments"),
    case("/bad-regex/x", 500, "the pattern does not compile"),
    case("/bad-regex/deeper/y", 500, "every request below fails"),
    case("/bad-base/x", 500, "RewriteBase must be a URL-path"),
    case("/bad-map/x", 500, "RewriteMap is not allowed in .htaccess"),
    case("/bad-escape/A", 500, "PCRE2 refuses \\u"),
    case("/ok-junk/x", 200, "anything after the flags is ignored"),
    case("/ok-dx/x", 200, "a D-flag other than D/DPI/discardpath is accepted, does nothing"),
    case("/ok-rfoo/x", 302, "R=foo redirects with 302"),
    case("/ok-dangling/y.html", 200, "a RewriteCond without a rule is ignored"),
    case("/ok-quoted/x%20y", 200, "a quoted pattern with a space"),
    case("/ok-quoted/x%20z", 200, "a backslash-escaped space"),
    case("/vars/x/extra/path?a=1&b", 302, "server variables in per-dir context",
         host="Main.Test:8080", X_Forwarded_For="10.0.0.1", User_Agent="UA/1"),
    case("/vars/x", 302, "", host="www.main.test"),
    case("/bad-option/x", 500, "LongURLOptimization is not a 2.4 option"),
    # WordPress
    case("/", 200, "", host="wp.test"),
    case("/hello-world/", 200, "front controller", host="wp.test"),
    case("/2024/01/post?replytocom=5", 200, "", host="wp.test"),
    case("/index.php", 200, "", host="wp.test"),
    case("/wp-login.php", 200, "existing file", host="wp.test"),
    case("/wp-admin/", 200, "existing directory", host="wp.test"),
    case("/wp-admin", 301, "directory without slash", host="wp.test"),
    case("/wp-content/uploads/a.png", 200, "", host="wp.test"),
    case("/wp-content/uploads/missing.png", 200, "missing upload goes to index.php",
         host="wp.test"),
    case("/feed", 200, "", host="wp.test", Authorization="Basic Zm9vOmJhcg=="),
    # Laravel
    case("/", 200, "", host="laravel.test"),
    case("/users/5", 200, "front controller", host="laravel.test"),
    case("/users/5/", 301, "trailing slash redirect", host="laravel.test"),
    case("/users/5/?page=2", 301, "trailing slash redirect keeps the query",
         host="laravel.test"),
    case("/css/app.css", 200, "", host="laravel.test"),
    case("/css/", 404, "existing directory without index", host="laravel.test"),
    case("/robots.txt", 200, "", host="laravel.test"),
    case("/index.php/foo", 404, "path info on a static file", host="laravel.test",
         X_XSRF_TOKEN="t"),
]


# ------------------------------------------------------------------------ the server --

@dataclass
class Site:
    root: Path
    port: int
    model: ModelSite  # the model's site, built from the configuration Apache runs


def _write_tree(base: Path, tree: dict[str, str | None]) -> None:
    for rel, content in tree.items():
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.mkdir(exist_ok=True)
        elif content.startswith("->"):
            path.symlink_to(content[2:])
        else:
            path.write_text(content)


def _site_config(root: Path) -> str:
    """Everything but the server-wide basics ApacheServer writes (Listen, logs, pid, User)."""
    lines = [MAIN_SERVER_RULES, f"DocumentRoot {root}/sites/main",
             f"<Directory {root}/sites>\n  AllowOverride All\n  Options FollowSymLinks\n"
             "  Require all granted\n</Directory>"]
    for vh in VHOSTS:
        name = f"{vh.name}:{vh.port_in_name}" if vh.port_in_name else vh.name
        body = [f"ServerName {name}", *(f"ServerAlias {a}" for a in vh.aliases),
                f"DocumentRoot {vh.docroot}", f"DirectoryIndex {' '.join(vh.index)}",
                vh.rules]
        lines.append("<VirtualHost *:${CONFMIG_PORT}>\n" + "\n".join(body) + "\n</VirtualHost>")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    root = make_docroot(prefix="confmig-rewrite-")
    try:
        for vh in VHOSTS:
            vh.docroot = root / "sites" / vh.root_rel
            vh.docroot.mkdir(parents=True, exist_ok=True)
            _write_tree(vh.docroot, vh.tree)
            if vh.htaccess_from is not None and vh.htaccess_from.is_file():
                (vh.docroot / ".htaccess").write_text(vh.htaccess_from.read_text())
            own = RewriteConfig.from_directives(_top_level(vh.rules), "server")
            assert not own.problems, own.problems
        for path in [root, *root.rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() else 0o644)
        server = ApacheServer(None, server_config=_site_config(root), binary=APACHE,
                              modules=["mpm_event", "authz_core", "dir", "rewrite", "alias"])
        with server:
            # the modules Apache loads: the compiled-in ones and the LoadModule lines
            loaded = load_config(server.conf_path,
                                 state=ReadState(modules=ModuleSet.compiled_in()))
            assert loaded.ok, loaded.errors
            yield Site(root, server.port, build_site(loaded))
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ------------------------------------------------------------------------- the model --

def _top_level(text: str) -> list[Directive]:
    config = parse_text(text, "vhost.conf")
    return [n for n in config.nodes if isinstance(n, Directive)]


def model(site: Site, c: Case) -> tuple[int, str | None, str | None, str | None, Answer]:
    """(status, Location, body of a 200, the Set-Cookie lines, the answer) as the model's
    evaluate says."""
    headers = RequestHeaders([("Host", c.host), *c.headers])
    answer = evaluate(site.model, Request(c.target, "GET", headers, site.port))
    body = None
    if answer.status == 200 and answer.filename is not None and not answer.listing:
        body = Path(answer.filename).read_text()
    return answer.status, answer.location, body, answer.headers.get("Set-Cookie"), answer


def _vhost(host: str) -> Vhost:
    name = host.lower().split(":")[0]
    for vh in VHOSTS:
        if name == vh.name or name in vh.aliases:
            return vh
    return VHOSTS[0]


def _trace(answer: Answer) -> str:
    return "\n".join(f"{s.phase}: {s.message}" for s in answer.steps)


def apache(site: Site, c: Case) -> tuple[int, str | None, str | None, list[str], str | None]:
    conn = http.client.HTTPConnection("127.0.0.1", site.port, timeout=10)
    try:
        conn.putrequest("GET", c.target, skip_host=True, skip_accept_encoding=True)
        conn.putheader("Host", c.host)
        for k, v in c.headers:
            conn.putheader(k, v)
        conn.endheaders()
        resp = conn.getresponse()
        body = resp.read().decode("utf-8", "replace")
        cookies = resp.headers.get_all("Set-Cookie") or []
        return (resp.status, resp.getheader("Location"), body if resp.status == 200 else None,
                cookies, resp.getheader("Content-Type"))
    finally:
        conn.close()


# ------------------------------------------------------------------------- the tests --

@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_model_matches_apache(site: Site, c: Case) -> None:
    vh = _vhost(c.host)
    if vh.htaccess_from is not None and not vh.htaccess_from.is_file():
        pytest.skip(f"{vh.htaccess_from} is not present")
    got = apache(site, c)
    status, location, body, cookies, answer = model(site, c)
    trace = _trace(answer)
    assert got[0] == c.expect, f"Apache answered {got[0]}, the case expects {c.expect}\n{trace}"
    assert (status, location, body) == got[:3], trace
    # the model joins several Set-Cookie lines with ", " in one value
    assert cookies == (", ".join(got[3]) or None), trace
    if status == 200:  # no mod_mime here: a type only from [T=], none from the name
        assert got[4] == answer.headers.get("Content-Type"), trace
    assert answer.unsupported == [], answer.unsupported


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 60
