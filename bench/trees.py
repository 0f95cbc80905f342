"""Generated `.htaccess` trees for the speed benchmarks (realistic, varied content)."""

from __future__ import annotations

from pathlib import Path

TEMPLATES = [
    """# front controller {i}
<IfModule mod_rewrite.c>
    RewriteEngine On
    RewriteBase /d{i}/
    RewriteRule ^index\\.php$ - [L]
    RewriteCond %{{REQUEST_FILENAME}} !-f
    RewriteCond %{{REQUEST_FILENAME}} !-d
    RewriteRule . /d{i}/index.php [L]
</IfModule>
""",
    """Options -Indexes
AddType application/x-bar .bar
AddHandler default-handler .foo
<IfModule mod_headers.c>
    Header set X-Dir "d{i}"
    Header always set X-Content-Type-Options "nosniff"
</IfModule>
<FilesMatch "\\.(bak|sql|swp)$">
    Require all denied
</FilesMatch>
""",
    """# cache rules
<IfModule mod_expires.c>
    ExpiresActive On
    ExpiresByType text/css "access plus 1 month"
    ExpiresByType image/png "access plus 1 year"
    ExpiresByType application/javascript "access plus 1 month"
</IfModule>
Order allow,deny
Allow from all
Redirect 301 /old{i}.html /new{i}.html
""",
]


def make_htaccess_tree(root: Path, files: int = 10_000, per_dir: int = 1) -> list[Path]:
    """Write ``files`` access files, spread over nested directories (fan-out 10)."""
    paths: list[Path] = []
    for i in range(files):
        parts = [f"d{(i // 10 ** k) % 10}" for k in range(4, 0, -1)]
        directory = root.joinpath(*parts, f"n{i}") if per_dir == 1 else root.joinpath(*parts)
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / ".htaccess"
        path.write_text(TEMPLATES[i % len(TEMPLATES)].format(i=i))
        paths.append(path)
    return paths
