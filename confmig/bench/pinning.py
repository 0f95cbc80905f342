"""Which cores the server and the load generator get.

Unpinned runs on a small machine are erratic: the scheduler moves the client onto the server's
core and both lose. With two or more usable cores the server gets one core and the client
another, the hand-measured set-up the reference figures come from. The remaining cores (if any)
stay free for everything else, so results are comparable across machine sizes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class CpuPlan:
    """Cores for the server and for the client (None: not pinned) and why."""

    server: frozenset[int] | None
    client: frozenset[int] | None
    note: str

    @property
    def pinned(self) -> bool:
        return self.server is not None

    def to_json(self) -> dict[str, object]:
        return {
            "server": sorted(self.server) if self.server is not None else None,
            "client": sorted(self.client) if self.client is not None else None,
            "note": self.note,
        }


def plan_cpus(available: set[int] | frozenset[int] | None = None) -> CpuPlan:
    """Server on the first usable core, client on the second; unpinned with one core."""
    cpus = sorted(available if available is not None else os.sched_getaffinity(0))
    if len(cpus) < 2:
        return CpuPlan(None, None, f"not pinned: only {len(cpus)} usable core; client and "
                                   "server share it, so every figure includes the client's cost")
    server, client = frozenset({cpus[0]}), frozenset({cpus[1]})
    return CpuPlan(server, client,
                   f"server pinned to core {cpus[0]}, client to core {cpus[1]} "
                   f"({len(cpus)} usable cores)")
