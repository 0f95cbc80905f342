"""What one ``confmig bench`` invocation measures, parsed from the command line and bounded.

Every count and duration has a hard upper limit: the benchmark sends real traffic, and a typo
(``--duration 3000``) must not turn into an hour of load on a shared machine.
"""

from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from confmig.fs import WriteRefused, check_output, lookup_error

MAX_DEPTH = 64
MAX_FILES = 5000
MAX_CONCURRENCY = 1000
MAX_REPEAT = 20
MAX_DURATION_S = 120.0
MIN_DURATION_S = 0.2
MAX_REQUESTS = 2_000_000
HTACCESS_MODES = ("leaf", "every")
URL_MODES = ("deepest", "top", "random")
SIZES = ("small", "large")
KEEPALIVE_MODES = ("on", "off", "both")
MPMS = ("event", "prefork", "worker")
CLIENTS = ("wrk", "ab", "builtin")
DEFAULT_TARGETS = ("apache-htaccess", "apache-httpd")
#: ``--targets all``: every target the converter registry names (the ones this machine
#: cannot run are reported as unavailable).
ALL_TARGETS = "all"
BASELINE = "apache-htaccess"
MAX_WSGI_WORKERS = 64
MAX_WSGI_THREADS = 64


@dataclass(frozen=True)
class QuickPreset:
    """``--quick``: a smoke answer in seconds — a small tree, one MPM, one short run per
    target, every target (what the user gives explicitly still wins)."""

    files: int = 6
    mpms: tuple[str, ...] = ("event",)
    duration_s: float = 1.0
    repeat: int = 1
    warmup_s: float = 0.0


QUICK = QuickPreset()


class BenchUsageError(ValueError):
    """A bad option value; the message is meant for the user as is."""


