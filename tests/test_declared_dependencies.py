"""Every command must work from the package's declared dependencies alone (a plain
``pip install .``): no module of confmig may import a package that is only in the test extra
(hypothesis, pytest…) or only there because a declared one happens to pull it in.  A feature
extra's packages (``flask``: flask, gunicorn) serve only that target, which says what to
install when they are missing (``verify --to flask`` on a bare install, checked by hand)."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
PACKAGE = PROJECT / "confmig"

def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _names(requirements: list[str]) -> set[str]:
    return {_normal(re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0])
            for requirement in requirements}


def declared() -> set[str]:
    """The distribution names of ``[project] dependencies`` in pyproject.toml (normalised)."""
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    return _names(project["dependencies"])


def feature_extras() -> set[str]:
    """The distributions of the optional extras that are features, not the test tools."""
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]
    extras = project.get("optional-dependencies", {})
    return set().union(*(_names(reqs) for name, reqs in extras.items() if name != "test"))


def provided_by(module: str) -> set[str]:
    """The installed distributions that provide top-level *module* (``passlib`` comes from
    ``libpass``), or the module's own name when none is installed."""
    dists = importlib.metadata.packages_distributions().get(module) or [module]
    return {_normal(d) for d in dists}


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, top-level module) of every absolute import in *path*, at any depth (an import
    inside a function runs as surely as one at the top, only later)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name.split(".")[0]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module.split(".")[0]))
    return out


def test_confmig_imports_only_the_standard_library_and_declared_dependencies() -> None:
    deps = declared() | feature_extras()
    builtin = set(sys.stdlib_module_names) | {"confmig", "__future__"}
    undeclared = [f"{path.relative_to(PROJECT)}:{line}: {module}"
                  for path in sorted(PACKAGE.rglob("*.py"))
                  for line, module in imports(path)
                  if module not in builtin and not provided_by(module) & deps]
    assert undeclared == [], "imports of packages not in [project] dependencies:\n" + \
        "\n".join(undeclared)


def test_the_scan_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    sample = tmp_path / "m.py"
    sample.write_text("def f():\n    from hypothesis import given\n    import os.path\n")
    assert imports(sample) == [(2, "hypothesis"), (3, "os")]
    assert {"lark", "rich", "typer", "jinja2", "pcre2"} <= declared()
    assert provided_by("hypothesis") & (declared() | feature_extras()) == set()
    assert provided_by("jinja2") & declared() == {"jinja2"}
