"""Build docroots for the verify tests: the shared corpus's .htaccess files with the files
their rules expect, nested rewrite trees, and a deep generated tree."""

from __future__ import annotations

import os
import re
from pathlib import Path

from confmig.servers import make_docroot
from tests.corpus import CORPUS

# The files a typical site has, so that -f/-d conditions, FilesMatch and Expires rules meet
# something real in every directory.
COMMON_FILES = {
    "index.html": "<h1>index</h1>\n",
    "index.php": "<?php echo 'front controller';\n",
    "robots.txt": "User-agent: *\n",
    "favicon.ico": b"\x00\x00\x01\x00",
    "style.css": "body{}\n",
    "app.js": "console.log(1);\n",
    "image.png": b"\x89PNG\r\n\x1a\n",
    "font.woff2": b"wOF2",
    "data.json": "{}\n",
    "notes.txt": "notes\n",
    "backup.sql": "-- dump\n",
    "config.php.bak": "old\n",
    "composer.json": "{}\n",
    ".env": "SECRET=1\n",
    ".git/HEAD": "ref: refs/heads/main\n",
    ".well-known/security.txt": "Contact: x\n",
    "assets/site.css": "a{}\n",
    "sub/page.html": "<p>page</p>\n",
}
_TARGET = re.compile(r"^\s*RewriteRule\s+\S+\s+(\S+)", re.M | re.I)
_INDEX = re.compile(r"^\s*DirectoryIndex\s+(.+)$", re.M | re.I)


def corpus_htaccess_files() -> list[Path]:
    """Every .htaccess-like file of the corpus (not the server .conf files)."""
    if not CORPUS.is_dir():
        return []
    out = []
    for path in sorted(CORPUS.rglob("*")):
        name = path.name.lower()
        if not path.is_file() or name.endswith(".conf"):
            continue
        if name in (".htaccess", "htaccess", ".htaccess.txt", "htaccess.txt") \
                or name.endswith(".htaccess"):
            out.append(path)
    return out


def expected_files(text: str) -> set[str]:
    """Relative files the rules of *text* rewrite to, and DirectoryIndex names."""
    names: set[str] = set()
    for target in _TARGET.findall(text):
        target = target.split("?")[0]
        if target in ("-",) or "://" in target or "%{" in target:
            continue
        target = re.sub(r"\$\d", "x", target).lstrip("/")
        if target and not target.endswith("/"):
            names.add(target)
        elif target:
            names.add(target + "index.html")
    for line in _INDEX.findall(text):
        names |= {w for w in line.split() if "/" not in w and w.lower() != "disabled"}
    return names


def site_files(prefix: str, text: str) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {f"{prefix}{k}": v for k, v in COMMON_FILES.items()}
    for name in sorted(expected_files(text)):
        parts = name.split("/")
        parents = {"/".join(parts[:i]) for i in range(1, len(parts))}
        if any(f"{prefix}{p}" in files for p in parents) or any(
                k.startswith(f"{prefix}{name}/") for k in files):
            continue  # a file where a directory is needed, or the other way round
        files.setdefault(f"{prefix}{name}", f"generated {name}\n")
    files[f"{prefix}.htaccess"] = text
    return files


def corpus_site() -> tuple[Path, list[Path]]:
    """One docroot, one directory per corpus file (``/<project>-<n>/``)."""
    files: dict[str, str | bytes] = dict(COMMON_FILES)
    used = corpus_htaccess_files()
    for index, path in enumerate(used):
        project = path.relative_to(CORPUS).parts[0]
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        files.update(site_files(f"{project}-{index}/", text))
    return make_docroot(prefix="confmig-corpus-", files=files), used


