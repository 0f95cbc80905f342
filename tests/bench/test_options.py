"""Command-line values: parsing and hard bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.bench.options import (
    BenchOptions,
    BenchUsageError,
    options_from_cli,
    parse_duration,
    parse_int_list,
    parse_name_list,
)


def cli(**overrides: object) -> BenchOptions:
    values: dict[str, object] = dict(
        depth=10, files=50, htaccess="leaf", targets="apache-htaccess,apache-httpd",
        mpm="event,prefork", concurrency="10", depth_sweep=None, urls="deepest", duration=None,
        requests=None, size="small", keepalive="on", repeat=3, site=None, keep=False,
        json_path=None, html_path=None, client=None)
    values.update(overrides)
    return options_from_cli(**values)  # type: ignore[arg-type]


def test_defaults() -> None:
    opts = cli()
    assert opts.duration_s == 3.0 and opts.requests is None
    assert opts.depths == (10,) and opts.mpms == ("event", "prefork")
    assert opts.keepalive_values == (True,)
    assert opts.htaccess_every is None


@pytest.mark.parametrize(("text", "seconds"), [("3s", 3.0), ("500ms", 0.5), ("1m", 60.0),
                                               ("2", 2.0), ("1.5s", 1.5)])
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


def test_lists() -> None:
    assert parse_int_list("--concurrency", "1, 2,4,10,50,4") == (1, 2, 4, 10, 50)
    assert parse_name_list("--mpm", "event, prefork") == ("event", "prefork")
    with pytest.raises(BenchUsageError):
        parse_int_list("--concurrency", "ten")


def test_sweeps_and_modes() -> None:
    opts = cli(depth_sweep="1,5,10,20", keepalive="both", htaccess="3", requests=1000)
    assert opts.depths == (1, 5, 10, 20)
    assert opts.keepalive_values == (True, False)
    assert opts.htaccess_every == 3
    assert opts.duration_s is None and opts.requests == 1000


@pytest.mark.parametrize("bad", [
    {"depth": 0}, {"depth": 65}, {"files": 0}, {"repeat": 21}, {"concurrency": "0"},
    {"concurrency": "5000"}, {"duration": "10m"}, {"duration": "50ms"}, {"requests": 0},
    {"htaccess": "sometimes"}, {"htaccess": "0"}, {"urls": "all"}, {"size": "huge"},
    {"keepalive": "maybe"}, {"mpm": "threaded"}, {"client": "curl"},
    {"duration": "3s", "requests": 10}, {"site": Path("/no/such/dir")},
])
def test_out_of_bounds_values_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(BenchUsageError):
        cli(**bad)


def test_site_and_depth_sweep_exclude_each_other(tmp_path: Path) -> None:
    with pytest.raises(BenchUsageError, match="--site"):
        cli(site=tmp_path, depth_sweep="1,2")


def test_large_files_are_generated_not_a_sites(tmp_path: Path) -> None:
    with pytest.raises(BenchUsageError, match="with --site the files are the site's own"):
        cli(site=tmp_path, size="large")
    assert cli(size="large").size == "large"


def test_quick_fills_in_only_what_was_not_given() -> None:
    unset = dict(files=None, targets=None, mpm=None, repeat=None)
    plain = cli(**unset)
    assert (plain.files, plain.targets, plain.mpms, plain.repeat, plain.duration_s,
            plain.warmup_s) == (50, ("apache-htaccess", "apache-httpd"), ("event", "prefork"),
                                3, 3.0, 1.0)
    quick = cli(**unset, quick=True)
    assert (quick.files, quick.targets, quick.mpms, quick.repeat, quick.duration_s,
            quick.warmup_s) == (6, ("all",), ("event",), 1, 1.0, 0.0)
    mine = cli(files=20, targets="apache-htaccess,nginx", mpm="prefork", repeat=2,
               duration="2s", quick=True)
    assert (mine.files, mine.targets, mine.mpms, mine.repeat, mine.duration_s) == (
        20, ("apache-htaccess", "nginx"), ("prefork",), 2, 2.0)


@pytest.mark.parametrize(("option", "value"), [("wsgi_workers", 0), ("wsgi_workers", 65),
                                               ("wsgi_threads", 0), ("wsgi_threads", 65)])
def test_wsgi_counts_are_bounded(option: str, value: int) -> None:
    with pytest.raises(BenchUsageError, match=option.replace("_", "-")):
        cli(**{option: value})
