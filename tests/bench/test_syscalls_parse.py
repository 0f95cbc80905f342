"""Reading strace output and cutting it into per-request segments (no strace needed)."""

from __future__ import annotations

import pytest

from confmig.bench import syscalls
from confmig.bench.syscalls import (
    MARKER_PATH,
    count_segments,
    parse_strace,
    summarize,
)

D = "/srv/www"


def request(tid: int, path: str, opens: list[tuple[str, str]], listener: int = 50) -> str:
    """The calls Apache's event MPM makes for one keep-alive request (trace format)."""
    lines = [f'{tid}  read(9, "GET {path} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n", 8000) = 40',
             f'{tid}  newfstatat(AT_FDCWD, "{D}{path}", {{st_mode=S_IFREG|0644}}, 0) = 0']
    for name, result in opens:
        lines.append(f'{tid}  openat(AT_FDCWD, "{name}", O_RDONLY|O_CLOEXEC) = {result}')
        if result == "10":
            lines += [f'{tid}  newfstatat(10, "", {{st_mode=S_IFREG|0644}}, AT_EMPTY_PATH) = 0',
                      f'{tid}  read(10, "AddType text/plain .bar\\n", 4096) = 24',
                      f'{tid}  read(10, "", 4096)                = 0',
                      f'{tid}  close(10)                         = 0']
    lines += [
        f'{tid}  openat(AT_FDCWD, "{D}{path}", O_RDONLY|O_CLOEXEC) = 11',
        f'{tid}  mmap(NULL, 128, PROT_READ, MAP_SHARED, 11, 0) = 0x7f0000000000',
        f'{tid}  writev(9, [{{iov_base="HTTP/1.1 200 OK\\r\\n", iov_len=17}}], 1) = 17',
        f'{tid}  munmap(0x7f0000000000, 128)       = 0',
        # the allocator growing its arena: history, not this request's work
        f'{tid}  mprotect(0x7f5e90021000, 4096, PROT_READ|PROT_WRITE) = 0',
        f'{tid}  mmap(NULL, 134217728, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7e',
        # ... and giving memory back: a heap that emptied, a large chunk moved (not the
        # file's mapping above, which is the request's)
        f'{tid}  munmap(0x7f5e90000000, 67108864)  = 0',
        f'{tid}  mremap(0x7f5e80000000, 266240, 532480, MREMAP_MAYMOVE) = 0x7f5e70000000',
        f"{tid}  times({{tms_utime=0, tms_stime=0, tms_cutime=0, tms_cstime=0}}) = 1",
        f'{tid}  close(11)                         = 0',
        f'{tid}  read(9, 0x7f5ea814f048, 8000)     = -1 EAGAIN (Resource temporarily unavailable)',
        f"{tid}  epoll_ctl(6, EPOLL_CTL_ADD, 9, {{events=EPOLLIN}}) = 0",
        f"{tid}  futex(0x7f5eaab98164, FUTEX_WAIT_BITSET_PRIVATE, 0, NULL <unfinished ...>",
        f"{listener}  <... epoll_wait resumed>[{{events=EPOLLIN}}], 53, 4012) = 1",
        f"{listener}  epoll_ctl(6, EPOLL_CTL_DEL, 9, 0x7f5e997e9d2c) = 0",
        f"{tid}  <... futex resumed>)              = 0",
        # a child being forked meanwhile: other threads, not this request's work
        "77  mmap(NULL, 8392704, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_STACK, -1, 0) = 0x7f",
        "77  +++ exited with 0 +++",
    ]
    return "\n".join(lines)


def htaccess_opens(path_dirs: list[str], hit: str | None, file: str) -> list[tuple[str, str]]:
    out = []
    for d in path_dirs:
        out.append((f"{d}/.htaccess", "10" if d == hit else "-1 ENOENT (No such file)"))
    out.append((f"{file}/.htaccess", "-1 ENOTDIR (Not a directory)"))
    return out


def trace(n: int) -> str:
    dirs = [D, f"{D}/0", f"{D}/0/1"]
    parts = [request(20, MARKER_PATH, [])]
    for i in range(n):
        path = f"/0/1/{i}.bar"
        parts.append(request(20 + i % 3, path, htaccess_opens(dirs, f"{D}/0/1", D + path)))
    parts.append(request(20, MARKER_PATH, []))
    return "\n".join(parts) + "\n"


def test_unfinished_calls_are_joined_with_their_resumption() -> None:
    calls = parse_strace("5  futex(0x1, FUTEX_WAIT <unfinished ...>\n"
                         "6  close(3)    = 0\n"
                         "5  <... futex resumed>)   = -1 EAGAIN (Resource temporarily)\n"
                         "5  --- SIGCHLD {si_signo=SIGCHLD} ---\n")
    assert [(c.tid, c.name, c.result) for c in calls] == [
        (5, "futex", "-1 EAGAIN (Resource temporarily)"), (6, "close", "0")]
    assert calls[0].errno == "EAGAIN"
    assert calls[1].int_arg(0) == 3


def test_padded_results_and_quoted_arguments() -> None:
    (call,) = parse_strace('9  openat(AT_FDCWD, "/a, b/.htaccess", O_RDONLY) = -1 ENOENT (x)\n')
    assert call.first_path() == "/a, b/.htaccess"
    assert call.int_arg(2) is None
    (mmap,) = parse_strace("9  mmap(NULL, 6, PROT_READ, MAP_SHARED, 10, 0) = 0x7f\n")
    assert mmap.int_arg(4) == 10


def test_segments_count_each_request_exactly() -> None:
    counts = count_segments(parse_strace(trace(5)))
    assert len(counts) == 5  # markers are not counted
    for count in counts:
        assert count.htaccess == {"ENOENT": 2, "hit": 1, "ENOTDIR": 1}
        # newfstatat + 4 opens + (fstat, read, read, close) + open + mmap + close
        assert count.fs_syscalls == 1 + 4 + 4 + 1 + 1 + 1
        # + the request read, writev, munmap of the file, times; not mprotect, anonymous mmap,
        # the allocator's munmap and mremap, EAGAIN, epoll, futex, other threads
        assert count.work_syscalls == count.fs_syscalls + 4
        # all: + mprotect, anonymous mmap, munmap, mremap, EAGAIN read, epoll_ctl, futex; the
        # listener's epoll_ctl (its epoll_wait began before the trace, so it has no start
        # line); the other thread's mmap
        assert count.syscalls == count.work_syscalls + 7 + 1 + 1


def test_summary_per_request() -> None:
    summary = summarize(count_segments(parse_strace(trace(4))))
    assert summary.available and summary.requests == 4
    assert summary.htaccess_opens == 4.0
    assert summary.htaccess_by_outcome == {"ENOENT": 2.0, "ENOTDIR": 1.0, "hit": 1.0}
    assert summary.per_level == {2: 4.0}
    assert summary.syscalls_min == summary.syscalls_max == summary.syscalls_median


def test_no_request_in_trace() -> None:
    summary = summarize(count_segments(parse_strace("1  close(3) = 0\n")))
    assert not summary.available and "no complete" in (summary.reason or "")


def test_without_strace_the_count_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syscalls.shutil, "which", lambda name: None)
    summary = syscalls.trace_requests(lambda: [1], "http://127.0.0.1:1", ["/x"])
    assert not summary.available
    assert "apt-get install strace" in (summary.reason or "")
    assert summary.to_json()["reason"] == summary.reason
