"""nginx with confmig's output for h5bp against nginx with h5bp's hand-written configuration
(issue 12's speed figure: confmig's ≥ 1.0× the hand-written config's req/s), on the same files.

Builds an h5bp site (the files below, with the shared corpus's ``dist/.htaccess``), a
directory holding h5bp's own ``nginx.conf`` with its ``server.localhost`` test vhost (its
includes resolve there, as nginx resolves them next to the main file), and runs
``confmig bench --site DOCROOT --targets nginx,nginx-handwritten --nginx-config …`` — every
target verified against Apache first — then prints the paired ratio of the two nginx servers.

Usage: python bench/h5bp_nginx.py [--concurrency 10] [--repeat 5] [--duration 3s]
                                 [--targets nginx,nginx-handwritten|all] [--json FILE] [--html FILE]

With ``--targets all`` (and a ``--concurrency`` sweep) it is the corpus-site run of issue 14:
every target built from the h5bp site, verified, and measured over its files.

``tests/nginx/test_h5bp_handwritten.py`` compares the two servers' answers with the same
builders.  ``dist/.htaccess`` is used whole, its www → non-www redirect included; h5bp's
nginx does that redirect in a second ``server { }`` (:func:`www_server_body`), which the
test runs for the ``www.`` requests and the bench does not need (its requests are for the
site's own name).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
APACHE = CORPUS / "h5bp-server-configs-apache" / "dist" / ".htaccess"
NGINX = CORPUS / "h5bp-server-configs-nginx"
#: The host name of h5bp's nginx test vhost (its www server redirects to it).
HOST = "server.localhost"

#: A small h5bp-style site: one file per kind of policy h5bp sets.
FILES = {
    "index.html": "<!doctype html><title>h5bp</title>\n",
    "404.html": "<!doctype html><title>not found</title>\n",
    # small: Apache sends this one uncompressed and without Vary (mod_deflate gzips a 1.9 KB
    # stylesheet and adds Vary: Accept-Encoding even to uncompressed answers, which
    # confmig's nginx does not: AddOutputFilterByType is announced, and the bench would
    # refuse to time it; the test adds such a file)
    "css/style.css": "body { margin: 0 }\n", "js/app.js": "console.log(1);\n",
    "img/logo.png": "PNG", "img/icon.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>\n",
    "fonts/a.woff2": "wOF2", "site.webmanifest": "{}\n", "data.json": "{}\n",
    "feed.rss": "<rss/>\n", "notes.md": "# notes\n", "doc.pdf": "%PDF-1.4\n",
    "video.mp4": "mp4", "robots.txt": "User-agent: *\n", "favicon.ico": "ico",
    "backup.sql": "secret\n", ".git/config": "[core]\n",
    ".well-known/security.txt": "Contact: x\n",
}


def h5bp_site(parent: Path | None = None) -> Path:
    """A worker-readable docroot with :data:`FILES` and h5bp's ``.htaccess``."""
    from confmig.servers import make_docroot

    docroot = make_docroot(prefix="confmig-h5bp-", parent=parent)
    for name, body in FILES.items():
        (docroot / name).parent.mkdir(parents=True, exist_ok=True)
        (docroot / name).write_text(body)
    (docroot / ".htaccess").write_text(APACHE.read_text())
    for path in [docroot, *docroot.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return docroot


def handwritten_config(root: Path) -> Path:
    """h5bp's ``nginx.conf`` with its ``server.localhost`` test vhost in place of
    ``conf.d/*.conf``, written into *root* next to links to its ``h5bp/`` and ``mime.types``."""
    from confmig.bench.nginx_text import parse_file

    (root / "h5bp").symlink_to(NGINX / "h5bp")
    (root / "mime.types").symlink_to(NGINX / "mime.types")
    vhost = [s for s in parse_file(NGINX / "test" / "vhosts" / "server.localhost.conf", NGINX)
             if s.name == "server" and any(c.name == "root" for c in s.children or [])]
    if len(vhost) != 1:
        raise ValueError(f"{NGINX}/test/vhosts/server.localhost.conf: expected one server "
                         "with a root")
    (root / "site.conf").write_text(vhost[0].render())
    text = (NGINX / "nginx.conf").read_text()
    if text.count("include conf.d/*.conf;") != 1:
        raise ValueError(f"{NGINX}/nginx.conf: no single 'include conf.d/*.conf;'")
    (root / "nginx.conf").write_text(text.replace("include conf.d/*.conf;",
                                                  "include site.conf;"))
    return root / "nginx.conf"


def www_server_body() -> str:
    """The body of h5bp's ``www.`` server in its test vhost (``return 301`` to the name
    without ``www.``), without its ``listen``/``server_name`` (``NginxServer`` gives them)."""
    from confmig.bench.nginx_text import parse_file

    servers = [s for s in parse_file(NGINX / "test" / "vhosts" / "server.localhost.conf", NGINX)
               if s.name == "server"]
    www = [s for s in servers
           if any(c.name == "server_name" and c.args == [f"www.{HOST}"]
                  for c in s.children or [])]
    if len(www) != 1:
        raise ValueError(f"{NGINX}/test/vhosts/server.localhost.conf: expected one server "
                         f"named www.{HOST}")
    return "".join(c.render() for c in www[0].children or []
                   if c.name not in ("listen", "server_name"))


def paired_ratio(runs: list, target: str, reference: str) -> list[float]:
    """Run i of *target* over run i of *reference* at the same condition (measured runs)."""
    by = {}
    for run in runs:
        if run.kind == "measure" and run.valid:
            by[(run.condition, run.target, run.rep)] = run.rps
    return [rps / by[(cond, reference, rep)] for (cond, name, rep), rps in by.items()
            if name == target and by.get((cond, reference, rep))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", default="10")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--duration", default="3s")
    parser.add_argument("--targets", default="nginx,nginx-handwritten")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--html", type=Path)
    args = parser.parse_args(argv)
    if not APACHE.is_file() or not (NGINX / "nginx.conf").is_file():
        print(f"the h5bp corpus is not at {CORPUS}", file=sys.stderr)
        return 2
    from rich.console import Console

    from confmig.bench import bench
    from confmig.bench.options import options_from_cli
    from confmig.bench.summary import summary_renderable
    from confmig.servers import make_docroot

    docroot = h5bp_site()
    confdir = make_docroot(prefix="confmig-h5bp-nginx-")
    try:
        options = options_from_cli(
            depth=10, files=None, htaccess="leaf", targets=args.targets,
            mpm="event", concurrency=args.concurrency, depth_sweep=None, urls="random",
            duration=args.duration, requests=None, size="small", keepalive="on",
            repeat=args.repeat, site=docroot, keep=False, json_path=args.json,
            html_path=args.html, client=None, nginx_config=handwritten_config(confdir))
        console = Console(stderr=True)
        report = bench(options, console)
        Console().print(summary_renderable(report))
    finally:
        shutil.rmtree(docroot, ignore_errors=True)
        shutil.rmtree(confdir, ignore_errors=True)
    ratios = paired_ratio(report.runs, "nginx", "nginx-handwritten")
    if not ratios:
        print("nginx / nginx-handwritten: not measured (see above)")
        return 1
    print(f"h5bp: nginx with confmig's output / nginx with h5bp's hand-written config = "
          f"{statistics.median(ratios):.2f}x req/s (paired min–max {min(ratios):.2f}–"
          f"{max(ratios):.2f}, {len(ratios)} runs; target ≥ 1.0x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
