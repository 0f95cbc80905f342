"""Count the file-system work per request with strace: exact where timings are noisy.

The server's processes (master and workers, all threads, following forks) are traced while a
single keep-alive connection sends a marker request, exactly N benchmark requests, and another
marker. The trace is cut into one segment per request (from the ``read`` that receives its
request line to the next one), and each segment is counted — the first three only for the
thread that read the request, which does all of the request's work:

* ``.htaccess`` open attempts (``open``/``openat`` of a path ending in ``/.htaccess``), split by
  outcome: ``ENOENT`` (no file), ``ENOTDIR`` (the ``FILE/.htaccess`` probe), ``hit``;
* file-system syscalls: the path-based calls (``openat``, ``newfstatat``, ``statx``, …) plus
  the descriptor calls (``read``, ``mmap``, ``sendfile``, ``close``, …) on files the request
  opened — deterministic for a given request and configuration;
* request syscalls: every call except the hand-offs between threads and processes
  (``futex``, ``epoll_*``, ``poll``, …, and reads that find no data yet) and the memory
  allocator growing or trimming its heap (``mprotect``, ``brk``, ``madvise``, ``mremap``,
  anonymous ``mmap``, a ``munmap`` of anything but a file mapping: once in a while, whenever
  an arena fills or empties, whatever the request): deterministic too;
* all syscalls, hand-offs included, which vary by a few with scheduling (whether the worker
  finds the next request already there or parks the connection with the listener): reported
  as the median segment with min–max, and the mean.

Degrades clearly: without strace, or where ptrace is not permitted, the count says why.
"""

from __future__ import annotations

import contextlib
import http.client
import itertools
import re
import shutil
import signal
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from confmig.servers.net import LOOPBACK

#: Benchmark requests counted per target. Below Apache's MaxKeepAliveRequests (100), so all of
#: them travel on one connection, whose accept() falls into the (uncounted) first marker.
DEFAULT_REQUESTS = 90
MARKER_PATH = "/confmig-bench-strace-marker"
ATTACH_TIMEOUT_S = 10.0

READ_CALLS = frozenset({"read", "recvfrom", "recv", "readv", "recvmsg"})
OPEN_CALLS = frozenset({"open", "openat", "openat2", "creat"})
PATH_CALLS = OPEN_CALLS | frozenset({
    "stat", "lstat", "newfstatat", "fstatat64", "statx", "access", "faccessat", "faccessat2",
    "readlink", "readlinkat", "getdents", "getdents64", "chdir", "realpath", "getxattr",
    "lgetxattr",
})
# Descriptor calls counted when their descriptor is a file the request opened: name -> index of
# the descriptor among the arguments.
FD_CALLS = {"read": 0, "pread64": 0, "readv": 0, "preadv": 0, "fstat": 0, "lseek": 0,
            "close": 0, "fadvise64": 0, "mmap": 4, "sendfile": 1, "sendfile64": 1}

# Waiting and waking: how many of these a request costs depends on timing, not on its work.
HANDOFF_CALLS = frozenset({
    "futex", "epoll_wait", "epoll_pwait", "epoll_pwait2", "epoll_ctl", "poll", "ppoll",
    "select", "pselect6", "nanosleep", "clock_nanosleep", "sched_yield", "restart_syscall",
    "semop", "semtimedop", "accept", "accept4",
})

# The allocator growing or trimming its arenas: when depends on the process's history, not on
# the request (a CI run once saw one mprotect in 40 requests). A munmap is the allocator's too
# unless it releases a file mapping (see _file_unmaps).
ALLOCATOR_CALLS = frozenset({"mprotect", "brk", "madvise", "mremap"})

_LINE = re.compile(r"^(?:(?P<tid>\d+)\s+)?(?P<body>.*)$")
_START = re.compile(r"^(?P<name>[a-z_0-9]+)\((?P<rest>.*)$")
_RESUMED = re.compile(r"^<\.\.\. (?P<name>[a-z_0-9]+) resumed>(?P<rest>.*)$")
_UNFINISHED = " <unfinished ...>"
# strace pads short calls to a column: "close(10)                 = 0".
_RESULT = re.compile(r"^(?P<args>.*)\)\s+= (?P<result>[^=]*)$")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_REQUEST = re.compile(r'"(?:GET|HEAD|POST) (\S+) HTTP/')