@dataclass(frozen=True)
class BenchOptions:
    """Everything a benchmark run needs to know (see ``confmig bench --help``)."""

    depth: int = 10
    files: int = 50
    htaccess: str = "leaf"  # leaf | every | "N" (every Nth level)
    targets: tuple[str, ...] = DEFAULT_TARGETS
    mpms: tuple[str, ...] = ("event", "prefork")
    concurrency: tuple[int, ...] = (10,)
    depth_sweep: tuple[int, ...] = ()
    urls: str = "deepest"
    duration_s: float | None = 3.0
    requests: int | None = None
    size: str = "small"
    keepalive: str = "on"
    repeat: int = 3
    site: Path | None = None
    keep: bool = False
    json_path: Path | None = None
    html_path: Path | None = None
    client: str | None = None  # None: wrk, else ab, else builtin
    warmup_s: float = 1.0
    strace: bool = True
    seed: int = 1
    #: WSGI server processes and threads per process; None: one worker per server core.
    wsgi_workers: int | None = None
    wsgi_threads: int = 1
    quick: bool = False
    #: ``--nginx-config FILE``: the hand-written nginx configuration the
    #: ``nginx-handwritten`` target serves the site with.
    nginx_config: Path | None = None

    @property
    def large_sizes_mb(self) -> tuple[int, ...]:
        """``--size large``: the media files' sizes (a single small size with ``--quick``)."""
        from confmig.bench.tree import LARGE_SIZES_MB, QUICK_LARGE_SIZES_MB

        return QUICK_LARGE_SIZES_MB if self.quick else LARGE_SIZES_MB

    @property
    def depths(self) -> tuple[int, ...]:
        """The tree depths to measure: the sweep when given, else ``--depth``."""
        return self.depth_sweep or (self.depth,)

    @property
    def keepalive_values(self) -> tuple[bool, ...]:
        return {"on": (True,), "off": (False,), "both": (True, False)}[self.keepalive]

    @property
    def htaccess_every(self) -> int | None:
        """N for ``--htaccess N``; None for ``leaf``; 1 for ``every``."""
        if self.htaccess == "leaf":
            return None
        if self.htaccess == "every":
            return 1
        return int(self.htaccess)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("site", "json_path", "html_path", "nginx_config"):
            data[key] = str(data[key]) if data[key] is not None else None
        data["depths"] = list(self.depths)
        if self.size == "large":
            data["large_sizes_mb"] = list(self.large_sizes_mb)
        return data

    def validate(self) -> BenchOptions:
        """Raise :class:`BenchUsageError` on any value out of its bounds; return self."""
        _bounded("--depth", self.depth, 1, MAX_DEPTH)
        for depth in self.depth_sweep:
            _bounded("--depth-sweep", depth, 1, MAX_DEPTH)
        _bounded("--files", self.files, 1, MAX_FILES)
        _bounded("--repeat", self.repeat, 1, MAX_REPEAT)
        for conc in self.concurrency:
            _bounded("--concurrency", conc, 1, MAX_CONCURRENCY)
        if not self.concurrency:
            raise BenchUsageError("--concurrency needs at least one value")
        if self.htaccess not in HTACCESS_MODES and (
                not self.htaccess.isdigit() or int(self.htaccess) < 1):
            raise BenchUsageError(
                    f"--htaccess must be leaf, every or a positive number, got {self.htaccess!r}")
        if self.urls not in URL_MODES:
            from confmig.bench.urls import read_url_file

            try:
                read_url_file(Path(self.urls))
            except ValueError as exc:
                raise BenchUsageError(f"--urls must be {', '.join(URL_MODES)} or a file of "
                                      f"URL paths: {exc}") from exc
        _choice("--size", self.size, SIZES)
        _choice("--keepalive", self.keepalive, KEEPALIVE_MODES)
        for mpm in self.mpms:
            _choice("--mpm", mpm, MPMS)
        if not self.mpms:
            raise BenchUsageError("--mpm needs at least one MPM")
        if self.client is not None:
            _choice("--client", self.client, CLIENTS)
        if (self.duration_s is None) == (self.requests is None):
            raise BenchUsageError("give exactly one of --duration and --requests")
        if self.duration_s is not None and not (
                MIN_DURATION_S <= self.duration_s <= MAX_DURATION_S):
            raise BenchUsageError(f"--duration must be between {MIN_DURATION_S:g}s and "
                                  f"{MAX_DURATION_S:g}s, got {self.duration_s:g}s")
        if self.requests is not None:
            _bounded("--requests", self.requests, 1, MAX_REQUESTS)
        if self.site is not None:
            if self.depth_sweep:
                raise BenchUsageError("--depth-sweep generates trees; it cannot go with --site")
            if self.size != "small":
                raise BenchUsageError("--size generates the tree's files; with --site the "
                                      "files are the site's own")
            _lookup("--site", self.site)
            if not self.site.is_dir():
                raise BenchUsageError(f"--site {self.site}: not a directory")
        if not self.targets:
            raise BenchUsageError("--targets needs at least one target")
        if self.wsgi_workers is not None:
            _bounded("--wsgi-workers", self.wsgi_workers, 1, MAX_WSGI_WORKERS)
        _bounded("--wsgi-threads", self.wsgi_threads, 1, MAX_WSGI_THREADS)
        if self.nginx_config is not None:
            self._check_nginx_config(self.nginx_config)
        if not 0 <= self.warmup_s <= 10:
            raise BenchUsageError("warm-up must be between 0 and 10 s")
        self._check_outputs()
        return self

    @staticmethod
    def _check_nginx_config(path: Path) -> None:
        """A hand-written configuration that cannot be read is bad input: said now, with
        its ``file:line``, not after the trees are built."""
        from confmig.bench.nginx_text import NginxTextError, split_handwritten

        _lookup("--nginx-config", path)
        if not path.is_file():
            raise BenchUsageError(f"--nginx-config {path}: not a file")
        try:
            split_handwritten(path)
        except NginxTextError as exc:
            raise BenchUsageError(f"--nginx-config: {exc}") from exc

    def _check_outputs(self) -> None:
        """``--json`` / ``--html`` are written after the whole run: check now that they can
        be.  An existing report is replaced (re-running regenerates ``bench/results/``), but
        only a regular file, and atomically (:mod:`confmig.fs`)."""
        outputs = [(o, p) for o, p in (("--json", self.json_path), ("--html", self.html_path))
                   if p is not None]
        for option, path in outputs:
            try:
                check_output(path, force=True)
            except WriteRefused as exc:
                raise BenchUsageError(f"{option} {_about(str(exc), path)}") from exc
        if len(outputs) == 2 and _same_path(outputs[0][1], outputs[1][1]):
            raise BenchUsageError(f"--json {outputs[0][1]} and --html {outputs[1][1]} name the "
                                  "same file")


