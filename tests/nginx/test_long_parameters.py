"""nginx refuses a parameter longer than its 4 KiB read buffer ("too long parameter",
confmig.convert.nginx.limits); Apache takes a line of 8 KiB. A ``Header`` value nginx
cannot hold is announced untranslatable and left out (exit 1, a comment at its place), as
any other Header line the converter cannot carry; any other parameter too long is
announced on top of the output (nginx will not load it), never passed as exact."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.limits import PARAMETER_MAX, long_tokens
from confmig.servers import NginxServer, make_docroot

LONG = "a" * 8100  # Apache's line limit is 8,191 bytes


@pytest.fixture
def site() -> Iterator[object]:
    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-long-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


def _loads(body: str, root: Path, binary: object, http: str = "") -> tuple[bool, str]:
    return NginxServer(body, str(root), http_config=http, binary=binary).config_test()


@pytest.mark.parametrize("pad", [0, 1, 1000, 4000])  # where the buffer's refills fall
def test_the_bound_is_nginxs(nginx_binary: object, site: object, pad: int) -> None:
    root = site({"index.html": "x"})  # type: ignore[operator]
    comment = f"# {'p' * pad}\n"
    for token, loads in ((f'"{"q" * (PARAMETER_MAX - 2)}"', True),
                         (f'"{"q" * (PARAMETER_MAX - 1)}"', True),   # 4095: still read
                         (f'"{"q" * PARAMETER_MAX}"', False),        # 4096 with its quotes
                         ("w" * PARAMETER_MAX, True),
                         ("w" * (PARAMETER_MAX + 1), False),
                         ("é" * (PARAMETER_MAX // 2 + 1), False)):   # bytes, not characters
        ok, message = _loads(f"{comment}add_header X {token} always;\n", root, nginx_binary)
        assert ok == loads, (len(token), message)
        flagged = bool(list(long_tokens(f"add_header X {token} always;")))
        assert flagged == (len(token.encode()) > PARAMETER_MAX)  # (4095 quoted: flagged,
        assert flagged or ok                                      # the bound is the least)
    ok, message = _loads(f"# {'c' * (PARAMETER_MAX - 2)}\n", root, nginx_binary)
    assert ok, message  # a comment line is a token too: of 4094 bytes, read


def test_a_header_value_nginx_cannot_hold_is_untranslatable(site: object,
                                                            nginx_binary: object) -> None:
    fits = "f" * (PARAMETER_MAX - 2)  # with its quotes, the longest that is read
    root = site({".htaccess": f'Header set X-Long "{LONG}"\n'        # type: ignore[operator]
                              f'Header always set X-Always "{LONG}"\n'
                              f'Header set X-Type "{LONG}" "expr=%{{CONTENT_TYPE}} =~ m#^text/#"\n'
                              f'Header always set X-Fits "{fits}"\n'
                              "Header set X-Ok small\n",
                 "index.html": "x"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1, result.stderr
    for line, name in ((1, "X-Long"), (2, "X-Always"), (3, "X-Type")):
        assert (f"untranslatable: {root}/.htaccess:{line}: Header: {name}: a value of 8100 "
                f"characters is 8102 bytes as an nginx parameter") in result.stderr
        assert f"# untranslatable: {root}/.htaccess:{line} Header: {name}:" in result.stdout
        assert f"add_header {name} " not in result.stdout  # left out, as Apache's other
    assert LONG not in result.stdout                      # untranslated Header lines
    assert f'add_header X-Fits "{fits}" always;' in result.stdout
    assert "add_header X-Ok $" in result.stdout
    assert "nginx will not load" not in result.stdout
    conversion = convert_docroot(root)
    ok, message = _loads(conversion.output.body, root, nginx_binary, conversion.output.http)
    assert ok and "[warn]" not in message, message


def test_any_other_parameter_too_long_is_announced(site: object, nginx_binary: object) -> None:
    root = site({".htaccess": f"Redirect /old /{'b' * 5000}\n",  # type: ignore[operator]
                 "index.html": "x"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1
    assert "nginx will not load this file" in result.stderr
    text = result.stdout
    lines = text.split("\n")
    announced = [line for line in lines if line.startswith("# untranslatable: line ")]
    assert announced
    for line in announced:  # each names a line that holds such a parameter
        number = int(line.split()[3])
        assert list(long_tokens(lines[number - 1]))
    conversion = convert_docroot(root)
    ok, message = _loads(conversion.output.body, root, nginx_binary, conversion.output.http)
    assert not ok and "too long parameter" in message  # what the announcement says
