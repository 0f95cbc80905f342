"""Sites built around the real-world access files of ``../shared/corpus`` (read from there at
test time, never copied), with the files their rules expect and realistic URLs."""

from __future__ import annotations

from pathlib import Path

from tests.corpus import CORPUS
from tests.differential.harness import Case, SiteSpec

AUTH = {"Authorization": "Bearer abc123"}
SEC = ("X-Content-Type-Options", "Content-Type", "Cache-Control")


def corpus(rel: str) -> str:
    return (CORPUS / rel).read_text(encoding="utf-8")


def wordpress() -> SiteSpec:
    return SiteSpec(
        "wordpress",
        {
            ".htaccess": corpus("wordpress/generated/.htaccess"),
            "index.php": None, "wp-login.php": None, "readme.html": None,
            "wp-admin/index.php": None, "wp-admin/css/admin.css": None,
            "wp-content/themes/twentyx/style.css": None,
            "wp-content/uploads/2024/01/photo.jpg": None,
            "wp-includes/js/jquery.js": None,
        },
        [
            Case("/", "DirectoryIndex index.php"),
            Case("/hello-world/", "pretty permalink → index.php"),
            Case("/2024/01/15/post-name/", "dated permalink"),
            Case("/category/news/?paged=2", "query kept"),
            Case("/wp-admin", "existing directory: DirectorySlash 301"),
            Case("/wp-admin/", "wp-admin/index.php"),
            Case("/wp-login.php?redirect_to=%2Fwp-admin%2F", "existing PHP file"),
            Case("/wp-content/themes/twentyx/style.css", "static file"),
            Case("/wp-content/uploads/2024/01/photo.jpg", "upload"),
            Case("/wp-content/uploads/2024/01/missing.jpg", "missing upload → index.php"),
            Case("/?p=123", "query on the front page"),
            Case("/feed/", "feed"),
            Case("/wp-content/", "directory without index: listing"),
            Case("/index.php", "^index\\.php$ - [L]"),
            Case("/xmlrpc.php", "missing PHP file → index.php"),
            Case("/.htaccess", "denied by the server"),
            Case("/wp-json/wp/v2/posts", "REST API with Authorization", headers=AUTH),
        ],
        vhost_extra="DirectoryIndex index.php index.html\n",
    )


def wordpress_multisite() -> SiteSpec:
    return SiteSpec(
        "wp-multisite",
        {
            ".htaccess": corpus("wordpress/generated/multisite-subdirectory.htaccess"),
            "index.php": None, "wp-login.php": None, "wp-admin/index.php": None,
            "wp-content/themes/t/style.css": None, "wp-includes/js/a.js": None,
        },
        [
            Case("/", "front page"),
            Case("/blog2/wp-admin", "subsite wp-admin without slash → 301"),
            Case("/blog2/wp-admin/", "subsite admin → wp-admin/"),
            Case("/blog2/wp-content/themes/t/style.css", "subsite asset path"),
            Case("/blog2/wp-includes/js/a.js", "subsite include path"),
            Case("/blog2/wp-login.php", "subsite login"),
            Case("/blog2/some-post/", "subsite permalink → index.php"),
        ],
        vhost_extra="DirectoryIndex index.php index.html\n",
    )


def laravel() -> SiteSpec:
    return SiteSpec(
        "laravel",
        {
            ".htaccess": corpus("laravel/public/.htaccess"),
            "index.php": None, "robots.txt": None, "favicon.ico": None,
            "css/app.css": None, "js/app.js": None,
        },
        [
            Case("/", "front controller via DirectoryIndex"),
            Case("/users/1", "route → index.php"),
            Case("/users/", "trailing slash redirect"),
            Case("/users/?sort=name", "trailing slash redirect keeps the query"),
            Case("/css/app.css", "asset"),
            Case("/css/", "existing directory: -Indexes → 403"),
            Case("/css", "directory without slash"),
            Case("/index.php", "front controller itself"),
            Case("/api/v1/items?page=2", "API with Authorization", headers=AUTH),
            Case("/robots.txt", "static"),
            Case("/missing.png", "missing asset → index.php"),
        ],
        vhost_extra="DirectoryIndex index.php index.html\n",
    )


def symfony() -> SiteSpec:
    return SiteSpec(
        "symfony",
        {
            ".htaccess": corpus("symfony/symfony/apache-pack/1.0/public/.htaccess"),
            "index.php": None, "build/app.js": None, "bundles/x/y.css": None,
        },
        [
            Case("/", "DirectoryIndex index.php"),
            Case("/blog/post-1", "route → index.php"),
            Case("/index.php", "R=308 to / (REDIRECT_STATUS empty)"),
            Case("/index.php/foo/bar", "R=308 without the front controller"),
            Case("/build/app.js", "asset"),
            Case("/blog/", "trailing slash route"),
            Case("/bundles/x/y.css", "bundle asset"),
            Case("/build/", "directory: not -f → index.php"),
        ],
    )


