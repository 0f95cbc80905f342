"""Redirect, Require and Header entries read their strings from their lines (issue 10).

A merged entry kept its own copy of what its directive already holds: a Redirect's path and
target (and a status int a line), a Require line's text after the provider, a Header line's
value with its parsed format (an entry a distinct value); and ``Require ip`` built an
``ipaddress`` network a line at the parse and at each request, 4,096 of them kept in a cache
(bench/parse_big_file.py's ``redirect``, ``require-ip``, ``requireall`` and
``quoted-headers`` shapes: 16x the file, require-ip 1.44 s to lint).  Entries now read those
from the directive's words, checked when they are made, and plain IPv4 specs are two ints.
"""

from __future__ import annotations

import copy
import gc
import ipaddress
import pickle
import tracemalloc

import pytest

from confmig.model.merge import SectionBuilder, parse_redirect
from confmig.model.merge.authz import AuthzNode
from confmig.model.netmatch import (
    ip_matches,
    ip_subnet,
    ipsubnet_problem,
    is_subnet,
    subnet_refused,
)
from confmig.model.sections import SectionCollector
from confmig.syntax import Directive, parse_text


def _nodes(text: str) -> list[Directive]:
    nodes = [n for n in parse_text(text).nodes if isinstance(n, Directive)]
    for d in nodes:
        d.args, d.args_text  # noqa: B018 - read (and kept) before, as a lint does
    return nodes


def _kept_per_line(text: str, n: int) -> float:
    """Bytes the section's builder and its config keep per line of *text* (n lines)."""
    nodes = _nodes(text)
    gc.collect()
    tracemalloc.start()
    builder = SectionBuilder("directory", "/srv/www/")
    for d in nodes:
        builder.directive(d)
    assert not builder.errors, builder.errors[:2]
    config = builder.build()
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert config
    return kept / n


N = 3_000