@dataclass
class Syscall:
    """One system call from the trace; ``result`` is None if it never completed."""

    tid: int
    name: str
    args: str
    result: str | None = None

    @property
    def failed(self) -> bool:
        return self.result is not None and self.result.startswith("-1 ")

    @property
    def errno(self) -> str | None:
        return self.result.split()[1] if self.failed and self.result else None

    def first_path(self) -> str | None:
        match = _STRING.search(self.args)
        return match.group(1) if match else None

    def int_arg(self, index: int) -> int | None:
        parts = _split_args(self.args)
        if index >= len(parts):
            return None
        try:
            return int(parts[index])
        except ValueError:
            return None


def parse_strace(text: str) -> list[Syscall]:
    """Parse ``strace -f -o`` output into calls in start order (an ``<unfinished ...>`` call is
    joined with its ``<... resumed>`` line); signals and exits are skipped."""
    calls: list[Syscall] = []
    pending: dict[int, Syscall] = {}
    for line in text.splitlines():
        match = _LINE.match(line)
        if match is None:
            continue
        tid = int(match.group("tid") or 0)
        body = match.group("body")
        if body.startswith(("+++", "---")):
            continue
        resumed = _RESUMED.match(body)
        if resumed is not None:
            call = pending.pop(tid, None)
            if call is not None:
                call.args, call.result = _finish(call.args + resumed.group("rest"))
            continue
        start = _START.match(body)
        if start is None:
            continue
        rest = start.group("rest")
        call = Syscall(tid, start.group("name"), rest)
        if rest.endswith(_UNFINISHED):
            call.args = rest[: -len(_UNFINISHED)]
            pending[tid] = call
        else:
            call.args, call.result = _finish(rest)
        calls.append(call)
    return calls


def _finish(rest: str) -> tuple[str, str | None]:
    """Split ``args) = result`` into its parts."""
    match = _RESULT.match(rest)
    if match is None:
        return rest.rstrip(")"), None
    return match.group("args"), match.group("result").strip()


def _split_args(args: str) -> list[str]:
    """Top-level comma-separated arguments (strings, arrays and structs kept whole)."""
    parts, depth, current, quoted, escaped = [], 0, [], False, False
    for char in args:
        if quoted:
            current.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
            continue
        if char == '"':
            quoted = True
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    if current:
        parts.append("".join(current).strip())
    return parts


@dataclass
class RequestCount:
    """The counts of one request's segment."""

    path: str
    syscalls: int = 0
    work_syscalls: int = 0
    fs_syscalls: int = 0
    htaccess: dict[str, int] = field(default_factory=dict)
    names: dict[str, int] = field(default_factory=dict)

    @property
    def htaccess_opens(self) -> int:
        return sum(self.htaccess.values())


def count_segments(calls: Sequence[Syscall], access_file: str = ".htaccess",
                   marker: str = MARKER_PATH) -> list[RequestCount]:
    """One :class:`RequestCount` per request whose segment is complete (followed by another
    request start), markers excluded."""
    starts = [i for i, call in enumerate(calls) if _request_path(call) is not None]
    unmaps = _file_unmaps(calls)
    counts = []
    for begin, end in itertools.pairwise(starts):
        path = _request_path(calls[begin]) or ""
        if path == marker:
            continue
        released = frozenset(i - begin for i in unmaps if begin <= i < end)
        counts.append(_count(path, calls[begin:end], access_file, released))
    return counts


def _file_unmaps(calls: Sequence[Syscall]) -> set[int]:
    """Indices of the munmap calls that release a file mapping: one an mmap of a descriptor
    returned earlier in the trace and not yet released. Any other munmap is the allocator
    giving memory back (a heap or a large chunk freed), which depends on history."""
    live: set[str] = set()
    found: set[int] = set()
    for index, call in enumerate(calls):
        if (call.name == "mmap" and "MAP_ANONYMOUS" not in call.args
                and call.result is not None and call.result.startswith("0x")):
            live.add(call.result)
        elif call.name == "munmap":
            address = next(iter(_split_args(call.args)), "")
            if address in live:
                live.discard(address)
                found.add(index)
    return found


def _request_path(call: Syscall) -> str | None:
    if call.name not in READ_CALLS or call.failed:
        return None
    match = _REQUEST.search(call.args)
    return match.group(1) if match else None


def _is_allocator(call: Syscall, releases_file: bool) -> bool:
    return (call.name in ALLOCATOR_CALLS
            or (call.name == "mmap" and "MAP_ANONYMOUS" in call.args)
            or (call.name == "munmap" and not releases_file))