def codeigniter() -> SiteSpec:
    return SiteSpec(
        "codeigniter",
        {
            ".htaccess": corpus("codeigniter4/public/.htaccess"),
            "index.php": None, "robots.txt": None, "favicon.ico": None,
            "assets/css/app.css": None,
        },
        [
            Case("/", "DirectoryIndex index.php"),
            Case("/news/1", "route → index.php/news/1 (PATH_INFO on a file: 404)"),
            Case("/news/", "trailing slash → 301"),
            Case("/assets/css/app.css", "asset"),
            Case("/assets/", "Options -Indexes"),
            Case("/index.php/news", "index.php with PATH_INFO"),
            Case("/", "www host → 301 without www", headers={"Host": "www.codeigniter.test"}),
            Case("/robots.txt", "static"),
        ],
        vhost_extra="ServerAlias www.codeigniter.test\nDirectoryIndex index.php index.html\n",
    )


def codeigniter_root() -> SiteSpec:
    """A CodeIgniter project whose root (not public/) is served: app/ and writable/ deny."""
    return SiteSpec(
        "ci-root",
        {
            "app/.htaccess": corpus("codeigniter4/app/.htaccess"),
            "app/Config/App.php": None,
            "writable/.htaccess": corpus("codeigniter4/writable/.htaccess"),
            "writable/logs/log-2024.log": None,
            "public/index.php": None,
        },
        [
            Case("/app/Config/App.php", "Require all denied"),
            Case("/writable/logs/log-2024.log", "Require all denied"),
            Case("/app/", "denied directory"),
            Case("/public/index.php", "public is served"),
        ],
    )


def drupal() -> SiteSpec:
    return SiteSpec(
        "drupal",
        {
            ".htaccess": corpus("drupal/assets/scaffold/files/htaccess"),
            "index.php": None, "robots.txt": None, "composer.json": None, "web.config": None,
            "core/misc/drupal.js": None, "core/install.php": None,
            "core/modules/system/system.module": None,
            "sites/default/settings.php": None, "sites/default/files/logo.png": None,
            "sites/default/files/css/css_abc123.css": None,
            "sites/default/files/css/css_abc123.css.gz": None,
            "modules/custom/mymod/mymod.info.yml": None,
        },
        [
            Case("/", "DirectoryIndex index.php", compare_headers=SEC),
            Case("/node/1", "clean URL → index.php", compare_headers=SEC),
            Case("/user/login?destination=/node/1", "query kept"),
            Case("/core/misc/drupal.js", "asset with Expires", compare_headers=SEC),
            Case("/composer.json", "FilesMatch denies", compare_headers=SEC),
            Case("/web.config", "FilesMatch denies"),
            Case("/sites/default/settings.php", "PHP below a directory: [F]"),
            Case("/install.php", "redirect to core/install.php"),
            Case("/core/install.php", "rewrite=ok"),
            Case("/core/modules/system/system.module", "FilesMatch denies .module"),
            Case("/modules/custom/mymod/mymod.info.yml", "FilesMatch denies .yml"),
            Case("/.git/config", "dot path: [F]"),
            Case("/favicon.ico", "favicon is not rewritten"),
            Case("/sites/default/files/", "Options -Indexes"),
            Case("/sites/default/files/logo.png", "file", compare_headers=SEC),
            Case("/sites/default/files/css/css_abc123.css", "gzip precompressed",
                 headers={"Accept-Encoding": "gzip"},
                 compare_headers=(*SEC, "Content-Encoding")),
            Case("/robots.txt", "static", compare_headers=SEC),
        ],
    )


