"""Benchmark targets. Adding one (nginx, Flask, …) is a small class in its own module with a
``name``, a ``description`` and ``make_server()``, plus one line in :data:`TARGETS`."""

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

#: Every target ``--targets`` accepts, by name. The first is the baseline.
TARGETS: dict[str, type[Target]] = {
    ApacheHtaccessTarget.name: ApacheHtaccessTarget,
    ApacheHttpdTarget.name: ApacheHttpdTarget,
}
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
