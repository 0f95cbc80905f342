"""``confmig parse``'s tree is streamed a line at a time (issue 10: rich rendered 1 MB of
sections in 10.8 s and +86 MB): the plain lines are exactly what rich prints for the same
tree without colour, for any label and width (confmig.load.report.tree_lines)."""

from __future__ import annotations

import io
import random
from pathlib import Path

import pytest
from rich.console import Console

from confmig.load import load_path
from confmig.load.report import print_tree, tree_lines, workspace_tree

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"

ODD = [
    'Header set X-A "' + "a" * 150 + '"',  # longer than the width: rich crops it
    "Header set A\tb\t\tc",  # tabs: expanded
    "RewriteRule ^(.*)$ /x\x01y [L]",  # a control character
    'Header set Y "\u00e9\u4e2d\u4e2d [bold]x[/] \\\\"',  # wide characters, markup-like text
    "Header set Z :smile: :+1: http://a:b/",  # emoji codes
    "AddType text/html .x\\",
    "SetEnvIf Host [x] y",
    "ErrorDocument 404 \"[/] \\[b]",
    "Header set W \"\udce9\"",  # a byte that is not UTF-8
]


def _rich(ws: object, width: int, encoding: str = "utf-8") -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, highlight=False, soft_wrap=True)
    console.encoding  # noqa: B018 - rich decides ascii_only from it
    if encoding != "utf-8":
        console = Console(file=_Encoded(buffer, encoding), width=width, highlight=False,
                          soft_wrap=True)
    console.print(workspace_tree(ws))  # type: ignore[arg-type]
    return buffer.getvalue()


def _streamed(ws: object, width: int, encoding: str = "utf-8") -> str:
    buffer = io.StringIO()
    file = buffer if encoding == "utf-8" else _Encoded(buffer, encoding)
    console = Console(file=file, width=width, highlight=False, soft_wrap=True)
    assert not console.is_terminal
    print_tree(ws, console)  # type: ignore[arg-type]
    return buffer.getvalue()


class _Encoded(io.StringIO):
    """A text stream that says it is not UTF-8 (rich then draws ASCII guides)."""

    def __init__(self, target: io.StringIO, encoding: str) -> None:
        super().__init__()
        self._target, self._encoding = target, encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    def write(self, text: str) -> int:
        return self._target.write(text)


def _random_file(rng: random.Random) -> str:
    alphabet = "ab :[]/\\\t\"'<>\u00e9\u4e2d\x01x{}$^.*"
    lines, depth = [], 0
    for _ in range(rng.randint(1, 40)):
        roll = rng.random()
        if roll < 0.2 and depth < 6:
            lines.append(f"<IfModule m{rng.randint(0, 9)}>")
            depth += 1
        elif roll < 0.35 and depth:
            lines.append("</IfModule>")
            depth -= 1
        elif roll < 0.45:
            lines.append("# " + "".join(rng.choices(alphabet, k=rng.randint(0, 30))))
        else:
            words = "".join(rng.choices(alphabet, k=rng.randint(0, rng.choice((10, 90)))))
            lines.append(f"Header set X {words!r}" if rng.random() < 0.5 else f"Header {words}")
    lines.extend("</IfModule>" for _ in range(depth))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("width", [12, 40, 80, 200])
def test_streamed_tree_is_riches_tree(tmp_path: Path, width: int) -> None:
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / ".htaccess").write_text("\n".join(ODD) + "\n<Files [a]>\n<If x>\n</If>\n</Files>\n",
                                    errors="surrogateescape")
    (site / "sub" / ".htaccess").write_text("<Files x>\nRequire all denied\n")  # unclosed
    for path in (site, ROOT / "fixtures" / "demo-site"):
        ws = load_path(path)
        assert _streamed(ws, width) == _rich(ws, width)
    ws = load_path(site)
    assert _streamed(ws, width, "ascii") == _rich(ws, width, "ascii")
    assert "+-- " in _streamed(ws, width, "ascii")


def test_streamed_tree_on_random_files(tmp_path: Path) -> None:
    rng = random.Random(10)
    for n in range(60):
        path = tmp_path / f"{n}" / ".htaccess"
        path.parent.mkdir()
        path.write_text(_random_file(rng), errors="surrogateescape")
        ws = load_path(path)
        width = rng.choice((30, 80, 120))
        assert _streamed(ws, width) == _rich(ws, width), path.read_text()


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no ../shared/corpus on this machine")
def test_streamed_tree_on_the_corpus() -> None:
    files = sorted(CORPUS.rglob("*"))[:300]
    checked = 0
    for path in files:
        if path.is_file():
            ws = load_path(path)
            assert _streamed(ws, 80) == _rich(ws, 80), path
            checked += 1
    assert checked


def test_a_large_tree_is_written_line_by_line(tmp_path: Path) -> None:
    """The lines come one at a time: the first arrives before the last node is looked at."""
    path = tmp_path / ".htaccess"
    path.write_text("<Files a>\nHeader set A b\n</Files>\n" * 2000)
    ws = load_path(path)
    # wide enough for the path on one line, however long the temp dir's name (the user's,
    # pytest's run number, $TMPDIR): at 80 columns a longer one wraps
    lines = tree_lines(ws, Console(file=io.StringIO(), width=len(str(path)) + 80))
    assert next(lines) == "configuration\n"
    assert next(lines) == "\u2514\u2500\u2500 " + str(path) + " ok\n"
    assert next(lines) == "    \u251c\u2500\u2500 <Files a> :1\n"
    assert sum(1 for _ in lines) == 2000 * 2 - 1


def test_the_tree_prints_the_text_as_read(tmp_path: Path) -> None:
    """A label is text, not markup: ``\\[`` kept its backslash only in the JSON before (rich's
    escape of ``\\[`` printed ``[``), and an emoji code is not an emoji."""
    from typer.testing import CliRunner

    from confmig.cli import app

    path = tmp_path / ".htaccess"
    path.write_text("RewriteCond %{QUERY_STRING} GLOBALS(=|\\[|\\%[0-9A-Z]{0,2}) [OR]\n"
                    "RewriteRule ^ - [F]\nHeader set X :smile:\n")
    run = CliRunner().invoke(app, ["parse", "--no-config", str(path)])
    assert "RewriteCond %{QUERY_STRING} GLOBALS(=|\\[|\\%[0-9A-Z]{0,2}) [OR] :1\n" in run.output
    assert "Header set X :smile: :3\n" in run.output


def test_the_tree_of_a_file_leaves_its_nodes_as_the_parse_made_it(tmp_path: Path) -> None:
    """Issue 10: each label read ``args_text``, which also split and kept the words — 1 MB of
    distinct lines went from 7.1x the file after the load to 16x once the tree was printed."""
    import tracemalloc

    site = tmp_path / "site"
    site.mkdir()
    (site / ".htaccess").write_text("".join(f'Header set X-{i} "b c"\n' for i in range(3000)))
    tracemalloc.start()
    try:
        ws = load_path(site)
        loaded = tracemalloc.get_traced_memory()[0]
        console = Console(file=io.StringIO(), width=100, highlight=False, soft_wrap=True)
        written = sum(len(line) for line in tree_lines(ws, console))
        grown = tracemalloc.get_traced_memory()[0] - loaded
    finally:
        tracemalloc.stop()
    assert written > 3000 * 20
    assert grown < loaded * 0.05, (grown, loaded)
