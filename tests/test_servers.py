"""confmig.servers: real Apache and nginx on 127.0.0.1 from private configs."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from confmig.servers import (
    ApacheServer,
    NginxServer,
    ResponseHeaders,
    ServerConfigError,
    ServerNotFound,
    apache_config_test,
    find_apache,
    find_nginx,
    free_port,
    http_get,
    module_short_name,
    nginx_config_test,
)

apache = pytest.mark.apache
nginx = pytest.mark.nginx


def gone(pid: int) -> bool:
    """Neither the master nor anything in its process group is left."""
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_for(predicate, timeout: float = 30.0) -> bool:
    """Poll until *predicate* holds (at once when all is well): Apache writes its access log
    after the response, whenever the worker next runs, which a busy machine can delay for
    seconds — the timeout only bounds a real failure."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# -- no binary needed ----------------------------------------------------------------------


def test_missing_binaries_say_what_to_install(tmp_path: Path) -> None:
    with pytest.raises(ServerNotFound, match=r"apt-get install -y apache2"):
        find_apache(tmp_path / "no-such-apache2")
    with pytest.raises(ServerNotFound, match=r"apt-get install -y nginx"):
        find_nginx(tmp_path / "no-such-nginx")


def test_free_port_is_bindable_on_loopback() -> None:
    port = free_port()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", port))


def test_headers_are_case_insensitive_and_keep_repeats() -> None:
    headers = ResponseHeaders(
        [("Set-Cookie", "a=1"), ("Content-Type", "text/plain"), ("set-cookie", "b=2")]
    )
    assert headers["content-type"] == "text/plain"
    assert headers.get_all("SET-COOKIE") == ["a=1", "b=2"]
    assert list(headers) == ["Set-Cookie", "Content-Type"]
    assert headers == {"content-type": "text/plain", "SET-COOKIE": "a=1, b=2"}


@pytest.mark.parametrize("name", ["rewrite", "mod_rewrite", "mod_rewrite.so", "rewrite_module"])
def test_module_names_are_normalised(name: str) -> None:
    assert module_short_name(name) == "rewrite"


# -- Apache ---------------------------------------------------------------------------------


@apache
@pytest.mark.parametrize("mpm", ["event", "prefork"])
def test_apache_serves_a_file_and_stops(apache_binary, docroot: Path, mpm: str) -> None:
    (docroot / "hello.txt").write_text("hello\n")
    with ApacheServer(docroot, mpm=mpm, binary=apache_binary) as server:
        pid = server.pid
        assert server.base_url == f"http://127.0.0.1:{server.port}"
        assert f"mpm_{mpm}_module" in server.config_text()
        response = http_get(server.base_url, "/hello.txt")
        assert response.status == 200
        assert response.body == b"hello\n"
        assert response.headers["content-type"].startswith("text/plain")
        assert not gone(pid)
    assert gone(pid)
    assert not server.running
    assert "caught SIGTERM" in server.error_log_text()  # log outlives the temp dir


@apache
@pytest.mark.parametrize(("allow_override", "expected"), [("All", "yes"), ("None", None)])
def test_htaccess_honoured_only_when_allowed(apache_binary, docroot: Path,
                                            allow_override: str, expected: str | None) -> None:
    (docroot / "index.html").write_text("<p>hi</p>\n")
    (docroot / ".htaccess").write_text("Header set X-Test yes\n")
    with ApacheServer(docroot, allow_override=allow_override, binary=apache_binary) as server:
        response = http_get(server.base_url, "/")
        assert response.status == 200
        assert response.headers.get("X-Test") == expected
        assert http_get(server.base_url, "/.htaccess").status == 403


@apache
def test_invalid_config_raises_with_apaches_message(apache_binary, docroot: Path) -> None:
    server = ApacheServer(docroot, extra_config="# fine\nNoSuchDirective on\n",
                          binary=apache_binary)
    with pytest.raises(ServerConfigError) as info:
        server.start()
    message = str(info.value)
    assert "Syntax error on line 2 of" in message and "extra.conf" in message
    assert "Invalid command 'NoSuchDirective'" in message
    assert "NoSuchDirective" not in info.value.config_text  # it lives in extra.conf
    assert not server.running