def _about(message: str, path: Path) -> str:
    """``PATH: reason`` from :func:`check_output`'s message (which names *path* itself)."""
    for prefix in (f"cannot write {path}: ", f"{path}: "):
        if message.startswith(prefix):
            return f"{path}: {message[len(prefix):]}"
    return f"{path}: {message}"


def _same_path(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _lookup(option: str, path: Path) -> None:
    """A path that cannot even be looked up (too long a name…) is refused with the system's
    reason, before ``Path.is_dir()`` raises it (:func:`confmig.fs.lookup_error`)."""
    reason = lookup_error(path)
    if reason is not None:
        raise BenchUsageError(f"{option} {path}: {reason}")


def _bounded(option: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise BenchUsageError(f"{option} must be between {low} and {high}, got {value}")


def _choice(option: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise BenchUsageError(f"{option} must be one of {', '.join(allowed)}, got {value!r}")


_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$")


def parse_duration(text: str) -> float:
    """``"3s"`` → 3.0, ``"500ms"`` → 0.5, ``"1m"`` → 60.0, ``"2"`` → 2.0 (seconds)."""
    match = _DURATION_RE.match(text)
    if not match:
        raise BenchUsageError(f"--duration: expected e.g. 3s, 500ms or 1m, got {text!r}")
    value = float(match.group(1))
    return value * {"ms": 0.001, "s": 1.0, "m": 60.0, None: 1.0}[match.group(2)]


def parse_int_list(option: str, text: str) -> tuple[int, ...]:
    """``"1,2,4,10"`` → ``(1, 2, 4, 10)``, keeping order and dropping repeats."""
    values: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit():
            raise BenchUsageError(f"{option}: expected comma-separated numbers, got {text!r}")
        if int(part) not in values:
            values.append(int(part))
    if not values:
        raise BenchUsageError(f"{option}: no value in {text!r}")
    return tuple(values)


def parse_name_list(option: str, text: str) -> tuple[str, ...]:
    """``"event, prefork"`` → ``("event", "prefork")``."""
    names = tuple(dict.fromkeys(p.strip() for p in text.split(",") if p.strip()))
    if not names:
        raise BenchUsageError(f"{option}: no value in {text!r}")
    return names


def options_from_cli(*, depth: int, files: int | None, htaccess: str, targets: str | None,
                     mpm: str | None, concurrency: str, depth_sweep: str | None, urls: str,
                     duration: str | None, requests: int | None, size: str, keepalive: str,
                     repeat: int | None, site: Path | None, keep: bool,
                     json_path: Path | None, html_path: Path | None, client: str | None,
                     wsgi_workers: int | None = None, wsgi_threads: int = 1,
                     quick: bool = False, nginx_config: Path | None = None) -> BenchOptions:
    """Turn the command line's strings into validated :class:`BenchOptions`.

    ``None`` means "not given": the default, or with *quick* the :data:`QUICK` value (and every
    target); a value the user gave always wins.
    """
    if duration is not None and requests is not None:
        raise BenchUsageError("give either --duration or --requests, not both")
    defaults = BenchOptions()
    duration_s = None if requests is not None else (
        parse_duration(duration) if duration is not None
        else QUICK.duration_s if quick else defaults.duration_s)
    if targets is None:
        targets = ALL_TARGETS if quick else ",".join(DEFAULT_TARGETS)
    if mpm is None:
        mpms = QUICK.mpms if quick else defaults.mpms
    else:
        mpms = parse_name_list("--mpm", mpm)
    return BenchOptions(
        depth=depth,
        files=files if files is not None else QUICK.files if quick else defaults.files,
        htaccess=htaccess.strip().lower(),
        targets=parse_name_list("--targets", targets),
        mpms=mpms,
        concurrency=parse_int_list("--concurrency", concurrency),
        depth_sweep=parse_int_list("--depth-sweep", depth_sweep) if depth_sweep else (),
        urls=urls, duration_s=duration_s, requests=requests, size=size, keepalive=keepalive,
        repeat=repeat if repeat is not None else QUICK.repeat if quick else defaults.repeat,
        site=site, keep=keep, json_path=json_path, html_path=html_path, client=client,
        warmup_s=QUICK.warmup_s if quick else defaults.warmup_s,
        wsgi_workers=wsgi_workers, wsgi_threads=wsgi_threads, quick=quick,
        nginx_config=nginx_config,
    ).validate()
