"""``--nginx-config FILE``: a hand-written nginx configuration split into the server body and
the http text confmig's private nginx takes, includes expanded, bad input named by file:line."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.bench.nginx_text import NginxTextError, parse_file, split_handwritten
from confmig.servers import ServerNotFound, find_nginx, nginx_config_test
from tests.corpus import CORPUS

CORPUS_NGINX = CORPUS / "h5bp-server-configs-nginx"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root / next(iter(files))


def test_a_whole_nginx_conf_is_split(tmp_path: Path) -> None:
    main = write(tmp_path, {
        "nginx.conf": "user www-data;\nworker_processes auto;\nevents { worker_connections 8; }\n"
                      "http {\n  include conf/*.conf;\n  access_log /var/log/x.log;\n"
                      "  default_type text/plain;\n  server {\n    listen 80;\n"
                      "    server_name a.test;\n    root /var/www;\n"
                      "    location = /x { return 200 \"a;b { }\"; }  # a comment; {\n  }\n}\n",
        "conf/types.conf": "types {\n  text/css css;\n}\nmap $uri $m { default 1; }\n",
    })
    split = split_handwritten(main)
    assert "return 200 \"a;b { }\";" in split.server_body
    assert "types {" in split.server_body and "default_type text/plain;" in split.server_body
    for gone in ("listen", "server_name", "root /var/www", "access_log", "user", "events"):
        assert gone not in split.server_body + split.http_config, gone
    assert "map $uri $m {" in split.http_config and "types {" not in split.http_config
    assert any(n.endswith("nginx.conf:11: root left out (confmig listens on 127.0.0.1 with "
                          "the site's docroot as root)") for n in split.notes)
    assert any("conf/types.conf:1: types moved into the server block" in n
               for n in split.notes)


@pytest.mark.parametrize(("text", "message"), [
    ("server { location / { }\n", "a block is not closed"),
    ("server { }\n}\n", ":2: unexpected }"),
    ("server { listen 80 }\n", ":1: unexpected }"),
    ("map $a $b { default \"x; }\n", ":1: unterminated string"),
    ("server { include a b; }\n", ":1: include takes one path"),
    ("server { include missing.conf; }\n", "missing.conf: No such file"),
    ("map $a $b { default 1; }\n", "0 server { } blocks"),
    ("server { }\nserver { }\n", "2 server { } blocks"),
])
def test_bad_input_is_named(tmp_path: Path, text: str, message: str) -> None:
    main = write(tmp_path, {"site.conf": text})
    with pytest.raises(NginxTextError, match=None) as info:
        split_handwritten(main)
    assert message in str(info.value) and str(main.parent) in str(info.value)


def test_an_include_loop_is_refused(tmp_path: Path) -> None:
    main = write(tmp_path, {"a.conf": "include a.conf;\n"})
    with pytest.raises(NginxTextError, match="nested deeper"):
        parse_file(main, tmp_path)


def test_h5bp_nginx_conf_is_accepted_by_nginx(tmp_path: Path) -> None:
    """h5bp's own nginx.conf with the server.localhost vhost, its includes resolved next to
    it: split, the result passes ``nginx -t``."""
    if not (CORPUS_NGINX / "nginx.conf").is_file():
        pytest.skip(f"{CORPUS_NGINX} is not there (../shared)")
    try:
        find_nginx()
    except ServerNotFound as exc:
        pytest.skip(str(exc))
    from bench.h5bp_nginx import handwritten_config

    split = split_handwritten(handwritten_config(tmp_path))
    assert "X-Content-Type-Options" in split.server_body
    ok, message = nginx_config_test(split.server_body, http_config=split.http_config)
    assert ok, message


def test_a_bad_configuration_is_refused_before_the_run(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from confmig.cli import app

    bad = write(tmp_path, {"site.conf": "map $a $b {\n  default 1;\n}\n"
                                        "server { return 200 \"x; }\n"})
    result = CliRunner().invoke(app, ["bench", "--targets", "nginx-handwritten",
                                      "--nginx-config", str(bad)])
    assert result.exit_code == 2, result.output
    assert f"--nginx-config: {bad}:4: unterminated string" in " ".join(result.output.split())
    assert "Traceback" not in result.output