@apache
def test_process_gone_after_exception_in_context(apache_binary, docroot: Path) -> None:
    with pytest.raises(KeyError), ApacheServer(docroot, binary=apache_binary) as server:
        pid = server.pid
        raise KeyError("boom")
    assert gone(pid)
    assert not server.root.exists()


@apache
def test_raw_paths_reach_apache_verbatim(apache_binary, docroot: Path) -> None:
    (docroot / "b").write_text("b\n")
    with ApacheServer(docroot, access_log=True, binary=apache_binary) as server:
        for path in ("/a/../b", "//b", "/%2e/b"):
            http_get(server.base_url, path)
        assert wait_for(lambda: server.access_log_text().count("\n") >= 3)
        log = server.access_log_text()
    for path in ("/a/../b", "//b", "/%2e/b"):
        assert f'"GET {path} HTTP/1.1"' in log


@apache
def test_apache_config_test(apache_binary) -> None:
    assert apache_config_test("RewriteEngine On\n", binary=apache_binary) == (True, "Syntax OK")
    ok, message = apache_config_test("RewriteEngine On\n", modules=["dir"], binary=apache_binary)
    assert not ok
    assert "Syntax error on line 1 of" in message
    assert "Invalid command 'RewriteEngine'" in message
    ok, message = apache_config_test("<IfModule !rewrite_module>\nNope\n</IfModule>\n",
                                     binary=apache_binary)
    assert ok, message


@apache
def test_config_test_method_needs_no_running_server(apache_binary, docroot: Path) -> None:
    server = ApacheServer(docroot, allow_override="None", binary=apache_binary)
    assert server.config_test().ok
    ok, message = server.config_test("Options +Bogus\n")
    assert not ok and "Bogus" in message
    assert not server.running


@apache
def test_server_config_and_defines(apache_binary, docroot: Path) -> None:
    (docroot / "x.txt").write_text("x\n")
    site = (
        "DocumentRoot ${CONFMIG_DOCROOT}\n"
        "<Directory ${CONFMIG_DOCROOT}>\n  Require all granted\n</Directory>\n"
        "<IfDefine SHOUT>\n  Header set X-Shout loud\n</IfDefine>\n"
    )
    with ApacheServer(docroot, server_config=site, defines=["SHOUT"],
                      binary=apache_binary) as server:
        response = http_get(server.base_url, "/x.txt")
    assert response.status == 200
    assert response.headers["x-shout"] == "loud"


@apache
def test_apache_is_pinned_to_requested_cpu(apache_binary, docroot: Path) -> None:
    cpu = min(os.sched_getaffinity(0))
    with ApacheServer(docroot, cpus={cpu}, mpm="prefork", binary=apache_binary) as server:
        assert os.sched_getaffinity(server.pid) == {cpu}


# -- nginx ----------------------------------------------------------------------------------


@nginx
def test_nginx_serves_a_file_and_stops(nginx_binary, docroot: Path) -> None:
    (docroot / "hello.txt").write_text("hello\n")
    block = "location / {\n    add_header X-Test yes;\n}\n"
    with NginxServer(block, docroot, binary=nginx_binary) as server:
        pid = server.pid
        response = http_get(server.base_url, "/hello.txt")
        head = http_get(server.base_url, "/missing", method="HEAD")
    assert response.status == 200
    assert response.body == b"hello\n"
    assert response.headers["x-test"] == "yes"
    assert (head.status, head.body) == (404, b"")
    assert gone(pid)


@nginx
def test_nginx_invalid_config(nginx_binary, docroot: Path) -> None:
    with pytest.raises(ServerConfigError, match=r'unknown directive "bogus".*server\.conf:2'):
        NginxServer("# ok\nbogus on;\n", docroot, binary=nginx_binary).start()
    assert nginx_config_test("location /x { return 204; }", binary=nginx_binary).ok