def h5bp() -> SiteSpec:
    hdrs = (*SEC, "Access-Control-Allow-Origin", "X-Powered-By", "ETag")
    return SiteSpec(
        "h5bp",
        {
            ".htaccess": corpus("h5bp-server-configs-apache/dist/.htaccess"),
            "index.html": None, "404.html": None, "css/style.css": None, "js/app.js": None,
            "img/logo.png": None, "fonts/a.woff2": None, "site.webmanifest": None,
            "data.json": None, "backup.sql": None, "feed.rss": None, "notes.md": None,
            ".well-known/security.txt": None, ".git/config": None, "favicon.ico": None,
        },
        [
            Case("/", "index.html", compare_headers=hdrs),
            Case("/css/style.css", "utf-8 charset, one year", compare_headers=hdrs),
            Case("/js/app.js", "text/javascript; charset=utf-8", compare_headers=hdrs),
            Case("/img/logo.png", "no CORS without Origin", compare_headers=hdrs),
            Case("/img/logo.png", "CORS with Origin", headers={"Origin": "https://a.example"},
                 compare_headers=hdrs),
            Case("/fonts/a.woff2", "font CORS", compare_headers=hdrs),
            Case("/data.json", "json: max-age=0", compare_headers=hdrs),
            Case("/site.webmanifest", "manifest: one week", compare_headers=hdrs),
            Case("/feed.rss", "rss: one hour", compare_headers=hdrs),
            Case("/notes.md", "markdown", compare_headers=hdrs),
            Case("/favicon.ico", "icon: one week", compare_headers=hdrs),
            Case("/backup.sql", "FilesMatch denies", compare_headers=hdrs),
            Case("/.git/config", "hidden path: [F]", compare_headers=hdrs),
            Case("/.well-known/security.txt", ".well-known allowed", compare_headers=hdrs),
            Case("/css/", "Options -Indexes", compare_headers=hdrs),
            Case("/missing", "404", compare_headers=hdrs),
            Case("/", "www → non-www", headers={"Host": "www.h5bp.test"}),
        ],
        vhost_extra="ServerAlias www.h5bp.test\n",
    )


def yii2() -> SiteSpec:
    return SiteSpec(
        "yii2",
        {
            ".htaccess": corpus("yii2-app-basic/web/.htaccess"),
            "index.php": None, "css/site.css": None, "assets/abc/jquery.js": None,
        },
        [
            Case("/", "directory: DirectoryIndex index.php"),
            Case("/site/about", "route"),
            Case("/index.php?r=site/about", "query route"),
            Case("/css/site.css", "asset"),
            Case("/assets/", "directory listing"),
            Case("/site/contact?x=1", "query"),
        ],
        vhost_extra="DirectoryIndex index.php\n",
    )


def cakephp() -> SiteSpec:
    return SiteSpec(
        "cakephp",
        {
            ".htaccess": corpus("cakephp/.htaccess"),
            "webroot/.htaccess": corpus("cakephp/webroot/.htaccess"),
            "webroot/index.php": None, "webroot/css/cake.css": None,
            "webroot/img/cake.png": None, ".well-known/acme": None,
            "config/app.php": None,
        },
        [
            Case("/", "root → webroot/ → index.php"),
            Case("/articles/view/1", "route through two .htaccess files"),
            Case("/css/cake.css", "asset under webroot"),
            Case("/img/cake.png", "asset under webroot"),
            Case("/.well-known/acme", "not rewritten"),
            Case("/config/app.php", "everything goes to webroot"),
        ],
        vhost_extra="DirectoryIndex index.php\n",
    )


def kirby() -> SiteSpec:
    ct = ("Content-Type", "X-Content-Type-Options")
    return SiteSpec(
        "kirby",
        {
            ".htaccess": corpus("kirby/.htaccess"),
            "index.php": None, "content/1_home/home.txt": None,
            "site/config/config.php": None, "kirby/bootstrap.php": None,
            "assets/css/index.css": None, "assets/LICENSE": None, "media/x.jpg": None,
            ".env": None,
        },
        [
            Case("/", "front page", compare_headers=ct),
            Case("/notes/a-note", "route", compare_headers=ct),
            Case("/content/1_home/home.txt", "content folder → index.php", compare_headers=ct),
            Case("/site/config/config.php", "site folder → index.php"),
            Case("/kirby/bootstrap.php", "kirby folder → index.php"),
            Case("/.env", "dot file → index.php"),
            Case("/assets/css/index.css", "asset", compare_headers=ct),
            Case("/assets/LICENSE", "no type: Header sets text/plain", compare_headers=ct),
            Case("/media/x.jpg", "media", compare_headers=ct),
        ],
        vhost_extra="DirectoryIndex index.php\n",
    )


def grav() -> SiteSpec:
    return SiteSpec(
        "grav",
        {
            ".htaccess": corpus("grav/.htaccess"),
            "user/accounts/.htaccess": corpus("grav/user/accounts/.htaccess"),
            "user/config/.htaccess": corpus("grav/user/config/.htaccess"),
            "index.php": None, "LICENSE.txt": None, "composer.json": None,
            "user/accounts/admin.yaml": None, "user/accounts/admin/avatar.png": None,
            "user/config/system.yaml": None, "user/pages/01.home/default.md": None,
            "user/themes/q/css/q.css": None,
            "system/config/system.yaml": None, "cache/compiled.php": None,
            "assets/app.css": None,
        },
        [
            Case("/", "front page"),
            Case("/blog/post", "route → index.php"),
            Case("/user/accounts/admin.yaml", "accounts: [F]"),
            Case("/user/accounts/admin/avatar.png", "avatar image allowed by the rules"),
            Case("/user/config/system.yaml", "config: [F]"),
            Case("/user/pages/01.home/default.md", ".md: [F]"),
            Case("/user/themes/q/css/q.css", "theme asset"),
            Case("/system/config/system.yaml", "system yaml: [F]"),
            Case("/cache/compiled.php", "cache: [F]"),
            Case("/LICENSE.txt", "LICENSE.txt: [F]"),
            Case("/composer.json", "composer.json: [F]"),
            Case("/assets/app.css", "asset"),
            Case("/?q={{7*7}}", "template injection in the query: [F]"),
            Case("/assets/", "Options -Indexes"),
        ],
    )


