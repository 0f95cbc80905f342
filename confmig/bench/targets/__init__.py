"""Benchmark targets. Adding one is a small class in its own module with a ``name``, a
``description`` and ``make_server()``, named in its converter's ``bench`` slot in
:mod:`confmig.convert.registry` (the one list of what confmig converts to)."""

from __future__ import annotations

from confmig.bench.targets.apache import ApacheHtaccessTarget, ApacheHttpdTarget
from confmig.bench.targets.base import (
    Prepared,
    Target,
    TargetContext,
    TargetUnavailable,
    process_group,
)
from confmig.bench.targets.ceiling import CeilingTarget
from confmig.convert import registry


def _registered() -> dict[str, type[Target]]:
    """The baseline, then every converter's bench targets in the registry's order."""
    found: dict[str, type[Target]] = {ApacheHtaccessTarget.name: ApacheHtaccessTarget}
    for converter in registry.CONVERTERS:
        for cls in converter.bench_targets():
            found[cls.name] = cls
    return found


#: Every target ``--targets`` accepts, by name. The first is the baseline.
TARGETS: dict[str, type[Target]] = _registered()
BASELINE = ApacheHtaccessTarget.name

__all__ = [
    "BASELINE",
    "TARGETS",
    "ApacheHtaccessTarget",
    "ApacheHttpdTarget",
    "CeilingTarget",
    "Prepared",
    "Target",
    "TargetContext",
    "TargetUnavailable",
    "process_group",
]
