"""bench/parse_big_file.py runs and prints its figures, and the memory of parse and lint on a
1 MB ``.htaccess`` stays bounded (issue 10).

Speed is a benchmark, not an assertion (see bench/README.md).  Memory is: the peak of
Python's allocations while parsing or linting one file is deterministic (``tracemalloc``, in
a fresh interpreter, after a warm-up so that imports are not counted), so each bound below
is set above the figure measured when it was written and well under the one before: a
regression back to per-node copies, per-node pairs or an unbounded table fails it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "parse_big_file.py"
sys.path.insert(0, str(ROOT))

from bench.parse_big_file import make_text  # noqa: E402


def test_parse_big_file_prints_time_and_memory_per_shape_and_command() -> None:
    run = subprocess.run([sys.executable, str(BENCH), "--size-mb", "0.05", "--shapes",
                          "directives,sections"], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    for command in ("parse", "lint", "json"):
        assert any(x.startswith(f"fixed cost of {command} on a one-line file:") for x in lines)
    for shape in ("directives", "sections"):
        at = next(i for i, x in enumerate(lines) if x.startswith(f"{shape}: "))
        for command, line in zip(("parse", "lint", "json"), lines[at + 1:at + 4], strict=True):
            figures = re.search(rf"^  {command} +traced: +([\d.]+) s, peak +([\d.]+) MB = +"
                                r"([\d.]+)x the file +command: +([\d.]+) s wall, peak RSS +"
                                r"(\d+) MiB", line)
            assert figures is not None, line
            assert all(float(x) > 0 for x in figures.groups()), line


# (shape, command) -> bound on the traced peak, as a multiple of the file's size.  Measured
# when written (1 MB, warm; parse / lint): directives 7.9x / 15.6x, sections (a node per 11
# bytes) 14.0x / 24.7x, the bench tree's templates 7.6x / 15.9x, distinct lines - / 30.8x,
# rewrite - / 44.1x, comments - / 6.2x.  Before (af60d1c): 12.1x / 41.3x, 20.1x / 48.9x,
# 10.0x / 32.0x, - / 42.9x, - / 54.3x, - / 12.0x.  Findings count too: every line of
# "directives" is a DUP002 finding, whose equal messages are one string since (lint 24.7x
# -> 19.2x), and which are sorted without a key tuple each (19.2x -> 15.6x,
# lint.finding.sort_findings); the tree no longer outlives the tree rules (engine), and a
# RewriteRule shares its pattern and substitution with its directive's words and makes its
# search function on first use (rewrite 50.2x -> 44.1x).  Parse, since a directive holds its
# line once (its argument text read from it, its words split on first use, 7.87x / 9.93x /
# 13.25x / 6.43x / 5.98x for directives / distinct / sections / templates / rewrite; before:
# 7.9x / 18.5x / 14.0x / 7.6x / 12.1x).  Lint, since DUP002 keeps the hash of each key, not
# the key (distinct 30.8x -> 25.9x), and a context kept for the tree rules lets go of its
# scopes and walks (rewrite 44.1x -> 41.8x).  Rewrite, since RW005 asks a pattern whether it
# matches without keeping its search function, a Regex leaves its compiled pattern to the
# bounded cache, and the tree rules' summaries hold one token per file (RW010) and the
# directive's own words (DUP001): 41.8x -> 24.7x, with or without SEC002; and a RewriteRule
# keeps its rare flags in one shared object unless it has one (40 slots -> 19): 21.1x
# (templates 15.5x -> 14.3x).  A Section keeps ``closed`` and ``close_error`` in one slot:
# sections 13.25x -> 13.01x (parse), 24.46x -> 24.22x (lint), 38.46x -> 38.23x (with SEC002).
# parse --format json reads each directive's words without keeping them on the node, so it
# costs what the parse does: distinct 17.5x -> 9.93x, rewrite 11.1x -> 5.98x.
# A one-line node not shared with equal lines reads its line from the file's bytes when asked
# (syntax.ast.Source), sections written alike share one SectionShape (a section is its line,
# text and children: 64 bytes, not 136 and a closing line number), and an access file whose
# reading changes nothing is not copied by the loader: parse of distinct 9.93x -> 7.25x,
# sections 13.01x -> 9.95x, templates 6.39x -> 5.76x, rewrite 5.98x -> 4.40x.  A directive's
# file, column and end line live in a DirectivePlace shared by the file's directives at one
# column (88 bytes a node, not 104): directives 7.87x -> 7.11x, distinct 7.25x -> 6.60x,
# sections 9.95x -> 9.48x, templates 5.76x -> 5.39x, rewrite 4.40x -> 4.08x.
# A RewriteRule's flags are one object shared by the rules alike and its pattern its
# Regex's source (184 -> 80 bytes), a Regex's compile facts one shared tuple (72 -> 56),
# DUP001's summary a flat tuple, and the rewrite lines' readers keep no words on the node:
# rewrite lint 19.45x -> 16.28x, with or without SEC002 (helper memrw3).  A lint keeps its
# findings a field per column (lint.finding.Findings, ~40 bytes a finding, not a 96-byte
# object and its list slot): directives 14.20x -> 11.30x (15.06x -> 12.10x with SEC002),
# templates 12.57x -> 11.63x (helper memfind).  The lint's scopes are one index over the
# directives and DUP002 keeps a 32-bit print per key (helper memscope); SEC010 keeps only the
# security headers' names; a directive keeps its words or its text once read, not both
# (quoted words keep no text; words that are the text split at single spaces are split
# again); a ^literal pattern keeps no search function for subjects without its literal
# (helper memrwon): the rows below as measured at the end of the session, ~7 % above.
# A finding's columns as small as their values allow (a byte a field for DUP002's repeats,
# helper memdup): directives lint 11.30x -> 9.73x, with SEC002 12.10x -> 10.52x.
# A node's line is its block's first line, kept by the place or shape it shares with the
# block's nodes, plus its row in the block (0-255: CPython's cached ints), not an int object
# of 32 bytes a node; blank and comment lines share places too (helper memtree2): parse of
# directives 7.11x -> 5.61x, distinct 6.60x -> 5.33x, sections 9.48x -> 7.69x, templates
# 5.39x -> 4.53x, rewrite 4.08x -> 3.45x, comments 3.92x -> 3.00x (parse rows ~7 % above).
# A directive's quoted words, once read, kept as one NUL-joined string, not a list and a string
# a word (helper memwords2): distinct lint 14.09x -> 11.24x (with SEC002 14.57x -> 11.72x).
# At the end of the session (df3ebf2, after PERF005/PERF006 stopped listing every directive:
# sections 11.85x -> 11.61x), every lint row ~7 % above: without SEC002 directives 8.25x,
# distinct 10.75x, sections 11.61x, templates 10.13x, rewrite 12.79x; with it 8.64x, 11.20x,
# 11.61x, 12.96x, 12.79x, rewrite-on 12.79x.
# Session 11 (582cbc2: no lint walk cache, one word slot a node, tables that pay only for what
# repeats, DUP001 digests, shared rewrite checkers, sections' lists handed over; bench/README.md
# "(helper ..., 2026-11-27)" paragraphs): without SEC002 directives 6.42x, distinct 8.26x,
# sections 8.71x, templates 7.53x, rewrite 10.46x, comments 2.68x; parse 5.23x, 4.76x, 7.45x,
# 4.16x, 2.92x, 2.66x; json distinct 4.92x, rewrite 3.01x. Rows ~5 % above.  Session 12: a
# parsed RewriteRule reads its pattern and substitution from its directive's words (no strings
# of its own): rewrite 10.46x -> 8.00x (bound ~5 % above).  A parsed RewriteCond is a slotted
# object that reads its words from its directive and shares its operator and flags, a rule's
# conditions a tuple (helper memcond): templates 7.48x -> 7.20x (bound ~5 % above).
# Blank lines (helper memblank): a run of consecutive blank lines is one node
# (syntax.ast.Blank), not one a line: blank parse 65.83x -> 1.01x, lint 65.86x -> 1.07x.
# Comment lines likewise (helper memhash): a run of consecutive comment lines is one node
# (syntax.ast.Comment; Comment.lines() gives each line): hashes parse 33.36x -> 1.01x, lint
# 33.39x -> 1.07x.  Rows ~5 % above.
BOUNDS = {
    ("directives", "parse"): 5.5, ("directives", "lint"): 6.75,
    ("distinct", "parse"): 5.0, ("rewrite", "parse"): 3.1,
    ("sections", "parse"): 7.85, ("sections", "lint"): 9.15,
    ("templates", "parse"): 4.4, ("templates", "lint"): 7.6, ("comments", "parse"): 1.06,
    ("distinct", "lint"): 8.7, ("comments", "lint"): 1.12, ("rewrite", "lint"): 8.4,
    ("distinct", "json"): 5.2, ("rewrite", "json"): 3.2,
    ("blank", "parse"): 1.06, ("blank", "lint"): 1.12,
    ("hashes", "parse"): 1.06, ("hashes", "lint"): 1.12,
}


def traced_ratio(command: str, path: Path, ignore: str = "") -> float:
    """Peak of Python's allocations while ``command`` handles ``path``, over its size."""
    run = subprocess.run([sys.executable, str(BENCH), "--traced", command, str(path),
                          "--memory-only", "--ignore", ignore],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    _, peak, size = run.stdout.split()
    return int(peak) / int(size)


# The rules that ask the request model about the access file (its section): the bounds above
# are lint without them; MODEL_BOUNDS below, lint with every rule.  CTX011 (the lines Apache
# refuses, issue 10) reads the section SEC002 reads, built once: at 796f20d its section on top
# of the tree and findings was directives 6.42x -> 6.87x, distinct 8.27x -> 8.79x, templates
# 7.20x -> 8.05x, rewrite 8.00x -> 8.15x without SEC002; with every rule 7.12x -> 7.40x,
# 9.04x -> 9.32x, 9.43x -> 9.44x, 8.39x -> 8.33x (the section now outlives the mime types'
# transient read of SEC002's site, helper lint500).
WITHOUT_THE_MODEL = "SEC002,CTX011"

# SEC002 asks the request model about one access file alone (90c529f, issue 11: one place
# decides whether a file is sent): the model's own configuration of the file comes on top
# of lint's. The bounds above are lint without it, so that they keep guarding what they
# were set for; the model's share is bounded here (1 MB, measured at 16:20 on 2026-11-26:
# directives 21.5x, distinct 35.7x, sections 39.0x, templates 18.7x, rewrite 41.8x; at
# 13:50: 23.5x, 37.8x, 48.1x, 56.4x, 55.5x; before that 33x, 46x, 67x, 61x, 77x).  The model
# merges sections a step at a time, no longer keyed by every prefix's section ids (templates:
# 27.6 MB of keys for a file 1,200 <FilesMatch> match), DUP002 keeps hashes and the tree
# rules' contexts no scopes.  Issue 10's target (under 10x) is not met with it: see
# bench/README.md for what is left.  A <Files> section's configuration is built when a
# request's file walk first matches it (model.sections.FilesSections): sections 38.23x ->
# 17.66x, SEC002 adding nothing to the lint's own peak there (helper memsec).  Equal Header
# lines share one parsed entry (model.merge.headers.HeadersDir: 16 bytes a line, not a
# 128-byte entry) and a header set of more than 256 fields is not memoised: directives
# 21.13x -> 15.82x, distinct 32.86x -> 29.74x.
# The rewrite shape after "RewriteEngine On", whose rules SEC002's requests run: a request
# made and kept every pattern's search function and compiled pattern (10 MB); a subject
# without the literal a "^literal" pattern starts with is now answered without them:
# 25.5x -> 14.2x at 9bb0f68 (helper memrwon).  A RewriteRule is its own Regex (no 56-byte
# Regex object a rule): rewrite 14.21x -> 13.41x (also without SEC002), rewrite-on 14.06x ->
# 13.26x (helper memrwmodel).
# SEC002's status without the response's header table where no header can fail, Header
# lines that differ only in their name sharing one entry (helper memhdr): 26.8x -> 15.3x.
# With SEC002 at 582cbc2: directives 7.11x, distinct 9.03x, sections 8.87x, templates 9.72x (rows
# ~5 % above, and never above issue 10's target of 10x for a shape under it), rewrite and
# rewrite-on 10.79x (over the target: a rule's own pattern and substitution strings and the
# node's argument text, see bench/README.md); session 12, the rule reading them from its
# directive's words: rewrite and rewrite-on 8.39x (bound ~5 % above); a parsed RewriteCond
# the same way (helper memcond): templates 9.71x -> 9.43x (bound ~5 % above).
# Shapes an audit found over the target (e511e56), measured at ce8c707, rows ~5 % above, NOT
# under 10x yet (helper memlint2; what holds them at the peak, mostly SEC002's model of every
# line): if 47.89x (a ConfigSection, its label, builder dict and HeadersDir per <If>, a
# HeaderEntry per distinct Header, the expression tree and a kept search function per regex),
# rewritecond 51.03x (per condition: a header resolver and template, a checker closure, the
# condition object; model/rewrite), setenvif 26.92x (a compiled pattern and a kept search
# function per regex, the entry's own word strings), redirect 16.31x (parse_redirect's entry
# and its word strings), requireall 16.10x and require-ip 15.97x (an authz entry and its text
# per Require line), quoted-headers 15.75x (a HeaderEntry and parsed format per distinct value).
# rewritecond, a condition's template made on its first evaluation, bounded template/resolver
# caches, slotted checkers and header resolvers (helper memorchain): 51.03x -> 21.30x.
# A condition's checker reads it (one function for every %{HTTP:NAME} test, nothing kept
# per condition), a condition and a SetEnvIf entry are their own Regex reading their words,
# a SetEnvIf line is not searched when read (helper memregex): rewritecond 21.30x -> 12.23x
# (the peak is now RW016's list of every condition's test), setenvif 27.04x -> 7.95x.
# Redirect, Require and Header entries read their strings from their lines, plain IPv4 specs
# are two ints (helper mementries): redirect 16.31x -> 9.54x, requireall 16.10x -> 10.51x,
# require-ip 15.97x -> 9.90x, quoted-headers 15.75x -> 7.13x (require-ip lint 1.44 s -> 0.9 s).
# if, an <If> section built when a request first finds it true (model.sections.IfSection),
# one Variable node a name, the expression cache bounded and emptied after a lint (helper
# memif): 47.89x -> 29.29x (without SEC002 37.78x -> 19.18x).
# RW016 reads a rule's conditions one at a time (no list of every condition's test):
# rewritecond 12.23x -> 9.47x.
# allow (Allow from lines, added in session 13): their entries were a tuple rebuilt a line
# (quadratic: 10.1 s to lint 1 MB) and kept each word; now lists while read and entries
# that read their word from the line: 13.8x -> 11.39x, 1.02 s (not under 10x: the node and
# its kept argument text are 5.7 MB of it).
# At the end of session 13 (rows ~5 % above): comments parse 1.01x, lint 1.07x (a comment
# run is one node, helper memhash: from 2.66x/2.68x); templates 8.51x with every rule (Header
# entries read from their lines, helper mementries: from 9.44x); if 22.38x (the regex of an
# expression compiled once, helpers memregex and ifcpu: from 29.29x).
# Session 14: if 15.71x (a pattern's answer for the empty subject read from its compile, not
# fetched and kept: 22.38x -> 19.60x; a section's words its own, its shape shared by the
# sections of a block that differ only in their words: -> 15.71x); sections 9.14x -> 9.37x
# (the slot for a section's words).  allow 8.98x: a section's Allow/Deny entries are its
# directives and a number each, made when read, and DEP001 reads a line's words when it
# reaches it (helper allow14: from 11.39x; lint 0.96 s -> 0.91 s).  requireall 8.02x (a group
# of plain Require lines reads them from its section, helper reqall14: from 10.51x).  if
# 14.81x at the session's end (an <If> of Header lines read for its errors without a builder,
# plain regex patterns compiled when first searched: helpers ifwalk and exprcpu).
MODEL_BOUNDS = {"directives": 7.5, "distinct": 9.5, "sections": 9.85, "templates": 8.95,
                "rewrite": 8.8, "rewrite-on": 8.8, "if": 15.55, "rewritecond": 9.95, "allow": 9.45,
                "setenvif": 8.35, "redirect": 10.0, "requireall": 8.3, "require-ip": 10.0,
                "quoted-headers": 7.5}


def _one_mb(tmp_path: Path, shape: str) -> Path:
    data = make_text(shape, 1_000_000)
    assert data is not None
    path = tmp_path / ".htaccess"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(("shape", "command"), sorted(BOUNDS))
def test_memory_of_a_1_mb_access_file_is_bounded(tmp_path: Path, shape: str,
                                                 command: str) -> None:
    ratio = traced_ratio(command, _one_mb(tmp_path, shape), ignore=WITHOUT_THE_MODEL)
    assert ratio < BOUNDS[(shape, command)], f"{shape} {command}: {ratio:.1f}x the file"


@pytest.mark.parametrize("shape", sorted(MODEL_BOUNDS))
def test_memory_of_lint_with_the_request_model_is_bounded(tmp_path: Path, shape: str) -> None:
    ratio = traced_ratio("lint", _one_mb(tmp_path, shape))
    assert ratio < MODEL_BOUNDS[shape], f"{shape} lint with SEC002: {ratio:.1f}x the file"


def test_memory_grows_linearly_with_the_file(tmp_path: Path) -> None:
    """Issue 10: 50 MB took 2 GB and did not finish.  Linting four times the text costs four
    times the memory, not more (a structure that grows faster than the file would show)."""
    ratios = []
    for size in (500_000, 2_000_000):
        path = tmp_path / f"{size}" / ".htaccess"
        path.parent.mkdir()
        data = make_text("templates", size)
        assert data is not None
        path.write_bytes(data)
        ratios.append(traced_ratio("lint", path, ignore=WITHOUT_THE_MODEL))
    assert ratios[1] < ratios[0] * 1.3, ratios