@pytest.mark.parametrize(("name", "line", "bound"), [
    # bytes a line: 224-256 (an AliasEntry, two strings and a status int), now ~75
    ("redirect", "Redirect 301 /a{i} /b{i}\n", 100),
    ("redirect without status", "Redirect /a{i} /b{i}\n", 100),
    # 523 (an AuthzNode, its text, ipaddress networks in the cache), now ~77
    ("require ip", "Require ip 10.{a}.{b}.0/24\n", 100),
    # 481 (an entry, its value and format a line), now ~28 (one entry for all)
    ("header", 'Header always set X-{i} "a {i} c"\n', 50),
])
def test_distinct_lines_keep_little_besides_their_directives(name: str, line: str,
                                                               bound: int) -> None:
    text = "".join(line.format(i=i, a=i // 256, b=i % 256) for i in range(N))
    ip_subnet.cache_clear()
    per_line = _kept_per_line(text, N)
    assert per_line < bound, f"{name}: {per_line:.0f} bytes a line"


@pytest.mark.parametrize(("line", "fake", "real", "status"), [
    ("Redirect /a /b", "/a", "/b", 302),
    ("Redirect 301 /a http://x/b", "/a", "http://x/b", 301),
    ("Redirect permanent /a /b", "/a", "/b", 301),
    ("RedirectTemp /a /b", "/a", "/b", 302),
    ('Redirect 307 "/a b" "/c d"', "/a b", "/c d", 307),
    ("Redirect seeother /a /c", "/a", "/c", 303),
])
def test_a_redirect_reads_its_path_and_target_from_its_words(line: str, fake: str, real: str,
                                                              status: int) -> None:
    [d] = _nodes(line + "\n")
    entry, _, err = parse_redirect(d, in_dir=True)
    assert err is None and entry is not None
    assert (entry.kind, entry.fake, entry.real, entry.status, entry.regex, entry.directive) \
        == ("redirect", fake, real, status, None, d)
    assert entry.handler is None


def test_redirect_statuses_are_shared_ints() -> None:
    one, two = (parse_redirect(d, in_dir=True)[0] for d in _nodes(
        "Redirect 308 /a /b\nRedirect 308 /c /d\n"))
    assert one is not None and two is not None and one.status == 308
    assert one.status is two.status


@pytest.mark.parametrize(("line", "provider", "negate", "args"), [
    ("Require ip 10.0.0.0/8 192.168.1.1", "ip", False, "10.0.0.0/8 192.168.1.1"),
    ("Require all granted", "all", False, "granted"),
    ("Require valid-user", "valid-user", False, ""),
    ('Require expr "%{REMOTE_ADDR} == \'1.2.3.4\'"', "expr", False,
     '"%{REMOTE_ADDR} == \'1.2.3.4\'"'),
    ("Require user  a   b", "user", False, "a   b"),
])
def test_a_require_line_s_args_are_its_text_after_the_provider(
        line: str, provider: str, negate: bool, args: str) -> None:
    builder = SectionBuilder("directory", "/srv/www/")
    [d] = _nodes(line + "\n")
    builder.directive(d)
    assert not builder.errors
    [node] = builder.authz_stack[-1]
    assert (node.provider, node.negate, node.args) == (provider, negate, args)
    assert node.describe() == f"Require {provider} {args}".rstrip()
    assert node.directive is d


def test_require_lines_in_groups_and_limits_read_their_lines() -> None:
    text = ("<RequireAll>\nRequire all granted\nRequire not ip 10.1.2.3 10.9\n</RequireAll>\n"
            "<Limit POST>\n<RequireAll>\nRequire  not   host  a.example b.example\n"
            "Require ip 10.0.0.0/8\n</RequireAll>\n</Limit>\n")
    builder = SectionBuilder("htaccess", "/srv/www/")
    SectionCollector(builder, "htaccess", None, []).feed(parse_text(text).nodes)
    assert not builder.errors, builder.errors
    found = []
    stack = list(builder.authz_stack[-1])
    while stack:
        node = stack.pop(0)
        if node.provider is None:
            stack[:0] = node.children
            continue
        found.append((node.describe(), node.negate, node.methods, node.op, node.children,
                      node.merged, node.directive.line))
        again = pickle.loads(pickle.dumps(node))
        assert (again.provider, again.negate, again.args, again.methods) == (
            node.provider, node.negate, node.args, node.methods)
        assert copy.copy(node).args == node.args
    post = frozenset(["POST"])
    assert found == [
        ("Require all granted", False, None, "or", (), False, 2),
        ("Require not ip 10.1.2.3 10.9", True, None, "or", (), False, 3),
        ("Require not host a.example b.example", True, post, "or", (), False, 7),
        ("Require ip 10.0.0.0/8", False, post, "or", (), False, 8)]


def test_header_values_past_the_first_lines_are_read_from_their_lines() -> None:
    """A section's first 64 Header lines keep their values (a request applies them without
    reading their lines); the lines after them that differ only in name and a plain value
    share one entry, which reads the value from each line."""
    n = 200
    builder = SectionBuilder("directory", "/srv/www/")
    for d in _nodes("".join(f'Header set X-{i} "v {i}"\nHeader always set Y-{i} w{i}\n'
                            for i in range(n))):
        builder.directive(d)
    conf = builder.build()["headers"]
    own = conf.onsuccess_parsed[:32]
    assert [h.value for h in own] == [f"v {i}" for i in range(32)]
    assert [h.format for h in own] == [(("", f"v {i}"),) for i in range(32)]
    shared = conf.onsuccess_parsed[32:]
    assert all(h is shared[0] for h in shared) and shared[0].value_at == 2
    assert [(h.name, h.value, h.format, h.value_at, h.directive.line) for h in conf.onsuccess] \
        == [(f"X-{i}", f"v {i}", (("", f"v {i}"),), -1, 2 * i + 1) for i in range(n)]
    assert [(h.name, h.value) for h in conf.always] == [(f"Y-{i}", f"w{i}") for i in range(n)]


def test_a_node_made_without_a_directive_keeps_its_args() -> None:
    node = AuthzNode(provider="all", args="granted")
    assert node.args == "granted" and node.describe() == "Require all granted"


SPECS = ["10", "10.1", "10.1.2", "10.1.2.3", "10.1.2.0/24", "10.1.2.3/32", "0.0.0.0/0",
         "10.1.2.3/0", "10.1.2.3/33", "10.1.2.3/024", "10.01.2.3", "10.1.2.300", "10.1/16",
         "10.0.0.0/255.0.0.0", "10.0.0.0/0.255.255.255", "::1", "fe80::/10",
         "::ffff:10.0.0.1", "10..1", "", "a.b.c.d", "1.2.3.4.5", "\u0661\u0660", "10.1.2.3/+8",
         "10.1.2.3/ 8", "1.2.3.4/8/8"]
CLIENTS = ["10.1.2.3", "10.1.3.1", "10.0.0.1", "::1", "::ffff:10.0.0.1", "::a01:203",
           "bogus", "0.0.0.0", "fe80::1"]


def _reference(spec: str, client: str) -> bool:
    net = ip_subnet.__wrapped__(spec)
    if net is None:
        return False
    try:
        return ipaddress.ip_address(client) in net
    except ValueError:
        return False


@pytest.mark.parametrize("spec", SPECS)
def test_plain_ipv4_specs_match_as_ipaddress_does(spec: str) -> None:
    for client in CLIENTS:
        assert ip_matches(spec, client) == _reference(spec, client), (spec, client)
    assert is_subnet(spec) == (ip_subnet.__wrapped__(spec) is not None)
    assert subnet_refused(spec) == (ip_subnet.__wrapped__(spec) is None
                                    or ipsubnet_problem(spec) is not None)


def test_plain_ipv4_specs_build_no_network() -> None:
    """A Require ip line and its match at a request read a plain IPv4 spec as two ints: no
    ipaddress network is built (nor kept in ip_subnet's cache)."""
    ip_subnet.cache_clear()
    builder = SectionBuilder("directory", "/srv/www/")
    for d in _nodes("".join(f"Require ip 10.{i}.0.0/16 10.{i}.1\n" for i in range(200))):
        builder.directive(d)
    assert not builder.errors
    assert ip_matches("10.3.0.0/16", "10.3.9.9") and not ip_matches("10.3.1", "10.3.9.9")
    assert ip_subnet.cache_info().currsize == 0
