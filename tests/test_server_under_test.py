"""The server under test is one abstraction, next to the servers: verify's targets and the
bench's targets are the same kind of object (start, stop, base_url, port, diagnostics)."""

from __future__ import annotations

from confmig.bench.targets.base import Target as BenchTarget
from confmig.servers import ApacheUnderTest, ServerUnderTest
from confmig.verify.targets import ApacheTarget, Target


def test_verify_and_bench_share_the_server_under_test() -> None:
    assert Target is ServerUnderTest and ApacheTarget is ApacheUnderTest
    assert issubclass(BenchTarget, ServerUnderTest)
    assert not any(cls.__module__.startswith("confmig.verify") for cls in BenchTarget.__mro__)