NESTED_REWRITE = {
    ".htaccess": "RewriteEngine On\n"
                 "RewriteRule ^old/(.*)$ new/$1 [R=301,L]\n"
                 "RewriteRule ^(.*)\\.htm$ $1.html [L]\n"
                 "RewriteCond %{HTTP_HOST} ^www\\.(.+)$ [NC]\n"
                 "RewriteRule ^ http://%1%{REQUEST_URI} [R=301,L]\n",
    "a/.htaccess": "# rules of its own, no Inherit: the root's rules stop here\n"
                   "RewriteRule ^(.*/)?x$ $1y.html [L]\n",
    "a/b/.htaccess": "# no rewrite directive: a/'s rules (with a/'s prefix) still apply\n"
                     "Header set X-Level b\n",
    "a/b/c/.htaccess": "RewriteOptions Inherit\nRewriteRule ^z$ ../y.html [L]\n",
    "inh/.htaccess": "RewriteOptions Inherit\nRewriteRule ^q$ q.html [L]\n",
    "off/.htaccess": "RewriteEngine Off\n",
    "engine-only/.htaccess": "RewriteEngine On\n",
    "base/.htaccess": "RewriteEngine On\nRewriteBase /base/\n"
                      "RewriteRule ^r$ target.html [R=302,L]\nRewriteRule ^i$ target.html [L]\n",
    "nobase/.htaccess": "RewriteRule ^r$ target.html [R=302,L]\nRewriteRule ^i$ target.html [L]\n",
    "qs/.htaccess": "RewriteRule ^p$ target.html?x=1 [QSA,L]\n"
                    "RewriteRule ^d$ target.html [QSD,R=302,L]\n"
                    "RewriteCond %{QUERY_STRING} (^|&)go=([a-z]+)\n"
                    "RewriteRule ^g$ %2.html? [R=302,L]\n",
    "front/.htaccess": "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{REQUEST_FILENAME} !-d\n"
                       "RewriteRule . index.html [L]\n",
    "front/deep/.htaccess": "RewriteOptions InheritBefore\nRewriteRule ^only$ ../index.html [L]\n",
}
NESTED_FILES = ["y.html", "q.html", "x.html", "target.html", "index.html", "page.html",
                "new/page.html", "old/page.html", "a.html", "go.html"]


def nested_rewrite_site() -> Path:
    files: dict[str, str | bytes] = dict(NESTED_REWRITE)
    dirs = {"", *(k.rsplit("/", 1)[0] + "/" for k in NESTED_REWRITE if "/" in k)}
    for directory in sorted(dirs):
        for name in NESTED_FILES:
            files[f"{directory}{name}"] = f"{directory}{name}\n"
    return make_docroot(prefix="confmig-nested-", files=files)


_DEEP_HTACCESS = {
    0: "Header set X-Depth 0\nRewriteEngine On\nRewriteRule ^(.*)\\.htm$ $1.html [L]\n"
       "ErrorDocument 404 /missing.html\n",
    2: "Header append X-Depth 2\nDirectoryIndex start.html index.html\n"
       "<FilesMatch \"\\.(bak|old)$\">\n    Require all denied\n</FilesMatch>\n",
    3: "# a level without rewrite directives\nAddType text/x-confmig .cfm\n",
    5: "RewriteEngine On\nRewriteRule ^jump$ /d1/page.html [R=302,L]\n"
       "<IfModule mod_expires.c>\n    ExpiresActive On\n    ExpiresDefault \"access plus 1 hour\"\n"
       "</IfModule>\n",
    7: "RewriteOptions Inherit\nRewriteRule ^seven$ page.html [L]\nOptions -Indexes\n",
    8: "Require all denied\n",
    9: "Require all granted\nHeader unset X-Depth\n",
    10: "RewriteEngine Off\nHeader set Cache-Control \"max-age=60\"\n",
}


def deep_site(depth: int = 10) -> Path:
    """d1/d2/.../d<depth>, files at every level, .htaccess files at several depths."""
    files: dict[str, str | bytes] = {"missing.html": "custom 404\n"}
    for level in range(depth + 1):
        prefix = "".join(f"d{i}/" for i in range(1, level + 1))
        files[f"{prefix}page.html"] = f"page at {level}\n"
        files[f"{prefix}start.html"] = f"start at {level}\n"
        files[f"{prefix}note.old"] = "old\n"
        files[f"{prefix}x.cfm"] = "cfm\n"
        if level in _DEEP_HTACCESS:
            files[f"{prefix}.htaccess"] = _DEEP_HTACCESS[level]
    return make_docroot(prefix="confmig-deep-", files=files)


