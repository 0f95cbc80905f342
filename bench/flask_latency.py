"""What moving the rules into Python costs: per-request latency of the module that
``confmig convert --to flask`` writes, under gunicorn, against Apache serving the same tree
with its ``.htaccess`` files, at several concurrencies (printed, not asserted).

Usage: python bench/flask_latency.py [--site deep|demo] [--concurrency 1,2,4,10,50]
                                     [--seconds 3] [--runs 3] [--workers 2] [--threads 4]

* the site: the classic depth-10 tree (``confmig.bench.tree``, an ``.htaccess`` in the deepest
  directory; URLs at the deepest level) or ``fixtures/demo-site`` (its files, a front-controller
  URL and a redirect);
* verified first: ``confmig verify --to flask`` must find no unannounced difference;
* Apache: Debian's module set, event MPM, ``AllowOverride All``; gunicorn: ``--workers`` ×
  ``--threads`` (gthread when threads > 1); both pinned to the first core, wrk to the second
  (``confmig.bench.pinning``); keep-alive on;
* runs alternate between the servers; the medians of ``--runs`` are printed per concurrency:
  requests/s, mean and p99 latency, and the ratio of the means.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from confmig.bench.clients import LoadSpec, choose_client  # noqa: E402
from confmig.bench.pinning import plan_cpus  # noqa: E402
from confmig.bench.tree import TreeSpec, generate_tree  # noqa: E402
from confmig.convert.flask import convert_docroot  # noqa: E402
from confmig.model.target import DEBIAN_INDEX  # noqa: E402
from confmig.servers import ApacheServer, make_docroot  # noqa: E402
from confmig.servers.gunicorn import GunicornServer  # noqa: E402
from confmig.verify import VerifyRequest, verify  # noqa: E402

DEMO_URLS = ("/index.html", "/blog/some/post", "/assets/css/site.css", "/contact.html",
             "/shop/", "/uploads/photo.png")


def site(name: str) -> tuple[Path, tuple[str, ...]]:
    if name == "demo":
        root = make_docroot(prefix="confmig-flaskbench-")
        shutil.copytree(ROOT / "fixtures" / "demo-site", root, dirs_exist_ok=True)
        return root, DEMO_URLS
    files = generate_tree(TreeSpec(depth=10, files=10))
    urls = files.by_level[files.deepest_level]
    return files.docroot, tuple(urls)


def measure(base_url: str, urls: tuple[str, ...], concurrency: int, seconds: float,
            cpus: frozenset[int] | None) -> tuple[float, float, float]:
    client = choose_client()
    spec = LoadSpec(base_url, urls, concurrency, duration_s=seconds, cpus=cpus)
    with tempfile.TemporaryDirectory() as work:
        result = client.run(spec, Path(work))
    if result.error_count:
        raise SystemExit(f"{base_url}: {result.error_count} errors at -c{concurrency}")
    return result.rps, result.latency_ms.get("mean", 0.0), result.latency_ms.get("p99", 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", choices=("deep", "demo"), default="deep")
    parser.add_argument("--concurrency", default="1,2,4,10,50")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    root, urls = site(args.site)
    try:
        report = verify(VerifyRequest(target="flask", docroot=root, max_requests=600))
        print(report.summary())
        if report.exit_code != 0:
            raise SystemExit("not equivalent: nothing measured")
        cpus = plan_cpus()
        print(cpus.note)
        module = convert_docroot(root).result.text
        apache = ApacheServer(docroot=root, allow_override="All", cpus=cpus.server,
                              extra_config=f"DirectoryIndex {DEBIAN_INDEX}\n")
        app = GunicornServer(module, root, workers=args.workers, threads=args.threads,
                             cpus=cpus.server)
        with apache, app:
            print(f"{len(urls)} URLs; gunicorn {args.workers} worker(s) x {args.threads} "
                  f"thread(s); {args.runs} alternating runs of {args.seconds:g}s, medians")
            print(f"{'c':>4} {'Apache req/s':>13} {'mean ms':>8} {'p99 ms':>7} "
                  f"{'Flask req/s':>12} {'mean ms':>8} {'p99 ms':>7} {'mean ratio':>10}")
            for concurrency in (int(c) for c in args.concurrency.split(",")):
                runs: dict[str, list[tuple[float, float, float]]] = {"a": [], "f": []}
                for _ in range(args.runs):
                    runs["a"].append(measure(apache.base_url, urls, concurrency,
                                             args.seconds, cpus.client))
                    runs["f"].append(measure(app.base_url, urls, concurrency, args.seconds,
                                             cpus.client))
                a = [statistics.median(x) for x in zip(*runs["a"], strict=True)]
                f = [statistics.median(x) for x in zip(*runs["f"], strict=True)]
                print(f"{concurrency:>4} {a[0]:>13,.0f} {a[1]:>8.2f} {a[2]:>7.2f} "
                      f"{f[0]:>12,.0f} {f[1]:>8.2f} {f[2]:>7.2f} {f[1] / a[1]:>9.1f}x")
    finally:
        shutil.rmtree(root, ignore_errors=True)
        (root.parent / f".{root.name}.body").unlink(missing_ok=True)  # the tree's content


if __name__ == "__main__":
    main()