def _count(path: str, calls: Sequence[Syscall], access_file: str,
           file_unmaps: frozenset[int] = frozenset()) -> RequestCount:
    """*file_unmaps*: indices (in *calls*) of the munmaps that release a file mapping."""
    count = RequestCount(path)
    # The thread that read the request does all of its work (Apache's worker thread, or the
    # prefork child). Other threads' calls in the segment are hand-offs (the event MPM's
    # listener) or unrelated (a child the master forks meanwhile): counted only in the total.
    worker = calls[0].tid if calls else 0
    files: set[int] = set()
    for index, call in enumerate(calls):
        count.syscalls += 1
        if call.tid != worker:
            continue
        count.names[call.name] = count.names.get(call.name, 0) + 1
        if (call.name not in HANDOFF_CALLS and not _is_allocator(call, index in file_unmaps)
                and call.errno != "EAGAIN"):
            count.work_syscalls += 1
        if call.name in PATH_CALLS:
            count.fs_syscalls += 1
            if call.name in OPEN_CALLS:
                target = call.first_path() or ""
                if target.rsplit("/", 1)[-1] == access_file:
                    outcome = call.errno or "hit"
                    count.htaccess[outcome] = count.htaccess.get(outcome, 0) + 1
                if not call.failed and call.result is not None and call.result.isdigit():
                    files.add(int(call.result))
        elif call.name in FD_CALLS:
            fd = call.int_arg(FD_CALLS[call.name])
            if fd is not None and fd in files:
                count.fs_syscalls += 1
                if call.name == "close":
                    files.discard(fd)
    return count


@dataclass
class SyscallSummary:
    """Per-request figures for one target (``available`` False: why not in ``reason``)."""

    available: bool
    reason: str | None = None
    requests: int = 0
    htaccess_opens: float = 0.0
    htaccess_by_outcome: dict[str, float] = field(default_factory=dict)
    fs_syscalls: float = 0.0
    work_syscalls: float = 0.0
    syscalls_mean: float = 0.0
    syscalls_median: float = 0.0
    syscalls_min: int = 0
    syscalls_max: int = 0
    by_name: dict[str, float] = field(default_factory=dict)
    per_level: dict[int, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "available": self.available, "reason": self.reason, "requests": self.requests,
            "htaccess_opens_per_request": self.htaccess_opens,
            "htaccess_opens_by_outcome": self.htaccess_by_outcome,
            "fs_syscalls_per_request": self.fs_syscalls,
            "syscalls_per_request": self.work_syscalls,
            "all_syscalls_per_request": {"mean": self.syscalls_mean,
                                         "median": self.syscalls_median,
                                         "min": self.syscalls_min, "max": self.syscalls_max},
            "by_name_per_request": self.by_name,
            "htaccess_opens_by_level": {str(k): v for k, v in self.per_level.items()},
        }


def summarize(counts: Sequence[RequestCount]) -> SyscallSummary:
    """Per-request means (exact for the deterministic counts) and the spread of the totals."""
    n = len(counts)
    if n == 0:
        return SyscallSummary(False, "the trace holds no complete benchmark request")
    outcomes: dict[str, int] = {}
    names: dict[str, int] = {}
    levels: dict[int, list[int]] = {}
    for count in counts:
        for key, value in count.htaccess.items():
            outcomes[key] = outcomes.get(key, 0) + value
        for key, value in count.names.items():
            names[key] = names.get(key, 0) + value
        levels.setdefault(count.path.strip("/").count("/"), []).append(count.htaccess_opens)
    totals = [c.syscalls for c in counts]
    return SyscallSummary(
        available=True,
        requests=n,
        htaccess_opens=sum(c.htaccess_opens for c in counts) / n,
        htaccess_by_outcome={k: v / n for k, v in sorted(outcomes.items())},
        fs_syscalls=sum(c.fs_syscalls for c in counts) / n,
        work_syscalls=sum(c.work_syscalls for c in counts) / n,
        syscalls_mean=sum(totals) / n,
        syscalls_median=float(statistics.median(totals)),
        syscalls_min=min(totals),
        syscalls_max=max(totals),
        by_name={k: v / n for k, v in sorted(names.items(), key=lambda kv: -kv[1])},
        per_level={lvl: sum(v) / len(v) for lvl, v in sorted(levels.items())},
    )


