"""Generated hostile sites for the safety properties.

A tree is a few nested directories, each with files and possibly an ``.htaccess`` drawn from
pieces that decide access (denials, rewrites to ``[F]``, ``<Files>`` rules), pieces Apache
answers 500 for (an unknown directive, a line over Apache's limit, a section left open), and
pieces that trip readers (a NUL byte, a Latin-1 comment, CR-only line ends). Trees are drawn
from a seeded ``random.Random`` so a failure names the seed that reproduces it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

# Each piece is one .htaccess fragment; a tree's .htaccess is one to three of them.
DENYING = (
    b"Require all denied\n",
    b"Order deny,allow\nDeny from all\n",
    b"<Files \"secret.txt\">\nRequire all denied\n</Files>\n",
    b"<FilesMatch \"\\.(bak|sql)$\">\nRequire all denied\n</FilesMatch>\n",
    b"RewriteEngine On\nRewriteRule ^secret - [F]\n",
    b"RewriteEngine On\nRewriteRule ^old - [G]\n",
    b"RedirectMatch 403 /private\n",
    b"Options -Indexes\n",
)
NEUTRAL = (
    b"DirectoryIndex index.html\n",
    b"RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\nRewriteRule ^ index.html [L]\n",
    b"Header set X-Safety \"1\"\n",
    b"AddType text/plain .bak\n",
    b"Options +Indexes\n",
    b"ErrorDocument 404 /missing.html\n",
)
BROKEN = (  # Apache answers 500 for the whole directory
    b"NoSuchDirective on\n",
    b"<IfModule mod_rewrite.c>\nRewriteEngine On\n",
    b"# " + b"x" * 9000 + b"\nRequire all denied\n",
    b"RewriteRule ^(a+)+$ - [F]\nRewriteEngine On\nRewriteRule [ - [F]\n",
)
TRICKY = (  # readers trip on these; Apache reads them (or refuses) in its own way
    b"Options -Indexes\x00 trailing\n",
    b"# caf\xe9 comment in Latin-1\nRequire all denied\n",
    b"Require all denied\rOptions -Indexes\r",
    b"Require all denied\\",
)
FILES = ("index.html", "secret.txt", "dump.sql", "page.bak", "old.html", "private.html")


@dataclass
class Tree:
    seed: int
    dirs: list[str] = field(default_factory=list)
    htaccess: dict[str, bytes] = field(default_factory=dict)

    def describe(self) -> str:
        parts = [f"seed {self.seed}"]
        for rel, text in sorted(self.htaccess.items()):
            parts.append(f"{rel or '.'}/.htaccess={text[:80]!r}")
        return "; ".join(parts)


def draw_tree(seed: int) -> Tree:
    rng = random.Random(seed)
    tree = Tree(seed)
    depth = rng.randint(1, 3)
    path = ""
    for level in range(depth + 1):
        tree.dirs.append(path)
        if rng.random() < 0.8:
            pool = rng.choice((DENYING, DENYING, NEUTRAL, BROKEN, TRICKY))
            pieces = [rng.choice(pool) for _ in range(rng.randint(1, 2))]
            if rng.random() < 0.5:
                pieces.append(rng.choice(NEUTRAL))
            tree.htaccess[path] = b"".join(pieces)
        path = f"{path}/d{level}" if path else f"d{level}"
    return tree


def write_tree(tree: Tree, root: Path) -> None:
    for rel in tree.dirs:
        directory = root / rel if rel else root
        directory.mkdir(parents=True, exist_ok=True)
        directory.chmod(0o755)
        for name in FILES:
            (directory / name).write_text(f"{rel}/{name}\n")
        if rel in tree.htaccess:
            (directory / ".htaccess").write_bytes(tree.htaccess[rel])


def probe_paths(tree: Tree) -> list[str]:
    """Every file and directory of the tree, plus encoded spellings of each file."""
    paths = []
    for rel in tree.dirs:
        base = f"/{rel}/" if rel else "/"
        paths.append(base)
        for name in FILES:
            paths.append(base + name)
            paths.append(base + name.replace(".", "%2e", 1))
            paths.append(base + "." + "/" + name)
            paths.append(base.rstrip("/") + "//" + name)
        paths.append(base + ".htaccess")
    return paths