GATED_HTACCESS = {
    "": "RewriteEngine On\nRewriteRule ^(.*/)?rw$ $1target.html [L]\nHeader set X-Root 1\n",
    "fileinfo": "Header set X-FileInfo 1\nOptions -Indexes\n",  # Options: 500
    "opts": "Options +MultiViews\n",  # AllowOverride Options = OPT_ALL: 500
    "optlist": "Options -Indexes +MultiViews\n",  # allowed by the list
    "nonfatal": "Header set X-Ignored 1\nRewriteRule ^x$ target.html\nRequire all granted\n",
    "listed": "Header set X-Listed 1\nRedirect 302 /listed/away /target.html\n"
              "Options -Indexes\n",  # Options neither granted nor listed: 500
    "none": "Bogus directive (never read)\n",
    "unknown": "php_value memory_limit 64M\n",
    "order": "Header set X-Order 1\nBogus directive\n",  # Nonfatal=All All: 500
}
GATED_SECTIONS = {
    "fileinfo": "AllowOverride FileInfo",
    "opts": "AllowOverride Options",
    "optlist": "AllowOverride Options=Indexes,MultiViews",
    "nonfatal": "AllowOverride AuthConfig Nonfatal=Override",
    "listed": "AllowOverride None\n        AllowOverrideList Redirect Header",
    "none": "AllowOverride None",
    "order": "AllowOverride Nonfatal=All All",
}
MODULES = "".join(f"LoadModule {m}_module modules/mod_{m}.so\n"
                  for m in ("headers", "rewrite", "expires"))


def gated_site() -> tuple[Path, Path]:
    """A docroot whose directories each live under a different AllowOverride, and its
    config (in the docroot's parent directory's sibling temp dir)."""
    files: dict[str, str | bytes] = {}
    for directory, text in GATED_HTACCESS.items():
        prefix = f"{directory}/" if directory else ""
        files[f"{prefix}.htaccess"] = text
        files[f"{prefix}target.html"] = f"target in {directory or 'root'}\n"
        files[f"{prefix}page.html"] = "page\n"
        files[f"{prefix}sub/page.html"] = "sub page\n"
    root = make_docroot(prefix="confmig-gated-", files=files)
    sections = "".join(f"    <Directory {root}/{d}>\n        {words}\n    </Directory>\n"
                       for d, words in GATED_SECTIONS.items())
    config = root.parent / f"{root.name}.conf"
    config.write_text(
        f"{MODULES}ServerName gated.test\n"
        "<Directory />\n    AllowOverride None\n    Require all denied\n</Directory>\n"
        f"<VirtualHost *:80>\n    ServerName gated.test\n    DocumentRoot {root}\n"
        f"    <Directory {root}>\n        AllowOverride All\n        Require all granted\n"
        f"    </Directory>\n{sections}</VirtualHost>\n")
    return root, config


def corpus_vhosts() -> tuple[Path, Path, list[Path]]:
    """Each corpus file as the root .htaccess of a site of its own, one <VirtualHost> each
    (name-based), in one configuration: returns (parent dir, config, files used)."""
    used = corpus_htaccess_files()
    parent = make_docroot(prefix="confmig-corpus-vhosts-")
    vhosts = []
    for index, path in enumerate(used):
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        root = parent / f"site{index}"
        for rel, content in site_files("", text).items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8", errors="surrogateescape")
        vhosts.append(f"<VirtualHost *:80>\n    ServerName site{index}.test\n"
                      f"    DocumentRoot {root}\n    <Directory {root}>\n"
                      "        AllowOverride All\n        Require all granted\n"
                      "    </Directory>\n</VirtualHost>\n")
    for current, dirs, files in os.walk(parent):
        for name in dirs + files:
            os.chmod(os.path.join(current, name), 0o755 if name in dirs else 0o644)
    config = parent / "httpd.conf"
    config.write_text(f"{MODULES}ServerName corpus.test\n"
                      "<Directory />\n    AllowOverride None\n    Require all denied\n"
                      "</Directory>\n" + "".join(vhosts))
    return parent, config, used
