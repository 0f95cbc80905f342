"""Hostile input to the reader and the loader: every case ends at once with a one-line
``file:line`` error (an error Apache gives, or a limit of confmig's own), never a hang, a
traceback or unbounded memory.  What Apache itself does with each is checked in
tests/test_syntax_reader_apache.py."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from confmig.load import load_config
from confmig.load.variables import MAX_EXPANDED_LINE
from confmig.syntax import ReadLimitError, parse_bytes, parse_text, print_file
from confmig.syntax.parser import MAX_SECTION_DEPTH

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "confmig", *args], capture_output=True,
                          timeout=120, cwd=cwd)


# -- 1. line length ------------------------------------------------------------------------

def test_htaccess_line_limit_is_an_error_at_its_line() -> None:
    ok = parse_bytes(b"Options None\n#" + b"x" * 8190 + b"\n", "a/.htaccess", htaccess=True)
    assert ok.ok
    bad = parse_bytes(b"Options None\n#" + b"x" * 8191 + b"\n", "a/.htaccess", htaccess=True)
    assert [str(e) for e in bad.errors] == [
        "a/.htaccess:2:1: Error reading a/.htaccess at line 2: Line too long"]


def test_the_server_config_reads_longer_lines() -> None:
    text = b"#" + b"x" * 100_000 + b"\nServerAdmin a@b\n"
    assert parse_bytes(text, "httpd.conf").ok
    assert not parse_bytes(text, ".htaccess", htaccess=True).ok


def test_a_continued_line_counts_joined_and_reports_its_last_line() -> None:
    text = b"Header set X " + b"a" * 4000 + b"\\\n" + b"b" * 4200 + b"\n"
    errors = parse_bytes(text, "h", htaccess=True).errors
    assert [(e.line, e.message) for e in errors] == [
        (2, "Error reading h at line 2: Line too long")]


def test_long_line_in_htaccess_is_a_lint_error_and_explain_answers_500(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "d").mkdir(parents=True)
    (site / "d" / "f.txt").write_text("x")
    (site / "d" / ".htaccess").write_bytes(b"Header set X-A " + b"x" * 8200 + b"\n")
    lint = run_cli("lint", "--no-cache", str(site))
    assert lint.returncode == 1, lint.stderr
    assert b"d/.htaccess:1:1: SYN001" in lint.stdout and b"Line too long" in lint.stdout
    explain = run_cli("explain", "/d/f.txt", "--root", str(site), "--format", "json")
    assert explain.returncode == 0, explain.stderr
    assert b'"status": 500' in explain.stdout


# -- 2./3. NUL, CR, backslash at the end: the reader's words --------------------------------

@pytest.mark.parametrize(("data", "words"), [
    (b"Options -Indexes\0 +Indexes junk\n", ["Options", "-Indexes"]),
    (b"Opt\0ions -Indexes\n", ["Opt"]),
    (b"Options -Indexes\0\\\n+Indexes\n", ["Options", "-Indexes", "|", "+Indexes"]),
    (b"Options \\\n-Indexes\0junk\nA b\n", ["Options", "-Indexes", "|", "A", "b"]),
    (b"Options -Indexes\0" + b"A" * 188 + b" x\n", ["Options", "-Indexes", "|", "x"]),
    (b"A a\rB b\r", ["A", "a", "B", "b"]),
    (b"A a\\", ["A", "a\\"]),
    (b"A a\\\n", ["A", "a"]),
    (b"A a\\\r\n", ["A", "a"]),
])
def test_reader_lines(data: bytes, words: list[str]) -> None:
    config = parse_bytes(data, "t", htaccess=True)
    got: list[str] = []
    for node in config.directives():
        if got:
            got.append("|")
        got += [node.name, *node.args]
    assert got == words
    assert print_file(config).encode("utf-8", "surrogateescape") == data  # lossless


# -- 4. Include of something that is not a regular file -------------------------------------

def test_include_of_dev_zero_is_refused_at_once(tmp_path: Path) -> None:
    conf = tmp_path / "httpd.conf"
    conf.write_text("ServerName x\nIncludeOptional /dev/zero\n")
    start = time.process_time()  # CPU time: what a read of /dev/zero would burn, not the load
    loaded = load_config(conf)
    assert time.process_time() - start < 5
    assert [str(e) for e in loaded.errors] == [
        f"{conf}:2:1: Could not open configuration file /dev/zero: Access to file /dev/zero "
        f"denied by server: not a regular file"]


def test_include_of_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "conf.d" / "pipe.conf"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    conf = tmp_path / "httpd.conf"
    conf.write_text("Include conf.d\n")  # a directory: every entry is read, the FIFO too
    loaded = load_config(conf)  # would block forever if it opened the FIFO
    assert [e.line for e in loaded.errors] == [1]
    assert "not a regular file" in loaded.errors[0].message


def test_parse_cli_on_include_of_dev_zero_is_one_line_exit_2(tmp_path: Path) -> None:
    conf = tmp_path / "httpd.conf"
    conf.write_text("Include /dev/zero\n")
    run = run_cli("parse", str(conf))
    assert run.returncode == 2
    assert run.stderr.decode().strip().splitlines()[-1].startswith(f"{conf}:1:1: Could not open")


# -- 5. ${VAR} expansion -------------------------------------------------------------------

def test_doubling_define_stops_at_the_line_limit(tmp_path: Path) -> None:
    conf = tmp_path / "httpd.conf"
    conf.write_text("Define X ab\n" + "Define X ${X}${X}\n" * 39 + "ServerAdmin ${X}\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ReadLimitError) as info:
        load_config(conf)
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 8 * MAX_EXPANDED_LINE // 1024  # bounded, not 2**39 bytes
    error = info.value.error
    assert (error.file, error.line) == (str(conf), 24)  # "Define X " + 2**24 chars on line 24
    assert "${X} makes this line longer than 16,777,216 characters" in error.message


def test_many_large_defines_stop_at_the_total_budget(tmp_path: Path) -> None:
    conf = tmp_path / "httpd.conf"
    lines = ["Define X ab", *["Define X ${X}${X}"] * 22]  # X is 8 MiB
    lines += [f"Define Y{i} ${{X}}" for i in range(20)]  # 20 x 8 MiB > 64 MiB
    conf.write_text("\n".join(lines) + "\n")
    with pytest.raises(ReadLimitError) as info:
        load_config(conf)
    assert "substitution has produced more than" in info.value.error.message


def test_define_cli_is_one_line_exit_2(tmp_path: Path) -> None:
    conf = tmp_path / "httpd.conf"
    conf.write_text("Define X ab\n" + "Define X ${X}${X}\n" * 39)
    for args in (["parse", str(conf)], ["parse", "--format", "json", str(conf)]):
        run = run_cli(*args)
        assert run.returncode == 2, run.stderr
        assert run.stderr.count(b"\n") == 1 and b"Traceback" not in run.stderr
        assert run.stderr.startswith(f"error: {conf}:24:1: ".encode())


# -- 7. nesting ----------------------------------------------------------------------------

def nested(depth: int, name: str = "IfModule mod_headers.c") -> str:
    word = name.split()[0]
    return f"<{name}>\n" * depth + "Header set X 1\n" + f"</{word}>\n" * depth


def test_nesting_up_to_the_cap_is_read_and_one_more_is_refused() -> None:
    assert parse_text(nested(MAX_SECTION_DEPTH), "ok").ok
    with pytest.raises(ReadLimitError) as info:
        parse_text(nested(MAX_SECTION_DEPTH + 1), "deep")
    assert info.value.error.line == MAX_SECTION_DEPTH + 1
    assert str(info.value).startswith(f"deep:{MAX_SECTION_DEPTH + 1}:1: sections nested more")


def test_nesting_through_include_is_capped_in_the_loader(tmp_path: Path) -> None:
    half = MAX_SECTION_DEPTH // 2 + 1
    (tmp_path / "inner.conf").write_text(nested(half, "If true"))
    (tmp_path / "httpd.conf").write_text(
        '<If "true">\n' * half + "Include inner.conf\n" + "</If>\n" * half)
    with pytest.raises(ReadLimitError):
        load_config(tmp_path / "httpd.conf")


def test_include_chain_at_apache_limit_needs_no_recursion(tmp_path: Path) -> None:
    for i in range(130):
        (tmp_path / f"{i}.conf").write_text(f"Include {i + 1}.conf\n<If true>\n</If>\n")
    (tmp_path / "130.conf").write_text("ServerAdmin a@b\n")
    loaded = load_config(tmp_path / "0.conf")
    assert [e.message for e in loaded.errors] == [
        "Exceeded the maximum Include nesting level of 128"]


@pytest.mark.parametrize("depth", [500, 50_000])
def test_every_command_refuses_deep_nesting_in_one_line(tmp_path: Path, depth: int) -> None:
    site = tmp_path / "site"
    (site / "d").mkdir(parents=True)
    (site / "d" / "f.txt").write_text("x")
    (site / "d" / ".htaccess").write_text(nested(depth))
    access = site / "d" / ".htaccess"
    for args in (["parse", str(access)], ["parse", "--format", "json", str(access)],
                 ["lint", "--no-cache", str(site)],
                 ["explain", "/d/f.txt", "--root", str(site)],
                 ["convert", "--to", "httpd", str(site)]):
        run = run_cli(*args)
        assert run.returncode == 2, (args, run.stderr[-500:])
        assert run.stderr == (f"error: {access}:{MAX_SECTION_DEPTH + 1}:1: sections nested "
                              f"more than {MAX_SECTION_DEPTH} deep: confmig reads at most "
                              f"{MAX_SECTION_DEPTH} levels (Apache has no set limit; it "
                              f"crashes at a few thousand)\n").encode(), args


# -- 6. bytes that are not UTF-8 -----------------------------------------------------------

def test_latin1_htaccess_converts_byte_for_byte(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    htaccess = b"# caf\xe9 cr\xe8me\nOptions -Indexes\nHeader set X-Caf\xe9 \"cr\xe8me\"\n"
    (site / "sub" / ".htaccess").write_bytes(htaccess)
    printed = run_cli("convert", "--to", "httpd", str(site))
    assert printed.returncode in (0, 1), printed.stderr
    assert b"Traceback" not in printed.stderr
    assert htaccess.replace(b"\n", b"") in printed.stdout.replace(b"\n", b"").replace(
        b"    ", b"")
    out = tmp_path / "out.conf"
    written = run_cli("convert", "--to", "httpd", str(site), "-o", str(out))
    assert written.returncode in (0, 1), written.stderr
    assert out.read_bytes() == printed.stdout


def test_latin1_httpd_conf_write_keeps_untouched_bytes(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / "sub" / ".htaccess").write_bytes(b"# \xe9t\xe9\nOptions -Indexes\n")
    conf = tmp_path / "httpd.conf"
    head = b"# caf\xe9 latin-1 comment\n"
    conf.write_bytes(head + f"DocumentRoot {site}\n<Directory {site}>\n    AllowOverride "
                     f"All\n</Directory>\n".encode())
    out = tmp_path / "converted.conf"
    to_file = run_cli("convert", "--to", "httpd", "--config", str(conf), "-o", str(out))
    assert to_file.returncode in (0, 1), to_file.stderr
    assert out.read_bytes().startswith(head) and b"# \xe9t\xe9\n" in out.read_bytes()
    in_place = run_cli("convert", "--to", "httpd", "--config", str(conf), "--write")
    assert in_place.returncode in (0, 1), in_place.stderr
    assert conf.read_bytes() == out.read_bytes()


def test_parse_prints_non_utf8_bytes_as_read(tmp_path: Path) -> None:
    access = tmp_path / ".htaccess"
    access.write_bytes(b"Header set X-A caf\xe9\n")
    tree = run_cli("parse", str(access))
    assert tree.returncode == 0 and b"caf\xe9" in tree.stdout
    as_json = run_cli("parse", "--format", "json", str(access))
    assert as_json.returncode == 0 and b"caf\\udce9" in as_json.stdout


@pytest.mark.parametrize("name", ["IfModule mod_headers.c", 'If "true"'])
def test_every_command_reads_nesting_at_the_cap(tmp_path: Path, name: str) -> None:
    """MAX_SECTION_DEPTH is low enough for every consumer of the tree (no RecursionError)."""
    site = tmp_path / "site"
    (site / "d").mkdir(parents=True)
    (site / "d" / "f.txt").write_text("x")
    (site / "d" / ".htaccess").write_text(nested(MAX_SECTION_DEPTH, name))
    access = site / "d" / ".htaccess"
    for args in (["parse", str(access)], ["parse", "--format", "json", str(access)],
                 ["lint", "--no-cache", str(site)],
                 ["explain", "/d/f.txt", "--root", str(site)],
                 ["convert", "--to", "httpd", str(site)]):
        run = run_cli(*args)
        assert run.returncode in (0, 1), (args, run.stderr[-500:])
        assert b"Traceback" not in run.stderr and b"Recursion" not in run.stderr


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(
    [b"\0", b"\r", b"\n", b"\\", b"\\\n", b"\\\r\n", b"<", b"</", b">", b"#", b'"', b" ",
     b"a", b"\xe9", b"\xff", b"<IfModule a>", b"</IfModule>", b"<Files x>", b"</Files>",
     b"A" * 150, b"Options -Indexes"])).map(b"".join))
def test_random_bytes_never_raise_and_round_trip(data: bytes) -> None:
    for htaccess in (True, False):
        config = parse_bytes(data, "fuzz", htaccess=htaccess)
        if config.ok:
            assert print_file(config).encode("utf-8", "surrogateescape") == data
        else:
            assert config.errors[0].line >= 0