def strace_missing_reason() -> str | None:
    """Why strace cannot be used here, or None."""
    if shutil.which("strace") is None:
        return "strace is not installed (apt-get install strace): no syscall count"
    return None


def trace_requests(pids: Callable[[], Iterable[int]], base_url: str, paths: Sequence[str],
                   requests: int = DEFAULT_REQUESTS, access_file: str = ".htaccess",
                   workdir: Path | None = None, attempts: int = 3) -> SyscallSummary:
    """Trace the server's processes (``pids()``: all threads, following forks) over exactly
    *requests* requests to *paths* (cycled) on one keep-alive connection; per-request summary.

    A server may still be forking its first children when asked (Apache starts them after it
    listens); a child that was not traced can take the connection, and then the trace misses
    requests. So the process list is read once it has been stable for a moment, and a trace
    that did not see every request is retried.
    """
    reason = strace_missing_reason()
    if reason is not None:
        return SyscallSummary(False, reason)
    if urlsplit(base_url).hostname != LOOPBACK:
        raise ValueError(f"only {LOOPBACK} is traced, not {base_url}")
    summary = SyscallSummary(False, "not traced")
    for _ in range(attempts):
        summary = _trace_once(stable_pids(pids), base_url, paths, requests, access_file,
                              workdir)
        if summary.available or summary.reason is None or "saw" not in summary.reason:
            return summary
    return summary


def stable_pids(pids: Callable[[], Iterable[int]], settle_s: float = 0.25,
                timeout_s: float = 5.0) -> list[int]:
    """``pids()`` once it returns the same set twice *settle_s* apart (or after *timeout_s*)."""
    deadline = time.monotonic() + timeout_s
    current = sorted(set(pids()))
    while time.monotonic() < deadline:
        time.sleep(settle_s)
        again = sorted(set(pids()))
        if again == current:
            break
        current = again
    return current


def _trace_once(pid_list: list[int], base_url: str, paths: Sequence[str], requests: int,
                access_file: str, workdir: Path | None) -> SyscallSummary:
    with tempfile.TemporaryDirectory(prefix="confmig-strace-", dir=workdir) as tmp:
        out = Path(tmp) / "trace.txt"
        argv = ["strace", "-f", "-s", "256", "-o", str(out)]
        for pid in pid_list:
            argv += ["-p", str(pid)]
        err_path = Path(tmp) / "strace.err"
        with open(err_path, "wb") as err:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=err, start_new_session=True)
        try:
            problem = _wait_attached(proc, err_path, len(pid_list))
            if problem is not None:
                return SyscallSummary(False, problem)
            sequence = [MARKER_PATH, *(paths[i % len(paths)] for i in range(requests)),
                        MARKER_PATH]
            _send_sequentially(base_url, sequence)
        finally:
            _stop_strace(proc)
        calls = parse_strace(out.read_text(errors="replace"))
    summary = summarize(count_segments(calls, access_file))
    if summary.requests != requests:
        return SyscallSummary(False, f"strace saw {summary.requests} of the {requests} "
                                     "requests (a process it did not trace answered some)")
    return summary


def _wait_attached(proc: subprocess.Popen[bytes], err_path: Path, expected: int) -> str | None:
    """Wait until strace reports every process attached; return a problem or None."""
    deadline = time.monotonic() + ATTACH_TIMEOUT_S
    while time.monotonic() < deadline:
        text = err_path.read_text(errors="replace")
        if "Operation not permitted" in text or ("attach:" in text and "ptrace" in text):
            return ("strace may not attach here (ptrace not permitted: see "
                    "/proc/sys/kernel/yama/ptrace_scope, or run with CAP_SYS_PTRACE): "
                    + text.strip().splitlines()[-1])
        if proc.poll() is not None:
            return f"strace exited early: {text.strip()[-300:]}"
        if text.count("attached") >= expected:
            time.sleep(0.05)
            return None
        time.sleep(0.02)
    return f"strace did not attach within {ATTACH_TIMEOUT_S:g}s"


def _send_sequentially(base_url: str, sequence: Sequence[str]) -> None:
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname or LOOPBACK, parts.port or 80, timeout=30)
    try:
        for path in sequence:
            conn.request("GET", path)
            conn.getresponse().read()
    finally:
        conn.close()


def _stop_strace(proc: subprocess.Popen[bytes]) -> None:
    """SIGINT makes strace detach cleanly (the server keeps running); kill it if it hangs."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
