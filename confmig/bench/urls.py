"""Which URLs the load generator requests: many distinct files, not one.

``deepest``: every file in the deepest directory (the original experiment's case, where a
request walks the whole chain); ``top``: every file in the docroot (the cheapest walk);
``random``: a seeded sample across all levels, shuffled, so the mix of depths is fixed for a
given seed and every target gets exactly the same sequence.
"""

from __future__ import annotations

import random

from confmig.bench.tree import SiteFiles

MAX_URLS = 1000


def select_urls(site: SiteFiles, mode: str, *, seed: int = 1, limit: int = MAX_URLS) -> list[str]:
    """The URL paths to request, in the order the client cycles through them."""
    if mode == "deepest":
        urls = site.by_level.get(site.deepest_level, [])
    elif mode == "top":
        shallowest = min((lvl for lvl, paths in site.by_level.items() if paths), default=0)
        urls = site.by_level.get(shallowest, [])
    elif mode == "random":
        every = [url for lvl in sorted(site.by_level) for url in site.by_level[lvl]]
        rng = random.Random(seed)
        urls = rng.sample(every, min(limit, len(every)))
    else:
        raise ValueError(f"unknown URL mode {mode!r}")
    if not urls:
        raise ValueError(f"{site.docroot}: no files to request")
    return list(urls[:limit])


def url_level(url: str) -> int:
    """How many directories below the docroot the file of *url* sits."""
    return url.strip("/").count("/")
