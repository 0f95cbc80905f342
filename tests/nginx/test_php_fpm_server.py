"""confmig.servers.phpfpm: a private php-fpm from a temp-dir config on 127.0.0.1, stopped by
PID, with nothing of the system's PHP-FPM service touched."""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

import pytest

from confmig.servers import ServerNotFound
from confmig.servers.phpfpm import PhpFpmServer, find_php_fpm


def _record(kind: int, content: bytes, request_id: int = 1) -> bytes:
    return struct.pack("!BBHHBx", 1, kind, request_id, len(content), 0) + content


def _pair(name: str, value: str) -> bytes:
    n, v = name.encode(), value.encode()
    return bytes([len(n), len(v)]) + n + v


def fastcgi_get(address: str, script: str) -> bytes:
    """One FastCGI request (what a web server sends), the raw stdout records' content."""
    host, port = address.rsplit(":", 1)
    params = b"".join(_pair(k, v) for k, v in (
        ("REQUEST_METHOD", "GET"), ("SCRIPT_FILENAME", script), ("SCRIPT_NAME", "/x.php"),
        ("REQUEST_URI", "/x.php"), ("QUERY_STRING", ""), ("SERVER_PROTOCOL", "HTTP/1.1")))
    message = (_record(1, struct.pack("!HB5x", 1, 0)) + _record(4, params) + _record(4, b"")
               + _record(5, b""))
    out = b""
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(message)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    while len(data) >= 8:
        _, kind, _, length, padding = struct.unpack("!BBHHB", data[:7])
        if kind == 6:
            out += data[8:8 + length]
        data = data[8 + length + padding:]
    return out


def test_runs_the_prepend_and_stops_by_pid(php_fpm_binary: Path, tmp_path: Path) -> None:
    server = PhpFpmServer(prepend="<?php echo 'probe:' . $_SERVER['SCRIPT_NAME']; exit;\n",
                          environment={"CONFMIG_X": "1"}, binary=php_fpm_binary)
    with server:
        assert server.address == f"127.0.0.1:{server.port}"
        conf = server.conf_path.read_text()
        root = server.root
        paths = [word.strip('"') for line in conf.splitlines() for word in line.split()
                 if word.startswith('"/')]
        assert paths and all(p.startswith(f"{root}/") for p in paths), paths
        assert "pm = static" in conf and "request_terminate_timeout" in conf
        # the script file must exist (php-fpm checks it), but the prepend answers
        script = root / "x.php"
        script.write_text("<?php echo 'the script itself';\n")
        script.chmod(0o644)
        body = fastcgi_get(server.address, str(script))
        assert body.endswith(b"probe:/x.php"), body
        pid = server.pid
    assert not server.running
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    assert not root.exists()


def test_a_value_it_cannot_write_is_refused(php_fpm_binary: Path) -> None:
    server = PhpFpmServer(environment={"X": 'a"b'}, binary=php_fpm_binary)
    with pytest.raises(ValueError, match="not representable"):
        server.start()
    assert not server.running


def test_missing_binary_names_the_package() -> None:
    with pytest.raises(ServerNotFound, match="apt-get install -y php-fpm"):
        find_php_fpm("/nonexistent/php-fpm-confmig")
