"""The load generators against a real Apache: each returns counts and latencies."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.bench.clients import (
    AbClient,
    BuiltinClient,
    ClientError,
    LoadClient,
    LoadSpec,
    WrkClient,
    choose_client,
)
from confmig.servers import ApacheServer, make_docroot


def test_load_only_goes_to_loopback() -> None:
    with pytest.raises(ValueError, match=r"127\.0\.0\.1"):
        LoadSpec("http://10.0.0.1:80", ("/",), 1)
    with pytest.raises(ValueError):
        LoadSpec("http://127.0.0.1:80", ("/",), 1, duration_s=1.0, requests=5)


def test_wrk_script_cycles_through_every_path() -> None:
    spec = LoadSpec("http://127.0.0.1:8080", ("/a.foo", '/b"q.bar'), 4, keepalive=False)
    script = WrkClient().script(spec)
    assert '"/a.foo", "/b\\"q.bar"' in script
    assert '["Connection"] = "close"' in script
    assert "wrk.thread:stop" not in script  # only with --requests


def test_choose_client_prefers_wrk_and_names_missing_tools() -> None:
    if WrkClient.available():
        assert choose_client().name == "wrk"
    assert choose_client("builtin").name == "builtin"
    with pytest.raises(ClientError):
        choose_client("curl")


AB_OUTPUT = """Concurrency Level:      10
Time taken for tests:   1.002 seconds
Complete requests:      12345
Failed requests:        0
Non-2xx responses:      3
Keep-Alive requests:    12300
Total transferred:      4000000 bytes
Requests per second:    12320.36 [#/sec] (mean)
Time per request:       0.812 [ms] (mean)
Percentage of the requests served within a certain time (ms)
  50%      1
  66%      1
  90%      2
  99%      4
 100%     12 (longest request)
"""


def test_ab_output_is_read() -> None:
    spec = LoadSpec("http://127.0.0.1:1", ("/x",), 10)
    result = AbClient().parse(AB_OUTPUT, "", spec)
    assert result.requests == 12345 and result.duration_s == 1.002
    assert result.latency_ms["p50"] == 1.0 and result.latency_ms["p99"] == 4.0
    assert result.errors == {"non2xx": 3}


@pytest.fixture(scope="module")
def server(apache: None) -> Iterator[ApacheServer]:
    root = make_docroot(files={"a.foo": "x" * 100, "b.bar": "y" * 100})
    with ApacheServer(root, allow_override="None", mpm="event") as srv:
        yield srv
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.apache
@pytest.mark.parametrize("client", [WrkClient, AbClient, BuiltinClient])
@pytest.mark.parametrize("keepalive", [True, False])
def test_clients_measure_a_real_server(server: ApacheServer, client: type[LoadClient],
                                       keepalive: bool, tmp_path: Path) -> None:
    if not client.available():
        pytest.skip(f"{client.name} is not installed")
    spec = LoadSpec(server.base_url, ("/a.foo", "/b.bar"), 2, keepalive=keepalive,
                    duration_s=1.0)
    result = client().run(spec, tmp_path)
    # loose bounds: the test machine may be busy with other work
    assert result.requests > 10
    assert result.error_count == 0, result.errors
    assert 0 < result.latency_ms["p50"] <= result.latency_ms["p99"]
    assert 0.5 < result.duration_s < 10


@pytest.mark.apache
@pytest.mark.parametrize("client", [AbClient, BuiltinClient])
def test_request_count_mode(server: ApacheServer, client: type[LoadClient],
                            tmp_path: Path) -> None:
    if not client.available():
        pytest.skip(f"{client.name} is not installed")
    spec = LoadSpec(server.base_url, ("/a.foo",), 2, duration_s=None, requests=300)
    assert client().run(spec, tmp_path).requests == 300


def test_request_counts_do_not_use_wrk() -> None:
    # wrk waits out its -d even after its threads stop, and reports that as the duration.
    assert choose_client(by_requests=True).name != "wrk"
    if WrkClient.available():
        with pytest.raises(ClientError, match="--duration"):
            choose_client("wrk", by_requests=True)