def craft() -> SiteSpec:
    return SiteSpec(
        "craft",
        {
            ".htaccess": corpus("craftcms/web/.htaccess"),
            "index.php": None, "cpresources/x/app.css": None,
        },
        [
            Case("/", "directory: not rewritten (.+)"),
            Case("/news/first", "route"),
            Case("/favicon.ico", "excluded: 404"),
            Case("/apple-touch-icon-120x120.png", "excluded: 404"),
            Case("/cpresources/x/app.css", "asset"),
        ],
        vhost_extra="DirectoryIndex index.php\n",
    )


def opencart() -> SiteSpec:
    return SiteSpec(
        "opencart",
        {
            ".htaccess": corpus("opencart/upload/.htaccess.txt"),
            "index.php": None, "robots.txt": None, "readme.txt": None,
            "system/config.php": None, "image/cache/x.jpg": None,
            "catalog/view/javascript/common.js": None,
        },
        [
            Case("/", "directory"),
            Case("/en-gb/product/abc", "SEO URL"),
            Case("/system/config.php", "system → error route"),
            Case("/readme.txt", "FilesMatch denies .txt"),
            Case("/robots.txt", "robots.txt allowed by the lookbehind"),
            Case("/image/cache/x.jpg", "image"),
            Case("/catalog/", "Options -Indexes"),
            Case("/catalog/view/javascript/common.js", "asset"),
        ],
        vhost_extra="DirectoryIndex index.php\n",
    )


def owncloud() -> SiteSpec:
    cc = ("Cache-Control", "X-Content-Type-Options", "X-Frame-Options", "Content-Type")
    return SiteSpec(
        "owncloud",
        {
            ".htaccess": corpus("owncloud/.htaccess"),
            "config/.htaccess": corpus("owncloud/config/.htaccess"),
            "index.php": None, "remote.php": None, "public.php": None, "status.php": None,
            "core/css/styles.css": None, "core/signature.json": None,
            "config/config.php": None, "occ": None, "core/img/logo.svg": None,
        },
        [
            Case("/", "index.php", compare_headers=cc),
            Case("/status.php", "status", compare_headers=cc),
            Case("/remote/webdav", "remote.php"),
            Case("/.well-known/carddav", "301 to /remote.php/dav/"),
            Case("/.well-known/host-meta", "public.php?service=host-meta"),
            Case("/config/config.php", "R=404"),
            Case("/core/signature.json", "R=404"),
            Case("/core/css/styles.css", "Cache-Control always set", compare_headers=cc),
            Case("/core/img/logo.svg", "svg type", compare_headers=cc),
            Case("/occ", "R=404"),
            Case("/core/", "Options -Indexes"),
        ],
    )


def phpbb() -> SiteSpec:
    return SiteSpec(
        "phpbb",
        {
            ".htaccess": corpus("phpbb/phpBB/.htaccess"),
            "cache/.htaccess": corpus("phpbb/phpBB/cache/.htaccess"),
            "index.php": None, "config.php": None, "common.php": None,
            "viewtopic.php": None, "cache/data_global.php": None,
            "styles/prosilver/theme/stylesheet.css": None,
        },
        [
            Case("/", "index.php"),
            Case("/config.php", "<Files> denies (IfVersion >= 2.4)"),
            Case("/common.php", "<Files> denies"),
            Case("/viewtopic.php?t=1", "existing file"),
            Case("/cache/data_global.php", "cache/.htaccess denies"),
            Case("/app.php/help/faq", "missing → index.php"),
            Case("/styles/prosilver/theme/stylesheet.css", "asset"),
        ],
        vhost_extra="DirectoryIndex index.php\n",
    )


SITES = [wordpress, wordpress_multisite, laravel, symfony, codeigniter, codeigniter_root, drupal,
         h5bp, yii2, cakephp, kirby, grav, craft, opencart, owncloud, phpbb]


def available() -> bool:
    return Path(CORPUS).is_dir()
