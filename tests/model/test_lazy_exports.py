"""confmig.model.merge imports each module's config, and confmig.model.rewrite each of its
modules, when a name of it is first used (issue 17): each table of names is complete and right,
and importing the package loads no module it need not."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import confmig.model.merge as merge
import confmig.model.rewrite as rewrite

ROOT = Path(__file__).resolve().parents[2]


def _type_checking_imports(package: object = merge) -> dict[str, str]:
    """name -> module of the imports under ``if TYPE_CHECKING:`` (what type checkers see)."""
    tree = ast.parse(Path(package.__file__).read_text())  # type: ignore[attr-defined]
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for item in node.body:
                assert isinstance(item, ast.ImportFrom) and item.module
                found.update({a.asname or a.name: item.module for a in item.names})
    return found


def test_the_table_is_what_type_checkers_see_and_all_exports() -> None:
    assert _type_checking_imports() == merge.EXPORTS
    assert sorted(merge.__all__) == sorted(merge.EXPORTS)


@pytest.mark.parametrize("name", sorted(merge.EXPORTS))
def test_each_name_is_its_modules(name: str) -> None:
    assert getattr(merge, name) is getattr(importlib.import_module(merge.EXPORTS[name]), name)


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        merge.NoSuchThing  # noqa: B018
    with pytest.raises(ImportError):
        exec("from confmig.model.merge import NoSuchThing", {})


def test_importing_the_package_loads_no_module_and_a_name_loads_its_own() -> None:
    code = ("import sys\nimport confmig.model.merge\n"
            "print(sorted(m for m in sys.modules if m.startswith('confmig.model.merge.')))\n"
            "from confmig.model.merge import AuthzDir\n"
            "print(sorted(m for m in sys.modules if m.startswith('confmig.model.merge.')))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert first == "[]"
    assert "'confmig.model.merge.authz'" in second and "builder" not in second


def _modules_after(code: str) -> list[str]:
    """The lines *code* prints, run in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_rewrite_table_is_what_type_checkers_see_and_all_exports() -> None:
    # (merge, merge_server and server_dir_defaults are imported at once: see the package)
    eager = {"merge", "merge_server", "server_dir_defaults"}
    assert _type_checking_imports(rewrite) == rewrite.EXPORTS
    assert sorted(rewrite.__all__) == sorted([*rewrite.EXPORTS, *eager])


@pytest.mark.parametrize("name", sorted(rewrite.__all__))
def test_each_rewrite_name_is_its_modules(name: str) -> None:
    module = rewrite.EXPORTS.get(name, "confmig.model.rewrite.merge")
    assert getattr(rewrite, name) is getattr(importlib.import_module(module), name)


def test_rewrite_merge_is_the_function_after_its_module_is_imported() -> None:
    # the function shares its name with its module, whose import rebinds the package's name
    out = _modules_after("import confmig.model.rewrite.merge\n"
                         "from confmig.model.rewrite import merge\nprint(callable(merge))\n")
    assert out == ["True"]


def test_reading_rewrite_directives_loads_no_engine() -> None:
    code = ("import sys\nfrom confmig.model.rewrite import RewriteConfig\n"
            "print(sorted(m for m in sys.modules if m.startswith('confmig.model.rewrite.')))\n"
            "from confmig.model.rewrite import evaluate_server\n"
            "print('confmig.model.rewrite.engine' in sys.modules)\n")
    first, second = _modules_after(code)
    assert "'confmig.model.rewrite.parse'" in first
    assert "engine" not in first and "apply" not in first and "expand" not in first
    assert second == "True"
