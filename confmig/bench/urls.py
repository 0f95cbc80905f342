"""Which URLs the load generator requests: many distinct files, not one.

``deepest``: every file in the deepest directory (the original experiment's case, where a
request walks the whole chain); ``top``: every file in the docroot (the cheapest walk);
``random``: a seeded sample across all levels, shuffled, so the mix of depths is fixed for a
given seed and every target gets exactly the same sequence. Anything else names a file of URL
paths (the user's own sample of their site), requested in its order.
"""

from __future__ import annotations

import random
from pathlib import Path

from confmig.bench.options import URL_MODES
from confmig.bench.tree import SiteFiles

MAX_URLS = 1000
MAX_URL_LENGTH = 2000
#: A URL file larger than this is refused before it is read.
MAX_URL_FILE_BYTES = 4 * 1024 * 1024


def read_url_file(path: Path, limit: int = MAX_URLS) -> list[str]:
    """The URL paths of *path*: one per line (``/a/b?x=1``), blank lines and ``#`` comments
    skipped, at most *limit* (the rest is ignored). A line that is not a path (no leading
    ``/``, spaces or control characters inside, too long) is a ``ValueError`` naming
    ``file:line``."""
    try:
        if path.stat().st_size > MAX_URL_FILE_BYTES:
            raise ValueError(f"{path}: larger than {MAX_URL_FILE_BYTES // 1024 // 1024} MB")
        text = path.read_text(encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason})") from exc
    except OSError as exc:
        raise ValueError(f"{path}: {exc.strerror or exc}") from exc
    urls: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if (not line.startswith("/") or len(line) > MAX_URL_LENGTH
                or any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in line)):
            raise ValueError(f"{path}:{number}: not a URL path (one per line, starting "
                             f"with /): {line[:80]!r}")
        urls.append(line)
        if len(urls) >= limit:
            break
    if not urls:
        raise ValueError(f"{path}: no URL path in the file")
    return urls


def select_urls(site: SiteFiles, mode: str, *, seed: int = 1, limit: int = MAX_URLS) -> list[str]:
    """The URL paths to request, in the order the client cycles through them; *mode* is one
    of :data:`URL_MODES` or the path of a URL file (:func:`read_url_file`)."""
    if mode not in URL_MODES:
        return read_url_file(Path(mode), limit)
    if mode == "deepest":
        urls = site.by_level.get(site.deepest_level, [])
    elif mode == "top":
        shallowest = min((lvl for lvl, paths in site.by_level.items() if paths), default=0)
        urls = site.by_level.get(shallowest, [])
    elif mode == "random":
        every = [url for lvl in sorted(site.by_level) for url in site.by_level[lvl]]
        rng = random.Random(seed)
        urls = rng.sample(every, min(limit, len(every)))
    if not urls:
        raise ValueError(f"{site.docroot}: no files to request")
    return list(urls[:limit])


def url_level(url: str) -> int:
    """How many directories below the docroot the file of *url* sits."""
    return url.strip("/").count("/")
